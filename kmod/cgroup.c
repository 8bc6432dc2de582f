// SPDX-License-Identifier: GPL-2.0
/* Configured cgroups: path resolution, references, liveness. */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/memcontrol.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "ksnap.h"

/*
 * The cgroup's own css of a controller, held, or NULL when the controller
 * is not enabled for it (its parent's subtree_control lacks it) or it is
 * going away.  As cgroup_get_e_css() without the walk to an ancestor,
 * which 5.10 does not export.
 */
static struct cgroup_subsys_state *ksnap_cgroup_own_css(struct cgroup *cgrp,
							int ssid)
{
	struct cgroup_subsys_state *css;

	rcu_read_lock();
	css = rcu_dereference(cgrp->subsys[ssid]);
	if (css && !css_tryget_online(css))
		css = NULL;
	rcu_read_unlock();
	return css;
}

/**
 * ksnap_cgroup_get() - resolve a cgroup v2 path and hold it
 * @cg: filled on success; release with ksnap_cgroup_put()
 * @path: relative to the cgroup2 root of the caller's namespace
 *
 * Process context only.  Logs one line on failure.  A cgroup without its
 * own memory controller is accepted with cg->memcg NULL: only the memory.*
 * metrics need it, and the configuration says so when one is selected.
 *
 * Return: 0, or -ENOENT when there is no such cgroup.
 */
int ksnap_cgroup_get(struct ksnap_cgroup *cg, const char *path)
{
	struct cgroup *cgrp;

	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp)) {
		pr_err_ratelimited("cgroups: no cgroup '%s' (error %ld): paths are relative to the cgroup2 mount, e.g. /system.slice/foo.service\n",
				   path, PTR_ERR(cgrp));
		return -ENOENT;
	}

	ksnap_cgroup_hold(cg, cgrp, path);
	return 0;
}

/**
 * ksnap_cgroup_hold() - configure a cgroup already held
 * @cg: filled; release with ksnap_cgroup_put()
 * @cgrp: a reference the caller passes on to @cg
 * @path: its path, as its columns name it (may be @cg->path)
 *
 * Process context.  As ksnap_cgroup_get() once the path is resolved.
 */
void ksnap_cgroup_hold(struct ksnap_cgroup *cg, struct cgroup *cgrp,
		       const char *path)
{
	struct cgroup_subsys_state *css;

	if (path != cg->path)
		strscpy(cg->path, path, sizeof(cg->path));
	cg->memory = NULL;
	cg->memcg = NULL;
	cg->frozen = NULL;
	cg->had_memcg = false;
	cg->had_psi = false;
	css = ksnap_cgroup_own_css(cgrp, memory_cgrp_id);
	if (css) {
		cg->memory = css;
		cg->memcg = mem_cgroup_from_css(css);
	}
	cg->cgrp = cgrp;
	cg->id = cgroup_id(cgrp);
	cg->psi = ksnap_cgroup_psi(cgrp);
}

/* Drop the references; the path and any frozen values stay. */
static void ksnap_cgroup_drop(struct ksnap_cgroup *cg)
{
	if (cg->memory)
		css_put(cg->memory);
	if (cg->cgrp)
		cgroup_put(cg->cgrp);
	cg->memory = NULL;
	cg->memcg = NULL;
	cg->psi = NULL;
	cg->cgrp = NULL;
}

/**
 * ksnap_cgroup_has() - can @cg give a metric that needs @needs?
 * @cg: a held or a released cgroup
 * @needs: enum ksnap_needs
 *
 * A released cgroup answers as it did when it was released: its values
 * were kept for what it could give then.  Process context.
 */
bool ksnap_cgroup_has(const struct ksnap_cgroup *cg, int needs)
{
	switch (needs) {
	case KSNAP_NEEDS_MEMCG:
		return cg->memcg ||
		       (ksnap_cgroup_released(cg) && cg->had_memcg);
	case KSNAP_NEEDS_NONROOT:
		/* A released cgroup was removed: never the root. */
		return ksnap_cgroup_released(cg) || cgroup_parent(cg->cgrp);
	case KSNAP_NEEDS_PSI:
		return cg->psi ||
		       (ksnap_cgroup_released(cg) && cg->had_psi);
	}
	return true;
}

/* A held cgroup of type "threaded" (its domain is another). */
bool ksnap_cgroup_is_threaded(const struct ksnap_cgroup *cg)
{
	return cg->cgrp && ksnap_cgroup_threaded(cg->cgrp);
}

/**
 * ksnap_cgroup_no_memory_why() - why @cg has no memory css of its own
 * @cg: a held cgroup without one
 *
 * Return: the reason, for a log line.
 */
const char *ksnap_cgroup_no_memory_why(const struct ksnap_cgroup *cg)
{
	if (!cg->cgrp)
		return "removed";
	if (ksnap_cgroup_is_threaded(cg))
		return "a threaded cgroup: memory is a domain controller";
	return "its parent does not enable +memory in cgroup.subtree_control";
}

/**
 * ksnap_cgroup_release() - drop a removed cgroup's references
 * @cg: a configured cgroup, held or already released
 *
 * A removed cgroup, and its memcg, stay dying for as long as a reference
 * is held on them.  So once removed, a configured cgroup keeps only its
 * path and the value of each per-cgroup metric it gives, read now: its
 * columns show those, frozen, in every later collection, whose records
 * are flagged stale (sampler.c).  Nothing resolves it again but a cgroups
 * write, which fails for a removed path.
 *
 * Process context, with ks->lock held, and only where no sampler or
 * CPU-hotplug callback reads the configuration (stopped, see
 * ksnap_sampler_release_gone()), or on a configuration not published yet.
 *
 * Return: true when @cg is released (now or before); false while it is
 * held: it was not removed, or there was no memory for its values (kept
 * held then, and released at the next stop, start or reconfiguration).
 */
bool ksnap_cgroup_release(struct ksnap_cgroup *cg)
{
	unsigned int i;
	u64 *frozen;

	if (ksnap_cgroup_released(cg))
		return true;
	if (!ksnap_cgroup_dying(cg))
		return false;
	frozen = kcalloc(ksnap_nr_metrics, sizeof(*frozen), GFP_KERNEL);
	if (!frozen)
		return false;
	for (i = 0; i < ksnap_nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[i];

		if (m->per_cgroup && ksnap_cgroup_has(cg, m->needs))
			frozen[i] = ksnap_metric_read(m, cg, KSNAP_CPU_SUM);
	}
	cg->had_memcg = cg->memcg;
	cg->had_psi = cg->psi;
	ksnap_cgroup_drop(cg);
	cg->frozen = frozen;
	return true;
}

/**
 * ksnap_cgroup_dup() - hold a configured cgroup once more
 * @dst: receives a copy of @src, with references of its own
 * @src: a held or released cgroup
 *
 * For a new configuration that keeps the cgroups of the current one: no
 * path is resolved again, so a writer in another cgroup namespace binds
 * nothing new, and a removed cgroup is not held again: a released one is
 * copied (its frozen values), and one removed since it was held is
 * released in @dst (this reconfiguration is where its reference goes; the
 * current configuration's goes when it is freed).  A memory controller
 * disabled and enabled again since @src was held gave the cgroup a new
 * memcg: @dst holds that one, not the old, offline one, which is let go
 * with @src; while it is still disabled, @dst holds the old one, whose
 * columns stay frozen.  Process context.
 *
 * Return: 0, or -ENOMEM (@dst then holds nothing).
 */
int ksnap_cgroup_dup(struct ksnap_cgroup *dst, const struct ksnap_cgroup *src)
{
	struct cgroup_subsys_state *css = NULL;

	*dst = *src;
	if (ksnap_cgroup_released(src)) {
		dst->frozen = kmemdup(src->frozen,
				      ksnap_nr_metrics * sizeof(*src->frozen),
				      GFP_KERNEL);
		return dst->frozen ? 0 : -ENOMEM;
	}
	cgroup_get(dst->cgrp);
	if (ksnap_cgroup_memory_gone(src))
		css = ksnap_cgroup_own_css(dst->cgrp, memory_cgrp_id);
	if (css) {
		dst->memory = css;
		dst->memcg = mem_cgroup_from_css(css);
	} else if (dst->memory) {
		css_get(dst->memory);
	}
	ksnap_cgroup_release(dst);
	return 0;
}

/**
 * ksnap_cgroup_memcg_changed() - is @b's memcg another than @a's?
 * @a: a configured cgroup
 * @b: the same cgroup in another configuration
 *
 * Only when both are held: a released copy holds no memcg by design.
 */
bool ksnap_cgroup_memcg_changed(const struct ksnap_cgroup *a,
				const struct ksnap_cgroup *b)
{
	return !ksnap_cgroup_released(a) && !ksnap_cgroup_released(b) &&
	       a->memory != b->memory;
}

/**
 * ksnap_cgroup_memory_moved() - has a held cgroup a new memcg?
 * @cg: a configured cgroup
 *
 * Its memory controller was disabled (ksnap_cgroup_memory_gone()) and is
 * enabled again: a new configuration would hold the new memcg
 * (ksnap_cgroup_dup()).  Process context.
 */
bool ksnap_cgroup_memory_moved(const struct ksnap_cgroup *cg)
{
	struct cgroup_subsys_state *css;
	bool moved;

	if (ksnap_cgroup_released(cg) || !ksnap_cgroup_memory_gone(cg))
		return false;
	rcu_read_lock();
	css = rcu_dereference(cg->cgrp->subsys[memory_cgrp_id]);
	moved = css && css != cg->memory &&
		(READ_ONCE(css->flags) & (CSS_ONLINE | CSS_DYING)) ==
		CSS_ONLINE;
	rcu_read_unlock();
	return moved;
}

/* Drop what @cg holds: references, or a released cgroup's values. */
void ksnap_cgroup_put(struct ksnap_cgroup *cg)
{
	ksnap_cgroup_drop(cg);
	kfree(cg->frozen);
	cg->frozen = NULL;
}

/*
 * The cgroup was removed (rmdir): its counters no longer mean anything new.
 * Timer-safe.  Removal clears CSS_ONLINE of the cgroup's own css on every
 * kernel of the set; css_is_dying() would not do: on 6.12 it reads
 * CSS_DYING, which only the controllers' css get.  The root is never
 * removed.  A released cgroup was removed.
 */
bool ksnap_cgroup_dying(const struct ksnap_cgroup *cg)
{
	return ksnap_cgroup_released(cg) ||
	       !(READ_ONCE(cg->cgrp->self.flags) & CSS_ONLINE);
}

/*
 * The cgroup's memory controller was disabled (its parent's
 * subtree_control lost "memory"): its memcg is offline, its tasks are
 * charged to an ancestor, and its memory counters say nothing new.  The
 * cgroup itself may live on.  CSS_DYING is set at once, by kill_css();
 * CSS_ONLINE is cleared later, once the css is offlined.  Timer-safe; the
 * css is held.
 */
bool ksnap_cgroup_memory_gone(const struct ksnap_cgroup *cg)
{
	return cg->memory &&
	       (READ_ONCE(cg->memory->flags) & (CSS_ONLINE | CSS_DYING)) !=
	       CSS_ONLINE;
}

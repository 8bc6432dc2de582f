// SPDX-License-Identifier: GPL-2.0
/* Configured cgroups: path resolution, references, liveness. */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/memcontrol.h>
#include <linux/string.h>

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
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp;

	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp)) {
		pr_err_ratelimited("cgroups: no cgroup '%s' (error %ld): paths are relative to the cgroup2 mount, e.g. /system.slice/foo.service\n",
				   path, PTR_ERR(cgrp));
		return -ENOENT;
	}

	memset(cg, 0, sizeof(*cg));
	css = ksnap_cgroup_own_css(cgrp, memory_cgrp_id);
	if (css) {
		cg->memory = css;
		cg->memcg = mem_cgroup_from_css(css);
	}
	cg->cgrp = cgrp;
	cg->psi = ksnap_cgroup_psi(cgrp);
	strscpy(cg->path, path, sizeof(cg->path));
	return 0;
}

/**
 * ksnap_cgroup_dup() - hold a configured cgroup once more
 * @dst: receives a copy of @src, with references of its own
 * @src: a held cgroup
 *
 * For a new configuration that keeps the cgroups of the current one: no
 * path is resolved again, so a removed cgroup stays the one held and a
 * writer in another cgroup namespace binds nothing new.
 */
void ksnap_cgroup_dup(struct ksnap_cgroup *dst, const struct ksnap_cgroup *src)
{
	*dst = *src;
	cgroup_get(dst->cgrp);
	if (dst->memory)
		css_get(dst->memory);
}

void ksnap_cgroup_put(struct ksnap_cgroup *cg)
{
	if (cg->memory)
		css_put(cg->memory);
	cgroup_put(cg->cgrp);
	cg->memory = NULL;
	cg->memcg = NULL;
	cg->psi = NULL;
	cg->cgrp = NULL;
}

/*
 * The cgroup was removed (rmdir): its counters no longer mean anything new.
 * Timer-safe.  Removal clears CSS_ONLINE of the cgroup's own css on every
 * kernel of the set; css_is_dying() would not do: on 6.12 it reads
 * CSS_DYING, which only the controllers' css get.  The root is never
 * removed.
 */
bool ksnap_cgroup_dying(const struct ksnap_cgroup *cg)
{
	return !(READ_ONCE(cg->cgrp->self.flags) & CSS_ONLINE);
}

/*
 * The cgroup's memory controller was disabled (its parent's
 * subtree_control lost "memory"): its memcg is offline, its tasks are
 * charged to an ancestor, and its memory counters say nothing new.  The
 * cgroup itself may live on.  Timer-safe; the css is held.
 */
bool ksnap_cgroup_memory_gone(const struct ksnap_cgroup *cg)
{
	return cg->memory && !(READ_ONCE(cg->memory->flags) & CSS_ONLINE);
}

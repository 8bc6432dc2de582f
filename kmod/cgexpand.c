// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup patterns expanded: the walk of the cgroup2 tree under the root of
 * the writer's cgroup namespace, at a configuration and again at every
 * start (ksnap_follow_refresh()).  Process context only: never from
 * the timer.
 */
#include <linux/bsearch.h>
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/kernfs.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/nsproxy.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "cgpattern.h"
#include "compat.h"
#include "ksnap.h"

static unsigned int ksnap_cgroup_depth = KSNAP_CGPATTERN_DEPTH_DEFAULT;

static int ksnap_cgroup_depth_set(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 10, &n) || n > KSNAP_CGPATTERN_DEPTH_MAX) {
		pr_err("cgroup_depth: '%*pE' is not a number of levels in 0..%u\n",
		       (int)min_t(size_t, strcspn(val, "\n"), 64), val,
		       KSNAP_CGPATTERN_DEPTH_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(ksnap_cgroup_depth, n);
	return 0;
}

static const struct kernel_param_ops ksnap_cgroup_depth_ops = {
	.set = ksnap_cgroup_depth_set,
	.get = param_get_uint,
};

module_param_cb(cgroup_depth, &ksnap_cgroup_depth_ops, &ksnap_cgroup_depth,
		0644);
MODULE_PARM_DESC(cgroup_depth,
		 "levels a trailing ** of a cgroup pattern matches below what precedes it (0..32, default 2); read when patterns are expanded: at a cgroups write and at every start");

/* cgroup_depth, as a walk reads it (exits.c matches as the walks do). */
unsigned int ksnap_cgpattern_depth(void)
{
	return READ_ONCE(ksnap_cgroup_depth);
}

/* The namespace of @from, or else of the task configuring, held. */
struct cgroup_namespace *ksnap_cgpattern_ns_get(const struct ksnap_config *from)
{
	struct cgroup_namespace *ns = from && from->cgns ? from->cgns :
				      current->nsproxy->cgroup_ns;

	get_cgroup_ns(ns);
	return ns;
}

void ksnap_cgpattern_ns_put(struct cgroup_namespace *ns)
{
	put_cgroup_ns(ns);
}

/* A cgroup's path relative to @root, in @buf; false if it does not fit. */
static bool ksnap_cgpattern_path(struct cgroup *cgrp, struct cgroup *root,
				 char *buf, size_t size)
{
	int len = kernfs_path_from_node(cgrp->kn, root->kn, buf, size);

	return len > 0 && len < size;
}

static int ksnap_cgpattern_cmp(const void *a, const void *b)
{
	const struct ksnap_cgroup *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* What one walk of the cgroup2 tree looks for (ksnap_cgpattern_walk()). */
struct ksnap_cgpattern_walk {
	const char *const *entries;	/* the cgroups list */
	unsigned int idx;		/* the pattern walked for: entries[idx] */
	unsigned int depth;		/* cgroup_depth, read once */
	const u64 *ids;			/* the paths' cgroups' ids, sorted */
	unsigned int nr_ids;
	/* Memory metrics selected: matches without memory left out, here */
	bool memory;
	unsigned int unreadable;	/* how many, all patterns */
	unsigned int pending;		/* matches still being made, all */
	/* The first match past the room, for the log (follow.c), or "" */
	char skipped[KSNAP_SKIPPED_NAME_MAX];
};

/*
 * A cgroup that never gets a memory css of its own: threaded (memory is
 * a domain controller), or its parent does not enable memory.  One being
 * made (its parent enables memory, its css is not there yet) is not.
 * Under rcu_read_lock().
 */
static bool ksnap_cgpattern_memoryless(struct cgroup *cgrp)
{
	struct cgroup *parent = cgroup_parent(cgrp);

	if (rcu_access_pointer(cgrp->subsys[memory_cgrp_id]) || !parent)
		return false;
	return ksnap_cgroup_threaded(cgrp) ||
	       !(READ_ONCE(parent->subtree_ss_mask) & BIT(memory_cgrp_id));
}

static int ksnap_cgpattern_id_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The online cgroups below the root of @ns (itself included) that are
 * @w's pattern's own matches, each held, into @out: at most @room of
 * them.  Its own: not a cgroup a path configures, nor one an earlier
 * pattern matches (ksnap_cgpattern_owner()), so that a cgroup is counted
 * and sampled once whatever entries name it.  Returns how many there are,
 * @room or not.
 *
 * A cgroup being made is skipped: cgroup_mkdir() links it in and marks it
 * online before its controllers' css are made, and activates its
 * directory last.  Taken in between, it would have no memory controller
 * yet, and a group (metrics=container) would drop its memory.* metrics
 * from the set, for good: the next walks find the same cgroups.  A walk
 * after its mkdir returned takes it whole; such a match is counted in
 * @w->pending, so that a rescan its mkdir's event started, which may run
 * before the directory is activated, is followed by another (follow.c).
 */
static unsigned int ksnap_cgpattern_walk(struct ksnap_cgpattern_walk *w,
					 struct cgroup_namespace *ns,
					 struct cgroup **out, unsigned int room,
					 char *buf, size_t size)
{
	const char *pattern = w->entries[w->idx];
	struct cgroup *root = ns->root_cset->dfl_cgrp;
	unsigned int max = ksnap_cgpattern_max_level(pattern, w->depth);
	struct cgroup_subsys_state *pos;
	unsigned int n = 0;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, &root->self) {
		struct cgroup *cgrp = pos->cgroup;
		u64 id;

		if (!(READ_ONCE(pos->flags) & CSS_ONLINE))
			continue;
		if (cgrp->level - root->level > max)
			continue;
		/* Its own pattern first: the earlier ones only for a match. */
		if (!ksnap_cgpattern_path(cgrp, root, buf, size) ||
		    !ksnap_cgpattern_match(pattern, buf, w->depth) ||
		    ksnap_cgpattern_owner(w->entries, w->idx, buf,
					  w->depth) >= 0)
			continue;
		if (!(READ_ONCE(cgrp->kn->flags) & KERNFS_ACTIVATED)) {
			w->pending++;
			continue;
		}
		id = cgroup_id(cgrp);
		if (bsearch(&id, w->ids, w->nr_ids, sizeof(*w->ids),
			    ksnap_cgpattern_id_cmp))
			continue;
		/* Left out before the room: they take no readable's place. */
		if (w->memory && ksnap_cgpattern_memoryless(cgrp)) {
			w->unreadable++;
			continue;
		}
		if (n >= room) {
			if (!w->skipped[0])
				strscpy(w->skipped, buf, sizeof(w->skipped));
			n++;
			continue;
		}
		if (css_tryget_online(pos))
			out[n++] = cgrp;
	}
	rcu_read_unlock();
	return n;
}

/*
 * Add @w's pattern's matches (ksnap_cgpattern_walk()) to @cfg, sorted by
 * path; @found and @buf: room for KSNAP_MAX_CGROUPS and PATH_MAX.
 */
static int ksnap_cgpattern_add(struct ksnap_config *cfg,
			       struct ksnap_cgpattern_walk *w,
			       bool quiet, struct cgroup **found, char *buf)
{
	const char *pattern = w->entries[w->idx];
	unsigned int limit = min_t(unsigned int, cfg->cg_limit,
				   KSNAP_MAX_CGROUPS);
	unsigned int room = limit > cfg->nr_cgroups ?
			    limit - cfg->nr_cgroups : 0;
	unsigned int i, n, first = cfg->nr_cgroups;
	int ret = 0;

	n = ksnap_cgpattern_walk(w, cfg->cgns, found, room, buf, PATH_MAX);
	if (n > room && cfg->cg_limit != KSNAP_CG_NO_LIMIT) {
		/* A running collection's capacity (follow.c): the rest skipped. */
		cfg->nr_skipped += n - room;
		n = room;
	} else if (n > room) {
		pr_err_ratelimited("cgroups: pattern '%s' matches %u cgroups, %u more than a configuration's %u cgroups leave room for: narrow it\n",
				   pattern, n, n - room, KSNAP_MAX_CGROUPS);
		ret = -EINVAL;
		n = room;
		goto put;
	}
	if (!n && !quiet)
		pr_info("cgroups: pattern '%s' matches no cgroup now: each start looks again\n",
			pattern);
	for (i = 0; i < n; i++) {
		struct ksnap_cgroup *cg = &cfg->cgroups[cfg->nr_cgroups];
		struct cgroup *root = cfg->cgns->root_cset->dfl_cgrp;
		struct cgroup *parent;

		if (!ksnap_cgpattern_path(found[i], root, cg->path,
					  sizeof(cg->path))) {
			pr_warn_ratelimited("cgroups: pattern '%s': a match's path is longer than a column carries (%zu bytes): not sampled\n",
					    pattern, sizeof(cg->path) - 1);
			continue;
		}
		ksnap_cgroup_hold(cg, found[i], cg->path);
		found[i] = NULL;
		/*
		 * Removed since the walk, or still being made (its parent
		 * gives it memory, its memory css is not there yet): a check
		 * of its metrics would fail the whole expansion.  A threaded
		 * cgroup never gets a memory css of its own (memory is a
		 * domain controller): it is not one being made.
		 */
		parent = cgroup_parent(cg->cgrp);
		if (ksnap_cgroup_dying(cg) ||
		    (!cg->memcg && parent && !ksnap_cgroup_threaded(cg->cgrp) &&
		     (READ_ONCE(parent->subtree_ss_mask) & BIT(memory_cgrp_id)))) {
			ksnap_cgroup_put(cg);
			continue;
		}
		__set_bit(cfg->nr_cgroups, cfg->matched);
		cfg->nr_cgroups++;
	}
	sort(&cfg->cgroups[first], cfg->nr_cgroups - first,
	     sizeof(*cfg->cgroups), ksnap_cgpattern_cmp, NULL);
put:
	for (i = 0; i < n; i++)
		if (found[i])
			cgroup_put(found[i]);
	return ret;
}

/**
 * ksnap_cgpattern_expand() - add the cgroups the patterns match to @cfg
 * @cfg: being built, its paths' cgroups configured; cgroups[] has room
 *	 for KSNAP_MAX_CGROUPS, and cgns is the namespace the paths are
 *	 relative to; with cg_limit, matches past it are skipped and
 *	 counted in nr_skipped instead of an error
 * @entries: the cgroups list, its patterns checked with
 *	     ksnap_cgpattern_check()
 * @nr: how many entries
 * @quiet: no log line for a pattern that matches nothing (a restart's
 *	   expansion: the configuration said so)
 *
 * A cgroup is configured once whatever entries name it: one a path
 * configures is no pattern's match, and one several patterns match is
 * the first's (ksnap_cgpattern_owner()); the counts (room, skipped) count
 * it once too.  Each pattern's matches come sorted by path, after the
 * earlier entries'.  cgroup_depth is read once: every pattern of the
 * expansion has the same.
 *
 * Return: 0, -EINVAL when the configuration would hold more than
 * KSNAP_MAX_CGROUPS cgroups (and no cg_limit), or -ENOMEM.  Logs one line
 * on failure.
 */
int ksnap_cgpattern_expand(struct ksnap_config *cfg,
			   const char *const *entries, unsigned int nr,
			   bool quiet)
{
	struct ksnap_cgpattern_walk w = {
		.entries = entries,
		.depth = READ_ONCE(ksnap_cgroup_depth),
		.nr_ids = cfg->nr_cgroups,
		.memory = cfg->leave_memoryless,
	};
	struct cgroup **found;
	unsigned int i;
	u64 *ids;
	char *buf;
	int ret = -ENOMEM;

	found = kvcalloc(KSNAP_MAX_CGROUPS, sizeof(*found), GFP_KERNEL);
	ids = kvcalloc(cfg->nr_cgroups ?: 1, sizeof(*ids), GFP_KERNEL);
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!found || !ids || !buf)
		goto out;
	for (i = 0; i < cfg->nr_cgroups; i++)
		ids[i] = cfg->cgroups[i].id;
	sort(ids, w.nr_ids, sizeof(*ids), ksnap_cgpattern_id_cmp, NULL);
	w.ids = ids;
	ret = 0;
	for (w.idx = 0; w.idx < nr && !ret; w.idx++) {
		if (ksnap_cgpattern_is_pattern(entries[w.idx]))
			ret = ksnap_cgpattern_add(cfg, &w, quiet, found, buf);
		cond_resched();
	}
	cfg->nr_unreadable += w.unreadable;
	cfg->nr_pending = w.pending;
	strscpy(cfg->skipped, w.skipped, sizeof(cfg->skipped));
out:
	kfree(buf);
	kvfree(ids);
	kvfree(found);
	return ret;
}

/*
 * The configured cgroup of @cur that the path entry @path gave, held once
 * more into @cg: a restart's expansion keeps each path's cgroup (resolved
 * in the configuring task's namespace, and frozen if removed).
 */
int ksnap_cgpattern_keep_path(const struct ksnap_config *cur,
			      struct ksnap_cgroup *cg, const char *path)
{
	unsigned int i;

	for (i = 0; i < cur->nr_cgroups; i++)
		if (!test_bit(i, cur->matched) &&
		    !strcmp(cur->cgroups[i].path, path))
			return ksnap_cgroup_dup(cg, &cur->cgroups[i]);
	return ksnap_cgroup_get(cg, path);
}

/* The index in @cfg of @cg (by id and path, as below), or -1. */
int ksnap_cgpattern_find(const struct ksnap_config *cfg,
			 const struct ksnap_cgroup *cg)
{
	unsigned int i;

	for (i = 0; i < cfg->nr_cgroups; i++)
		if (cfg->cgroups[i].id == cg->id &&
		    !strcmp(cfg->cgroups[i].path, cg->path))
			return i;
	return -1;
}

/*
 * Do @a and @b configure the same cgroups in the same order?  A cgroup is
 * the same by its id, which a released copy keeps: a removed cgroup still
 * held by the running set is the one its rebuilt copy released; and by
 * its memcg: one whose memory controller was disabled and enabled again
 * has a new one (ksnap_cgroup_dup()).
 */
bool ksnap_cgpattern_same(const struct ksnap_config *a,
			  const struct ksnap_config *b)
{
	unsigned int i;

	if (a->nr_cgroups != b->nr_cgroups)
		return false;
	for (i = 0; i < a->nr_cgroups; i++)
		if (a->cgroups[i].id != b->cgroups[i].id ||
		    ksnap_cgroup_memcg_changed(&a->cgroups[i],
					       &b->cgroups[i]) ||
		    strcmp(a->cgroups[i].path, b->cgroups[i].path))
			return false;
	return true;
}

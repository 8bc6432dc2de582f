// SPDX-License-Identifier: GPL-2.0
/*
 * Exit records: the final figures of each cgroup a running collection's
 * patterns match or its plain paths name, taken from the cgroup_rmdir probe (cgevents.c) as the
 * cgroup is removed, and queued for the reader (KSNAP_IOC_EXIT).  A
 * cgroup that lived shorter than a rescan, and was never in a column set,
 * leaves one all the same.
 *
 * The probes run under cgroup_mutex, so they never run concurrently with
 * each other, and with preemption off (a tracepoint's probes do, on
 * PREEMPT_RT too; interrupts are off as well but on PREEMPT_RT): no lock
 * that may sleep, so no kernfs path walk (kernfs_rename_lock sleeps on
 * PREEMPT_RT).  The removed cgroup has no task and no live child left;
 * its css are killed, not yet released (their release takes
 * cgroup_mutex): its counters are read as the timer reads them.  What the
 * probes share with the process context (the filter, the queue, the
 * table) is under exits->lock, a raw spinlock held for string compares
 * and copies only.
 *
 * The filter is the running collection's patterns, the root of their
 * cgroup namespace and that root's path on the hierarchy, copied at start
 * (ksnap_exits_arm()) and dropped at stop.  A cgroup is recorded when it
 * is below the root (cgroup_is_descendant(): its ancestors' ids, not its
 * name) and its path from there, the event's path with the root's cut
 * off, matches a pattern: a cgroup outside the namespace never is.  A
 * plain path's cgroup is known by the id it had at start, and recorded
 * under the path its columns have.
 */
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "cgpattern.h"
#include "compat.h"
#include "exits.h"
#include "ksnap.h"
#include "parse.h"

/* A plain path of a running collection: the cgroup it named at start. */
struct ksnap_exit_named {
	u64 id;
	char *path;		/* as its columns name it */
};

/*
 * The patterns of a running collection, where their paths start, and its
 * plain paths.
 */
struct ksnap_exit_filter {
	struct cgroup *root;	/* held; NULL without patterns */
	unsigned int depth;
	unsigned int nr;
	u32 generation;
	u64 start_ns;		/* run.start_mono_ns */
	char *root_path;	/* the root's, on the hierarchy; "" for / */
	size_t root_len;
	char *buf;		/* the patterns, NUL-separated */
	unsigned int nr_named;
	struct ksnap_exit_named *named;
	const char *pattern[];
};

struct ksnap_exits {
	raw_spinlock_t lock;	/* the filter, the queue, the table */
	struct ksnap_exit_filter *filter;	/* NULL: nothing recorded */
	unsigned int head;	/* the oldest queued */
	unsigned int nr;	/* queued */
	u64 recorded;		/* this collection's, queued */
	__u64 *lost;		/* ks->ctrl->stats.exits_lost */
	struct ksnap_born born[KSNAP_BORN_SLOTS];
	struct ksnap_exit queue[KSNAP_EXITS_QUEUED];
};

static void ksnap_exit_filter_free(struct ksnap_exit_filter *f)
{
	unsigned int i;

	if (!f)
		return;
	if (f->root)
		cgroup_put(f->root);
	for (i = 0; i < f->nr_named; i++)
		kfree(f->named[i].path);
	kfree(f->named);
	kfree(f->root_path);
	kfree(f->buf);
	kfree(f);
}

/* @cfg's plain paths, by the ids of the cgroups they named at start. */
static int ksnap_exit_filter_named(struct ksnap_exit_filter *f,
				   const struct ksnap_config *cfg)
{
	unsigned int i, n = 0;

	for (i = 0; i < cfg->nr_cgroups; i++)
		n += !test_bit(i, cfg->matched);
	if (!n)
		return 0;
	f->named = kcalloc(n, sizeof(*f->named), GFP_KERNEL);
	if (!f->named)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_cgroups; i++) {
		const struct ksnap_cgroup *cg = &cfg->cgroups[i];

		if (test_bit(i, cfg->matched))
			continue;
		f->named[f->nr_named].id = cg->id;
		f->named[f->nr_named].path = kstrdup(cg->path, GFP_KERNEL);
		if (!f->named[f->nr_named].path)
			return -ENOMEM;
		f->nr_named++;
	}
	return 0;
}

/* @cfg's patterns, their namespace's root and its path. */
static int ksnap_exit_filter_patterns(struct ksnap_exit_filter *f,
				      const struct ksnap_config *cfg)
{
	struct ksnap_parse_err err;
	struct ksnap_list *list;
	unsigned int i;
	int ret = -ENOMEM;

	list = kvmalloc(sizeof(*list), GFP_KERNEL);
	f->buf = kstrdup(cfg->cgroups_arg, GFP_KERNEL);
	if (!list || !f->buf)
		goto out;
	/* Parsed before, when the configuration was built: no error here. */
	ret = ksnap_parse_list(f->buf, KSNAP_FIELD_VALUE_MAX, list, &err);
	if (ret)
		goto out;
	for (i = 0; i < list->nr && f->nr < cfg->nr_patterns; i++)
		if (ksnap_cgpattern_is_pattern(list->item[i]))
			f->pattern[f->nr++] = list->item[i];
	f->root = cfg->cgns->root_cset->dfl_cgrp;
	cgroup_get(f->root);
	ret = -ENOMEM;
	f->root_path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!f->root_path ||
	    kernfs_path_from_node(f->root->kn, NULL, f->root_path,
				  PATH_MAX) <= 0)
		goto out;
	/* The hierarchy's root is "/": the paths below it are as they are. */
	f->root_len = strcmp(f->root_path, "/") ? strlen(f->root_path) : 0;
	f->depth = ksnap_cgpattern_depth();
	ret = 0;
out:
	kvfree(list);
	return ret;
}

/*
 * The filter of @cfg's cgroups list: its patterns and its plain paths;
 * NULL when it has neither, or on no memory.
 */
static struct ksnap_exit_filter *ksnap_exit_filter_new(const struct ksnap *ks)
{
	const struct ksnap_config *cfg = ks->cfg;
	bool patterns = cfg->nr_patterns && cfg->cgns;
	struct ksnap_exit_filter *f;

	if (!patterns && !cfg->nr_cgroups)
		return NULL;
	f = kzalloc(struct_size(f, pattern, patterns ? cfg->nr_patterns : 0),
		    GFP_KERNEL);
	if (!f || ksnap_exit_filter_named(f, cfg) ||
	    (patterns && ksnap_exit_filter_patterns(f, cfg))) {
		ksnap_exit_filter_free(f);
		pr_warn_ratelimited("cgroups: no memory for the exit records' filter: this collection records no exits\n");
		return NULL;
	}
	if (!f->nr && !f->nr_named) {
		ksnap_exit_filter_free(f);
		return NULL;
	}
	f->generation = ks->ctrl->generation;
	f->start_ns = ks->run.start_mono_ns;
	return f;
}

/*
 * @cgrp's path: a plain path's, if it is the cgroup one named; else its
 * path from @f's root, from the event's @path (from the hierarchy's
 * root), if a pattern matches it.  NULL when neither, or when it is not
 * below the root.
 */
static const char *ksnap_exit_match(const struct ksnap_exit_filter *f,
				    struct cgroup *cgrp, const char *path)
{
	const char *rel;
	unsigned int i;

	for (i = 0; i < f->nr_named; i++)
		if (f->named[i].id == cgroup_id(cgrp))
			return f->named[i].path;
	if (!f->root || !path || !cgroup_is_descendant(cgrp, f->root) ||
	    strncmp(path, f->root_path, f->root_len))
		return NULL;
	rel = path + f->root_len;
	if (*rel != '/')
		return NULL;
	return ksnap_cgpattern_owner(f->pattern, f->nr, rel, f->depth) >= 0 ?
	       rel : NULL;
}

/* A cgroup was made (@path its event's): remember when, if matched. */
void ksnap_exits_mkdir(struct ksnap *ks, struct cgroup *cgrp,
		       const char *path)
{
	struct ksnap_exits *ex = ks->exits;
	unsigned long flags;

	/* No collection recording exits: no lock taken.  Pairs with arm's. */
	if (!ex || !READ_ONCE(ex->filter))
		return;
	raw_spin_lock_irqsave(&ex->lock, flags);
	if (ex->filter && ksnap_exit_match(ex->filter, cgrp, path))
		ksnap_born_add(ex->born, cgroup_id(cgrp), ktime_get_ns());
	raw_spin_unlock_irqrestore(&ex->lock, flags);
}

/* The memory figures of @cgrp's own memory css, if it has one. */
static void ksnap_exit_memory(struct cgroup *cgrp, struct ksnap_exit *e)
{
#ifdef CONFIG_MEMCG
	struct cgroup_subsys_state *css;
	struct mem_cgroup *memcg;

	rcu_read_lock();
	css = rcu_dereference(cgrp->subsys[memory_cgrp_id]);
	if (css) {
		memcg = mem_cgroup_from_css(css);
		e->memory_peak = (u64)READ_ONCE(memcg->memory.watermark) *
				 PAGE_SIZE;
		e->memory_oom = atomic_long_read(&memcg->memory_events[MEMCG_OOM]);
		e->memory_oom_kill =
			atomic_long_read(&memcg->memory_events[MEMCG_OOM_KILL]);
		e->flags |= KSNAP_EXIT_MEMORY;
	}
	rcu_read_unlock();
#endif
}

/* @cgrp's final figures, into @e. */
static void ksnap_exit_read(struct cgroup *cgrp, struct ksnap_exit *e)
{
	u64 user, system;

	e->cpu_usage_ns = ksnap_cgroup_usage(cgrp, cpu_possible_mask, NULL, 0,
					     NULL);
	/* Split as cpu.stat splits it: in the ticks' ratio. */
	ksnap_cgroup_cputime(cgrp, cpu_possible_mask, NULL, &user, &system);
	e->cpu_user_ns = 0;
	e->cpu_system_ns = 0;
	ksnap_cputime_split(e->cpu_usage_ns, user, system, &e->cpu_user_ns,
			    &e->cpu_system_ns);
	/* A dying child's last flush comes later: as of the last flush. */
	if (READ_ONCE(cgrp->nr_dying_descendants))
		e->flags |= KSNAP_EXIT_CPU_FLUSHED;
	ksnap_exit_memory(cgrp, e);
}

/* A cgroup was removed: queue its exit record, if the filter names it. */
void ksnap_exits_rmdir(struct ksnap *ks, struct cgroup *cgrp,
		       const char *path)
{
	struct ksnap_exits *ex = ks->exits;
	const struct ksnap_exit_filter *f;
	struct ksnap_exit *e;
	unsigned long flags;
	const char *rel;
	u64 now, born;

	if (!ex || !READ_ONCE(ex->filter))
		return;
	raw_spin_lock_irqsave(&ex->lock, flags);
	f = ex->filter;
	rel = f ? ksnap_exit_match(f, cgrp, path) : NULL;
	if (!rel)
		goto out;
	/* After the start it is checked against (the filter's). */
	now = ktime_get_ns();
	if (!ksnap_born_take(ex->born, cgroup_id(cgrp), &born))
		born = 0;
	if (ex->nr == KSNAP_EXITS_QUEUED) {
		WRITE_ONCE(*ex->lost, *ex->lost + 1);
		goto out;
	}
	e = &ex->queue[(ex->head + ex->nr) % KSNAP_EXITS_QUEUED];
	memset(e, 0, sizeof(*e));
	e->generation = f->generation;
	e->cgroup_id = cgroup_id(cgrp);
	e->time_ns = now - f->start_ns;
	if (born) {
		e->born_ns = born > f->start_ns ? born - f->start_ns : 0;
		e->flags |= KSNAP_EXIT_BORN;
	}
	if (strscpy(e->path, rel, sizeof(e->path)) < 0)
		e->flags |= KSNAP_EXIT_PATH_CUT;
	ksnap_exit_read(cgrp, e);
	ex->nr++;
	WRITE_ONCE(ex->recorded, ex->recorded + 1);
out:
	raw_spin_unlock_irqrestore(&ex->lock, flags);
}

/**
 * ksnap_exits_arm() - record the exits of a collection that starts
 * @ks: with ks->lock held, the collection's start published
 *
 * Records a reader did not take from the collection before are dropped,
 * and counted lost in this one's statistics.
 */
void ksnap_exits_arm(struct ksnap *ks)
{
	struct ksnap_exits *ex = ks->exits;
	struct ksnap_exit_filter *f, *old;
	unsigned long flags;

	lockdep_assert_held(&ks->lock);
	if (!ex)
		return;
	f = ksnap_exit_filter_new(ks);
	raw_spin_lock_irqsave(&ex->lock, flags);
	old = ex->filter;
	/* Read unlocked by the probes (a hint: they look again locked). */
	WRITE_ONCE(ex->filter, f);
	ex->lost = &ks->ctrl->stats.exits_lost;
	WRITE_ONCE(*ex->lost, ex->nr);
	ex->head = 0;
	ex->nr = 0;
	WRITE_ONCE(ex->recorded, 0);
	memset(ex->born, 0, sizeof(ex->born));
	raw_spin_unlock_irqrestore(&ex->lock, flags);
	ksnap_exit_filter_free(old);
}

/* The collection stopped: the probes record nothing more. */
void ksnap_exits_disarm(struct ksnap *ks)
{
	struct ksnap_exits *ex = ks->exits;
	struct ksnap_exit_filter *old;
	unsigned long flags;

	if (!ex)
		return;
	raw_spin_lock_irqsave(&ex->lock, flags);
	old = ex->filter;
	WRITE_ONCE(ex->filter, NULL);
	raw_spin_unlock_irqrestore(&ex->lock, flags);
	ksnap_exit_filter_free(old);
}

/* KSNAP_IOC_EXIT: the oldest record, taken off the queue. */
long ksnap_exits_ioctl(struct ksnap *ks, void __user *arg)
{
	struct ksnap_exits *ex = ks->exits;
	struct ksnap_exit *e;
	unsigned long flags;
	__u64 reserved[2];
	long ret = 0;

	if (!ex)
		return -EAGAIN;
	if (copy_from_user(reserved, arg + offsetof(struct ksnap_exit, reserved),
			   sizeof(reserved)))
		return -EFAULT;
	if (reserved[0] || reserved[1])
		return -EINVAL;
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	raw_spin_lock_irqsave(&ex->lock, flags);
	if (ex->nr) {
		*e = ex->queue[ex->head];
		ex->head = (ex->head + 1) % KSNAP_EXITS_QUEUED;
		ex->nr--;
	} else {
		ret = -EAGAIN;
	}
	raw_spin_unlock_irqrestore(&ex->lock, flags);
	/* Taken off the queue and not delivered: counted, as a drop is. */
	if (!ret && copy_to_user(arg, e, sizeof(*e))) {
		raw_spin_lock_irqsave(&ex->lock, flags);
		WRITE_ONCE(*ex->lost, *ex->lost + 1);
		raw_spin_unlock_irqrestore(&ex->lock, flags);
		ret = -EFAULT;
	}
	kfree(e);
	return ret;
}

/* stats/exits: the records this collection queued. */
u64 ksnap_exits_recorded(const struct ksnap *ks)
{
	return ks->exits ? READ_ONCE(ks->exits->recorded) : 0;
}

/*
 * The queue and the table: about 168 KiB.  Without
 * them (a device KUnit makes) nothing is recorded.
 */
int ksnap_exits_init(struct ksnap *ks)
{
	ks->exits = vzalloc(sizeof(*ks->exits));
	if (!ks->exits)
		return -ENOMEM;
	raw_spin_lock_init(&ks->exits->lock);
	ks->exits->lost = &ks->ctrl->stats.exits_lost;
	return 0;
}

/* The probes are gone (ksnap_cgevents_uninit()). */
void ksnap_exits_uninit(struct ksnap *ks)
{
	if (!ks->exits)
		return;
	ksnap_exit_filter_free(ks->exits->filter);
	vfree(ks->exits);
	ks->exits = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Following the cgroup patterns while a collection runs.  A worker
 * (process context, never the timer) expands the patterns again every
 * discover_ms; when they match other cgroups it builds the new set's
 * configuration and swaps it in between two snapshots, at most once per
 * interval:
 *
 *  - the timer is cancelled (hrtimer_cancel(): its callback has returned
 *    and does not run again), with ks->lock held (no stop, no start) and
 *    cpus_read_lock() (no hotplug callback reads the configuration);
 *  - what the run keeps by column (last values, the offline CPUs' base, a
 *    CPU's held VM events) and by cgroup (seen removed) moves to the new
 *    indices; a new column's base is what the offline CPUs hold now;
 *  - ks->cfg, the set number and the control page's set change, the next
 *    record is flagged KSNAP_REC_SET_CHANGED, and the timer is armed
 *    again, on its CPU, for the expiry it had: no period is skipped that
 *    the swap did not itself delay (the timer counts those in missed);
 *  - the old configuration is freed there and then: nothing can read it
 *    any more, so the cgroups it alone held are released at once and no
 *    dying cgroup stays behind.
 *
 * The record geometry cannot change while a reader maps the ring, so a
 * configuration with patterns lays its records out as wide as the ring
 * allows (ksnap_follow_cap_columns()); at start the room is lowered to
 * what the read's bound admits at one cgroup's measured price (price.c,
 * ksnap_follow_admit_columns()), and a set that would hold more columns
 * is truncated, its other matches skipped and counted
 * (stats/cgroups_skipped).  While running, the timer judges each second
 * of reads (cost.h): over ones shed cgroups, calm ones take them back
 * (ksnap_follow_admit_fn()).
 *
 * A cgroup made or removed starts a rescan sooner (cgevents.c):
 * settle_ms after the first such event, so that a burst of them makes one
 * set change.  Those rescans are rate-limited as a token bucket (the
 * generic cell rate algorithm): KSNAP_FOLLOW_KICK_BURST back to back, then
 * one every KSNAP_FOLLOW_KICK_GAP_MS, so that churn cannot swap sets
 * faster than a reader names them (it names KSNAP_OLD_SETS behind), while
 * events apart from each other wait only settle_ms.  The periodic
 * rescan begins its interval again after it.
 *
 * The last KSNAP_OLD_SETS sets swapped out keep their columns' names for
 * KSNAP_IOC_COLUMN, so that a reader behind by a few set changes can name
 * their records.
 */
#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/workqueue.h>

#include "cost.h"
#include "kick.h"
#include "ksnap.h"

#define KSNAP_DISCOVER_MS_MIN		100
#define KSNAP_DISCOVER_MS_MAX		60000
#define KSNAP_DISCOVER_MS_DEFAULT	500
/*
 * A pattern set's records are laid out as wide as the ring allows while it
 * keeps this many of them: with the default ring_kb, a set's most columns.
 */
#define KSNAP_FOLLOW_MIN_RECORDS	128
#define KSNAP_SETTLE_MS_MIN		1
#define KSNAP_SETTLE_MS_MAX		1000
#define KSNAP_SETTLE_MS_DEFAULT		10
/* Rescans started by events: one in this many ms (settle_ms's text) ... */
#define KSNAP_FOLLOW_KICK_GAP_MS	200
/*
 * ... after this many back to back.  With a periodic rescan and a shed or
 * take-back (ksnap_follow_admit_fn()) in the same moment, a reader still
 * names every set it meets (it names KSNAP_OLD_SETS behind).
 */
#define KSNAP_FOLLOW_KICK_BURST		2
static_assert(KSNAP_FOLLOW_KICK_BURST + 2 <= KSNAP_OLD_SETS);
/* ks->kick_pending: a rescan started by events is queued. */
#define KSNAP_FOLLOW_KICK_QUEUED	0

static unsigned int ksnap_discover_ms = KSNAP_DISCOVER_MS_DEFAULT;

static int ksnap_discover_ms_set(const char *val,
				 const struct kernel_param *kp)
{
	return ksnap_param_set_range(val, kp, KSNAP_DISCOVER_MS_MIN,
				  KSNAP_DISCOVER_MS_MAX,
				  "number of milliseconds");
}

static const struct kernel_param_ops ksnap_discover_ms_ops = {
	.set = ksnap_discover_ms_set,
	.get = param_get_uint,
};

module_param_cb(discover_ms, &ksnap_discover_ms_ops, &ksnap_discover_ms,
		0644);
MODULE_PARM_DESC(discover_ms,
		 "how often a running collection expands its cgroup patterns again, milliseconds (100..60000, default 500); cgroup events start one sooner (settle_ms)");

static unsigned int ksnap_settle_ms = KSNAP_SETTLE_MS_DEFAULT;

static int ksnap_settle_ms_set(const char *val, const struct kernel_param *kp)
{
	return ksnap_param_set_range(val, kp, KSNAP_SETTLE_MS_MIN,
				  KSNAP_SETTLE_MS_MAX,
				  "number of milliseconds");
}

static const struct kernel_param_ops ksnap_settle_ms_ops = {
	.set = ksnap_settle_ms_set,
	.get = param_get_uint,
};

module_param_cb(settle_ms, &ksnap_settle_ms_ops, &ksnap_settle_ms, 0644);
MODULE_PARM_DESC(settle_ms,
		 "how long after a cgroup is made or removed a running collection expands its patterns again, milliseconds (1..1000, default 10); 2 such rescans back to back, then one every 200 ms");

/* The per-cgroup metrics of @cfg, or the default ones when it has none. */
static unsigned int ksnap_follow_per_cgroup(const struct ksnap_config *cfg)
{
	unsigned int i, k = 0;

	for (i = 0; i < cfg->nr_metrics; i++)
		k += ksnap_metrics[cfg->metric[i]].per_cgroup;
	if (k || cfg->nr_cgroups || cfg->metrics_arg[0])
		return k;
	for (i = 0; i < ksnap_nr_metrics; i++)
		k += ksnap_metrics[i].by_default &&
		     ksnap_metrics[i].per_cgroup &&
		     ksnap_metric_offered(&ksnap_metrics[i]);
	return k;
}

/**
 * ksnap_follow_cap_columns() - the columns a pattern set's records hold
 * @cfg: being built, with patterns; nr_columns is the set's now
 * @l: the ring layout
 *
 * As many as records the ring keeps KSNAP_FOLLOW_MIN_RECORDS of hold, at
 * most l->max_columns, and at least the set's own: a collection that
 * starts before its containers grows to what its read's bound admits
 * (ksnap_follow_admit_columns()), not to what it matched at start.
 */
unsigned int ksnap_follow_cap_columns(const struct ksnap_config *cfg,
				      const struct ksnap_layout *l)
{
	u64 bytes = div_u64((u64)l->data_pages * l->page_size,
			    KSNAP_FOLLOW_MIN_RECORDS);
	u64 room = bytes > KSNAP_RECORD_SIZE(0) ?
		   div_u64(bytes - KSNAP_RECORD_SIZE(0), sizeof(__u64)) : 0;

	return clamp_t(u64, room, max(cfg->nr_columns, 1U), l->max_columns);
}

/**
 * ksnap_follow_admit_columns() - a running collection's most columns
 * @ks: running or starting
 * @base: the start set's columns
 * @estimate_ns: the read's estimate for them
 * @price_ns: the read of one more cgroup's columns, or 0 when unknown
 * @bound_ns: the bound on a read
 *
 * The records' room, less when the bound pays for fewer: what is left of
 * the bound after the start set's read buys cgroups at @price_ns each,
 * their own reader class's cost (ksnap_follow_price()), not the start
 * set's average column.  Never less than the start set.
 */
unsigned int ksnap_follow_admit_columns(const struct ksnap *ks,
					unsigned int base, u64 estimate_ns,
					u64 price_ns, u64 bound_ns)
{
	const struct ksnap_config *cfg = ks->cfg;
	unsigned int room = (cfg->record_size - KSNAP_RECORD_SIZE(0)) /
			    sizeof(__u64);
	unsigned int k = ksnap_follow_per_cgroup(cfg);
	u64 more;

	if (!k || !price_ns)
		return room;
	more = bound_ns > estimate_ns ?
	       div64_u64(bound_ns - estimate_ns, price_ns) : 0;
	more = min_t(u64, more, KSNAP_MAX_CGROUPS);
	return clamp_t(u64, base + more * k, min(base, room), room);
}

/*
 * Can the timer shed cgroups of the set (ksnap_follow_admit_fn())?  Not
 * its last one when it has no other column: a set is never empty.
 */
static bool ksnap_follow_can_shed(const struct ksnap_config *cfg)
{
	unsigned int k = ksnap_follow_per_cgroup(cfg);

	if (!cfg->nr_patterns || !k)
		return false;
	return cfg->nr_cgroups > (cfg->nr_columns > k * cfg->nr_cgroups ?
				  0 : 1);
}

/*
 * The price was measured at the namespace's root: measure it again on the
 * first cgroup swapped in, and admit by that from the next rescan on
 * (cgroups shed stay shed).  ks->lock held, the new set current.
 */
static void ksnap_follow_reprice(struct ksnap *ks)
{
	struct ksnap_run *run = &ks->run;
	const struct ksnap_stats *st = &ks->ctrl->stats;
	unsigned int shed = run->admit_columns - run->cap_columns;
	u64 price;

	if (!run->price_at_root || !ks->cfg->nr_cgroups)
		return;
	run->price_at_root = false;
	cpus_read_lock();
	price = ksnap_follow_price(ks);
	cpus_read_unlock();
	if (!price)
		return;
	run->price_ns = price;
	ks->follow.cgroup_price_ns = price;
	WRITE_ONCE(run->admit_columns,
		   ksnap_follow_admit_columns(ks, run->start_columns,
					      READ_ONCE(st->read_estimate_ns),
					      price,
					      READ_ONCE(st->read_bound_ns)));
	WRITE_ONCE(run->cap_columns,
		   run->admit_columns - min(shed, run->admit_columns - 1));
	ks->follow.columns_admitted = run->cap_columns;
}

/**
 * ksnap_follow_admit_start() - a starting collection's admission
 * @ks: starting, as for ksnap_follow_price()
 * @estimate_ns: the start set's read estimate
 * @bound_ns: the bound on a read
 */
void ksnap_follow_admit_start(struct ksnap *ks, u64 estimate_ns, u64 bound_ns)
{
	struct ksnap_run *run = &ks->run;

	run->price_ns = ksnap_follow_price(ks);
	run->price_at_root = !ks->cfg->nr_cgroups;
	run->start_columns = ks->cfg->nr_columns;
	run->admit_columns = ksnap_follow_admit_columns(ks, run->start_columns,
							estimate_ns,
							run->price_ns,
							bound_ns);
	run->cap_columns = run->admit_columns;
	run->can_shed = ksnap_follow_can_shed(ks->cfg);
}

/* An old set's slot emptied. */
static void ksnap_old_set_free(struct ksnap_old_set *o)
{
	kvfree(o->col);
	kvfree(o->path_at);
	kvfree(o->paths);
	memset(o, 0, sizeof(*o));
}

/* @cfg's columns' names kept as set @set_id, in the oldest slot. */
static void ksnap_old_set_keep(struct ksnap *ks, const struct ksnap_config *cfg,
			       u32 set_id)
{
	struct ksnap_old_set *o = &ks->old_sets[ks->old_next];
	size_t bytes = 0, len;
	unsigned int i;

	ksnap_old_set_free(o);
	/* The paths packed: a set of 2048 cgroups keeps their names, not 8 MiB. */
	for (i = 0; i < cfg->nr_cgroups; i++)
		bytes += strlen(cfg->cgroups[i].path) + 1;
	o->col = kvcalloc(cfg->nr_columns ?: 1, sizeof(*o->col), GFP_KERNEL);
	o->path_at = kvcalloc(cfg->nr_cgroups ?: 1, sizeof(*o->path_at),
			      GFP_KERNEL);
	o->paths = kvmalloc(bytes ?: 1, GFP_KERNEL);
	if (!o->col || !o->path_at || !o->paths) {
		/* Its records then read as ESTALE: a reader skips them. */
		ksnap_old_set_free(o);
		return;
	}
	for (i = 0, bytes = 0; i < cfg->nr_cgroups; i++) {
		len = strlen(cfg->cgroups[i].path) + 1;
		memcpy(o->paths + bytes, cfg->cgroups[i].path, len);
		o->path_at[i] = bytes;
		bytes += len;
	}
	for (i = 0; i < cfg->nr_columns; i++) {
		o->col[i].metric = cfg->col[i].metric;
		o->col[i].cpu = cfg->col[i].cpu;
		o->col[i].cg = cfg->col[i].cg ? cfg->col[i].cg_idx : -1;
	}
	o->nr_columns = cfg->nr_columns;
	o->set_id = set_id;
	ks->old_next = (ks->old_next + 1) % KSNAP_OLD_SETS;
}

/**
 * ksnap_follow_column() - column @col->index of a set swapped out
 * @ks: with ks->lock held
 * @col: as for ksnap_ctrl_column()
 *
 * Return: 0, -ESTALE when the set is none of the last KSNAP_OLD_SETS
 * swapped out, -ENOENT past its last column.
 */
int ksnap_follow_column(const struct ksnap *ks, struct ksnap_column_info *col)
{
	const struct ksnap_old_set *o = NULL;
	const struct ksnap_old_col *c;
	u32 set_id = col->set_id, index = col->index;
	unsigned int i;

	lockdep_assert_held(&ks->lock);
	for (i = 0; i < KSNAP_OLD_SETS; i++)
		if (set_id && ks->old_sets[i].set_id == set_id)
			o = &ks->old_sets[i];
	if (!o)
		return -ESTALE;
	if (index >= o->nr_columns)
		return -ENOENT;
	c = &o->col[index];
	memset(col, 0, sizeof(*col));
	col->set_id = set_id;
	col->index = index;
	col->nr_columns = o->nr_columns;
	strscpy(col->metric, c->metric->name, sizeof(col->metric));
	strscpy(col->description, ksnap_metric_desc(c->metric),
		sizeof(col->description));
	col->flags = c->metric->flags;
	col->freshness = c->metric->freshness;
	col->refresh_ns = ksnap_metric_refresh_ns(c->metric);
	if (c->cg >= 0) {
		strscpy(col->field, "cgroup", sizeof(col->field));
		strscpy(col->value, o->paths + o->path_at[c->cg],
			sizeof(col->value));
	} else if (c->cpu >= 0) {
		strscpy(col->field, "cpu", sizeof(col->field));
		snprintf(col->value, sizeof(col->value), "%d", c->cpu);
	}
	return 0;
}

/* The index in @old of @cg (by id: ksnap_cgpattern_same()), or -1. */
static int ksnap_follow_cg_from(const struct ksnap_config *old,
				const struct ksnap_cgroup *cg)
{
	unsigned int i;

	for (i = 0; i < old->nr_cgroups; i++)
		if (old->cgroups[i].id == cg->id &&
		    !strcmp(old->cgroups[i].path, cg->path))
			return i;
	return -1;
}

/* The column of @old that @src is, or -1 (@cg_from: new to old cgroup). */
static int ksnap_follow_col_from(const struct ksnap_config *old,
				 const struct ksnap_source *src,
				 const int *cg_from)
{
	unsigned int i;
	int cg = src->cg ? cg_from[src->cg_idx] : -1;

	if (src->cg && cg < 0)
		return -1;
	for (i = 0; i < old->nr_columns; i++) {
		const struct ksnap_source *o = &old->col[i];

		if (o->metric == src->metric && o->cpu == src->cpu &&
		    (src->cg ? o->cg && o->cg_idx == cg : !o->cg))
			return i;
	}
	return -1;
}

/* What the run kept by column and by cgroup, at their new indices. */
struct ksnap_follow_move {
	DECLARE_BITMAP(gone, KSNAP_MAX_CGROUPS);
	DECLARE_BITMAP(memory_gone, KSNAP_MAX_CGROUPS);
	DECLARE_BITMAP(gone_logged, KSNAP_MAX_CGROUPS);
	DECLARE_BITMAP(memory_gone_logged, KSNAP_MAX_CGROUPS);
	int cg_from[KSNAP_MAX_CGROUPS];
	struct ksnap_cg_usage cg_usage[KSNAP_MAX_CGROUPS];
	int col_from[KSNAP_MAX_COLUMNS];
	u64 last[KSNAP_MAX_COLUMNS];
	u64 base[KSNAP_MAX_COLUMNS];
	u64 vm_offset[KSNAP_MAX_COLUMNS];
	u64 offline[KSNAP_MAX_COLUMNS];	/* a new column's base */
};

/*
 * Move the run's and the CPUs' per-column and per-cgroup state from ks->cfg
 * to @cfg, and make @cfg current.  The timer cancelled, cpus_read_lock()
 * and ks->lock held.
 */
static void ksnap_follow_move(struct ksnap *ks, const struct ksnap_config *cfg,
			      struct ksnap_follow_move *mv)
{
	const struct ksnap_config *old = ks->cfg;
	struct ksnap_run *run = &ks->run;
	struct ksnap_cpus *cpus = &ks->cpus;
	unsigned int i;
	int cpu;

	bitmap_zero(mv->gone, KSNAP_MAX_CGROUPS);
	bitmap_zero(mv->memory_gone, KSNAP_MAX_CGROUPS);
	bitmap_zero(mv->gone_logged, KSNAP_MAX_CGROUPS);
	bitmap_zero(mv->memory_gone_logged, KSNAP_MAX_CGROUPS);
	for (i = 0; i < cfg->nr_cgroups; i++) {
		int from = ksnap_follow_cg_from(old, &cfg->cgroups[i]);

		mv->cg_from[i] = from;
		mv->cg_usage[i] = from < 0 ? (struct ksnap_cg_usage){ 0 } :
				  run->cg_usage[from];
		if (from < 0)
			continue;
		if (test_bit(from, run->gone))
			__set_bit(i, mv->gone);
		if (test_bit(from, run->memory_gone))
			__set_bit(i, mv->memory_gone);
		if (test_bit(from, ks->gone_logged))
			__set_bit(i, mv->gone_logged);
		if (test_bit(from, ks->memory_gone_logged))
			__set_bit(i, mv->memory_gone_logged);
	}
	for (i = 0; i < cfg->nr_columns; i++)
		mv->col_from[i] = ksnap_follow_col_from(old, &cfg->col[i],
							mv->cg_from);

	/*
	 * The offline CPUs' shares, with interrupts on: no CPU comes or goes
	 * (cpus_read_lock()), and the fold worker, which may run beside us,
	 * changes only the unfolded mask.
	 */
	memset(mv->offline, 0, sizeof(mv->offline));
	for_each_possible_cpu(cpu)
		if (!cpumask_test_cpu(cpu, &cpus->live))
			ksnap_snapshot_cpu(cfg, cpu, false, true, mv->offline);
	raw_spin_lock_irq(&cpus->lock);
	for (i = 0; i < cfg->nr_columns; i++) {
		int from = mv->col_from[i];

		mv->last[i] = from < 0 ? 0 : run->last[from];
		mv->base[i] = from < 0 ? mv->offline[i] : cpus->base[from];
		mv->vm_offset[i] = from < 0 ? 0 : cpus->vm_offset[from];
	}
	memcpy(run->last, mv->last, sizeof(run->last));
	memcpy(cpus->base, mv->base, sizeof(cpus->base));
	memcpy(cpus->vm_offset, mv->vm_offset, sizeof(cpus->vm_offset));
	bitmap_copy(run->gone, mv->gone, KSNAP_MAX_CGROUPS);
	bitmap_copy(run->memory_gone, mv->memory_gone, KSNAP_MAX_CGROUPS);
	memcpy(run->cg_usage, mv->cg_usage, sizeof(run->cg_usage));
	ks->cfg = cfg;
	raw_spin_unlock_irq(&cpus->lock);
	bitmap_copy(ks->gone_logged, mv->gone_logged, KSNAP_MAX_CGROUPS);
	bitmap_copy(ks->memory_gone_logged, mv->memory_gone_logged,
		    KSNAP_MAX_CGROUPS);
}

struct ksnap_follow_arm {
	struct ksnap *ks;
	ktime_t expires;
};

/* On the sampler's CPU, from an IPI: the expiry the timer had. */
static void ksnap_follow_arm_fn(void *arg)
{
	struct ksnap_follow_arm *a = arg;

	hrtimer_start(&a->ks->timer, a->expires,
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/* Cgroups of @a not in @b. */
static unsigned int ksnap_follow_count_new(const struct ksnap_config *a,
					   const struct ksnap_config *b)
{
	unsigned int i, n = 0;

	for (i = 0; i < a->nr_cgroups; i++)
		n += ksnap_follow_cg_from(b, &a->cgroups[i]) < 0;
	return n;
}

/*
 * Swap @cfg in, between two snapshots (the top of this file).  Returns
 * false when the collection is stopping on an overrun: @cfg is not used.
 */
/*
 * Stop the timer between two snapshots: cpus_read_lock() taken (no
 * hotplug callback reads the configuration), the timer cancelled (its
 * callback has returned and does not run again), the gone worker done.
 * Returns false, with nothing held, when the collection is stopping on an
 * overrun.  ks->lock held.
 */
static bool ksnap_follow_pause(struct ksnap *ks, struct ksnap_follow_arm *arm)
{
	cpus_read_lock();
	hrtimer_cancel(&ks->timer);
	/* The timer stopped rearming: the overrun worker stops it. */
	if (READ_ONCE(ks->run.overrun)) {
		cpus_read_unlock();
		return false;
	}
	arm->ks = ks;
	arm->expires = hrtimer_get_expires(&ks->timer);
	/* It reads ks->cfg without ks->lock; nothing queues it now. */
	cancel_work_sync(&ks->gone_work);
	/* What it had still to log, as a stop does. */
	ksnap_sampler_report_gone(ks);
	return true;
}

/*
 * Arm the timer again, on its CPU (or another online one), for the expiry
 * it had: no period is skipped that the pause did not itself delay (the
 * timer counts those in missed).  Drops cpus_read_lock().
 */
static void ksnap_follow_resume(struct ksnap *ks, struct ksnap_follow_arm *arm)
{
	int cpu = ks->cpus.armed;

	if (cpu < 0 || !cpu_online(cpu))
		ksnap_cpus_pick(ks, &cpu);
	if (cpu < 0 || !cpu_online(cpu))
		cpu = cpumask_first(cpu_online_mask);
	ks->cpus.armed = cpu;
	smp_call_function_single(cpu, ksnap_follow_arm_fn, arm, true);
	cpus_read_unlock();
}

static bool ksnap_follow_swap(struct ksnap *ks, struct ksnap_config *cfg)
{
	const struct ksnap_config *old = ks->cfg;
	struct ksnap_follow_move *mv;
	struct ksnap_follow_arm arm;
	u32 old_set = ks->set_id;

	mv = kvmalloc(sizeof(*mv), GFP_KERNEL);
	if (!mv)
		return false;
	if (!ksnap_follow_pause(ks, &arm)) {
		kvfree(mv);
		return false;
	}
	ks->follow.set_changes++;
	ks->follow.cgroups_found += ksnap_follow_count_new(cfg, old);
	ks->follow.cgroups_removed += ksnap_follow_count_new(old, cfg);
	ksnap_follow_move(ks, cfg, mv);
	ks->set_id++;
	ks->run.set_id = ks->set_id;
	ks->run.set_flags = KSNAP_REC_SET_CHANGED;
	WRITE_ONCE(ks->run.can_shed, ksnap_follow_can_shed(cfg));
	ksnap_ctrl_publish_set(ks);
	ksnap_follow_resume(ks, &arm);
	/*
	 * The gone worker the pause cancelled may not have asked for the
	 * release of what the timer saw removed: ask now.
	 */
	queue_work(system_unbound_wq, &ks->release_work);

	/* Logged what the old set saw removed; the worker may run again. */
	ksnap_old_set_keep(ks, old, old_set);
	ksnap_config_free(old);
	kvfree(mv);
	return true;
}

/*
 * The timer saw configured cgroups removed (sampler.c): let go of them now,
 * not at the next set change or stop.  Their columns keep their last
 * values and their records stay flagged stale, as before the release; a
 * set with patterns also drops them at its next change.  Whether named by
 * path or matched, and whatever the set becomes (empty, or over the cap,
 * so never swapped), no removed cgroup nor its memcg stays dying for
 * ksnap.
 */
static void ksnap_follow_release_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(work, struct ksnap, release_work);
	const struct ksnap_config *cfg;
	struct ksnap_follow_arm arm;
	unsigned int i;
	bool any = false;

	mutex_lock(&ks->lock);
	cfg = ks->cfg;
	if (!ks->running)
		goto out;
	for (i = 0; i < cfg->nr_cgroups; i++)
		any |= test_bit(i, ks->run.gone) &&
		       !ksnap_cgroup_released(&cfg->cgroups[i]);
	if (!any || !ksnap_follow_pause(ks, &arm))
		goto out;
	for (i = 0; i < cfg->nr_cgroups; i++)
		if (test_bit(i, ks->run.gone))
			ksnap_cgroup_release(&cfg->cgroups[i]);
	ksnap_follow_resume(ks, &arm);
out:
	mutex_unlock(&ks->lock);
}

/*
 * The most cgroups a set of @cap columns holds, with @cfg's metrics: its
 * columns not per cgroup, and the per-cgroup metrics once per cgroup.
 */
static unsigned int ksnap_follow_cg_limit(const struct ksnap_config *cfg,
					  unsigned int cap)
{
	unsigned int k = ksnap_follow_per_cgroup(cfg), own = 0, i;

	for (i = 0; i < cfg->nr_metrics; i++)
		own += ksnap_metrics[cfg->metric[i]].per_cgroup;
	own *= cfg->nr_cgroups;
	if (!k)
		return KSNAP_MAX_CGROUPS;
	return min_t(unsigned int, KSNAP_MAX_CGROUPS,
		     (cap - min(cap, cfg->nr_columns - own)) / k);
}

/* Expand the patterns again; a new set is swapped in.  ks->lock held. */
static void ksnap_follow_rescan(struct ksnap *ks)
{
	const struct ksnap_config *old = ks->cfg;
	unsigned int cap = ks->run.cap_columns;
	u64 skipped = ks->follow.cgroups_skipped;
	struct ksnap_config *cfg;
	bool whole;

	cfg = ksnap_config_rebuild(old, &ks->layout,
				   ksnap_follow_cg_limit(old, cap));
	if (IS_ERR(cfg))
		return;
	/* A match being made: another rescan once it is (ksnap_follow_kick()) */
	if (cfg->nr_pending)
		ksnap_follow_kick(ks);
	if (cfg->nr_columns > cap) {
		/* Its metrics differ from the old set's: fit them. */
		unsigned int limit = ksnap_follow_cg_limit(cfg, cap);

		ksnap_config_free(cfg);
		cfg = ksnap_config_rebuild(old, &ks->layout, limit);
		if (IS_ERR(cfg))
			return;
	}
	ks->follow.cgroups_skipped = cfg->nr_skipped;
	if (cfg->nr_skipped > skipped)
		pr_info_ratelimited("cgroups: %u pattern matches not sampled, the first '%s': the read's bound (read_pct=, read_cap_us=) admits %u columns, %u cgroups at %llu ns each; they are counted in stats/cgroups_skipped\n",
				    cfg->nr_skipped, cfg->skipped, cap,
				    ksnap_follow_cg_limit(old, cap),
				    ks->run.price_ns);
	/* Read by the reader with relaxed loads; the timer never writes it. */
	WRITE_ONCE(ks->ctrl->stats.cgroups_skipped, cfg->nr_skipped);
	ks->follow.cgroups_unreadable = cfg->nr_unreadable;
	/* Counted only if its set holds every match (stats/rescans). */
	whole = !cfg->nr_skipped;
	if (cfg->nr_columns > cap || !cfg->nr_columns) {
		ksnap_config_free(cfg);
		return;
	}
	if (ksnap_cgpattern_same(cfg, old)) {
		ksnap_config_free(cfg);
		ks->follow.rescans += whole;
		return;
	}
	cfg->record_size = old->record_size;
	cfg->nr_records = old->nr_records;
	if (!ksnap_follow_swap(ks, cfg)) {
		ksnap_config_free(cfg);
		return;
	}
	ks->follow.rescans += whole;
	ksnap_follow_reprice(ks);
}

/*
 * The timer judged a second (cost.h): shed a quarter of the set's cgroups
 * (at least one; those last in path order, as a set too large for its
 * cap is cut), or take back as many as the last shed took, up to what
 * the bound admitted; then expand the patterns at once.
 */
static void ksnap_follow_admit_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(work, struct ksnap, admit_work);
	struct ksnap_run *run = &ks->run;
	const struct ksnap_config *cfg;
	unsigned int k, n, cap;

	mutex_lock(&ks->lock);
	cfg = ks->cfg;
	if (!ks->running || !cfg->nr_patterns)
		goto out;
	k = ksnap_follow_per_cgroup(cfg);
	n = max(cfg->nr_cgroups / 4, 1U) * k;
	cap = run->cap_columns;
	switch (READ_ONCE(run->verdict)) {
	case KSNAP_COST_SHED:
		if (!ksnap_follow_can_shed(cfg))
			goto out;
		n = min(n, cfg->nr_columns);
		cap = cfg->nr_columns - n;
		run->shed_columns = n;
		ks->follow.sheds++;
		pr_warn_ratelimited("cgroups: most reads of the last second took longer than their bound of %llu ns: %u of %u cgroups shed (the last in path order), counted in stats/cgroups_skipped; taken back once reads leave room\n",
				    READ_ONCE(ks->ctrl->stats.read_bound_ns),
				    n / max(k, 1U), cfg->nr_cgroups);
		break;
	case KSNAP_COST_GROW:
		if (cap >= run->admit_columns)
			goto out;
		/* As many as the last shed took, a cgroup at least. */
		cap = min(cap + max(run->shed_columns, k), run->admit_columns);
		ks->follow.regrows++;
		break;
	default:
		goto out;
	}
	WRITE_ONCE(run->cap_columns, max(cap, 1U));
	ks->follow.columns_admitted = run->cap_columns;
	ksnap_follow_rescan(ks);
out:
	mutex_unlock(&ks->lock);
}

static void ksnap_follow_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(to_delayed_work(work), struct ksnap,
					follow_work);

	mutex_lock(&ks->lock);
	if (ks->running && ks->cfg->nr_patterns) {
		ksnap_follow_rescan(ks);
		queue_delayed_work(system_unbound_wq, &ks->follow_work,
				   msecs_to_jiffies(READ_ONCE(ksnap_discover_ms)));
	}
	mutex_unlock(&ks->lock);
}

/*
 * Cgroup events asked for a rescan (ksnap_follow_kick()): no event before
 * the bit was cleared is missed by it, and the next waits for kick_next
 * (kick.h).
 */
static void ksnap_follow_kick_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(to_delayed_work(work), struct ksnap,
					kick_work);

	WRITE_ONCE(ks->kick_next,
		   ksnap_kick_take(&ks->kick_tat, jiffies,
				   msecs_to_jiffies(KSNAP_FOLLOW_KICK_GAP_MS),
				   KSNAP_FOLLOW_KICK_BURST));
	/*
	 * Orders kick_next before the bit's clearing, for the probe that
	 * then sets it: pairs with its test_and_set_bit(), fully ordered
	 * before its read of kick_next (ksnap_follow_kick()).
	 */
	smp_mb__before_atomic();
	clear_bit(KSNAP_FOLLOW_KICK_QUEUED, &ks->kick_pending);
	/*
	 * Orders the clearing before the rescan's walk: a probe whose
	 * test_and_set_bit() saw the bit still set ran after its cgroup was
	 * linked, so the walk finds that cgroup.
	 */
	smp_mb__after_atomic();

	mutex_lock(&ks->lock);
	if (ks->running && ks->cfg->nr_patterns) {
		ks->follow.event_rescans++;
		ksnap_follow_rescan(ks);
		mod_delayed_work(system_unbound_wq, &ks->follow_work,
				 msecs_to_jiffies(READ_ONCE(ksnap_discover_ms)));
	}
	mutex_unlock(&ks->lock);
}

/**
 * ksnap_follow_kick() - a cgroup was made or removed
 * @ks: the device
 *
 * Called by the tracepoint probes (cgevents.c), under cgroup_mutex, in
 * any context (preemptible on PREEMPT_RT), and by a rescan that found a
 * match still being made: queues one rescan, settle_ms on, or when kick_next has
 * come, whichever is later; does nothing while one is queued, or when no
 * collection with patterns runs.
 */
void ksnap_follow_kick(struct ksnap *ks)
{
	unsigned long delay, next, now;

	if (!READ_ONCE(ks->following) ||
	    test_and_set_bit(KSNAP_FOLLOW_KICK_QUEUED, &ks->kick_pending))
		return;
	/* Pairs with the barrier before ksnap_follow_kick_fn()'s clear_bit() */
	next = READ_ONCE(ks->kick_next);
	now = jiffies;
	delay = msecs_to_jiffies(READ_ONCE(ksnap_settle_ms));
	if (time_before(now + delay, next))
		delay = next - now;
	queue_delayed_work(system_unbound_wq, &ks->kick_work, delay);
}

void ksnap_follow_init(struct ksnap *ks)
{
	INIT_DELAYED_WORK(&ks->follow_work, ksnap_follow_fn);
	INIT_DELAYED_WORK(&ks->kick_work, ksnap_follow_kick_fn);
	INIT_WORK(&ks->admit_work, ksnap_follow_admit_fn);
	INIT_WORK(&ks->release_work, ksnap_follow_release_fn);
	ks->kick_next = jiffies;
	ks->kick_tat = jiffies;
}

/* A collection started: its counters from 0, and the worker queued. */
void ksnap_follow_start(struct ksnap *ks)
{
	lockdep_assert_held(&ks->lock);
	memset(&ks->follow, 0, sizeof(ks->follow));
	ks->follow.cgroups_skipped = ks->cfg->nr_skipped;
	ks->follow.columns_admitted = ks->run.cap_columns;
	ks->follow.cgroup_price_ns = ks->run.price_ns;
	if (ks->cfg->nr_patterns)
		mod_delayed_work(system_unbound_wq, &ks->follow_work,
				 msecs_to_jiffies(READ_ONCE(ksnap_discover_ms)));
	/* Read by the probes: set last, when the worker can rescan. */
	WRITE_ONCE(ks->following, !!ks->cfg->nr_patterns);
}

/*
 * A collection stopped: events queue no rescan.  One queued already finds
 * it stopped (it takes ks->lock, held here: no waiting for it).
 */
void ksnap_follow_stop(struct ksnap *ks)
{
	lockdep_assert_held(&ks->lock);
	WRITE_ONCE(ks->following, false);
	/* Cancelled before it ran: it would have cleared the bit. */
	if (cancel_delayed_work(&ks->kick_work))
		clear_bit(KSNAP_FOLLOW_KICK_QUEUED, &ks->kick_pending);
}

/* Stopped for good (unload): the worker gone, the old sets freed. */
void ksnap_follow_uninit(struct ksnap *ks)
{
	unsigned int i;

	/* The probes are gone (ksnap_cgevents_uninit()): none queues it. */
	cancel_delayed_work_sync(&ks->kick_work);
	cancel_delayed_work_sync(&ks->follow_work);
	cancel_work_sync(&ks->admit_work);
	cancel_work_sync(&ks->release_work);
	for (i = 0; i < KSNAP_OLD_SETS; i++)
		ksnap_old_set_free(&ks->old_sets[i]);
}

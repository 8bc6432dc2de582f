// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler: an absolute, pinned, hardirq hrtimer that reads every column
 * into the next slot of the ring, and the state it owns while it runs
 * (struct ksnap_run).
 *
 * Barriers (see ksnap_abi.h), each tagged where it is in the code:
 *
 *   kernel (producer)                        reader (consumer)
 *   tail = load_acquire(tail)          [A]   head = load_acquire(head)    [C]
 *   write slot head                          read slots tail..head-1
 *   store_release(head, head + 1)      [B]   store_release(tail, new)     [D]
 *
 *   overwrite mode, tail never read:
 *   store_release(head, p)             [B]   copy slot q
 *   smp_wmb()                          [E]   acquire fence, load head     [F]
 *   write slot p                             keep if seq == q, head < q+n
 *
 *   start (ks->lock held):                   done with collection g:
 *   refuse unless done == generation   [H]   ioctl(KSNAP_IOC_DONE, g)     [G]
 *                                              (sets done under ks->lock)
 *
 * A pairs with D: the reader is done with a slot before it is reused.
 * B pairs with C: a record is complete before head covers it.
 * E pairs with F: the head store that moves past slot q happens before the
 *   writes that overwrite q; a reader whose copy saw any of them loads a
 *   head >= q + n after the copy and discards it.
 * G pairs with H through ks->lock: the reader's reads of a collection (its
 *   records and its stats), before its ioctl, happen before the start that
 *   reuses and resets them.
 * The collection fields are under ctrl->seq (ctrl.c): a reader that sees
 * STOPPED then loads a head that includes the last record, because stop
 * stores head [B] before it opens the seqlock.
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/bitops.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/smp.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "cost.h"
#include "ksnap.h"

/*
 * The bound on a snapshot's read (cost.h).  Writable while loaded: a start
 * checks its estimate against them, and the timer its reads, each read
 * against their values then.
 */
static unsigned int ksnap_read_pct = KSNAP_READ_PCT_DEFAULT;
static unsigned int ksnap_read_cap_us = KSNAP_READ_CAP_US_DEFAULT;

static int ksnap_read_pct_set(const char *val, const struct kernel_param *kp)
{
	return ksnap_param_set_range(val, kp, KSNAP_READ_PCT_MIN,
				     KSNAP_READ_PCT_MAX, "percentage");
}

static int ksnap_read_cap_us_set(const char *val,
				 const struct kernel_param *kp)
{
	return ksnap_param_set_range(val, kp, KSNAP_READ_CAP_US_MIN,
				     KSNAP_READ_CAP_US_MAX,
				     "number of microseconds");
}

static const struct kernel_param_ops ksnap_read_pct_ops = {
	.set = ksnap_read_pct_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops ksnap_read_cap_us_ops = {
	.set = ksnap_read_cap_us_set,
	.get = param_get_uint,
};

module_param_cb(read_pct, &ksnap_read_pct_ops, &ksnap_read_pct, 0644);
MODULE_PARM_DESC(read_pct,
		 "the share of the period reading a snapshot may take, with interrupts off, percent (1..100, default 25)");
module_param_cb(read_cap_us, &ksnap_read_cap_us_ops, &ksnap_read_cap_us,
		0644);
MODULE_PARM_DESC(read_cap_us,
		 "the most reading a snapshot may take, with interrupts off, at any period, microseconds (1..1000000, default 100)");

/* The bound now, for a collection of period @period_ns. */
static u64 ksnap_read_bound_ns(u64 period_ns)
{
	return ksnap_cost_bound_ns(period_ns, READ_ONCE(ksnap_read_pct),
				   (u64)READ_ONCE(ksnap_read_cap_us) *
				   NSEC_PER_USEC);
}

static void ksnap_stat_inc(__u64 *stat)
{
	WRITE_ONCE(*stat, *stat + 1);
}

static void ksnap_stat_add(__u64 *sum, __u64 *max, u64 value)
{
	WRITE_ONCE(*sum, *sum + value);
	if (value > *max)
		WRITE_ONCE(*max, value);
}

static u32 ksnap_sat_u32(u64 value)
{
	return min_t(u64, value, U32_MAX);
}

/*
 * Periods skipped when the expiry moved by @step_ns: the first period is
 * the one on time.  From how far the expiry moved, not from the overrun
 * count: hrtimer_forward() silently raises the interval to
 * hrtimer_resolution (a whole tick without high-resolution timers), and
 * its overruns are then counted in ticks, not in periods.
 */
static u64 ksnap_periods_missed(u64 step_ns, u64 period_ns)
{
	return step_ns > period_ns ? div64_u64(step_ns, period_ns) - 1 : 0;
}

/*
 * A removed cgroup: its columns freeze, its records are flagged stale, and
 * a worker logs it once while it is held.  A cgroup whose memory
 * controller was disabled: the same for its memory columns.  Returns the
 * record flags.
 */
static u32 ksnap_cgroups_check(struct ksnap *ks)
{
	const struct ksnap_config *cfg = ks->cfg;
	struct ksnap_run *run = &ks->run;
	u32 flags = 0;
	unsigned int i;

	for (i = 0; i < cfg->nr_cgroups; i++) {
		if (!test_bit(i, run->gone) &&
		    ksnap_cgroup_dying(&cfg->cgroups[i])) {
			set_bit(i, run->gone);
			schedule_work(&ks->gone_work);
		}
		if (!test_bit(i, run->memory_gone) &&
		    ksnap_cgroup_memory_gone(&cfg->cgroups[i])) {
			set_bit(i, run->memory_gone);
			schedule_work(&ks->gone_work);
		}
		if (test_bit(i, run->gone) || test_bit(i, run->memory_gone))
			flags |= KSNAP_REC_STALE;
	}
	return flags;
}

/* Does column @src keep its last value: its cgroup, or memory, is gone? */
static bool ksnap_column_frozen(const struct ksnap_run *run,
				const struct ksnap_source *src)
{
	if (!src->cg)
		return false;
	return test_bit(src->cg_idx, run->gone) ||
	       (src->metric->needs == KSNAP_NEEDS_MEMCG &&
		test_bit(src->cg_idx, run->memory_gone));
}

/*
 * Every column into @values (snapshot.c); then a gone cgroup's columns
 * keep their last values and a monotonic one never steps back.
 */
static u32 ksnap_read_columns(struct ksnap *ks, __u64 *values)
{
	const struct ksnap_config *cfg = ks->cfg;
	struct ksnap_run *run = &ks->run;
	unsigned int i;
	u32 flags;

	flags = ksnap_snapshot(cfg, &ks->cpus, run->cg_usage, values);
	for (i = 0; i < cfg->nr_columns; i++) {
		const struct ksnap_source *src = &cfg->col[i];

		if (ksnap_column_frozen(run, src))
			values[i] = run->last[i];
		else if (src->metric->monotonic && values[i] < run->last[i])
			values[i] = run->last[i];
		run->last[i] = values[i];
	}
	return flags;
}

/*
 * Unread records in a drop-mode ring, as the kernel takes the reader's
 * tail (ksnap_abi.h "Positions"); the ring's size when the tail is
 * invalid (*bad_tail set).
 */
static u64 ksnap_unread(struct ksnap *ks, u64 head, bool *bad_tail)
{
	/* [A] pairs with the reader's [D]: it is done with the slots. */
	u64 tail = smp_load_acquire(&ks->consumer->tail);

	return ksnap_ring_used_since(head, tail, ks->run.start_position,
				     ks->cfg->nr_records, bad_tail);
}

static void ksnap_wake(struct ksnap *ks)
{
	if (irq_work_queue(&ks->wake_work))
		ksnap_stat_inc(&ks->ctrl->stats.wakeups);
}

/*
 * Take one snapshot into the slot at head, or count it lost when the ring
 * is full (overflow=drop).  With overflow=overwrite the tail is not read at
 * all: the slot at head is written whatever it holds, and the reader finds
 * what it lost by position and seq (ksnap_abi.h).  Runs with interrupts
 * off: from the timer, or at stop.  Returns the time spent reading (and
 * sets run->read_end_ns), or 0 when the snapshot was lost.
 */
static u64 ksnap_sample(struct ksnap *ks, u64 lateness_ns, u32 flags)
{
	const struct ksnap_config *cfg = ks->cfg;
	struct ksnap_run *run = &ks->run;
	struct ksnap_ctrl *ctrl = ks->ctrl;
	struct ksnap_stats *st = &ctrl->stats;
	u64 head = ctrl->head, unread = 0, t0, t1;
	struct ksnap_record *rec;
	bool bad_tail;

	ksnap_stat_inc(&st->taken);
	ksnap_stat_add(&st->lateness_sum_ns, &st->lateness_max_ns,
		       lateness_ns);

	if (ks->overwrite) {
		/* [E] pairs with the reader's [F]: head before the slot. */
		smp_wmb();
	} else {
		unread = ksnap_unread(ks, head, &bad_tail);
		if (unread >= cfg->nr_records) {
			if (bad_tail)
				ksnap_stat_inc(&st->bad_tail);
			ksnap_stat_inc(&st->lost);
			/* Removed cgroups are let go with no reader too. */
			ksnap_cgroups_check(ks);
			return 0;
		}
	}

	/* run->slot is head's slot, kept beside it: no division per record. */
	rec = (struct ksnap_record *)(ks->data +
		(size_t)run->slot * cfg->record_size);
	/* Everything done per snapshot and per cgroup is in the read's time. */
	t0 = ktime_get_ns();
	flags |= ksnap_cgroups_check(ks);
	flags |= ksnap_read_columns(ks, rec->values);
	t1 = ktime_get_ns();

	rec->seq = head;
	rec->time_ns = t0 + (t1 - t0) / 2 - run->start_mono_ns;
	rec->lateness_ns = ksnap_sat_u32(lateness_ns);
	rec->read_ns = ksnap_sat_u32(t1 - t0);
	/* The first record written of a new set says so (install.c). */
	rec->flags = flags | run->set_flags;
	run->set_flags = 0;
	rec->set_id = run->set_id;
	rec->values_offset = offsetof(struct ksnap_record, values);
	rec->reserved = 0;

	/* [B] pairs with the reader's [C] and [F]: the record, then head. */
	smp_store_release(&ctrl->head, head + 1);
	run->slot = ksnap_ring_next_slot(run->slot, cfg->nr_records);

	ksnap_stat_add(&st->read_sum_ns, &st->read_max_ns, t1 - t0);
	WRITE_ONCE(st->cpu, raw_smp_processor_id());
	if (ks->overwrite) {
		/* No tail to measure against: every wake_mark records. */
		if (++run->unwoken >= run->wake_mark) {
			run->unwoken = 0;
			ksnap_wake(ks);
		}
	} else if (unread + 1 == run->wake_mark) {
		/* Unread records grow by one per sample: wake on crossing. */
		ksnap_wake(ks);
	}
	run->read_end_ns = t1;
	return t1 - t0 ?: 1;
}

/*
 * Read every @stride periods from the next expiry on.  The reader is woken
 * after about as much time as before (wake_ms=), so after fewer records;
 * woken now when it has more unread than that already.  From the timer.
 */
static void ksnap_set_stride(struct ksnap *ks, u32 stride)
{
	struct ksnap_run *run = &ks->run;
	u32 mark = ksnap_ring_wake_mark(ks->cfg->nr_records,
					ks->period_ns * stride,
					(u64)READ_ONCE(ks->wake_ms) *
					NSEC_PER_MSEC);

	WRITE_ONCE(run->stride, stride);
	if (mark < run->wake_mark)
		ksnap_wake(ks);
	run->wake_mark = mark;
	run->unwoken = 0;
}

/*
 * A read of @read_ns against the bound, judged a second at a time
 * (cost.h): the longest of each second is published
 * (stats.read_recent_ns); an over second sheds cgroups (follow.c), or,
 * with none to shed, thins: the timer reads every other period it read,
 * the bound growing with the time between reads; calm seconds (by half
 * the stride's bound while thinned) halve the stride again, then take
 * shed cgroups back.  From the timer.
 */
static void ksnap_read_judge(struct ksnap *ks, u64 read_ns)
{
	struct ksnap_run *run = &ks->run;
	struct ksnap_stats *st = &ks->ctrl->stats;
	u32 stride = run->stride, max_stride;
	u64 cap = (u64)READ_ONCE(ksnap_read_cap_us) * NSEC_PER_USEC;
	/*
	 * One division a read: the bound at a stride is the period's share,
	 * uncapped, times the stride (below ksnap_read_bound_ns() of the
	 * longer period by less than a nanosecond a period), then capped.
	 */
	u64 share = ksnap_cost_bound_ns(ks->period_ns,
					READ_ONCE(ksnap_read_pct), U64_MAX);
	u64 base = min(share, cap);
	u64 bound = min(share * stride, cap);
	u64 now = run->read_end_ns;
	enum ksnap_cost_verdict v;

	if (base != run->base_bound_ns)
		WRITE_ONCE(run->base_bound_ns, base);
	if (bound != st->read_bound_ns)
		WRITE_ONCE(st->read_bound_ns, bound);
	ksnap_cost_read(&run->cost, read_ns, bound,
			stride > 1 ? min(share * (stride / 2), cap) : bound);
	if (now - run->recent_start_ns < KSNAP_COST_WINDOW_NS)
		return;
	WRITE_ONCE(st->read_recent_ns, run->cost.max_ns);
	run->recent_start_ns = now;
	max_stride = ksnap_cost_max_stride(ks->period_ns);
	v = ksnap_cost_second(&run->cost, READ_ONCE(run->can_shed),
			      READ_ONCE(run->cap_columns) <
			      READ_ONCE(run->admit_columns),
			      stride < max_stride, stride > 1);
	switch (v) {
	case KSNAP_COST_SHED:
	case KSNAP_COST_GROW:
		/*
		 * Taken by the worker; one at a time, the latest wins.  On
		 * any CPU: this one's time is what the reads are taking.
		 */
		WRITE_ONCE(run->verdict, v);
		queue_work(system_unbound_wq, &ks->admit_work);
		return;
	case KSNAP_COST_THIN:
		ksnap_set_stride(ks, min_t(u64, 2ULL * stride, max_stride));
		break;
	case KSNAP_COST_UNTHIN:
		ksnap_set_stride(ks, stride / 2);
		break;
	case KSNAP_COST_OVER:
		break;
	default:
		return;
	}
	/* Logged by the worker, in process context. */
	WRITE_ONCE(run->thin_verdict, v);
	queue_work(system_unbound_wq, &ks->thin_work);
}

static enum hrtimer_restart ksnap_timer_fn(struct hrtimer *timer)
{
	struct ksnap *ks = container_of(timer, struct ksnap, timer);
	ktime_t now = ktime_get();
	ktime_t expires = hrtimer_get_expires(timer);
	s64 late = ktime_to_ns(ktime_sub(now, expires));
	__u64 *missed = &ks->ctrl->stats.missed;
	__u64 *thinned = &ks->ctrl->stats.thinned;
	u64 n, read_ns;
	u32 stride;

	if (!READ_ONCE(ks->running))
		return HRTIMER_NORESTART;

	/*
	 * Lateness above is measured before forwarding moves the expiry.  A
	 * thinned timer skips stride - 1 periods on purpose: missed counts
	 * them too (a period that passed with no snapshot), thinned says why.
	 */
	stride = ks->run.stride;
	hrtimer_forward(timer, now, ns_to_ktime(ks->period_ns * stride));
	n = ksnap_periods_missed(ktime_to_ns(ktime_sub(hrtimer_get_expires(timer),
						       expires)),
				 ks->period_ns);
	if (n)
		WRITE_ONCE(*missed, *missed + n);
	if (stride > 1)
		WRITE_ONCE(*thinned, *thinned + stride - 1);

	read_ns = ksnap_sample(ks, max_t(s64, late, 0), 0);
	if (read_ns)
		ksnap_read_judge(ks, read_ns);
	return HRTIMER_RESTART;
}

static void ksnap_wake_fn(struct irq_work *work)
{
	struct ksnap *ks = container_of(work, struct ksnap, wake_work);

	wake_up_interruptible(&ks->wait);
}

/*
 * The timer thinned, read more often again, or found its reads over the
 * bound with nothing left to shed or thin (ksnap_read_judge()): say so,
 * once per stride it comes to, and once that it can thin no more.
 */
static void ksnap_thin_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(work, struct ksnap, thin_work);
	const struct ksnap_stats *st = &ks->ctrl->stats;
	struct ksnap_run *run = &ks->run;
	bool thinner;
	u32 stride;
	u64 every_us;

	mutex_lock(&ks->lock);
	if (!ks->running)
		goto out;
	stride = READ_ONCE(run->stride);
	every_us = div_u64(ks->period_ns * stride, NSEC_PER_USEC);
	if (READ_ONCE(run->thin_verdict) == KSNAP_COST_OVER) {
		if (run->over_logged)
			goto out;
		run->over_logged = true;
		pr_warn("enable: collection %u: most reads of a snapshot take longer than their bound of %llu ns even at one read every %llu us, with no cgroup left to shed: it reads on, at that rate (the longest read of the last second: %llu ns); use a longer period_us, fewer columns, or raise read_pct or read_cap_us\n",
			ks->ctrl->generation, READ_ONCE(st->read_bound_ns),
			every_us, READ_ONCE(st->read_recent_ns));
		goto out;
	}
	if (stride == run->thin_logged)
		goto out;
	thinner = stride > run->thin_logged;
	run->thin_logged = stride;
	run->over_logged = false;
	if (thinner)
		pr_warn_ratelimited("enable: collection %u: most reads of a snapshot took longer than their bound, with no cgroup left to shed: now a snapshot every %u periods (every %llu us, bound %llu ns), the others counted in stats/thinned and missed; more often again once reads leave room\n",
				    ks->ctrl->generation, stride, every_us,
				    READ_ONCE(st->read_bound_ns));
	else if (stride > 1)
		pr_info_ratelimited("enable: collection %u: reads leave room: a snapshot every %u periods (every %llu us)\n",
				    ks->ctrl->generation, stride, every_us);
	else
		pr_info_ratelimited("enable: collection %u: a snapshot every period again\n",
				    ks->ctrl->generation);
out:
	mutex_unlock(&ks->lock);
}

void ksnap_sampler_init(struct ksnap *ks)
{
	ksnap_gone_init(ks);
	ksnap_install_init(ks);
	INIT_WORK(&ks->thin_work, ksnap_thin_fn);
	init_waitqueue_head(&ks->wait);
	init_irq_work(&ks->wake_work, ksnap_wake_fn);
	ksnap_follow_init(ks);
	hrtimer_setup(&ks->timer, ksnap_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * Release the configured cgroups found removed (ksnap_cgroup_release()):
 * a removed cgroup, and its memcg, are not kept dying by a module that
 * only keeps their last values.  Its columns stay frozen and its records
 * flagged stale, in this and every later collection.
 *
 * The references' lifetime.  Each is taken in process context, when a
 * configuration is built (ksnap_cgroup_get(), ksnap_cgroup_dup()), before
 * it is published.  Each is dropped in process context with ks->lock
 * held, where nothing else reads the configuration's cgroups: here,
 * while stopped (ks->running false and hrtimer_cancel() returned, so the
 * timer callback neither runs nor runs again before
 * ksnap_sampler_start() arms it after this; ksnap_cpus_stop() done or
 * ksnap_cpus_start() not yet, so no CPU-hotplug callback reads a
 * column), or when a configuration replaced while stopped is freed.  The
 * timer never takes or drops one.  It reads a cgroup only through a
 * configuration that holds it; once released, only the values kept for
 * it: cgrp, memory, memcg and psi are NULL, and no reader is called on it
 * (ksnap_metric_read(), ksnap_snapshot_cpu()).  Arming the timer
 * (hrtimer_start(), under its base's lock, from an IPI) orders these
 * writes before the callback's reads.
 */
static void ksnap_sampler_release_gone(struct ksnap *ks)
{
	const struct ksnap_config *cfg = ks->cfg;
	unsigned int i;

	lockdep_assert_held(&ks->lock);
	for (i = 0; i < cfg->nr_cgroups; i++)
		ksnap_cgroup_release(&cfg->cgroups[i]);
}

/*
 * A new collection's run state, in process context: nothing seen gone or
 * logged yet, except cgroups already removed (released), whose columns
 * start from the values kept at their release.
 */
static void ksnap_run_reset(struct ksnap *ks)
{
	const struct ksnap_config *cfg = ks->cfg;
	struct ksnap_run *run = &ks->run;
	unsigned int i;

	memset(run, 0, sizeof(*run));
	run->start_position = READ_ONCE(ks->ctrl->head);
	run->set_first_pos = run->start_position;
	run->slot = ksnap_ring_slot(run->start_position, cfg->nr_records);
	run->set_id = ks->set_id;
	run->stride = 1;
	run->thin_logged = 1;
	run->base_bound_ns = ksnap_read_bound_ns(ks->period_ns);
	run->wake_mark = ksnap_ring_wake_mark(cfg->nr_records, ks->period_ns,
					      (u64)ks->wake_ms * NSEC_PER_MSEC);
	for (i = 0; i < cfg->nr_cgroups; i++) {
		if (ksnap_cgroup_dying(&cfg->cgroups[i]))
			set_bit(i, run->gone);
		if (ksnap_cgroup_memory_gone(&cfg->cgroups[i]))
			set_bit(i, run->memory_gone);
	}
	for (i = 0; i < cfg->nr_columns; i++) {
		const struct ksnap_source *src = &cfg->col[i];

		if (ksnap_column_frozen(run, src))
			run->last[i] = ksnap_metric_read(src->metric, src->cg,
							 src->cpu);
	}
	run->start_mono_ns = ktime_get_ns();
	run->recent_start_ns = run->start_mono_ns;
}

/* A calibration read's time, with interrupts off as in the timer. */
static u64 ksnap_calibration_read(struct ksnap *ks)
{
	unsigned long flags;
	u64 t0, t1;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	ksnap_snapshot(ks->cfg, &ks->cpus, NULL, ks->calib);
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	return t1 - t0;
}

/*
 * A snapshot's read time: the configuration read KSNAP_CALIB_READS times
 * by its plan, from the CPUs live now, each after a sleep as the timer's
 * reads come a period apart, and the median (cost.h).  Process context,
 * with cpus_read_lock() held and the live CPUs set (ksnap_cpus_start()).
 */
static u64 ksnap_read_estimate(struct ksnap *ks)
{
	u64 t[KSNAP_CALIB_READS], v;
	unsigned int i, j;

	for (i = 0; i < KSNAP_CALIB_READS; i++) {
		usleep_range(KSNAP_CALIB_SLEEP_US, 2 * KSNAP_CALIB_SLEEP_US);
		v = ksnap_calibration_read(ks);
		/* Insertion sort, ascending. */
		for (j = i; j > 0 && t[j - 1] > v; j--)
			t[j] = t[j - 1];
		t[j] = v;
	}
	return t[KSNAP_CALIB_READS / 2];
}

/*
 * Refuse a start whose read estimate (@estimate_ns) is above the bound,
 * with a log line that says what would fit: the shortest period, and the
 * columns at this period.
 */
static int ksnap_read_check(struct ksnap *ks, u64 estimate_ns)
{
	const struct ksnap_config *cfg = ks->cfg;
	unsigned int pct = READ_ONCE(ksnap_read_pct);
	unsigned int cap_us = READ_ONCE(ksnap_read_cap_us);
	u64 cap_ns = (u64)cap_us * NSEC_PER_USEC;
	u64 bound = ksnap_cost_bound_ns(ks->period_ns, pct, cap_ns);
	unsigned int ncpus = cpumask_weight(&ks->cpus.live);
	unsigned int cols;
	u64 fit;

	if (estimate_ns <= bound)
		return 0;
	fit = ksnap_cost_fit_period_us(estimate_ns, pct, cap_ns,
				       KSNAP_PERIOD_US_MIN,
				       KSNAP_PERIOD_US_MAX);
	cols = ksnap_cost_fit_columns(cfg->nr_columns, estimate_ns, bound);
	if (fit)
		pr_err_ratelimited("enable: refused: reading a snapshot of %u columns on %u CPUs is estimated at %llu ns with interrupts off, above its bound of %llu ns (read_pct=%u of period_us=%llu, read_cap_us=%u): period_us=%llu or longer fits, or about %u columns at this period\n",
				   cfg->nr_columns, ncpus, estimate_ns, bound,
				   pct, div_u64(ks->period_ns, NSEC_PER_USEC),
				   cap_us, fit, cols);
	else
		pr_err_ratelimited("enable: refused: reading a snapshot of %u columns on %u CPUs is estimated at %llu ns with interrupts off, above its bound of %llu ns (read_pct=%u of period_us=%llu, read_cap_us=%u) at any period: about %u columns fit, or raise read_cap_us\n",
				   cfg->nr_columns, ncpus, estimate_ns, bound,
				   pct, div_u64(ks->period_ns, NSEC_PER_USEC),
				   cap_us,
				   ksnap_cost_fit_columns(cfg->nr_columns,
							  estimate_ns,
							  min(bound, cap_ns)));
	return -EINVAL;
}

/* On the sampler's CPU, from an IPI (hardirq) or with interrupts off. */
static void ksnap_timer_arm(void *arg)
{
	struct ksnap *ks = arg;

	hrtimer_start(&ks->timer,
		      ns_to_ktime(ks->run.start_mono_ns + ks->period_ns),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/**
 * ksnap_sampler_start() - start collection number generation + 1
 * @ks: with ks->lock held
 *
 * The timer runs on the chosen CPU (cpu=), or on the first online
 * housekeeping CPU.
 *
 * Return: 0 (also when already running), -EBUSY while the open reader has
 * not finished with the previous collection, or -EINVAL when the chosen
 * CPU is offline or a snapshot's read is estimated above its bound.
 */
int ksnap_sampler_start(struct ksnap *ks)
{
	u32 gen = ks->ctrl->generation, done;
	bool changed;
	u64 estimate_ns;
	int cpu, ret;

	lockdep_assert_held(&ks->lock);
	if (ks->running)
		return 0;
	/* [H] pairs with the reader's [G], through ks->lock. */
	done = ks->open ? ks->reader_done : gen;
	if (done != gen) {
		pr_err_ratelimited("enable: the reader of /dev/ksnap has finished collection %u, not %u: start refused until it has\n",
				   done, gen);
		return -EBUSY;
	}
	if (ks->period_ns < hrtimer_resolution)
		pr_warn_ratelimited("enable: timers on this kernel fire at most every %u ns (no high-resolution timers?): with period_us=%llu most periods will be missed, and counted\n",
				    hrtimer_resolution,
				    div_u64(ks->period_ns, NSEC_PER_USEC));
	/* cgroup patterns: the cgroups that match now, not at configuration. */
	ret = ksnap_follow_refresh(ks, &changed);
	if (ret)
		return ret;
	/* Removed while stopped: not read by this collection. */
	ksnap_sampler_release_gone(ks);

	/* No CPU comes or goes until the timer is armed on its CPU. */
	cpus_read_lock();
	ret = ksnap_cpus_pick(ks, &cpu);
	if (ret)
		goto out;
	ksnap_cpus_start(ks, cpu);
	estimate_ns = ksnap_read_estimate(ks);
	ret = ksnap_read_check(ks, estimate_ns);
	if (ret) {
		ksnap_cpus_stop(ks);
		goto out;
	}
	ksnap_run_reset(ks);
	ksnap_follow_admit_start(ks, estimate_ns,
				 ksnap_read_bound_ns(ks->period_ns));
	ksnap_ctrl_publish_start(ks, estimate_ns,
				 ksnap_read_bound_ns(ks->period_ns));
	WRITE_ONCE(ks->running, true);
	ksnap_follow_start(ks);
	ksnap_exits_arm(ks);
	/* Armed from its CPU: a pinned timer fires where it was started. */
	smp_call_function_single(cpu, ksnap_timer_arm, ks, true);
	wake_up_interruptible(&ks->wait);
out:
	cpus_read_unlock();
	/*
	 * Refused after the patterns made a new configuration: publish it as
	 * a reconfiguration (a new, empty, stopped collection), so that the
	 * control page never describes another set or geometry than ks->cfg.
	 */
	if (ret && changed)
		ksnap_ctrl_publish_config(ks);
	return ret;
}

/**
 * ksnap_sampler_stop() - stop, with one last snapshot flagged LAST
 * @ks: with ks->lock held
 */
void ksnap_sampler_stop(struct ksnap *ks)
{
	lockdep_assert_held(&ks->lock);
	/* Stopped, by whatever path: no session's release stops it again. */
	ks->stop_on_close = false;
	if (!ks->running)
		return;
	WRITE_ONCE(ks->running, false);
	ksnap_follow_stop(ks);
	ksnap_exits_disarm(ks);
	hrtimer_cancel(&ks->timer);

	/* The timer's code path, with interrupts off as in the timer. */
	local_irq_disable();
	ksnap_sample(ks, 0, KSNAP_REC_LAST);
	local_irq_enable();
	ksnap_cpus_stop(ks);
	/* Nothing queues it any more: log what it had not yet logged. */
	cancel_work_sync(&ks->gone_work);
	ksnap_gone_report(ks);
	/* The timer is cancelled and hotplug inactive: nothing reads them. */
	ksnap_sampler_release_gone(ks);

	ksnap_ctrl_publish_stop(ks, KSNAP_STOP_NONE);
	wake_up_interruptible(&ks->wait);
}

/* Stop if needed and wait for a queued wakeup: nothing runs afterwards. */
void ksnap_sampler_uninit(struct ksnap *ks)
{
	mutex_lock(&ks->lock);
	ksnap_sampler_stop(ks);
	mutex_unlock(&ks->lock);
	hrtimer_cancel(&ks->timer);
	irq_work_sync(&ks->wake_work);
	cancel_work_sync(&ks->gone_work);
	/* Stopped: it finds nothing to do if it runs. */
	cancel_work_sync(&ks->thin_work);
	ksnap_follow_uninit(ks);
	ksnap_install_uninit(ks);
}

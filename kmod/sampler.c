// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler: an absolute, pinned, hardirq hrtimer that reads every column
 * into the next slot of the ring.
 *
 * Ring ordering (see ksnap_abi.h), barriers tagged by letter:
 *
 *   kernel (producer)                 reader (consumer)
 *   tail = load_acquire(tail)   [A]   head = load_acquire(head)      [C]
 *   write slot head                   read slots tail..head-1
 *   store_release(head, head+1) [B]   store_release(tail, new tail)  [D]
 *
 * A pairs with D: the reader is done with a slot before it is reused.
 * B pairs with C: a record is complete before head covers it.
 */
#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "ksnap.h"

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
 * A removed cgroup: its columns freeze, its records are flagged stale, and
 * a worker logs it once.  Returns the record flags.
 */
static u32 ksnap_cgroups_check(struct ksnap *ks, struct ksnap_config *cfg)
{
	u32 flags = 0;
	unsigned int i;

	for (i = 0; i < cfg->nr_cgroups; i++) {
		struct ksnap_cgroup *cg = &cfg->cgroups[i];

		if (!cg->gone && ksnap_cgroup_dying(cg)) {
			WRITE_ONCE(cg->gone, true);
			schedule_work(&ks->gone_work);
		}
		if (cg->gone)
			flags |= KSNAP_REC_STALE;
	}
	return flags;
}

/*
 * Take one snapshot into the slot at head, or count it lost when the ring
 * is full (overflow=drop).  With overflow=overwrite the tail is not read at
 * all: the slot at head is written whatever it holds, and the reader finds
 * what it lost by position and seq (ksnap_abi.h).  Runs with interrupts
 * off: from the timer, or at stop.
 */
static void ksnap_sample(struct ksnap *ks, u64 lateness_ns, u32 flags)
{
	struct ksnap_config *cfg = ks->cfg;
	struct ksnap_ctrl *ctrl = ks->ctrl;
	struct ksnap_stats *st = &ctrl->stats;
	struct ksnap_record *rec;
	u64 head = ctrl->head, tail, t0, t1;
	unsigned int i;
	bool bad_tail;

	ksnap_stat_inc(&st->taken);
	ksnap_stat_add(&st->lateness_sum_ns, &st->lateness_max_ns,
		       lateness_ns);
	flags |= ksnap_cgroups_check(ks, cfg);

	if (ks->overwrite) {
		/*
		 * The previous head store before this slot's writes: a reader
		 * that copied any of them loads head >= this position after
		 * its copy (its acquire fence), and discards the copy.
		 */
		smp_wmb();
		tail = 0;
	} else {
		/* [A] pairs with the reader's [D]: the slot is free again. */
		tail = smp_load_acquire(&ks->consumer->tail);
		if (ksnap_ring_used(head, tail, cfg->nr_records, &bad_tail) >=
		    cfg->nr_records) {
			if (bad_tail)
				ksnap_stat_inc(&st->bad_tail);
			ksnap_stat_inc(&st->lost);
			return;
		}
	}

	rec = (struct ksnap_record *)(ks->data +
		(size_t)ksnap_ring_slot(head, cfg->nr_records) *
		cfg->record_size);
	t0 = ktime_get_ns();
	for (i = 0; i < cfg->nr_columns; i++) {
		const struct ksnap_source *src = &cfg->col[i];

		/* A gone cgroup's columns keep their last values. */
		if (!src->cg || !src->cg->gone)
			cfg->last[i] = ksnap_metric_read(src->metric, src->cg,
							 src->cpu);
		rec->values[i] = cfg->last[i];
	}
	t1 = ktime_get_ns();

	rec->seq = head;
	rec->time_ns = t0 + (t1 - t0) / 2 - ks->start_mono_ns;
	rec->lateness_ns = ksnap_sat_u32(lateness_ns);
	rec->read_ns = ksnap_sat_u32(t1 - t0);
	rec->flags = flags;
	rec->reserved = 0;

	/* [B] pairs with the reader's [C]: the record before its head. */
	smp_store_release(&ctrl->head, head + 1);

	ksnap_stat_add(&st->read_sum_ns, &st->read_max_ns, t1 - t0);
	if (ks->overwrite) {
		/* No tail to measure against: every wake_mark records. */
		if (++ks->unwoken >= ks->wake_mark) {
			ks->unwoken = 0;
			irq_work_queue(&ks->wake_work);
		}
	} else if (head + 1 - tail == ks->wake_mark) {
		/* Unread records grow by one per sample: wake on crossing. */
		irq_work_queue(&ks->wake_work);
	}
}

static enum hrtimer_restart ksnap_timer_fn(struct hrtimer *timer)
{
	struct ksnap *ks = container_of(timer, struct ksnap, timer);
	ktime_t now = ktime_get();
	ktime_t expires = hrtimer_get_expires(timer);
	s64 late = ktime_to_ns(ktime_sub(now, expires));
	u64 step;

	if (!READ_ONCE(ks->running))
		return HRTIMER_NORESTART;

	/*
	 * Lateness above is measured before forwarding moves the expiry.
	 * Missed periods come from how far the expiry moved, not from the
	 * overrun count: hrtimer_forward() silently raises the interval to
	 * hrtimer_resolution (a whole tick without high-resolution timers),
	 * and its overruns are then counted in ticks, not in periods.
	 */
	hrtimer_forward(timer, now, ns_to_ktime(ks->period_ns));
	step = ktime_to_ns(ktime_sub(hrtimer_get_expires(timer), expires));
	if (step > ks->period_ns)
		WRITE_ONCE(ks->ctrl->stats.missed, ks->ctrl->stats.missed +
			   div64_u64(step, ks->period_ns) - 1);

	ksnap_sample(ks, max_t(s64, late, 0), 0);
	return HRTIMER_RESTART;
}

static void ksnap_wake_fn(struct irq_work *work)
{
	struct ksnap *ks = container_of(work, struct ksnap, wake_work);

	wake_up_interruptible(&ks->wait);
}

/*
 * Log each cgroup the sampler found removed, once per configuration.
 * Process context; never concurrent with itself (see ksnap_sampler_stop()).
 */
void ksnap_report_gone(struct ksnap *ks)
{
	struct ksnap_config *cfg = ks->cfg;
	unsigned int i;

	for (i = 0; i < cfg->nr_cgroups; i++) {
		struct ksnap_cgroup *cg = &cfg->cgroups[i];

		if (!READ_ONCE(cg->gone) || cg->reported)
			continue;
		cg->reported = true;
		pr_warn("cgroups: '%s' was removed while sampled: its columns keep their last values and records are flagged stale\n",
			cg->path);
	}
}

/* ks->cfg cannot change while this is queued or runs: it is stopped first. */
static void ksnap_gone_fn(struct work_struct *work)
{
	ksnap_report_gone(container_of(work, struct ksnap, gone_work));
}

void ksnap_sampler_init(struct ksnap *ks)
{
	INIT_WORK(&ks->gone_work, ksnap_gone_fn);
	init_waitqueue_head(&ks->wait);
	init_irq_work(&ks->wake_work, ksnap_wake_fn);
	hrtimer_init(&ks->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	ks->timer.function = ksnap_timer_fn;
}

/**
 * ksnap_sampler_start() - start collection number generation + 1
 * @ks: with ks->lock held
 *
 * Return: 0 (also when already running), or -EBUSY while the open reader
 * has not finished with the previous collection.
 */
int ksnap_sampler_start(struct ksnap *ks)
{
	struct ksnap_ctrl *ctrl = ks->ctrl;
	u32 done;

	lockdep_assert_held(&ks->lock);
	if (ks->running)
		return 0;
	done = READ_ONCE(ks->consumer->done_generation);
	if (ks->open && done != ctrl->generation) {
		pr_err_ratelimited("enable: the reader of /dev/ksnap has finished collection %u, not %u: start refused until it has\n",
				   done, ctrl->generation);
		return -EBUSY;
	}

	if (ks->period_ns < hrtimer_resolution)
		pr_warn("enable: timers on this kernel fire at most every %u ns (no high-resolution timers?): with period_us=%llu most periods will be missed, and counted\n",
			hrtimer_resolution, div_u64(ks->period_ns, NSEC_PER_USEC));

	ks->start_mono_ns = ktime_get_ns();
	ks->wake_mark = ksnap_ring_wake_mark(ks->cfg->nr_records,
					     ks->period_ns);
	ks->unwoken = 0;
	ksnap_ctrl_write_begin(ctrl);
	ctrl->generation++;
	ctrl->state = KSNAP_STATE_RUNNING;
	ctrl->period_ns = ks->period_ns;
	ctrl->start_mono_ns = ks->start_mono_ns;
	ctrl->start_real_ns = ktime_get_real_ns();
	ctrl->flags = ks->overwrite ? KSNAP_CTRL_OVERWRITE : 0;
	WRITE_ONCE(ctrl->head, 0);
	memset(&ctrl->stats, 0, sizeof(ctrl->stats));
	WRITE_ONCE(ks->consumer->tail, 0);
	ksnap_ctrl_write_end(ctrl);

	WRITE_ONCE(ks->running, true);
	hrtimer_start(&ks->timer,
		      ns_to_ktime(ks->start_mono_ns + ks->period_ns),
		      HRTIMER_MODE_ABS_PINNED_HARD);
	wake_up_interruptible(&ks->wait);
	return 0;
}

/**
 * ksnap_sampler_stop() - stop, with one last snapshot flagged LAST
 * @ks: with ks->lock held
 */
void ksnap_sampler_stop(struct ksnap *ks)
{
	lockdep_assert_held(&ks->lock);
	if (!ks->running)
		return;
	WRITE_ONCE(ks->running, false);
	hrtimer_cancel(&ks->timer);

	/* The timer's code path, with interrupts off as in the timer. */
	local_irq_disable();
	ksnap_sample(ks, 0, KSNAP_REC_LAST);
	local_irq_enable();
	/* Nothing queues it any more: log what it had not yet logged. */
	cancel_work_sync(&ks->gone_work);
	ksnap_report_gone(ks);

	ksnap_ctrl_write_begin(ks->ctrl);
	ks->ctrl->state = KSNAP_STATE_STOPPED;
	ksnap_ctrl_write_end(ks->ctrl);
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
}

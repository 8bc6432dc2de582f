// SPDX-License-Identifier: GPL-2.0
/*
 * Installing a configuration: the one way a new configuration becomes
 * ks->cfg, whoever asks for it (a metrics or cgroups write, a start's
 * expansion of the patterns, a rescan while running).  All with ks->lock
 * held; ksnap_install() takes the configuration or leaves it to the
 * caller to free.
 *
 * Stopped, nothing samples: ks->cfg is replaced, the set gets its number
 * and, unless a start is about to publish it, the control page publishes
 * it as a reconfiguration.
 *
 * Running, the set changes between two snapshots:
 *
 *  - the map from the new set's columns and cgroups to the old set's is
 *    built first, while the timer still samples the old set (both
 *    configurations are immutable while ks->lock is held);
 *  - the timer is cancelled (hrtimer_cancel(): its callback has returned
 *    and does not run again), with cpus_read_lock() (no hotplug callback
 *    reads the configuration) and the gone worker done;
 *  - what the run keeps by column (last values, the offline CPUs' base, a
 *    CPU's held VM events) and by cgroup (seen removed) moves to the new
 *    indices, with interrupts on (ksnap_install_move());
 *  - ks->cfg, the set number and the control page's set change, the next
 *    record is flagged KSNAP_REC_SET_CHANGED, and the timer is armed
 *    again, on its CPU, for the expiry it had: no period is skipped that
 *    the swap did not itself delay (the timer counts those in missed);
 *  - the old configuration is freed there and then: nothing can read it
 *    any more, so the cgroups it alone held are released at once and no
 *    dying cgroup stays behind.  Its columns' names stay (sets.c).
 *
 * The same pause lets go of the cgroups the timer saw removed
 * (ksnap_install_release_fn()).
 */
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "ksnap.h"

/* What the run kept by column and by cgroup, at their new indices. */
struct ksnap_install_move {
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

/* The column of @old that @src is, or -1 (@cg_from: new to old cgroup). */
static int ksnap_install_col_from(const struct ksnap_config *old,
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

/*
 * The new set's cgroups and columns in the old set (ks->cfg), or -1: the
 * costly part of a set change (new columns x old ones), done while the
 * timer still samples.
 */
static void ksnap_install_map(const struct ksnap *ks,
			      const struct ksnap_config *cfg,
			      struct ksnap_install_move *mv)
{
	const struct ksnap_config *old = ks->cfg;
	unsigned int i;

	for (i = 0; i < cfg->nr_cgroups; i++) {
		int from = ksnap_cgpattern_find(old, &cfg->cgroups[i]);

		/*
		 * A new memcg (ksnap_cgroup_dup()): nothing of the old one's
		 * is kept, neither its values nor that it went.
		 */
		if (from >= 0 &&
		    ksnap_cgroup_memcg_changed(&old->cgroups[from],
					       &cfg->cgroups[i]))
			from = -1;
		mv->cg_from[i] = from;
	}
	for (i = 0; i < cfg->nr_columns; i++)
		mv->col_from[i] = ksnap_install_col_from(old, &cfg->col[i],
							 mv->cg_from);
}

/*
 * Move the run's and the CPUs' per-column and per-cgroup state from ks->cfg
 * to @cfg by @mv's map, and make @cfg current.  The timer cancelled,
 * cpus_read_lock() and ks->lock held.
 *
 * No lock with interrupts off is taken: the state moved is read and
 * written only by the timer (cancelled), the hotplug callbacks (held off
 * by cpus_read_lock()) and process context under ks->lock (held: a start's
 * calibration, a stop's last sample).  The fold worker, which may run beside us, changes
 * only cpus->unfolded.  Arming the timer again (hrtimer_start(), under its
 * base's lock, from an IPI) orders these writes before its reads.
 */
static void ksnap_install_move(struct ksnap *ks, const struct ksnap_config *cfg,
			       struct ksnap_install_move *mv)
{
	struct ksnap_run *run = &ks->run;
	struct ksnap_cpus *cpus = &ks->cpus;
	unsigned int i;
	int cpu;

	bitmap_zero(mv->gone, KSNAP_MAX_CGROUPS);
	bitmap_zero(mv->memory_gone, KSNAP_MAX_CGROUPS);
	bitmap_zero(mv->gone_logged, KSNAP_MAX_CGROUPS);
	bitmap_zero(mv->memory_gone_logged, KSNAP_MAX_CGROUPS);
	for (i = 0; i < cfg->nr_cgroups; i++) {
		int from = mv->cg_from[i];

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

	/* The offline CPUs' shares: no CPU comes or goes (cpus_read_lock()). */
	memset(mv->offline, 0, sizeof(mv->offline));
	for_each_possible_cpu(cpu)
		if (!cpumask_test_cpu(cpu, &cpus->live))
			ksnap_snapshot_cpu(cfg, cpu, false, true, mv->offline);
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
	bitmap_copy(ks->gone_logged, mv->gone_logged, KSNAP_MAX_CGROUPS);
	bitmap_copy(ks->memory_gone_logged, mv->memory_gone_logged,
		    KSNAP_MAX_CGROUPS);
}

struct ksnap_install_arm {
	struct ksnap *ks;
	ktime_t expires;
	u64 paused_ns;	/* when the timer was cancelled: after any hotplug wait */
};

/* On the sampler's CPU, from an IPI: the expiry the timer had. */
static void ksnap_install_arm_fn(void *arg)
{
	struct ksnap_install_arm *a = arg;

	hrtimer_start(&a->ks->timer, a->expires,
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * Stop the timer between two snapshots: cpus_read_lock() taken (no
 * hotplug callback reads the configuration), the timer cancelled (its
 * callback has returned and does not run again), the gone worker done.
 * ks->lock held.
 */
static void ksnap_install_pause(struct ksnap *ks, struct ksnap_install_arm *arm)
{
	cpus_read_lock();
	arm->paused_ns = ktime_get_ns();
	hrtimer_cancel(&ks->timer);
	arm->ks = ks;
	arm->expires = hrtimer_get_expires(&ks->timer);
	/* It reads ks->cfg without ks->lock; nothing queues it now. */
	cancel_work_sync(&ks->gone_work);
	/* What it had still to log, as a stop does. */
	ksnap_gone_report(ks);
}

/*
 * Arm the timer again, on its CPU (or another online one), for the expiry
 * it had: no period is skipped that the pause did not itself delay (the
 * timer counts those in missed).  Drops cpus_read_lock().
 */
static void ksnap_install_resume(struct ksnap *ks,
				 struct ksnap_install_arm *arm)
{
	int cpu = ks->cpus.armed;

	if (cpu < 0 || !cpu_online(cpu))
		ksnap_cpus_pick(ks, &cpu);
	if (cpu < 0 || !cpu_online(cpu))
		cpu = cpumask_first(cpu_online_mask);
	ks->cpus.armed = cpu;
	smp_call_function_single(cpu, ksnap_install_arm_fn, arm, true);
	cpus_read_unlock();
}

/* A running collection's new set, between two snapshots. */
static int ksnap_install_running(struct ksnap *ks, struct ksnap_config *cfg,
				 unsigned int flags)
{
	const struct ksnap_config *old = ks->cfg;
	struct ksnap_install_move *mv;
	struct ksnap_install_arm arm;
	u32 old_set = ks->set_id;
	u64 old_first;

	mv = kvmalloc(sizeof(*mv), GFP_KERNEL);
	if (!mv)
		return -ENOMEM;
	ksnap_install_map(ks, cfg, mv);
	ksnap_install_pause(ks, &arm);
	ksnap_install_move(ks, cfg, mv);
	ks->set_id++;
	ks->run.set_id = ks->set_id;
	/* The timer is cancelled: head is where the new set's records begin. */
	old_first = ks->run.set_first_pos;
	ks->run.set_first_pos = READ_ONCE(ks->ctrl->head);
	ks->run.set_flags = KSNAP_REC_SET_CHANGED;
	WRITE_ONCE(ks->run.can_shed, !!(flags & KSNAP_INSTALL_CAN_SHED));
	ksnap_ctrl_publish_set(ks);
	ksnap_install_resume(ks, &arm);
	/* From the cancel to the timer armed again: how long sampling paused. */
	ks->follow.set_change_pause_max_ns =
		max(ks->follow.set_change_pause_max_ns,
		    ktime_get_ns() - arm.paused_ns);
	/*
	 * The gone worker the pause cancelled may not have asked for the
	 * release of what the timer saw removed: ask now.
	 */
	queue_work(system_unbound_wq, &ks->release_work);

	/* Logged what the old set saw removed; the worker may run again. */
	ksnap_sets_keep(ks, old, old_set, old_first);
	ksnap_config_free(old);
	kvfree(mv);
	return 0;
}

/**
 * ksnap_install() - make @cfg the configuration
 * @ks: with ks->lock held
 * @cfg: built (config.c), with the record geometry it is to have
 * @flags: KSNAP_INSTALL_PUBLISH: stopped, publish @cfg as a reconfiguration
 *	   (a new, empty, stopped collection); without it a start publishes
 *	   it.  A running collection's set change is always published.
 *
 * Return: 0 (@cfg is ks->cfg; the old one is freed), or, while running,
 * -ENOMEM: @cfg is the caller's then, and nothing changed.
 */
int ksnap_install(struct ksnap *ks, struct ksnap_config *cfg,
		  unsigned int flags)
{
	const struct ksnap_config *old = ks->cfg;

	lockdep_assert_held(&ks->lock);
	if (ks->running)
		return ksnap_install_running(ks, cfg, flags);
	ks->cfg = cfg;
	/* Removals are news again, unless the same cgroups are held. */
	if (!ksnap_cgpattern_same(cfg, old))
		ksnap_gone_reset(ks);
	if (flags & KSNAP_INSTALL_PUBLISH)
		ksnap_ctrl_publish_config(ks);
	else
		/* A new set (ksnap_abi.h "Column sets"), published by the start. */
		ks->set_id++;
	ksnap_config_free(old);
	return 0;
}

/*
 * The timer saw configured cgroups removed (sampler.c, gone.c): let go of
 * them now, not at the next set change or stop.  Their columns keep their
 * last values and their records stay flagged stale, as before the
 * release; a set with patterns also drops them at its next change.
 * Whether named by path or matched, and whatever the set becomes (empty,
 * or over the cap, so never swapped), no removed cgroup nor its memcg
 * stays dying for ksnap.
 */
static void ksnap_install_release_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(work, struct ksnap, release_work);
	const struct ksnap_config *cfg;
	struct ksnap_install_arm arm;
	unsigned int i;
	bool any = false;

	mutex_lock(&ks->lock);
	cfg = ks->cfg;
	if (!ks->running)
		goto out;
	for (i = 0; i < cfg->nr_cgroups; i++)
		any |= test_bit(i, ks->run.gone) &&
		       !ksnap_cgroup_released(&cfg->cgroups[i]);
	if (!any)
		goto out;
	ksnap_install_pause(ks, &arm);
	for (i = 0; i < cfg->nr_cgroups; i++)
		if (test_bit(i, ks->run.gone))
			ksnap_cgroup_release(&cfg->cgroups[i]);
	ksnap_install_resume(ks, &arm);
out:
	mutex_unlock(&ks->lock);
}

void ksnap_install_init(struct ksnap *ks)
{
	INIT_WORK(&ks->release_work, ksnap_install_release_fn);
}

/* Unload: the release worker done (the gone worker, its queuer, first). */
void ksnap_install_uninit(struct ksnap *ks)
{
	cancel_work_sync(&ks->release_work);
}

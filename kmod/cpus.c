// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUs a collection reads live, what the others hold, and the CPU the
 * sampler runs on.
 *
 * A column summed over CPUs is base + the share of each live CPU
 * (snapshot.c).  The live CPUs are the online ones; base is what the
 * offline ones hold, taken when they went offline (or at start): their
 * CPU times, softirq and interrupt counts and cgroup CPU time stay as they
 * were.  Their VM events do not: mm folds a dead CPU's events into a live
 * CPU's.  That fold runs after our callback (CPUHP_PAGE_ALLOC is torn
 * down after CPUHP_BP_PREPARE_DYN), so a CPU that goes offline is read
 * for its VM events alone ("unfolded") until the hotplug operation is
 * over, and then not at all.  A sum stays what a sum over all CPUs would
 * be, at the cost of the online CPUs only, except while mm folds: it adds
 * each event of the dead CPU to a live CPU and then zeroes it, item by
 * item, under no lock a module can take, so a snapshot then may count
 * some events twice.  Such snapshots are flagged KSNAP_REC_CPU_FOLD, and
 * a VM-event column never steps back (sampler.c holds its last value).
 * A CPU's own VM-event column ("pgfault[1]") keeps what the CPU held when
 * it went offline, and adds its count once it is back (vm_offset).
 *
 * The hotplug callbacks run in process context on the CPU driving the
 * operation, with the dead (or not yet started) CPU's values frozen; they
 * take only cpus->lock, a raw spinlock that the timer takes too.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/sched/isolation.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "ksnap.h"

/* Every hotplug operation under way has finished: every fold is done. */
static void ksnap_cpus_fold_fn(struct work_struct *work)
{
	struct ksnap_cpus *cpus = container_of(work, struct ksnap_cpus,
					       fold_work);

	cpus_read_lock();
	raw_spin_lock_irq(&cpus->lock);
	cpumask_clear(&cpus->unfolded);
	raw_spin_unlock_irq(&cpus->lock);
	cpus_read_unlock();
}

/*
 * @cpu's own VM-event columns keep what it holds now: mm is about to fold
 * its events into a live CPU and zero them.  With cpus->lock held.
 */
static void ksnap_cpus_hold_vm(const struct ksnap_config *cfg,
			       struct ksnap_cpus *cpus, int cpu)
{
	const struct ksnap_plan *p = &cfg->plan;
	const unsigned long *ev = per_cpu(vm_event_states, cpu).event;
	unsigned int i;

	for (i = 0; i < p->nr_vm_cpu; i++)
		if (cfg->col[p->vm_cpu[i].col].cpu == cpu)
			cpus->vm_offset[p->vm_cpu[i].col] +=
				READ_ONCE(ev[p->vm_cpu[i].item]);
}

/**
 * ksnap_cpus_down() - @cpu is dead: its share moves into the base
 * @ks: the instance
 * @cpu: a CPU that is offline, its values frozen but for its VM events
 */
void ksnap_cpus_down(struct ksnap *ks, unsigned int cpu)
{
	struct ksnap_cpus *cpus = &ks->cpus;
	unsigned long flags;
	bool was_sampler;

	raw_spin_lock_irqsave(&cpus->lock, flags);
	if (!cpus->active || !cpumask_test_cpu(cpu, &cpus->live)) {
		raw_spin_unlock_irqrestore(&cpus->lock, flags);
		return;
	}
	ksnap_snapshot_cpu(ks->cfg, cpu, false, true, cpus->base);
	ksnap_cpus_hold_vm(ks->cfg, cpus, cpu);
	cpumask_clear_cpu(cpu, &cpus->live);
	/* Still summed for cpu.stat.usage: live | was_live is the same. */
	cpumask_set_cpu(cpu, &cpus->was_live);
	cpumask_set_cpu(cpu, &cpus->unfolded);
	/*
	 * The kernel moves a pinned timer off a dying CPU (when depends on
	 * the kernel: stats' cpu may show it already).
	 */
	was_sampler = cpus->armed == cpu;
	if (was_sampler)
		cpus->armed = -1;
	raw_spin_unlock_irqrestore(&cpus->lock, flags);
	schedule_work(&cpus->fold_work);
	if (was_sampler)
		pr_info_ratelimited("cpu: CPU %u, where the sampler ran, went offline: the kernel moved the timer to another CPU (stats: cpu); the next start returns it to the chosen CPU\n",
				    cpu);
}

/**
 * ksnap_cpus_up() - @cpu is coming online: its share leaves the base
 * @ks: the instance
 * @cpu: a CPU not running yet, its values frozen (VM events folded)
 */
void ksnap_cpus_up(struct ksnap *ks, unsigned int cpu)
{
	struct ksnap_cpus *cpus = &ks->cpus;
	const struct ksnap_plan *p = &ks->cfg->plan;
	u64 *share = cpus->scratch;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&cpus->lock, flags);
	if (cpus->active && !cpumask_test_cpu(cpu, &cpus->live)) {
		memset(share, 0, sizeof(cpus->scratch));
		ksnap_snapshot_cpu(ks->cfg, cpu, false, true, share);
		for (i = 0; i < p->nr_cpustat; i++)
			cpus->base[p->cpustat[i].col] -= share[p->cpustat[i].col];
		for (i = 0; i < p->nr_percpu; i++)
			cpus->base[p->percpu[i]] -= share[p->percpu[i]];
		cpumask_clear_cpu(cpu, &cpus->unfolded);
		cpumask_set_cpu(cpu, &cpus->live);
		/* One offline since before the start: a new CPU summed. */
		if (!cpumask_test_and_clear_cpu(cpu, &cpus->was_live))
			cpus->live_gen++;
	}
	raw_spin_unlock_irqrestore(&cpus->lock, flags);
}

static int ksnap_cpu_prepare(unsigned int cpu, struct hlist_node *node)
{
	ksnap_cpus_up(hlist_entry(node, struct ksnap, cpus.node), cpu);
	return 0;
}

static int ksnap_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	ksnap_cpus_down(hlist_entry(node, struct ksnap, cpus.node), cpu);
	return 0;
}

/**
 * ksnap_cpus_start() - the live CPUs and the base for a new collection
 * @ks: with ks->lock held and cpus_read_lock(): no CPU comes or goes
 *	(lockdep_assert_cpus_held() is not exported to modules)
 * @armed: the CPU the timer is armed on
 */
void ksnap_cpus_start(struct ksnap *ks, int armed)
{
	struct ksnap_cpus *cpus = &ks->cpus;
	int cpu;

	/*
	 * The offline CPUs' shares, and the base, with interrupts on: no CPU
	 * comes or goes (cpus_read_lock()), the hotplug callbacks, the only
	 * other users of scratch and writers of base, are held off with them,
	 * and the timer is not armed.  The lock orders the live set against
	 * the fold worker, which changes unfolded alone.
	 */
	memset(cpus->scratch, 0, sizeof(cpus->scratch));
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			ksnap_snapshot_cpu(ks->cfg, cpu, false, true,
					   cpus->scratch);
	memcpy(cpus->base, cpus->scratch, sizeof(cpus->base));
	memset(cpus->vm_offset, 0, sizeof(cpus->vm_offset));
	raw_spin_lock_irq(&cpus->lock);
	cpumask_copy(&cpus->live, cpu_online_mask);
	cpumask_clear(&cpus->was_live);
	cpumask_clear(&cpus->unfolded);
	cpus->armed = armed;
	cpus->active = true;
	raw_spin_unlock_irq(&cpus->lock);
}

/* The collection has stopped: hotplug no longer needs to keep a base. */
void ksnap_cpus_stop(struct ksnap *ks)
{
	raw_spin_lock_irq(&ks->cpus.lock);
	ks->cpus.active = false;
	raw_spin_unlock_irq(&ks->cpus.lock);
}

/**
 * ksnap_cpus_check() - can @cpu be the sampler's CPU?
 * @cpu: a CPU number, or -1 (the first online housekeeping CPU)
 *
 * Return: 0, or -EINVAL with a log line for a CPU that does not exist or
 * is offline.
 */
int ksnap_cpus_check(int cpu)
{
	if (cpu == -1)
		return 0;
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu)) {
		pr_err_ratelimited("cpu: no CPU %d (possible: %*pbl; -1 picks one)\n",
				   cpu, cpumask_pr_args(cpu_possible_mask));
		return -EINVAL;
	}
	if (!cpu_online(cpu)) {
		pr_err_ratelimited("cpu: CPU %d is offline (online: %*pbl): bring it online or choose another\n",
				   cpu, cpumask_pr_args(cpu_online_mask));
		return -EINVAL;
	}
	return 0;
}

/**
 * ksnap_cpus_pick() - the CPU to start the sampler on
 * @ks: ks->cpu is the choice; with cpus_read_lock() held
 * @cpu: the CPU
 *
 * Return: 0, or -EINVAL when the chosen CPU is offline now.
 */
int ksnap_cpus_pick(const struct ksnap *ks, int *cpu)
{
	unsigned int hk;

	if (ks->cpu >= 0) {
		*cpu = ks->cpu;
		return ksnap_cpus_check(ks->cpu);
	}
	hk = cpumask_first_and(housekeeping_cpumask(KSNAP_HK_TIMER),
			       cpu_online_mask);
	*cpu = hk < nr_cpu_ids ? hk : cpumask_first(cpu_online_mask);
	return 0;
}

int ksnap_cpus_init(struct ksnap *ks)
{
	struct ksnap_cpus *cpus = &ks->cpus;
	int ret;

	raw_spin_lock_init(&cpus->lock);
	INIT_WORK(&cpus->fold_work, ksnap_cpus_fold_fn);
	ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN, "ksnap:cpus",
				      ksnap_cpu_prepare, ksnap_cpu_dead);
	if (ret < 0)
		return ret;
	cpus->hp_state = ret;
	ret = cpuhp_state_add_instance_nocalls(cpus->hp_state, &cpus->node);
	if (ret) {
		cpuhp_remove_multi_state(cpus->hp_state);
		return ret;
	}
	return 0;
}

void ksnap_cpus_uninit(struct ksnap *ks)
{
	struct ksnap_cpus *cpus = &ks->cpus;

	cpuhp_state_remove_instance_nocalls(cpus->hp_state, &cpus->node);
	cpuhp_remove_multi_state(cpus->hp_state);
	cancel_work_sync(&cpus->fold_work);
}

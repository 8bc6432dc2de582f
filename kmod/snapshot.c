// SPDX-License-Identifier: GPL-2.0
/*
 * One snapshot by the read plan (plan.c): every summed column is its base
 * (what the CPUs not read live hold, cpus.c) plus the share of each live
 * CPU, each CPU walked once for all of them; every other column is read
 * once.  The cost grows with the online CPUs, not the possible ones.
 * Hardirq-safe: called from the timer, or with interrupts off.
 */
#include <linux/kernel_stat.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/vmstat.h>

#include "ksnap.h"
#include "readers.h"

/**
 * ksnap_snapshot_cpu() - add one CPU's share of the summed columns
 * @cfg: the configuration
 * @cpu: the CPU
 * @vm: add its VM events
 * @other: add the other summed columns
 * @acc: one value per column, added to
 */
void ksnap_snapshot_cpu(const struct ksnap_config *cfg, int cpu, bool vm,
			bool other, u64 *acc)
{
	const struct ksnap_plan *p = &cfg->plan;
	const struct ksnap_source *src;
	const unsigned long *ev;
	const u64 *cs;
	unsigned int i;

	if (vm && p->nr_vm) {
		ev = per_cpu(vm_event_states, cpu).event;
		for (i = 0; i < p->nr_vm; i++)
			acc[p->vm[i].col] += READ_ONCE(ev[p->vm[i].item]);
	}
	if (!other)
		return;
	if (p->nr_cpustat) {
		cs = kcpustat_cpu(cpu).cpustat;
		for (i = 0; i < p->nr_cpustat; i++)
			acc[p->cpustat[i].col] +=
				READ_ONCE(cs[p->cpustat[i].item]);
	}
	for (i = 0; i < p->nr_percpu; i++) {
		src = &cfg->col[p->percpu[i]];
		/* Released: frozen, its value is the sampler's (sampler.c). */
		if (src->cg && ksnap_cgroup_released(src->cg))
			continue;
		acc[p->percpu[i]] += src->metric->read_cpu(src->metric,
							   src->cg, cpu);
	}
}

/* The summed columns' bases, before the live CPUs are added. */
static void ksnap_snapshot_base(const struct ksnap_plan *p,
				const u64 *base, u64 *values)
{
	unsigned int i;

	for (i = 0; i < p->nr_vm; i++)
		values[p->vm[i].col] = base[p->vm[i].col];
	for (i = 0; i < p->nr_cpustat; i++)
		values[p->cpustat[i].col] = base[p->cpustat[i].col];
	for (i = 0; i < p->nr_percpu; i++)
		values[p->percpu[i]] = base[p->percpu[i]];
}

/*
 * One CPU's VM events: what it held when it last went offline (mm then
 * folds them into a live CPU and zeroes them), plus its count while it is
 * live.  So the column never steps back to 0.  With cpus->lock held.
 * Returns KSNAP_REC_CPU_OFFLINE when a column's CPU is not live.
 */
static u32 ksnap_snapshot_vm_cpu(const struct ksnap_config *cfg,
				 const struct ksnap_cpus *cpus, u64 *values)
{
	const struct ksnap_plan *p = &cfg->plan;
	u32 flags = 0;
	unsigned int i;

	for (i = 0; i < p->nr_vm_cpu; i++) {
		unsigned int col = p->vm_cpu[i].col;
		int cpu = cfg->col[col].cpu;
		u64 v = cpus->vm_offset[col];

		if (cpumask_test_cpu(cpu, &cpus->live))
			v += READ_ONCE(per_cpu(vm_event_states, cpu)
				       .event[p->vm_cpu[i].item]);
		else
			flags |= KSNAP_REC_CPU_OFFLINE;
		values[col] = v;
	}
	return flags;
}

/*
 * A column read once: cpu.stat.usage, user and system over the live CPUs
 * (and those that went offline while running) with their cgroup's state
 * when there is one (@cg_usage, by cgroup index: readers.c, cgusage.h).
 * With cpus->lock held: the CPUs summed over do not change under the read.
 */
static u64 ksnap_snapshot_single(const struct ksnap_source *src,
				 const struct ksnap_cpus *cpus,
				 struct ksnap_cg_usage *cg_usage)
{
	const struct ksnap_metric *m = src->metric;

	if (!cg_usage || !src->cg || ksnap_cgroup_released(src->cg))
		return ksnap_metric_read(m, src->cg, src->cpu);
	if (m->read == ksnap_read_cg_usage)
		return ksnap_read_cg_usage_run(src->cg, cpus,
					       &cg_usage[src->cg_idx]);
	if (m->read == ksnap_read_cg_user || m->read == ksnap_read_cg_system)
		return ksnap_read_cg_cputime_run(m, src->cg, cpus,
						 &cg_usage[src->cg_idx]);
	return ksnap_metric_read(m, src->cg, src->cpu);
}

/**
 * ksnap_snapshot() - every column's value now
 * @cfg: the configuration
 * @cpus: the CPUs read live and the others' base
 * @cg_usage: the sampler's state of each cgroup (struct ksnap_run), or
 *	NULL outside the sampling path (each read taken as it comes)
 * @values: cfg->nr_columns values
 *
 * Return: record flags: KSNAP_REC_CPU_FOLD while a CPU that went offline
 * has VM events mm has not folded yet (a sum may count some of them twice
 * then: mm adds them to a live CPU, then zeroes them, item by item, under
 * no lock of ours); KSNAP_REC_CPU_OFFLINE when a per-CPU column's CPU is
 * offline.
 */
u32 ksnap_snapshot(const struct ksnap_config *cfg, struct ksnap_cpus *cpus,
		   struct ksnap_cg_usage *cg_usage, __u64 *values)
{
	const struct ksnap_plan *p = &cfg->plan;
	const struct ksnap_source *src;
	unsigned int i;
	u32 flags = 0;
	int cpu;

	/*
	 * The live set and the base change together (CPU hotplug), and
	 * cpu.stat.usage is summed over that live set: held to the end.
	 */
	raw_spin_lock(&cpus->lock);
	/* A cgroup's CPU columns are read once a snapshot (readers.c). */
	if (!++cpus->snap_seq)
		cpus->snap_seq = 1;
	ksnap_snapshot_base(p, cpus->base, values);
	for_each_cpu(cpu, &cpus->live)
		ksnap_snapshot_cpu(cfg, cpu, true, true, values);
	/* Gone, but their VM events not yet folded into a live CPU. */
	for_each_cpu(cpu, &cpus->unfolded)
		ksnap_snapshot_cpu(cfg, cpu, true, false, values);
	if (!cpumask_empty(&cpus->unfolded))
		flags |= KSNAP_REC_CPU_FOLD;
	flags |= ksnap_snapshot_vm_cpu(cfg, cpus, values);

	for (i = 0; i < p->nr_single; i++) {
		src = &cfg->col[p->single[i]];
		values[p->single[i]] = ksnap_snapshot_single(src, cpus,
							     cg_usage);
		if (src->cpu >= 0 && !cpu_online(src->cpu))
			flags |= KSNAP_REC_CPU_OFFLINE;
	}
	raw_spin_unlock(&cpus->lock);
	return flags;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The counter readers: how each kind of counter is read from the hrtimer
 * callback (hardirq, interrupts off).  They may only read memory, never
 * sleep or take a lock: all_vm_events(), si_meminfo() and
 * kcpustat_cpu_fetch() are not used (they lock, or are not exported on
 * every kernel).  The metric table in metrics.c names them.
 */
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/interrupt.h>
#include <linux/kernel_stat.h>
#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/page_counter.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/psi_types.h>
#include <linux/sched/loadavg.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tick.h>
#include <linux/vmstat.h>

#include "compat.h"
#include "ksnap.h"
#include "readers.h"

/* A VM event (/proc/vmstat) of one CPU, live. */
u64 ksnap_read_vm_event(const struct ksnap_metric *m,
			const struct ksnap_cgroup *cg, int cpu)
{
	return READ_ONCE(per_cpu(vm_event_states, cpu).event[m->item.vm]);
}

/* A zone page state counter, folded about every second. */
u64 ksnap_read_zone_state(const struct ksnap_metric *m,
			  const struct ksnap_cgroup *cg)
{
	return global_zone_page_state(m->item.zone);
}

/*
 * A node page state counter in /proc/vmstat's unit: bytes become pages,
 * and the THP items, kept in pages, are shown in THPs (compat.h).
 */
u64 ksnap_read_node_state(const struct ksnap_metric *m,
			  const struct ksnap_cgroup *cg)
{
	unsigned long v = global_node_page_state_pages(m->item.node);

	return ksnap_vmstat_in_thp(m->item.node) ? v / KSNAP_HPAGE_PMD_NR : v;
}

u64 ksnap_read_meminfo(const struct ksnap_metric *m,
		       const struct ksnap_cgroup *cg)
{
	unsigned long pages;

	if (m->item.other == KSNAP_MEM_TOTAL)
		pages = totalram_pages();
	else
		pages = max_t(long, si_mem_available(), 0);
	return (u64)pages << PAGE_SHIFT;
}

/*
 * As fs/proc/stat.c: NOHZ's live figure when there is one, else kcpustat.
 * The live figure may step back a little; the metric is flagged monotonic
 * and the sampler never shows it so (sampler.c).
 */
static u64 ksnap_read_idle_like(int cpu, enum cpu_usage_stat item)
{
	u64 us = -1ULL;

	if (cpu_online(cpu))
		us = item == CPUTIME_IDLE ? get_cpu_idle_time_us(cpu, NULL) :
		     get_cpu_iowait_time_us(cpu, NULL);
	if (us == -1ULL)
		return READ_ONCE(kcpustat_cpu(cpu).cpustat[item]);
	return us * NSEC_PER_USEC;
}

/* CPU time of one CPU in one state (enum cpu_usage_stat), ns. */
u64 ksnap_read_cpu_time(const struct ksnap_metric *m,
			const struct ksnap_cgroup *cg, int cpu)
{
	if (m->item.cpu == CPUTIME_IDLE || m->item.cpu == CPUTIME_IOWAIT)
		return ksnap_read_idle_like(cpu, m->item.cpu);
	return READ_ONCE(kcpustat_cpu(cpu).cpustat[m->item.cpu]);
}

/* Interrupts handled through the generic IRQ layer on one CPU. */
u64 ksnap_read_intr(const struct ksnap_metric *m,
		    const struct ksnap_cgroup *cg, int cpu)
{
	return kstat_cpu_irqs_sum(cpu);
}

/* Softirqs of one type (item), or of every type (item < 0), on one CPU. */
u64 ksnap_read_softirq(const struct ksnap_metric *m,
		       const struct ksnap_cgroup *cg, int cpu)
{
	u64 sum = 0;
	int i;

	if (m->item.other >= 0)
		return kstat_softirqs_cpu(m->item.other, cpu);
	for (i = 0; i < NR_SOFTIRQS; i++)
		sum += kstat_softirqs_cpu(i, cpu);
	return sum;
}

/* avenrun[item] (fixed point, FSHIFT bits) as thousandths, rounded. */
u64 ksnap_read_loadavg(const struct ksnap_metric *m,
		       const struct ksnap_cgroup *cg)
{
	return ((u64)READ_ONCE(avenrun[m->item.other]) * 1000 + FIXED_1 / 2) >>
	       FSHIFT;
}

u64 ksnap_read_pids(const struct ksnap_metric *m,
		    const struct ksnap_cgroup *cg)
{
	return READ_ONCE(init_pid_ns.pid_allocated) & ~PIDNS_ADDING;
}

#ifdef CONFIG_PSI
/* A pressure total, ns, refreshed about every 2 s. */
static u64 ksnap_psi_total(const struct psi_group *psi, enum psi_states state)
{
	return psi ? READ_ONCE(psi->total[PSI_AVGS][state]) : 0;
}

u64 ksnap_read_psi_system(const struct ksnap_metric *m,
			  const struct ksnap_cgroup *cg)
{
	return ksnap_psi_total(ksnap_psi_system_group(), m->item.psi);
}

u64 ksnap_read_cg_psi(const struct ksnap_metric *m,
		      const struct ksnap_cgroup *cg)
{
	return ksnap_psi_total(cg->psi, m->item.psi);
}
#endif

static u64 ksnap_limit(unsigned long pages)
{
	return pages >= PAGE_COUNTER_MAX ? U64_MAX : (u64)pages * PAGE_SIZE;
}

u64 ksnap_read_memcg(const struct ksnap_metric *m,
		     const struct ksnap_cgroup *cg)
{
	struct mem_cgroup *memcg = cg->memcg;

	switch (m->item.other) {
	case KSNAP_MEMCG_CURRENT:
		return (u64)page_counter_read(&memcg->memory) * PAGE_SIZE;
	case KSNAP_MEMCG_MIN:
		return ksnap_limit(READ_ONCE(memcg->memory.min));
	case KSNAP_MEMCG_LOW:
		return ksnap_limit(READ_ONCE(memcg->memory.low));
	case KSNAP_MEMCG_HIGH:
		return ksnap_limit(READ_ONCE(memcg->memory.high));
	case KSNAP_MEMCG_MAX:
		return ksnap_limit(READ_ONCE(memcg->memory.max));
	case KSNAP_MEMCG_PEAK:
		return (u64)READ_ONCE(memcg->memory.watermark) * PAGE_SIZE;
	case KSNAP_MEMCG_SWAP_CURRENT:
		return (u64)page_counter_read(&memcg->swap) * PAGE_SIZE;
	case KSNAP_MEMCG_SWAP_HIGH:
		return ksnap_limit(READ_ONCE(memcg->swap.high));
	case KSNAP_MEMCG_SWAP_MAX:
		return ksnap_limit(READ_ONCE(memcg->swap.max));
	}
	return 0;
}

/* memory.events keys (enum memcg_memory_event), live. */
u64 ksnap_read_memcg_event(const struct ksnap_metric *m,
			   const struct ksnap_cgroup *cg)
{
	return atomic_long_read(&cg->memcg->memory_events[m->item.memcg_event]);
}

#if KSNAP_HAVE_MEMCG_STAT
/*
 * memory.stat node items: the sum over nodes of the per-node hierarchical
 * statistics (compat.h says how fresh).  item is the node stat item,
 * scale its unit in bytes (1 for *_B, PAGE_SIZE for pages, 1024 for KiB)
 * or 0 for events.
 */
u64 ksnap_read_memcg_stat(const struct ksnap_metric *m,
			  const struct ksnap_cgroup *cg)
{
	long sum = 0;
	int nid;

	for_each_node(nid)
		sum += ksnap_memcg_node_stat(cg->memcg, nid, m->item.node);
	sum = max(sum, 0L);
	return m->scale ? (u64)sum * m->scale : sum;
}

/* cAdvisor's working set: usage less inactive file pages, at least 0. */
static u64 ksnap_working_set(u64 usage, u64 inactive_file)
{
	return usage - min(usage, inactive_file);
}

/*
 * memory.working_set: memory.current less memory.stat's inactive_file
 * (item and scale: NR_INACTIVE_FILE's, read as that metric).  The two
 * are as fresh as each is (compat.h).
 */
u64 ksnap_read_memcg_working_set(const struct ksnap_metric *m,
				 const struct ksnap_cgroup *cg)
{
	return ksnap_working_set((u64)page_counter_read(&cg->memcg->memory) *
				 PAGE_SIZE, ksnap_read_memcg_stat(m, cg));
}
#endif

/*
 * cpu.stat usage of the whole subtree, ns (compat.h: how fresh and over
 * which CPUs), read once over the online CPUs: the sampler reads it with
 * the cgroup's state instead (snapshot.c).
 */
u64 ksnap_read_cg_usage(const struct ksnap_metric *m,
			const struct ksnap_cgroup *cg)
{
	return ksnap_cgroup_usage(cg->cgrp, cpu_online_mask, NULL, 0, NULL);
}

/*
 * The same, from the sampling path: over the CPUs it reads live and those
 * that went offline while it ran (struct ksnap_cpus, under its lock),
 * with the cgroup's state @st; once a snapshot, which cpu.stat.user and
 * cpu.stat.system split.
 */
u64 ksnap_read_cg_usage_run(const struct ksnap_cgroup *cg,
			    const struct ksnap_cpus *cpus,
			    struct ksnap_cg_usage *st)
{
	if (st->usage_seq != cpus->snap_seq) {
		st->usage = ksnap_cgroup_usage(cg->cgrp, &cpus->live,
					       &cpus->was_live,
					       cpus->live_gen, st);
		st->usage_seq = cpus->snap_seq;
	}
	return st->usage;
}

/*
 * cpu.stat user and system, ns: the usage above split in the ticks'
 * ratio, as cpu.stat splits it (cgusage.h).  Read once, with nothing
 * split before; the sampler keeps the split of each cgroup instead, so
 * that neither part steps back (ksnap_read_cg_cputime_run()).
 */
static void ksnap_cg_split(const struct ksnap_cgroup *cg, u64 *user,
			   u64 *system)
{
	u64 usage = ksnap_cgroup_usage(cg->cgrp, cpu_online_mask, NULL, 0,
				       NULL);
	u64 ut, st;

	ksnap_cgroup_cputime(cg->cgrp, cpu_online_mask, NULL, &ut, &st);
	*user = 0;
	*system = 0;
	ksnap_cputime_split(usage, ut, st, user, system);
}

u64 ksnap_read_cg_user(const struct ksnap_metric *m,
		       const struct ksnap_cgroup *cg)
{
	u64 user, system;

	ksnap_cg_split(cg, &user, &system);
	return user;
}

u64 ksnap_read_cg_system(const struct ksnap_metric *m,
			 const struct ksnap_cgroup *cg)
{
	u64 user, system;

	ksnap_cg_split(cg, &user, &system);
	return system;
}

/*
 * The same from the sampling path: the snapshot's usage of the cgroup
 * (ksnap_read_cg_usage_run()), split once a snapshot from the split
 * before (@st).
 */
u64 ksnap_read_cg_cputime_run(const struct ksnap_metric *m,
			      const struct ksnap_cgroup *cg,
			      const struct ksnap_cpus *cpus,
			      struct ksnap_cg_usage *st)
{
	u64 usage = ksnap_read_cg_usage_run(cg, cpus, st), ut, stime;

	if (st->split_seq != cpus->snap_seq) {
		ksnap_cgroup_cputime(cg->cgrp, &cpus->live, &cpus->was_live,
				     &ut, &stime);
		ksnap_cputime_split(usage, ut, stime, &st->user, &st->system);
		st->split_seq = cpus->snap_seq;
	}
	return m->read == ksnap_read_cg_system ? st->system : st->user;
}

/* CPU time of the cgroup's own tasks (not its descendants') on one CPU. */
u64 ksnap_read_cg_usage_self(const struct ksnap_metric *m,
			     const struct ksnap_cgroup *cg, int cpu)
{
	return READ_ONCE(ksnap_cgroup_cpu_bstat(cg->cgrp,
					       cpu)->cputime.sum_exec_runtime);
}

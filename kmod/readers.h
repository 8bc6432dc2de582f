/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counter readers behind the metric table (readers.c).  Each runs in
 * the hrtimer callback: hardirq, interrupts off, no sleeping, no locks.
 */
#ifndef KSNAP_READERS_H
#define KSNAP_READERS_H

#include "ksnap.h"

/* meminfo items (ksnap_read_meminfo). */
enum {
	KSNAP_MEM_TOTAL,
	KSNAP_MEM_AVAILABLE,
};

/* Per-cgroup memory counters (ksnap_read_memcg). */
enum {
	KSNAP_MEMCG_CURRENT,
	KSNAP_MEMCG_MIN,
	KSNAP_MEMCG_LOW,
	KSNAP_MEMCG_HIGH,
	KSNAP_MEMCG_MAX,
	KSNAP_MEMCG_PEAK,
	KSNAP_MEMCG_SWAP_CURRENT,
	KSNAP_MEMCG_SWAP_HIGH,
	KSNAP_MEMCG_SWAP_MAX,
};

u64 ksnap_read_cg_psi(const struct ksnap_metric *m,
		      const struct ksnap_cgroup *cg);
u64 ksnap_read_cg_usage(const struct ksnap_metric *m,
			const struct ksnap_cgroup *cg);
u64 ksnap_read_cg_usage_run(const struct ksnap_cgroup *cg,
			    const struct ksnap_cpus *cpus,
			    struct ksnap_cg_usage *st);
u64 ksnap_read_cg_user(const struct ksnap_metric *m,
		       const struct ksnap_cgroup *cg);
u64 ksnap_read_cg_system(const struct ksnap_metric *m,
			 const struct ksnap_cgroup *cg);
u64 ksnap_read_cg_cputime_run(const struct ksnap_metric *m,
			      const struct ksnap_cgroup *cg,
			      const struct ksnap_cpus *cpus,
			      struct ksnap_cg_usage *st);
u64 ksnap_read_cg_usage_self(const struct ksnap_metric *m,
			     const struct ksnap_cgroup *cg, int cpu);
u64 ksnap_read_cpu_time(const struct ksnap_metric *m,
			const struct ksnap_cgroup *cg, int cpu);
u64 ksnap_read_intr(const struct ksnap_metric *m,
		    const struct ksnap_cgroup *cg, int cpu);
u64 ksnap_read_loadavg(const struct ksnap_metric *m,
		       const struct ksnap_cgroup *cg);
u64 ksnap_read_memcg(const struct ksnap_metric *m, const struct ksnap_cgroup *cg);
u64 ksnap_read_memcg_event(const struct ksnap_metric *m,
			   const struct ksnap_cgroup *cg);
u64 ksnap_read_memcg_working_set(const struct ksnap_metric *m,
				 const struct ksnap_cgroup *cg);
u64 ksnap_read_memcg_stat(const struct ksnap_metric *m,
			  const struct ksnap_cgroup *cg);
u64 ksnap_read_meminfo(const struct ksnap_metric *m,
		       const struct ksnap_cgroup *cg);
u64 ksnap_read_node_state(const struct ksnap_metric *m,
			  const struct ksnap_cgroup *cg);
u64 ksnap_read_pids(const struct ksnap_metric *m, const struct ksnap_cgroup *cg);
u64 ksnap_read_psi_system(const struct ksnap_metric *m,
			  const struct ksnap_cgroup *cg);
u64 ksnap_read_softirq(const struct ksnap_metric *m,
		       const struct ksnap_cgroup *cg, int cpu);
u64 ksnap_read_vm_event(const struct ksnap_metric *m,
			const struct ksnap_cgroup *cg, int cpu);
u64 ksnap_read_zone_state(const struct ksnap_metric *m,
			  const struct ksnap_cgroup *cg);

#endif /* KSNAP_READERS_H */

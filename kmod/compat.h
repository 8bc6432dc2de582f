/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels ksnap is built for: Debian's 5.10
 * (Debian 11), 6.1 (Debian 12) and 6.12 (Debian 12 backports, Debian 13),
 * each also with PREEMPT_RT, 6.1 and 6.12 for arm64, 7.3 (Debian 13
 * backports) and 7.2 (sid).  As in
 * WireGuard's compat layer, the version tests live here and nowhere else,
 * as small wrappers with the newest API's names; the rest of the module is
 * written for the newest kernel.  The architectures differ in no API the
 * module uses: the metric table guards x86's own counters with
 * CONFIG_X86, as it guards any counter with its option.
 *
 * Where a version boundary is not one of the set's, it is the release
 * that changed the API as far as it is known; a wrong guess between two
 * releases of the set breaks the build (a missing name, a type mismatch,
 * -Werror=enum-conversion on the metric table), it never reads the wrong
 * counter.
 */
#ifndef KSNAP_COMPAT_H
#define KSNAP_COMPAT_H

#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/psi_types.h>
#include <linux/sched/isolation.h>
#include <linux/version.h>

#include "cgusage.h"

/*
 * 64-bit kernels only.  The timer reads u64 counters (cgroup base stats,
 * PSI totals, kcpustat, memcg counters) with plain loads, in hardirq,
 * where on a 32-bit kernel each is two loads that a writer can tear
 * apart: a +2^32 step that the sampler's hold on monotonic columns would
 * turn into a long plateau.  The package builds nowhere else either
 * (BUILD_EXCLUSIVE_ARCH in debian/ksnap-dkms.dkms).
 */
#if BITS_PER_LONG != 64
#error "ksnap needs a 64-bit kernel: its timer reads 64-bit counters without their writers' locks"
#endif

/*
 * The metric table's availability: is this kernel at least major.minor?
 * Used as "#if KSNAP_SINCE(6, 1)" around the entries a kernel lacks.
 */
#define KSNAP_SINCE(major, minor) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(major, minor, 0))

/* 5.18: housekeeping types replaced flags. */
#if KSNAP_SINCE(5, 18)
#define KSNAP_HK_TIMER	HK_TYPE_TIMER
#else
#define KSNAP_HK_TIMER	HK_FLAG_TIMER
#endif

/*
 * 6.13: hrtimer_setup() sets the callback with the mode; 6.15 removed
 * hrtimer_init().
 */
#if !KSNAP_SINCE(6, 13)
#include <linux/hrtimer.h>

static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * 6.16: the base CPU statistics' per-CPU part has a structure of its own
 * (rstat_base_cpu); rstat_cpu became the per-subsystem part.
 */
#if KSNAP_SINCE(6, 16)
#define ksnap_rstat_base_cpu(cgrp, cpu)	per_cpu_ptr((cgrp)->rstat_base_cpu, cpu)
#else
#define ksnap_rstat_base_cpu(cgrp, cpu)	per_cpu_ptr((cgrp)->rstat_cpu, cpu)
#endif

static inline struct cgroup_base_stat *
ksnap_cgroup_cpu_bstat(struct cgroup *cgrp, int cpu)
{
	return &ksnap_rstat_base_cpu(cgrp, cpu)->bstat;
}

/*
 * A threaded cgroup (cgroup.type "threaded"): its domain is another.
 * cgroup_is_threaded() is private to kernel/cgroup/cgroup.c on every
 * kernel of the set; dom_cgrp is in struct cgroup on all of them.
 */
static inline bool ksnap_cgroup_threaded(const struct cgroup *cgrp)
{
	return READ_ONCE(cgrp->dom_cgrp) != cgrp;
}

/*
 * cpu.stat's usage of @cgrp's subtree, ns.  The kernel keeps it in two
 * parts: per CPU, the time the cgroup's own tasks ran (bstat); and the sum
 * folded by the last rstat flush (cgrp->bstat), the per-CPU part it took
 * recorded in last_bstat.  Who flushes differs: from 5.13 to 6.15 the
 * memory controller's periodic flush (about every 2 s) flushes the base
 * statistics too; before 5.13 (the memory controller had no rstat yet) and
 * since 6.16 (the base statistics are flushed on their own) only a read of
 * cpu.stat (or a BPF program) does, and css_rstat_flush() is not exported.
 *
 * For a cgroup without children (none live, none dying: a dying child's
 * last flush adds to it, at its free), the value is made live on every
 * kernel: its CPUs' own time plus what the flushes gave it besides
 * (cgusage.h says how, and why that needs @st: the sampler's state of the
 * cgroup, or NULL for a single read from process context, taken as it
 * comes).  For a cgroup with children the value is as of the last flush:
 * a module cannot fold their pending time without the flush's lock, and
 * the description says so.
 *
 * The live part is summed over @cpus and @more (disjoint; @more may be
 * NULL): the sampler's live CPUs and those that went offline while it
 * ran, or the online CPUs for a single read.  A read thus costs the CPUs
 * that were online, not the possible ones (a VM may have 2 of 128), and
 * a CPU that goes offline keeps its part in the sum.  A CPU offline since
 * before the start is left out: its time since the cgroup's last flush is
 * missing until a flush takes it (the flush walks every possible CPU and
 * adds it to the flushed sum; nothing of it is kept apart, so nothing is
 * counted twice).  @cpus_gen tells the sampler's state that the CPUs
 * summed over changed.
 *
 * No barrier: nothing here depends on the order of the reads.  A reading
 * that overlaps a flush gives a wrong K whatever the order, and is not
 * trusted unless the next sample sees the same (cgusage.h).
 */
#if KSNAP_SINCE(5, 13) && !KSNAP_SINCE(6, 16)
#define KSNAP_CG_USAGE_DESC \
	"CPU time of the subtree, ns: live for a cgroup without children (none live or dying); for one with children, as of the last rstat flush (about every 2 s)"
#else
#define KSNAP_CG_USAGE_DESC \
	"CPU time of the subtree, ns: live for a cgroup without children (none live or dying); for one with children, as of the last read of its cpu.stat or a descendant's (this kernel flushes only then: it may be stale)"
#endif
/*
 * Live for a cgroup without children, as of the last flush for one with:
 * the least fresh the catalogue can say, and the description says the
 * rest.
 */
#define KSNAP_CG_USAGE_FRESH	KSNAP_FRESH_2S

/* Add @cpu's flushed part (L) to *@last and its own time (N) to *@own. */
static inline void ksnap_cgroup_usage_cpu(struct cgroup *cgrp, int cpu,
					  u64 *last, u64 *own)
{
	typeof(ksnap_rstat_base_cpu(cgrp, cpu)) rb =
		ksnap_rstat_base_cpu(cgrp, cpu);

	*last += READ_ONCE(rb->last_bstat.cputime.sum_exec_runtime);
	*own += READ_ONCE(rb->bstat.cputime.sum_exec_runtime);
}

static inline u64 ksnap_cgroup_usage(struct cgroup *cgrp,
				     const struct cpumask *cpus,
				     const struct cpumask *more, u32 cpus_gen,
				     struct ksnap_cg_usage *st)
{
	u64 flushed = READ_ONCE(cgrp->bstat.cputime.sum_exec_runtime);
	u64 last = 0, own = 0;
	int cpu;

	if (READ_ONCE(cgrp->nr_descendants) ||
	    READ_ONCE(cgrp->nr_dying_descendants)) {
		if (st)
			ksnap_cg_usage_forget(st, flushed);
		return flushed;
	}
	for_each_cpu(cpu, cpus)
		ksnap_cgroup_usage_cpu(cgrp, cpu, &last, &own);
	for_each_cpu(cpu, more ?: cpu_none_mask)
		ksnap_cgroup_usage_cpu(cgrp, cpu, &last, &own);
	if (!st)
		return own + (flushed - last);
	return ksnap_cg_usage_next(st, flushed - last, own, cpus_gen);
}

/* Add @cpu's user and system time not yet flushed. */
static inline void ksnap_cgroup_cputime_cpu(struct cgroup *cgrp, int cpu,
					    u64 *user, u64 *system)
{
	typeof(ksnap_rstat_base_cpu(cgrp, cpu)) rb =
		ksnap_rstat_base_cpu(cgrp, cpu);

	*user += READ_ONCE(rb->bstat.cputime.utime) -
		 READ_ONCE(rb->last_bstat.cputime.utime);
	*system += READ_ONCE(rb->bstat.cputime.stime) -
		   READ_ONCE(rb->last_bstat.cputime.stime);
}

/*
 * The user and system time of @cgrp's subtree as the scheduler ticks saw
 * them (cpu.stat splits its usage in their ratio, ksnap_cputime_split()):
 * the flushed sums, and with no child, what @cpus and @more (as for
 * ksnap_cgroup_usage()) have not flushed yet.  A read that overlaps a
 * flush may count a CPU's part twice or not at all: it moves the ratio,
 * not the usage, and the split never steps back.
 */
static inline void ksnap_cgroup_cputime(struct cgroup *cgrp,
					const struct cpumask *cpus,
					const struct cpumask *more,
					u64 *user, u64 *system)
{
	int cpu;

	*user = READ_ONCE(cgrp->bstat.cputime.utime);
	*system = READ_ONCE(cgrp->bstat.cputime.stime);
	if (READ_ONCE(cgrp->nr_descendants) ||
	    READ_ONCE(cgrp->nr_dying_descendants))
		return;
	for_each_cpu(cpu, cpus)
		ksnap_cgroup_cputime_cpu(cgrp, cpu, user, system);
	for_each_cpu(cpu, more ?: cpu_none_mask)
		ksnap_cgroup_cputime_cpu(cgrp, cpu, user, system);
}

/*
 * About 7.1: the reclaim counters of /proc/vmstat (pgrefill, pgsteal_*,
 * pgscan_* but pgscan_direct_throttle) moved from the VM events (per-CPU,
 * live) to the node stats (folded about once a second), and what they
 * count changed (docs/kernels.md).  The metric table picks its entry
 * maker with this.
 */
#define KSNAP_RECLAIM_NODE_STATS	KSNAP_SINCE(7, 1)

/*
 * 6.16 removed NR_BOUNCE (no more bounce buffers), 6.17 NR_WRITEBACK_TEMP
 * (FUSE writeback without temporary pages): the metric table offers
 * nr_bounce and nr_writeback_temp before only.
 */
#define KSNAP_HAVE_NR_BOUNCE		(!KSNAP_SINCE(6, 16))
#define KSNAP_HAVE_NR_WRITEBACK_TEMP	(!KSNAP_SINCE(6, 17))

/*
 * 7.0 renamed the balloon options that guard the balloon_* VM events:
 * CONFIG_MEMORY_BALLOON became CONFIG_BALLOON, CONFIG_BALLOON_COMPACTION
 * CONFIG_BALLOON_MIGRATION.
 */
#if KSNAP_SINCE(7, 0)
#define KSNAP_HAVE_BALLOON		IS_ENABLED(CONFIG_BALLOON)
#define KSNAP_HAVE_BALLOON_MIGRATE	IS_ENABLED(CONFIG_BALLOON_MIGRATION)
#else
#define KSNAP_HAVE_BALLOON		IS_ENABLED(CONFIG_MEMORY_BALLOON)
#define KSNAP_HAVE_BALLOON_MIGRATE	IS_ENABLED(CONFIG_BALLOON_COMPACTION)
#endif

/* 6.3: vm_flags is read-only; it changes through these. */
#if !KSNAP_SINCE(6, 3)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * 5.13: the THP items of /proc/vmstat count pages, and /proc/vmstat shows
 * them in THPs; before, they counted THPs.
 */
static inline bool ksnap_vmstat_in_thp(enum node_stat_item item)
{
#if KSNAP_SINCE(5, 13) && IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE)
	return vmstat_item_print_in_thp(item);
#else
	return false;
#endif
}

#if IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE)
#define KSNAP_HPAGE_PMD_NR	HPAGE_PMD_NR
#else
#define KSNAP_HPAGE_PMD_NR	1
#endif

/* memory.stat's THP items in bytes: counted in THPs before 5.13. */
#if KSNAP_SINCE(5, 13)
#define KSNAP_MEMCG_THP_UNIT	PAGE_SIZE
#else
#define KSNAP_MEMCG_THP_UNIT	(PAGE_SIZE * KSNAP_HPAGE_PMD_NR)
#endif

#ifdef CONFIG_PSI
/*
 * A cgroup's pressure: 6.1 made cgroup->psi a pointer and gave psi_group
 * a parent (the system's group is the root of the chain).  On 5.10 it is
 * embedded, and the system's group (psi_system, not exported) cannot be
 * reached: system-wide pressure is not offered there.
 */
#if KSNAP_SINCE(6, 1)
#define KSNAP_HAVE_PSI_SYSTEM	1
static inline struct psi_group *ksnap_cgroup_psi_group(struct cgroup *cgrp)
{
	return cgrp->psi;
}

static inline struct psi_group *ksnap_psi_parent(struct psi_group *psi)
{
	return psi->parent;
}
#else
#define KSNAP_HAVE_PSI_SYSTEM	0
static inline struct psi_group *ksnap_cgroup_psi_group(struct cgroup *cgrp)
{
	return &cgrp->psi;
}

static inline struct psi_group *ksnap_psi_parent(struct psi_group *psi)
{
	return NULL;
}
#endif
#endif /* CONFIG_PSI */

/*
 * memory.stat's per-node items: the hierarchical value of node stat item
 * @item of @memcg on node @nid.  Three layouts, each read only on the
 * kernels it is known for; on others memory.stat.* is not offered
 * (KSNAP_HAVE_MEMCG_STAT 0):
 *  - 5.10: atomic per-node counters in the header, batched (live);
 *  - 6.1: per-node counters in the header, as of the last rstat flush;
 *  - 6.12, 7.2, 7.3: a pointer to a structure private to mm/memcontrol.c,
 *    indexed through a table private to it (memcg_node_stat_items[]),
 *    repeated here for each of them.  No build can check it: memcgproof.c
 *    checks it against the node counters at load, and what disagrees is
 *    not offered.
 */
#if KSNAP_SINCE(5, 10) && !KSNAP_SINCE(5, 11)
#define KSNAP_HAVE_MEMCG_STAT	1
#define KSNAP_MEMCG_STAT_FRESH	KSNAP_FRESH_LIVE
#define KSNAP_MEMCG_STAT_WHEN	"live (per-CPU batches folded)"
static inline long ksnap_memcg_node_stat(struct mem_cgroup *memcg, int nid,
					 enum node_stat_item item)
{
	return atomic_long_read(&memcg->nodeinfo[nid]->lruvec_stat[item]);
}

static inline bool ksnap_memcg_stat_known(enum node_stat_item item)
{
	return true;
}
#elif KSNAP_SINCE(6, 1) && !KSNAP_SINCE(6, 2)
#define KSNAP_HAVE_MEMCG_STAT	1
#define KSNAP_MEMCG_STAT_FRESH	KSNAP_FRESH_2S
#define KSNAP_MEMCG_STAT_WHEN	"as of the last rstat flush"
static inline long ksnap_memcg_node_stat(struct mem_cgroup *memcg, int nid,
					 enum node_stat_item item)
{
	return READ_ONCE(memcg->nodeinfo[nid]->lruvec_stats.state[item]);
}

static inline bool ksnap_memcg_stat_known(enum node_stat_item item)
{
	return true;
}
#elif (KSNAP_SINCE(6, 12) && !KSNAP_SINCE(6, 13)) || \
	(KSNAP_SINCE(7, 2) && !KSNAP_SINCE(7, 4))
#define KSNAP_HAVE_MEMCG_STAT	1
/* Only here does ksnap_memcg_stat_known() look anything up. */
#define KSNAP_MEMCG_STAT_TABLE	1
#define KSNAP_MEMCG_STAT_FRESH	KSNAP_FRESH_2S
#define KSNAP_MEMCG_STAT_WHEN	"as of the last rstat flush"
/*
 * mm/memcontrol.c's memcg_node_stat_items[], in its order: 6.12's (31
 * items with Debian's configuration), 7.2's (47: NR_VMALLOC and the
 * reclaim counters, node stats since about 7.1) and 7.3's (50: 7.3 put
 * NR_VMSCAN_WRITE before NR_VMALLOC, shifting every slot after it, and
 * added PGROTATE_*).
 */
static const enum node_stat_item ksnap_memcg_node_items[] = {
	NR_INACTIVE_ANON, NR_ACTIVE_ANON, NR_INACTIVE_FILE, NR_ACTIVE_FILE,
	NR_UNEVICTABLE, NR_SLAB_RECLAIMABLE_B, NR_SLAB_UNRECLAIMABLE_B,
	WORKINGSET_REFAULT_ANON, WORKINGSET_REFAULT_FILE,
	WORKINGSET_ACTIVATE_ANON, WORKINGSET_ACTIVATE_FILE,
	WORKINGSET_RESTORE_ANON, WORKINGSET_RESTORE_FILE,
	WORKINGSET_NODERECLAIM, NR_ANON_MAPPED, NR_FILE_MAPPED, NR_FILE_PAGES,
	NR_FILE_DIRTY, NR_WRITEBACK, NR_SHMEM, NR_SHMEM_THPS, NR_FILE_THPS,
	NR_ANON_THPS,
#if KSNAP_SINCE(7, 3)
	NR_VMSCAN_WRITE,
#endif
#if KSNAP_SINCE(7, 2)
	NR_VMALLOC,
#endif
	NR_KERNEL_STACK_KB, NR_PAGETABLE, NR_SECONDARY_PAGETABLE,
#ifdef CONFIG_SWAP
	NR_SWAPCACHE,
#endif
#ifdef CONFIG_NUMA_BALANCING
	PGPROMOTE_SUCCESS,
#endif
	PGDEMOTE_KSWAPD, PGDEMOTE_DIRECT, PGDEMOTE_KHUGEPAGED,
#if KSNAP_SINCE(7, 2)
	PGDEMOTE_PROACTIVE, PGSTEAL_KSWAPD, PGSTEAL_DIRECT,
	PGSTEAL_KHUGEPAGED, PGSTEAL_PROACTIVE, PGSTEAL_ANON, PGSTEAL_FILE,
	PGSCAN_KSWAPD, PGSCAN_DIRECT, PGSCAN_KHUGEPAGED, PGSCAN_PROACTIVE,
	PGSCAN_ANON, PGSCAN_FILE,
#endif
#if KSNAP_SINCE(7, 3)
	PGROTATE_ANON, PGROTATE_FILE,
#endif
#if KSNAP_SINCE(7, 2)
	PGREFILL,
#ifdef CONFIG_HUGETLB_PAGE
	NR_HUGETLB,
#endif
#endif
};

/* The index of @item in the private table, or -1. */
static inline int ksnap_memcg_node_index(enum node_stat_item item)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ksnap_memcg_node_items); i++)
		if (ksnap_memcg_node_items[i] == item)
			return i;
	return -1;
}

/* Every memory.stat item of the metric table has an index (KUnit). */
static inline bool ksnap_memcg_stat_known(enum node_stat_item item)
{
	return ksnap_memcg_node_index(item) >= 0;
}

/* memcgproof.c's test hook: read slot i + skew for slot i. */
#ifdef KSNAP_TEST_HOOKS
extern unsigned int ksnap_memcg_table_skew;
#else
#define ksnap_memcg_table_skew 0U
#endif

/*
 * Checked at load against the node counters (memcgproof.c): a slot that
 * disagrees is not offered.
 */
static inline long ksnap_memcg_node_stat(struct mem_cgroup *memcg, int nid,
					 enum node_stat_item item)
{
	/* struct lruvec_stats begins with long state[N]: the hierarchy's. */
	const long *state = (const long *)memcg->nodeinfo[nid]->lruvec_stats;
	int i = ksnap_memcg_node_index(item);

	if (i < 0)
		return 0;
	i = (i + ksnap_memcg_table_skew) % ARRAY_SIZE(ksnap_memcg_node_items);
	return READ_ONCE(state[i]);
}
#else
#define KSNAP_HAVE_MEMCG_STAT	0
#endif

#endif /* KSNAP_COMPAT_H */

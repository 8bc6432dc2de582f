// SPDX-License-Identifier: GPL-2.0
/*
 * The metric registry: the catalogue of every counter ksnap can sample.
 * Adding a counter is one table entry.  Every reader runs in the hrtimer
 * callback (hardirq, interrupts off): it may only read memory, never sleep
 * or take a lock.  all_vm_events(), si_meminfo() and kcpustat_cpu_fetch()
 * are not used (they lock, or are not exported on every kernel).
 *
 * Naming convention (docs/interface.md repeats it):
 *
 *  - /proc/vmstat items keep their /proc/vmstat name exactly: pgfault,
 *    pgscan_kswapd, nr_free_pages, nr_slab_reclaimable...  Only the items
 *    the running kernel's configuration has exist, as in /proc/vmstat.  Page
 *    state is in pages like /proc/vmstat (the *_B slab items are converted
 *    to pages, nr_kernel_stack is KiB), events are counts.
 *  - Other /proc files: "<file>.<key>", the key spelled as in the file:
 *    meminfo.MemTotal, meminfo.MemAvailable (bytes, not kB);
 *    cpu.user ... cpu.guest_nice (the "cpu" line of /proc/stat, in ns, not
 *    USER_HZ ticks); stat.intr, stat.softirq (totals of those /proc/stat
 *    lines); softirqs.TIMER ... (rows of /proc/softirqs); loadavg.1,
 *    loadavg.5, loadavg.15 (x1000: 1500 is a load of 1.50), loadavg.threads;
 *    pressure.<resource>.<some|full> (/proc/pressure/<resource> total=, ns).
 *  - cgroup v2 counters: "<interface file>.<key>" for files with keys,
 *    "<interface file>" for single-value files: memory.current,
 *    memory.events.oom_kill, memory.stat.anon, cpu.stat.usage,
 *    memory.pressure.some.  Values are in the file's unit (bytes) except
 *    times, which are always ns: a key's unit suffix is dropped
 *    (cpu.stat usage_usec -> cpu.stat.usage, in ns).  "max" reads as
 *    U64_MAX.  Column: "memory.current[/a/b]" (field "cgroup").
 *  - Per-CPU columns: a metric whose fields list "cpu" is summed over the
 *    possible CPUs by default; "name[3]" samples CPU 3 only, "name[cpu]"
 *    gives one column per possible CPU (field "cpu").
 *  - Times are ns and flagged KSNAP_COL_NANOSECONDS.  Freshness: live (read
 *    as of the snapshot), tick (scheduler tick), 1s (vmstat fold,
 *    vm.stat_interval), 2s (rstat / PSI aggregation).
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
#include "parse.h"

#include "readers.h"

/*
 * Entry makers.  Descriptions do not repeat the name (the column has it);
 * each states the unit after its last comma.
 */
#define __KSNAP_VM_EVENT(_name, _item, _default) {			\
	.name = _name, .item.vm = _item, .unit = "count",		\
	.desc = "VM event counter of /proc/vmstat, summed over CPUs, count", \
	.flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE,	\
	.by_default = _default, .read_cpu = ksnap_read_vm_event,	\
	.groups = KSNAP_GROUP_VMSTAT,					\
	.monotonic = true,	/* across mm's fold of a dead CPU */	\
}

#define KSNAP_VM_EVENT(_name, _item) __KSNAP_VM_EVENT(_name, _item, false)
#define KSNAP_VM_EVENT_DEFAULT(_name, _item)				\
	__KSNAP_VM_EVENT(_name, _item, true)

#define __KSNAP_ZONE_STATE(_name, _item, _default) {			\
	.name = _name, .item.zone = _item, .unit = "pages",		\
	.desc = "zone page state of /proc/vmstat, all zones, pages",	\
	.freshness = KSNAP_FRESH_1S, .by_default = _default,		\
	.read = ksnap_read_zone_state, .groups = KSNAP_GROUP_VMSTAT,	\
}

#define KSNAP_ZONE_STATE(_name, _item)					\
	__KSNAP_ZONE_STATE(_name, _item, false)
#define KSNAP_ZONE_STATE_DEFAULT(_name, _item)				\
	__KSNAP_ZONE_STATE(_name, _item, true)

#define KSNAP_NODE_PAGES(_name, _item) {				\
	.name = _name, .item.node = _item, .unit = "pages",			\
	.desc = "node page state of /proc/vmstat, all nodes, pages",	\
	.freshness = KSNAP_FRESH_1S, .read = ksnap_read_node_state,	\
	.groups = KSNAP_GROUP_VMSTAT,					\
}

#define KSNAP_NODE_KIB(_name, _item) {					\
	.name = _name, .item.node = _item, .unit = "KiB",			\
	.desc = "node state of /proc/vmstat, all nodes, KiB",		\
	.freshness = KSNAP_FRESH_1S, .read = ksnap_read_node_state,	\
	.groups = KSNAP_GROUP_VMSTAT,					\
}

#define KSNAP_NODE_COUNT(_name, _item) {				\
	.name = _name, .item.node = _item, .unit = "count",			\
	.desc = "node state of /proc/vmstat, all nodes, count",	\
	.freshness = KSNAP_FRESH_1S, .read = ksnap_read_node_state,	\
	.groups = KSNAP_GROUP_VMSTAT,					\
}

#define KSNAP_NODE_EVENT(_name, _item) {				\
	.name = _name, .item.node = _item, .unit = "count",			\
	.desc = "node event counter of /proc/vmstat, all nodes, count",	\
	.flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_1S,	\
	.read = ksnap_read_node_state, .groups = KSNAP_GROUP_VMSTAT,	\
}

/*
 * The reclaim counters (pgrefill, pgsteal_*, pgscan_*): VM events, node
 * stats since about 7.1 (compat.h), with the freshness of their kind.
 */
#if KSNAP_RECLAIM_NODE_STATS
#define KSNAP_RECLAIM_EVENT(_name, _item) KSNAP_NODE_EVENT(_name, _item)
#else
#define KSNAP_RECLAIM_EVENT(_name, _item) KSNAP_VM_EVENT(_name, _item)
#endif

#define __KSNAP_CPU_TIME(_key, _item, _desc, _monotonic) {		\
	.name = "cpu." _key, .item.cpu = _item, .unit = "ns",		\
	.desc = _desc ", /proc/stat cpu line, all CPUs, ns",		\
	.flags = KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS,		\
	.freshness = KSNAP_FRESH_TICK, .read_cpu = ksnap_read_cpu_time,	\
	.monotonic = _monotonic, .groups = KSNAP_GROUP_CPU,		\
}

#define KSNAP_CPU_TIME(_key, _item, _desc)				\
	__KSNAP_CPU_TIME(_key, _item, _desc, false)
/* NOHZ's idle and iowait figures may step back a little (readers.c). */
#define KSNAP_CPU_IDLE_TIME(_key, _item, _desc)				\
	__KSNAP_CPU_TIME(_key, _item, _desc, true)

#define KSNAP_SOFTIRQ(_key, _item) {					\
	.name = "softirqs." _key, .item.other = _item, .unit = "count",	\
	.desc = "softirqs of this type run (/proc/softirqs), count",	\
	.flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE,	\
	.read_cpu = ksnap_read_softirq,					\
}

#define KSNAP_LOADAVG(_key, _item) {					\
	.name = "loadavg." _key, .item.other = _item,			\
	.unit = "load/1000",						\
	.desc = "load average of /proc/loadavg x1000 (5 s updates), load/1000", \
	.freshness = KSNAP_FRESH_LIVE, .read = ksnap_read_loadavg,	\
}

#define KSNAP_PSI(_name, _item) {					\
	.name = _name, .item.psi = _item, .unit = "ns",			\
	.desc = "system stall total of /proc/pressure/ (total=, in us there), ns", \
	.flags = KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS,		\
	.freshness = KSNAP_FRESH_2S, .needs = KSNAP_NEEDS_PSI,		\
	.read = ksnap_read_psi_system,					\
}

#define KSNAP_CG_PSI(_name, _item) {					\
	.name = _name, .item.psi = _item, .unit = "ns",			\
	.desc = "stall total of the cgroup's *.pressure (total=, in us there), ns", \
	.flags = KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS,		\
	.freshness = KSNAP_FRESH_2S, .per_cgroup = true,		\
	.needs = KSNAP_NEEDS_PSI, .read = ksnap_read_cg_psi,		\
}

#define KSNAP_MEMCG(_name, _item, _desc, _default) {			\
	.name = _name, .item.other = _item, .unit = "bytes",		\
	.desc = _desc ", bytes",					\
	.freshness = KSNAP_FRESH_LIVE, .per_cgroup = true,		\
	.needs = KSNAP_NEEDS_MEMCG, .by_default = _default,		\
	.read = ksnap_read_memcg,					\
}

#define KSNAP_MEMCG_EVENT(_name, _item) {				\
	.name = _name, .item.memcg_event = _item, .unit = "count",	\
	.desc = "memory event of the cgroup and its descendants, count", \
	.flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE,	\
	.per_cgroup = true, .needs = KSNAP_NEEDS_MEMCG,			\
	.read = ksnap_read_memcg_event,					\
}

/* An unproven slot's description (memcgproof.c). */
#define KSNAP_MEMCG_UNPROVEN	", its slot unproven (docs/kernels.md)"

#define KSNAP_MEMCG_STAT(_name, _item, _scale) {			\
	.name = _name, .item.node = _item, .unit = "bytes",		\
	.scale = _scale, .freshness = KSNAP_MEMCG_STAT_FRESH,		\
	.desc = "memory.stat item, subtree, " KSNAP_MEMCG_STAT_WHEN ", bytes", \
	.desc_unproven = "memory.stat item, subtree, "			\
		KSNAP_MEMCG_STAT_WHEN KSNAP_MEMCG_UNPROVEN ", bytes",	\
	.per_cgroup = true,						\
	.needs = KSNAP_NEEDS_MEMCG, .read = ksnap_read_memcg_stat,	\
}

#define KSNAP_MEMCG_STAT_EVENT(_name, _item) {				\
	.name = _name, .item.node = _item, .unit = "count",		\
	.desc = "memory.stat event, subtree, " KSNAP_MEMCG_STAT_WHEN ", count", \
	.desc_unproven = "memory.stat event, subtree, "			\
		KSNAP_MEMCG_STAT_WHEN KSNAP_MEMCG_UNPROVEN ", count",	\
	.flags = KSNAP_COL_CUMULATIVE,					\
	.freshness = KSNAP_MEMCG_STAT_FRESH,				\
	.per_cgroup = true, .needs = KSNAP_NEEDS_MEMCG,			\
	.read = ksnap_read_memcg_stat,					\
}

/* memory.working_set (readers.c) */
#define KSNAP_MEMCG_WS \
	"working set as cAdvisor's: memory.current (live) less memory.stat.inactive_file (" \
	KSNAP_MEMCG_STAT_WHEN "), 0 when that is larger"

/* cpu.stat.user and cpu.stat.system (readers.c, cgusage.h) */
#define KSNAP_CG_SPLIT \
	"cpu.stat.usage split in the ratio the scheduler ticks saw, as cpu.stat splits it; the two sum to it"

const struct ksnap_metric ksnap_metrics[] = {
	/* /proc/vmstat events, in vm_event_item.h order, same conditions. */
	KSNAP_VM_EVENT("pgpgin", PGPGIN),
	KSNAP_VM_EVENT("pgpgout", PGPGOUT),
	KSNAP_VM_EVENT("pswpin", PSWPIN),
	KSNAP_VM_EVENT("pswpout", PSWPOUT),
#ifdef CONFIG_ZONE_DMA
	KSNAP_VM_EVENT("pgalloc_dma", PGALLOC_DMA),
#endif
#ifdef CONFIG_ZONE_DMA32
	KSNAP_VM_EVENT("pgalloc_dma32", PGALLOC_DMA32),
#endif
	KSNAP_VM_EVENT("pgalloc_normal", PGALLOC_NORMAL),
#ifdef CONFIG_HIGHMEM
	KSNAP_VM_EVENT("pgalloc_high", PGALLOC_HIGH),
#endif
	KSNAP_VM_EVENT("pgalloc_movable", PGALLOC_MOVABLE),
#if defined(CONFIG_ZONE_DEVICE) && KSNAP_SINCE(6, 0)
	KSNAP_VM_EVENT("pgalloc_device", PGALLOC_DEVICE),
#endif
#ifdef CONFIG_ZONE_DMA
	KSNAP_VM_EVENT("allocstall_dma", ALLOCSTALL_DMA),
#endif
#ifdef CONFIG_ZONE_DMA32
	KSNAP_VM_EVENT("allocstall_dma32", ALLOCSTALL_DMA32),
#endif
	KSNAP_VM_EVENT("allocstall_normal", ALLOCSTALL_NORMAL),
#ifdef CONFIG_HIGHMEM
	KSNAP_VM_EVENT("allocstall_high", ALLOCSTALL_HIGH),
#endif
	KSNAP_VM_EVENT("allocstall_movable", ALLOCSTALL_MOVABLE),
#if defined(CONFIG_ZONE_DEVICE) && KSNAP_SINCE(6, 0)
	KSNAP_VM_EVENT("allocstall_device", ALLOCSTALL_DEVICE),
#endif
#ifdef CONFIG_ZONE_DMA
	KSNAP_VM_EVENT("pgskip_dma", PGSCAN_SKIP_DMA),
#endif
#ifdef CONFIG_ZONE_DMA32
	KSNAP_VM_EVENT("pgskip_dma32", PGSCAN_SKIP_DMA32),
#endif
	KSNAP_VM_EVENT("pgskip_normal", PGSCAN_SKIP_NORMAL),
#ifdef CONFIG_HIGHMEM
	KSNAP_VM_EVENT("pgskip_high", PGSCAN_SKIP_HIGH),
#endif
	KSNAP_VM_EVENT("pgskip_movable", PGSCAN_SKIP_MOVABLE),
#if defined(CONFIG_ZONE_DEVICE) && KSNAP_SINCE(6, 0)
	KSNAP_VM_EVENT("pgskip_device", PGSCAN_SKIP_DEVICE),
#endif
	KSNAP_VM_EVENT("pgfree", PGFREE),
	KSNAP_VM_EVENT("pgactivate", PGACTIVATE),
	KSNAP_VM_EVENT("pgdeactivate", PGDEACTIVATE),
	KSNAP_VM_EVENT("pglazyfree", PGLAZYFREE),
	KSNAP_VM_EVENT_DEFAULT("pgfault", PGFAULT),
	KSNAP_VM_EVENT_DEFAULT("pgmajfault", PGMAJFAULT),
	KSNAP_VM_EVENT("pglazyfreed", PGLAZYFREED),
	KSNAP_RECLAIM_EVENT("pgrefill", PGREFILL),
	KSNAP_VM_EVENT("pgreuse", PGREUSE),
	KSNAP_RECLAIM_EVENT("pgsteal_kswapd", PGSTEAL_KSWAPD),
	KSNAP_RECLAIM_EVENT("pgsteal_direct", PGSTEAL_DIRECT),
#if KSNAP_SINCE(6, 5)
	KSNAP_RECLAIM_EVENT("pgsteal_khugepaged", PGSTEAL_KHUGEPAGED),
#endif
#if KSNAP_SINCE(5, 18) && !KSNAP_SINCE(6, 11)
	/* VM events until they became node stats (below). */
	KSNAP_VM_EVENT("pgdemote_kswapd", PGDEMOTE_KSWAPD),
	KSNAP_VM_EVENT("pgdemote_direct", PGDEMOTE_DIRECT),
#endif
	KSNAP_RECLAIM_EVENT("pgscan_kswapd", PGSCAN_KSWAPD),
	KSNAP_RECLAIM_EVENT("pgscan_direct", PGSCAN_DIRECT),
#if KSNAP_SINCE(6, 5)
	KSNAP_RECLAIM_EVENT("pgscan_khugepaged", PGSCAN_KHUGEPAGED),
#endif
	KSNAP_VM_EVENT("pgscan_direct_throttle", PGSCAN_DIRECT_THROTTLE),
	KSNAP_RECLAIM_EVENT("pgscan_anon", PGSCAN_ANON),
	KSNAP_RECLAIM_EVENT("pgscan_file", PGSCAN_FILE),
	KSNAP_RECLAIM_EVENT("pgsteal_anon", PGSTEAL_ANON),
	KSNAP_RECLAIM_EVENT("pgsteal_file", PGSTEAL_FILE),
#ifdef CONFIG_NUMA
#if KSNAP_SINCE(6, 8)
	KSNAP_VM_EVENT("zone_reclaim_success", PGSCAN_ZONE_RECLAIM_SUCCESS),
#endif
	KSNAP_VM_EVENT("zone_reclaim_failed", PGSCAN_ZONE_RECLAIM_FAILED),
#endif
	KSNAP_VM_EVENT("pginodesteal", PGINODESTEAL),
	KSNAP_VM_EVENT("slabs_scanned", SLABS_SCANNED),
	KSNAP_VM_EVENT("kswapd_inodesteal", KSWAPD_INODESTEAL),
	KSNAP_VM_EVENT("kswapd_low_wmark_hit_quickly", KSWAPD_LOW_WMARK_HIT_QUICKLY),
	KSNAP_VM_EVENT("kswapd_high_wmark_hit_quickly", KSWAPD_HIGH_WMARK_HIT_QUICKLY),
	KSNAP_VM_EVENT("pageoutrun", PAGEOUTRUN),
	KSNAP_VM_EVENT("pgrotated", PGROTATED),
	KSNAP_VM_EVENT("drop_pagecache", DROP_PAGECACHE),
	KSNAP_VM_EVENT("drop_slab", DROP_SLAB),
	KSNAP_VM_EVENT("oom_kill", OOM_KILL),
#ifdef CONFIG_NUMA_BALANCING
	KSNAP_VM_EVENT("numa_pte_updates", NUMA_PTE_UPDATES),
	KSNAP_VM_EVENT("numa_huge_pte_updates", NUMA_HUGE_PTE_UPDATES),
	KSNAP_VM_EVENT("numa_hint_faults", NUMA_HINT_FAULTS),
	KSNAP_VM_EVENT("numa_hint_faults_local", NUMA_HINT_FAULTS_LOCAL),
	KSNAP_VM_EVENT("numa_pages_migrated", NUMA_PAGE_MIGRATE),
#endif
#ifdef CONFIG_MIGRATION
	KSNAP_VM_EVENT("pgmigrate_success", PGMIGRATE_SUCCESS),
	KSNAP_VM_EVENT("pgmigrate_fail", PGMIGRATE_FAIL),
	KSNAP_VM_EVENT("thp_migration_success", THP_MIGRATION_SUCCESS),
	KSNAP_VM_EVENT("thp_migration_fail", THP_MIGRATION_FAIL),
	KSNAP_VM_EVENT("thp_migration_split", THP_MIGRATION_SPLIT),
#endif
#ifdef CONFIG_COMPACTION
	KSNAP_VM_EVENT("compact_migrate_scanned", COMPACTMIGRATE_SCANNED),
	KSNAP_VM_EVENT("compact_free_scanned", COMPACTFREE_SCANNED),
	KSNAP_VM_EVENT("compact_isolated", COMPACTISOLATED),
	KSNAP_VM_EVENT("compact_stall", COMPACTSTALL),
	KSNAP_VM_EVENT("compact_fail", COMPACTFAIL),
	KSNAP_VM_EVENT("compact_success", COMPACTSUCCESS),
	KSNAP_VM_EVENT("compact_daemon_wake", KCOMPACTD_WAKE),
	KSNAP_VM_EVENT("compact_daemon_migrate_scanned", KCOMPACTD_MIGRATE_SCANNED),
	KSNAP_VM_EVENT("compact_daemon_free_scanned", KCOMPACTD_FREE_SCANNED),
#endif
#ifdef CONFIG_HUGETLB_PAGE
	KSNAP_VM_EVENT("htlb_buddy_alloc_success", HTLB_BUDDY_PGALLOC),
	KSNAP_VM_EVENT("htlb_buddy_alloc_fail", HTLB_BUDDY_PGALLOC_FAIL),
#endif
#if defined(CONFIG_CMA) && KSNAP_SINCE(5, 16)
	KSNAP_VM_EVENT("cma_alloc_success", CMA_ALLOC_SUCCESS),
	KSNAP_VM_EVENT("cma_alloc_fail", CMA_ALLOC_FAIL),
#endif
	KSNAP_VM_EVENT("unevictable_pgs_culled", UNEVICTABLE_PGCULLED),
	KSNAP_VM_EVENT("unevictable_pgs_scanned", UNEVICTABLE_PGSCANNED),
	KSNAP_VM_EVENT("unevictable_pgs_rescued", UNEVICTABLE_PGRESCUED),
	KSNAP_VM_EVENT("unevictable_pgs_mlocked", UNEVICTABLE_PGMLOCKED),
	KSNAP_VM_EVENT("unevictable_pgs_munlocked", UNEVICTABLE_PGMUNLOCKED),
	KSNAP_VM_EVENT("unevictable_pgs_cleared", UNEVICTABLE_PGCLEARED),
	KSNAP_VM_EVENT("unevictable_pgs_stranded", UNEVICTABLE_PGSTRANDED),
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	KSNAP_VM_EVENT("thp_fault_alloc", THP_FAULT_ALLOC),
	KSNAP_VM_EVENT("thp_fault_fallback", THP_FAULT_FALLBACK),
	KSNAP_VM_EVENT("thp_fault_fallback_charge", THP_FAULT_FALLBACK_CHARGE),
	KSNAP_VM_EVENT("thp_collapse_alloc", THP_COLLAPSE_ALLOC),
	KSNAP_VM_EVENT("thp_collapse_alloc_failed", THP_COLLAPSE_ALLOC_FAILED),
	KSNAP_VM_EVENT("thp_file_alloc", THP_FILE_ALLOC),
	KSNAP_VM_EVENT("thp_file_fallback", THP_FILE_FALLBACK),
	KSNAP_VM_EVENT("thp_file_fallback_charge", THP_FILE_FALLBACK_CHARGE),
	KSNAP_VM_EVENT("thp_file_mapped", THP_FILE_MAPPED),
	KSNAP_VM_EVENT("thp_split_page", THP_SPLIT_PAGE),
	KSNAP_VM_EVENT("thp_split_page_failed", THP_SPLIT_PAGE_FAILED),
#if KSNAP_SINCE(6, 12)
	KSNAP_VM_EVENT("thp_underused_split_page", THP_UNDERUSED_SPLIT_PAGE),
#endif
	KSNAP_VM_EVENT("thp_deferred_split_page", THP_DEFERRED_SPLIT_PAGE),
	KSNAP_VM_EVENT("thp_split_pmd", THP_SPLIT_PMD),
#if KSNAP_SINCE(5, 12)
	KSNAP_VM_EVENT("thp_scan_exceed_none_pte", THP_SCAN_EXCEED_NONE_PTE),
	KSNAP_VM_EVENT("thp_scan_exceed_swap_pte", THP_SCAN_EXCEED_SWAP_PTE),
	KSNAP_VM_EVENT("thp_scan_exceed_share_pte", THP_SCAN_EXCEED_SHARED_PTE),
#endif
#ifdef CONFIG_HAVE_ARCH_TRANSPARENT_HUGEPAGE_PUD
	KSNAP_VM_EVENT("thp_split_pud", THP_SPLIT_PUD),
#endif
	KSNAP_VM_EVENT("thp_zero_page_alloc", THP_ZERO_PAGE_ALLOC),
	KSNAP_VM_EVENT("thp_zero_page_alloc_failed", THP_ZERO_PAGE_ALLOC_FAILED),
	KSNAP_VM_EVENT("thp_swpout", THP_SWPOUT),
	KSNAP_VM_EVENT("thp_swpout_fallback", THP_SWPOUT_FALLBACK),
#endif
#if KSNAP_HAVE_BALLOON
	KSNAP_VM_EVENT("balloon_inflate", BALLOON_INFLATE),
	KSNAP_VM_EVENT("balloon_deflate", BALLOON_DEFLATE),
#if KSNAP_HAVE_BALLOON_MIGRATE
	KSNAP_VM_EVENT("balloon_migrate", BALLOON_MIGRATE),
#endif
#endif
#ifdef CONFIG_DEBUG_TLBFLUSH
	KSNAP_VM_EVENT("nr_tlb_remote_flush", NR_TLB_REMOTE_FLUSH),
	KSNAP_VM_EVENT("nr_tlb_remote_flush_received", NR_TLB_REMOTE_FLUSH_RECEIVED),
	KSNAP_VM_EVENT("nr_tlb_local_flush_all", NR_TLB_LOCAL_FLUSH_ALL),
	KSNAP_VM_EVENT("nr_tlb_local_flush_one", NR_TLB_LOCAL_FLUSH_ONE),
#endif
#ifdef CONFIG_SWAP
	KSNAP_VM_EVENT("swap_ra", SWAP_RA),
	KSNAP_VM_EVENT("swap_ra_hit", SWAP_RA_HIT),
#if KSNAP_SINCE(6, 12)
	KSNAP_VM_EVENT("swpin_zero", SWPIN_ZERO),
	KSNAP_VM_EVENT("swpout_zero", SWPOUT_ZERO),
#endif
#if defined(CONFIG_KSM) && KSNAP_SINCE(6, 1)
	KSNAP_VM_EVENT("ksm_swpin_copy", KSM_SWPIN_COPY),
#endif
#endif
#if defined(CONFIG_KSM) && KSNAP_SINCE(6, 1)
	KSNAP_VM_EVENT("cow_ksm", COW_KSM),
#endif
#if defined(CONFIG_ZSWAP) && KSNAP_SINCE(5, 19)
	KSNAP_VM_EVENT("zswpin", ZSWPIN),
	KSNAP_VM_EVENT("zswpout", ZSWPOUT),
#endif
#if defined(CONFIG_ZSWAP) && KSNAP_SINCE(6, 8)
	KSNAP_VM_EVENT("zswpwb", ZSWPWB),
#endif
#if defined(CONFIG_X86) && KSNAP_SINCE(5, 18)
	KSNAP_VM_EVENT("direct_map_level2_splits", DIRECT_MAP_LEVEL2_SPLIT),
	KSNAP_VM_EVENT("direct_map_level3_splits", DIRECT_MAP_LEVEL3_SPLIT),
#endif
#if defined(CONFIG_X86) && KSNAP_SINCE(7, 0)
	KSNAP_VM_EVENT("direct_map_level2_collapses", DIRECT_MAP_LEVEL2_COLLAPSE),
	KSNAP_VM_EVENT("direct_map_level3_collapses", DIRECT_MAP_LEVEL3_COLLAPSE),
#endif
#if defined(CONFIG_SWAP) && KSNAP_SINCE(7, 3)
	KSNAP_VM_EVENT("nrswpin", NRSWPIN),
	KSNAP_VM_EVENT("nrswpout", NRSWPOUT),
#endif
	/* /proc/vmstat zone and node page state (mmzone.h order). */
	KSNAP_ZONE_STATE_DEFAULT("nr_free_pages", NR_FREE_PAGES),
#if KSNAP_SINCE(7, 0)
	KSNAP_ZONE_STATE("nr_free_pages_blocks", NR_FREE_PAGES_BLOCKS),
#endif
	KSNAP_ZONE_STATE("nr_zone_inactive_anon", NR_ZONE_INACTIVE_ANON),
	KSNAP_ZONE_STATE("nr_zone_active_anon", NR_ZONE_ACTIVE_ANON),
	KSNAP_ZONE_STATE("nr_zone_inactive_file", NR_ZONE_INACTIVE_FILE),
	KSNAP_ZONE_STATE("nr_zone_active_file", NR_ZONE_ACTIVE_FILE),
	KSNAP_ZONE_STATE("nr_zone_unevictable", NR_ZONE_UNEVICTABLE),
	KSNAP_ZONE_STATE("nr_zone_write_pending", NR_ZONE_WRITE_PENDING),
	KSNAP_ZONE_STATE("nr_mlock", NR_MLOCK),
#if KSNAP_HAVE_NR_BOUNCE
	KSNAP_ZONE_STATE("nr_bounce", NR_BOUNCE),
#endif
#if IS_ENABLED(CONFIG_ZSMALLOC)
	KSNAP_ZONE_STATE("nr_zspages", NR_ZSPAGES),
#endif
	KSNAP_ZONE_STATE("nr_free_cma", NR_FREE_CMA_PAGES),
#if defined(CONFIG_UNACCEPTED_MEMORY) && KSNAP_SINCE(6, 5)
	KSNAP_ZONE_STATE("nr_unaccepted", NR_UNACCEPTED),
#endif
	KSNAP_NODE_PAGES("nr_inactive_anon", NR_INACTIVE_ANON),
	KSNAP_NODE_PAGES("nr_active_anon", NR_ACTIVE_ANON),
	KSNAP_NODE_PAGES("nr_inactive_file", NR_INACTIVE_FILE),
	KSNAP_NODE_PAGES("nr_active_file", NR_ACTIVE_FILE),
	KSNAP_NODE_PAGES("nr_unevictable", NR_UNEVICTABLE),
	KSNAP_NODE_PAGES("nr_slab_reclaimable", NR_SLAB_RECLAIMABLE_B),
	KSNAP_NODE_PAGES("nr_slab_unreclaimable", NR_SLAB_UNRECLAIMABLE_B),
	KSNAP_NODE_PAGES("nr_isolated_anon", NR_ISOLATED_ANON),
	KSNAP_NODE_PAGES("nr_isolated_file", NR_ISOLATED_FILE),
	KSNAP_NODE_COUNT("workingset_nodes", WORKINGSET_NODES),
	KSNAP_NODE_EVENT("workingset_refault_anon", WORKINGSET_REFAULT_ANON),
	KSNAP_NODE_EVENT("workingset_refault_file", WORKINGSET_REFAULT_FILE),
	KSNAP_NODE_EVENT("workingset_activate_anon", WORKINGSET_ACTIVATE_ANON),
	KSNAP_NODE_EVENT("workingset_activate_file", WORKINGSET_ACTIVATE_FILE),
	KSNAP_NODE_EVENT("workingset_restore_anon", WORKINGSET_RESTORE_ANON),
	KSNAP_NODE_EVENT("workingset_restore_file", WORKINGSET_RESTORE_FILE),
	KSNAP_NODE_EVENT("workingset_nodereclaim", WORKINGSET_NODERECLAIM),
	KSNAP_NODE_PAGES("nr_anon_pages", NR_ANON_MAPPED),
	KSNAP_NODE_PAGES("nr_mapped", NR_FILE_MAPPED),
	KSNAP_NODE_PAGES("nr_file_pages", NR_FILE_PAGES),
	KSNAP_NODE_PAGES("nr_dirty", NR_FILE_DIRTY),
	KSNAP_NODE_PAGES("nr_writeback", NR_WRITEBACK),
#if KSNAP_HAVE_NR_WRITEBACK_TEMP
	KSNAP_NODE_PAGES("nr_writeback_temp", NR_WRITEBACK_TEMP),
#endif
	KSNAP_NODE_PAGES("nr_shmem", NR_SHMEM),
	KSNAP_NODE_PAGES("nr_shmem_hugepages", NR_SHMEM_THPS),
	KSNAP_NODE_PAGES("nr_shmem_pmdmapped", NR_SHMEM_PMDMAPPED),
	KSNAP_NODE_PAGES("nr_file_hugepages", NR_FILE_THPS),
	KSNAP_NODE_PAGES("nr_file_pmdmapped", NR_FILE_PMDMAPPED),
	KSNAP_NODE_PAGES("nr_anon_transparent_hugepages", NR_ANON_THPS),
	KSNAP_NODE_EVENT("nr_vmscan_write", NR_VMSCAN_WRITE),
	KSNAP_NODE_EVENT("nr_vmscan_immediate_reclaim", NR_VMSCAN_IMMEDIATE),
	KSNAP_NODE_EVENT("nr_dirtied", NR_DIRTIED),
	KSNAP_NODE_EVENT("nr_written", NR_WRITTEN),
#if KSNAP_SINCE(5, 16)
	KSNAP_NODE_EVENT("nr_throttled_written", NR_THROTTLED_WRITTEN),
#endif
	KSNAP_NODE_PAGES("nr_kernel_misc_reclaimable", NR_KERNEL_MISC_RECLAIMABLE),
	KSNAP_NODE_EVENT("nr_foll_pin_acquired", NR_FOLL_PIN_ACQUIRED),
	KSNAP_NODE_EVENT("nr_foll_pin_released", NR_FOLL_PIN_RELEASED),
	KSNAP_NODE_KIB("nr_kernel_stack", NR_KERNEL_STACK_KB),
#if IS_ENABLED(CONFIG_SHADOW_CALL_STACK)
	KSNAP_NODE_KIB("nr_shadow_call_stack", NR_KERNEL_SCS_KB),
#endif
#if KSNAP_SINCE(5, 11)
	KSNAP_NODE_PAGES("nr_page_table_pages", NR_PAGETABLE),
#else
	/* A zone stat before 5.11. */
	KSNAP_ZONE_STATE("nr_page_table_pages", NR_PAGETABLE),
#endif
#if KSNAP_SINCE(6, 0)
	KSNAP_NODE_PAGES("nr_sec_page_table_pages", NR_SECONDARY_PAGETABLE),
#endif
#if defined(CONFIG_IOMMU_SUPPORT) && KSNAP_SINCE(6, 11)
	KSNAP_NODE_PAGES("nr_iommu_pages", NR_IOMMU_PAGES),
#endif
#if defined(CONFIG_SWAP) && KSNAP_SINCE(5, 12)
	KSNAP_NODE_PAGES("nr_swapcached", NR_SWAPCACHE),
#endif
#if defined(CONFIG_NUMA_BALANCING) && KSNAP_SINCE(6, 0)
	KSNAP_NODE_EVENT("pgpromote_success", PGPROMOTE_SUCCESS),
	KSNAP_NODE_EVENT("pgpromote_candidate", PGPROMOTE_CANDIDATE),
#endif
#if KSNAP_SINCE(6, 11)
	KSNAP_NODE_EVENT("pgdemote_kswapd", PGDEMOTE_KSWAPD),
	KSNAP_NODE_EVENT("pgdemote_direct", PGDEMOTE_DIRECT),
	KSNAP_NODE_EVENT("pgdemote_khugepaged", PGDEMOTE_KHUGEPAGED),
#endif
	/* The node items new since 6.12, as far as 7.2 and 7.3 have them. */
#if KSNAP_SINCE(7, 0)
#ifdef CONFIG_NUMA_BALANCING
	KSNAP_NODE_EVENT("pgpromote_candidate_nrl", PGPROMOTE_CANDIDATE_NRL),
#endif
	KSNAP_NODE_PAGES("nr_vmalloc", NR_VMALLOC),
	KSNAP_NODE_EVENT("pgdemote_proactive", PGDEMOTE_PROACTIVE),
	KSNAP_NODE_EVENT("pgsteal_proactive", PGSTEAL_PROACTIVE),
	KSNAP_NODE_EVENT("pgscan_proactive", PGSCAN_PROACTIVE),
#ifdef CONFIG_HUGETLB_PAGE
	KSNAP_NODE_PAGES("nr_hugetlb", NR_HUGETLB),
#endif
	KSNAP_NODE_PAGES("nr_balloon_pages", NR_BALLOON_PAGES),
	KSNAP_NODE_PAGES("nr_kernel_file_pages", NR_KERNEL_FILE_PAGES),
	KSNAP_NODE_PAGES("nr_gpu_active", NR_GPU_ACTIVE),
	KSNAP_NODE_PAGES("nr_gpu_reclaim", NR_GPU_RECLAIM),
#endif
#if KSNAP_SINCE(7, 3)
	/* 7.3 also counts rotations per LRU, as node events. */
	KSNAP_NODE_EVENT("pgrotate_anon", PGROTATE_ANON),
	KSNAP_NODE_EVENT("pgrotate_file", PGROTATE_FILE),
#endif
	/* /proc/meminfo */
	{
		.name = "meminfo.MemTotal", .item.other = KSNAP_MEM_TOTAL,
		.unit = "bytes", .read = ksnap_read_meminfo,
		.desc = "usable RAM (/proc/meminfo MemTotal), bytes",
		.freshness = KSNAP_FRESH_LIVE,
	},
	{
		.name = "meminfo.MemAvailable",
		.item.other = KSNAP_MEM_AVAILABLE,
		.unit = "bytes", .read = ksnap_read_meminfo,
		.desc = "memory available without swapping (MemAvailable), bytes",
		.freshness = KSNAP_FRESH_1S,
	},
	/* /proc/stat */
	KSNAP_CPU_TIME("user", CPUTIME_USER,
		       "CPU time in user mode, guest time included"),
	KSNAP_CPU_TIME("nice", CPUTIME_NICE,
		       "CPU time in user mode at positive nice, guest_nice included"),
	KSNAP_CPU_TIME("system", CPUTIME_SYSTEM, "CPU time in kernel mode"),
	KSNAP_CPU_IDLE_TIME("idle", CPUTIME_IDLE,
			    "CPU idle time, never stepping back"),
	KSNAP_CPU_IDLE_TIME("iowait", CPUTIME_IOWAIT,
			    "CPU idle time with I/O outstanding, never stepping back"),
	KSNAP_CPU_TIME("irq", CPUTIME_IRQ, "CPU time in hard interrupts"),
	KSNAP_CPU_TIME("softirq", CPUTIME_SOFTIRQ, "CPU time in softirqs"),
	KSNAP_CPU_TIME("steal", CPUTIME_STEAL,
		       "time stolen by the hypervisor"),
	KSNAP_CPU_TIME("guest", CPUTIME_GUEST, "CPU time running guests"),
	KSNAP_CPU_TIME("guest_nice", CPUTIME_GUEST_NICE,
		       "CPU time running niced guests"),
	{
		.name = "stat.intr", .unit = "count",
		.desc = "IRQs via the generic IRQ layer (no x86 LOC/NMI/IPI), count",
		.flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE,
		.read_cpu = ksnap_read_intr,
	},
	{
		.name = "stat.softirq", .item.other = -1, .unit = "count",
		.desc = "softirqs run, all types (/proc/stat softirq), count",
		.flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE,
		.read_cpu = ksnap_read_softirq,
	},
	KSNAP_SOFTIRQ("HI", HI_SOFTIRQ),
	KSNAP_SOFTIRQ("TIMER", TIMER_SOFTIRQ),
	KSNAP_SOFTIRQ("NET_TX", NET_TX_SOFTIRQ),
	KSNAP_SOFTIRQ("NET_RX", NET_RX_SOFTIRQ),
	KSNAP_SOFTIRQ("BLOCK", BLOCK_SOFTIRQ),
	KSNAP_SOFTIRQ("IRQ_POLL", IRQ_POLL_SOFTIRQ),
	KSNAP_SOFTIRQ("TASKLET", TASKLET_SOFTIRQ),
	KSNAP_SOFTIRQ("SCHED", SCHED_SOFTIRQ),
	KSNAP_SOFTIRQ("HRTIMER", HRTIMER_SOFTIRQ),
	KSNAP_SOFTIRQ("RCU", RCU_SOFTIRQ),
	/* /proc/loadavg */
	KSNAP_LOADAVG("1", 0),
	KSNAP_LOADAVG("5", 1),
	KSNAP_LOADAVG("15", 2),
	{
		.name = "loadavg.threads", .unit = "count",
		.desc = "PIDs in use in the initial PID namespace (~threads), count",
		.freshness = KSNAP_FRESH_LIVE, .read = ksnap_read_pids,
	},
#if defined(CONFIG_PSI) && KSNAP_HAVE_PSI_SYSTEM
	/* /proc/pressure/ (CPU full is undefined system-wide) */
	KSNAP_PSI("pressure.cpu.some", PSI_CPU_SOME),
	KSNAP_PSI("pressure.memory.some", PSI_MEM_SOME),
	KSNAP_PSI("pressure.memory.full", PSI_MEM_FULL),
	KSNAP_PSI("pressure.io.some", PSI_IO_SOME),
	KSNAP_PSI("pressure.io.full", PSI_IO_FULL),
#if defined(CONFIG_IRQ_TIME_ACCOUNTING) && KSNAP_SINCE(6, 1)
	KSNAP_PSI("pressure.irq.full", PSI_IRQ_FULL),
#endif
#endif
	/* cgroup v2: memory controller */
	KSNAP_MEMCG("memory.current", KSNAP_MEMCG_CURRENT,
		    "memory charged to the cgroup and its descendants", true),
	KSNAP_MEMCG("memory.min", KSNAP_MEMCG_MIN,
		    "hard protection, U64_MAX for max", false),
	KSNAP_MEMCG("memory.low", KSNAP_MEMCG_LOW,
		    "best-effort protection, U64_MAX for max", false),
	KSNAP_MEMCG("memory.high", KSNAP_MEMCG_HIGH,
		    "throttling limit, U64_MAX for max", false),
	KSNAP_MEMCG("memory.max", KSNAP_MEMCG_MAX,
		    "hard limit, U64_MAX for max", false),
	KSNAP_MEMCG("memory.peak", KSNAP_MEMCG_PEAK,
		    "highest memory.current since creation", false),
#ifdef CONFIG_SWAP
	KSNAP_MEMCG("memory.swap.current", KSNAP_MEMCG_SWAP_CURRENT,
		    "swap charged to the cgroup and its descendants", false),
	KSNAP_MEMCG("memory.swap.high", KSNAP_MEMCG_SWAP_HIGH,
		    "swap throttling limit, U64_MAX for max", false),
	KSNAP_MEMCG("memory.swap.max", KSNAP_MEMCG_SWAP_MAX,
		    "swap hard limit, U64_MAX for max", false),
#endif
	KSNAP_MEMCG_EVENT("memory.events.low", MEMCG_LOW),
	KSNAP_MEMCG_EVENT("memory.events.high", MEMCG_HIGH),
	KSNAP_MEMCG_EVENT("memory.events.max", MEMCG_MAX),
	KSNAP_MEMCG_EVENT("memory.events.oom", MEMCG_OOM),
	KSNAP_MEMCG_EVENT("memory.events.oom_kill", MEMCG_OOM_KILL),
#if KSNAP_SINCE(5, 16)
	KSNAP_MEMCG_EVENT("memory.events.oom_group_kill", MEMCG_OOM_GROUP_KILL),
#endif
#ifdef CONFIG_SWAP
	KSNAP_MEMCG_EVENT("memory.swap.events.high", MEMCG_SWAP_HIGH),
	KSNAP_MEMCG_EVENT("memory.swap.events.max", MEMCG_SWAP_MAX),
	KSNAP_MEMCG_EVENT("memory.swap.events.fail", MEMCG_SWAP_FAIL),
#endif
#if KSNAP_HAVE_MEMCG_STAT
	/* memory.stat items kept per node (mm/memcontrol.c memory_stats[]) */
	KSNAP_MEMCG_STAT("memory.stat.anon", NR_ANON_MAPPED,
			 PAGE_SIZE),
	KSNAP_MEMCG_STAT("memory.stat.file", NR_FILE_PAGES,
			 PAGE_SIZE),
	KSNAP_MEMCG_STAT("memory.stat.kernel_stack", NR_KERNEL_STACK_KB,
			 1024),
#if KSNAP_SINCE(5, 11)
	KSNAP_MEMCG_STAT("memory.stat.pagetables", NR_PAGETABLE,
			 PAGE_SIZE),
#endif
#if KSNAP_SINCE(6, 0)
	KSNAP_MEMCG_STAT("memory.stat.sec_pagetables", NR_SECONDARY_PAGETABLE,
			 PAGE_SIZE),
#endif
	KSNAP_MEMCG_STAT("memory.stat.shmem", NR_SHMEM,
			 PAGE_SIZE),
	KSNAP_MEMCG_STAT("memory.stat.file_mapped", NR_FILE_MAPPED,
			 PAGE_SIZE),
	KSNAP_MEMCG_STAT("memory.stat.file_dirty", NR_FILE_DIRTY,
			 PAGE_SIZE),
	KSNAP_MEMCG_STAT("memory.stat.file_writeback", NR_WRITEBACK,
			 PAGE_SIZE),
#if defined(CONFIG_SWAP) && KSNAP_SINCE(5, 12)
	KSNAP_MEMCG_STAT("memory.stat.swapcached", NR_SWAPCACHE,
			 PAGE_SIZE),
#endif
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	KSNAP_MEMCG_STAT("memory.stat.anon_thp", NR_ANON_THPS,
			 KSNAP_MEMCG_THP_UNIT),
	KSNAP_MEMCG_STAT("memory.stat.file_thp", NR_FILE_THPS,
			 KSNAP_MEMCG_THP_UNIT),
	KSNAP_MEMCG_STAT("memory.stat.shmem_thp", NR_SHMEM_THPS,
			 KSNAP_MEMCG_THP_UNIT),
#endif
	KSNAP_MEMCG_STAT("memory.stat.inactive_anon", NR_INACTIVE_ANON,
			 PAGE_SIZE),
	KSNAP_MEMCG_STAT("memory.stat.active_anon", NR_ACTIVE_ANON,
			 PAGE_SIZE),
	KSNAP_MEMCG_STAT("memory.stat.inactive_file", NR_INACTIVE_FILE,
			 PAGE_SIZE),
	KSNAP_MEMCG_STAT("memory.stat.active_file", NR_ACTIVE_FILE,
			 PAGE_SIZE),
	{
		.name = "memory.working_set", .item.node = NR_INACTIVE_FILE,
		.scale = PAGE_SIZE, .unit = "bytes",
		.freshness = KSNAP_MEMCG_STAT_FRESH,
		.desc = KSNAP_MEMCG_WS ", bytes",
		.desc_unproven = KSNAP_MEMCG_WS KSNAP_MEMCG_UNPROVEN ", bytes",
		.per_cgroup = true, .needs = KSNAP_NEEDS_MEMCG,
		.read = ksnap_read_memcg_working_set,
	},
	KSNAP_MEMCG_STAT("memory.stat.unevictable", NR_UNEVICTABLE,
			 PAGE_SIZE),
	KSNAP_MEMCG_STAT("memory.stat.slab_reclaimable", NR_SLAB_RECLAIMABLE_B,
			 1),
	KSNAP_MEMCG_STAT("memory.stat.slab_unreclaimable", NR_SLAB_UNRECLAIMABLE_B,
			 1),
	KSNAP_MEMCG_STAT_EVENT("memory.stat.workingset_refault_anon",
			       WORKINGSET_REFAULT_ANON),
	KSNAP_MEMCG_STAT_EVENT("memory.stat.workingset_refault_file",
			       WORKINGSET_REFAULT_FILE),
	KSNAP_MEMCG_STAT_EVENT("memory.stat.workingset_activate_anon",
			       WORKINGSET_ACTIVATE_ANON),
	KSNAP_MEMCG_STAT_EVENT("memory.stat.workingset_activate_file",
			       WORKINGSET_ACTIVATE_FILE),
	KSNAP_MEMCG_STAT_EVENT("memory.stat.workingset_restore_anon",
			       WORKINGSET_RESTORE_ANON),
	KSNAP_MEMCG_STAT_EVENT("memory.stat.workingset_restore_file",
			       WORKINGSET_RESTORE_FILE),
	KSNAP_MEMCG_STAT_EVENT("memory.stat.workingset_nodereclaim",
			       WORKINGSET_NODERECLAIM),
#endif /* KSNAP_HAVE_MEMCG_STAT */
	/* cgroup v2: CPU (rstat base statistics: no controller needed) */
	{
		.name = "cpu.stat.usage", .unit = "ns",
		.desc = KSNAP_CG_USAGE_DESC,
		.flags = KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS,
		.freshness = KSNAP_CG_USAGE_FRESH, .per_cgroup = true,
		.needs = KSNAP_NEEDS_NONROOT,
		/* when a cgroup gains children, or a live read is undone */
		.monotonic = true,
		.read = ksnap_read_cg_usage,
	},
	{
		.name = "cpu.stat.user", .unit = "ns",
		.desc = "CPU time of the subtree in user mode, ns: " KSNAP_CG_SPLIT,
		.flags = KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS,
		.freshness = KSNAP_CG_USAGE_FRESH, .per_cgroup = true,
		.needs = KSNAP_NEEDS_NONROOT,
		.monotonic = true,
		.read = ksnap_read_cg_user,
	},
	{
		.name = "cpu.stat.system", .unit = "ns",
		.desc = "CPU time of the subtree in kernel mode, ns: " KSNAP_CG_SPLIT,
		.flags = KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS,
		.freshness = KSNAP_CG_USAGE_FRESH, .per_cgroup = true,
		.needs = KSNAP_NEEDS_NONROOT,
		.monotonic = true,
		.read = ksnap_read_cg_system,
	},
	{
		.name = "cpu.stat.usage_self", .unit = "ns",
		.desc = "CPU time of the cgroup's own tasks (not descendants), ns",
		.flags = KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS,
		.freshness = KSNAP_FRESH_LIVE, .per_cgroup = true,
		.needs = KSNAP_NEEDS_NONROOT,
		.read_cpu = ksnap_read_cg_usage_self,
	},
#ifdef CONFIG_PSI
	KSNAP_CG_PSI("cpu.pressure.some", PSI_CPU_SOME),
#if KSNAP_SINCE(5, 13)
	KSNAP_CG_PSI("cpu.pressure.full", PSI_CPU_FULL),
#endif
	KSNAP_CG_PSI("memory.pressure.some", PSI_MEM_SOME),
	KSNAP_CG_PSI("memory.pressure.full", PSI_MEM_FULL),
	KSNAP_CG_PSI("io.pressure.some", PSI_IO_SOME),
	KSNAP_CG_PSI("io.pressure.full", PSI_IO_FULL),
#if defined(CONFIG_IRQ_TIME_ACCOUNTING) && KSNAP_SINCE(6, 1)
	KSNAP_CG_PSI("irq.pressure.full", PSI_IRQ_FULL),
#endif
#endif
};

const unsigned int ksnap_nr_metrics = ARRAY_SIZE(ksnap_metrics);

/*
 * A released cgroup's value of @m, as read at its release; 0 for a metric
 * it could not give then (the configuration refuses those) or one outside
 * ksnap_metrics[] (a test's).  Hardirq-safe.
 */
static u64 ksnap_metric_frozen(const struct ksnap_metric *m,
			       const struct ksnap_cgroup *cg)
{
	if (m < ksnap_metrics || m >= ksnap_metrics + ksnap_nr_metrics)
		return 0;
	return cg->frozen[m - ksnap_metrics];
}

/**
 * ksnap_metric_read() - one column's value
 * @m: the metric
 * @cg: its cgroup, for a per-cgroup metric
 * @cpu: a CPU, or KSNAP_CPU_SUM for the sum over the possible CPUs
 *
 * Hardirq-safe, as every reader.  The sampler sums over the online CPUs
 * instead (snapshot.c); this is for single reads and for tests.  A
 * released cgroup reads as the values kept at its release.
 */
u64 ksnap_metric_read(const struct ksnap_metric *m,
		      const struct ksnap_cgroup *cg, int cpu)
{
	u64 sum = 0;
	int c;

	if (cg && ksnap_cgroup_released(cg))
		return ksnap_metric_frozen(m, cg);
	if (!m->read_cpu)
		return m->read(m, cg);
	if (cpu >= 0)
		return m->read_cpu(m, cg, cpu);
	for_each_possible_cpu(c)
		sum += m->read_cpu(m, cg, c);
	return sum;
}

/* Index of the metric called @name, or -ENOENT (also if not offered). */
int ksnap_metric_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ksnap_metrics); i++)
		if (!strcmp(ksnap_metrics[i].name, name))
			return ksnap_metric_offered(&ksnap_metrics[i]) ? i :
			       -ENOENT;
	return -ENOENT;
}

/*
 * The pod group: per cgroup, what a container node watches first (its
 * memory use against its limit, OOM kills, CPU usage, pressure), lean
 * enough for a node's cgroups in one set (docs/interface.md).  Those this
 * kernel lacks are left out with the rest of the catalogue.
 */
static const char *const ksnap_pod_metrics[] = {
	"memory.current", "memory.working_set", "memory.max",
	"memory.swap.current",
	"memory.events.high", "memory.events.oom_kill",
	"memory.stat.anon", "memory.stat.file",
	"cpu.stat.usage",
	"cpu.pressure.some", "memory.pressure.some", "memory.pressure.full",
	"io.pressure.some",
};

static bool ksnap_metric_in_pod(const struct ksnap_metric *m)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ksnap_pod_metrics); i++)
		if (!strcmp(m->name, ksnap_pod_metrics[i]))
			return true;
	return false;
}

/* KSNAP_GROUP_* of @m. */
u32 ksnap_metric_groups(const struct ksnap_metric *m)
{
	if (!m->per_cgroup)
		return m->groups;
	return m->groups | KSNAP_GROUP_CONTAINER |
	       (ksnap_metric_in_pod(m) ? KSNAP_GROUP_POD : 0);
}

/* Group number n is bit n - 1 of KSNAP_GROUP_*; "all" has none. */
static const char *const ksnap_group_names[KSNAP_NR_GROUPS] = {
	"all", "vmstat", "cpu", "container", "pod",
};

static_assert(BIT(1 - 1) == KSNAP_GROUP_VMSTAT);
static_assert(BIT(2 - 1) == KSNAP_GROUP_CPU);
static_assert(BIT(3 - 1) == KSNAP_GROUP_CONTAINER);
static_assert(BIT(4 - 1) == KSNAP_GROUP_POD);

/* The number of the group called @name, or -ENOENT. */
int ksnap_group_lookup(const char *name)
{
	unsigned int g;

	for (g = 0; g < KSNAP_NR_GROUPS; g++)
		if (!strcmp(ksnap_group_names[g], name))
			return g;
	return -ENOENT;
}

const char *ksnap_group_name(unsigned int group)
{
	return group < KSNAP_NR_GROUPS ? ksnap_group_names[group] : "?";
}

/* Is @m in group number @group (offered or not)? */
bool ksnap_metric_in_group(const struct ksnap_metric *m, unsigned int group)
{
	if (!group)
		return true;
	return group < KSNAP_NR_GROUPS &&
	       (ksnap_metric_groups(m) & BIT(group - 1));
}

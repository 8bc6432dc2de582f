/* SPDX-License-Identifier: GPL-2.0 */
/* ksnap internal interfaces: one section per file. */
#ifndef KSNAP_H
#define KSNAP_H

#include <linux/bitmap.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/kernel_stat.h>
#include <linux/memcontrol.h>
#include <linux/mmzone.h>
#include <linux/psi_types.h>
#include <linux/vm_event_item.h>
#include <linux/irq_work.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "cgusage.h"
#include "cost.h"
#include "ksnap_abi.h"
#include "parse.h"

struct tracepoint;
#include "ring.h"

/* A skipped match's path in a log line, at most (with its NUL). */
#define KSNAP_SKIPPED_NAME_MAX	128

/* period_us= and the period_us attribute, microseconds. */
#define KSNAP_PERIOD_US_MIN	10
#define KSNAP_PERIOD_US_MAX	1000000
#define KSNAP_PERIOD_US_DEFAULT	1000

struct ksnap_cgroup;
struct cgroup;
struct cgroup_namespace;
struct psi_group;

/* What a metric needs of a configured cgroup. */
enum ksnap_needs {
	KSNAP_NEEDS_NOTHING,
	KSNAP_NEEDS_MEMCG,	/* its own memory controller */
	KSNAP_NEEDS_NONROOT,	/* not the root (no cpu.stat of its own) */
	KSNAP_NEEDS_PSI,	/* pressure stall information on */
};

/*
 * The kernel counter a metric reads, typed by the enum it belongs to: an
 * item moved to another enum (PGDEMOTE_* became node stats in 6.12,
 * NR_PAGETABLE was a zone stat in 5.10) breaks the build under
 * -Werror=enum-conversion (Kbuild) instead of reading the wrong slot.
 */
union ksnap_item {
	enum vm_event_item vm;
	enum zone_stat_item zone;
	enum node_stat_item node;
	enum cpu_usage_stat cpu;
	enum memcg_memory_event memcg_event;
#ifdef CONFIG_PSI
	enum psi_states psi;
#endif
	int other;		/* a reader's own enum (readers.h), softirqs */
};

/* metrics.c: the registry; adding a counter is one table entry. */
struct ksnap_metric {
	const char *name;
	const char *desc;	/* what it counts, and its unit */
	const char *desc_unproven;	/* memory.stat.*: an unproven slot's */
	const char *unit;	/* bytes, pages, KiB, ns, count, ... */
	u32 flags;		/* KSNAP_COL_* */
	u32 freshness;		/* KSNAP_FRESH_* */
	bool per_cgroup;	/* one column per configured cgroup */
	bool by_default;	/* in the list when metrics= is empty */
	u8 needs;		/* enum ksnap_needs */
	bool monotonic;		/* may step back a little: never shown so */
	u8 groups;		/* KSNAP_GROUP_*; per_cgroup gives CONTAINER */
	union ksnap_item item;	/* the reader's argument */
	u32 scale;		/* the reader's unit conversion, if any */
	/*
	 * Called from the hrtimer (hardirq): no sleeping, no locks.  A metric
	 * has read, or read_cpu when it is a sum over CPUs; a global one of
	 * those can also be sampled per CPU (field "cpu").
	 */
	u64 (*read)(const struct ksnap_metric *m,
		    const struct ksnap_cgroup *cg);
	u64 (*read_cpu)(const struct ksnap_metric *m,
			const struct ksnap_cgroup *cg, int cpu);
};

/* A column's CPU selection: a CPU number, or one of these. */
#define KSNAP_CPU_SUM	(-1)	/* "name": the sum over all CPUs */
#define KSNAP_CPU_EACH	(-2)	/* "name[cpu]": a column per possible CPU */

extern const struct ksnap_metric ksnap_metrics[];
extern const unsigned int ksnap_nr_metrics;
int ksnap_metric_lookup(const char *name);
u32 ksnap_metric_groups(const struct ksnap_metric *m);
/* The named groups: "all" is number 0, then one per KSNAP_GROUP_* bit. */
#define KSNAP_NR_GROUPS	5
int ksnap_group_lookup(const char *name);
const char *ksnap_group_name(unsigned int group);
bool ksnap_metric_in_group(const struct ksnap_metric *m, unsigned int group);
u64 ksnap_metric_read(const struct ksnap_metric *m,
		      const struct ksnap_cgroup *cg, int cpu);

/*
 * memcgproof.c: memory.stat.* where read through a copy of a private table
 * (compat.h): checked at load; what disagrees is not offered, what could
 * not be proven is marked so in its description.
 */
enum ksnap_slot {
	KSNAP_SLOT_UNCHECKED,	/* no check ran (or none is needed) */
	KSNAP_SLOT_DROPPED,	/* disagreed, or not trusted: not offered */
	KSNAP_SLOT_UNPROVEN,	/* offered, marked unproven */
	KSNAP_SLOT_PROVEN,	/* both sides agreeing, beyond the tolerance */
};

enum ksnap_slot ksnap_memcg_compare(enum node_stat_item item, long memcg,
				    long node, long slack);
bool ksnap_memcg_decide(const enum node_stat_item *item, u8 *state,
			unsigned int n);
void ksnap_memcg_prove(void);
bool ksnap_metric_offered(const struct ksnap_metric *m);
bool ksnap_metric_unproven(const struct ksnap_metric *m);
const char *ksnap_metric_desc(const struct ksnap_metric *m);

/* psi.c: pressure stall groups, found in process context. */
int ksnap_psi_resolve(void);
struct psi_group *ksnap_psi_system_group(void);
struct psi_group *ksnap_cgroup_psi(struct cgroup *cgrp);

/*
 * cgroup.c: a configured cgroup v2 and the references held on it.  Held
 * from its resolution until it is found removed at a stop, start or
 * reconfiguration: then released (ksnap_cgroup_release()), its references
 * dropped and the values of its per-cgroup metrics kept in frozen.
 */
struct ksnap_cgroup {
	struct cgroup *cgrp;			/* NULL once released */
	u64 id;					/* cgroup_id(), kept when released */
	struct cgroup_subsys_state *memory;	/* own memory css, or NULL */
	struct mem_cgroup *memcg;		/* NULL without memory */
	struct psi_group *psi;			/* NULL when PSI is off */
	/* Released: each metric's value by ksnap_metrics[] index; else NULL */
	u64 *frozen;
	bool had_memcg;		/* released: it had memcg, psi then */
	bool had_psi;
	char path[KSNAP_FIELD_VALUE_MAX];
};

int ksnap_cgroup_get(struct ksnap_cgroup *cg, const char *path);
void ksnap_cgroup_hold(struct ksnap_cgroup *cg, struct cgroup *cgrp,
		       const char *path);
int ksnap_cgroup_dup(struct ksnap_cgroup *dst, const struct ksnap_cgroup *src);
void ksnap_cgroup_put(struct ksnap_cgroup *cg);
bool ksnap_cgroup_release(struct ksnap_cgroup *cg);
bool ksnap_cgroup_has(const struct ksnap_cgroup *cg, int needs);
bool ksnap_cgroup_is_threaded(const struct ksnap_cgroup *cg);
const char *ksnap_cgroup_no_memory_why(const struct ksnap_cgroup *cg);
bool ksnap_cgroup_dying(const struct ksnap_cgroup *cg);
bool ksnap_cgroup_memory_gone(const struct ksnap_cgroup *cg);
bool ksnap_cgroup_memory_moved(const struct ksnap_cgroup *cg);
bool ksnap_cgroup_memcg_changed(const struct ksnap_cgroup *a,
				const struct ksnap_cgroup *b);

/* Removed and its references dropped: it reads as its frozen values. */
static inline bool ksnap_cgroup_released(const struct ksnap_cgroup *cg)
{
	return cg->frozen;
}

/*
 * plan.c: how a configuration's columns are read.  A column summed over
 * CPUs is read CPU by CPU, each CPU once for all such columns, and only
 * for the CPUs online (cpus.c keeps what the others hold): the VM events
 * and the CPU times straight from their per-CPU arrays, the others through
 * read_cpu().  Every other column is read once.
 */
struct ksnap_plan_item {
	u16 col;		/* column */
	u16 item;		/* enum vm_event_item or cpu_usage_stat */
};

struct ksnap_plan {
	u16 nr_vm, nr_cpustat, nr_percpu, nr_single, nr_vm_cpu;
	struct ksnap_plan_item vm[KSNAP_MAX_COLUMNS];
	/* One CPU's VM events ("pgfault[1]"): held across its hotplug. */
	struct ksnap_plan_item vm_cpu[KSNAP_MAX_COLUMNS];
	struct ksnap_plan_item cpustat[KSNAP_MAX_COLUMNS];
	u16 percpu[KSNAP_MAX_COLUMNS];
	u16 single[KSNAP_MAX_COLUMNS];
	u16 lines_per_cpu;	/* cache lines the summed columns touch */
};

/*
 * config.c: what is sampled.  Built whole, published while stopped, and
 * never written again but for its removed cgroups, released while stopped
 * (ksnap_sampler_release_gone()): what the timer writes lives in struct
 * ksnap_run.
 */
struct ksnap_source {
	const struct ksnap_metric *metric;
	const struct ksnap_cgroup *cg;	/* NULL for a global metric */
	u16 cg_idx;			/* index of cg in cgroups[] */
	s16 cpu;			/* a CPU, or KSNAP_CPU_SUM */
};

struct ksnap_config {
	char *metrics_arg;	/* canonical list as given; "" = default */
	char *cgroups_arg;	/* canonical list */
	unsigned int nr_metrics;
	u16 metric[KSNAP_MAX_COLUMNS];
	s16 metric_cpu[KSNAP_MAX_COLUMNS];	/* KSNAP_CPU_* or a CPU */
	unsigned int nr_cgroups;
	struct ksnap_cgroup *cgroups;
	/* cgroup patterns: how many, the namespace paths are relative to */
	unsigned int nr_patterns;
	struct cgroup_namespace *cgns;
	DECLARE_BITMAP(matched, KSNAP_MAX_CGROUPS);	/* from a pattern */
	/*
	 * A running collection's expansion (follow.c): patterns add at most
	 * cg_limit cgroups in all, the others skipped and counted here.
	 */
	unsigned int cg_limit;	/* KSNAP_CG_NO_LIMIT: an error past the most */
	unsigned int nr_skipped;
	/* The first of them, its path cut to fit, for the log; or "" */
	char skipped[KSNAP_SKIPPED_NAME_MAX];
	/* Matches without what a selected metric needs, left out (config.c) */
	unsigned int nr_unreadable;
	/* Matches still being made, left to a later walk (cgexpand.c) */
	unsigned int nr_pending;
	/* Known before the walk (a rebuild): they take none of cg_limit */
	bool leave_memoryless;
	/* Columns the records have room for: more with patterns (follow.c) */
	unsigned int cap_columns;
	unsigned int nr_columns;
	u32 record_size;
	u32 nr_records;
	struct ksnap_source col[KSNAP_MAX_COLUMNS];
	struct ksnap_plan plan;
};

/* cg_limit: KSNAP_MAX_CGROUPS, and more matches are an error. */
#define KSNAP_CG_NO_LIMIT	UINT_MAX

struct ksnap_config *ksnap_config_build(const char *metrics,
					const char *cgroups,
					const struct ksnap_layout *l,
					const struct ksnap_config *prev);
struct ksnap_config *ksnap_config_rebuild(const struct ksnap_config *cur,
					  const struct ksnap_layout *l,
					  unsigned int cg_limit);
void ksnap_config_free(const struct ksnap_config *cfg);
bool ksnap_config_offered(const struct ksnap_config *cfg);

/* cgexpand.c: cgroup patterns expanded (cgpattern.h). */
struct cgroup_namespace *ksnap_cgpattern_ns_get(const struct ksnap_config *from);
void ksnap_cgpattern_ns_put(struct cgroup_namespace *ns);
unsigned int ksnap_cgpattern_depth(void);
int ksnap_cgpattern_expand(struct ksnap_config *cfg,
			   const char *const *entries, unsigned int nr,
			   bool quiet);
int ksnap_cgpattern_keep_path(const struct ksnap_config *cur,
			      struct ksnap_cgroup *cg, const char *path);
int ksnap_cgpattern_find(const struct ksnap_config *cfg,
			 const struct ksnap_cgroup *cg);
bool ksnap_cgpattern_same(const struct ksnap_config *a,
			  const struct ksnap_config *b);
int ksnap_config_check_period(unsigned int period_us);
int ksnap_config_check_wake_ms(unsigned int wake_ms);
unsigned int ksnap_config_cap_columns(const struct ksnap_config *cfg,
				      const struct ksnap_layout *l);
struct kernel_param;
int ksnap_param_set_range(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max, const char *unit);

/*
 * sampler.c: the state of a running collection.  Set at start, in process
 * context; then written only by the sampling path (the timer, and the last
 * snapshot at stop), except where a field says otherwise.
 */
struct ksnap_run {
	u64 start_mono_ns;
	u64 start_position;	/* head at start (ksnap_abi.h "Positions") */
	u32 slot;		/* head's slot: head % nr_records */
	u32 set_id;		/* the column set of its records */
	/* its first record's position; written by a set change (install.c) */
	u64 set_first_pos;
	u32 wake_mark;		/* unread records that wake a reader */
	u32 unwoken;		/* overwrite: records since the last wake-up */
	DECLARE_BITMAP(gone, KSNAP_MAX_CGROUPS);	/* cgroups seen removed */
	/* cgroups whose memory controller was seen disabled */
	DECLARE_BITMAP(memory_gone, KSNAP_MAX_CGROUPS);
	u64 last[KSNAP_MAX_COLUMNS];	/* each column's last value */
	/* cpu.stat.usage made live, by cgroup (cgusage.h) */
	struct ksnap_cg_usage cg_usage[KSNAP_MAX_CGROUPS];
	/* The bound on a snapshot's read (cost.h), by the timer: */
	u64 read_end_ns;	/* when the last read ended */
	u64 recent_start_ns;	/* this second's reads: since */
	struct ksnap_cost_window cost;	/* and what they were */
	/*
	 * Periods from one read to the next, 1 unless thinned (cost.h); read
	 * by stats/stride.  The verdict the thin worker logs; the stride
	 * it last logged, and whether it said reads are over at that
	 * stride (the worker's, under ks->lock).
	 */
	u32 stride;
	/* the bound at stride 1, which admission (follow.c) counts by */
	u64 base_bound_ns;
	int thin_verdict;
	u32 thin_logged;
	bool over_logged;
	u32 set_flags;		/* KSNAP_REC_SET_CHANGED for the next record */
	/*
	 * Admission (follow.c), written by process context, read by the
	 * timer: a set change's most columns now, and what the bound
	 * admitted at start; whether the set has cgroups it can shed; what
	 * the timer asks of the admission worker (enum ksnap_cost_verdict).
	 */
	unsigned int cap_columns;
	unsigned int admit_columns;
	bool can_shed;
	int verdict;
	u64 price_ns;		/* one cgroup's columns' read (follow.c) */
	bool price_at_root;	/* measured on the namespace's root */
	unsigned int start_columns;	/* the start set's */
	unsigned int shed_columns;	/* what the last shed took */
};

/*
 * follow.c: a running collection's cgroup patterns expanded again every
 * discover_ms.  Counters of the collection, reset at its start (stats/),
 * written with ks->lock held.
 */
struct ksnap_follow_stats {
	u64 set_changes;	/* sets swapped in while running */
	u64 cgroups_found;	/* cgroups added by those set changes */
	u64 cgroups_removed;	/* cgroups dropped by them */
	u64 cgroups_skipped;	/* matches past the capacity, at the last */
	u64 cgroups_unreadable;	/* matches a metric cannot read, the last */
	u64 rescans;		/* rescans whose whole set is the running one */
	u64 event_rescans;	/* rescans started by cgroup events */
	u64 sheds;		/* times the sampler shed cgroups */
	u64 regrows;		/* times it took shed cgroups back */
	u64 columns_admitted;	/* a set change's most columns now */
	u64 cgroup_price_ns;	/* one more cgroup's read, at start */
	u64 set_change_pause_max_ns;	/* the longest timer pause (install.c) */
	u64 set_change_waits;	/* rescans put off for the reader (follow.c) */
};

/* A set swapped out while running: its columns, for KSNAP_IOC_COLUMN. */
struct ksnap_old_col {
	const struct ksnap_metric *metric;
	s16 cpu;
	s16 cg;			/* index into paths, or -1 */
};

struct ksnap_old_set {
	u32 set_id;		/* 0: an empty slot */
	u64 first_pos;		/* its first record's position */
	unsigned int nr_columns;
	struct ksnap_old_col *col;
	/* Each cgroup's path, NUL-terminated, at its offset in paths */
	u32 *path_at;
	char *paths;
};

/* The sets swapped out that KSNAP_IOC_COLUMN still answers for. */
#define KSNAP_OLD_SETS	4
/* cgroup_mkdir and cgroup_rmdir (cgevents.c) */
#define KSNAP_NR_CGEVENTS	2

/*
 * cpus.c: the CPUs a running collection reads live and what the others
 * hold.  The timer reads under the raw spinlock; the CPU-hotplug callbacks
 * update under it.
 */
struct ksnap_cpus {
	raw_spinlock_t lock;
	bool active;		/* a collection runs: hotplug updates base */
	int armed;		/* the CPU the timer was armed on, or -1 */
	struct cpumask live;	/* online CPUs, read live */
	/*
	 * Went offline while the collection ran: cpu.stat.usage still sums
	 * them (compat.h), so that live | was_live changes only when a CPU
	 * offline since before the start comes online.
	 */
	struct cpumask was_live;
	u32 live_gen;		/* changes with live | was_live (cgusage.h) */
	u32 snap_seq;		/* the snapshot under way, never 0 (cgusage.h) */
	struct cpumask unfolded; /* went offline: VM events until folded */
	u64 base[KSNAP_MAX_COLUMNS];	/* the other CPUs' share of a sum */
	/*
	 * A per-CPU VM-event column: what its CPU held when it last went
	 * offline, before mm folded (and zeroed) it; its count since adds.
	 */
	u64 vm_offset[KSNAP_MAX_COLUMNS];
	/* a CPU's share (under lock), or the offline CPUs' (at start) */
	u64 scratch[KSNAP_MAX_COLUMNS];
	struct work_struct fold_work;
	int hp_state;		/* our dynamic hotplug state */
	struct hlist_node node;	/* our instance of it */
};

/* The one instance: ring, configuration, timer and device. */
struct ksnap {
	struct mutex lock;	/* configuration, start/stop, open/release */
	struct ksnap_layout layout;
	void *ring;
	struct ksnap_ctrl *ctrl;
	struct ksnap_consumer *consumer;	/* read, never written */
	u8 *data;
	const struct ksnap_config *cfg;
	struct ksnap_run run;
	struct ksnap_cpus cpus;
	int cpu;		/* cpu=: the sampler's CPU, or -1: housekeeping */
	/*
	 * gone.c: cgroups whose removal was logged (by the worker, and at
	 * stop); kept across collections while the same cgroups are held.
	 */
	DECLARE_BITMAP(gone_logged, KSNAP_MAX_CGROUPS);
	DECLARE_BITMAP(memory_gone_logged, KSNAP_MAX_CGROUPS);
	u64 period_ns;
	u32 set_id;		/* the current column set, ctrl->set_id */
	unsigned int wake_ms;	/* wake_ms=: set only while stopped */
	/*
	 * The reader session (the open O_RDWR file), under lock; poll()
	 * reads reader_seen and reader_seen_set with READ_ONCE.
	 */
	u32 reader_done_base;	/* ctrl->reader_done_base */
	u32 reader_done;	/* last collection written out (KSNAP_IOC_DONE) */
	u32 reader_seen;	/* KSNAP_GEN_STATE acted on (KSNAP_IOC_SEEN) */
	bool reader_seen_set;	/* KSNAP_IOC_SEEN came in this session */
	bool overwrite;		/* overflow=overwrite; set only while stopped */
	bool running;		/* the timer rearms; READ_ONCE in the timer */
	bool open;		/* a reader holds /dev/ksnap or a mapping */
	/*
	 * The reader's session started the running collection with
	 * KSNAP_ENABLE_STOP_ON_CLOSE: its release stops it.
	 */
	bool stop_on_close;
	struct hrtimer timer;
	struct irq_work wake_work;
	struct work_struct gone_work;	/* logs removed cgroups */
	struct work_struct thin_work;	/* logs a stride's change (cost.h) */
	struct work_struct admit_work;	/* sheds, or takes back (follow.c) */
	struct work_struct release_work;	/* lets removed cgroups go */
	struct delayed_work follow_work;	/* rescans patterns (follow.c) */
	/*
	 * A rescan started by cgroup events (cgevents.c, follow.c): the
	 * probes' tracepoints, whether a running collection has patterns,
	 * a bit set while one is queued, the jiffies before which the next
	 * may not run, and the rate limit's state (follow.c).
	 */
	struct tracepoint *cgevent_tp[KSNAP_NR_CGEVENTS];
	bool following;
	bool follow_waiting;	/* rescans wait for the reader (follow.c) */
	unsigned long kick_pending;
	unsigned long kick_next;
	unsigned long kick_tat;		/* the worker's alone */
	struct delayed_work kick_work;
	struct ksnap_follow_stats follow;
	struct ksnap_exits *exits;	/* exit records (exits.c) */
	struct ksnap_old_set old_sets[KSNAP_OLD_SETS];
	unsigned int old_next;		/* the slot the next one takes */
	u64 calib[KSNAP_MAX_COLUMNS];	/* calibration reads' values */
	wait_queue_head_t wait;
	struct miscdevice misc;
	bool kernel_link;	/* /sys/kernel/ksnap links to misc */
};

/* plan.c and snapshot.c: the read plan, and one snapshot by it. */
void ksnap_plan_build(struct ksnap_config *cfg);
u32 ksnap_snapshot(const struct ksnap_config *cfg, struct ksnap_cpus *cpus,
		   struct ksnap_cg_usage *cg_usage, __u64 *values);
void ksnap_snapshot_cpu(const struct ksnap_config *cfg, int cpu, bool vm,
			bool other, u64 *acc);

/* cpus.c: the CPUs read live, their base, the sampler's CPU. */
int ksnap_cpus_init(struct ksnap *ks);
void ksnap_cpus_uninit(struct ksnap *ks);
void ksnap_cpus_start(struct ksnap *ks, int cpu);
void ksnap_cpus_stop(struct ksnap *ks);
void ksnap_cpus_down(struct ksnap *ks, unsigned int cpu);
void ksnap_cpus_up(struct ksnap *ks, unsigned int cpu);
int ksnap_cpus_pick(const struct ksnap *ks, int *cpu);
int ksnap_cpus_check(int cpu);

/* ctrl.c: the control page; every writer holds ks->lock. */
void ksnap_ctrl_init(struct ksnap *ks);
void ksnap_ctrl_publish_config(struct ksnap *ks);
void ksnap_ctrl_publish_start(struct ksnap *ks, u64 read_estimate_ns,
			      u64 read_bound_ns);
void ksnap_ctrl_publish_stop(struct ksnap *ks, u32 reason);
void ksnap_ctrl_publish_reader(struct ksnap *ks);
void ksnap_ctrl_publish_set(struct ksnap *ks);
int ksnap_ctrl_column(const struct ksnap *ks, struct ksnap_column_info *col);

/* sampler.c: the hrtimer; start/stop with ks->lock held. */
void ksnap_sampler_init(struct ksnap *ks);
int ksnap_sampler_start(struct ksnap *ks);
void ksnap_sampler_stop(struct ksnap *ks);
void ksnap_sampler_uninit(struct ksnap *ks);

/* gone.c: the configured cgroups the timer found removed. */
void ksnap_gone_init(struct ksnap *ks);
void ksnap_gone_report(struct ksnap *ks);
void ksnap_gone_reset(struct ksnap *ks);

/* install.c: the one way a configuration becomes ks->cfg. */
#define KSNAP_INSTALL_PUBLISH	0x1
#define KSNAP_INSTALL_CAN_SHED	0x2	/* running: the new set can shed cgroups */
int ksnap_install(struct ksnap *ks, struct ksnap_config *cfg,
		  unsigned int flags);
void ksnap_install_init(struct ksnap *ks);
void ksnap_install_uninit(struct ksnap *ks);

/* sets.c: the sets swapped out, by name; all with ks->lock held. */
void ksnap_sets_keep(struct ksnap *ks, const struct ksnap_config *cfg,
		     u32 set_id, u64 first_pos);
bool ksnap_sets_unnamed(const struct ksnap *ks);
int ksnap_sets_column(const struct ksnap *ks, struct ksnap_column_info *col);
void ksnap_sets_fill(struct ksnap_column_info *col, u32 nr_columns,
		     const struct ksnap_metric *m, int cpu, const char *path);
void ksnap_sets_free(struct ksnap *ks);

/* follow.c: the set followed while running; all with ks->lock held. */
int ksnap_follow_refresh(struct ksnap *ks, bool *changed);
void ksnap_follow_init(struct ksnap *ks);
void ksnap_follow_start(struct ksnap *ks);
void ksnap_follow_stop(struct ksnap *ks);
void ksnap_follow_uninit(struct ksnap *ks);
void ksnap_follow_kick(struct ksnap *ks);
void ksnap_follow_event(struct ksnap *ks);

/* exits.c: the final figures of removed cgroups, queued for the reader. */
struct cgroup;
int ksnap_exits_init(struct ksnap *ks);
void ksnap_exits_uninit(struct ksnap *ks);
void ksnap_exits_arm(struct ksnap *ks);
void ksnap_exits_disarm(struct ksnap *ks);
void ksnap_exits_mkdir(struct ksnap *ks, struct cgroup *cgrp,
		       const char *path);
void ksnap_exits_rmdir(struct ksnap *ks, struct cgroup *cgrp,
		       const char *path);
long ksnap_exits_ioctl(struct ksnap *ks, void __user *arg);
u64 ksnap_exits_recorded(const struct ksnap *ks);

/* cgevents.c: cgroup events start a rescan (ksnap_follow_event()). */
void ksnap_cgevents_init(struct ksnap *ks);
void ksnap_cgevents_uninit(struct ksnap *ks);
/* price.c: one more cgroup's read. */
bool ksnap_price_cg_metric(const struct ksnap_config *cfg,
			   const struct ksnap_metric *m);
u64 ksnap_follow_price(struct ksnap *ks);
unsigned int ksnap_follow_admit_columns(const struct ksnap *ks,
					unsigned int base, u64 estimate_ns,
					u64 price_ns, u64 bound_ns);
void ksnap_follow_admit_start(struct ksnap *ks, u64 estimate_ns,
			      u64 bound_ns);

/* device.c: /dev/ksnap. */
int ksnap_device_init(struct ksnap *ks);
void ksnap_device_uninit(struct ksnap *ks);

/* catalogue.c: the catalogue as KSNAP_IOC_METRIC gives it. */
int ksnap_catalogue_info(struct ksnap_metric_info *info);
u64 ksnap_metric_refresh_ns(const struct ksnap_metric *m);

/* sysfs.c: the device's attributes, /sys/class/misc/ksnap/. */
void ksnap_sysfs_init(struct ksnap *ks);
void ksnap_sysfs_link(struct ksnap *ks);
void ksnap_sysfs_unlink(struct ksnap *ks);

/* Has the open reader reported what it has seen (KSNAP_IOC_SEEN)? */
static inline bool ksnap_reader_attached(const struct ksnap *ks)
{
	return READ_ONCE(ks->reader_seen_set);
}

#endif /* KSNAP_H */

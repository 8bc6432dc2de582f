// SPDX-License-Identifier: GPL-2.0
/*
 * Following the cgroup patterns.  At a start, the patterns are expanded
 * again (ksnap_follow_refresh()).  While a collection runs, a worker
 * (process context, never the timer) expands them again every
 * discover_ms; when they match other cgroups it builds the new set's
 * configuration and installs it between two snapshots (install.c), at
 * most once per interval.
 *
 * The record geometry cannot change while a reader maps the ring, so a
 * configuration with patterns lays its records out as wide as the ring
 * allows (ksnap_config_cap_columns()); at start the room is lowered to
 * what the read's bound admits at one cgroup's measured price (price.c,
 * ksnap_follow_admit_columns()), and a set that would hold more columns
 * is truncated, its other matches skipped and counted
 * (stats/cgroups_skipped).  While running, the timer judges each second
 * of reads (cost.h): over ones shed cgroups, calm ones take them back
 * (ksnap_follow_admit_fn()).
 *
 * A cgroup made or removed starts a rescan sooner (cgevents.c):
 * settle_ms after the first such event, so that a burst of them makes one
 * set change.  Those rescans are rate-limited as a token bucket (the
 * generic cell rate algorithm): KSNAP_FOLLOW_KICK_BURST back to back, then
 * one every KSNAP_FOLLOW_KICK_GAP_MS, so that churn cannot swap sets
 * faster than a reader names them (it names KSNAP_OLD_SETS behind), while
 * events apart from each other wait only settle_ms.  The periodic
 * rescan begins its interval again after it.
 *
 * The last KSNAP_OLD_SETS sets swapped out keep their columns' names for
 * KSNAP_IOC_COLUMN (sets.c), so that a reader behind by a few set changes
 * can name their records.  A rescan that would push out the names of a
 * set the reader has still to meet, while the reader can still read
 * every record (ksnap_sets_unnamed()), waits for it: it is tried again
 * every KSNAP_FOLLOW_WAIT_MS, and counted in stats/set_change_waits.
 * Once the ring is full the reader loses records whatever happens, and
 * the rescan goes ahead: a wait lasts at most the time the ring takes to
 * fill.  A shed or take-back for the read's bound never waits, and
 * neither does any rescan with overflow=overwrite (its reader accepts
 * being lapped, and the kernel never reads its tail).
 */
#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/workqueue.h>

#include "cost.h"
#include "kick.h"
#include "ksnap.h"

#define KSNAP_DISCOVER_MS_MIN		100
#define KSNAP_DISCOVER_MS_MAX		60000
#define KSNAP_DISCOVER_MS_DEFAULT	500
#define KSNAP_SETTLE_MS_MIN		1
#define KSNAP_SETTLE_MS_MAX		1000
#define KSNAP_SETTLE_MS_DEFAULT		10
/* Rescans started by events: one in this many ms (settle_ms's text) ... */
#define KSNAP_FOLLOW_KICK_GAP_MS	200
/*
 * ... after this many back to back.  With a periodic rescan and a shed or
 * take-back (ksnap_follow_admit_fn()) in the same moment, a reader still
 * names every set it meets (it names KSNAP_OLD_SETS behind).
 */
#define KSNAP_FOLLOW_KICK_BURST		2
static_assert(KSNAP_FOLLOW_KICK_BURST + 2 <= KSNAP_OLD_SETS);
/* A rescan waiting for the reader to name a set is tried again this often. */
#define KSNAP_FOLLOW_WAIT_MS		20
/* ks->kick_pending: a rescan started by events is queued ... */
#define KSNAP_FOLLOW_KICK_QUEUED	0
/* ... and a cgroup event asked for one (stats/event_rescans). */
#define KSNAP_FOLLOW_KICK_EVENT		1

static unsigned int ksnap_discover_ms = KSNAP_DISCOVER_MS_DEFAULT;

static int ksnap_discover_ms_set(const char *val,
				 const struct kernel_param *kp)
{
	return ksnap_param_set_range(val, kp, KSNAP_DISCOVER_MS_MIN,
				  KSNAP_DISCOVER_MS_MAX,
				  "number of milliseconds");
}

static const struct kernel_param_ops ksnap_discover_ms_ops = {
	.set = ksnap_discover_ms_set,
	.get = param_get_uint,
};

module_param_cb(discover_ms, &ksnap_discover_ms_ops, &ksnap_discover_ms,
		0644);
MODULE_PARM_DESC(discover_ms,
		 "how often a running collection expands its cgroup patterns again, milliseconds (100..60000, default 500); cgroup events start one sooner (settle_ms)");

static unsigned int ksnap_settle_ms = KSNAP_SETTLE_MS_DEFAULT;

static int ksnap_settle_ms_set(const char *val, const struct kernel_param *kp)
{
	return ksnap_param_set_range(val, kp, KSNAP_SETTLE_MS_MIN,
				  KSNAP_SETTLE_MS_MAX,
				  "number of milliseconds");
}

static const struct kernel_param_ops ksnap_settle_ms_ops = {
	.set = ksnap_settle_ms_set,
	.get = param_get_uint,
};

module_param_cb(settle_ms, &ksnap_settle_ms_ops, &ksnap_settle_ms, 0644);
MODULE_PARM_DESC(settle_ms,
		 "how long after a cgroup is made or removed a running collection expands its patterns again, milliseconds (1..1000, default 10); 2 such rescans back to back, then one every 200 ms");

/* The per-cgroup metrics of @cfg, or the default ones when it has none. */
static unsigned int ksnap_follow_per_cgroup(const struct ksnap_config *cfg)
{
	unsigned int i, k = 0;

	for (i = 0; i < cfg->nr_metrics; i++)
		k += ksnap_metrics[cfg->metric[i]].per_cgroup;
	if (k || cfg->nr_cgroups || cfg->metrics_arg[0])
		return k;
	for (i = 0; i < ksnap_nr_metrics; i++)
		k += ksnap_metrics[i].by_default &&
		     ksnap_metrics[i].per_cgroup &&
		     ksnap_metric_offered(&ksnap_metrics[i]);
	return k;
}

/**
 * ksnap_follow_admit_columns() - a running collection's most columns
 * @ks: running or starting
 * @base: the start set's columns
 * @estimate_ns: the read's estimate for them
 * @price_ns: the read of one more cgroup's columns, or 0 when unknown
 * @bound_ns: the bound on a read
 *
 * The records' room, less when the bound pays for fewer: what is left of
 * the bound after the start set's read buys cgroups at @price_ns each,
 * their own reader class's cost (ksnap_follow_price()), not the start
 * set's average column.  Never less than the start set.
 */
unsigned int ksnap_follow_admit_columns(const struct ksnap *ks,
					unsigned int base, u64 estimate_ns,
					u64 price_ns, u64 bound_ns)
{
	const struct ksnap_config *cfg = ks->cfg;
	unsigned int room = (cfg->record_size - KSNAP_RECORD_SIZE(0)) /
			    sizeof(__u64);
	unsigned int k = ksnap_follow_per_cgroup(cfg);
	u64 more;

	if (!k || !price_ns)
		return room;
	more = bound_ns > estimate_ns ?
	       div64_u64(bound_ns - estimate_ns, price_ns) : 0;
	more = min_t(u64, more, KSNAP_MAX_CGROUPS);
	return clamp_t(u64, base + more * k, min(base, room), room);
}

/*
 * Can the timer shed cgroups of the set (ksnap_follow_admit_fn())?  Not
 * its last one when it has no other column: a set is never empty.
 */
static bool ksnap_follow_can_shed(const struct ksnap_config *cfg)
{
	unsigned int k = ksnap_follow_per_cgroup(cfg);

	if (!cfg->nr_patterns || !k)
		return false;
	return cfg->nr_cgroups > (cfg->nr_columns > k * cfg->nr_cgroups ?
				  0 : 1);
}

/*
 * The price was measured at the namespace's root: measure it again on the
 * first cgroup swapped in, and admit by that from the next rescan on
 * (cgroups shed stay shed).  ks->lock held, the new set current.
 */
static void ksnap_follow_reprice(struct ksnap *ks)
{
	struct ksnap_run *run = &ks->run;
	const struct ksnap_stats *st = &ks->ctrl->stats;
	unsigned int shed = run->admit_columns - run->cap_columns;
	u64 price;

	if (!run->price_at_root || !ks->cfg->nr_cgroups)
		return;
	run->price_at_root = false;
	cpus_read_lock();
	price = ksnap_follow_price(ks);
	cpus_read_unlock();
	if (!price)
		return;
	run->price_ns = price;
	ks->follow.cgroup_price_ns = price;
	WRITE_ONCE(run->admit_columns,
		   ksnap_follow_admit_columns(ks, run->start_columns,
					      READ_ONCE(st->read_estimate_ns),
					      price,
					      READ_ONCE(run->base_bound_ns)));
	WRITE_ONCE(run->cap_columns,
		   run->admit_columns - min(shed, run->admit_columns - 1));
	ks->follow.columns_admitted = run->cap_columns;
}

/**
 * ksnap_follow_admit_start() - a starting collection's admission
 * @ks: starting, as for ksnap_follow_price()
 * @estimate_ns: the start set's read estimate
 * @bound_ns: the bound on a read
 */
void ksnap_follow_admit_start(struct ksnap *ks, u64 estimate_ns, u64 bound_ns)
{
	struct ksnap_run *run = &ks->run;

	run->price_ns = ksnap_follow_price(ks);
	run->price_at_root = !ks->cfg->nr_cgroups;
	run->start_columns = ks->cfg->nr_columns;
	run->admit_columns = ksnap_follow_admit_columns(ks, run->start_columns,
							estimate_ns,
							run->price_ns,
							bound_ns);
	run->cap_columns = run->admit_columns;
	run->can_shed = ksnap_follow_can_shed(ks->cfg);
}

/* Cgroups of @a not in @b. */
static unsigned int ksnap_follow_count_new(const struct ksnap_config *a,
					   const struct ksnap_config *b)
{
	unsigned int i, n = 0;

	for (i = 0; i < a->nr_cgroups; i++)
		n += ksnap_cgpattern_find(b, &a->cgroups[i]) < 0;
	return n;
}

/* Has a configured cgroup a new memcg (ksnap_cgroup_memory_moved())? */
static bool ksnap_follow_memory_moved(const struct ksnap_config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->nr_cgroups; i++)
		if (ksnap_cgroup_memory_moved(&cfg->cgroups[i]))
			return true;
	return false;
}

/**
 * ksnap_follow_refresh() - expand the configuration's patterns again
 * @ks: stopped, with ks->lock held: a start, before anything reads ks->cfg
 * @changed: set when ks->cfg became a new configuration, not yet published
 *
 * Cgroups created since the configuration that match are added, removed
 * ones dropped (their references go with the old configuration), and a
 * cgroup whose memory controller was disabled and enabled again, path or
 * match, gets its new memcg (also with no pattern).  With a
 * reader open, the record geometry it mapped stays: a new set whose
 * records would be larger is refused.
 *
 * Return: 0, or -EINVAL, -EBUSY or -ENOMEM with one log line.
 */
int ksnap_follow_refresh(struct ksnap *ks, bool *changed)
{
	const struct ksnap_config *old = ks->cfg;
	struct ksnap_config *cfg;

	lockdep_assert_held(&ks->lock);
	*changed = false;
	/* Paths only: held as they are, but for a new memcg. */
	if (!old->nr_patterns && !ksnap_follow_memory_moved(old))
		return 0;
	cfg = ksnap_config_rebuild(old, &ks->layout, KSNAP_CG_NO_LIMIT);
	if (IS_ERR(cfg))
		return PTR_ERR(cfg);
	if (!cfg->nr_columns) {
		pr_err_ratelimited("enable: no column to sample: the cgroup patterns '%s' match no cgroup%s\n",
				   cfg->cgroups_arg, cfg->nr_unreadable ?
				   " with the memory controller the metrics need" :
				   "");
		ksnap_config_free(cfg);
		return -EINVAL;
	}
	if (ksnap_cgpattern_same(cfg, old)) {
		ksnap_config_free(cfg);
		return 0;
	}
	if (ks->open) {
		if (cfg->record_size > old->record_size) {
			pr_err_ratelimited("enable: the cgroup patterns now give %u columns, more than the %u the open reader's records hold: restart the reader to start with them\n",
					   cfg->nr_columns,
					   (unsigned int)((old->record_size -
							   KSNAP_RECORD_SIZE(0)) /
							  sizeof(__u64)));
			ksnap_config_free(cfg);
			return -EBUSY;
		}
		cfg->record_size = old->record_size;
		cfg->nr_records = old->nr_records;
	}
	/* Stopped: it cannot fail.  The start publishes the new set. */
	ksnap_install(ks, cfg, 0);
	*changed = true;
	return 0;
}

/*
 * The most cgroups a set of @cap columns holds, with @cfg's metrics: its
 * columns not per cgroup, and the per-cgroup metrics once per cgroup.
 */
static unsigned int ksnap_follow_cg_limit(const struct ksnap_config *cfg,
					  unsigned int cap)
{
	unsigned int k = ksnap_follow_per_cgroup(cfg), own = 0, i;

	for (i = 0; i < cfg->nr_metrics; i++)
		own += ksnap_metrics[cfg->metric[i]].per_cgroup;
	own *= cfg->nr_cgroups;
	if (!k)
		return KSNAP_MAX_CGROUPS;
	return min_t(unsigned int, KSNAP_MAX_CGROUPS,
		     (cap - min(cap, cfg->nr_columns - own)) / k);
}

/* Expand the patterns again; a new set is swapped in.  ks->lock held. */
static void ksnap_follow_rescan(struct ksnap *ks)
{
	const struct ksnap_config *old = ks->cfg;
	unsigned int cap = ks->run.cap_columns;
	u64 skipped = ks->follow.cgroups_skipped;
	unsigned int found, removed;
	struct ksnap_config *cfg;
	bool whole;

	cfg = ksnap_config_rebuild(old, &ks->layout,
				   ksnap_follow_cg_limit(old, cap));
	if (IS_ERR(cfg))
		return;
	/* A match being made: its mkdir's rescan again once it is. */
	if (cfg->nr_pending)
		ksnap_follow_event(ks);
	if (cfg->nr_columns > cap) {
		/* Its metrics differ from the old set's: fit them. */
		unsigned int limit = ksnap_follow_cg_limit(cfg, cap);

		ksnap_config_free(cfg);
		cfg = ksnap_config_rebuild(old, &ks->layout, limit);
		if (IS_ERR(cfg))
			return;
	}
	ks->follow.cgroups_skipped = cfg->nr_skipped;
	if (cfg->nr_skipped > skipped)
		pr_info_ratelimited("cgroups: %u pattern matches not sampled, the first '%s': the read's bound (read_pct=, read_cap_us=) admits %u columns, %u cgroups at %llu ns each; they are counted in stats/cgroups_skipped\n",
				    cfg->nr_skipped, cfg->skipped, cap,
				    ksnap_follow_cg_limit(old, cap),
				    ks->run.price_ns);
	/* Read by the reader with relaxed loads; the timer never writes it. */
	WRITE_ONCE(ks->ctrl->stats.cgroups_skipped, cfg->nr_skipped);
	ks->follow.cgroups_unreadable = cfg->nr_unreadable;
	/* Counted only if its set holds every match (stats/rescans). */
	whole = !cfg->nr_skipped;
	if (cfg->nr_columns > cap || !cfg->nr_columns) {
		ksnap_config_free(cfg);
		return;
	}
	if (ksnap_cgpattern_same(cfg, old)) {
		ksnap_config_free(cfg);
		ks->follow.rescans += whole;
		return;
	}
	cfg->record_size = old->record_size;
	cfg->nr_records = old->nr_records;
	found = ksnap_follow_count_new(cfg, old);
	removed = ksnap_follow_count_new(old, cfg);
	if (ksnap_install(ks, cfg, ksnap_follow_can_shed(cfg) ?
			  KSNAP_INSTALL_CAN_SHED : 0)) {
		ksnap_config_free(cfg);
		return;
	}
	ks->follow.set_changes++;
	ks->follow.cgroups_found += found;
	ks->follow.cgroups_removed += removed;
	ks->follow.rescans += whole;
	ksnap_follow_reprice(ks);
}

/*
 * The timer judged a second (cost.h): shed a quarter of the set's cgroups
 * (at least one; those last in path order, as a set too large for its
 * cap is cut), or take back as many as the last shed took, up to what
 * the bound admitted; then expand the patterns at once.
 */
static void ksnap_follow_admit_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(work, struct ksnap, admit_work);
	struct ksnap_run *run = &ks->run;
	const struct ksnap_config *cfg;
	unsigned int k, n, cap;

	mutex_lock(&ks->lock);
	cfg = ks->cfg;
	if (!ks->running || !cfg->nr_patterns)
		goto out;
	k = ksnap_follow_per_cgroup(cfg);
	n = max(cfg->nr_cgroups / 4, 1U) * k;
	cap = run->cap_columns;
	switch (READ_ONCE(run->verdict)) {
	case KSNAP_COST_SHED:
		if (!ksnap_follow_can_shed(cfg))
			goto out;
		n = min(n, cfg->nr_columns);
		cap = cfg->nr_columns - n;
		run->shed_columns = n;
		ks->follow.sheds++;
		pr_warn_ratelimited("cgroups: most reads of the last second took longer than their bound of %llu ns: %u of %u cgroups shed (the last in path order), counted in stats/cgroups_skipped; taken back once reads leave room\n",
				    READ_ONCE(ks->ctrl->stats.read_bound_ns),
				    n / max(k, 1U), cfg->nr_cgroups);
		break;
	case KSNAP_COST_GROW:
		if (cap >= run->admit_columns)
			goto out;
		/* As many as the last shed took, a cgroup at least. */
		cap = min(cap + max(run->shed_columns, k), run->admit_columns);
		ks->follow.regrows++;
		break;
	default:
		goto out;
	}
	WRITE_ONCE(run->cap_columns, max(cap, 1U));
	ks->follow.columns_admitted = run->cap_columns;
	ksnap_follow_rescan(ks);
out:
	mutex_unlock(&ks->lock);
}

/*
 * Would a set change now cost the reader a set's names (the file's
 * comment)?  Then the rescan waits; each wait is counted once, however
 * often it is tried again.  ks->lock held, running.
 */
static bool ksnap_follow_wait_reader(struct ksnap *ks)
{
	if (!ksnap_sets_unnamed(ks)) {
		ks->follow_waiting = false;
		return false;
	}
	if (!ks->follow_waiting)
		ks->follow.set_change_waits++;
	ks->follow_waiting = true;
	return true;
}

static void ksnap_follow_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(to_delayed_work(work), struct ksnap,
					follow_work);

	mutex_lock(&ks->lock);
	if (ks->running && ks->cfg->nr_patterns) {
		/* Waiting for the reader: the event path tries again. */
		if (ksnap_follow_wait_reader(ks))
			ksnap_follow_kick(ks);
		else
			ksnap_follow_rescan(ks);
		queue_delayed_work(system_unbound_wq, &ks->follow_work,
				   msecs_to_jiffies(READ_ONCE(ksnap_discover_ms)));
	}
	mutex_unlock(&ks->lock);
}

/*
 * Cgroup events asked for a rescan (ksnap_follow_kick()): no event before
 * the bit was cleared is missed by it, and the next waits for kick_next
 * (kick.h).
 */
static void ksnap_follow_kick_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(to_delayed_work(work), struct ksnap,
					kick_work);

	/*
	 * Waiting for the reader to name a set: try again soon, the bit
	 * still set (events meanwhile queue nothing: this rescan, when it
	 * runs, walks after them), no token taken.
	 */
	mutex_lock(&ks->lock);
	if (ks->running && ks->cfg->nr_patterns &&
	    ksnap_follow_wait_reader(ks)) {
		mod_delayed_work(system_unbound_wq, &ks->kick_work,
				 msecs_to_jiffies(KSNAP_FOLLOW_WAIT_MS));
		mutex_unlock(&ks->lock);
		return;
	}
	mutex_unlock(&ks->lock);

	WRITE_ONCE(ks->kick_next,
		   ksnap_kick_take(&ks->kick_tat, jiffies,
				   msecs_to_jiffies(KSNAP_FOLLOW_KICK_GAP_MS),
				   KSNAP_FOLLOW_KICK_BURST));
	/*
	 * Orders kick_next before the bit's clearing, for the probe that
	 * then sets it: pairs with its test_and_set_bit(), fully ordered
	 * before its read of kick_next (ksnap_follow_kick()).
	 */
	smp_mb__before_atomic();
	clear_bit(KSNAP_FOLLOW_KICK_QUEUED, &ks->kick_pending);
	/*
	 * Orders the clearing before the rescan's walk: a probe whose
	 * test_and_set_bit() saw the bit still set ran after its cgroup was
	 * linked, so the walk finds that cgroup.
	 */
	smp_mb__after_atomic();

	mutex_lock(&ks->lock);
	if (ks->running && ks->cfg->nr_patterns) {
		/* A shed or take-back since the check may have made it wait. */
		if (ksnap_follow_wait_reader(ks)) {
			ksnap_follow_kick(ks);
			mutex_unlock(&ks->lock);
			return;
		}
		/*
		 * Not when only a wait for the reader queued it (periodic).
		 * An event between the clear_bit() above and this one is
		 * counted here, and this rescan walks after it.
		 */
		if (test_and_clear_bit(KSNAP_FOLLOW_KICK_EVENT,
				       &ks->kick_pending))
			ks->follow.event_rescans++;
		ksnap_follow_rescan(ks);
		mod_delayed_work(system_unbound_wq, &ks->follow_work,
				 msecs_to_jiffies(READ_ONCE(ksnap_discover_ms)));
	}
	mutex_unlock(&ks->lock);
}

/**
 * ksnap_follow_kick() - rescan soon
 * @ks: the device
 *
 * Called for cgroup events (ksnap_follow_event(): by the tracepoint
 * probes, under cgroup_mutex, in any context, preemptible on PREEMPT_RT;
 * by a rescan that found a match still being made), and by a rescan that
 * waits for the reader: queues one rescan, settle_ms on, or when
 * kick_next has come, whichever is later; does nothing while one is
 * queued, or when no collection with patterns runs.
 */
void ksnap_follow_kick(struct ksnap *ks)
{
	unsigned long delay, next, now;

	if (!READ_ONCE(ks->following) ||
	    test_and_set_bit(KSNAP_FOLLOW_KICK_QUEUED, &ks->kick_pending))
		return;
	/* Pairs with the barrier before ksnap_follow_kick_fn()'s clear_bit() */
	next = READ_ONCE(ks->kick_next);
	now = jiffies;
	delay = msecs_to_jiffies(READ_ONCE(ksnap_settle_ms));
	if (time_before(now + delay, next))
		delay = next - now;
	queue_delayed_work(system_unbound_wq, &ks->kick_work, delay);
}

/**
 * ksnap_follow_event() - a cgroup was made or removed: rescan
 * @ks: the device
 *
 * As ksnap_follow_kick(), and the rescan is counted as the events' in
 * stats/event_rescans.  The tracepoint probes' (cgevents.c), in any
 * context.
 */
void ksnap_follow_event(struct ksnap *ks)
{
	if (!READ_ONCE(ks->following))
		return;
	/*
	 * Counted by the rescan the kick queues or finds queued, or, seen
	 * too late for that one, by the next: a count, not a condition.
	 */
	set_bit(KSNAP_FOLLOW_KICK_EVENT, &ks->kick_pending);
	ksnap_follow_kick(ks);
}

void ksnap_follow_init(struct ksnap *ks)
{
	INIT_DELAYED_WORK(&ks->follow_work, ksnap_follow_fn);
	INIT_DELAYED_WORK(&ks->kick_work, ksnap_follow_kick_fn);
	INIT_WORK(&ks->admit_work, ksnap_follow_admit_fn);
	ks->kick_next = jiffies;
	ks->kick_tat = jiffies;
}

/* A collection started: its counters from 0, and the worker queued. */
void ksnap_follow_start(struct ksnap *ks)
{
	lockdep_assert_held(&ks->lock);
	memset(&ks->follow, 0, sizeof(ks->follow));
	ks->follow_waiting = false;
	ks->follow.cgroups_skipped = ks->cfg->nr_skipped;
	ks->follow.columns_admitted = ks->run.cap_columns;
	ks->follow.cgroup_price_ns = ks->run.price_ns;
	if (ks->cfg->nr_patterns)
		mod_delayed_work(system_unbound_wq, &ks->follow_work,
				 msecs_to_jiffies(READ_ONCE(ksnap_discover_ms)));
	/* Read by the probes: set last, when the worker can rescan. */
	WRITE_ONCE(ks->following, !!ks->cfg->nr_patterns);
}

/*
 * A collection stopped: events queue no rescan.  One queued already finds
 * it stopped (it takes ks->lock, held here: no waiting for it).
 */
void ksnap_follow_stop(struct ksnap *ks)
{
	lockdep_assert_held(&ks->lock);
	WRITE_ONCE(ks->following, false);
	/* Cancelled before it ran: it would have cleared the bits. */
	if (cancel_delayed_work(&ks->kick_work))
		clear_bit(KSNAP_FOLLOW_KICK_QUEUED, &ks->kick_pending);
	clear_bit(KSNAP_FOLLOW_KICK_EVENT, &ks->kick_pending);
}

/* Stopped for good (unload): the worker gone, the old sets freed. */
void ksnap_follow_uninit(struct ksnap *ks)
{
	/* The probes are gone (ksnap_cgevents_uninit()): none queues it. */
	cancel_delayed_work_sync(&ks->kick_work);
	cancel_delayed_work_sync(&ks->follow_work);
	cancel_work_sync(&ks->admit_work);
	ksnap_sets_free(ks);
}

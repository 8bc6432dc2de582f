/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpu.stat.usage made live for a cgroup without children (6.16 and later,
 * compat.h): the pure part, with no kernel structure (the KUnit suite
 * ksnap_cgusage tests it).
 *
 * For such a cgroup the flushed usage F is the sum over CPUs of what each
 * CPU's flush took (L, the per-CPU last_bstat) plus what its children, if
 * it had any, gave it before they were freed: K = F - sum(L) is constant,
 * but while a flush runs.
 * The flush (cgroup_base_stat_flush()) adds a CPU's delta d to F, then to
 * that CPU's L: two plain stores, under a lock a module cannot take, with
 * no seqcount and no barrier between them.  A read in between sees K + d
 * (or K - d when it sees the stores in the other order: another CPU may
 * on arm64, and so may a read of F before both stores and of L after).  On
 * PREEMPT_RT the flusher can be preempted there, and the hardirq timer
 * can fire on another CPU as often as it likes meanwhile: no number of
 * re-reads within one sample tells the window from a steady state.
 *
 * So K is taken from the samples: a value of K is adopted only when two
 * consecutive samples saw it; until then the one adopted before is used,
 * and where there is none to use (the CPUs summed changed, so that K
 * moved), the usage given last is held.
 * A sample in the window reports the CPUs' own time (sum(N), the per-CPU
 * bstat) plus the previous K: exact.  A window that lasts two samples is
 * adopted, and given up again two samples after it closes: the column
 * would step back by d then; the metric is monotonic, and the sampler
 * holds it at its last value until it passes it (sampler.c).
 */
#ifndef KSNAP_CGUSAGE_H
#define KSNAP_CGUSAGE_H

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* One cgroup's state: written by the sampling path only (struct ksnap_run). */
struct ksnap_cg_usage {
	u64 k;		/* adopted: F - sum(L) seen on two samples in a row */
	u64 seen;	/* F - sum(L) as the last sample saw it */
	/* This snapshot's usage, and its user and system parts (split) */
	u64 usage, user, system;
	u64 given;	/* the usage ksnap_cg_usage_next() returned last */
	u32 cpus_gen;	/* the CPUs summed over, by number, when seen */
	u32 usage_seq;	/* the snapshot usage is of (struct ksnap_cpus) */
	u32 split_seq;	/* the snapshot user and system are of */
	u8 state;	/* KSNAP_CG_USAGE_* */
	u8 has_given;	/* given is set: not the collection's first sample */
};

enum {
	KSNAP_CG_USAGE_NONE,	/* nothing seen since a start or a fallback */
	KSNAP_CG_USAGE_SEEN,	/* seen is set, k not yet */
	KSNAP_CG_USAGE_ADOPTED,	/* seen and k are set */
};

/**
 * ksnap_cg_usage_next() - one sample's usage from its reading of K
 * @st: the cgroup's state
 * @k_seen: F - sum(L), as read now (u64 arithmetic: it may wrap)
 * @own: sum(N), the CPUs' own time, as read now
 * @cpus_gen: which CPUs both sums are over: a number that changes when
 *	they do
 *
 * The sums are over the CPUs online at some time since the start, not
 * the possible ones (compat.h), so that a read costs what those are.
 * When a CPU offline since before the start comes online, its L joins
 * sum(L) and K moves: a K read over other CPUs is no guide, and is learnt
 * again, as at a start.
 *
 * Return: @own plus the K adopted.  Before any is: the usage returned
 * last, held, while there is one (after the CPUs summed changed, or the
 * cgroup was read without its live part: a K read once may be a flush's
 * window, and a value too high would stay as the sampler's hold); at the
 * first sample of a collection, which has nothing else to go by, @own
 * plus @k_seen.
 */
static inline u64 ksnap_cg_usage_next(struct ksnap_cg_usage *st, u64 k_seen,
				      u64 own, u32 cpus_gen)
{
	if (st->cpus_gen != cpus_gen) {
		st->cpus_gen = cpus_gen;
		st->state = KSNAP_CG_USAGE_NONE;
	}
	if (st->state != KSNAP_CG_USAGE_NONE && k_seen == st->seen) {
		st->k = k_seen;
		st->state = KSNAP_CG_USAGE_ADOPTED;
	} else if (st->state != KSNAP_CG_USAGE_ADOPTED) {
		st->k = k_seen;
		st->state = KSNAP_CG_USAGE_SEEN;
	}
	st->seen = k_seen;
	if (st->state == KSNAP_CG_USAGE_ADOPTED || !st->has_given)
		st->given = own + st->k;
	st->has_given = 1;
	return st->given;
}

/*
 * The cgroup was read without its live part (it has children), as
 * @flushed: K is learnt again when it has none (their flushes changed
 * it), and @flushed held until then.
 */
static inline void ksnap_cg_usage_forget(struct ksnap_cg_usage *st,
					 u64 flushed)
{
	st->state = KSNAP_CG_USAGE_NONE;
	st->given = flushed;
	st->has_given = 1;
}

/**
 * ksnap_cputime_split() - the user and system parts of a usage
 * @rtime: the usage, ns
 * @utime: the user time the scheduler ticks saw
 * @stime: the system time they saw
 * @user: in: the user part given before (0 at first); out: now
 * @system: the same for the system part
 *
 * As cpu.stat splits usage (cputime_adjust(), not exported): in the
 * ratio of the ticks, all user when no tick saw either, the two summing
 * to @rtime; neither part steps back, and a usage that did not grow
 * leaves both as they were.
 */
static inline void ksnap_cputime_split(u64 rtime, u64 utime, u64 stime,
				       u64 *user, u64 *system)
{
	u64 s;

	if (*user + *system >= rtime)
		return;
	if (!stime)
		s = 0;
	else if (!utime)
		s = rtime;
	else
		/* min(): it may round up on some architectures */
		s = min(mul_u64_u64_div_u64(stime, rtime, stime + utime),
			rtime);
	s = max(s, *system);
	if (rtime - s < *user)
		s = rtime - *user;
	*system = s;
	*user = rtime - s;
}

#endif /* KSNAP_CGUSAGE_H */

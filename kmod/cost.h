/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bound on a snapshot's read, which the timer does in hardirq with
 * interrupts off (a hard timer on PREEMPT_RT too): a fraction of the
 * period, and at most an absolute cap.  Pure arithmetic, in nanoseconds
 * but for the periods (microseconds, as period_us takes them).
 */
#ifndef KSNAP_COST_H
#define KSNAP_COST_H

#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include <linux/types.h>

/* read_pct=: the share of the period a snapshot's read may take. */
#define KSNAP_READ_PCT_MIN	1
#define KSNAP_READ_PCT_MAX	100
#define KSNAP_READ_PCT_DEFAULT	25

/* read_cap_us=: the most a snapshot's read may take, at any period. */
#define KSNAP_READ_CAP_US_MIN		1
#define KSNAP_READ_CAP_US_MAX		1000000
#define KSNAP_READ_CAP_US_DEFAULT	100

/*
 * The timer judges its reads a second at a time (KSNAP_COST_WINDOW_NS): a
 * second in which at least half the reads exceeded the bound is over.
 * One long read (a vCPU its host preempted, an SMI) does not make one; nor
 * does one read within it end an overrun, as reads that alternate over and
 * under would.
 */
#define KSNAP_COST_WINDOW_NS	NSEC_PER_SEC
/*
 * A set with no cgroup left to shed thins instead: each over second
 * doubles the periods from one read to the next (the stride), up to one
 * read a KSNAP_COST_WINDOW_NS, and the bound grows with them (read_pct of
 * the stride's time, at most read_cap_us).  While thinned, a second is
 * calm by the bound of half the stride: after this many calm seconds in a
 * row the stride halves.  The collection is never stopped for its cost.
 */
#define KSNAP_COST_UNTHIN_SECONDS	3
/*
 * Calm seconds in a row before shed cgroups are taken back.  A second is
 * calm when at most one read in KSNAP_COST_CALM_ONE_IN took more than
 * KSNAP_COST_CALM_PCT of the bound: as one long read does not make an
 * over second, a few (a vCPU its host preempts) do not keep a second from
 * being calm; with fewer reads a second than that, each must be within.
 */
#define KSNAP_COST_CALM_SECONDS	10
#define KSNAP_COST_CALM_PCT	75
#define KSNAP_COST_CALM_ONE_IN	10

/*
 * Calibration reads at start, each after a sleep: the timer reads a
 * period after its last read, cold (caches, TLB), and so must they; read
 * back to back, all but the first are warm.  In a TCG guest of 16 vCPUs,
 * 150 summed columns: back to back 56 us, the first read 170 to 1100 us,
 * the timer's median 213 us; after a sleep 170 to 260 us, the timer's
 * median 163 us.  The estimate is their median: what stretches one read
 * alone, interrupts off, is not the read's cost (a vCPU its host
 * preempts, an SMI).
 */
#define KSNAP_CALIB_READS	9
#define KSNAP_CALIB_SLEEP_US	1000

/**
 * ksnap_cost_bound_ns() - the bound on one snapshot's read
 * @period_ns: the sampling period
 * @pct: its share a read may take (1..100)
 * @cap_ns: the most a read may take
 *
 * Return: min(@period_ns * @pct / 100, @cap_ns).
 */
static inline u64 ksnap_cost_bound_ns(u64 period_ns, unsigned int pct,
				      u64 cap_ns)
{
	return min(div_u64(period_ns * pct, 100), cap_ns);
}

/**
 * ksnap_cost_fit_period_us() - the shortest period whose bound holds a read
 * @estimate_ns: the read's estimated time
 * @pct: the period's share a read may take (1..100)
 * @cap_ns: the most a read may take
 * @min_us: the shortest period there is
 * @max_us: the longest period there is
 *
 * Return: the shortest whole number of microseconds, at least @min_us,
 * whose bound (ksnap_cost_bound_ns()) is @estimate_ns or more; 0 when no
 * period up to @max_us has one (the cap, or a period that long).
 */
static inline u64 ksnap_cost_fit_period_us(u64 estimate_ns, unsigned int pct,
					   u64 cap_ns, u64 min_us, u64 max_us)
{
	u64 us;

	if (!pct || estimate_ns > cap_ns)
		return 0;
	/* period_ns * pct / 100 >= estimate  <=>  period_ns * pct >= 100 * estimate */
	us = DIV_ROUND_UP_ULL(DIV_ROUND_UP_ULL(estimate_ns * 100, pct),
			      NSEC_PER_USEC);
	us = max(us, min_us);
	return us <= max_us ? us : 0;
}

/**
 * ksnap_cost_fit_columns() - about how many columns a bound holds
 * @nr_columns: the columns read in @estimate_ns
 * @estimate_ns: their read's estimated time
 * @bound_ns: the bound
 *
 * As if each column cost the same share of the read: the summed columns,
 * read on every CPU, cost the most, and a read of summed columns only is
 * close to that.
 *
 * Return: @nr_columns when the estimate is within the bound, else the
 * columns that share of the bound pays for (0 or more).
 */
static inline unsigned int ksnap_cost_fit_columns(unsigned int nr_columns,
						  u64 estimate_ns,
						  u64 bound_ns)
{
	if (estimate_ns <= bound_ns)
		return nr_columns;
	return div64_u64((u64)nr_columns * bound_ns, estimate_ns);
}

/* A second of reads against the bound, and the seconds before it. */
struct ksnap_cost_window {
	u32 reads;		/* this second's reads */
	u32 over;		/* and those above the bound */
	u32 warm;		/* and those above KSNAP_COST_CALM_PCT of it */
	u64 max_ns;		/* and the longest */
	u32 over_seconds;	/* over seconds in a row, up to the last */
	u32 calm_seconds;	/* calm seconds in a row, up to the last */
};

/* What the sampler does at the end of a second (ksnap_cost_second()). */
enum ksnap_cost_verdict {
	KSNAP_COST_KEEP,	/* nothing */
	KSNAP_COST_SHED,	/* read fewer cgroups */
	KSNAP_COST_GROW,	/* take shed cgroups back */
	KSNAP_COST_THIN,	/* nothing to shed: read every other period read */
	KSNAP_COST_UNTHIN,	/* thinned, and calm: read more often again */
	KSNAP_COST_OVER,	/* over, with nothing left to shed or thin */
};

/*
 * One read of @read_ns, counted in the second it ends in: against
 * @bound_ns, and against @calm_bound_ns for calm (the bound, or while
 * thinned the bound at half the stride).
 */
static inline void ksnap_cost_read(struct ksnap_cost_window *w, u64 read_ns,
				   u64 bound_ns, u64 calm_bound_ns)
{
	w->reads++;
	w->over += read_ns > bound_ns;
	w->warm += read_ns * 100 > calm_bound_ns * KSNAP_COST_CALM_PCT;
	w->max_ns = max(w->max_ns, read_ns);
}

/**
 * ksnap_cost_second() - judge the second that ended, and begin the next
 * @w: its reads; its counts restart
 * @can_shed: the set has cgroups it may do without
 * @can_grow: cgroups were shed, and the bound may admit them again
 * @can_thin: the stride may grow (ksnap_cost_max_stride())
 * @thinned: the stride is above one period
 *
 * Return: for an over second KSNAP_COST_SHED when @can_shed, else
 * KSNAP_COST_THIN when @can_thin, else KSNAP_COST_OVER;
 * KSNAP_COST_UNTHIN after KSNAP_COST_UNTHIN_SECONDS calm ones in a row when
 * @thinned, and KSNAP_COST_GROW after KSNAP_COST_CALM_SECONDS when not and
 * @can_grow (either way the calm count then restarts); else
 * KSNAP_COST_KEEP.
 */
static inline enum ksnap_cost_verdict
ksnap_cost_second(struct ksnap_cost_window *w, bool can_shed, bool can_grow,
		  bool can_thin, bool thinned)
{
	bool over = w->reads && 2 * w->over >= w->reads;
	bool calm = w->reads &&
		    w->warm * KSNAP_COST_CALM_ONE_IN <= w->reads;

	w->over_seconds = over ? w->over_seconds + 1 : 0;
	w->calm_seconds = calm ? w->calm_seconds + 1 : 0;
	w->reads = 0;
	w->over = 0;
	w->warm = 0;
	w->max_ns = 0;
	if (over)
		return can_shed ? KSNAP_COST_SHED :
		       can_thin ? KSNAP_COST_THIN : KSNAP_COST_OVER;
	if (thinned && w->calm_seconds >= KSNAP_COST_UNTHIN_SECONDS) {
		w->calm_seconds = 0;
		return KSNAP_COST_UNTHIN;
	}
	if (!thinned && can_grow &&
	    w->calm_seconds >= KSNAP_COST_CALM_SECONDS) {
		w->calm_seconds = 0;
		return KSNAP_COST_GROW;
	}
	return KSNAP_COST_KEEP;
}

/**
 * ksnap_cost_max_stride() - the most periods from one read to the next
 * @period_ns: the sampling period
 *
 * Return: the periods in KSNAP_COST_WINDOW_NS, at least one: a thinned
 * collection still reads once a second.
 */
static inline u32 ksnap_cost_max_stride(u64 period_ns)
{
	u64 n = period_ns ? div64_u64(KSNAP_COST_WINDOW_NS, period_ns) : 1;

	return clamp_t(u64, n, 1, U32_MAX);
}

#endif /* KSNAP_COST_H */

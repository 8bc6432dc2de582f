/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bound on a snapshot's read, which the timer does in hardirq with
 * interrupts off (a hard timer on PREEMPT_RT too): a fraction of the
 * period, and at most an absolute cap.  Pure arithmetic, in nanoseconds
 * but for the periods (microseconds, as period_us takes them).
 */
#ifndef KSNAP_COST_H
#define KSNAP_COST_H

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
 * Reads above the bound for this long without one within it stop the
 * collection: one slow read on a busy host does not.
 */
#define KSNAP_OVERRUN_NS	NSEC_PER_SEC

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

/**
 * ksnap_cost_overrun() - the sustained-overrun check, one read at a time
 * @over_since_ns: when the reads began to exceed the bound, 0 when the
 *	last read was within it; updated
 * @now_ns: the end of this read (a monotonic clock)
 * @read_ns: this read's time
 * @bound_ns: the bound
 *
 * Return: true when every read from @over_since_ns to @now_ns, over
 * KSNAP_OVERRUN_NS or more, exceeded the bound.
 */
static inline bool ksnap_cost_overrun(u64 *over_since_ns, u64 now_ns,
				      u64 read_ns, u64 bound_ns)
{
	if (read_ns <= bound_ns) {
		*over_since_ns = 0;
		return false;
	}
	if (!*over_since_ns) {
		/* Never 0 while over: 0 means "within". */
		*over_since_ns = now_ns ?: 1;
		return false;
	}
	return now_ns - *over_since_ns >= KSNAP_OVERRUN_NS;
}

#endif /* KSNAP_COST_H */

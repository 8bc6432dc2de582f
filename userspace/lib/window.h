/* SPDX-License-Identifier: MIT */
/*
 * Window aggregates for the OpenMetrics endpoint: for each series, the
 * maximum and minimum of its samples over a rolling window, kept in a
 * ring of fixed sub-windows so that the window slides and no read
 * resets anything (several scrapers see the same answer).
 *
 * The window of window_ns is cut into nr_sub sub-windows of width_ns
 * each (window_ns / nr_sub, rounded up), aligned on multiples of width_ns
 * of the sample clock (CLOCK_MONOTONIC).  Sub-window k holds the samples
 * with k * width_ns <= t < (k + 1) * width_ns.  A query at time now covers
 * the current sub-window and the nr_sub before it, nr_sub + 1 in all (the
 * ring's slots): now / width_ns - nr_sub <= k <= now / width_ns.  So it
 * sees every sample of the last window_ns (now - window_ns <= t <= now),
 * whatever the phase of now, and at most width_ns older ones.  Its
 * maximum and minimum are exact over those sub-windows: every sample is
 * seen.
 *
 * A gauge feeds its values (window_sample()).  A counter feeds its rate
 * (window_counter()): the increase over at least its refresh interval
 * divided by the time it took, so that a counter refreshed every 2 s and
 * read every 10 ms is not seen at 200 times its real rate.
 *
 * Not thread-safe: the caller (ksnapd's web part) serialises the drain's
 * updates and the scrapes' queries.
 */
#ifndef KSNAP_WINDOW_H
#define KSNAP_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

struct window_slot {
	uint64_t epoch;		/* sub-window index + 1; 0: empty */
	double max, min;
	uint64_t max_t;		/* when max was first taken (t_ns) */
	bool have;		/* a value (a counter: a rate) in max, min */
};

struct window_ref {		/* a counter's last rate start */
	uint64_t t_ns;
	uint64_t value;
	bool have;
};

struct window {
	unsigned int nr_series;
	unsigned int nr_sub;
	unsigned int nr_slot;		/* nr_sub + 1: a query's sub-windows */
	uint64_t width_ns;
	struct window_slot *slot;	/* nr_series * nr_slot */
	struct window_ref *ref;		/* nr_series */
};

/* Sub-windows of the ring for a window of window_ns. */
#define WINDOW_NR_SUB	6

/* Returns 0 or -ENOMEM / -EINVAL (no series is fine; no width is not). */
int window_init(struct window *w, unsigned int nr_series, unsigned int nr_sub,
		uint64_t window_ns);
void window_fini(struct window *w);

/* A gauge's sample v of series i at t_ns. */
void window_sample(struct window *w, unsigned int i, uint64_t t_ns, double v);

/*
 * A counter's sample of series i at t_ns: once interval_ns (at least 1)
 * have passed since the last rate's start, the rate per second since then
 * is a sample of the window, taken at t_ns (the interval's end), and this
 * one the next start.  A counter that
 * goes back restarts the rate (no negative rate).  The sub-window is
 * marked as seen either way (window_query() says the series is alive).
 */
void window_counter(struct window *w, unsigned int i, uint64_t t_ns,
		    uint64_t v, uint64_t interval_ns);

/*
 * Series i at now_ns: returns false when it had no sample in the window
 * (a series to drop); otherwise true, with *max and *min of its values
 * (rates), and *have false when it has none yet (a counter before its
 * first interval).
 */
bool window_query(const struct window *w, unsigned int i, uint64_t now_ns,
		  double *max, double *min, bool *have);

/*
 * window_query(), and when *have, *max_t the time (t_ns) of the first
 * sample in the window at the maximum: the earliest, where several
 * sub-windows reach it.
 */
bool window_query_peak(const struct window *w, unsigned int i,
		       uint64_t now_ns, double *max, double *min, bool *have,
		       uint64_t *max_t);

#endif /* KSNAP_WINDOW_H */

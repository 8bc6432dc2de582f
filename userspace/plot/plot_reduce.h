/* SPDX-License-Identifier: MIT */
/*
 * ksnap-plot's data reduction, in memory bounded by its output whatever
 * the input's length: rows come one at a time, in time order, and are
 * never kept.
 *
 * Rates (pr_rate): a cumulative counter becomes its rate per second
 * between consecutive rows, (v - v_prev) / (t - t_prev), so a burst
 * inside one period is as tall as it was.  The first row has no rate; a
 * value below the one before is a counter reset (the counter started
 * again), which has no rate either and is counted.  Across a gap (rows
 * lost or periods missed) the rate is the mean over the gap: what the
 * counter says happened there, no more.
 *
 * Buckets (pr_buckets): at most nb buckets of width w ns from the first
 * row's time t0.  w starts at 1 ns and doubles when a row falls past the
 * last bucket, each pair of buckets then merging into one, so the
 * buckets always cover the rows so far with nb/2 to nb of them, and a
 * bucket's bounds never depend on rows not yet read.  Per series and
 * bucket the minimum and the maximum are kept, and which came first: a
 * single-sample spike is the maximum of its bucket at every width, so it
 * is drawn at every zoom level.  A bucket of one row is that row, exact.
 *
 * Spans (pr_spans): time ranges with a count (gaps, damaged lines), at
 * most cap of them; past that neighbours merge pairwise, so the list
 * stays bounded and still covers every range it was given.
 */
#ifndef KSNAP_PLOT_REDUCE_H
#define KSNAP_PLOT_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- rates ----------------------------------------------------------- */

struct pr_rate {
	bool have_prev;
	uint64_t prev_t, prev_v;
	uint64_t resets;		/* values below the one before */
};

/* The rate per second at (t, v): false for the first row and a reset. */
bool pr_rate_next(struct pr_rate *r, uint64_t t, uint64_t v, double *rate);

/* --- buckets --------------------------------------------------------- */

#define PR_HAS		0x1		/* the series has a value here */
#define PR_MAX_FIRST	0x2		/* its maximum came before its min */

struct pr_buckets {
	uint32_t nb;			/* buckets, even */
	uint32_t ns;			/* series */
	uint64_t w;			/* width, ns: a power of two */
	uint64_t t0;			/* the first row's time */
	bool started;
	uint64_t rows;			/* rows pushed */
	/* per bucket */
	uint64_t *cnt, *t_first, *t_last;
	/* per bucket and series: [b * ns + s] */
	double *min, *max;
	uint8_t *flags;
};

/* nb buckets (rounded up to even, at least 2) of ns series; -ENOMEM. */
int pr_buckets_init(struct pr_buckets *b, uint32_t nb, uint32_t ns);
void pr_buckets_free(struct pr_buckets *b);
/* A row at t (not before the last one): v[s] where has[s]. */
void pr_buckets_push(struct pr_buckets *b, uint64_t t, const double *v,
		     const bool *has);
/* Double the width once, merging pairs: half the buckets (at most). */
void pr_buckets_halve(struct pr_buckets *b);
/* Halve, and keep only the buckets that hold rows now: nb / 2 (at
 * least 2).  For fitting the output, once the rows are all pushed. */
void pr_buckets_coarsen(struct pr_buckets *b);
/* Buckets holding rows, and the points they draw (1 or 2 each). */
uint32_t pr_buckets_used(const struct pr_buckets *b);
uint64_t pr_buckets_points(const struct pr_buckets *b);

/*
 * The points series s draws, in time order: fn(priv, t, v, has) once per
 * bucket of one row, twice per bucket of more (at its first and its last
 * row's time: the series' earlier extreme, then its later one).  Every
 * series has the same points' times.
 */
int pr_buckets_each(const struct pr_buckets *b, uint32_t s,
		    int (*fn)(void *priv, uint64_t t, double v, bool has),
		    void *priv);

/* --- spans ----------------------------------------------------------- */

struct pr_span {
	uint64_t t0, t1;
	uint64_t n;			/* what it stands for: rows, lines */
};

struct pr_spans {
	struct pr_span *s;
	size_t len, cap;
	uint64_t given;			/* spans added, before merging */
	uint64_t total;			/* their n, summed */
};

int pr_spans_init(struct pr_spans *sp, size_t cap);
void pr_spans_free(struct pr_spans *sp);
/* Add [t0, t1] standing for n (added in time order, or nearly). */
void pr_spans_add(struct pr_spans *sp, uint64_t t0, uint64_t t1, uint64_t n);

#endif /* KSNAP_PLOT_REDUCE_H */

// SPDX-License-Identifier: MIT
/*
 * ksnap-plot's data reduction (plot_reduce.h): min/max buckets keep every
 * extreme at every width, in the order they came; rates per second,
 * counter resets and gaps; bounded spans.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plot_reduce.h"

#define MAX_POINTS 1024

/* The points pr_buckets_each() gave for one series. */
static struct {
	unsigned int n;
	uint64_t t[MAX_POINTS];
	double v[MAX_POINTS];
	bool has[MAX_POINTS];
	double max, min;
} pts;

static int take(void *priv, uint64_t t, double v, bool has)
{
	(void)priv;
	if (pts.n < MAX_POINTS) {
		pts.t[pts.n] = t;
		pts.v[pts.n] = v;
		pts.has[pts.n] = has;
	}
	pts.n++;
	if (has && v > pts.max)
		pts.max = v;
	if (has && v < pts.min)
		pts.min = v;
	return 0;
}

static void points_of(const struct pr_buckets *b, uint32_t s)
{
	memset(&pts, 0, sizeof(pts));
	pts.max = -1e300;
	pts.min = 1e300;
	assert_int_equal(pr_buckets_each(b, s, take, NULL), 0);
}

static void push1(struct pr_buckets *b, uint64_t t, double v)
{
	bool has = true;

	pr_buckets_push(b, t, &v, &has);
}

#define expect_eq(what, want, got) do {					\
	double w_ = (want), g_ = (got);					\
	if (w_ != g_)							\
		fail_msg("expected %s %.17g, got %.17g", what, w_, g_);	\
} while (0)

static void a_single_row_spike_stays_at_every_width(void **state)
{
	struct pr_buckets b;
	uint64_t i;

	assert_int_equal(pr_buckets_init(&b, 64, 1), 0);
	for (i = 0; i < 200000; i++)
		push1(&b, 1000 * (i + 1), i == 123457 ? 987654321.0 : 5.0);
	points_of(&b, 0);
	expect_eq("largest point", 987654321.0, pts.max);
	expect_eq("smallest point", 5.0, pts.min);
	while (b.nb > 2) {
		pr_buckets_coarsen(&b);
		points_of(&b, 0);
		expect_eq("largest point after coarsening", 987654321.0,
			  pts.max);
	}
	pr_buckets_free(&b);
}

static void a_single_row_dip_stays_as_a_minimum(void **state)
{
	struct pr_buckets b;
	uint64_t i;

	assert_int_equal(pr_buckets_init(&b, 16, 1), 0);
	for (i = 0; i < 10000; i++)
		push1(&b, 7 * i + 3, i == 9999 ? 0.0 : 1000.0 + (double)(i % 3));
	points_of(&b, 0);
	expect_eq("smallest point", 0.0, pts.min);
	expect_eq("largest point", 1002.0, pts.max);
	pr_buckets_free(&b);
}

static void buckets_cover_the_rows_with_half_to_all_of_them(void **state)
{
	struct pr_buckets b;
	uint64_t i;

	assert_int_equal(pr_buckets_init(&b, 256, 1), 0);
	for (i = 0; i < 1000000; i++)
		push1(&b, 100000 * i + 5, 1.0);
	if (pr_buckets_used(&b) < 128 || pr_buckets_used(&b) > 256)
		fail_msg("expected 128 to 256 buckets used, got %u",
			 pr_buckets_used(&b));
	expect_eq("rows", 1000000, (double)b.rows);
	expect_eq("points", 2.0 * pr_buckets_used(&b),
		  (double)pr_buckets_points(&b));
	pr_buckets_free(&b);
}

static void few_rows_are_drawn_exactly(void **state)
{
	static const uint64_t t[] = { 1000, 2000, 3500, 9000 };
	static const double v[] = { 4, 8, 2, 6 };
	struct pr_buckets b;
	unsigned int i;

	assert_int_equal(pr_buckets_init(&b, 64, 1), 0);
	for (i = 0; i < 4; i++)
		push1(&b, t[i], v[i]);
	points_of(&b, 0);
	expect_eq("points", 4, pts.n);
	for (i = 0; i < 4; i++) {
		expect_eq("time", (double)t[i], (double)pts.t[i]);
		expect_eq("value", v[i], pts.v[i]);
	}
	pr_buckets_free(&b);
}

static void extremes_come_in_the_order_they_happened(void **state)
{
	struct pr_buckets b;

	/* One bucket (2 of width 2^k cover the range): max, then min. */
	assert_int_equal(pr_buckets_init(&b, 2, 2), 0);
	{
		double v[2] = { 5, 1 }, w[2] = { 9, 0 }, x[2] = { 1, 9 };
		bool has[2] = { true, true };

		pr_buckets_push(&b, 0, v, has);
		pr_buckets_push(&b, 1, w, has);	/* s0: max; s1: min */
		pr_buckets_push(&b, 2, x, has);	/* s0: min; s1: max */
		pr_buckets_push(&b, 1000, v, has);	/* forces halving */
	}
	points_of(&b, 0);
	expect_eq("series 0 first point: its maximum", 9, pts.v[0]);
	expect_eq("series 0 second point: its minimum", 1, pts.v[1]);
	points_of(&b, 1);
	expect_eq("series 1 first point: its minimum", 0, pts.v[0]);
	expect_eq("series 1 second point: its maximum", 9, pts.v[1]);
	expect_eq("first point's time: the bucket's first row", 0,
		  (double)pts.t[0]);
	expect_eq("second point's time: the bucket's last row", 2,
		  (double)pts.t[1]);
	pr_buckets_free(&b);
}

static void halving_merges_both_halves_extremes(void **state)
{
	struct pr_buckets b;

	assert_int_equal(pr_buckets_init(&b, 4, 1), 0);
	push1(&b, 0, 3);
	push1(&b, 1, 7);	/* bucket 1 */
	push1(&b, 2, -2);	/* bucket 2 */
	push1(&b, 3, 4);
	pr_buckets_halve(&b);	/* [0,1] [2,3] */
	points_of(&b, 0);
	expect_eq("points", 4, pts.n);
	expect_eq("first bucket min", 3, pts.v[0]);
	expect_eq("first bucket max", 7, pts.v[1]);
	expect_eq("second bucket min", -2, pts.v[2]);
	expect_eq("second bucket max", 4, pts.v[3]);
	pr_buckets_halve(&b);	/* [0..3]: min -2 after max 7 */
	points_of(&b, 0);
	expect_eq("merged: max first", 7, pts.v[0]);
	expect_eq("merged: min last", -2, pts.v[1]);
	pr_buckets_free(&b);
}

static void a_series_without_values_in_a_bucket_has_none(void **state)
{
	struct pr_buckets b;
	double v[2] = { 1, 2 };
	bool has[2] = { true, false };

	assert_int_equal(pr_buckets_init(&b, 8, 2), 0);
	pr_buckets_push(&b, 10, v, has);
	points_of(&b, 1);
	expect_eq("points", 1, pts.n);
	assert_false(pts.has[0]);
	points_of(&b, 0);
	assert_true(pts.has[0]);
	pr_buckets_free(&b);
}

static void rate_is_per_second_between_consecutive_rows(void **state)
{
	struct pr_rate r = { 0 };
	double rate = -1;

	assert_false(pr_rate_next(&r, 1000000, 100, &rate));
	assert_true(pr_rate_next(&r, 2000000, 110, &rate));
	expect_eq("rate", 10000.0, rate);
}

static void a_counter_reset_has_no_rate_and_is_counted(void **state)
{
	struct pr_rate r = { 0 };
	double rate = -1;

	pr_rate_next(&r, 1000, 500, &rate);
	assert_false(pr_rate_next(&r, 2000, 20, &rate));
	expect_eq("resets", 1, (double)r.resets);
	assert_true(pr_rate_next(&r, 3000, 30, &rate));
	expect_eq("rate from the value after the reset", 1e7, rate);
}

static void across_a_gap_the_rate_is_the_mean_over_it(void **state)
{
	struct pr_rate r = { 0 };
	double rate = -1;

	pr_rate_next(&r, 1000000, 0, &rate);
	/* four periods missing: 50 counted over 5 ms */
	assert_true(pr_rate_next(&r, 6000000, 50, &rate));
	expect_eq("rate", 10000.0, rate);
	expect_eq("resets", 0, (double)r.resets);
}

static void a_counter_standing_still_is_rate_zero(void **state)
{
	struct pr_rate r = { 0 };
	double rate = -1;

	pr_rate_next(&r, 1, 7, &rate);
	assert_true(pr_rate_next(&r, 2, 7, &rate));
	expect_eq("rate", 0.0, rate);
}

static void spans_merge_pairwise_and_still_cover_all(void **state)
{
	struct pr_spans sp;
	uint64_t i;

	assert_int_equal(pr_spans_init(&sp, 4), 0);
	for (i = 0; i < 11; i++)
		pr_spans_add(&sp, 100 * i, 100 * i + 10, 2);
	if (sp.len > 4)
		fail_msg("expected at most 4 spans, got %zu", sp.len);
	expect_eq("first span's start", 0, (double)sp.s[0].t0);
	expect_eq("last span's end", 1010, (double)sp.s[sp.len - 1].t1);
	expect_eq("spans given", 11, (double)sp.given);
	expect_eq("total", 22, (double)sp.total);
	{
		uint64_t n = 0;

		for (i = 0; i < sp.len; i++)
			n += sp.s[i].n;
		expect_eq("the spans' counts add up", 22, (double)n);
	}
	pr_spans_free(&sp);
}

static void touching_spans_are_one(void **state)
{
	struct pr_spans sp;

	assert_int_equal(pr_spans_init(&sp, 8), 0);
	pr_spans_add(&sp, 10, 20, 1);
	pr_spans_add(&sp, 20, 30, 1);
	pr_spans_add(&sp, 25, 25, 1);
	expect_eq("spans", 1, (double)sp.len);
	expect_eq("end", 30, (double)sp.s[0].t1);
	expect_eq("count", 3, (double)sp.s[0].n);
	pr_spans_free(&sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_single_row_spike_stays_at_every_width),
		cmocka_unit_test(a_single_row_dip_stays_as_a_minimum),
		cmocka_unit_test(buckets_cover_the_rows_with_half_to_all_of_them),
		cmocka_unit_test(few_rows_are_drawn_exactly),
		cmocka_unit_test(extremes_come_in_the_order_they_happened),
		cmocka_unit_test(halving_merges_both_halves_extremes),
		cmocka_unit_test(a_series_without_values_in_a_bucket_has_none),
		cmocka_unit_test(rate_is_per_second_between_consecutive_rows),
		cmocka_unit_test(a_counter_reset_has_no_rate_and_is_counted),
		cmocka_unit_test(across_a_gap_the_rate_is_the_mean_over_it),
		cmocka_unit_test(a_counter_standing_still_is_rate_zero),
		cmocka_unit_test(spans_merge_pairwise_and_still_cover_all),
		cmocka_unit_test(touching_spans_are_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

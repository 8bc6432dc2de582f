// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_cost: the bound on a snapshot's read, the period and
 * the columns that fit it, and the verdict on each second of reads
 * (kmod/cost.h).
 */
#include <kunit/test.h>

#include "../../kmod/cost.h"

#define US	NSEC_PER_USEC
#define MS	NSEC_PER_MSEC

static void ksnap_cost_bound(struct kunit *test)
{
	/* The period's share... */
	KUNIT_EXPECT_EQ(test, ksnap_cost_bound_ns(10 * US, 25, 100 * US),
			2500ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cost_bound_ns(200 * US, 25, 100 * US),
			50 * US);
	/* ...at most the cap. */
	KUNIT_EXPECT_EQ(test, ksnap_cost_bound_ns(1 * MS, 25, 100 * US),
			100 * US);
	KUNIT_EXPECT_EQ(test, ksnap_cost_bound_ns(NSEC_PER_SEC, 100,
						  1000000 * US), NSEC_PER_SEC);
	/* Rounded down. */
	KUNIT_EXPECT_EQ(test, ksnap_cost_bound_ns(10 * US + 3, 25, 100 * US),
			2500ULL);
}

static void ksnap_cost_fit_period(struct kunit *test)
{
	u64 cap = 1000000 * US;

	/* 41 us at 25%: 164 us exactly. */
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_period_us(41000, 25, cap, 10,
						       1000000), 164ULL);
	/* A nanosecond more needs the next microsecond. */
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_period_us(41001, 25, cap, 10,
						       1000000), 165ULL);
	/* Never below the shortest period there is. */
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_period_us(1, 25, cap, 10,
						       1000000), 10ULL);
	/* Above the cap: no period fits. */
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_period_us(101 * US, 25, 100 * US,
						       10, 1000000), 0ULL);
	/* At the cap: the period whose share reaches it. */
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_period_us(100 * US, 25, 100 * US,
						       10, 1000000), 400ULL);
	/* Beyond the longest period: none. */
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_period_us(100 * MS, 1, cap, 10,
						       1000000), 0ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_period_us(10 * MS, 1, cap, 10,
						       1000000), 1000000ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_period_us(1000, 0, cap, 10,
						       1000000), 0ULL);
}

/* The period given is the shortest whose bound holds the estimate. */
static void ksnap_cost_fit_period_is_shortest(struct kunit *test)
{
	static const unsigned int pcts[] = { 1, 7, 25, 33, 50, 99, 100 };
	u64 cap = 1000000 * US, est, us, b;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		for (est = 1; est < 5 * MS; est = est * 3 + 7) {
			us = ksnap_cost_fit_period_us(est, pcts[i], cap, 10,
						      1000000);
			KUNIT_ASSERT_NE_MSG(test, us, 0ULL, "est %llu pct %u",
					    est, pcts[i]);
			b = ksnap_cost_bound_ns(us * US, pcts[i], cap);
			KUNIT_EXPECT_GE_MSG(test, b, est, "est %llu pct %u",
					    est, pcts[i]);
			if (us > 10)
				KUNIT_EXPECT_LT_MSG(test,
						    ksnap_cost_bound_ns((us - 1) * US,
									pcts[i], cap),
						    est, "est %llu pct %u",
						    est, pcts[i]);
		}
	}
}

static void ksnap_cost_fit_columns_cases(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_columns(150, 2500, 2500), 150U);
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_columns(150, 41000, 2500), 9U);
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_columns(150, 300 * US, 100 * US),
			50U);
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_columns(1, 3000, 2500), 0U);
	KUNIT_EXPECT_EQ(test, ksnap_cost_fit_columns(256, 1000 * MS, 0), 0U);
}

/*
 * A second of @n reads, @over of them above a bound of 100 ns, judged with
 * @flags: what the set can do (the arguments of ksnap_cost_second()).
 */
#define CAN_SHED	BIT(0)
#define CAN_GROW	BIT(1)
#define CAN_THIN	BIT(2)
#define THINNED		BIT(3)

static enum ksnap_cost_verdict judge(struct ksnap_cost_window *w,
				     unsigned int n, unsigned int over,
				     unsigned int flags)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ksnap_cost_read(w, i < over ? 500 : 50, 100, 100);
	return ksnap_cost_second(w, flags & CAN_SHED, flags & CAN_GROW,
				 flags & CAN_THIN, flags & THINNED);
}

/* A set that may shed (@can_shed) or take back (@can_grow), not thinned. */
static enum ksnap_cost_verdict second(struct ksnap_cost_window *w,
				      unsigned int n, unsigned int over,
				      bool can_shed, bool can_grow)
{
	return judge(w, n, over, (can_shed ? CAN_SHED : 0) |
				 (can_grow ? CAN_GROW : 0));
}

/* A set with nothing to shed: @thin, the stride may grow; @thinned. */
static enum ksnap_cost_verdict thin_second(struct ksnap_cost_window *w,
					   unsigned int n, unsigned int over,
					   bool thin, bool thinned)
{
	return judge(w, n, over, (thin ? CAN_THIN : 0) |
				 (thinned ? THINNED : 0));
}

/* Reads that alternate over and under the bound are an overrun. */
static void ksnap_cost_alternating_reads_overrun(struct kunit *test)
{
	struct ksnap_cost_window w = { 0 };
	unsigned int i;

	for (i = 0; i < 1000; i++)
		ksnap_cost_read(&w, i % 2 ? 500 : 50, 100, 100);
	KUNIT_EXPECT_EQ(test, ksnap_cost_second(&w, true, false, false, false),
			KSNAP_COST_SHED);
	KUNIT_EXPECT_EQ(test, w.over_seconds, 1U);
}

/* One long read in a second (a preempted vCPU) is no overrun. */
static void ksnap_cost_one_long_read_is_no_overrun(struct kunit *test)
{
	struct ksnap_cost_window w = { 0 };
	unsigned int i;

	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, second(&w, 1000, 1, true, false),
				KSNAP_COST_KEEP);
	KUNIT_EXPECT_EQ(test, w.over_seconds, 0U);
}

/* With cgroups to shed, every over second sheds, before any thinning. */
static void ksnap_cost_over_second_sheds(struct kunit *test)
{
	struct ksnap_cost_window w = { 0 };
	unsigned int i, j;

	for (i = 0; i < 10; i++) {
		for (j = 0; j < 100; j++)
			ksnap_cost_read(&w, 500, 100, 100);
		KUNIT_EXPECT_EQ(test,
				ksnap_cost_second(&w, true, false, true, false),
				KSNAP_COST_SHED);
	}
}

/*
 * With nothing to shed, every over second thins while the stride may
 * grow; after that it is KSNAP_COST_OVER, never a stop.
 */
static void ksnap_cost_nothing_to_shed_thins(struct kunit *test)
{
	struct ksnap_cost_window w = { 0 };
	unsigned int i;

	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, thin_second(&w, 100, 60, true, i > 0),
				KSNAP_COST_THIN);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, thin_second(&w, 1, 1, false, true),
				KSNAP_COST_OVER);
	/* Under the bound, but not yet calm long enough: nothing. */
	KUNIT_EXPECT_EQ(test, thin_second(&w, 100, 10, false, true),
			KSNAP_COST_KEEP);
	/* A second with no read judges nothing. */
	KUNIT_EXPECT_EQ(test, thin_second(&w, 0, 0, false, true),
			KSNAP_COST_KEEP);
	KUNIT_EXPECT_EQ(test, w.over_seconds, 0U);
}

/*
 * A thinned stride halves after KSNAP_COST_UNTHIN_SECONDS calm seconds in
 * a row, before any shed cgroup is taken back; calm by the bound at half
 * the stride, which the caller passes.
 */
static void ksnap_cost_calm_seconds_unthin(struct kunit *test)
{
	struct ksnap_cost_window w = { 0 };
	unsigned int i;

	for (i = 0; i + 1 < KSNAP_COST_UNTHIN_SECONDS; i++) {
		ksnap_cost_read(&w, 70, 200, 100);
		KUNIT_EXPECT_EQ(test, ksnap_cost_second(&w, false, true, true,
							true),
				KSNAP_COST_KEEP);
	}
	ksnap_cost_read(&w, 70, 200, 100);
	KUNIT_EXPECT_EQ(test, ksnap_cost_second(&w, false, true, true, true),
			KSNAP_COST_UNTHIN);
	KUNIT_EXPECT_EQ(test, w.calm_seconds, 0U);
	/* Within the bound, but above 75% of half the stride's: not calm. */
	for (i = 0; i < 2 * KSNAP_COST_UNTHIN_SECONDS; i++) {
		ksnap_cost_read(&w, 80, 200, 100);
		KUNIT_EXPECT_EQ(test, ksnap_cost_second(&w, false, true, true,
							true),
				KSNAP_COST_KEEP);
	}
	KUNIT_EXPECT_EQ(test, w.calm_seconds, 0U);
	KUNIT_EXPECT_EQ(test, w.over_seconds, 0U);
}

/* A thinned collection still reads once a second. */
static void ksnap_cost_max_stride_cases(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksnap_cost_max_stride(MS), 1000U);
	KUNIT_EXPECT_EQ(test, ksnap_cost_max_stride(10 * US), 100000U);
	KUNIT_EXPECT_EQ(test, ksnap_cost_max_stride(3 * MS), 333U);
	KUNIT_EXPECT_EQ(test, ksnap_cost_max_stride(1000 * MS), 1U);
	KUNIT_EXPECT_EQ(test, ksnap_cost_max_stride(5000 * MS), 1U);
	KUNIT_EXPECT_EQ(test, ksnap_cost_max_stride(0), 1U);
}

/* Shed cgroups come back after KSNAP_COST_CALM_SECONDS calm seconds. */
static void ksnap_cost_calm_seconds_grow(struct kunit *test)
{
	struct ksnap_cost_window w = { 0 };
	unsigned int i;

	for (i = 0; i + 1 < KSNAP_COST_CALM_SECONDS; i++)
		KUNIT_EXPECT_EQ(test, second(&w, 100, 0, true, true),
				KSNAP_COST_KEEP);
	KUNIT_EXPECT_EQ(test, second(&w, 100, 0, true, true), KSNAP_COST_GROW);
	/* The count restarts: the next growth waits as long. */
	KUNIT_EXPECT_EQ(test, second(&w, 100, 0, true, true), KSNAP_COST_KEEP);
	/* Nothing shed: nothing to grow. */
	for (i = 0; i < 2 * KSNAP_COST_CALM_SECONDS; i++)
		KUNIT_EXPECT_EQ(test, second(&w, 100, 0, true, false),
				KSNAP_COST_KEEP);
	/* A read above 75% of the bound is not calm. */
	w.calm_seconds = KSNAP_COST_CALM_SECONDS - 1;
	ksnap_cost_read(&w, 80, 100, 100);
	KUNIT_EXPECT_EQ(test, ksnap_cost_second(&w, true, true, false, false),
			KSNAP_COST_KEEP);
	KUNIT_EXPECT_EQ(test, w.calm_seconds, 0U);
}

/*
 * A few long reads in a second (vCPUs their host preempted) keep it calm:
 * shed cgroups come back; more than one in KSNAP_COST_CALM_ONE_IN do not.
 */
static void ksnap_cost_few_long_reads_stay_calm(struct kunit *test)
{
	struct ksnap_cost_window w = { 0 };
	unsigned int i;

	/* 100 reads a second, 10 of them 5 times the bound. */
	for (i = 0; i + 1 < KSNAP_COST_CALM_SECONDS; i++)
		KUNIT_EXPECT_EQ(test, second(&w, 100, 10, true, true),
				KSNAP_COST_KEEP);
	KUNIT_EXPECT_EQ(test, second(&w, 100, 10, true, true),
			KSNAP_COST_GROW);
	/* 11 of 100 above 75% of the bound: not calm. */
	w.calm_seconds = KSNAP_COST_CALM_SECONDS - 1;
	for (i = 0; i < 100; i++)
		ksnap_cost_read(&w, i < 11 ? 80 : 50, 100, 100);
	KUNIT_EXPECT_EQ(test, ksnap_cost_second(&w, true, true, false, false),
			KSNAP_COST_KEEP);
	KUNIT_EXPECT_EQ(test, w.calm_seconds, 0U);
}

static struct kunit_case ksnap_cost_cases[] = {
	KUNIT_CASE(ksnap_cost_bound),
	KUNIT_CASE(ksnap_cost_fit_period),
	KUNIT_CASE(ksnap_cost_fit_period_is_shortest),
	KUNIT_CASE(ksnap_cost_fit_columns_cases),
	KUNIT_CASE(ksnap_cost_alternating_reads_overrun),
	KUNIT_CASE(ksnap_cost_one_long_read_is_no_overrun),
	KUNIT_CASE(ksnap_cost_over_second_sheds),
	KUNIT_CASE(ksnap_cost_nothing_to_shed_thins),
	KUNIT_CASE(ksnap_cost_calm_seconds_unthin),
	KUNIT_CASE(ksnap_cost_max_stride_cases),
	KUNIT_CASE(ksnap_cost_calm_seconds_grow),
	KUNIT_CASE(ksnap_cost_few_long_reads_stay_calm),
	{}
};

static struct kunit_suite ksnap_cost_suite = {
	.name = "ksnap_cost",
	.test_cases = ksnap_cost_cases,
};

kunit_test_suite(ksnap_cost_suite);

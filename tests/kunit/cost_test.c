// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_cost: the bound on a snapshot's read, the period and
 * the columns that fit it, and the sustained-overrun check (kmod/cost.h).
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

static void ksnap_cost_overrun_cases(struct kunit *test)
{
	u64 since = 0, t0 = 5 * NSEC_PER_SEC;

	/* Within the bound: nothing starts. */
	KUNIT_EXPECT_FALSE(test, ksnap_cost_overrun(&since, t0, 100, 100));
	KUNIT_EXPECT_EQ(test, since, 0ULL);
	/* Above: the overrun starts, and lasts until a read within. */
	KUNIT_EXPECT_FALSE(test, ksnap_cost_overrun(&since, t0, 101, 100));
	KUNIT_EXPECT_EQ(test, since, t0);
	KUNIT_EXPECT_FALSE(test, ksnap_cost_overrun(&since, t0 + KSNAP_OVERRUN_NS - 1,
						    500, 100));
	/* One read within the bound starts it over. */
	KUNIT_EXPECT_FALSE(test, ksnap_cost_overrun(&since, t0 + KSNAP_OVERRUN_NS,
						    50, 100));
	KUNIT_EXPECT_EQ(test, since, 0ULL);
	KUNIT_EXPECT_FALSE(test, ksnap_cost_overrun(&since, t0 + 2 * KSNAP_OVERRUN_NS,
						    500, 100));
	KUNIT_EXPECT_FALSE(test, ksnap_cost_overrun(&since, t0 + 3 * KSNAP_OVERRUN_NS - 1,
						    500, 100));
	/* Above for KSNAP_OVERRUN_NS: stop. */
	KUNIT_EXPECT_TRUE(test, ksnap_cost_overrun(&since, t0 + 3 * KSNAP_OVERRUN_NS,
						   500, 100));
	/* A clock at 0 still marks the overrun as started. */
	since = 0;
	KUNIT_EXPECT_FALSE(test, ksnap_cost_overrun(&since, 0, 500, 100));
	KUNIT_EXPECT_NE(test, since, 0ULL);
}

static struct kunit_case ksnap_cost_cases[] = {
	KUNIT_CASE(ksnap_cost_bound),
	KUNIT_CASE(ksnap_cost_fit_period),
	KUNIT_CASE(ksnap_cost_fit_period_is_shortest),
	KUNIT_CASE(ksnap_cost_fit_columns_cases),
	KUNIT_CASE(ksnap_cost_overrun_cases),
	{}
};

static struct kunit_suite ksnap_cost_suite = {
	.name = "ksnap_cost",
	.test_cases = ksnap_cost_cases,
};

kunit_test_suite(ksnap_cost_suite);

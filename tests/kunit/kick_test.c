// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_kick: the rate of the rescans cgroup events start
 * (kmod/kick.h): a burst back to back, then one every gap, and the burst
 * again after a quiet time.
 */
#include <kunit/test.h>

#include "../../kmod/kick.h"

#define GAP	50UL	/* jiffies */
#define BURST	3U

/*
 * Events without end from @start: each rescan runs as soon as the last
 * allows (never before @now).  The times of the first @n rescans, in @at.
 */
static void kick_run(unsigned long *tat, unsigned long start,
		     unsigned long *at, unsigned int n)
{
	unsigned long now = start, next;
	unsigned int i;

	for (i = 0; i < n; i++) {
		at[i] = now;
		next = ksnap_kick_take(tat, now, GAP, BURST);
		if (time_after(next, now))
			now = next;
	}
}

/* A burst, back to back, then one every gap. */
static void ksnap_kick_burst_then_gap(struct kunit *test)
{
	unsigned long tat = 1000, at[8];
	unsigned int i;

	kick_run(&tat, 1000, at, 8);
	for (i = 0; i < BURST; i++)
		KUNIT_EXPECT_EQ_MSG(test, at[i], 1000UL,
				    "rescan %u of the burst", i);
	for (i = BURST; i < 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, at[i], 1000UL + (i - BURST + 1) * GAP,
				    "rescan %u after the burst", i);
}

/* In any time T of events without end: at most BURST + T / GAP. */
static void ksnap_kick_rate_is_bounded(struct kunit *test)
{
	unsigned long tat = 0, at[64];
	unsigned int i, j;

	kick_run(&tat, 0, at, 64);
	for (i = 0; i < 64; i++)
		for (j = i; j < 64; j++)
			if (j - i + 1 > BURST + (at[j] - at[i]) / GAP) {
				KUNIT_FAIL(test,
					   "rescans %u..%u: expected at most %lu in %lu jiffies, got %u",
					   i, j, BURST + (at[j] - at[i]) / GAP,
					   at[j] - at[i], j - i + 1);
				return;
			}
}

/* Quiet for BURST gaps after the bucket emptied: the whole burst again. */
static void ksnap_kick_quiet_time_refills(struct kunit *test)
{
	unsigned long tat = 0, at[8];
	unsigned int i;

	kick_run(&tat, 0, at, 8);
	/* at[7] emptied it again; BURST gaps later: */
	kick_run(&tat, at[7] + BURST * GAP, at, BURST + 1);
	for (i = 1; i < BURST; i++)
		KUNIT_EXPECT_EQ_MSG(test, at[i], at[0], "rescan %u", i);
	KUNIT_EXPECT_EQ(test, at[BURST], at[0] + GAP);
}

/* jiffies wrap: the same rhythm across it. */
static void ksnap_kick_across_the_wrap(struct kunit *test)
{
	unsigned long start = ULONG_MAX - GAP, tat = start, at[6];
	unsigned int i;

	kick_run(&tat, start, at, 6);
	for (i = BURST; i < 6; i++)
		KUNIT_EXPECT_EQ_MSG(test, at[i] - at[i - 1], GAP,
				    "rescan %u", i);
}

static struct kunit_case ksnap_kick_cases[] = {
	KUNIT_CASE(ksnap_kick_burst_then_gap),
	KUNIT_CASE(ksnap_kick_rate_is_bounded),
	KUNIT_CASE(ksnap_kick_quiet_time_refills),
	KUNIT_CASE(ksnap_kick_across_the_wrap),
	{}
};

static struct kunit_suite ksnap_kick_suite = {
	.name = "ksnap_kick",
	.test_cases = ksnap_kick_cases,
};

kunit_test_suite(ksnap_kick_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_cgusage: cpu.stat.usage made live (kmod/cgusage.h):
 * which reading of K = F - sum(L) a sample goes by; and its split into
 * user and system parts.
 */
#include <kunit/test.h>
#include <linux/minmax.h>

#include "../../kmod/cgusage.h"

/* A reading of K seen on two samples in a row is adopted. */
static void ksnap_cgusage_adopt_on_two(struct kunit *test)
{
	struct ksnap_cg_usage st = { 0 };

	/* The first sample has nothing else to go by. */
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 100, 1000, 0), 1100ULL);
	KUNIT_EXPECT_EQ(test, st.state, (u8)KSNAP_CG_USAGE_SEEN);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 100, 1010, 0), 1110ULL);
	KUNIT_EXPECT_EQ(test, st.state, (u8)KSNAP_CG_USAGE_ADOPTED);
	KUNIT_EXPECT_EQ(test, st.k, 100ULL);
	/* A lasting change (a dying child's last flush) after two. */
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 150, 1020, 0), 1120ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 150, 1030, 0), 1180ULL);
}

/*
 * A sample inside a flush's window (F moved by d = 5000, L not yet, or
 * the other way round) goes by the K adopted before: exact.
 */
static void ksnap_cgusage_outlier_ignored(struct kunit *test)
{
	struct ksnap_cg_usage st = { 0 };

	ksnap_cg_usage_next(&st, 0, 1000, 0);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 0, 2000, 0), 2000ULL);
	/* Counted twice: K + d. */
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 5000, 3000, 0), 3000ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 0, 4000, 0), 4000ULL);
	/* Counted not at all: K - d, wrapped. */
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, -5000ULL, 5000, 0), 5000ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 0, 6000, 0), 6000ULL);
	/* Two different outliers in a row: neither adopted. */
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 7, 7000, 0), 7000ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 9, 8000, 0), 8000ULL);
	KUNIT_EXPECT_EQ(test, st.k, 0ULL);
}

/*
 * A window open for two samples is adopted, then given up: the values,
 * held at their last as the sampler holds a monotonic metric, never
 * step back and are exact again once the true sum passes the held one.
 */
static void ksnap_cgusage_never_steps_back(struct kunit *test)
{
	static const struct { u64 k, own, want; } s[] = {
		{ 0, 1000, 1000 }, { 0, 2000, 2000 },
		{ 5000, 3000, 3000 },	/* in the window: the old K */
		{ 5000, 4000, 9000 },	/* still: adopted, 5000 too many */
		{ 0, 5000, 10000 },	/* closed: the K adopted still */
		{ 0, 6000, 10000 },	/* K 0 adopted again: 6000, held */
		{ 0, 9500, 10000 },	/* held */
		{ 0, 10500, 10500 },	/* passed: exact again */
	};
	struct ksnap_cg_usage st = { 0 };
	u64 last = 0, v;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(s); i++) {
		v = ksnap_cg_usage_next(&st, s[i].k, s[i].own, 0);
		v = max(v, last);
		KUNIT_EXPECT_GE(test, v, last);
		KUNIT_EXPECT_EQ_MSG(test, v, s[i].want, "sample %u", i);
		last = v;
	}
}

/* Read without its live part: K is learnt again, from the next sample. */
static void ksnap_cgusage_forget(struct kunit *test)
{
	struct ksnap_cg_usage st = { 0 };

	ksnap_cg_usage_next(&st, 10, 0, 0);
	ksnap_cg_usage_next(&st, 10, 0, 0);
	ksnap_cg_usage_forget(&st, 120);
	KUNIT_EXPECT_EQ(test, st.state, (u8)KSNAP_CG_USAGE_NONE);
	/* The flushed usage read last is held until K is seen twice. */
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 30, 100, 0), 120ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 30, 100, 0), 130ULL);
	KUNIT_EXPECT_EQ(test, st.state, (u8)KSNAP_CG_USAGE_ADOPTED);
}

/*
 * A CPU offline since before the start comes online: its last flushed
 * part L joins sum(L), so K reads L less, and its own time joins sum(N).
 * K is learnt again from the sums over the CPUs now summed, not kept at
 * the old K (which would read the CPU's L twice, and be held there as
 * the sampler holds a monotonic column); until two samples agree on it,
 * the usage given last is held.
 */
static void ksnap_cgusage_relearn_when_cpus_change(struct kunit *test)
{
	struct ksnap_cg_usage st = { 0 };

	/*
	 * CPU A summed: L 300, N 400; CPU B offline, not summed: L 200,
	 * N 250; F 600.  K over A is 300: usage 700, B's unflushed 50 left
	 * out until a flush.
	 */
	ksnap_cg_usage_next(&st, 300, 400, 0);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 300, 400, 0), 700ULL);
	/* The flush takes B's 50 into F: K 350, usage 750. */
	ksnap_cg_usage_next(&st, 350, 400, 0);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 350, 400, 0), 750ULL);
	/* B comes online, its L now 250: K over both 100, N 650: 750. */
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 100, 660, 1), 750ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 100, 670, 1), 770ULL);
	KUNIT_EXPECT_EQ(test, st.k, 100ULL);
}

/*
 * The first sample after the CPUs summed changed falls in a flush's
 * window (K + d, d 5000): it is not adopted on that one reading, and no
 * usage above the true one is given, which the sampler would hold.
 */
static void ksnap_cgusage_no_unconfirmed_k_after_cpus_change(struct kunit *test)
{
	struct ksnap_cg_usage st = { 0 };

	ksnap_cg_usage_next(&st, 300, 400, 0);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 300, 400, 0), 700ULL);
	/* The true usage now: 100 + 660 = 760; read in a window, 5760. */
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 5100, 660, 1), 700ULL);
	/* Out of the window: once is not enough either. */
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 100, 670, 1), 700ULL);
	KUNIT_EXPECT_EQ(test, ksnap_cg_usage_next(&st, 100, 680, 1), 780ULL);
	KUNIT_EXPECT_EQ(test, st.state, (u8)KSNAP_CG_USAGE_ADOPTED);
}

/* The usage split in the ticks' ratio, the parts summing to it. */
static void ksnap_cputime_split_in_ticks_ratio(struct kunit *test)
{
	u64 user = 0, system = 0;

	ksnap_cputime_split(1000, 300, 100, &user, &system);
	KUNIT_EXPECT_EQ(test, user, 750ULL);
	KUNIT_EXPECT_EQ(test, system, 250ULL);
	/* No tick saw either: all user, as cpu.stat. */
	user = 0;
	system = 0;
	ksnap_cputime_split(500, 0, 0, &user, &system);
	KUNIT_EXPECT_EQ(test, user, 500ULL);
	KUNIT_EXPECT_EQ(test, system, 0ULL);
	/* Only system ticks: all system. */
	user = 0;
	system = 0;
	ksnap_cputime_split(500, 0, 7, &user, &system);
	KUNIT_EXPECT_EQ(test, user, 0ULL);
	KUNIT_EXPECT_EQ(test, system, 500ULL);
}

/*
 * Neither part steps back when the ratio moves (a tick's granularity, a
 * read across a flush), and a usage that did not grow changes nothing.
 */
static void ksnap_cputime_split_never_steps_back(struct kunit *test)
{
	u64 user = 0, system = 0;

	ksnap_cputime_split(1000, 1, 1, &user, &system);
	KUNIT_EXPECT_EQ(test, user, 500ULL);
	KUNIT_EXPECT_EQ(test, system, 500ULL);
	/* Ratio all user now: system keeps its 500, user takes the growth. */
	ksnap_cputime_split(1200, 10, 0, &user, &system);
	KUNIT_EXPECT_EQ(test, system, 500ULL);
	KUNIT_EXPECT_EQ(test, user, 700ULL);
	/* Ratio all system: user keeps its 700. */
	ksnap_cputime_split(1300, 0, 10, &user, &system);
	KUNIT_EXPECT_EQ(test, user, 700ULL);
	KUNIT_EXPECT_EQ(test, system, 600ULL);
	/* A usage that stepped back (a live read undone): unchanged. */
	ksnap_cputime_split(1250, 1, 1, &user, &system);
	KUNIT_EXPECT_EQ(test, user, 700ULL);
	KUNIT_EXPECT_EQ(test, system, 600ULL);
	/* Growth again, split by the ratio but neither below its last. */
	ksnap_cputime_split(2000, 1, 1, &user, &system);
	KUNIT_EXPECT_EQ(test, user + system, 2000ULL);
	KUNIT_EXPECT_EQ(test, system, 1000ULL);
	KUNIT_EXPECT_EQ(test, user, 1000ULL);
}

static struct kunit_case ksnap_cgusage_cases[] = {
	KUNIT_CASE(ksnap_cgusage_adopt_on_two),
	KUNIT_CASE(ksnap_cgusage_outlier_ignored),
	KUNIT_CASE(ksnap_cgusage_never_steps_back),
	KUNIT_CASE(ksnap_cgusage_forget),
	KUNIT_CASE(ksnap_cgusage_relearn_when_cpus_change),
	KUNIT_CASE(ksnap_cgusage_no_unconfirmed_k_after_cpus_change),
	KUNIT_CASE(ksnap_cputime_split_in_ticks_ratio),
	KUNIT_CASE(ksnap_cputime_split_never_steps_back),
	{}
};

static struct kunit_suite ksnap_cgusage_suite = {
	.name = "ksnap_cgusage",
	.test_cases = ksnap_cgusage_cases,
};

kunit_test_suite(ksnap_cgusage_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_suggest: the edit distance and the names suggested
 * for an unknown metric.  The code under test is compiled into this module
 * from kmod/suggest.c; the metric table comes from metrics_test.o.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "../../kmod/suggest.c"

struct ksnap_dist_case {
	const char *a, *b;
	unsigned int dist;
};

static const struct ksnap_dist_case ksnap_dist_cases[] = {
	{ "", "", 0 },
	{ "pgfault", "pgfault", 0 },
	{ "", "abc", 3 },
	{ "abc", "", 3 },
	{ "pgfalt", "pgfault", 1 },		/* deletion */
	{ "pgfaullt", "pgfault", 1 },		/* insertion */
	{ "pgfaulT", "pgfault", 1 },		/* substitution */
	{ "pgfualt", "pgfault", 2 },		/* transposition: 2 */
	{ "kitten", "sitting", 3 },
	{ "flaw", "lawn", 2 },
	{ "memory.curent", "memory.current", 1 },
	{ "nr_free_pages", "nr_free_cma", 5 },
};

static void ksnap_dist_case_desc(const struct ksnap_dist_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "'%s' '%s'", c->a, c->b);
}

KUNIT_ARRAY_PARAM(ksnap_dist, ksnap_dist_cases, ksnap_dist_case_desc);

static void ksnap_edit_distance_cases(struct kunit *test)
{
	const struct ksnap_dist_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ksnap_edit_distance(c->a, c->b), c->dist);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_edit_distance(c->b, c->a), c->dist,
			    "symmetric");
}

/* Names longer than a metric name can be are cut, never overrun. */
static void ksnap_edit_distance_long(struct kunit *test)
{
	char a[200], b[200];

	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memset(b, 'b', sizeof(b) - 1);
	b[sizeof(b) - 1] = '\0';
	KUNIT_EXPECT_EQ(test, ksnap_edit_distance(a, b),
			KSNAP_METRIC_NAME_MAX - 1U);
	KUNIT_EXPECT_EQ(test, ksnap_edit_distance(a, ""),
			KSNAP_METRIC_NAME_MAX - 1U);
}

/* Suggestions for a mistyped name come from the real table. */
static void ksnap_suggest_from_table(struct kunit *test)
{
	unsigned int best[KSNAP_SUGGEST_MAX], n;

	n = ksnap_metric_suggest("pgfalt", best, ARRAY_SIZE(best));
	KUNIT_ASSERT_GE(test, n, 1U);
	KUNIT_EXPECT_STREQ(test, ksnap_metrics[best[0]].name, "pgfault");

	n = ksnap_metric_suggest("memory.curent", best, ARRAY_SIZE(best));
	KUNIT_ASSERT_GE(test, n, 1U);
	KUNIT_EXPECT_STREQ(test, ksnap_metrics[best[0]].name,
			   "memory.current");

	n = ksnap_metric_suggest("cpu.usr", best, ARRAY_SIZE(best));
	KUNIT_ASSERT_GE(test, n, 1U);
	KUNIT_EXPECT_STREQ(test, ksnap_metrics[best[0]].name, "cpu.user");

	/* A prefix counts as close. */
	n = ksnap_metric_suggest("meminfo.MemAv", best, ARRAY_SIZE(best));
	KUNIT_ASSERT_GE(test, n, 1U);
	KUNIT_EXPECT_STREQ(test, ksnap_metrics[best[0]].name,
			   "meminfo.MemAvailable");

	KUNIT_EXPECT_EQ(test, ksnap_metric_suggest("zzzzzzzzzzzzzzzz", best,
						   ARRAY_SIZE(best)), 0U);
	KUNIT_EXPECT_EQ(test, ksnap_metric_suggest("pgfalt", best, 1), 1U);
	KUNIT_EXPECT_LE(test, ksnap_metric_suggest("pgscan", best,
						   ARRAY_SIZE(best)),
			(unsigned int)KSNAP_SUGGEST_MAX);
}

static struct kunit_case ksnap_suggest_cases[] = {
	KUNIT_CASE_PARAM(ksnap_edit_distance_cases, ksnap_dist_gen_params),
	KUNIT_CASE(ksnap_edit_distance_long),
	KUNIT_CASE(ksnap_suggest_from_table),
	{}
};

static struct kunit_suite ksnap_suggest_suite = {
	.name = "ksnap_suggest",
	.test_cases = ksnap_suggest_cases,
};

kunit_test_suite(ksnap_suggest_suite);

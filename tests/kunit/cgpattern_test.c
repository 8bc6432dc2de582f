// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_cgpattern: the syntax and matching of cgroup patterns,
 * compiled into this module from kmod/cgpattern.c, and which pattern a
 * cgroup several match belongs to.  The table-driven cases are in
 * cgpattern_cases.h, which the userspace build's test runs too.  The walk
 * that expands them (kmod/cgexpand.c) and the configuration that calls it
 * (kmod/config.c) are compiled in too, for the sampler's start; the guest
 * test patterns.sh runs them on a real tree.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "../../kmod/cgpattern.c"
#include "../../kmod/cgexpand.c"
#include "../../kmod/config.c"
#include "cgpattern_cases.h"

static void ksnap_match_case_desc(const struct ksnap_match_case *c,
				  char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s %u", c->pattern, c->path,
		 c->depth);
}

KUNIT_ARRAY_PARAM(ksnap_match, ksnap_match_cases, ksnap_match_case_desc);

static void ksnap_cgpattern_match_cases(struct kunit *test)
{
	const struct ksnap_match_case *c = test->param_value;

	KUNIT_ASSERT_EQ(test, ksnap_cgpattern_check(c->pattern,
						    &(const char *){ NULL }), 0);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_cgpattern_match(c->pattern, c->path,
							c->depth),
			    c->match, "'%s' against '%s', depth %u",
			    c->pattern, c->path, c->depth);
	/* What matches is never deeper than the walk looks. */
	if (c->match) {
		const char *s;
		unsigned int n = 0;

		for (s = c->path; *s; s++)
			n += *s == '/' && s[1];
		KUNIT_EXPECT_LE(test, n,
				ksnap_cgpattern_max_level(c->pattern, c->depth));
	}
}

static void ksnap_check_case_desc(const struct ksnap_check_case *c,
				  char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_check, ksnap_check_cases, ksnap_check_case_desc);

static void ksnap_cgpattern_check_cases(struct kunit *test)
{
	const struct ksnap_check_case *c = test->param_value;
	const char *why = NULL;
	int ret = ksnap_cgpattern_check(c->pattern, &why);

	KUNIT_EXPECT_TRUE(test, ksnap_cgpattern_is_pattern(c->pattern));
	if (!c->why) {
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "'%s': %s", c->pattern, why);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "'%s' accepted", c->pattern);
	KUNIT_ASSERT_NOT_NULL(test, why);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why, c->why), "'%s': %s",
				  c->pattern, why);
}

/* A pattern of @len bytes: a slash, a star, then x up to the length. */
static char *ksnap_long_pattern(struct kunit *test, size_t len)
{
	char *p = kunit_kzalloc(test, len + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 'x', len);
	p[0] = '/';
	p[1] = '*';
	return p;
}

static void ksnap_cgpattern_length(struct kunit *test)
{
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, ksnap_cgpattern_check(ksnap_long_pattern(test, 127),
						    &why), 0);
	KUNIT_EXPECT_EQ(test, ksnap_cgpattern_check(ksnap_long_pattern(test, 128),
						    &why), -EINVAL);
	KUNIT_ASSERT_NOT_NULL(test, why);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "long"));
}

static void ksnap_cgpattern_plain_paths(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, ksnap_cgpattern_is_pattern("/system.slice"));
	KUNIT_EXPECT_FALSE(test, ksnap_cgpattern_is_pattern("/"));
	KUNIT_EXPECT_TRUE(test, ksnap_cgpattern_is_pattern("/a*"));
}

static void ksnap_cgpattern_levels(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksnap_cgpattern_max_level("/a/*", 2), 2U);
	KUNIT_EXPECT_EQ(test, ksnap_cgpattern_max_level("/a/**", 2), 3U);
	KUNIT_EXPECT_EQ(test, ksnap_cgpattern_max_level("/a/**", 0), 1U);
	KUNIT_EXPECT_EQ(test, ksnap_cgpattern_max_level("/a/**/*.scope", 2),
			UINT_MAX);
	KUNIT_EXPECT_EQ(test, ksnap_cgpattern_max_level("/**", 5), 5U);
}

/* A long path: no recursion, and an answer. */
static void ksnap_cgpattern_long_path(struct kunit *test)
{
	char *path = kunit_kzalloc(test, PATH_MAX, GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, path);
	for (i = 0; i + 2 < PATH_MAX; i += 2)
		memcpy(path + i, "/a", 2);
	KUNIT_EXPECT_TRUE(test, ksnap_cgpattern_match("/**/a", path, 2));
	KUNIT_EXPECT_FALSE(test, ksnap_cgpattern_match("/**/b", path, 2));
	KUNIT_EXPECT_FALSE(test, ksnap_cgpattern_match("/a/**", path, 2));
	KUNIT_EXPECT_TRUE(test, ksnap_cgpattern_match("/a/**/a/**/a", path, 2));
}

static void ksnap_owner_case_desc(const struct ksnap_owner_case *c,
				  char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_owner, ksnap_owner_cases, ksnap_owner_case_desc);

static void ksnap_cgpattern_owner_cases(struct kunit *test)
{
	const struct ksnap_owner_case *c = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, ksnap_cgpattern_owner(c->entries, c->nr,
							c->path, c->depth),
			    c->owner, "%s: '%s'", c->name, c->path);
}

static struct kunit_case ksnap_cgpattern_cases[] = {
	KUNIT_CASE_PARAM(ksnap_cgpattern_match_cases, ksnap_match_gen_params),
	KUNIT_CASE_PARAM(ksnap_cgpattern_check_cases, ksnap_check_gen_params),
	KUNIT_CASE_PARAM(ksnap_cgpattern_owner_cases, ksnap_owner_gen_params),
	KUNIT_CASE(ksnap_cgpattern_length),
	KUNIT_CASE(ksnap_cgpattern_plain_paths),
	KUNIT_CASE(ksnap_cgpattern_levels),
	KUNIT_CASE(ksnap_cgpattern_long_path),
	{}
};

static struct kunit_suite ksnap_cgpattern_suite = {
	.name = "ksnap_cgpattern",
	.test_cases = ksnap_cgpattern_cases,
};

kunit_test_suite(ksnap_cgpattern_suite);

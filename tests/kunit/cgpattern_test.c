// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_cgpattern: the syntax and matching of cgroup patterns,
 * compiled into this module from kmod/cgpattern.c.  The walk that expands
 * them (kmod/cgexpand.c) and the configuration that calls it
 * (kmod/config.c) are compiled in too, for the sampler's start; the guest
 * test patterns.sh runs them on a real tree.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "../../kmod/cgpattern.c"
#include "../../kmod/cgexpand.c"
#include "../../kmod/config.c"

struct ksnap_match_case {
	const char *pattern, *path;
	unsigned int depth;
	bool match;
};

static const struct ksnap_match_case ksnap_match_cases[] = {
	/* '*' within one component */
	{ "/system.slice/*.service", "/system.slice/a.service", 2, true },
	{ "/system.slice/*.service", "/system.slice/.service", 2, true },
	{ "/system.slice/*.service", "/system.slice/a.scope", 2, false },
	{ "/system.slice/*.service", "/system.slice/b.service/sub", 2, false },
	{ "/system.slice/*.service", "/system.slice", 2, false },
	{ "/system.slice/*.service", "/other.slice/a.service", 2, false },
	{ "/machine.slice/libpod-*.scope", "/machine.slice/libpod-0123abc.scope", 2, true },
	{ "/machine.slice/libpod-*.scope", "/machine.slice/libpod-conmon-1.scope", 2, true },
	{ "/machine.slice/libpod-*.scope", "/machine.slice/libpod.scope", 2, false },
	{ "/*", "/a", 2, true },
	{ "/*", "/", 2, false },
	{ "/*", "/a/b", 2, false },
	{ "/*/*", "/a/b", 2, true },
	{ "/a*b*c", "/abc", 2, true },
	{ "/a*b*c", "/aXbYc", 2, true },
	{ "/a*b*c", "/aXbYcZ", 2, false },
	{ "/a*b*c", "/abcbc", 2, true },
	{ "/*.*", "/x.y", 2, true },
	/* "**" followed by more: any number of components, zero included */
	{ "/kubepods.slice/**/*.scope",
	  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podX.slice/cri-containerd-ID.scope",
	  2, true },
	{ "/kubepods.slice/**/*.scope", "/kubepods.slice/x.scope", 0, true },
	{ "/kubepods.slice/**/*.scope", "/kubepods.slice/a/b/c/d/e/f.scope", 0, true },
	{ "/kubepods.slice/**/*.scope", "/kubepods.slice/a/b.scope/c", 2, false },
	{ "/kubepods.slice/**/*.scope", "/kubepods.slice", 2, false },
	{ "/kubepods.slice/**/*.scope", "/x.scope", 2, false },
	{ "/**/*.scope", "/a.scope", 2, true },
	{ "/**/*.scope", "/a/b/c.scope", 2, true },
	{ "/a/**/b/**/c", "/a/b/c", 2, true },
	{ "/a/**/b/**/c", "/a/x/b/y/z/c", 2, true },
	{ "/a/**/b/**/c", "/a/x/b/y/z/d", 2, false },
	{ "/a/**/b/c", "/a/b/b/c", 2, true },
	{ "/a/**/b/c", "/a/b/c/b/c", 2, true },
	{ "/a/**/b/c", "/a/b/c/b/d", 2, false },
	/* a trailing "**": the prefix itself and up to depth levels below */
	{ "/system.slice/**", "/system.slice", 1, true },
	{ "/system.slice/**", "/system.slice/a.service", 1, true },
	{ "/system.slice/**", "/system.slice/b.service/sub", 1, false },
	{ "/system.slice/**", "/system.slice/b.service/sub", 2, true },
	{ "/system.slice/**", "/system.slice/b/c/d", 2, false },
	{ "/system.slice/**", "/system.slice/a.service", 0, false },
	{ "/system.slice/**", "/system.slice", 0, true },
	{ "/system.slice/**", "/other.slice/a", 2, false },
	{ "/system.slice/**", "/", 2, false },
	{ "/**", "/", 0, true },
	{ "/**", "/a/b", 2, true },
	{ "/**", "/a/b/c", 2, false },
	{ "/a/**/**", "/a/b/c/d", 2, true },
	{ "/a/**/b/**", "/a/x/y/b/c/d", 2, true },
	{ "/a/**/b/**", "/a/x/y/b/c/d/e", 2, false },
	/* no wildcard: equality, by components */
	{ "/a/b", "/a/b", 2, true },
	{ "/a/b", "/a/bc", 2, false },
	{ "/a/b", "/a", 2, false },
};

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

struct ksnap_check_case {
	const char *name, *pattern, *why;	/* why: a word of the reason */
};

static const struct ksnap_check_case ksnap_check_cases[] = {
	{ "one star", "/system.slice/*.service" },
	{ "globstar then more", "/kubepods.slice/**/*.scope" },
	{ "trailing globstar", "/system.slice/**" },
	{ "star inside", "/machine.slice/libpod-*.scope" },
	{ "eight wildcards", "/*/*/*/*/**/*/*/*" },
	{ "empty component", "/a//*", "empty" },
	{ "trailing slash", "/a/*/", "empty" },
	{ "only a slash and a star", "/*/", "empty" },
	{ "triple star", "/a/***", "'***'" },
	{ "triple star inside", "/a/x***y", "'***'" },
	{ "globstar inside a component", "/a/a**b", "whole" },
	{ "globstar at a component's end", "/a/b**", "whole" },
	{ "globstar at a component's start", "/**b", "whole" },
	{ "dot", "/a/./*", "'.'" },
	{ "dot dot", "/a/../*", "'.'" },
	{ "dot dot last", "/*/..", "'.'" },
	{ "nine wildcards", "/*/*/*/*/*/*/*/*/*", "wildcards" },
	{ "nine in one component", "/*a*b*c*d*e*f*g*h*", "wildcards" },
	{ "relative", "a/*", "start" },
};

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

static struct kunit_case ksnap_cgpattern_cases[] = {
	KUNIT_CASE_PARAM(ksnap_cgpattern_match_cases, ksnap_match_gen_params),
	KUNIT_CASE_PARAM(ksnap_cgpattern_check_cases, ksnap_check_gen_params),
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

// SPDX-License-Identifier: MIT
/*
 * The userspace cgroup pattern matcher (lib/cgpattern.h): the cases of
 * the module's KUnit suite ksnap_cgpattern (tests/kunit/cgpattern_test.c),
 * which must give the same answers here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cgpattern.h"

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

struct ksnap_check_case {
	const char *name, *pattern;
	const char *why;	/* NULL: valid; else a word of the reason */
};

static const struct ksnap_check_case ksnap_check_cases[] = {
	{ "one star", "/system.slice/*.service", NULL },
	{ "globstar then more", "/kubepods.slice/**/*.scope", NULL },
	{ "trailing globstar", "/system.slice/**", NULL },
	{ "star inside", "/machine.slice/libpod-*.scope", NULL },
	{ "eight wildcards", "/*/*/*/*/**/*/*/*", NULL },
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

static void matches_as_the_module_does(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(ksnap_match_cases) /
			sizeof(ksnap_match_cases[0]); i++) {
		const struct ksnap_match_case *c = &ksnap_match_cases[i];
		const char *why = NULL;

		assert_int_equal(ksnap_cgpattern_check(c->pattern, &why), 0);
		if (ksnap_cgpattern_match(c->pattern, c->path, c->depth) !=
		    c->match)
			fail_msg("%s %s depth %u: expected %s", c->pattern,
				 c->path, c->depth, c->match ? "a match" :
				 "no match");
	}
}

static void checks_as_the_module_does(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(ksnap_check_cases) /
			sizeof(ksnap_check_cases[0]); i++) {
		const struct ksnap_check_case *c = &ksnap_check_cases[i];
		const char *why = NULL;
		int ret = ksnap_cgpattern_check(c->pattern, &why);

		if (!c->why) {
			if (ret)
				fail_msg("%s (%s): refused: %s", c->name,
					 c->pattern, why);
			continue;
		}
		assert_int_equal(ret, -EINVAL);
		if (!strstr(why, c->why))
			fail_msg("%s (%s): '%s' does not say '%s'", c->name,
				 c->pattern, why, c->why);
	}
}

static void the_length_bound_is_the_modules(void **state)
{
	char p[200];
	const char *why;

	memset(p, 'a', sizeof(p));
	p[0] = '/';
	p[1] = '*';
	p[127] = '\0';
	assert_int_equal(ksnap_cgpattern_check(p, &why), 0);
	p[127] = 'a';
	p[128] = '\0';
	assert_int_equal(ksnap_cgpattern_check(p, &why), -EINVAL);
	assert_true(ksnap_cgpattern_is_pattern("/a/*"));
	assert_false(ksnap_cgpattern_is_pattern("/a/b"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matches_as_the_module_does),
		cmocka_unit_test(checks_as_the_module_does),
		cmocka_unit_test(the_length_bound_is_the_modules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

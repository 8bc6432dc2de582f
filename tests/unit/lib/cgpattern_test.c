// SPDX-License-Identifier: MIT
/*
 * The userspace build of the module's cgroup pattern functions
 * (lib/cgpattern.h, kmod/cgpattern.c): the table-driven cases of the KUnit
 * suite ksnap_cgpattern (tests/kunit/cgpattern_cases.h), which must give
 * the same answers here.
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

#include "../../kunit/cgpattern_cases.h"

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

static void owners_as_the_module_does(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(ksnap_owner_cases) /
			sizeof(ksnap_owner_cases[0]); i++) {
		const struct ksnap_owner_case *c = &ksnap_owner_cases[i];
		int owner = ksnap_cgpattern_owner(c->entries, c->nr, c->path,
						  c->depth);

		if (owner != c->owner)
			fail_msg("%s (%s): owner %d, expected %d", c->name,
				 c->path, owner, c->owner);
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
		cmocka_unit_test(owners_as_the_module_does),
		cmocka_unit_test(the_length_bound_is_the_modules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

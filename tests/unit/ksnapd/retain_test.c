// SPDX-License-Identifier: MIT
/*
 * ksnapd's output files over time (retain.h), in a real temporary
 * directory: an earlier run's files moved aside, and which names are the
 * output's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "retain.h"

static char dir[] = "/tmp/ksnap-retain-XXXXXX";
static char err[256];

static int setup(void **state)
{
	fake_sys_reset();
	strcpy(dir, "/tmp/ksnap-retain-XXXXXX");
	assert_non_null(mkdtemp(dir));
	err[0] = '\0';
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* dir/name holding size bytes, last written age_s seconds ago. */
static void put(const char *name, size_t size, int age_s)
{
	struct timespec t[2];
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	while (size--)
		fputc('x', f);
	fclose(f);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age_s;
	t[1] = t[0];
	assert_int_equal(utimensat(AT_FDCWD, p, t, 0), 0);
}

static bool there(const char *name)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

#define assert_there(name) do { \
	if (!there(name)) \
		fail_msg("expected %s in the directory, it is not", name); \
} while (0)
#define assert_gone(name) do { \
	if (there(name)) \
		fail_msg("expected %s gone from the directory, it is there", \
			 name); \
} while (0)

/*
 * A second earlier run: its FILE, FILE.2, FILE.resumed.1 become
 * FILE.old.2, FILE.old.2.2, FILE.old.2.resumed.1 (the first run moved
 * aside is FILE.old.1, left as it is); the user's FILE.bak stays.
 */
static void an_earlier_runs_files_move_aside_under_the_next_number(void **s)
{
	char base[128];

	put("k.tsv", 10, 0);
	put("k.tsv.2", 10, 0);
	put("k.tsv.resumed.1", 10, 0);
	put("k.tsv.3.resumed.1", 10, 0);
	put("k.tsv.old.1", 10, 0);
	put("k.tsv.old.1.2", 10, 0);
	put("k.tsv.bak", 10, 0);
	put("k.tsvx", 10, 0);
	snprintf(base, sizeof(base), "%s/k.tsv", dir);
	assert_int_equal(ksnapd_move_aside(base, NULL, err, sizeof(err)), 4);
	assert_gone("k.tsv");
	assert_gone("k.tsv.2");
	assert_gone("k.tsv.resumed.1");
	assert_there("k.tsv.old.2");
	assert_there("k.tsv.old.2.2");
	assert_there("k.tsv.old.2.resumed.1");
	assert_there("k.tsv.old.2.3.resumed.1");
	assert_there("k.tsv.old.1");
	assert_there("k.tsv.old.1.2");
	assert_there("k.tsv.bak");
	assert_there("k.tsvx");
}

/* Only FILE.5 left (the oldest were removed): still moved aside. */
static void a_run_without_its_first_file_moves_aside_too(void **s)
{
	char base[128];

	put("k.tsv.5", 10, 0);
	snprintf(base, sizeof(base), "%s/k.tsv", dir);
	assert_int_equal(ksnapd_move_aside(base, NULL, err, sizeof(err)), 1);
	assert_gone("k.tsv.5");
	assert_there("k.tsv.old.1.5");
}

static void nothing_to_move_aside_moves_nothing(void **s)
{
	char base[128];

	put("other", 10, 0);
	snprintf(base, sizeof(base), "%s/k.tsv", dir);
	assert_int_equal(ksnapd_move_aside(base, NULL, err, sizeof(err)), 0);
	assert_there("other");
}

static void a_missing_directory_is_named(void **s)
{
	assert_int_equal(ksnapd_move_aside("/nonexistent-ksnap/k.tsv", NULL,
					   err, sizeof(err)), -ENOENT);
	if (!strstr(err, "/nonexistent-ksnap"))
		fail_msg("expected the directory named, got: %s", err);
}

static void the_outputs_names_and_no_other(void **s)
{
	assert_true(ksnapd_retain_match("k.tsv", "k.tsv"));
	assert_true(ksnapd_retain_match("k.tsv", "k.tsv.12"));
	assert_true(ksnapd_retain_match("k.tsv", "k.tsv.resumed.3"));
	assert_true(ksnapd_retain_match("k.tsv", "k.tsv.old.2.3.resumed.1"));
	assert_false(ksnapd_retain_match("k.tsv", "k.tsv.bak"));
	assert_false(ksnapd_retain_match("k.tsv", "k.tsvx"));
	assert_false(ksnapd_retain_match("k.tsv", "k.tsv."));
	assert_false(ksnapd_retain_match("k.tsv", "k.tsv.old."));
	assert_true(ksnapd_retain_match("k-%g.tsv", "k-17.tsv"));
	assert_true(ksnapd_retain_match("k-%g.tsv", "k-17.tsv.2"));
	assert_true(ksnapd_retain_match("k-%g.tsv", "k-17.tsv.old.1"));
	assert_false(ksnapd_retain_match("k-%g.tsv", "k-.tsv"));
	assert_false(ksnapd_retain_match("k-%g.tsv", "k-x.tsv"));
	assert_true(ksnapd_retain_match("k%%-%g", "k%-3"));
	assert_false(ksnapd_retain_match("k%%-%g", "k%%-3"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(an_earlier_runs_files_move_aside_under_the_next_number),
		T(a_run_without_its_first_file_moves_aside_too),
		T(nothing_to_move_aside_moves_nothing),
		T(a_missing_directory_is_named),
		T(the_outputs_names_and_no_other),
	};

	return cmocka_run_group_tests_name("retain", tests, NULL, NULL);
}

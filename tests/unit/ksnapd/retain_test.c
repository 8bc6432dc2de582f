// SPDX-License-Identifier: MIT
/*
 * ksnapd's output files over time (retain.h), in a real temporary
 * directory: an earlier run's files moved aside, which names are the
 * output's, and the retention policy by size and by age.
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

#define S(ns)	((int64_t)(ns) * 1000000000LL)

/* The names pick() marked for removal, oldest first, space separated. */
static const char *picked(struct ksnapd_retain_file *f, unsigned int n)
{
	static char buf[256];
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		if (f[i].remove)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "%s%s", buf[0] ? " " : "", f[i].name);
	return buf;
}

/* Over the size cap: the oldest closed files go, by time not name,
 * until the rest fits; the newer ones stay. */
static void over_the_size_cap_the_oldest_closed_files_go_first(void **s)
{
	struct ksnapd_retain_file f[] = {
		{ .name = "a.2", .size = 100, .mtime_ns = S(300) },
		{ .name = "a", .size = 100, .mtime_ns = S(100) },
		{ .name = "a.4", .size = 100, .mtime_ns = S(500), .open = true },
		{ .name = "a.3", .size = 100, .mtime_ns = S(400) },
	};
	struct ksnapd_retain_limits lim = { .max_size = 250 };
	uint64_t bytes;

	assert_int_equal(ksnapd_retain_pick(f, 4, &lim, S(600), &bytes), 2);
	assert_string_equal(picked(f, 4), "a a.2");
	assert_int_equal(bytes, 200);
}

/* The open file is never removed, even alone past the cap. */
static void the_open_file_is_never_removed(void **s)
{
	struct ksnapd_retain_file f[] = {
		{ .name = "a", .size = 1000, .mtime_ns = S(1), .open = true },
	};
	struct ksnapd_retain_limits lim = { .max_size = 10, .max_age_ns = 1 };
	uint64_t bytes;

	assert_int_equal(ksnapd_retain_pick(f, 1, &lim, S(600), &bytes), 0);
	assert_string_equal(picked(f, 1), "");
	assert_int_equal(bytes, 0);
}

/* Older than the age limit: removed, however small the files are. */
static void closed_files_older_than_the_age_limit_go(void **s)
{
	struct ksnapd_retain_file f[] = {
		{ .name = "a", .size = 1, .mtime_ns = S(100) },
		{ .name = "a.2", .size = 1, .mtime_ns = S(200), .open = true },
		{ .name = "a.old.1", .size = 1, .mtime_ns = S(50) },
		{ .name = "a.3", .size = 1, .mtime_ns = S(500) },
	};
	struct ksnapd_retain_limits lim = { .max_size = 1000,
					    .max_age_ns = S(300) };
	uint64_t bytes;

	assert_int_equal(ksnapd_retain_pick(f, 4, &lim, S(600), &bytes), 2);
	assert_string_equal(picked(f, 4), "a.old.1 a");
	assert_int_equal(bytes, 2);
}

static void without_limits_nothing_goes(void **s)
{
	struct ksnapd_retain_file f[] = {
		{ .name = "a", .size = 1000, .mtime_ns = S(1) },
	};
	struct ksnapd_retain_limits lim = { 0 };
	uint64_t bytes;

	assert_int_equal(ksnapd_retain_pick(f, 1, &lim, S(600), &bytes), 0);
}

/*
 * In a directory: the output's files only (FILE.bak stays), the open one
 * kept; what was removed is added to the counts.
 */
static void retention_removes_the_outputs_oldest_files_and_counts_them(
	void **s)
{
	struct ksnapd_retain_limits lim = { .max_size = 250 };
	char path[128], open[128];
	uint64_t files = 1, bytes = 10;
	struct timespec now;

	put("k.tsv.old.1", 100, 400);
	put("k.tsv", 100, 300);
	put("k.tsv.2", 100, 200);
	put("k.tsv.3", 100, 100);
	put("k.tsv.bak", 1000, 1000);
	snprintf(path, sizeof(path), "%s/k.tsv", dir);
	snprintf(open, sizeof(open), "%s/k.tsv.3", dir);
	clock_gettime(CLOCK_REALTIME, &now);
	assert_int_equal(ksnapd_retain(path, open, &lim, S(now.tv_sec), &files,
				       &bytes, NULL, err, sizeof(err)), 0);
	assert_gone("k.tsv.old.1");
	assert_gone("k.tsv");
	assert_there("k.tsv.2");
	assert_there("k.tsv.3");
	assert_there("k.tsv.bak");
	assert_int_equal(files, 1 + 2);
	assert_int_equal(bytes, 10 + 200);
}

/* With %g, every collection number's files are the output's. */
static void retention_by_age_covers_every_collection_number(void **s)
{
	struct ksnapd_retain_limits lim = { .max_age_ns = S(3600) };
	char path[128], open[128];
	uint64_t files = 0, bytes = 0;
	struct timespec now;

	put("k-1.tsv", 10, 7200);
	put("k-1.tsv.2", 10, 7100);
	put("k-2.tsv", 10, 7000);
	put("k-3.tsv", 10, 60);
	snprintf(path, sizeof(path), "%s/k-%%g.tsv", dir);
	snprintf(open, sizeof(open), "%s/k-2.tsv", dir);
	clock_gettime(CLOCK_REALTIME, &now);
	assert_int_equal(ksnapd_retain(path, open, &lim, S(now.tv_sec), &files,
				       &bytes, NULL, err, sizeof(err)), 0);
	assert_gone("k-1.tsv");
	assert_gone("k-1.tsv.2");
	assert_there("k-2.tsv");
	assert_there("k-3.tsv");
	assert_int_equal(files, 2);
	assert_int_equal(bytes, 20);
}

static void sizes_and_ages_parse_and_bad_ones_are_refused(void **s)
{
	static const char *const bad_sizes[] = { "", "x", "4GB", "-1", "4 G",
						 "1.5G", "99999999999T" };
	static const char *const bad_ages[] = { "", "5", "1w", "-1d", "7dd",
						"1.5h" };
	uint64_t v;
	unsigned int i;

	assert_int_equal(ksnapd_parse_size("4G", &v), 0);
	assert_int_equal(v, 4ULL << 30);
	assert_int_equal(ksnapd_parse_size("512M", &v), 0);
	assert_int_equal(v, 512ULL << 20);
	assert_int_equal(ksnapd_parse_size("100k", &v), 0);
	assert_int_equal(v, 102400);
	assert_int_equal(ksnapd_parse_size("1000", &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(ksnapd_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	for (i = 0; i < sizeof(bad_sizes) / sizeof(*bad_sizes); i++)
		if (ksnapd_parse_size(bad_sizes[i], &v) != -EINVAL)
			fail_msg("expected size '%s' refused (EINVAL), it was "
				 "taken", bad_sizes[i]);
	assert_int_equal(ksnapd_parse_age("7d", &v), 0);
	assert_int_equal(v, 7ULL * 86400 * 1000000000ULL);
	assert_int_equal(ksnapd_parse_age("12h", &v), 0);
	assert_int_equal(v, 12ULL * 3600 * 1000000000ULL);
	assert_int_equal(ksnapd_parse_age("30m", &v), 0);
	assert_int_equal(v, 1800ULL * 1000000000ULL);
	assert_int_equal(ksnapd_parse_age("90s", &v), 0);
	assert_int_equal(v, 90ULL * 1000000000ULL);
	assert_int_equal(ksnapd_parse_age("0", &v), 0);
	assert_int_equal(v, 0);
	for (i = 0; i < sizeof(bad_ages) / sizeof(*bad_ages); i++)
		if (ksnapd_parse_age(bad_ages[i], &v) != -EINVAL)
			fail_msg("expected age '%s' refused (EINVAL), it was "
				 "taken", bad_ages[i]);
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
		T(over_the_size_cap_the_oldest_closed_files_go_first),
		T(the_open_file_is_never_removed),
		T(closed_files_older_than_the_age_limit_go),
		T(without_limits_nothing_goes),
		T(retention_removes_the_outputs_oldest_files_and_counts_them),
		T(retention_by_age_covers_every_collection_number),
		T(sizes_and_ages_parse_and_bad_ones_are_refused),
	};

	return cmocka_run_group_tests_name("retain", tests, NULL, NULL);
}

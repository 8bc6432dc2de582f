// SPDX-License-Identifier: MIT
/* ksnapd's end-of-collection summary: figures and gVisor's warnings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "summary.h"

/* Fails with both texts when needle is not in hay. */
#define assert_contains(hay, needle) do { \
	const char *h_ = (hay), *n_ = (needle); \
	if (!strstr(h_, n_)) \
		fail_msg("expected to find:\n%s\n--- in output:\n%s", n_, h_); \
} while (0)

/* The summary of collection gen, which returns want; its text (free it). */
static char *summary_of(uint32_t gen, const struct ksnap_stream_stats *st,
			int want)
{
	char *log = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&log, &len);

	assert_non_null(f);
	assert_int_equal(ksnapd_summary(f, gen, st), want);
	fclose(f);
	return log;
}

static void warns_at_gvisor_thresholds(void **s)
{
	struct ksnap_stream_stats st0 = {
		.collection_rate_nanos = 1000,
		.cheap_start_nanos = 0,
		.cheap_last_collection_nanos = 100000,
		.total_snapshots = 100,
		.total_sleep_timing_error_nanos = 100 * 50,
		.total_collection_timing_error_nanos = 100 * 20,
	};
	char *log = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&log, &len);

	assert_int_equal(ksnapd_summary(f, 3, &st0), 0);
	st0.total_snapshots = 90;
	st0.ksnap_snapshots_lost = 10;
	st0.total_sleep_timing_error_nanos = 90 * 150;
	st0.total_collection_timing_error_nanos = 90 * 101;
	assert_int_equal(ksnapd_summary(f, 4, &st0), 3);
	fclose(f);
	assert_contains(log, "ksnapd: collection 3: 100 snapshots, capture "
			"100.00% (100 expected), lateness 50 ns (5.00% of the "
			"1000 ns period), read time 20 ns (2.00%)");
	assert_contains(log, "ksnapd: warning: collection 4: capture rate "
			"90.00% is below 99%: 10 snapshots lost");
	assert_contains(log, "average lateness is 15.00% of the period");
	assert_contains(log, "average read time is 10.10% of the period");
	free(log);
}

static void counts_an_earlier_readers_snapshots_in_the_capture(
	void **s)
{
	struct ksnap_stream_stats st0 = {
		.collection_rate_nanos = 1000,
		.cheap_last_collection_nanos = 100000,
		.total_snapshots = 60,
		.ksnapd_first_position = 40,
	};
	char *log;

	log = summary_of(3, &st0, 0);
	assert_contains(log, "ksnapd: collection 3: 60 snapshots, capture "
			"100.00% (100 expected)");
	assert_contains(log, "ksnapd: collection 3: resumed at position 40: "
			"the capture counts the 40 snapshots an earlier reader "
			"read\n");
	free(log);
}

static void dropped_rows_warn_and_overwritten_snapshots_are_said(void **s)
{
	struct ksnap_stream_stats st0 = {
		.collection_rate_nanos = 1000,
		.cheap_last_collection_nanos = 100000,
		.total_snapshots = 80,
		.ksnapd_rows_dropped = 15,
		.ksnapd_snapshots_overwritten = 5,
	};
	char *log;

	/* 80 of 100: the dropped and overwritten ones are not captured. */
	log = summary_of(2, &st0, 2);
	assert_contains(log, "ksnapd: collection 2: 5 snapshots overwritten "
			"before they were read (overflow=overwrite)\n");
	assert_contains(log, "ksnapd: warning: collection 2: 15 rows dropped "
			"because the output was full\n");
	assert_contains(log, "capture rate 80.00% is below 99%");
	free(log);
}

static void skipped_snapshots_are_said_with_why(void **s)
{
	struct ksnap_stream_stats st0 = {
		.collection_rate_nanos = 1000,
		.cheap_last_collection_nanos = 100000,
		.total_snapshots = 96,
		.ksnapd_snapshots_skipped = 4,
	};
	char *log;

	/* 96 of 100: the skipped ones are not captured. */
	log = summary_of(3, &st0, 1);
	assert_contains(log, "ksnapd: collection 3: 4 snapshots skipped: of a "
			"column set the module no longer named (ksnapd fell "
			"behind its set changes) or not of the stream's set, "
			"no rows\n");
	assert_contains(log, "capture rate 96.00% is below 99%");
	free(log);
}

static void thinned_periods_are_said_with_why(void **s)
{
	struct ksnap_stream_stats st0 = {
		.collection_rate_nanos = 1000,
		.cheap_last_collection_nanos = 100000,
		.total_snapshots = 40,
		.ksnap_periods_missed = 60,
		.ksnap_periods_thinned = 58,
	};
	char *log;

	/* 40 of 100: the thinned periods are missed ones, not captured. */
	log = summary_of(5, &st0, 1);
	assert_contains(log, "ksnapd: collection 5: 58 of the periods missed "
			"were thinned: the module's reads took longer than "
			"their bound, with no cgroup left to shed, and it read "
			"less often (stats/thinned)\n");
	assert_contains(log, "capture rate 40.00% is below 99%");
	free(log);
	st0.ksnap_periods_thinned = 0;
	log = summary_of(5, &st0, 1);
	if (strstr(log, "thinned"))
		fail_msg("expected no word of thinning with none; got:\n%s", log);
	free(log);
}

static void no_log_no_warnings(void **s)
{
	struct ksnap_stream_stats st0 = { .collection_rate_nanos = 1000 };

	assert_int_equal(ksnapd_summary(NULL, 1, &st0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(warns_at_gvisor_thresholds),
		cmocka_unit_test(counts_an_earlier_readers_snapshots_in_the_capture),
		cmocka_unit_test(dropped_rows_warn_and_overwritten_snapshots_are_said),
		cmocka_unit_test(skipped_snapshots_are_said_with_why),
		cmocka_unit_test(thinned_periods_are_said_with_why),
		cmocka_unit_test(no_log_no_warnings),
	};

	return cmocka_run_group_tests_name("summary", tests, NULL, NULL);
}

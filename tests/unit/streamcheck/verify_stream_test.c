// SPDX-License-Identifier: MIT
/*
 * The parser's streaming mode (verify_check.h, ops->row), as ksnap-plot
 * uses it: rows delivered as they are read, duplicates among the last
 * rows, out-of-order rows dropped as damage, gaps told as they are found,
 * the walk's progress; and the same verdict as without streaming.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "verify_build.h"
#include "verify_collect.h"
#include "verify_gaps.h"	/* ksv_median_step() */

static struct sb b;
static struct got g;

/* What streaming delivered: the rows, and when each finding came. */
static struct {
	unsigned int rows;
	uint64_t t[MAX_ROWS];
	uint64_t v1[MAX_ROWS];		/* second value */
	uint32_t line[MAX_ROWS];
	unsigned int rows_before_gap;	/* rows delivered before a GAP */
	bool gap_seen;
	int row_ret;			/* what row() returns */
	int rows_at_end;		/* ksv_stream_rows() at end() */
	size_t progress_calls, last_pos;
	bool progress_back;		/* a pass started again earlier */
} st;

static int st_row(void *priv, const struct ksv_stream *s,
		  const struct ksv_row *r)
{
	(void)s;
	(void)priv;
	if (st.rows < MAX_ROWS) {
		st.t[st.rows] = r->t;
		st.v1[st.rows] = r->ncols > 1 ? r->v[1] : 0;
		st.line[st.rows] = r->line;
	}
	st.rows++;
	return st.row_ret;
}

static void st_finding(void *priv, const struct ksv_stream *s,
		       const struct ksv_finding *f)
{
	if (f->what == KSV_GAP && !st.gap_seen) {
		st.gap_seen = true;
		st.rows_before_gap = st.rows;
	}
	got_finding(priv, s, f);
}

static int noop_row(void *priv, const struct ksv_row *r)
{
	(void)priv;
	(void)r;
	return 0;
}

static int st_end(void *priv, const struct ksv_stream *s)
{
	struct got *gg = priv;

	st.rows_at_end = ksv_stream_rows(s, noop_row, NULL);
	if (gg->ended < MAX_STREAMS)
		gg->info[gg->ended++] = *ksv_stream_info(s);
	return 0;
}

static void st_progress(void *priv, size_t pos)
{
	(void)priv;
	if (st.progress_calls++ && pos < st.last_pos)
		st.progress_back = true;
	st.last_pos = pos;
}

static void walk_streaming(const char *buf, size_t len)
{
	const struct ksv_ops ops = {
		.priv = &g, .begin = got_begin, .finding = st_finding,
		.end = st_end, .row = st_row, .progress = st_progress,
	};
	int row_ret = st.row_ret;

	memset(&g, 0, sizeof(g));
	memset(&st, 0, sizeof(st));
	st.row_ret = row_ret;
	g.ret = ksv_walk(buf, len, &ops, &g.log);
}

static void expect_rows(const uint64_t *want, unsigned int n)
{
	unsigned int k;

	expect_u64("rows delivered", n, st.rows);
	for (k = 0; k < n; k++)
		if (st.t[k] != want[k])
			fail_msg("expected row %u at t=%llu, got t=%llu", k,
				 (unsigned long long)want[k],
				 (unsigned long long)st.t[k]);
}

static void rows_come_as_read_with_their_values(void **state)
{
	static const uint64_t want[] = { 1000, 2000, 3000 };

	sb_init(&b, true);
	sb_stream(&b, 3);
	walk_streaming(b.buf, b.len);
	assert_int_equal(g.ret, 0);
	expect_rows(want, 3);
	expect_u64("row 3's second value", 21, st.v1[2]);
	expect_u64("row 3's line", 7, st.line[2]);
	expect_u64("intact rows", 3, g.info[0].rows);
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_INTACT);
}

static void rows_accessor_is_einval_when_streaming(void **state)
{
	sb_init(&b, false);
	sb_stream(&b, 2);
	walk_streaming(b.buf, b.len);
	assert_int_equal(st.rows_at_end, -EINVAL);
}

static void a_row_callback_error_stops_the_walk(void **state)
{
	sb_init(&b, false);
	sb_stream(&b, 3);
	st.row_ret = -EIO;
	walk_streaming(b.buf, b.len);
	st.row_ret = 0;
	assert_int_equal(g.ret, -EIO);
	expect_u64("rows delivered", 1, st.rows);
	assert_int_equal(g.ended, 0);
}

static void a_block_written_twice_is_dropped_as_duplicates(void **state)
{
	static const uint64_t want[] = { 1000, 2000, 3000, 4000 };
	const struct ksv_finding *f;

	sb_init(&b, true);
	sb_head(&b);
	sb_row(&b, 0);
	sb_row(&b, 1);
	sb_row(&b, 2);
	sb_row(&b, 1);				/* lines 8-9 */
	sb_row(&b, 2);
	sb_row(&b, 3);
	sb_stats(&b, 4, "");
	sb_adler(&b);
	walk_streaming(b.buf, b.len);
	expect_rows(want, 4);
	f = must_find(&g, KSV_DUPLICATE, 0);
	expect_u64("duplicate from", 8, f->dup.from);
	expect_u64("duplicate to", 9, f->dup.to);
	expect_u64("duplicate of", 6, f->dup.orig_from);
	expect_u64("duplicate lines", 2, g.info[0].dup_lines);
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_DAMAGED);
}

static void an_out_of_order_row_is_damage_and_dropped(void **state)
{
	static const uint64_t want[] = { 1000, 3000, 4000 };
	const struct ksv_finding *f;

	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);
	sb_row(&b, 2);
	sb_row(&b, 1);				/* line 7: t=2000 */
	sb_row(&b, 3);
	sb_stats(&b, 4, "");
	walk_streaming(b.buf, b.len);
	expect_rows(want, 3);
	f = must_find(&g, KSV_BAD_LINE, 0);
	expect_u64("bad line", 7, f->line);
	expect_u64("its time", 2000, f->t);
	if (!strstr(f->bad.why, "out of time order"))
		fail_msg("expected the reason to say out of time order, got "
			 "'%s'", f->bad.why);
	expect_u64("after the row at", 3000, f->bad.where.row_t);
	assert_true(g.info[0].out_of_order);
	expect_u64("rows cut or damaged", 1, g.info[0].rows_bad);
	/* Found, so not missing by STATS' count. */
	expect_u64("rows missing", 0, g.info[0].rows_missing);
	assert_null(find(&g, KSV_OUT_OF_ORDER, 0));
}

static void same_time_other_values_is_damage(void **state)
{
	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);
	sb_row(&b, 1);
	sb_line(&b, "2000\t7\t7");		/* line 7 */
	sb_stats(&b, 2, "");
	walk_streaming(b.buf, b.len);
	expect_u64("rows delivered", 2, st.rows);
	expect_u64("bad line", 7, must_find(&g, KSV_BAD_LINE, 0)->line);
	assert_string_equal(must_find(&g, KSV_BAD_LINE, 0)->bad.why,
			    "same time as an earlier row, other values");
}

static void a_gap_is_told_when_the_row_after_it_is_read(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, true);
	sb_stream(&b, 6);
	sb_drop(&b, 7);				/* row 2, t=3000 */
	sb_drop(&b, 7);				/* row 3, t=4000 */
	walk_streaming(b.buf, b.len);
	f = must_find(&g, KSV_GAP, 0);
	expect_u64("rows the gap holds", 2, f->gap.slots);
	expect_u64("gap from t", 2000, f->gap.from_t);
	expect_u64("gap to t", 5000, f->gap.to_t);
	expect_u64("gap to line", 7, f->gap.to_line);
	assert_false(f->gap.explained);
	/* Told before the row after it was delivered, and the rows after. */
	expect_u64("rows delivered before the gap", 2, st.rows_before_gap);
	f = must_find(&g, KSV_MISSING_ROWS, 0);
	expect_u64("missing", 2, f->rows.missing);
	expect_u64("gap slots", 2, f->rows.gap_slots);
	expect_u64("rows missing", 2, g.info[0].rows_missing);
}

static void gaps_of_dropped_snapshots_end_in_gaps_dropped(void **state)
{
	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);
	sb_row(&b, 2);				/* the module lost t=2000 */
	sb_stats(&b, 2, ",\"ksnap_snapshots_lost\":1");
	walk_streaming(b.buf, b.len);
	expect_u64("gaps", 1, count(&g, KSV_GAP));
	must_find(&g, KSV_GAPS_DROPPED, 0);
	assert_null(find(&g, KSV_MISSING_ROWS, 0));
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_INTACT);
}

static void without_stats_the_period_is_the_median_step(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);
	sb_row(&b, 1);
	sb_row(&b, 2);
	sb_row(&b, 5);				/* t=6000: 2 rows fit */
	sb_row(&b, 6);
	walk_streaming(b.buf, b.len);
	f = must_find(&g, KSV_GAP, 0);
	expect_u64("rows the gap holds", 2, f->gap.slots);
	must_find(&g, KSV_GAPS_UNCOUNTED, 0);
}

static void median_step_ignores_steps_back(void **state)
{
	static const uint64_t t[] = { 10, 20, 30, 25, 40, 100 };

	expect_u64("median step", 10, ksv_median_step(t, 6));
	expect_u64("one time", 0, ksv_median_step(t, 1));
}

/* A plain stream of n rows, period 1000, in a buffer of its own. */
static char *big_stream(unsigned int n, unsigned int dup_of, size_t *len)
{
	size_t cap = 200 + (size_t)(n + 1) * 40, k = 0;
	char *buf = malloc(cap);
	unsigned int i;

	assert_non_null(buf);
	k += (size_t)snprintf(buf + k, cap - k, "META\tm\t{\"name\":\"m\"}\n"
			      "START_TIME\t1\nTime (ns)\tm\n");
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%u\t%u\n",
				      1000 * (i + 1), i);
	/* Row dup_of written again at the end. */
	k += (size_t)snprintf(buf + k, cap - k, "%u\t%u\n",
			      1000 * (dup_of + 1), dup_of);
	*len = k;
	return buf;
}

static void a_duplicate_older_than_the_window_is_damage(void **state)
{
	size_t len;
	char *buf = big_stream(KSV_WINDOW + 10, 0, &len);

	walk_streaming(buf, len);
	expect_u64("rows delivered", KSV_WINDOW + 10, st.rows);
	expect_u64("duplicates", 0, count(&g, KSV_DUPLICATE));
	expect_u64("bad lines", 1, count(&g, KSV_BAD_LINE));
	free(buf);
}

static void a_duplicate_within_the_window_is_found(void **state)
{
	size_t len;
	char *buf = big_stream(KSV_WINDOW + 10, 20, &len);

	walk_streaming(buf, len);
	expect_u64("duplicates", 1, count(&g, KSV_DUPLICATE));
	expect_u64("bad lines", 0, count(&g, KSV_BAD_LINE));
	free(buf);
}

static void progress_is_told_pass_by_pass(void **state)
{
	size_t len;
	char *buf = big_stream(200000, 0, &len);

	walk_streaming(buf, len);
	/* Each pass tells every 64 Ki lines; a later pass starts over. */
	if (st.progress_calls < 8)
		fail_msg("expected progress at least 8 times, got %zu",
			 st.progress_calls);
	assert_true(st.progress_back);
	assert_true(st.last_pos <= len);
	free(buf);
}

/* Without out-of-order rows, the verdict is the one without streaming. */
static void damaged_log_has_the_same_verdict_both_ways(void **state)
{
	struct ksv_info plain;

	sb_init(&b, true);
	sb_raw(&b, "kernel: hello\n");
	sb_stream(&b, 8);
	sb_drop(&b, 8);				/* a row */
	sb_raw(&b, "GVISOR_METRICS\t9000\t80\n");	/* cut */
	walk(&g, b.buf, b.len);
	plain = g.info[0];
	walk_streaming(b.buf, b.len);
	expect_u64("rows", plain.rows, g.info[0].rows);
	expect_u64("rows bad", plain.rows_bad, g.info[0].rows_bad);
	expect_u64("rows missing", plain.rows_missing, g.info[0].rows_missing);
	expect_u64("bad lines", plain.bad_lines, g.info[0].bad_lines);
	expect_u64("status", plain.status, g.info[0].status);
	expect_u64("sum", plain.sum, g.info[0].sum);
	expect_u64("rows delivered", plain.rows, st.rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_come_as_read_with_their_values),
		cmocka_unit_test(rows_accessor_is_einval_when_streaming),
		cmocka_unit_test(a_row_callback_error_stops_the_walk),
		cmocka_unit_test(a_block_written_twice_is_dropped_as_duplicates),
		cmocka_unit_test(an_out_of_order_row_is_damage_and_dropped),
		cmocka_unit_test(same_time_other_values_is_damage),
		cmocka_unit_test(a_gap_is_told_when_the_row_after_it_is_read),
		cmocka_unit_test(gaps_of_dropped_snapshots_end_in_gaps_dropped),
		cmocka_unit_test(without_stats_the_period_is_the_median_step),
		cmocka_unit_test(median_step_ignores_steps_back),
		cmocka_unit_test(a_duplicate_older_than_the_window_is_damage),
		cmocka_unit_test(a_duplicate_within_the_window_is_found),
		cmocka_unit_test(progress_is_told_pass_by_pass),
		cmocka_unit_test(damaged_log_has_the_same_verdict_both_ways),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

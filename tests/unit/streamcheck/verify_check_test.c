// SPDX-License-Identifier: MIT
/* ksnap-verify's stream checks: what each stream's own state finds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verify_build.h"
#include "verify_collect.h"

static struct sb b;
static struct got g;

static void intact_lossy_stream_finds_only_its_checksum(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, true);
	sb_stream(&b, 5);
	walk(&g, b.buf, b.len);
	assert_int_equal(g.ret, 0);
	if (g.nf != 1)
		fail_msg("expected 1 finding (the checksum), got %u, the "
			 "first %s", g.nf, what_names[g.f[0].what]);
	f = must_find(&g, KSV_SUM, 0);
	assert_int_equal(f->sum.result, KSV_SUM_MATCH);
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_INTACT);
	expect_u64("intact rows", 5, g.info[0].rows);
}

static void lost_row_is_missing_and_located_by_its_gap(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, true);
	sb_stream(&b, 5);
	sb_drop(&b, 5 + 2);			/* row 2, t=3000 */
	walk(&g, b.buf, b.len);
	f = must_find(&g, KSV_GAP, 0);
	expect_u64("gap slots", 1, f->gap.slots);
	expect_u64("gap from line", 6, f->gap.from_line);
	expect_u64("gap from t", 2000, f->gap.from_t);
	expect_u64("gap to line", 7, f->gap.to_line);
	expect_u64("gap to t", 4000, f->gap.to_t);
	assert_false(f->gap.explained);
	f = must_find(&g, KSV_MISSING_ROWS, 0);
	expect_u64("missing rows", 1, f->rows.missing);
	expect_u64("rows found", 4, f->rows.found);
	f = must_find(&g, KSV_SUM, 0);
	assert_int_equal(f->sum.result, KSV_SUM_MISMATCH);
	if (f->sum.unexplained)
		fail_msg("expected the mismatch explained by the missing row, "
			 "got unexplained");
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_DAMAGED);
	expect_u64("stream rows_missing", 1, g.info[0].rows_missing);
}

static void repeated_flush_block_is_one_duplicate_finding(void **state)
{
	const struct ksv_finding *f;
	unsigned int i;

	sb_init(&b, false);
	sb_head(&b);
	for (i = 0; i < 4; i++)
		sb_row(&b, i);			/* lines 5-8 */
	sb_row(&b, 1);				/* lines 9-10 repeat 6-7 */
	sb_row(&b, 2);
	sb_stats(&b, 4, "");
	walk(&g, b.buf, b.len);
	if (count(&g, KSV_DUPLICATE) != 1)
		fail_msg("expected one DUPLICATE finding for the block, got "
			 "%u", count(&g, KSV_DUPLICATE));
	f = must_find(&g, KSV_DUPLICATE, 0);
	expect_u64("dup from", 9, f->dup.from);
	expect_u64("dup to", 10, f->dup.to);
	expect_u64("dup of from", 6, f->dup.orig_from);
	expect_u64("dup of to", 7, f->dup.orig_to);
	expect_u64("dup rows", 2, f->dup.rows);
	expect_u64("dup t0", 2000, f->dup.t0);
	expect_u64("dup t1", 3000, f->dup.t1);
	expect_u64("dup lines", 2, g.info[0].dup_lines);
	expect_u64("intact rows", 4, g.info[0].rows);
}

static void row_with_fewer_fields_is_cut_and_not_missing(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);
	sb_line(&b, "2000\t10");		/* line 6: a value short */
	sb_row(&b, 2);
	sb_stats(&b, 3, "");
	walk(&g, b.buf, b.len);
	f = must_find(&g, KSV_BAD_LINE, 0);
	expect_u64("bad line", 6, f->line);
	assert_int_equal(f->bad.state, KSV_S_CUT);
	assert_string_equal(f->bad.why, "fewer fields than the header");
	if (!f->has_t || f->t != 2000)
		fail_msg("expected the cut row's time 2000, got %s%llu",
			 f->has_t ? "" : "none, ", (unsigned long long)f->t);
	if (!f->bad.where.after_row || f->bad.where.row_line != 5)
		fail_msg("expected it placed after the row of line 5, got "
			 "line %u", f->bad.where.row_line);
	/* STATS' 3 rows: 2 intact, 1 cut; none missing. */
	assert_null(find(&g, KSV_MISSING_ROWS, 0));
	expect_u64("cut or damaged rows", 1, g.info[0].rows_bad);
}

static void row_out_of_time_order_is_kept_in_order(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);
	sb_row(&b, 2);
	sb_row(&b, 1);				/* line 7, t=2000 */
	sb_stats(&b, 3, "");
	walk(&g, b.buf, b.len);
	f = must_find(&g, KSV_OUT_OF_ORDER, 0);
	expect_u64("line", 7, f->line);
	expect_u64("t", 2000, f->t);
	expect_u64("after t", 3000, f->after_t);
	assert_true(g.info[0].out_of_order);
	assert_int_equal(g.nrows[0], 3);
	if (g.row_t[0][0] != 1000 || g.row_t[0][1] != 2000 ||
	    g.row_t[0][2] != 3000)
		fail_msg("expected rows at 1000, 2000, 3000; got %llu, %llu, "
			 "%llu", (unsigned long long)g.row_t[0][0],
			 (unsigned long long)g.row_t[0][1],
			 (unsigned long long)g.row_t[0][2]);
}

static void each_stream_counts_its_own_missing_rows(void **state)
{
	unsigned int i;

	sb_init(&b, false);
	sb_head(&b);
	for (i = 0; i < 5; i++)
		if (i != 3)
			sb_row(&b, i);		/* STATS says 5 */
	sb_stats(&b, 5, "");
	sb_stream(&b, 4);			/* a whole second stream */
	walk(&g, b.buf, b.len);
	assert_int_equal(g.ended, 2);
	expect_u64("stream 1 rows_missing", 1, g.info[0].rows_missing);
	expect_u64("stream 2 rows_missing", 0, g.info[1].rows_missing);
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_DAMAGED);
	if (g.info[1].status != KSNAP_VERIFY_INTACT)
		fail_msg("expected stream 2 intact, its own rows all there; "
			 "got status %d", g.info[1].status);
}

static void new_start_time_takes_the_meta_lines_before_it(void **state)
{
	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);				/* no STATS: cut short */
	sb_line(&b, "META\tm\t{\"name\":\"m\"}");	/* line 6 */
	sb_line(&b, "META\tn\t{\"name\":\"n\"}");
	sb_line(&b, "START_TIME\t1800000000000000000");
	sb_line(&b, "Time (ns)\tm\tn[x]");
	sb_row(&b, 0);
	sb_stats(&b, 1, "");
	walk(&g, b.buf, b.len);
	assert_int_equal(g.ended, 2);
	expect_u64("stream 1 last line", 5, g.info[0].last_line);
	expect_u64("stream 2 first line", 6, g.info[1].first_line);
	assert_null(find(&g, KSV_DUPLICATE, 0));
	assert_int_equal(g.info[1].status, KSNAP_VERIFY_INTACT);
}

static void header_column_without_meta_is_missing(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, false);
	sb_line(&b, "META\tm\t{}");
	sb_line(&b, "START_TIME\t1");
	sb_line(&b, "Time (ns)\tm\tq[a]");	/* line 3 */
	sb_line(&b, "1000\t1\t2");
	sb_stats(&b, 1, "");
	walk(&g, b.buf, b.len);
	f = must_find(&g, KSV_NO_META, 0);
	expect_u64("header line", 3, f->line);
	if (f->column.len != 4 || memcmp(f->column.name, "q[a]", 4))
		fail_msg("expected column \"q[a]\", got \"%.*s\"",
			 (int)f->column.len, f->column.name);
	expect_u64("missing lines", 1, g.info[0].missing_lines);
}

static void lossy_file_ended_without_stats_is_intact(void **state)
{
	unsigned int i;

	sb_init(&b, true);
	sb_head(&b);
	for (i = 0; i < 3; i++)
		sb_row(&b, i);
	sb_adler(&b);				/* ksnapd at SIGHUP */
	walk(&g, b.buf, b.len);
	must_find(&g, KSV_ENDED_NO_STATS, 0);
	assert_null(find(&g, KSV_MISSING_LINE, 0));
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_INTACT);
}

/* A prefix byte altered loses nothing: the file still ended on purpose. */
static void kept_line_does_not_make_an_ended_file_miss_stats(void **state)
{
	unsigned int i;

	sb_init(&b, true);
	sb_head(&b);
	for (i = 0; i < 3; i++)
		sb_row(&b, i);
	sb_adler(&b);
	b.buf[b.buf[0] == 'G' ? 1 : 0] = 'x';	/* line 1: "GxISOR_..." */
	walk(&g, b.buf, b.len);
	must_find(&g, KSV_REPAIRED_LINE, 0);
	must_find(&g, KSV_ENDED_NO_STATS, 0);
	if (find(&g, KSV_MISSING_LINE, 0))
		fail_msg("expected no missing line (the checksum matches), "
			 "got the %s line missing",
			 find(&g, KSV_MISSING_LINE, 0)->kind == KSV_K_STATS ?
			 "STATS" : "another");
	expect_u64("missing lines", 0, g.info[0].missing_lines);
}

static void gap_the_module_made_is_explained(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, true);
	sb_head(&b);
	sb_row(&b, 0);
	sb_row(&b, 1);
	sb_row(&b, 3);				/* snapshot 2 lost */
	sb_stats(&b, 3, ",\"ksnap_snapshots_lost\":1");
	sb_adler(&b);
	walk(&g, b.buf, b.len);
	f = must_find(&g, KSV_GAP, 0);
	if (!f->gap.explained)
		fail_msg("expected the gap explained by STATS' lost snapshot");
	f = must_find(&g, KSV_GAPS_DROPPED, 0);
	expect_u64("gap slots", 1, f->rows.gap_slots);
	assert_null(find(&g, KSV_MISSING_ROWS, 0));
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_INTACT);
}

static void checksum_mismatch_alone_counts_a_missing_line(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, true);
	sb_head(&b);
	sb_row(&b, 0);
	sb_stats(&b, 1, "");
	b.sum ^= 1;				/* a line lost unseen */
	sb_adler(&b);
	walk(&g, b.buf, b.len);
	f = must_find(&g, KSV_SUM, 0);
	assert_int_equal(f->sum.result, KSV_SUM_MISMATCH);
	if (!f->sum.unexplained)
		fail_msg("expected the mismatch unexplained: every line "
			 "present is intact");
	expect_u64("missing lines", 1, g.info[0].missing_lines);
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_DAMAGED);
}

static void row_before_the_header_is_an_orphan(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, false);
	sb_line(&b, "START_TIME\t1");
	sb_line(&b, "1000\t1");			/* line 2 */
	walk(&g, b.buf, b.len);
	f = must_find(&g, KSV_ORPHAN_ROW, 0);
	expect_u64("line", 2, f->line);
	assert_int_equal(g.info[0].status, KSNAP_VERIFY_UNUSABLE);
	expect_u64("cut or damaged rows", 1, g.info[0].rows_bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intact_lossy_stream_finds_only_its_checksum),
		cmocka_unit_test(lost_row_is_missing_and_located_by_its_gap),
		cmocka_unit_test(repeated_flush_block_is_one_duplicate_finding),
		cmocka_unit_test(row_with_fewer_fields_is_cut_and_not_missing),
		cmocka_unit_test(row_out_of_time_order_is_kept_in_order),
		cmocka_unit_test(each_stream_counts_its_own_missing_rows),
		cmocka_unit_test(new_start_time_takes_the_meta_lines_before_it),
		cmocka_unit_test(header_column_without_meta_is_missing),
		cmocka_unit_test(lossy_file_ended_without_stats_is_intact),
		cmocka_unit_test(kept_line_does_not_make_an_ended_file_miss_stats),
		cmocka_unit_test(gap_the_module_made_is_explained),
		cmocka_unit_test(checksum_mismatch_alone_counts_a_missing_line),
		cmocka_unit_test(row_before_the_header_is_an_orphan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * The parser API ksnap-plot uses (verify_check.h): a stream's columns,
 * META, START_TIME, rows and STATS, delivered at its end; the walk's
 * callbacks and errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "verify_build.h"
#include "verify_collect.h"

static struct sb b;
static struct got g;

/* What the end() callback of these tests read from the stream. */
static char parts[2048];

static void add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void add(const char *fmt, ...)
{
	size_t n = strlen(parts);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(parts + n, sizeof(parts) - n, fmt, ap);
	va_end(ap);
}

static int add_column(void *priv, uint32_t k, const char *name, size_t len)
{
	add("col %u %.*s\n", k, (int)len, name);
	return 0;
}

static int add_meta(void *priv, const char *name, size_t name_len,
		    const char *json, size_t json_len)
{
	add("meta %.*s %.*s\n", (int)name_len, name, (int)json_len, json);
	return 0;
}

static int add_row(void *priv, const struct ksv_row *r)
{
	uint32_t k;

	add("row %llu line %u:", (unsigned long long)r->t, r->line);
	for (k = 0; k < r->ncols; k++)
		add(" %llu", (unsigned long long)r->v[k]);
	add("\n");
	return 0;
}

static int add_stat(void *priv, const char *key, size_t key_len,
		    const char *value, size_t value_len)
{
	add("stat %.*s=%.*s\n", (int)key_len, key, (int)value_len, value);
	return 0;
}

static int read_parts(void *priv, const struct ksv_stream *s)
{
	const struct ksv_stats *st = ksv_stream_stats(s);
	uint64_t start;

	assert_int_equal(ksv_stream_columns(s, add_column, NULL), 0);
	assert_int_equal(ksv_stream_metas(s, add_meta, NULL), 0);
	if (ksv_stream_start_time(s, &start))
		add("start %llu\n", (unsigned long long)start);
	assert_int_equal(ksv_stream_rows(s, add_row, NULL), 0);
	if (st)
		add("stats total %llu\n", (unsigned long long)st->total);
	return ksv_stream_stats_each(s, add_stat, NULL);
}

static int walk_parts(const struct sb *log)
{
	const struct ksv_ops ops = { .end = read_parts };
	struct ksv_log l;

	parts[0] = '\0';
	return ksv_walk(log->buf, log->len, &ops, &l);
}

static void expect_parts(const char *want)
{
	if (strcmp(parts, want))
		fail_msg("expected the stream's parts:\n%s\ngot:\n%s", want,
			 parts);
}

static void lossy_stream_parts_are_read_at_its_end(void **state)
{
	sb_init(&b, true);
	sb_stream(&b, 2);
	assert_int_equal(walk_parts(&b), 0);
	expect_parts("col 0 m\ncol 1 n[x]\n"
		     "meta m {\"name\":\"m\"}\nmeta n {\"name\":\"n\"}\n"
		     "start 1700000000000000000\n"
		     "row 1000 line 5: 0 1\nrow 2000 line 6: 10 11\n"
		     "stats total 2\n"
		     "stat collection_rate=1000\nstat cheap_start_nanos=0\n"
		     "stat cheap_last_collection_nanos=2000\n"
		     "stat total_snapshots=2\n");
}

static void damaged_and_duplicate_rows_are_not_delivered(void **state)
{
	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);
	sb_line(&b, "2000\t10");		/* cut */
	sb_row(&b, 2);
	sb_row(&b, 0);				/* duplicate */
	sb_stats(&b, 3, "");
	assert_int_equal(walk_parts(&b), 0);
	if (!strstr(parts, "row 1000 line 5: 0 1\nrow 3000 line 7: 20 21\n"
		    "stats"))
		fail_msg("expected only the rows of lines 5 and 7, got:\n%s",
			 parts);
}

static void stats_keys_come_as_written(void **state)
{
	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);
	sb_stats(&b, 1, ", \"note\":\"a, \\\"b\\\"\", \"ok\":true");
	assert_int_equal(walk_parts(&b), 0);
	if (!strstr(parts, "stat note=\"a, \\\"b\\\"\"\nstat ok=true\n"))
		fail_msg("expected the string and boolean values as written, "
			 "got:\n%s", parts);
}

static void nested_stats_are_refused_after_the_flat_keys(void **state)
{
	sb_init(&b, false);
	sb_head(&b);
	sb_row(&b, 0);
	sb_stats(&b, 1, ",\"x\":{\"a\":1}");
	assert_int_equal(walk_parts(&b), -EINVAL);
	if (!strstr(parts, "stat total_snapshots=1\n") ||
	    strstr(parts, "stat x"))
		fail_msg("expected the keys before \"x\" and not \"x\", got:"
			 "\n%s", parts);
}

static void an_end_callback_error_stops_the_walk(void **state)
{
	sb_init(&b, false);
	sb_stream(&b, 1);
	sb_stream(&b, 1);
	g.end_ret = -EIO;
	walk(&g, b.buf, b.len);
	g.end_ret = 0;
	assert_int_equal(g.ret, -EIO);
	if (g.ended != 1)
		fail_msg("expected the walk stopped after stream 1, got %u "
			 "streams", g.ended);
}

static void log_without_stream_is_enoent_with_its_lines(void **state)
{
	static const char log[] = "hello\nworld\n";

	walk(&g, log, strlen(log));
	assert_int_equal(g.ret, -ENOENT);
	expect_u64("lines", 2, g.log.lines);
	assert_int_equal(g.begun, 0);
}

static void foreign_lines_are_one_finding_before_the_streams(void **state)
{
	const struct ksv_finding *f;

	sb_init(&b, true);
	sb_raw(&b, "kernel: hello\n");		/* line 1 */
	sb_stream(&b, 2);
	sb_raw(&b, "one\ntwo\n");		/* lines 10-11 */
	walk(&g, b.buf, b.len);
	f = must_find(&g, KSV_FOREIGN, 0);
	if (f != &g.f[0] || g.f_stream[0])
		fail_msg("expected the foreign lines first, outside streams");
	expect_u64("foreign lines", 3, f->foreign.count);
	assert_int_equal(f->foreign.nr_ranges, 2);
	expect_u64("range 1", 1, f->foreign.from[0]);
	expect_u64("range 2 from", 10, f->foreign.from[1]);
	expect_u64("range 2 to", 11, f->foreign.to[1]);
	expect_u64("log foreign", 3, g.log.foreign);
	expect_u64("log lines", 11, g.log.lines);
}

static void info_has_lines_at_begin_and_columns_at_end(void **state)
{
	sb_init(&b, false);
	sb_raw(&b, "log\n");
	sb_stream(&b, 1);			/* lines 2-7 */
	walk(&g, b.buf, b.len);
	expect_u64("first line at begin", 2, g.at_begin[0].first_line);
	expect_u64("last line at begin", 7, g.at_begin[0].last_line);
	expect_u64("stream number at begin", 1, g.at_begin[0].no);
	assert_true(g.info[0].has_header);
	expect_u64("columns", 2, g.info[0].ncols);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lossy_stream_parts_are_read_at_its_end),
		cmocka_unit_test(damaged_and_duplicate_rows_are_not_delivered),
		cmocka_unit_test(stats_keys_come_as_written),
		cmocka_unit_test(nested_stats_are_refused_after_the_flat_keys),
		cmocka_unit_test(an_end_callback_error_stops_the_walk),
		cmocka_unit_test(log_without_stream_is_enoent_with_its_lines),
		cmocka_unit_test(foreign_lines_are_one_finding_before_the_streams),
		cmocka_unit_test(info_has_lines_at_begin_and_columns_at_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

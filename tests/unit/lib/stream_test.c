// SPDX-License-Identifier: MIT
/* Line formatting of the profiling-metrics stream, plain and lossy. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "fake_sys.h"
#include "fake_ring.h"
#include "stream.h"

struct ctx {
	struct ksnap_out out;
	struct ksnap_stream s;
	struct ksnap_column cols[8];
};

static void set_col(struct ksnap_column *c, const char *metric,
		    const char *field, const char *value, const char *desc,
		    uint32_t flags)
{
	memset(c, 0, sizeof(*c));
	fake_copy(c->metric, sizeof(c->metric), metric);
	fake_copy(c->field, sizeof(c->field), field);
	fake_copy(c->value, sizeof(c->value), value);
	fake_copy(c->description, sizeof(c->description), desc);
	c->flags = flags;
}

static int setup(void **state, bool lossy)
{
	struct ctx *c = calloc(1, sizeof(*c));

	fake_sys_reset();
	fake_sys.capture = true;
	assert_int_equal(ksnap_out_init(&c->out, 1, false, lossy, 4096), 0);
	ksnap_stream_init(&c->s, &c->out, lossy);
	*state = c;
	return 0;
}

static int setup_plain(void **state)
{
	return setup(state, false);
}

static int setup_lossy(void **state)
{
	return setup(state, true);
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	ksnap_out_fini(&c->out);
	free(c);
	fake_sys_reset();
	return 0;
}

/* What the stream wrote, after a flush. */
static const char *written(struct ctx *c)
{
	assert_int_equal(ksnap_out_flush(&c->out), 0);
	return fake_sys.wbuf ? fake_sys.wbuf : "";
}

static void meta_without_fields_is_one_json_object(void **state)
{
	struct ctx *c = *state;

	set_col(&c->cols[0], "/ksnap/pgfault", "", "", "Page faults.",
		KSNAP_COL_CUMULATIVE);
	assert_int_equal(ksnap_stream_meta(&c->s, c->cols, 1), 0);
	assert_string_equal(written(c),
		"META\t/ksnap/pgfault\t{\"name\":\"/ksnap/pgfault\","
		"\"description\":\"Page faults.\",\"cumulative\":true,"
		"\"type\":\"TYPE_UINT64\"}\n");
}

static void meta_nanoseconds_gauge_has_units_and_no_cumulative(void **state)
{
	struct ctx *c = *state;

	set_col(&c->cols[0], "lat", "", "", "", KSNAP_COL_NANOSECONDS);
	assert_int_equal(ksnap_stream_meta(&c->s, c->cols, 1), 0);
	assert_string_equal(written(c),
		"META\tlat\t{\"name\":\"lat\",\"type\":\"TYPE_UINT64\","
		"\"units\":\"UNITS_NANOSECONDS\"}\n");
}

static void meta_is_one_line_per_metric_with_allowed_values(void **state)
{
	struct ctx *c = *state;

	set_col(&c->cols[0], "cpu", "cgroup", "/a", "CPU ns.",
		KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	set_col(&c->cols[1], "mem", "", "", "Memory.", 0);
	set_col(&c->cols[2], "cpu", "cgroup", "/b", "CPU ns.",
		KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	set_col(&c->cols[3], "cpu", "cgroup", "/a", "CPU ns.",
		KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	assert_int_equal(ksnap_stream_meta(&c->s, c->cols, 4), 0);
	assert_string_equal(written(c),
		"META\tcpu\t{\"name\":\"cpu\",\"description\":\"CPU ns.\","
		"\"cumulative\":true,\"type\":\"TYPE_UINT64\","
		"\"units\":\"UNITS_NANOSECONDS\",\"fields\":[{\"fieldName\":"
		"\"cgroup\",\"allowedValues\":[\"/a\",\"/b\"]}]}\n"
		"META\tmem\t{\"name\":\"mem\",\"description\":\"Memory.\","
		"\"type\":\"TYPE_UINT64\"}\n");
}

static void json_escapes_quotes_backslashes_and_control_chars(void **state)
{
	char buf[256], *end;
	const char in[] = "a\"b\\c\n\t\x01\x1f" "d\x7f";

	(void)state;
	end = ksnap_json_string(buf, in, sizeof(in));
	*end = '\0';
	assert_string_equal(buf,
		"\"a\\\"b\\\\c\\u000a\\u0009\\u0001\\u001fd\x7f\"");
}

static void json_keeps_utf8_and_replaces_invalid_bytes(void **state)
{
	char buf[256], *end;
	/* é (valid), lone continuation byte, truncated 3-byte sequence */
	const char in[] = "\xc3\xa9-\x80-\xe2\x82";

	(void)state;
	end = ksnap_json_string(buf, in, sizeof(in));
	*end = '\0';
	assert_string_equal(buf, "\"\xc3\xa9-\\ufffd-\\ufffd\\ufffd\"");
}

static void json_stops_at_field_size_without_nul(void **state)
{
	char buf[64], *end;
	const char in[4] = { 'a', 'b', 'c', 'd' };

	(void)state;
	end = ksnap_json_string(buf, in, 3);
	*end = '\0';
	assert_string_equal(buf, "\"abc\"");
}

static void start_time_is_decimal_ns(void **state)
{
	struct ctx *c = *state;

	assert_int_equal(ksnap_stream_start_time(&c->s,
						 1700000000123456789ULL), 0);
	assert_string_equal(written(c), "START_TIME\t1700000000123456789\n");
}

static void header_names_columns_metric_or_metric_value(void **state)
{
	struct ctx *c = *state;

	set_col(&c->cols[0], "mem", "", "", "", 0);
	set_col(&c->cols[1], "cpu", "cgroup", "/a/b", "", 0);
	assert_int_equal(ksnap_stream_header(&c->s, c->cols, 2), 0);
	assert_string_equal(written(c), "Time (ns)\tmem\tcpu[/a/b]\n");
}

static void row_prints_zero_and_uint64_max_unsigned(void **state)
{
	struct ctx *c = *state;
	__u64 v[3] = { 0, UINT64_MAX, 1ULL << 63 };

	assert_int_equal(ksnap_stream_row(&c->s, 0, v, 3), 0);
	assert_int_equal(ksnap_stream_row(&c->s, 12345, v, 1), 0);
	assert_string_equal(written(c),
		"0\t0\t18446744073709551615\t9223372036854775808\n"
		"12345\t0\n");
}

static void stats_has_gvisor_and_ksnap_keys(void **state)
{
	struct ctx *c = *state;
	struct ksnap_stream_stats st = {
		.collection_rate_nanos = 1000000,
		.cheap_start_nanos = 5,
		.cheap_last_collection_nanos = UINT64_MAX,
		.total_snapshots = 3,
		.total_sleep_timing_error_nanos = 7,
		.total_collection_timing_error_nanos = 8,
		.ksnap_snapshots_taken = 4,
		.ksnap_snapshots_lost = 1,
		.ksnap_periods_missed = 2,
		.ksnap_periods_thinned = 23,
		.ksnap_max_lateness_nanos = 9,
		.ksnap_max_read_nanos = 10,
		.ksnap_lateness_sum_nanos = 16,
		.ksnap_read_sum_nanos = 17,
		.ksnap_bad_tail = 11,
		.ksnap_cgroups_skipped = 19,
		.ksnapd_rows_dropped = 12,
		.ksnapd_snapshots_overwritten = 13,
		.ksnapd_snapshots_skipped = 18,
		.ksnapd_first_position = 14,
		.ksnapd_rows_in_earlier_files = 15,
		.ksnapd_files_removed = 19,
		.ksnapd_bytes_removed = 20,
		.ksnap_exits_lost = 21,
		.ksnapd_exits_unlisted = 22,
		.ksnapd_cgroups_unnamed = 24,
	};

	assert_int_equal(ksnap_stream_stats(&c->s, &st), 0);
	assert_string_equal(written(c),
		"STATS\t{\"collection_rate\":1000000,"
		"\"collection_rate_nanos\":1000000,"
		"\"cheap_start_nanos\":5,"
		"\"cheap_last_collection_nanos\":18446744073709551615,"
		"\"total_snapshots\":3,"
		"\"total_sleep_timing_error\":7,"
		"\"total_sleep_timing_error_nanos\":7,"
		"\"total_collection_timing_error\":8,"
		"\"total_collection_timing_error_nanos\":8,"
		"\"num_backoff_sleeps\":0,"
		"\"total_backoff_sleep\":0,"
		"\"total_backoff_sleep_nanos\":0,"
		"\"ksnap_snapshots_taken\":4,\"ksnap_snapshots_lost\":1,"
		"\"ksnap_periods_missed\":2,\"ksnap_periods_thinned\":23,"
		"\"ksnap_max_lateness_nanos\":9,"
		"\"ksnap_max_read_nanos\":10,"
		"\"ksnap_lateness_sum_nanos\":16,"
		"\"ksnap_read_sum_nanos\":17,\"ksnap_bad_tail\":11,"
		"\"ksnap_cgroups_skipped\":19,"
		"\"ksnapd_rows_dropped\":12,"
		"\"ksnapd_snapshots_overwritten\":13,"
		"\"ksnapd_snapshots_skipped\":18,"
		"\"ksnapd_first_position\":14,"
		"\"ksnapd_rows_in_earlier_files\":15,"
		"\"ksnapd_files_removed\":19,\"ksnapd_bytes_removed\":20,"
		"\"ksnap_exits_lost\":21,\"ksnapd_exits_unlisted\":22,"
		"\"ksnapd_cgroups_unnamed\":24}\n");
}

/*
 * Exit records: an array member after the keys, each cgroup named as a
 * column's field value is, birth and memory only where the module had
 * them, and a cut path said so.
 */
static void stats_lists_exit_records_after_the_keys(void **state)
{
	struct ctx *c = *state;
	struct ksnap_exit x[2] = {
		{ .flags = KSNAP_EXIT_BORN | KSNAP_EXIT_MEMORY,
		  .cgroup_id = 7, .time_ns = 500, .born_ns = 200,
		  .cpu_usage_ns = 90, .cpu_user_ns = 60, .cpu_system_ns = 30,
		  .memory_peak = 4096, .memory_oom = 1, .memory_oom_kill = 2,
		  .path = "/k/a,b" },
		{ .flags = KSNAP_EXIT_PATH_CUT, .cgroup_id = 8, .time_ns = 9,
		  .path = "/k/q\"" },
	};
	struct ksnap_stream_stats st = { .exits = x, .nr_exits = 2 };
	const char *out, *list;

	assert_int_equal(ksnap_stream_stats(&c->s, &st), 0);
	out = written(c);
	list = strstr(out, ",\"ksnap_exits\":[");
	assert_non_null(list);
	assert_non_null(strstr(out, "\"ksnapd_cgroups_unnamed\":0,\"ksnap_exits\""));
	assert_string_equal(list,
		",\"ksnap_exits\":["
		"{\"cgroup\":\"/k/a\\\\x2cb\",\"cgroup_id\":7,\"exit_nanos\":500,"
		"\"born_nanos\":200,\"lifetime_nanos\":300,"
		"\"cpu_usage_nanos\":90,\"cpu_user_nanos\":60,"
		"\"cpu_system_nanos\":30,\"memory_peak_bytes\":4096,"
		"\"memory_oom\":1,\"memory_oom_kill\":2},"
		"{\"cgroup\":\"/k/q\\\"\",\"cgroup_id\":8,\"exit_nanos\":9,"
		"\"cpu_usage_nanos\":0,\"cpu_user_nanos\":0,"
		"\"cpu_system_nanos\":0,\"cgroup_cut\":true}]}\n");
}

/*
 * An exit record says who its cgroup was, with /metrics' label names:
 * those of its identity that have a value, escaped; a record without one
 * says nothing more.
 */
static void stats_exit_records_carry_the_cgroups_names(void **state)
{
	struct ctx *c = *state;
	struct ksnap_exit x[2] = {
		{ .flags = KSNAP_EXIT_MEMORY, .cgroup_id = 7, .time_ns = 500,
		  .memory_oom_kill = 1, .path = "/kubepods.slice/x.scope" },
		{ .cgroup_id = 8, .time_ns = 9, .path = "/k/plain" },
	};
	struct ksnap_identity id[2] = {
		{ .container_id = "0123abcd0123", .pod_uid = "1-2",
		  .namespace = "payments", .pod = "api-7d9f",
		  .container = "server", .image = "reg/app:1\"x",
		  .role = KSNAP_ROLE_CONTAINER },
		{ .role = KSNAP_ROLE_UNKNOWN },
	};
	struct ksnap_stream_stats st = { .exits = x, .exit_ids = id,
					 .nr_exits = 2 };
	const char *out, *list;

	assert_int_equal(ksnap_stream_stats(&c->s, &st), 0);
	out = written(c);
	list = strstr(out, ",\"ksnap_exits\":[");
	assert_non_null(list);
	assert_string_equal(list,
		",\"ksnap_exits\":["
		"{\"cgroup\":\"/kubepods.slice/x.scope\",\"cgroup_id\":7,"
		"\"exit_nanos\":500,\"cpu_usage_nanos\":0,"
		"\"cpu_user_nanos\":0,\"cpu_system_nanos\":0,"
		"\"memory_peak_bytes\":0,\"memory_oom\":0,"
		"\"memory_oom_kill\":1,\"namespace\":\"payments\","
		"\"pod\":\"api-7d9f\",\"container\":\"server\","
		"\"image\":\"reg/app:1\\\"x\",\"container_id\":\"0123abcd0123\","
		"\"pod_uid\":\"1-2\",\"container_role\":\"container\"},"
		"{\"cgroup\":\"/k/plain\",\"cgroup_id\":8,\"exit_nanos\":9,"
		"\"cpu_usage_nanos\":0,\"cpu_user_nanos\":0,"
		"\"cpu_system_nanos\":0}]}\n");
}

/*
 * Paths of control and non-UTF-8 bytes take 6 bytes each in STATS: 64
 * records of 511 of them fit the buffer reserved (under ASan a miss is an
 * overflow), and those past the line's budget are counted, not listed.
 */
static void stats_of_many_long_odd_paths_stays_within_its_budget(void **state)
{
	struct ctx *c = *state;
	static struct ksnap_exit x[64];
	struct ksnap_stream_stats st = { .exits = x, .nr_exits = 64,
					 .ksnapd_exits_unlisted = 5 };
	const char *out, *list, *un;
	unsigned int i, listed = 0;
	size_t j;

	for (i = 0; i < 64; i++) {
		x[i].path[0] = '/';
		for (j = 1; j < sizeof(x[i].path) - 1; j++)
			x[i].path[j] = j % 2 ? 0x01 : (char)0xff;
	}
	assert_int_equal(ksnap_stream_stats(&c->s, &st), 0);
	out = written(c);
	list = strstr(out, "\"ksnap_exits\":[");
	assert_non_null(list);
	for (un = list; (un = strstr(un, "{\"cgroup\":")); un++)
		listed++;
	un = strstr(out, "\"ksnapd_exits_unlisted\":");
	assert_non_null(un);
	if (listed < 1 || listed >= 64)
		fail_msg("expected a few of 64 listed, got %u", listed);
	if (strtoull(un + 24, NULL, 10) != 5 + 64 - listed)
		fail_msg("expected %u unlisted, got %s", 5 + 64 - listed, un);
	if (strlen(out) > 26 * 1024)
		fail_msg("expected a line within 26 KiB, got %zu bytes",
			 strlen(out));
	assert_non_null(strstr(list, "\\u0001\\ufffd"));
	/* Each listed record whole, and the line closed after the last. */
	for (un = list, i = 0; (un = strstr(un, "\"cpu_system_nanos\":0}")); un++)
		i++;
	if (i != listed)
		fail_msg("expected %u whole records, got %u", listed, i);
	j = strlen(out);
	if (j < 4 || strcmp(out + j - 4, "}]}\n"))
		fail_msg("expected the line to end with '}]}', got '%s'",
			 out + (j > 16 ? j - 16 : 0));
}

/*
 * The stream's cgroups that have a name or an id are listed after the
 * exit records, each under its column's field value (escaped as the
 * header escapes it) with /metrics' label names; one with none is left
 * out.
 */
static void stats_names_the_stream_cgroups_that_have_identity(void **state)
{
	struct ctx *c = *state;
	struct ksnap_exit x = { .cgroup_id = 8, .time_ns = 9, .path = "/k/gone" };
	const char *paths[3] = { "/k/plain", "/kubepods/pod1/0123abcd0123",
				 "/k/a,b" };
	struct ksnap_identity id[3] = {
		{ .role = KSNAP_ROLE_UNKNOWN },
		{ .container_id = "0123abcd0123", .pod_uid = "1-2",
		  .namespace = "payments", .pod = "api-7d9f",
		  .container = "server", .role = KSNAP_ROLE_CONTAINER },
		{ .role = KSNAP_ROLE_SANDBOX, .pod = "p" },
	};
	struct ksnap_stream_stats st = { .exits = &x, .nr_exits = 1,
					 .name_paths = paths, .name_ids = id,
					 .nr_names = 3 };
	const char *out, *list;

	assert_int_equal(ksnap_stream_stats(&c->s, &st), 0);
	out = written(c);
	assert_non_null(strstr(out, "\"ksnapd_cgroups_unnamed\":0,"));
	list = strstr(out, "}],\"ksnap_cgroups\":[");
	if (!list)
		fail_msg("expected ksnap_cgroups after ksnap_exits, got %s", out);
	assert_string_equal(list,
		"}],\"ksnap_cgroups\":["
		"{\"cgroup\":\"/kubepods/pod1/0123abcd0123\","
		"\"namespace\":\"payments\",\"pod\":\"api-7d9f\","
		"\"container\":\"server\",\"container_id\":\"0123abcd0123\","
		"\"pod_uid\":\"1-2\",\"container_role\":\"container\"},"
		"{\"cgroup\":\"/k/a\\\\x2cb\",\"pod\":\"p\","
		"\"container_role\":\"sandbox\"}]}\n");
}

/* Names of many long paths: n of them, each 600 bytes under /kubepods. */
static void long_names(const char **paths, struct ksnap_identity *id,
		       unsigned int n)
{
	static char buf[200][600];
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(buf[i], 'a', sizeof(buf[i]) - 1);
		buf[i][0] = '/';
		snprintf(buf[i] + 1, 8, "%05u", i);
		buf[i][6] = 'a';
		buf[i][sizeof(buf[i]) - 1] = '\0';
		paths[i] = buf[i];
		memset(&id[i], 0, sizeof(id[i]));
		snprintf(id[i].pod, sizeof(id[i].pod), "pod-%u", i);
	}
}

static unsigned int count_of(const char *s, const char *what)
{
	unsigned int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s++;
	}
	return n;
}

/*
 * In a lossy stream (a log pipeline's line) the names share the exit
 * records' 24 KiB: those past it are counted in ksnapd_cgroups_unnamed,
 * and the line stays within what log shippers take.
 */
static void lossy_stats_names_within_the_line_budget_count_the_rest(
	void **state)
{
	struct ctx *c = *state;
	static const char *paths[200];
	static struct ksnap_identity id[200];
	struct ksnap_stream_stats st = { .name_paths = paths, .name_ids = id,
					 .nr_names = 200 };
	const char *out, *un;
	unsigned int listed;

	long_names(paths, id, 200);
	assert_int_equal(ksnap_stream_stats(&c->s, &st), 0);
	out = written(c);
	listed = count_of(out, "{\"cgroup\":");
	un = strstr(out, "\"ksnapd_cgroups_unnamed\":");
	assert_non_null(un);
	if (listed < 1 || listed >= 200)
		fail_msg("expected a few of 200 names listed, got %u", listed);
	if (strtoull(un + 25, NULL, 10) != 200 - listed)
		fail_msg("expected %u unnamed, got %.40s", 200 - listed, un);
	if (strlen(out) > 26 * 1024)
		fail_msg("expected a line within 26 KiB, got %zu bytes",
			 strlen(out));
}

/* To a file, a stream names every cgroup, as its header lists every one. */
static void plain_stats_names_every_cgroup(void **state)
{
	struct ctx *c = *state;
	static const char *paths[200];
	static struct ksnap_identity id[200];
	struct ksnap_stream_stats st = { .name_paths = paths, .name_ids = id,
					 .nr_names = 200 };
	const char *out;
	unsigned int listed;

	long_names(paths, id, 200);
	assert_int_equal(ksnap_stream_stats(&c->s, &st), 0);
	out = written(c);
	listed = count_of(out, "{\"cgroup\":");
	if (listed != 200)
		fail_msg("expected 200 names listed, got %u", listed);
	assert_non_null(strstr(out, "\"ksnapd_cgroups_unnamed\":0,"));
	assert_non_null(strstr(out, "\"pod\":\"pod-199\"}]}\n"));
}

static void put_hex_is_lowercase_without_leading_zeros(void **state)
{
	char buf[16];

	(void)state;
	*ksnap_put_hex(buf, 0) = '\0';
	assert_string_equal(buf, "0");
	*ksnap_put_hex(buf, 0x0abcdef1) = '\0';
	assert_string_equal(buf, "abcdef1");
	*ksnap_put_hex(buf, 0xffffffff) = '\0';
	assert_string_equal(buf, "ffffffff");
}

/* Every digit count and the edges of each 8-digit piece, against printf. */
static void put_u64_matches_printf(void **state)
{
	char buf[32], want[32];
	uint64_t v, p10 = 1;
	int d, k;

	(void)state;
	for (d = 0; d <= 20; d++) {
		for (k = -2; k <= 2; k++) {
			v = p10 + (uint64_t)k;
			if (d == 0 && k < 0)
				continue;
			snprintf(want, sizeof(want), "%llu",
				 (unsigned long long)v);
			*ksnap_put_u64(buf, v) = '\0';
			assert_string_equal(buf, want);
		}
		if (d < 19)
			p10 *= 10;
		else
			p10 = UINT64_MAX - 2;
	}
	for (v = 0; v < 100000; v += 7) {
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		*ksnap_put_u64(buf, v) = '\0';
		assert_string_equal(buf, want);
	}
	for (v = 12345678901234567ULL, k = 0; k < 1000; k++) {
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		*ksnap_put_u64(buf, v) = '\0';
		assert_string_equal(buf, want);
	}
}

/* Adler-32 as RFC 1950 defines it, independent of zlib. */
static uint32_t ref_adler32(const char *p, size_t n)
{
	uint32_t a = 1, b = 0;

	while (n--) {
		a = (a + (unsigned char)*p++) % 65521;
		b = (b + a) % 65521;
	}
	return b << 16 | a;
}

static void lossy_header_has_prefix_checksum_column_and_sum(void **state)
{
	struct ctx *c = *state;
	const char *line = "Time (ns)\tmem\tChecksum";
	char want[128];

	set_col(&c->cols[0], "mem", "", "", "", 0);
	assert_int_equal(ksnap_stream_header(&c->s, c->cols, 1), 0);
	snprintf(want, sizeof(want), "\n" KSNAP_LOSSY_PREFIX "%s\t0x%lx\n\n",
		 line, adler32(1, (const Bytef *)line, strlen(line)));
	assert_string_equal(written(c), want);
	assert_int_equal(ref_adler32(line, strlen(line)),
			 adler32(1, (const Bytef *)line, strlen(line)));
}

/*
 * Read a lossy stream as gVisor's metricsviz does: each line's checksum
 * against zlib, and the whole-stream sum over every line but the ADLER32
 * one (after the prefix, with "\n").  Returns the number of lines checked.
 */
static int check_lossy_stream(const char *text, uint32_t *sum_out)
{
	const size_t plen = strlen(KSNAP_LOSSY_PREFIX);
	uLong whole = adler32(0L, Z_NULL, 0);
	const char *p = text;
	bool saw_hash = false;
	int lines = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[4096];

		assert_true(len < sizeof(line));
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl ? 1 : 0);
		if (!len)
			continue;
		assert_memory_equal(line, KSNAP_LOSSY_PREFIX, plen);
		char *data = line + plen;

		if (!strncmp(data, "ADLER32\t0x", 10)) {
			uint32_t want = (uint32_t)strtoul(data + 10, NULL, 16);

			assert_false(saw_hash);
			saw_hash = true;
			if (sum_out)
				*sum_out = want;
			assert_int_equal((uint32_t)whole, want);
			continue;
		}
		assert_false(saw_hash);	/* ADLER32 is the last line */
		whole = adler32(whole, (const Bytef *)data, strlen(data));
		whole = adler32(whole, (const Bytef *)"\n", 1);

		char *tab = strrchr(data, '\t');
		char want[16];

		assert_non_null(tab);
		*tab = '\0';
		snprintf(want, sizeof(want), "0x%lx",
			 adler32(1, (const Bytef *)data, strlen(data)));
		assert_string_equal(tab + 1, want);
		assert_int_equal(ref_adler32(data, strlen(data)),
				 strtoul(want + 2, NULL, 16));
		lines++;
	}
	assert_true(saw_hash);
	return lines;
}

static void lossy_stream_line_and_whole_checksums_match_zlib(void **state)
{
	struct ctx *c = *state;
	struct ksnap_stream_stats st = { .collection_rate_nanos = 10 };
	__u64 v[2] = { 0, UINT64_MAX };
	uint32_t sum = 0;
	int i;

	set_col(&c->cols[0], "a", "", "", "d\"q", KSNAP_COL_CUMULATIVE);
	set_col(&c->cols[1], "b", "f", "x", "", 0);
	assert_int_equal(ksnap_stream_meta(&c->s, c->cols, 2), 0);
	assert_int_equal(ksnap_stream_start_time(&c->s, 42), 0);
	assert_int_equal(ksnap_stream_header(&c->s, c->cols, 2), 0);
	/* Enough rows to force flushes of the 4 KiB buffer. */
	for (i = 0; i < 300; i++)
		assert_int_equal(ksnap_stream_row(&c->s, i * 10, v, 2), 0);
	assert_int_equal(ksnap_stream_stats(&c->s, &st), 0);
	assert_int_equal(ksnap_stream_finish(&c->s), 0);

	assert_int_equal(check_lossy_stream(fake_sys.wbuf, &sum),
			 2 + 1 + 1 + 300 + 1);
	assert_int_equal(sum, (uint32_t)c->s.adler);
	/* Each flush is framed by empty lines; the last write (ADLER32)
	 * begins with one and ends with the line's own newline. */
	assert_true(fake_sys.write_calls > 2);
	assert_int_equal(fake_sys.wbuf[0], '\n');
	assert_non_null(strstr(fake_sys.wbuf, "\n\n\n" KSNAP_LOSSY_PREFIX
			       "ADLER32\t0x"));
	assert_int_equal(fake_sys.wbuf[fake_sys.wlen - 1], '\n');
	assert_int_not_equal(fake_sys.wbuf[fake_sys.wlen - 2], '\n');
}

static void plain_finish_writes_no_checksum_line(void **state)
{
	struct ctx *c = *state;
	__u64 v = 1;

	assert_int_equal(ksnap_stream_row(&c->s, 1, &v, 1), 0);
	assert_int_equal(ksnap_stream_finish(&c->s), 0);
	assert_string_equal(fake_sys.wbuf, "1\t1\n");
}

static void long_meta_line_grows_buffer_once(void **state)
{
	struct ctx *c = *state;
	struct ksnap_column *cols = calloc(64, sizeof(*cols));
	char v[160];
	int i;

	for (i = 0; i < 64; i++) {
		memset(v, 'a' + i % 26, sizeof(v) - 1);
		v[sizeof(v) - 1] = '\0';
		v[0] = (char)('0' + i % 10);
		v[1] = (char)('0' + i / 10);
		set_col(&cols[i], "m", "cgroup", v, "", 0);
	}
	assert_int_equal(ksnap_stream_meta(&c->s, cols, 64), 0);
	const char *out = written(c);

	assert_true(strlen(out) > 64 * 160);
	assert_int_equal(out[strlen(out) - 1], '\n');
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
	free(cols);
}

/* A cgroup a pattern matched may hold what a column name cannot. */
static void header_escapes_what_would_break_a_column_name(void **state)
{
	struct ctx *c = *state;

	set_col(&c->cols[0], "cpu", "cgroup", "/p/a,b[1]\tc\\d", "", 0);
	assert_int_equal(ksnap_stream_header(&c->s, c->cols, 1), 0);
	assert_string_equal(written(c), "Time (ns)\t"
			    "cpu[/p/a\\x2cb\\x5b1\\x5d\\x09c\\\\d]\n");
	/* META's allowedValues name it as the header does. */
	fake_sys_reset();
	fake_sys.capture = true;
	assert_int_equal(ksnap_stream_meta(&c->s, c->cols, 1), 0);
	assert_non_null(strstr(written(c), "\"allowedValues\":"
			       "[\"/p/a\\\\x2cb\\\\x5b1\\\\x5d"
			       "\\\\x09c\\\\\\\\d\"]"));
}

static void an_escaped_value_unescapes_to_the_path(void **state)
{
	const char *path = "/p/a,b[1]\tc\\d\\x41\r\n";
	char esc[256], back[256];
	char *e = ksnap_put_value(esc, path, strlen(path));

	assert_true((size_t)(e - esc) <= KSNAP_VALUE_MAX(strlen(path)));
	*e = '\0';
	assert_null(strpbrk(esc, ",[]\t\r\n"));
	assert_int_equal(ksnap_unescape_value(back, sizeof(back), esc,
					      strlen(esc)), strlen(path));
	assert_string_equal(back, path);
	/* What is no escape is left as it is. */
	assert_int_equal(ksnap_unescape_value(back, sizeof(back), "/a\\q\\x4",
					      7), 7);
	assert_string_equal(back, "/a\\q\\x4");
	/* Bounded by out. */
	assert_int_equal(ksnap_unescape_value(back, 3, "/abc", 4), 2);
	assert_string_equal(back, "/a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(meta_without_fields_is_one_json_object, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(meta_nanoseconds_gauge_has_units_and_no_cumulative, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(meta_is_one_line_per_metric_with_allowed_values, setup_plain, teardown),
		cmocka_unit_test(json_escapes_quotes_backslashes_and_control_chars),
		cmocka_unit_test(json_keeps_utf8_and_replaces_invalid_bytes),
		cmocka_unit_test(json_stops_at_field_size_without_nul),
		cmocka_unit_test_setup_teardown(start_time_is_decimal_ns, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(header_names_columns_metric_or_metric_value, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(row_prints_zero_and_uint64_max_unsigned, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(stats_has_gvisor_and_ksnap_keys, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(stats_lists_exit_records_after_the_keys, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(stats_exit_records_carry_the_cgroups_names, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(stats_of_many_long_odd_paths_stays_within_its_budget, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(stats_names_the_stream_cgroups_that_have_identity, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(lossy_stats_names_within_the_line_budget_count_the_rest, setup_lossy, teardown),
		cmocka_unit_test_setup_teardown(plain_stats_names_every_cgroup, setup_plain, teardown),
		cmocka_unit_test(put_hex_is_lowercase_without_leading_zeros),
		cmocka_unit_test(put_u64_matches_printf),
		cmocka_unit_test_setup_teardown(lossy_header_has_prefix_checksum_column_and_sum, setup_lossy, teardown),
		cmocka_unit_test_setup_teardown(lossy_stream_line_and_whole_checksums_match_zlib, setup_lossy, teardown),
		cmocka_unit_test_setup_teardown(plain_finish_writes_no_checksum_line, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(long_meta_line_grows_buffer_once, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(header_escapes_what_would_break_a_column_name, setup_plain, teardown),
		cmocka_unit_test(an_escaped_value_unescapes_to_the_path),
	};

	return cmocka_run_group_tests_name("stream", tests, NULL, NULL);
}

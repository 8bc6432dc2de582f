// SPDX-License-Identifier: MIT
/*
 * Prometheus' view of ksnap's metrics (openmetrics.h): the name table,
 * label escaping, the UTF-8 check and the skip it leads to, container ids
 * from cgroup paths, the metric filter, content negotiation, and both
 * renderings of one small collection.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "openmetrics.h"

struct name_case {
	const char *metric, *field, *desc;
	uint32_t flags;
	const char *family;	/* a counter's without _total */
	const char *unit;
	double scale;
	const char *label, *label_value;
};

#define CUM	KSNAP_COL_CUMULATIVE
#define NS	(KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS)

static const struct name_case names[] = {
	{ "pgfault", "", "vm event counter of /proc/vmstat, count", CUM,
	  "ksnap_vmstat_pgfault", NULL, 1, "", "" },
	{ "nr_free_pages", "", "zone state of /proc/vmstat, pages", 0,
	  "ksnap_vmstat_nr_free_pages", NULL, 1, "", "" },
	{ "memory.current", "cgroup", "memory.current, bytes", 0,
	  "ksnap_cgroup_memory_current_bytes", "bytes", 1, "", "" },
	{ "memory.swap.current", "cgroup", "swap, bytes", 0,
	  "ksnap_cgroup_memory_swap_current_bytes", "bytes", 1, "", "" },
	{ "memory.stat.anon", "cgroup", "memory.stat item, subtree, bytes", 0,
	  "ksnap_cgroup_memory_stat_anon_bytes", "bytes", 1, "", "" },
	{ "memory.events.oom_kill", "cgroup", "memory event, count", CUM,
	  "ksnap_cgroup_memory_events_oom_kill", NULL, 1, "", "" },
	{ "cpu.stat.usage_usec", "cgroup", "cpu.stat usage, us", CUM,
	  "ksnap_cgroup_cpu_usage_seconds", "seconds", 1e-6, "", "" },
	{ "cpu.stat.usage", "cgroup", "cpu.stat usage, ns", NS,
	  "ksnap_cgroup_cpu_usage_seconds", "seconds", 1e-9, "", "" },
	{ "cpu.stat.user", "cgroup", "cpu.stat user, ns", NS,
	  "ksnap_cgroup_cpu_user_seconds", "seconds", 1e-9, "", "" },
	{ "cpu.stat.system", "cgroup", "cpu.stat system, ns", NS,
	  "ksnap_cgroup_cpu_system_seconds", "seconds", 1e-9, "", "" },
	{ "cpu.pressure.some", "cgroup", "stall total, ns", NS,
	  "ksnap_cgroup_pressure_cpu_waiting_seconds", "seconds", 1e-9, "",
	  "" },
	{ "memory.pressure.full", "cgroup", "stall total, ns", NS,
	  "ksnap_cgroup_pressure_memory_stalled_seconds", "seconds", 1e-9, "",
	  "" },
	{ "pressure.io.some", "", "system stall total, ns", NS,
	  "ksnap_pressure_io_waiting_seconds", "seconds", 1e-9, "", "" },
	{ "cpu.user", "", "user, /proc/stat cpu line, all CPUs, ns", NS,
	  "ksnap_cpu_seconds", "seconds", 1e-9, "mode", "user" },
	{ "cpu.guest_nice", "cpu", "guest_nice, per CPU, ns", NS,
	  "ksnap_cpu_guest_seconds", "seconds", 1e-9, "mode", "nice" },
	{ "softirqs.NET_RX", "", "softirqs of this type run, count", CUM,
	  "ksnap_softirqs", NULL, 1, "vector", "NET_RX" },
	{ "loadavg.1", "", "load average x1000, load/1000", 0,
	  "ksnap_load1", NULL, 1e-3, "", "" },
};

static void test_names(void **state)
{
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct name_case *c = &names[i];
		struct om_name n;

		assert_int_equal(om_map_name(c->metric, c->field, c->flags,
					     om_desc_unit(c->desc), &n), 0);
		assert_string_equal(n.family, c->family);
		if (c->unit)
			assert_string_equal(n.unit, c->unit);
		else
			assert_null(n.unit);
		assert_true(n.scale == c->scale);
		assert_int_equal(n.counter, !!(c->flags & CUM));
		assert_string_equal(n.label, c->label);
		assert_string_equal(n.label_value, c->label_value);
	}
	{
		struct om_name n;

		assert_int_equal(om_map_name("", "", 0, "", &n), -EINVAL);
	}
}

static void test_desc_unit(void **state)
{
	assert_string_equal(om_desc_unit("a, b, bytes"), "bytes");
	assert_string_equal(om_desc_unit("x1000 (5 s), load/1000"),
			    "load/1000");
	assert_string_equal(om_desc_unit("none"), "");
}

static void test_escape(void **state)
{
	char out[64];

	assert_int_equal(om_escape("/a\\b\"c\nd", out, sizeof(out)), 11);
	assert_string_equal(out, "/a\\\\b\\\"c\\nd");
	assert_int_equal(om_escape("plain", out, sizeof(out)), 5);
	assert_string_equal(out, "plain");
	assert_int_equal(om_escape("\"\"\"", out, 6), -ENOSPC);
	assert_string_equal(out, "");
	assert_int_equal(om_escape("\"\"", out, 5), 4);
}

static void test_utf8(void **state)
{
	assert_true(om_utf8_valid("/system.slice/a b"));
	assert_true(om_utf8_valid("/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x90\xa7"));
	assert_false(om_utf8_valid("/bad\xff"));
	assert_false(om_utf8_valid("/trunc\xc3"));
	assert_false(om_utf8_valid("/overlong\xc0\xaf"));
	assert_false(om_utf8_valid("/overlong\xe0\x80\xaf"));
	assert_false(om_utf8_valid("/surrogate\xed\xa0\x80"));
	assert_false(om_utf8_valid("/big\xf4\x90\x80\x80"));
}

static void test_cgroup_ids(void **state)
{
	static const char id[] = "0123456789abcdef0123456789abcdef"
				 "0123456789abcdef0123456789abcdef";
	char cid[160], pod[64], path[512];

	snprintf(path, sizeof(path),
		 "/machine.slice/libpod-%s.scope/container", id);
	om_cgroup_ids(path, cid, sizeof(cid), pod, sizeof(pod));
	assert_string_equal(cid, id);
	assert_string_equal(pod, "");

	snprintf(path, sizeof(path), "/kubepods.slice/kubepods-burstable.slice/"
		 "kubepods-burstable-pod1b2c3d4e_5f60_7182_93a4_b5c6d7e8f901"
		 ".slice/cri-containerd-%s.scope", id);
	om_cgroup_ids(path, cid, sizeof(cid), pod, sizeof(pod));
	assert_string_equal(cid, id);
	assert_string_equal(pod, "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901");

	snprintf(path, sizeof(path), "/kubepods/besteffort/"
		 "pod1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901/%s", id);
	om_cgroup_ids(path, cid, sizeof(cid), pod, sizeof(pod));
	assert_string_equal(cid, id);
	assert_string_equal(pod, "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901");

	om_cgroup_ids("/system.slice/ssh.service", cid, sizeof(cid), pod,
		      sizeof(pod));
	assert_string_equal(cid, "");
	assert_string_equal(pod, "");
}

static void test_match(void **state)
{
	assert_true(om_match(NULL, "ksnap_vmstat_pgfault_total"));
	assert_true(om_match("ksnap_cgroup_*,ksnap_vmstat_pg*",
			     "ksnap_vmstat_pgfault_total"));
	assert_false(om_match("ksnap_cgroup_*", "ksnap_vmstat_pgfault_total"));
	assert_true(om_match("x,,ksnap_load1", "ksnap_load1"));
}

static void test_negotiate(void **state)
{
	assert_int_equal(om_negotiate(NULL), OM_PROMETHEUS);
	assert_int_equal(om_negotiate("*/*"), OM_PROMETHEUS);
	/* What Prometheus 2.x sends. */
	assert_int_equal(om_negotiate("application/openmetrics-text;"
				      "version=1.0.0,application/"
				      "openmetrics-text;version=0.0.1;q=0.75,"
				      "text/plain;version=0.0.4;q=0.5,*/*;"
				      "q=0.1"), OM_OPENMETRICS);
	assert_int_equal(om_negotiate("text/plain, application/"
				      "openmetrics-text; q=0"), OM_PROMETHEUS);
	assert_int_equal(om_negotiate("application/openmetrics-text"),
			 OM_OPENMETRICS);
	assert_int_equal(om_negotiate("application/openmetrics-text;q=0.3,"
				      "*/*;q=0.1"), OM_OPENMETRICS);
	/* What Prometheus 3 sends by default. */
	assert_int_equal(om_negotiate("application/openmetrics-text;version="
				      "1.0.0;escaping=allow-utf-8;q=0.6,"
				      "application/openmetrics-text;version="
				      "0.0.1;q=0.5,text/plain;version=1.0.0;"
				      "escaping=allow-utf-8;q=0.4,text/plain;"
				      "version=0.0.4;q=0.3,*/*;q=0.2"),
			 OM_OPENMETRICS);
}

/* The text format preferred by its q, not only at OpenMetrics' q=0. */
static void text_format_preferred_by_q_wins(void **state)
{
	static const char *const prefer_text[] = {
		/* scrape_protocols: [PrometheusText0.0.4,
		 * OpenMetricsText1.0.0] */
		"text/plain;version=0.0.4;q=0.5,application/openmetrics-text;"
		"version=1.0.0;q=0.4,*/*;q=0.3",
		"application/openmetrics-text;q=0.5,text/plain;q=0.9",
		"text/plain, application/openmetrics-text; q=0.8",
		"application/openmetrics-text;q=0.3,text/*;q=0.4",
		"application/openmetrics-text;q=0.3,*/*;q=0.4",
		"application/openmetrics-text ; Q=0.1 , text/plain",
	};
	unsigned int i;

	for (i = 0; i < sizeof(prefer_text) / sizeof(prefer_text[0]); i++)
		if (om_negotiate(prefer_text[i]) != OM_PROMETHEUS)
			fail_msg("Accept: %s: expected the text format, got "
				 "OpenMetrics", prefer_text[i]);
}

static void test_gzip(void **state)
{
	assert_true(om_wants_gzip("gzip"));
	assert_true(om_wants_gzip("deflate, gzip;q=1.0, *;q=0.5"));
	assert_false(om_wants_gzip("gzip;q=0"));
	assert_false(om_wants_gzip(NULL));
	assert_false(om_wants_gzip("identity"));
}

/* Three columns: a counter, a cgroup gauge twice, one path not UTF-8. */
static const struct ksnap_column cols[] = {
	{ .metric = "pgfault", .description = "vm event counter, count",
	  .flags = KSNAP_COL_CUMULATIVE },
	{ .metric = "memory.current", .field = "cgroup", .value = "/a\"b",
	  .description = "memory.current of the cgroup, bytes" },
	{ .metric = "memory.current", .field = "cgroup", .value = "/bad\xff",
	  .description = "memory.current of the cgroup, bytes" },
	{ .metric = "memory.current", .field = "cgroup", .value = "/",
	  .description = "memory.current of the cgroup, bytes" },
};

static const struct om_self self = {
	.version = "1.2", .abi = 4, .running = true, .window_seconds = 60,
	.period_seconds = 0.01, .taken = 10, .lost = 1, .missed = 2,
	.skipped_utf8 = 1, .scrapes = 3,
};

static void render(enum om_format f, struct om_buf *b, const char *patterns)
{
	struct om_layout l;
	struct om_value v[3];

	assert_int_equal(om_layout_build(&l, cols, 4, patterns), 0);
	memset(v, 0, sizeof(v));
	for (unsigned int i = 0; i < l.nr_series; i++) {
		v[i].alive = true;
		v[i].have_window = true;
		v[i].last = 100 + i;
		v[i].wmax = 1000 + i;
		v[i].wmin = 10 + i;
	}
	assert_int_equal(om_render(b, f, &l, v, &self), 0);
	om_layout_free(&l);
}

/* The module's descriptions of the columns below, as its catalogue has
 * them (kmod/metrics.c, kmod/compat.h). */
#define D_CPU(what)	what ", /proc/stat cpu line, all CPUs, ns"
#define D_LOAD		"load average of /proc/loadavg x1000 (5 s updates), " \
			"load/1000"
#define D_PIDS		"PIDs in use in the initial PID namespace (~threads), " \
			"count"
#define D_KIB		"node state of /proc/vmstat, all nodes, KiB"
#define D_PSI		"system stall total of /proc/pressure/ (total=, in us " \
			"there), ns"
#define D_CG_USAGE	"CPU time of the subtree, ns: live for a cgroup without " \
			"children (none live or dying); for one with children, " \
			"as of the last rstat flush (about every 2 s)"

/* The exposition of n columns, each series' last value raw[i], with a
 * window. */
static void render_cols(const struct ksnap_column *c, unsigned int n,
			const uint64_t *raw, enum om_format f,
			struct om_buf *b)
{
	struct om_layout l;
	struct om_value v[16];
	unsigned int i;

	assert_true(n <= 16);
	assert_int_equal(om_layout_build(&l, c, n, NULL), 0);
	memset(v, 0, sizeof(v));
	for (i = 0; i < l.nr_series; i++) {
		v[i].alive = v[i].have_window = true;
		v[i].last = raw[l.series[i].column];
		v[i].wmax = v[i].wmin = 1;
	}
	assert_int_equal(om_render(b, f, &l, v, &self), 0);
	om_layout_free(&l);
}

/* Whether the exposition has line want; fails naming it otherwise. */
static void expect_line(const struct om_buf *b, const char *want)
{
	char w[256];

	snprintf(w, sizeof(w), "\n%s\n", want);
	if (!strstr(b->p, w)) {
		fputs(b->p, stderr);
		fail_msg("expected the line \"%s\" (the exposition above)",
			 want);
	}
}

/*
 * /proc/stat's user and nice include guest and guest_nice: the modes of
 * ksnap_cpu_seconds_total sum to the CPU time spent, guest time once,
 * and guest time is a family of its own (node_exporter's
 * node_cpu_guest_seconds_total{mode="user"|"nice"}).
 */
static void cpu_modes_sum_without_guest_time(void **state)
{
	static const struct ksnap_column c[] = {
		{ .metric = "cpu.user", .flags = NS, .description =
		  D_CPU("CPU time in user mode, guest time included") },
		{ .metric = "cpu.nice", .flags = NS, .description =
		  D_CPU("CPU time in user mode at positive nice, "
			"guest_nice included") },
		{ .metric = "cpu.system", .flags = NS,
		  .description = D_CPU("CPU time in kernel mode") },
		{ .metric = "cpu.guest", .flags = NS,
		  .description = D_CPU("CPU time running guests") },
		{ .metric = "cpu.guest_nice", .flags = NS,
		  .description = D_CPU("CPU time running niced guests") },
	};
	static const uint64_t raw[] = {
		5000000000ULL, 3000000000ULL, 4000000000ULL, 2000000000ULL,
		1000000000ULL,
	};
	static const char mode_total[] = "ksnap_cpu_seconds_total{";
	struct om_buf b = { 0 };
	const char *p;
	double sum = 0;

	render_cols(c, 5, raw, OM_PROMETHEUS, &b);
	for (p = b.p; (p = strstr(p, mode_total)); p++) {
		const char *sp = strchr(p, ' ');

		if (p > b.p && p[-1] != '\n')
			continue;
		assert_non_null(sp);
		sum += strtod(sp + 1, NULL);
	}
	if (sum != 12) {
		fputs(b.p, stderr);
		fail_msg("expected the modes of ksnap_cpu_seconds_total to sum "
			 "to 12 s (user 5 + nice 3 + system 4, guest time in "
			 "user and nice), got %g (the exposition above)", sum);
	}
	expect_line(&b, "ksnap_cpu_guest_seconds_total{mode=\"user\"} 2");
	expect_line(&b, "ksnap_cpu_guest_seconds_total{mode=\"nice\"} 1");
	assert_null(strstr(b.p, "mode=\"guest"));
	om_buf_free(&b);
}

/* loadavg.threads (the PIDs in use, about the threads) has
 * node_exporter's name for the threads, not ksnap_loadthreads. */
static void pid_count_has_node_exporters_threads_name(void **state)
{
	struct om_name n;

	assert_int_equal(om_map_name("loadavg.threads", "", 0,
				     om_desc_unit(D_PIDS), &n), 0);
	if (strcmp(n.family, "ksnap_processes_threads"))
		fail_msg("loadavg.threads: expected ksnap_processes_threads, "
			 "got %s", n.family);
	assert_null(n.unit);
	assert_true(n.scale == 1);
	assert_false(n.counter);
}

/* A KiB column (nr_kernel_stack) is exported in bytes, NAME_bytes. */
static void kib_columns_are_exported_in_bytes(void **state)
{
	static const struct ksnap_column c[] = {
		{ .metric = "nr_kernel_stack", .description = D_KIB },
	};
	static const uint64_t raw[] = { 16 };
	struct om_name n;
	struct om_buf b = { 0 };

	assert_int_equal(om_map_name("nr_kernel_stack", "", 0,
				     om_desc_unit(D_KIB), &n), 0);
	if (strcmp(n.family, "ksnap_vmstat_nr_kernel_stack_bytes"))
		fail_msg("nr_kernel_stack: expected "
			 "ksnap_vmstat_nr_kernel_stack_bytes, got %s",
			 n.family);
	assert_string_equal(n.unit, "bytes");
	assert_true(n.scale == 1024);
	render_cols(c, 1, raw, OM_OPENMETRICS, &b);
	expect_line(&b, "# UNIT ksnap_vmstat_nr_kernel_stack_bytes bytes");
	expect_line(&b, "ksnap_vmstat_nr_kernel_stack_bytes 16384");
	om_buf_free(&b);
}

/* HELP states the unit of the exported value: seconds, not the raw ns;
 * a load, not x1000; bytes, not KiB. */
static void help_states_the_exported_unit(void **state)
{
	static const struct ksnap_column c[] = {
		{ .metric = "cpu.user", .flags = NS, .description =
		  D_CPU("CPU time in user mode, guest time included") },
		{ .metric = "cpu.guest", .flags = NS,
		  .description = D_CPU("CPU time running guests") },
		{ .metric = "loadavg.1", .description = D_LOAD },
		{ .metric = "pressure.io.some", .flags = NS,
		  .description = D_PSI },
		{ .metric = "nr_kernel_stack", .description = D_KIB },
		{ .metric = "cpu.stat.usage", .field = "cgroup", .value = "/",
		  .flags = NS, .description = D_CG_USAGE },
		{ .metric = "memory.current", .field = "cgroup", .value = "/",
		  .description = "memory charged to the cgroup and its "
				 "descendants, bytes" },
	};
	static const uint64_t raw[] = { 1, 1, 1, 1, 1, 1, 1 };
	static const struct {
		const char *family, *unit;	/* unit: NULL for none */
	} want[] = {
		{ "ksnap_cpu_seconds_total", "seconds" },
		{ "ksnap_cpu_guest_seconds_total", "seconds" },
		{ "ksnap_load1", NULL },
		{ "ksnap_pressure_io_waiting_seconds_total", "seconds" },
		{ "ksnap_vmstat_nr_kernel_stack_bytes", "bytes" },
		{ "ksnap_cgroup_cpu_usage_seconds_total", "seconds" },
		{ "ksnap_cgroup_memory_current_bytes", "bytes" },
	};
	static const char *const raw_units[] = {
		", ns", "x1000", "load/1000", "KiB",
	};
	struct om_buf b = { 0 };
	unsigned int i, k;

	render_cols(c, 7, raw, OM_PROMETHEUS, &b);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char head[128], line[512];
		const char *h;
		size_t len;

		snprintf(head, sizeof(head), "# HELP %s ", want[i].family);
		h = strstr(b.p, head);
		if (!h) {
			fputs(b.p, stderr);
			fail_msg("expected a line \"%s...\" (the exposition "
				 "above)", head);
		}
		len = strcspn(h, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)len, h);
		for (k = 0; k < sizeof(raw_units) / sizeof(raw_units[0]); k++)
			if (strstr(line, raw_units[k]))
				fail_msg("expected HELP without the raw unit "
					 "\"%s\", got: %s", raw_units[k],
					 line);
		if (want[i].unit && !strstr(line, want[i].unit))
			fail_msg("expected HELP naming the unit %s, got: %s",
				 want[i].unit, line);
	}
	om_buf_free(&b);
}

static void test_layout(void **state)
{
	struct om_layout l;

	assert_int_equal(om_layout_build(&l, cols, 4, NULL), 0);
	assert_int_equal(l.nr_fam, 2);
	assert_int_equal(l.nr_series, 3);
	assert_int_equal(l.skipped_utf8, 1);
	assert_int_equal(l.skipped_col[0], 2);	/* which: "/bad\xff" */
	assert_string_equal(l.fam[0].name, "ksnap_cgroup_memory_current_bytes");
	assert_int_equal(l.fam[0].nr, 2);
	assert_string_equal(l.series[0].labels, "cgroup=\"/a\\\"b\"");
	assert_string_equal(l.series[1].labels, "cgroup=\"/\"");
	assert_string_equal(l.fam[1].name, "ksnap_vmstat_pgfault");
	assert_true(l.fam[1].counter);
	om_layout_free(&l);

	assert_int_equal(om_layout_build(&l, cols, 4, "*_total"), 0);
	assert_int_equal(l.nr_fam, 1);
	assert_int_equal(l.filtered, 3);
	om_layout_free(&l);
}

static void test_render_prometheus(void **state)
{
	struct om_buf b = { 0 };

	render(OM_PROMETHEUS, &b, NULL);
	assert_non_null(strstr(b.p, "# TYPE ksnap_vmstat_pgfault_total "
				    "counter\nksnap_vmstat_pgfault_total 102\n"));
	assert_non_null(strstr(b.p, "# TYPE ksnap_vmstat_pgfault_window_max_rate"
				    " gauge\nksnap_vmstat_pgfault_window_max_rate"
				    " 1002\n"));
	assert_null(strstr(b.p, "pgfault_window_min"));
	assert_non_null(strstr(b.p, "ksnap_cgroup_memory_current_bytes"
				    "{cgroup=\"/a\\\"b\"} 100\n"));
	assert_non_null(strstr(b.p, "ksnap_cgroup_memory_current_window_max_"
				    "bytes{cgroup=\"/\"} 1001\n"));
	assert_non_null(strstr(b.p, "ksnap_cgroup_memory_current_window_min_"
				    "bytes{cgroup=\"/\"} 11\n"));
	assert_non_null(strstr(b.p, "ksnap_snapshots_lost_total 1\n"));
	assert_non_null(strstr(b.p, "# TYPE ksnap_build_info gauge\n"
				    "ksnap_build_info{version=\"1.2\","
				    "abi=\"4\"} 1\n"));
	assert_non_null(strstr(b.p, "ksnap_web_window_seconds 60\n"));
	assert_null(strstr(b.p, "# UNIT"));
	assert_null(strstr(b.p, "# EOF"));
	assert_null(strstr(b.p, "_created"));
	assert_null(strstr(b.p, "\xff"));
	om_buf_free(&b);
}

static void test_render_openmetrics(void **state)
{
	struct om_buf b = { 0 };

	render(OM_OPENMETRICS, &b, NULL);
	assert_non_null(strstr(b.p, "# TYPE ksnap_vmstat_pgfault counter\n"
				    "ksnap_vmstat_pgfault_total 102\n"));
	assert_non_null(strstr(b.p, "# TYPE ksnap_cgroup_memory_current_bytes "
				    "gauge\n# UNIT ksnap_cgroup_memory_current"
				    "_bytes bytes\n"));
	assert_non_null(strstr(b.p, "# TYPE ksnap_build info\n"
				    "ksnap_build_info{"));
	assert_int_equal(strcmp(b.p + b.len - 6, "# EOF\n"), 0);
	assert_null(strstr(b.p, "_created"));
	om_buf_free(&b);
}

static void test_render_no_collection(void **state)
{
	struct om_buf b = { 0 };
	struct om_self s = self;

	s.running = false;
	assert_int_equal(om_render(&b, OM_OPENMETRICS, NULL, NULL, &s), 0);
	assert_non_null(strstr(b.p, "ksnap_collection_running 0\n"));
	assert_null(strstr(b.p, "ksnap_vmstat"));
	om_buf_free(&b);
}

static void test_render_flight_textfile(void **state)
{
	struct om_buf b = { 0 };
	struct om_self s = self;

	assert_int_equal(om_render(&b, OM_PROMETHEUS, NULL, NULL, &s), 0);
	assert_null(strstr(b.p, "ksnap_flight_"));
	assert_null(strstr(b.p, "ksnap_textfile_"));
	om_buf_free(&b);

	s.flight = s.textfile = true;
	s.flight_triggers = 5;
	s.flight_dumps = 2;
	s.textfile_writes = 7;
	s.textfile_errors = 1;
	assert_int_equal(om_render(&b, OM_PROMETHEUS, NULL, NULL, &s), 0);
	assert_non_null(strstr(b.p, "# TYPE ksnap_flight_triggers_total "
				    "counter\nksnap_flight_triggers_total 5\n"));
	assert_non_null(strstr(b.p, "\nksnap_flight_dumps_total 2\n"));
	assert_non_null(strstr(b.p, "\nksnap_textfile_writes_total 7\n"));
	assert_non_null(strstr(b.p, "\nksnap_textfile_write_errors_total 1\n"));
	om_buf_free(&b);

	assert_int_equal(om_render(&b, OM_OPENMETRICS, NULL, NULL, &s), 0);
	assert_non_null(strstr(b.p, "# TYPE ksnap_flight_dumps counter\n"));
	om_buf_free(&b);
}

static void test_histogram(void **state)
{
	const struct om_hist_spec spec = { 10, 10, 3 };	/* 10, 100, 1000 */
	struct om_layout l;
	struct om_value v[3];
	struct om_hist h[3];
	struct om_buf b = { 0 };
	const double obs[] = { 5, 10, 11, 100, 5000, 1000 };
	unsigned int i;

	memset(h, 0, sizeof(h));
	for (i = 0; i < sizeof(obs) / sizeof(obs[0]); i++)
		om_hist_observe(&spec, &h[0], obs[i]);
	assert_int_equal(h[0].bucket[0], 2);		/* 5, 10 */
	assert_int_equal(h[0].bucket[1], 2);		/* 11, 100 */
	assert_int_equal(h[0].bucket[2], 1);		/* 1000 */
	assert_int_equal(h[0].bucket[3], 1);		/* +Inf: 5000 */
	assert_int_equal(h[0].count, 6);
	assert_true(h[0].sum == 6126);

	assert_int_equal(om_layout_build(&l, cols, 4, NULL), 0);
	/* A counter never gets one. */
	assert_int_equal(om_layout_histograms(&l, "ksnap_*", &spec), 1);
	assert_true(l.fam[0].hist);
	assert_false(l.fam[1].hist);
	memset(v, 0, sizeof(v));
	for (i = 0; i < l.nr_series; i++) {
		v[i].alive = true;
		v[i].hist = &h[0];
	}
	assert_int_equal(om_render(&b, OM_PROMETHEUS, &l, v, &self), 0);
	assert_non_null(strstr(b.p, "# TYPE ksnap_cgroup_memory_current_"
				    "distribution_bytes histogram\n"));
	assert_non_null(strstr(b.p,
		"ksnap_cgroup_memory_current_distribution_bytes_bucket"
		"{cgroup=\"/\",le=\"10.0\"} 2\n"
		"ksnap_cgroup_memory_current_distribution_bytes_bucket"
		"{cgroup=\"/\",le=\"100.0\"} 4\n"
		"ksnap_cgroup_memory_current_distribution_bytes_bucket"
		"{cgroup=\"/\",le=\"1000.0\"} 5\n"
		"ksnap_cgroup_memory_current_distribution_bytes_bucket"
		"{cgroup=\"/\",le=\"+Inf\"} 6\n"
		"ksnap_cgroup_memory_current_distribution_bytes_sum"
		"{cgroup=\"/\"} 6126\n"
		"ksnap_cgroup_memory_current_distribution_bytes_count"
		"{cgroup=\"/\"} 6\n"));
	assert_null(strstr(b.p, "pgfault_distribution"));
	om_buf_free(&b);
	assert_int_equal(om_render(&b, OM_OPENMETRICS, &l, v, &self), 0);
	assert_non_null(strstr(b.p, "# TYPE ksnap_cgroup_memory_current_"
				    "distribution_bytes histogram\n# UNIT "
				    "ksnap_cgroup_memory_current_distribution"
				    "_bytes bytes\n"));
	om_buf_free(&b);
	om_layout_free(&l);
}

/* A limit of "max" (U64_MAX in the ring) is +Inf, its HELP says so; a
 * counter is never +Inf. */
static void unlimited_limit_is_inf(void **state)
{
	static const struct ksnap_column lim[] = {
		{ .metric = "memory.max", .field = "cgroup", .value = "/",
		  .description = "hard limit, U64_MAX for max, bytes" },
		{ .metric = "memory.max", .field = "cgroup", .value = "/a",
		  .description = "hard limit, U64_MAX for max, bytes" },
	};
	static const char *const want[] = {
		"\nksnap_cgroup_memory_max_bytes{cgroup=\"/\"} +Inf\n",
		"\nksnap_cgroup_memory_max_bytes{cgroup=\"/a\"} 4096\n",
		"\nksnap_cgroup_memory_max_window_max_bytes{cgroup=\"/\"} +Inf\n",
		"\nksnap_cgroup_memory_max_window_min_bytes{cgroup=\"/\"} 4096\n",
		"# HELP ksnap_cgroup_memory_max_bytes hard limit, +Inf for max, "
		"bytes\n",
	};
	struct om_layout l;
	struct om_value v[2];
	struct om_buf b = { 0 };
	unsigned int i, f;

	assert_int_equal(om_layout_build(&l, lim, 2, NULL), 0);
	memset(v, 0, sizeof(v));
	for (i = 0; i < 2; i++) {
		v[i].alive = v[i].have_window = true;
		v[i].last = 4096;
		v[i].wmax = v[i].wmin = 4096;
	}
	v[0].last = UINT64_MAX;
	v[0].wmax = om_gauge_value(UINT64_MAX, 1);
	for (f = OM_PROMETHEUS; f <= OM_OPENMETRICS; f++) {
		assert_int_equal(om_render(&b, f, &l, v, &self), 0);
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (!strstr(b.p, want[i])) {
				fputs(b.p, stderr);
				fail_msg("format %u: expected %s(the "
					 "exposition above)", f, want[i]);
			}
		assert_null(strstr(b.p, "18446744073709551615"));
		assert_null(strstr(b.p, "U64_MAX"));
		om_buf_free(&b);
	}
	om_layout_free(&l);
	assert_true(om_gauge_value(UINT64_MAX, 1e-9) == INFINITY);
	assert_true(om_gauge_value(UINT64_MAX - 1, 1) < INFINITY);
	assert_true(om_gauge_value(1500, 1e-3) == 1.5);
}

/* Bucket bounds as Prometheus writes them (strconv 'g', shortest, an
 * integer with ".0"), so that a series keeps its le across exporters. */
static void le_values_are_canonical(void **state)
{
	static const struct {
		struct om_hist_spec spec;
		const char *le[4];
	} cases[] = {
		{ { 1, 2, 3 }, { "1.0", "2.0", "4.0", "+Inf" } },
		{ { 1024, 1024, 3 }, { "1024.0", "1.048576e+06",
				       "1.073741824e+09", "+Inf" } },
		{ { 0.5, 10, 3 }, { "0.5", "5.0", "50.0", "+Inf" } },
		{ { 0.001, 10, 2 }, { "0.001", "0.01", "+Inf", NULL } },
		{ { 0.00001, 1, 1 }, { "1e-05", "+Inf", NULL, NULL } },
		{ { 100000, 10, 2 }, { "100000.0", "1e+06", "+Inf", NULL } },
	};
	unsigned int c, k;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct om_layout l;
		struct om_value v[3];
		struct om_hist h = { 0 };
		struct om_buf b = { 0 };
		char want[128];

		assert_int_equal(om_layout_build(&l, cols, 4, NULL), 0);
		assert_int_equal(om_layout_histograms(&l, "ksnap_cgroup_*",
						      &cases[c].spec), 1);
		memset(v, 0, sizeof(v));
		v[1].alive = true;
		v[1].hist = &h;
		assert_int_equal(om_render(&b, OM_OPENMETRICS, &l, v, &self),
				 0);
		for (k = 0; k < 4 && cases[c].le[k]; k++) {
			snprintf(want, sizeof(want), "_bucket{cgroup=\"/\","
				 "le=\"%s\"} 0\n", cases[c].le[k]);
			if (!strstr(b.p, want)) {
				fputs(b.p, stderr);
				fail_msg("buckets %g x %g: expected %s(the "
					 "exposition above)",
					 cases[c].spec.start,
					 cases[c].spec.factor, want);
			}
		}
		om_buf_free(&b);
		om_layout_free(&l);
	}
}

static void test_render_dead_series(void **state)
{
	struct om_layout l;
	struct om_value v[3];
	struct om_buf b = { 0 };

	assert_int_equal(om_layout_build(&l, cols, 4, NULL), 0);
	memset(v, 0, sizeof(v));
	v[1].alive = true;		/* cgroup "/" only, no window yet */
	assert_int_equal(om_render(&b, OM_PROMETHEUS, &l, v, &self), 0);
	assert_non_null(strstr(b.p, "{cgroup=\"/\"} 0\n"));
	assert_null(strstr(b.p, "a\\\"b"));
	assert_null(strstr(b.p, "pgfault"));
	assert_null(strstr(b.p, "window_max_bytes"));
	om_buf_free(&b);
	om_layout_free(&l);
}

/*
 * --web.peak-times: each window maximum has a gauge of when it was taken,
 * in seconds since the epoch, named after the maximum with the unit of a
 * timestamp; none without it.
 */
static void peak_times_say_when_each_maximum_was_taken(void **state)
{
	struct om_layout l;
	struct om_value v[3];
	struct om_buf b = { 0 }, off = { 0 };
	unsigned int i;

	assert_int_equal(om_layout_build(&l, cols, 4, NULL), 0);
	memset(v, 0, sizeof(v));
	for (i = 0; i < l.nr_series; i++) {
		v[i].alive = v[i].have_window = true;
		v[i].wmax = 1000 + i;
		v[i].wmax_time = 1800000000.25 + i;
	}
	assert_int_equal(om_render(&off, OM_OPENMETRICS, &l, v, &self), 0);
	if (strstr(off.p, "timestamp"))
		fail_msg("expected no peak times by default; got %s",
			 strstr(off.p, "timestamp"));
	l.peak_times = true;
	assert_int_equal(om_render(&b, OM_OPENMETRICS, &l, v, &self), 0);
	expect_line(&b, "# TYPE ksnap_vmstat_pgfault_window_max_rate_timestamp_"
		    "seconds gauge");
	expect_line(&b, "# UNIT ksnap_vmstat_pgfault_window_max_rate_timestamp_"
		    "seconds seconds");
	expect_line(&b, "ksnap_vmstat_pgfault_window_max_rate_timestamp_seconds"
		    " 1800000002.25");
	expect_line(&b, "# UNIT ksnap_cgroup_memory_current_window_max_"
		    "timestamp_seconds seconds");
	expect_line(&b, "ksnap_cgroup_memory_current_window_max_timestamp_"
		    "seconds{cgroup=\"/\"} 1800000001.25");
	if (strstr(b.p, "window_min_timestamp") ||
	    strstr(b.p, "bytes_timestamp"))
		fail_msg("expected a timestamp of the maximum only, without "
			 "the value's unit; got %s", b.p);
	om_buf_free(&b);
	om_buf_free(&off);
	om_layout_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_desc_unit),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_cgroup_ids),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(text_format_preferred_by_q_wins),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(unlimited_limit_is_inf),
		cmocka_unit_test(le_values_are_canonical),
		cmocka_unit_test(cpu_modes_sum_without_guest_time),
		cmocka_unit_test(pid_count_has_node_exporters_threads_name),
		cmocka_unit_test(kib_columns_are_exported_in_bytes),
		cmocka_unit_test(help_states_the_exported_unit),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_render_prometheus),
		cmocka_unit_test(test_render_openmetrics),
		cmocka_unit_test(test_render_no_collection),
		cmocka_unit_test(test_render_flight_textfile),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_render_dead_series),
		cmocka_unit_test(peak_times_say_when_each_maximum_was_taken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * The flight recorder (flight.h) as a consumer, on synthetic rows at 1 ms
 * with real files in a temporary dump directory: a spike's dump holds the
 * pre window, the peak and the post window with no gap; for ignores a
 * blip and fires on a sustained rise; a gap in the rows breaks a for run
 * and the event says so; the cooldown suppresses a second spike; a
 * re-fire inside post extends the dump; a short history is said; the end
 * of the collection ends an open dump.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "ksnapd_fixture.h"
#include "flight.h"

/* The fixture's signal pipe is for the daemon's tests. */
static __attribute__((unused)) int *unused_sig_pipe(void)
{
	return sig_pipe;
}

#define MS	1000000ULL

static char dir[64];
static struct flight f;
static struct ksnap_column fcols[1];
static struct ksnap_coll coll;
static unsigned char recbuf[KSNAP_RECORD_SIZE(1)];
static struct ksnap_record *rec = (struct ksnap_record *)recbuf;
static char ferr[320];
static uint64_t seq;

static int fsetup(void **state)
{
	fake_sys_reset();
	snprintf(dir, sizeof(dir), "/tmp/ksnap-flight-XXXXXX");
	assert_non_null(mkdtemp(dir));
	memset(fcols, 0, sizeof(fcols));
	snprintf(fcols[0].metric, sizeof(fcols[0].metric), "memory.current");
	snprintf(fcols[0].field, sizeof(fcols[0].field), "cgroup");
	snprintf(fcols[0].value, sizeof(fcols[0].value), "/svc");
	coll = (struct ksnap_coll){ .generation = 7, .state = 1,
		.nr_columns = 1, .period_ns = MS, .start_mono_ns = 5000,
		.start_real_ns = 1700000000000000000ULL, .start_position = 100,
		.columns = fcols };
	seq = 100;
	return 0;
}

static int fteardown(void **state)
{
	char cmd[128];

	flight_fini(&f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void start(const char *rule_text)
{
	const struct flight_config cfg = { .dump_dir = dir };
	struct rule r;
	struct rule_error e;

	assert_int_equal(rule_parse(&r, rule_text, 1, &e), 0);
	assert_int_equal(flight_init(&f, &cfg, &r, 1, ferr, sizeof(ferr)), 0);
	assert_int_equal(flight_ops.begin(&f, &coll, 0), 0);
}

/* A row at t ms of value v; skip positions for a gap. */
static void row_at(uint64_t t_ms, uint64_t v)
{
	rec->seq = seq++;
	rec->time_ns = t_ms * MS;
	rec->values[0] = v;
	assert_int_equal(flight_ops.row(&f, rec), 0);
}

static void finish(void)
{
	struct ksnapd_end e = { .coll = &coll };

	assert_int_equal(flight_ops.flush(&f), 0);
	assert_int_equal(flight_ops.end(&f, &e), 0);
}

static char *slurp(const char *name)
{
	static char buf[1 << 16];
	char path[128];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "r");
	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* Data rows: lines that begin with a digit. */
static int rows_in(const char *text)
{
	int n = 0;

	for (; text && *text; text = strchr(text, '\n'), text += !!text)
		n += *text >= '0' && *text <= '9';
	return n;
}

static int files(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void a_spike_dump_holds_pre_peak_and_post(void **s)
{
	const char *dump;
	uint64_t t;

	start("big: memory.current[/svc] > 150 pre 5ms post 3ms cooldown 1s");
	for (t = 1; t <= 40; t++)
		row_at(t, t >= 20 && t <= 22 ? 500 : 100);
	finish();
	dump = slurp("big-1.tsv");
	assert_non_null(dump);
	/* Rows 15 to 25: pre before 20, the peak, post after 22. */
	assert_int_equal(rows_in(dump), 11);
	assert_contains(dump, "START_TIME\t1700000000000000000\n"
			"Time (ns)\tmemory.current[/svc]\n"
			"15000000\t100\n16000000\t100\n");
	assert_contains(dump, "20000000\t500\n21000000\t500\n22000000\t500\n");
	assert_contains(dump, "25000000\t100\nSTATS\t{");
	assert_contains(dump, "\"total_snapshots\":11,");
	assert_contains(dump, "\"cheap_start_nanos\":15005000,"
			"\"cheap_last_collection_nanos\":25005000,");
	assert_contains(dump, "\"ksnap_snapshots_taken\":11,");
	assert_contains(dump, "\"ksnapd_dump_collection\":7,"
			"\"ksnapd_dump_first_position\":14,"
			"\"ksnapd_dump_trigger_nanos\":20000000,");
	assert_contains(dump, "\"ksnapd_dump_gaps\":0}");
	dump = slurp("events.jsonl");
	assert_int_equal(count_lines_starting(dump, "{\"event\":\"firing\",\"rule\""
			 ":\"big\",\"text\":\"big: memory.current[/svc] > 150 "
			 "pre 5ms post 3ms cooldown 1s\",\"collection\":7,"
			 "\"time_ns\":20000000,\"wall_ns\":1700000000020000000,"
			 "\"since_ns\":20000000,\"values\":{\"memory.current"
			 "[/svc]\":500},"), 1);
	assert_contains(dump, "\"pre_ns\":5000000,\"pre_available_ns\":5000000}");
	assert_contains(dump, "{\"event\":\"resolved\"");
	assert_contains(dump, "\"event\":\"dump\"");
	assert_contains(dump, "\"rows\":11,\"first_ns\":15000000,"
			"\"last_ns\":25000000,\"gaps\":0,\"fires\":1,"
			"\"truncated\":false}");
}

/*
 * A dump names the cgroups of its columns that have an identity, as a
 * stream's STATS does: a containerd container's id and pod uid from its
 * path; /svc has none, and the dump of it names nothing.
 */
static void a_dump_names_its_containers(void **s)
{
	static const char path[] = "/kubepods/burstable/pod1b2c3d4e-5f60-7182-"
		"93a4-b5c6d7e8f901/0123456789abcdef0123456789abcdef"
		"0123456789abcdef0123456789abcdef";
	const char *dump;
	uint64_t t;

	start("svc: memory.current[/svc] > 150 pre 2ms post 2ms");
	for (t = 1; t <= 10; t++)
		row_at(t, t == 5 ? 500 : 100);
	finish();
	dump = slurp("svc-1.tsv");
	assert_non_null(dump);
	assert_contains(dump, "\"ksnapd_cgroups_unnamed\":0,");
	if (strstr(dump, "ksnap_cgroups\""))
		fail_msg("expected no names for /svc, got %s", dump);
	flight_fini(&f);

	snprintf(fcols[0].value, sizeof(fcols[0].value), "%s", path);
	start("pod: memory.current[/kubepods/*/*/*] > 150 pre 2ms post 2ms");
	for (t = 11; t <= 20; t++)
		row_at(t, t == 15 ? 500 : 100);
	finish();
	dump = slurp("pod-1.tsv");
	assert_non_null(dump);
	assert_contains(dump, "\"ksnap_cgroups\":[{\"cgroup\":\"/kubepods/"
			"burstable/pod1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901/"
			"0123456789abcdef0123456789abcdef0123456789abcdef"
			"0123456789abcdef\",\"container_id\":\"0123456789abcdef"
			"0123456789abcdef0123456789abcdef0123456789abcdef\","
			"\"pod_uid\":\"1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901\"");
}

static void for_ignores_a_blip_and_fires_on_a_sustained_rise(void **s)
{
	const char *ev;
	uint64_t t;

	start("s: memory.current[/svc] > 150 for 5ms pre 2ms post 1ms");
	for (t = 1; t <= 10; t++)
		row_at(t, t == 5 ? 500 : 100);		/* one-row blip */
	assert_null(slurp("s-1.tsv"));
	for (t = 11; t <= 30; t++)
		row_at(t, t >= 15 && t <= 22 ? 500 : 100);
	finish();
	ev = slurp("events.jsonl");
	assert_int_equal(count_lines_starting(ev, "{\"event\":\"pending\""), 2);
	assert_int_equal(count_lines_starting(ev, "{\"event\":\"firing\""), 1);
	/* Held from 15: fires at 20 (5 ms later); dump from 13 to 23. */
	assert_contains(ev, "\"time_ns\":20000000,\"wall_ns\":"
			"1700000000020000000,\"since_ns\":15000000,");
	assert_contains(ev, "\"rows\":11,\"first_ns\":13000000,"
			"\"last_ns\":23000000,");
}

static void a_gap_breaks_a_for_run_and_is_said(void **s)
{
	const char *ev;
	uint64_t t;

	start("s: memory.current[/svc] > 150 for 5ms");
	for (t = 1; t <= 4; t++)
		row_at(t, 500);
	seq += 3;				/* positions 3 overwritten */
	for (t = 8; t <= 11; t++)
		row_at(t, 500);
	seq += 3;				/* a run that ends at a gap */
	row_at(15, 100);
	finish();
	ev = slurp("events.jsonl");
	assert_int_equal(count_lines_starting(ev, "{\"event\":\"firing\""), 0);
	assert_int_equal(count_lines_starting(ev, "{\"event\":\"reset\""), 1);
	assert_int_equal(count_lines_starting(ev, "{\"event\":\"resolved\""), 1);
	assert_contains(ev, "{\"event\":\"reset\",\"rule\":\"s\"");
	assert_contains(ev, "\"time_ns\":8000000,\"wall_ns\":"
			"1700000000008000000,\"reason\":\"gap\",\"gap_ns\":"
			"4000000,\"periods_missing\":3,\"since_ns\":1000000,"
			"\"fired\":false}");
}

static void a_spike_in_the_cooldown_is_suppressed(void **s)
{
	const char *ev;
	uint64_t t;

	start("c: memory.current[/svc] > 150 pre 2ms post 2ms cooldown 50ms");
	for (t = 1; t <= 100; t++)
		row_at(t, (t >= 10 && t <= 12) || (t >= 30 && t <= 31) ?
		       500 : 100);
	finish();
	assert_int_equal(files(), 2);		/* c-1.tsv, events.jsonl */
	/* ksnap_flight_triggers_total, ksnap_flight_dumps_total */
	assert_int_equal(f.triggers, 2);
	assert_int_equal(f.dumps, 1);
	ev = slurp("events.jsonl");
	assert_int_equal(count_lines_starting(ev, "{\"event\":\"dump\""), 1);
	assert_contains(ev, "{\"event\":\"suppressed\",\"rule\":\"c\"");
	/* The dump ended at 14: cooldown to 64. */
	assert_contains(ev, "\"time_ns\":30000000,\"wall_ns\":"
			"1700000000030000000,\"reason\":\"cooldown\","
			"\"since_ns\":30000000,\"values\":{\"memory.current"
			"[/svc]\":500},\"cooldown_left_ns\":34000000}");
}

static void a_refire_inside_post_extends_the_dump(void **s)
{
	const char *ev;
	uint64_t t;

	start("r: memory.current[/svc] > 150 pre 1ms post 5ms");
	for (t = 1; t <= 40; t++)
		row_at(t, t == 10 || t == 13 ? 500 : 100);
	finish();
	assert_int_equal(files(), 2);
	assert_int_equal(f.triggers, 2);	/* the extending fire too */
	assert_int_equal(f.dumps, 1);
	ev = slurp("events.jsonl");
	assert_contains(ev, "\"extends\":true,\"fires\":2}");
	/* 9 (pre) to 18 (post after the second fire at 13). */
	assert_contains(ev, "\"rows\":10,\"first_ns\":9000000,"
			"\"last_ns\":18000000,\"gaps\":0,\"fires\":2,");
}

static void short_history_and_the_end_of_the_collection(void **s)
{
	const char *ev;

	start("h: memory.current[/svc] > 150 pre 10ms post 1s");
	row_at(1, 100);
	row_at(2, 100);
	row_at(3, 500);
	row_at(4, 100);
	finish();
	ev = slurp("events.jsonl");
	assert_contains(ev, "\"pre_ns\":10000000,\"pre_available_ns\":2000000}");
	assert_contains(ev, "\"rows\":4,\"first_ns\":1000000,\"last_ns\":"
			"4000000,\"gaps\":0,\"fires\":1,\"truncated\":true}");
	assert_contains(slurp("h-1.tsv"), "\"total_snapshots\":4,");
}

/* The columns memory.current[cgroup] for each of the cgroups given. */
static struct ksnap_column pcols[3];
static unsigned char precbuf[KSNAP_RECORD_SIZE(3)];
static struct ksnap_record *prec = (struct ksnap_record *)precbuf;

static void pattern_set(const char *a, const char *b, const char *c)
{
	const char *cg[3] = { a, b, c };
	int i;

	memset(pcols, 0, sizeof(pcols));
	for (i = 0; i < 3; i++) {
		snprintf(pcols[i].metric, sizeof(pcols[i].metric),
			 "memory.current");
		snprintf(pcols[i].field, sizeof(pcols[i].field), "cgroup");
		snprintf(pcols[i].value, sizeof(pcols[i].value), "%s", cg[i]);
	}
	coll.nr_columns = 3;
	coll.columns = pcols;
}

static void prow_at(uint64_t t_ms, uint64_t a, uint64_t b, uint64_t c)
{
	prec->seq = seq++;
	prec->time_ns = t_ms * MS;
	prec->values[0] = a;
	prec->values[1] = b;
	prec->values[2] = c;
	assert_int_equal(flight_ops.row(&f, prec), 0);
}

static void a_pattern_rule_fires_for_the_cgroup_that_crosses(void **s)
{
	const struct flight_config cfg = { .dump_dir = dir };
	struct ksnapd_end e = { .coll = &coll, .split = true };
	struct rule r;
	struct rule_error re;
	const char *ev;
	uint64_t t;

	assert_int_equal(rule_parse(&r, "big: memory.current[/k/**] > 2GiB "
				    "pre 0 post 0 cooldown 0", 1, &re), 0);
	assert_int_equal(flight_init(&f, &cfg, &r, 1, ferr, sizeof(ferr)), 0);
	pattern_set("/k/a", "/k/b", "/other");
	assert_int_equal(flight_ops.begin(&f, &coll, 0), 0);
	assert_int_equal(f.nr_rules, 2);	/* /k/a and /k/b */
	for (t = 1; t <= 10; t++)
		prow_at(t, 100, t == 5 ? 3ULL << 30 : 100, 3ULL << 30);
	assert_int_equal(flight_ops.end(&f, &e), 0);

	/* A set change: /k/b gone, /k/c come; the rule follows. */
	pattern_set("/k/a", "/other", "/k/c");
	assert_int_equal(flight_ops.begin(&f, &coll, 10), 0);
	assert_int_equal(f.nr_rules, 2);	/* /k/a and /k/c */
	for (t = 11; t <= 20; t++)
		prow_at(t, 100, 3ULL << 30, t == 15 ? 3ULL << 30 : 100);
	finish();

	ev = slurp("events.jsonl");
	assert_int_equal(count_lines_starting(ev, "{\"event\":\"firing\""),
			 2);
	assert_contains(ev, "\"time_ns\":5000000,\"wall_ns\":"
			"1700000000005000000,\"cgroup\":\"/k/b\",");
	assert_contains(ev, "\"time_ns\":15000000,\"wall_ns\":"
			"1700000000015000000,\"cgroup\":\"/k/c\",");
	assert_null(strstr(ev, "\"cgroup\":\"/other\""));
	assert_null(strstr(ev, "\"cgroup\":\"/k/a\",\"since"));
	/* Each dump says which column was the rule's cgroup. */
	assert_contains(slurp("big-1.tsv"), "\"ksnapd_dump_cgroup_column\":1}");
	assert_contains(slurp("big-2.tsv"), "\"ksnapd_dump_cgroup_column\":2}");
}

static void a_pattern_that_matches_nothing_waits(void **s)
{
	const struct flight_config cfg = { .dump_dir = dir };
	struct rule r;
	struct rule_error re;

	assert_int_equal(rule_parse(&r, "p: memory.current[/none/*] > 1", 1,
				    &re), 0);
	assert_int_equal(flight_init(&f, &cfg, &r, 1, ferr, sizeof(ferr)), 0);
	pattern_set("/k/a", "/k/b", "/other");
	assert_int_equal(flight_ops.begin(&f, &coll, 0), 0);
	assert_int_equal(f.nr_rules, 0);
	prow_at(1, 5, 5, 5);
	finish();
	assert_contains(slurp("events.jsonl"), "\"event\":\"disabled\"");
	assert_contains(slurp("events.jsonl"), "no cgroup matches");
}

/* An exit record of cgroup path at t ms, with oom_kill kills. */
static void exit_at(uint64_t t_ms, const char *path, uint64_t kills)
{
	struct ksnap_exit x = {
		.generation = 7, .flags = KSNAP_EXIT_MEMORY | KSNAP_EXIT_BORN,
		.time_ns = t_ms * MS, .born_ns = 2 * MS,
		.cpu_usage_ns = 30 * MS, .memory_peak = 4096,
		.memory_oom = kills, .memory_oom_kill = kills,
	};

	snprintf(x.path, sizeof(x.path), "%s", path);
	assert_int_equal(flight_ops.exit(&f, &x), 0);
}

/*
 * A rule on exits fires on the record of a cgroup its pattern matches
 * whose values hold, at its exit time: the dump holds the rows from pre
 * before it to post after it, and its STATS lists the record.
 */
static void an_oom_kill_exit_dumps_the_rows_around_it(void **s)
{
	const char *dump;
	uint64_t t;

	start("oom: exit.oom_kill[/k/*] > 0 pre 5ms post 3ms");
	for (t = 1; t <= 20; t++)
		row_at(t, 100);
	exit_at(18, "/k/a", 0);		/* no kill: no dump */
	exit_at(19, "/other/b", 1);	/* not its pattern */
	assert_int_equal(files(), 1);	/* events.jsonl */
	exit_at(19, "/k/c", 1);
	exit_at(20, "/k/d", 2);		/* within post: extends, keeps /k/c */
	for (t = 21; t <= 40; t++)
		row_at(t, 100);
	finish();
	dump = slurp("oom-1.tsv");
	assert_non_null(dump);
	/* Rows 14 to 23: pre before 19, post after the second, 20. */
	assert_int_equal(rows_in(dump), 10);
	assert_contains(dump, "Time (ns)\tmemory.current[/svc]\n"
			"14000000\t100\n");
	assert_contains(dump, "22000000\t100\n23000000\t100\nSTATS\t{");
	assert_contains(dump, "\"ksnapd_dump_trigger_nanos\":19000000,");
	assert_contains(dump, "\"ksnap_exits\":[{\"cgroup\":\"/k/c\",");
	assert_contains(dump, "\"memory_oom_kill\":1}]}");
	dump = slurp("events.jsonl");
	assert_int_equal(count_lines_starting(dump, "{\"event\":\"firing\","
			 "\"rule\":\"oom\""), 2);
	assert_contains(dump, "\"extends\":true,\"fires\":2");
	assert_contains(dump, "\"cgroup\":\"/k/c\",\"path\":");
	assert_contains(dump, "\"cgroup\":\"/k/c\",");
	assert_contains(dump, "\"since_ns\":19000000,\"values\":"
			"{\"exit.oom_kill[/k/*]\":1}");
	assert_int_equal(files(), 2);
}

/* A dump of an exit says who the cgroup was, as the stream's STATS do. */
#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
static void an_exit_dump_names_the_container(void **s)
{
	const char *dump;
	uint64_t t;

	start("oom: exit.oom_kill[/kubepods.slice/*] > 0 pre 2ms post 2ms");
	for (t = 1; t <= 10; t++)
		row_at(t, 100);
	exit_at(9, "/kubepods.slice/cri-containerd-" CID ".scope", 1);
	for (t = 11; t <= 20; t++)
		row_at(t, 100);
	finish();
	dump = slurp("oom-1.tsv");
	assert_non_null(dump);
	/* The id from the path (no node files here to name it further). */
	assert_contains(dump, "\"memory_oom_kill\":1,\"container_id\":\""
			CID "\"}]}");
}

/* A rule on exits: only exit values, known ones, no rate() and no for. */
static void a_rule_on_exits_is_checked_for_what_an_exit_has(void **s)
{
	static const struct {
		const char *text;
		const char *msg;
	} bad[] = {
		{ "exit.oom_kill[/k/*] > 0 and memory.current[/svc] > 1",
		  "is a column of the rows" },
		{ "exit.oom_kills[/k/*] > 0", "unknown exit value" },
		{ "exit.oom_kill > 0", "expected the cgroups it is for" },
		{ "rate(exit.cpu_usage[/k/*]) > 0", "rate() and avg() take rows" },
		{ "exit.oom_kill[/k/*] > 0 for 1s", "an exit is one moment" },
	};
	struct rule r;
	struct rule_error e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rule_parse(&r, bad[i].text, 1, &e), 0);
		assert_true(rule_is_exit(&r));
		assert_int_equal(rule_exit_check(&r, &e), -EINVAL);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("rule '%s': expected an error with '%s', "
				 "got '%s'", bad[i].text, bad[i].msg, e.msg);
	}
	assert_int_equal(rule_parse(&r, "exit.lifetime[/k/*] < 100M and "
				    "exit.cpu_usage[/k/*] > 50M", 1, &e), 0);
	assert_int_equal(rule_exit_check(&r, &e), 0);
	assert_int_equal(rule_parse(&r, "memory.current[/svc] > 1", 1, &e), 0);
	assert_false(rule_is_exit(&r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			a_spike_dump_holds_pre_peak_and_post, fsetup,
			fteardown),
		cmocka_unit_test_setup_teardown(
			a_dump_names_its_containers, fsetup, fteardown),
		cmocka_unit_test_setup_teardown(
			for_ignores_a_blip_and_fires_on_a_sustained_rise,
			fsetup, fteardown),
		cmocka_unit_test_setup_teardown(
			a_gap_breaks_a_for_run_and_is_said, fsetup,
			fteardown),
		cmocka_unit_test_setup_teardown(
			a_spike_in_the_cooldown_is_suppressed, fsetup,
			fteardown),
		cmocka_unit_test_setup_teardown(
			a_refire_inside_post_extends_the_dump, fsetup,
			fteardown),
		cmocka_unit_test_setup_teardown(
			short_history_and_the_end_of_the_collection, fsetup,
			fteardown),
		cmocka_unit_test_setup_teardown(
			a_pattern_rule_fires_for_the_cgroup_that_crosses,
			fsetup, fteardown),
		cmocka_unit_test_setup_teardown(
			a_pattern_that_matches_nothing_waits, fsetup,
			fteardown),
		cmocka_unit_test_setup_teardown(
			an_oom_kill_exit_dumps_the_rows_around_it, fsetup,
			fteardown),
		cmocka_unit_test_setup_teardown(
			an_exit_dump_names_the_container, fsetup, fteardown),
		cmocka_unit_test(
			a_rule_on_exits_is_checked_for_what_an_exit_has),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * Trigger rules (rule.h): the issue's examples parse; every error names
 * the position and what was expected, with its exact message; constants,
 * percentages and durations; evaluation on synthetic rows: the avg()
 * baseline excludes the current row, rate() per second and as a share of
 * wall time for ns counters, a counter reset, NaN before there is a
 * window.
 */
#include <math.h>

#include "ksnapd_fixture.h"
#include "rule.h"

/* The fixture's signal pipe is for the daemon's tests. */
static __attribute__((unused)) int *unused_sig_pipe(void)
{
	return sig_pipe;
}

#define MS	1000000ULL
#define S	1000000000ULL

static struct ksnap_column cols[6];

static void col(int i, const char *metric, const char *value,
		uint32_t flags)
{
	memset(&cols[i], 0, sizeof(cols[i]));
	snprintf(cols[i].metric, sizeof(cols[i].metric), "%s", metric);
	if (value) {
		snprintf(cols[i].field, sizeof(cols[i].field), "cgroup");
		snprintf(cols[i].value, sizeof(cols[i].value), "%s", value);
	}
	cols[i].flags = flags;
}

static int cols_setup(void **state)
{
	col(0, "memory.current", "/svc", 0);
	col(1, "memory.max", "/svc", 0);
	col(2, "pgmajfault", NULL, KSNAP_COL_CUMULATIVE);
	col(3, "pressure.memory.some", NULL,
	    KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	col(4, "cpu.user", NULL, KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	col(5, "cpu.system", NULL,
	    KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	return 0;
}

static struct rule r;
static struct rule_error e;

static void parse_ok(const char *text)
{
	if (rule_parse(&r, text, 1, &e))
		fail_msg("'%s': position %u: %s", text, e.pos + 1, e.msg);
	if (rule_bind(&r, cols, 6, &e))
		fail_msg("'%s': bind: position %u: %s", text, e.pos + 1, e.msg);
}

/* The whole message, as ksnapd prints it after "ksnapd: FROM: ". */
static void parse_fails(const char *text, const char *want)
{
	char buf[2048];

	if (!rule_parse(&r, text, 3, &e) && !rule_bind(&r, cols, 6, &e))
		fail_msg("'%s' parsed", text);
	rule_format_error(buf, sizeof(buf), &r, text, &e);
	assert_string_equal(buf, want);
}

static void the_issue_examples_parse(void **s)
{
	parse_ok("big: memory.current[/svc] > 90% memory.max[/svc] for 200ms "
		 "cooldown 5m pre 10s post 3s");
	assert_string_equal(r.name, "big");
	assert_int_equal(r.for_ns, 200 * MS);
	assert_int_equal(r.cooldown_ns, 300 * S);
	assert_int_equal(r.pre_ns, 10 * S);
	assert_int_equal(r.post_ns, 3 * S);
	parse_ok("grow: memory.current[/svc] > 125% avg(memory.current[/svc], "
		 "10s) and memory.current[/svc] > 100MiB");
	parse_ok("faults: rate(pgmajfault) > 5000/s for 50ms");
	parse_ok("stall: rate(pressure.memory.some) > 10%");
	parse_ok("cpu: rate(cpu.user + cpu.system) > 150%");
	/* Defaults: for 0, cooldown 60s, pre 5s, post 1s; a name by index. */
	parse_ok("(pgmajfault - 1) * 2 / 4 >= -3 or pgmajfault != 7");
	assert_string_equal(r.name, "rule1");
	assert_int_equal(r.for_ns, 0);
	assert_int_equal(r.cooldown_ns, 60 * S);
	assert_int_equal(r.pre_ns, 5 * S);
	assert_int_equal(r.post_ns, 1 * S);
}

static double const_of(const char *text)
{
	parse_ok(text);
	/* "pgmajfault > K": the constant is the comparison's right. */
	return r.node[r.node[r.root].b].k;
}

static void constants_and_units(void **s)
{
	assert_true(const_of("pgmajfault > 5k") == 5000);
	assert_true(const_of("pgmajfault > 1.5M") == 1.5e6);
	assert_true(const_of("pgmajfault > 2G") == 2e9);
	assert_true(const_of("pgmajfault > 4KiB") == 4096);
	assert_true(const_of("pgmajfault > 100MiB") == 104857600);
	assert_true(const_of("pgmajfault > 1GiB") == 1073741824.0);
	assert_true(const_of("pgmajfault > 10%") == 0.1);
	assert_true(const_of("pgmajfault > 5000/s") == 5000);
	assert_true(const_of("pgmajfault > 5/ms") == 5000);
	assert_true(const_of("pgmajfault > 60/m") == 1);
	parse_ok("pgmajfault > 1 for 50us cooldown 1h pre 2m post 0");
	assert_int_equal(r.for_ns, 50000);
	assert_int_equal(r.cooldown_ns, 3600 * S);
	assert_int_equal(r.pre_ns, 120 * S);
	assert_int_equal(r.post_ns, 0);
}

static void errors_name_the_position_and_what_was_expected(void **s)
{
	parse_fails("big: memory.curent[/svc] > 1",
		    "rule big: position 6: unknown column "
		    "'memory.curent[/svc]': expected one of the module's "
		    "columns: memory.current[/svc], memory.max[/svc], "
		    "pgmajfault, pressure.memory.some, cpu.user, cpu.system\n"
		    "  big: memory.curent[/svc] > 1\n"
		    "       ^\n");
	parse_fails("g: rate(memory.current[/svc]) > 1",
		    "rule g: position 9: rate() of 'memory.current[/svc]', a "
		    "gauge: expected a cumulative counter\n"
		    "  g: rate(memory.current[/svc]) > 1\n"
		    "          ^\n");
	parse_fails("s: pgmajfault > > 3",
		    "rule s: position 17: expected a value (a number, a column, "
		    "rate(), avg() or '('), found '>'\n"
		    "  s: pgmajfault > > 3\n"
		    "                  ^\n");
	parse_fails("pgmajfault > 3 for 5",
		    "rule rule3: position 20: expected a duration (a number "
		    "with us, ms, s, m or h), found '5'\n"
		    "  pgmajfault > 3 for 5\n"
		    "                     ^\n");
	parse_fails("pgmajfault > 3 pre 1s pre 2s",
		    "rule rule3: position 23: 'pre' given twice\n"
		    "  pgmajfault > 3 pre 1s pre 2s\n"
		    "                        ^\n");
	parse_fails("memory.current[/svc > 1",
		    "rule rule3: position 1: expected ']' to close the column's "
		    "field value\n"
		    "  memory.current[/svc > 1\n"
		    "  ^\n");
	parse_fails("pgmajfault + 1",
		    "rule rule3: position 1: expected a comparison (<, <=, >, "
		    ">=, ==, !=), found the value 'pgmajfault + 1'\n"
		    "  pgmajfault + 1\n"
		    "  ^\n");
	parse_fails("avg(pgmajfault) > 1",
		    "rule rule3: position 15: expected ',' and the window of "
		    "avg() (a duration), found ')'\n"
		    "  avg(pgmajfault) > 1\n"
		    "                ^\n");
	parse_fails("x: rate(cpu.user + pgmajfault) > 1",
		    "rule x: position 20: rate() of 'pgmajfault' mixes counters "
		    "in ns and counters of other units: expected one kind\n"
		    "  x: rate(cpu.user + pgmajfault) > 1\n"
		    "                     ^\n");
	parse_fails("pgmajfault > 1 unless 2",
		    "rule rule3: position 16: expected 'and', 'or', an "
		    "operator, 'for', 'cooldown', 'pre', 'post' or the end of "
		    "the rule, found 'unless'\n"
		    "  pgmajfault > 1 unless 2\n"
		    "                 ^\n");
}

/* --- evaluation ----------------------------------------------------------- */

static struct rule_eval ev;
static __u64 v[6];

static bool at(uint64_t t_ms, uint64_t mem)
{
	v[0] = mem;
	return rule_eval_row(&ev, t_ms * MS, v);
}

static void eval_setup(const char *text, uint64_t period)
{
	parse_ok(text);
	assert_int_equal(rule_eval_init(&ev, &r, period), 0);
	memset(v, 0, sizeof(v));
}

static void avg_baseline_excludes_the_current_row(void **s)
{
	uint64_t t;

	eval_setup("memory.current[/svc] > 150% avg(memory.current[/svc], "
		   "10ms)", MS);
	/* No rows before: the baseline is unknown, nothing fires. */
	assert_false(at(1, 1000));
	for (t = 2; t <= 20; t++)
		assert_false(at(t, 100));
	/* 151 > 1.5 x 100: with the row itself in the mean ((900 + 151) /
	 * 10 x 1.5 = 157.7) it would not fire; excluded, it does. */
	assert_true(at(21, 151));
	/* The next row's baseline holds 151 once in 10 rows. */
	assert_true(at(22, 160));
	assert_false(at(23, 100));
	rule_eval_fini(&ev);
}

static void avg_window_slides(void **s)
{
	eval_setup("memory.current[/svc] > 2 * avg(memory.current[/svc], 3ms)",
		   MS);
	at(1, 1000);
	at(2, 1000);
	at(3, 10);
	at(4, 10);
	/* Rows in (5 - 3, 5) = 3, 4: mean 10; 1000 rows have left. */
	assert_true(at(5, 21));
	rule_eval_fini(&ev);
}

static bool faults_at(uint64_t t_ms, uint64_t count)
{
	v[2] = count;
	return rule_eval_row(&ev, t_ms * MS, v);
}

static void rate_per_second_over_its_window(void **s)
{
	eval_setup("rate(pgmajfault, 10ms) > 5000/s", MS);
	assert_false(faults_at(1, 0));		/* one row: unknown */
	/* 4 per ms = 4000/s */
	assert_false(faults_at(2, 4));
	assert_true(isfinite(ev.val[r.node[r.root].a]));
	assert_true(fabs(ev.val[r.node[r.root].a] - 4000) < 1e-6);
	/* 12 in 2 ms = 6000/s */
	assert_true(faults_at(3, 12));
	rule_eval_fini(&ev);
}

static void rate_over_a_counter_reset_is_not_a_spike(void **s)
{
	int a;

	eval_setup("rate(pgmajfault, 2ms) > 0", MS);
	a = r.node[r.root].a;
	faults_at(1, 1000000);
	faults_at(2, 1000100);
	/* The counter goes back to 50 (a reset): that step adds nothing. */
	faults_at(3, 50);
	assert_true(ev.val[a] >= 0);
	assert_true(ev.val[a] < 1e5);
	assert_true(fabs(ev.val[a] - 50000) < 1e-6);	/* 100 in 2 ms */
	assert_int_equal(ev.win[r.node[a].win].resets, 1);
	/* Then it counts on from the new value. */
	faults_at(4, 60);
	assert_true(fabs(ev.val[a] - 5000) < 1e-6);	/* 10 in 2 ms */
	faults_at(5, 60);
	assert_true(fabs(ev.val[a] - 5000) < 1e-6);
	faults_at(6, 60);
	assert_false(faults_at(7, 60));			/* flat: 0 */
	rule_eval_fini(&ev);
}

static void rate_of_ns_counters_is_a_share_of_wall_time(void **s)
{
	uint64_t t, busy = 0;

	eval_setup("rate(cpu.user + cpu.system, 10ms) > 150%", MS);
	for (t = 1; t <= 20; t++) {
		v[4] = busy;
		v[5] = busy;
		busy += 800000;		/* 2 x 0.8 ms per ms: 160% */
		rule_eval_row(&ev, t * MS, v);
	}
	assert_true(fabs(ev.val[r.node[r.root].a] - 1.6) < 1e-9);
	v[4] = v[5] = busy;
	assert_true(rule_eval_row(&ev, 21 * MS, v));
	/* Idle from then on: the share falls under 150% within the window. */
	for (t = 22; t <= 40; t++)
		rule_eval_row(&ev, t * MS, v);
	assert_false(rule_eval_row(&ev, 41 * MS, v));
	rule_eval_fini(&ev);
}

static void values_name_the_operands(void **s)
{
	char buf[512];

	eval_setup("m: memory.current[/svc] > 90% memory.max[/svc]", MS);
	v[1] = 1000;
	assert_true(at(1, 950));
	rule_eval_values(&ev, buf, sizeof(buf));
	assert_string_equal(buf, "\"memory.current[/svc]\":950,"
			    "\"90% memory.max[/svc]\":900");
	rule_eval_fini(&ev);
}

static void a_column_named_by_pattern_binds_per_cgroup(void **s)
{
	uint32_t idx[6];

	/* The same matcher as the module's: '*' one component. */
	parse_ok("p: memory.current[/s*] > 90% memory.max[/s*]");
	assert_true(rule_has_pattern(&r));
	assert_int_equal(rule_cgroups(&r, cols, 6, idx, 6), 1);
	assert_int_equal(idx[0], 0);
	assert_int_equal(r.node[0].col, 0);
	assert_int_equal(rule_bind_cgroup(&r, cols, 6, "/svc", &e), 0);
	/* A cgroup the pattern does not match, or no match now. */
	assert_int_equal(rule_bind_cgroup(&r, cols, 6, "/other", &e),
			 -ENOENT);
	assert_int_equal(rule_parse(&r, "memory.current[/x/**] > 1", 1, &e),
			 0);
	assert_int_equal(rule_bind(&r, cols, 6, &e), -ENOENT);
	assert_string_equal(e.msg, "no column matches "
			    "'memory.current[/x/**]' now");
	parse_ok("pgmajfault > 1");
	assert_false(rule_has_pattern(&r));
}

/* One rule per cgroup, whatever patterns match it and however often. */
static void a_cgroup_two_patterns_match_is_one_rule(void **s)
{
	struct ksnap_column twice[4];
	uint32_t idx[4];

	memset(twice, 0, sizeof(twice));
	memcpy(&twice[0], &cols[0], sizeof(cols[0]));
	memcpy(&twice[1], &cols[1], sizeof(cols[1]));
	/* A set that names (memory.current, /svc) twice. */
	memcpy(&twice[2], &cols[0], sizeof(cols[0]));
	memcpy(&twice[3], &cols[0], sizeof(cols[0]));
	snprintf(twice[3].value, sizeof(twice[3].value), "/svc/b");
	assert_int_equal(rule_parse(&r, "o: memory.current[/svc/**] > 1 or "
				    "memory.current[/s*] > 2", 1, &e), 0);
	assert_int_equal(rule_cgroups(&r, twice, 4, idx, 4), 2);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 3);
	/* Both pattern columns of the /svc rule are its one column. */
	assert_int_equal(rule_bind_cgroup(&r, twice, 4, "/svc", &e), 0);
	assert_int_equal(r.node[0].col, 0);
	/* /s* does not match /svc/b: that cgroup's rule waits for one. */
	assert_int_equal(rule_bind_cgroup(&r, twice, 4, "/svc/b", &e),
			 -ENOENT);
}

static void an_invalid_pattern_is_the_modules_error(void **s)
{
	parse_fails("memory.current[/a/***] > 1",
		    "rule rule3: position 1: column "
		    "'memory.current[/a/***]': '***' in pattern (use '*' or a "
		    "whole '**')\n"
		    "  memory.current[/a/***] > 1\n"
		    "  ^\n");
}

/* A rule names a column as the header does, escapes included. */
static void an_escaped_column_name_binds(void **s)
{
	struct ksnap_column odd[1];
	uint32_t idx;

	memset(odd, 0, sizeof(odd));
	snprintf(odd[0].metric, sizeof(odd[0].metric), "memory.current");
	snprintf(odd[0].field, sizeof(odd[0].field), "cgroup");
	snprintf(odd[0].value, sizeof(odd[0].value), "/k/a,b[1]");
	assert_int_equal(rule_parse(&r, "memory.current[/k/a\\x2cb\\x5b1"
				    "\\x5d] > 1", 1, &e), 0);
	assert_int_equal(rule_bind(&r, odd, 1, &e), 0);
	assert_int_equal(rule_parse(&r, "memory.current[/k/a\\x2c*] > 1", 1,
				    &e), 0);
	assert_int_equal(rule_cgroups(&r, odd, 1, &idx, 1), 1);
	assert_int_equal(rule_bind_cgroup(&r, odd, 1, "/k/a,b[1]", &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_issue_examples_parse),
		cmocka_unit_test(constants_and_units),
		cmocka_unit_test(errors_name_the_position_and_what_was_expected),
		cmocka_unit_test(avg_baseline_excludes_the_current_row),
		cmocka_unit_test(avg_window_slides),
		cmocka_unit_test(rate_per_second_over_its_window),
		cmocka_unit_test(rate_over_a_counter_reset_is_not_a_spike),
		cmocka_unit_test(rate_of_ns_counters_is_a_share_of_wall_time),
		cmocka_unit_test(values_name_the_operands),
		cmocka_unit_test(a_column_named_by_pattern_binds_per_cgroup),
		cmocka_unit_test(a_cgroup_two_patterns_match_is_one_rule),
		cmocka_unit_test(an_invalid_pattern_is_the_modules_error),
		cmocka_unit_test(an_escaped_column_name_binds),
	};

	return cmocka_run_group_tests(tests, cols_setup, NULL);
}

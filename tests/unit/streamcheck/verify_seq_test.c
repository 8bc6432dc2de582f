// SPDX-License-Identifier: MIT
/*
 * A sequence of streams checked as one collection (verify_seq.h): ksnapd
 * writes one stream per column set of a collection that follows its
 * cgroups; the sequence holds when each begins where the one before
 * ended, no period is lost at a boundary, and the totals add up.
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
#include "verify_check.h"
#include "verify_seq.h"

#define PERIOD		1000000ULL
#define START		1795403597414460350ULL

/* One stream of a collection, as ksnapd writes it at a set change. */
struct part {
	uint64_t start;		/* START_TIME */
	uint64_t first_pos;	/* ksnapd_first_position */
	uint64_t t0;		/* first row's time */
	unsigned int rows;
	uint64_t taken;		/* ksnap_snapshots_taken */
	uint64_t lost, missed;
	const char *cgroups;	/* header's memory.current columns */
	uint64_t skipped;	/* ksnapd_snapshots_skipped; 0: no key */
	uint64_t max_late;	/* ksnap_max_lateness_nanos; 0: no key */
	uint64_t max_read;	/* ksnap_max_read_nanos; 0: no key */
};

static struct ksv_seq q;
static const char *cur_name;

static int on_end(void *priv, const struct ksv_stream *s)
{
	return ksv_seq_add(&q, cur_name, s);
}

static void add_part(const char *name, const struct part *p)
{
	const struct ksv_ops ops = { .end = on_end };
	char cols[256] = "", vals[256] = "", list[128], *c, *save = NULL;
	struct ksv_log log;
	static struct sb b;
	unsigned int i;

	snprintf(list, sizeof(list), "%s", p->cgroups);
	for (c = strtok_r(list, " ", &save); c; c = strtok_r(NULL, " ", &save)) {
		snprintf(cols + strlen(cols), sizeof(cols) - strlen(cols),
			 "\tmemory.current[%s]", c);
		snprintf(vals + strlen(vals), sizeof(vals) - strlen(vals),
			 "\t4096");
	}
	sb_init(&b, false);
	sb_line(&b, "META\tpgfault\t{\"name\":\"pgfault\",\"cumulative\":true,"
		"\"type\":\"TYPE_UINT64\"}");
	sb_line(&b, "META\tmemory.current\t{\"name\":\"memory.current\","
		"\"type\":\"TYPE_UINT64\"}");
	sb_line(&b, "START_TIME\t%llu", (unsigned long long)p->start);
	sb_line(&b, "Time (ns)\tpgfault%s", cols);
	for (i = 0; i < p->rows; i++)
		sb_line(&b, "%llu\t%u%s",
			(unsigned long long)(p->t0 + i * PERIOD), 100 + i, vals);
	sb_line(&b, "STATS\t{\"collection_rate\":%llu,\"cheap_start_nanos\":5,"
		"\"cheap_last_collection_nanos\":%llu,"
		"\"total_snapshots\":%u,\"ksnap_snapshots_taken\":%llu,"
		"\"ksnap_snapshots_lost\":%llu,\"ksnap_periods_missed\":%llu,"
		"\"ksnapd_first_position\":%llu}", PERIOD,
		(unsigned long long)(5 + p->t0 + (p->rows - 1) * PERIOD), p->rows,
		(unsigned long long)p->taken, (unsigned long long)p->lost,
		(unsigned long long)p->missed,
		(unsigned long long)p->first_pos);
	if (p->skipped) {
		/* Plain: the key before the closing brace and newline. */
		b.len -= 2;
		sb_raw(&b, ",\"ksnapd_snapshots_skipped\":%llu}\n",
		       (unsigned long long)p->skipped);
	}
	if (p->max_late || p->max_read) {
		b.len -= 2;
		sb_raw(&b, ",\"ksnap_max_lateness_nanos\":%llu,"
		       "\"ksnap_max_read_nanos\":%llu}\n",
		       (unsigned long long)p->max_late,
		       (unsigned long long)p->max_read);
	}
	cur_name = name;
	assert_int_equal(ksv_walk(b.buf, b.len, &ops, &log), 0);
}

static char said[8192];

static struct ksv_seq_result check(void)
{
	struct ksv_seq_result res;
	FILE *f = fmemopen(said, sizeof(said), "w");

	assert_non_null(f);
	ksv_seq_check(&q, f, &res);
	fclose(f);
	ksv_seq_fini(&q);
	return res;
}

/* s.tsv, s.tsv.2 and s.tsv.3, checked as a sequence. */
static struct ksv_seq_result check3(const struct part *a, const struct part *b,
				    const struct part *c)
{
	ksv_seq_init(&q);
	add_part("s.tsv", a);
	add_part("s.tsv.2", b);
	add_part("s.tsv.3", c);
	return check();
}

static void expect_said(const char *what)
{
	if (!strstr(said, what))
		fail_msg("expected '%s' in:\n%s", what, said);
}

/* Three sets: /a; /a and /g (made while sampled); /a (/g removed). */
static const struct part three[] = {
	{ START, 0, 1000000, 10, 10, 0, 0, "/a", 0, 0, 0 },
	{ START, 10, 11000000, 5, 15, 0, 0, "/a /g", 0, 0, 0 },
	{ START, 15, 16000000, 7, 22, 0, 0, "/a", 0, 0, 0 },
};

static void an_unbroken_sequence_adds_up(void **state)
{
	struct ksv_seq_result res;

	res = check3(&three[0], &three[1], &three[2]);
	assert_int_equal(res.problems, 0);
	assert_int_equal(res.collections, 1);
	assert_int_equal(res.boundaries, 2);
	expect_said("22 taken = 22 rows + 0 lost: adds up");
}

static void a_missing_middle_file_is_named(void **state)
{
	struct ksv_seq_result res;

	ksv_seq_init(&q);
	add_part("s.tsv", &three[0]);
	add_part("s.tsv.3", &three[2]);
	res = check();
	assert_true(res.problems >= 2);
	expect_said("s.tsv.3: begins at position 15 of its collection "
		    "(STATS ksnapd_first_position), expected 10, where s.tsv "
		    "ended");
	expect_said("5 snapshots are in no stream checked");
	expect_said("does not add up: the streams account for 17, s.tsv.3's "
		    "STATS say 22 taken");
}

static void a_gap_at_a_boundary_is_named(void **state)
{
	struct part later = three[1], end = three[2];
	struct ksv_seq_result res;

	/* The second stream's rows begin 3 periods late, nothing lost. */
	later.t0 += 3 * PERIOD;
	end.t0 += 3 * PERIOD;
	res = check3(&three[0], &later, &end);
	assert_int_equal(res.problems, 1);
	expect_said("s.tsv.2: first row at 14000000 ns, expected one period "
		    "(1000000 ns) after s.tsv's last row at 10000000 ns "
		    "(allowing 0 ns for the timer's lateness and read time): "
		    "3 periods lost at the boundary");
}

/*
 * The second stream's first row 1.8 periods after the first's last: its
 * timer fired 0.7 periods late (no period missed) and its read, of more
 * columns, took 0.2 periods longer.  The module's largest lateness and
 * read (0.7 and 0.4 periods, in the last STATS) allow for it.
 */
static void a_late_first_row_within_lateness_and_read_is_no_problem(void **state)
{
	struct part later = three[1], end = three[2];
	struct ksv_seq_result res;

	later.t0 += PERIOD * 8 / 10;
	end.t0 += PERIOD * 8 / 10;
	end.max_late = PERIOD * 7 / 10;
	end.max_read = PERIOD * 4 / 10;
	res = check3(&three[0], &later, &end);
	assert_int_equal(res.problems, 0);
	assert_int_equal(res.boundaries, 2);

	/* Without the maxima (an older writer) the same gap is a period. */
	end.max_late = 0;
	end.max_read = 0;
	res = check3(&three[0], &later, &end);
	assert_int_equal(res.problems, 1);
	expect_said("1 periods lost at the boundary");
}

/*
 * Lateness beyond a period is counted in missed periods: the slack takes
 * at most one period of it, so 3 whole periods gone are still named.
 */
static void periods_gone_beyond_lateness_and_read_are_named(void **state)
{
	struct part later = three[1], end = three[2];
	struct ksv_seq_result res;

	later.t0 += 3 * PERIOD;
	end.t0 += 3 * PERIOD;
	end.max_late = 5 * PERIOD;
	end.max_read = PERIOD / 5;
	res = check3(&three[0], &later, &end);
	assert_int_equal(res.problems, 1);
	expect_said("(allowing 1100000 ns for the timer's lateness and read "
		    "time): 2 periods lost at the boundary");
}

static void a_gap_the_module_counted_is_no_problem(void **state)
{
	struct part later = three[1], end = three[2];
	struct ksv_seq_result res;

	later.t0 += 3 * PERIOD;
	end.t0 += 3 * PERIOD;
	end.missed = 3;		/* the swap delayed the timer 3 periods */
	res = check3(&three[0], &later, &end);
	assert_int_equal(res.problems, 0);
}

static void a_wrong_total_is_named(void **state)
{
	struct part end = three[2];
	struct ksv_seq_result res;

	end.taken = 25;
	res = check3(&three[0], &three[1], &end);
	assert_int_equal(res.problems, 1);
	expect_said("25 taken = 22 rows + 0 lost: does not add up: the "
		    "streams account for 22, s.tsv.3's STATS say 25 taken");
}

/*
 * The first stream met 3 records of a set the module no longer named
 * (ksnapd fell behind): it counts them skipped, so its taken is where the
 * next begins and the 3 periods at the boundary are accounted for.
 */
static const struct part behind[] = {
	{ START, 0, 1000000, 10, 13, 0, 0, "/a", 3, 0, 0 },
	{ START, 13, 14000000, 5, 18, 0, 0, "/a /g", 0, 0, 0 },
	{ START, 18, 19000000, 7, 25, 0, 0, "/a", 0, 0, 0 },
};

static void skipped_records_are_accounted_for(void **state)
{
	struct ksv_seq_result res;

	res = check3(&behind[0], &behind[1], &behind[2]);
	assert_int_equal(res.problems, 0);
	assert_int_equal(res.boundaries, 2);
	expect_said("25 taken = 22 rows + 0 lost + 3 skipped: adds up");
}

/* Without the key (an older ksnapd) the same gap is a problem, as before. */
static void skipped_records_without_the_key_are_a_gap(void **state)
{
	struct part first = behind[0];
	struct ksv_seq_result res;

	first.skipped = 0;
	res = check3(&first, &behind[1], &behind[2]);
	assert_int_equal(res.problems, 2);
	expect_said("3 periods lost at the boundary");
	expect_said("25 taken = 22 rows + 0 lost: does not add up");
}

static void lost_snapshots_count_in_the_last_stream(void **state)
{
	struct part end = three[2];
	struct ksv_seq_result res;

	end.taken = 26;
	end.lost = 4;
	res = check3(&three[0], &three[1], &end);
	assert_int_equal(res.problems, 0);
	expect_said("26 taken = 22 rows + 4 lost: adds up");
}

static void another_collection_begins_a_new_check(void **state)
{
	const struct part next = {
		START + 1, 0, 1000000, 4, 4, 0, 0, "/b", 0, 0, 0
	};
	struct part cont = three[1];
	struct ksv_seq_result res;

	ksv_seq_init(&q);
	add_part("s.tsv", &three[0]);
	add_part("s.tsv.2", &three[1]);
	add_part("s.tsv.3", &three[2]);
	add_part("s.tsv.4", &next);
	res = check();
	assert_int_equal(res.problems, 0);
	assert_int_equal(res.collections, 1);

	/* A stream of another collection that claims to continue one. */
	cont.start = START + 2;
	ksv_seq_init(&q);
	add_part("s.tsv", &three[0]);
	add_part("s.tsv.2", &cont);
	res = check();
	assert_int_equal(res.problems, 1);
	expect_said("s.tsv.2: begins at position 10 of a collection "
		    "(START_TIME 1795403597414460352) that s.tsv is not of");
}

static void a_later_stream_alone_is_no_problem(void **state)
{
	struct ksv_seq_result res;

	ksv_seq_init(&q);
	add_part("s.tsv.2", &three[1]);
	res = check();
	assert_int_equal(res.problems, 0);
	assert_int_equal(res.collections, 0);
}

static void overlapping_streams_are_named(void **state)
{
	struct part early = three[1];
	struct ksv_seq_result res;

	early.t0 = 9000000;
	ksv_seq_init(&q);
	add_part("s.tsv", &three[0]);
	add_part("s.tsv.2", &early);
	res = check();
	assert_int_equal(res.problems, 1);
	expect_said("s.tsv.2: first row at 9000000 ns, expected after "
		    "s.tsv's last row at 10000000 ns");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_unbroken_sequence_adds_up),
		cmocka_unit_test(a_missing_middle_file_is_named),
		cmocka_unit_test(a_gap_at_a_boundary_is_named),
		cmocka_unit_test(a_gap_the_module_counted_is_no_problem),
		cmocka_unit_test(a_late_first_row_within_lateness_and_read_is_no_problem),
		cmocka_unit_test(periods_gone_beyond_lateness_and_read_are_named),
		cmocka_unit_test(a_wrong_total_is_named),
		cmocka_unit_test(lost_snapshots_count_in_the_last_stream),
		cmocka_unit_test(skipped_records_are_accounted_for),
		cmocka_unit_test(skipped_records_without_the_key_are_a_gap),
		cmocka_unit_test(another_collection_begins_a_new_check),
		cmocka_unit_test(a_later_stream_alone_is_no_problem),
		cmocka_unit_test(overlapping_streams_are_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

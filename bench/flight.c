// SPDX-License-Identifier: MIT
/*
 * flight: the flight recorder's cost, natively (scripts/bench).
 *
 * 1. Evaluation: the flight recorder consumer (userspace/ksnapd/flight/flight.c) on
 *    synthetic rows of 16 columns at 10 kHz, with 1, 10 and 100 rules
 *    (a mix: a comparison, a rate(), growth over an avg(), a sum held for
 *    5 ms; none fires, so no dump is written) against the same with no
 *    rule (the history copy): ns per rule per row.
 * 2. ksnapd: ksnapd_step() over a ring laid out in memory (the
 *    collector, the output file to /dev/null and the flight recorder with
 *    10 rules), fed 10 000 rows of 16 columns per second of sampling at
 *    10 kHz, 1 000 a wake-up: CPU time (CLOCK_PROCESS_CPUTIME_ID) per
 *    second of sampling, with and without the rules.
 *
 * Prints key=value lines; best of --reps (default 5).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "fake_ring.h"
#include "flight.h"

#define COLS		16
#define PERIOD_NS	100000ULL	/* 10 kHz */
#define ROWS		200000
#define WAKE_ROWS	1000

/* Where events.jsonl goes (no rule fires: it stays empty). */
static char dir[] = "/tmp/ksnap-bench-flight-XXXXXX";

static double now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void columns(struct ksnap_column *cols)
{
	int i;

	memset(cols, 0, COLS * sizeof(*cols));
	for (i = 0; i < COLS; i++) {
		snprintf(cols[i].metric, sizeof(cols[i].metric), "c%d", i);
		cols[i].flags = KSNAP_COL_CUMULATIVE;
	}
}

static void make_rules(struct rule *r, int n)
{
	char text[256];
	struct rule_error e;
	int i, k;

	for (i = 0; i < n; i++) {
		k = i % COLS;
		switch (i % 4) {
		case 0:
			snprintf(text, sizeof(text), "c%d > 1000000000G", k);
			break;
		case 1:
			snprintf(text, sizeof(text), "rate(c%d, 100ms) > "
				 "1000000000G/s", k);
			break;
		case 2:
			snprintf(text, sizeof(text), "c%d > 125%% avg(c%d, 1s) "
				 "and c%d > 1000G", k, k, k);
			break;
		default:
			snprintf(text, sizeof(text), "c%d + c%d > 2000G for 5ms",
				 k, (k + 1) % COLS);
		}
		if (rule_parse(&r[i], text, (unsigned int)i + 1, &e)) {
			fprintf(stderr, "flight: rule '%s': %s\n", text, e.msg);
			exit(1);
		}
	}
}

static void fill(struct ksnap_record *rec, uint64_t i)
{
	int c;

	rec->seq = i;
	rec->time_ns = (i + 1) * PERIOD_NS;
	for (c = 0; c < COLS; c++)
		rec->values[c] = 1000000 + i * (c + 1);
}

/* ns per row of the flight recorder with n rules. */
static double eval_ns_per_row(int n)
{
	static struct ksnap_column cols[COLS];
	static unsigned char buf[KSNAP_RECORD_SIZE(COLS)];
	struct ksnap_record *rec = (struct ksnap_record *)buf;
	struct ksnap_coll c = { .generation = 1, .state = 1,
		.nr_columns = COLS, .period_ns = PERIOD_NS, .columns = cols };
	struct rule *r = calloc((size_t)n + 1, sizeof(*r));
	struct flight_config cfg = { .dump_dir = dir };
	struct flight f;
	char err[320];
	double t0, t1;
	uint64_t i;

	columns(cols);
	make_rules(r, n);
	cfg.dump_dir = n ? dir : NULL;
	if (flight_init(&f, &cfg, r, (unsigned int)n, err, sizeof(err)) ||
	    flight_ops.begin(&f, &c, 0)) {
		fprintf(stderr, "flight: %s\n", err);
		exit(1);
	}
	for (i = 0; i < 20000; i++) {	/* windows and history warm */
		fill(rec, i);
		flight_ops.row(&f, rec);
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	for (; i < 20000 + ROWS; i++) {
		fill(rec, i);
		flight_ops.row(&f, rec);
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	flight_fini(&f);
	free(r);
	return (t1 - t0) / ROWS;
}

/* CPU ns of ksnapd_step() for one second of rows at 10 kHz. */
static double ksnapd_cpu_per_s(int nrules)
{
	struct ksnap_ring ring;
	struct fake_ring fr;
	struct ksnapd d;
	struct rule *r = calloc((size_t)nrules + 1, sizeof(*r));
	struct ksnapd_config cfg = { .out_path = "/dev/null",
		.dump_dir = dir, .rules = r,
		.nr_rules = (unsigned int)nrules };
	double cpu = 0, t0;
	uint64_t i, j;
	int k, sec;

	make_rules(r, nrules);
	fake_ring_init(&fr, NULL, COLS, 16384);
	for (k = 0; k < COLS; k++)
		fake_ring_column(&fr, (uint32_t)k, "c", "n", NULL, "bench",
				 KSNAP_COL_CUMULATIVE);
	for (k = 0; k < COLS; k++)
		snprintf(fr.cols[k].metric, sizeof(fr.cols[k].metric), "c%d",
			 k);
	fake_ring_start(&fr, 1, COLS, PERIOD_NS, 0, 1);
	if (ksnap_ring_setup(&ring, fr.mem, fr.len, fr.cons) ||
	    ksnapd_init(&d, &ring, &cfg)) {
		fprintf(stderr, "flight: ksnapd_init: %s\n", d.err);
		exit(1);
	}
	ksnapd_step(&d);
	for (sec = 0; sec < 4; sec++) {
		for (i = 0; i < 10000; i += WAKE_ROWS) {
			for (j = 0; j < WAKE_ROWS; j++)
				fake_ring_push(&fr, (sec * 10000 + i + j + 1) *
					       PERIOD_NS, i + j);
			t0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
			ksnapd_step(&d);
			if (sec)	/* the first second warms up */
				cpu += now_ns(CLOCK_PROCESS_CPUTIME_ID) - t0;
		}
	}
	ksnapd_fini(&d);
	fake_ring_free(&fr);
	free(r);
	return cpu / 3;
}

static double best(double (*fn)(int), int arg, int reps)
{
	double b = 0, v;
	int i;

	for (i = 0; i < reps; i++) {
		v = fn(arg);
		if (!i || v < b)
			b = v;
	}
	return b;
}

int main(int argc, char **argv)
{
	static const int counts[] = { 1, 10, 100 };
	int reps = argc > 2 && !strcmp(argv[1], "--reps") ? atoi(argv[2]) : 5;
	double base, t, cpu0, cpu10;
	char path[64];
	size_t i;

	if (!mkdtemp(dir)) {
		perror("flight: mkdtemp");
		return 1;
	}
	base = best(eval_ns_per_row, 0, reps);
	printf("flight_cols=%d flight_rate_hz=%llu flight_rows=%d "
	       "flight_row_ns_0_rules=%.1f\n", COLS, 1000000000ULL / PERIOD_NS,
	       ROWS, base);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		t = best(eval_ns_per_row, counts[i], reps);
		printf("flight_rules=%d flight_row_ns=%.1f "
		       "flight_ns_per_rule_per_row=%.1f\n", counts[i], t,
		       (t - base) / counts[i]);
	}
	cpu0 = best(ksnapd_cpu_per_s, 0, reps);
	cpu10 = best(ksnapd_cpu_per_s, 10, reps);
	printf("ksnapd_10khz_cpu_ms_per_s_0_rules=%.2f "
	       "ksnapd_10khz_cpu_ms_per_s_10_rules=%.2f "
	       "ksnapd_10khz_cpu_pct_10_rules=%.2f\n", cpu0 / 1e6,
	       cpu10 / 1e6, cpu10 / 1e7);
	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

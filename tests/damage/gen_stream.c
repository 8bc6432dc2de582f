// SPDX-License-Identifier: MIT
/*
 * gen-stream: write a profiling-metrics stream to stdout with ksnapd's own
 * formatting code (stream.c, output.c), for the damage tests.
 *
 *   gen-stream [--lossy] [--rows N] [--period NS] [--flush-every K]
 *              [--module-lost POS]... [--skipped POS]... [--first-position P]
 *              [--rotate-after K FILE] [--lateness-pct P] [--read-pct P]
 *              [--wave] [--spike POS VALUE]
 *
 * Row i (0-based) is at time (i + 1) * period + (i * 37 % 101) and holds
 * i * 10 + column.  --flush-every K flushes after every K rows, so a lossy
 * stream has one framed block per K rows.  --module-lost POS leaves out
 * the snapshot at position POS as if the ring had been full (STATS
 * ksnap_snapshots_lost counts it, total_snapshots does not).  --skipped
 * POS leaves it out as ksnapd does a record of a column set it could not
 * name (STATS ksnapd_snapshots_skipped counts it, taken too).
 * --first-position P begins at position P, as a ksnapd resuming the
 * collection of an earlier reader that read P snapshots (STATS
 * ksnapd_first_position).  --rotate-after K FILE does what ksnapd does at
 * a SIGHUP after K rows: the stream so far goes to FILE, ended without
 * STATS (lossy: with its ADLER32 line), and a whole new stream goes to
 * stdout (STATS ksnapd_rows_in_earlier_files = K).  --lateness-pct and
 * --read-pct set the average lateness and read time per row, in percent
 * of the period (default 2 and 1).  --wave gives the columns shapes a
 * chart shows (for ksnap-plot's tests): free memory a triangle wave with
 * steps, the CPU time of /a and /b growing at a busy share that changes
 * in phases and bursts.  --spike POS VALUE puts VALUE in the first column
 * of the snapshot at position POS.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "stream.h"

#define NCOLS	3
#define MAX_LOST 16

static void set_col(struct ksnap_column *c, const char *metric,
		    const char *field, const char *value, const char *desc,
		    unsigned int flags)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->metric, sizeof(c->metric), "%s", metric);
	snprintf(c->field, sizeof(c->field), "%s", field);
	snprintf(c->value, sizeof(c->value), "%s", value);
	snprintf(c->description, sizeof(c->description), "%s", desc);
	c->flags = flags;
}

static void check(int ret, const char *what)
{
	if (ret) {
		fprintf(stderr, "gen-stream: %s: %s\n", what, strerror(-ret));
		exit(1);
	}
}

/* META, START_TIME, header: the start of a stream. */
static void head(struct ksnap_stream *s, const struct ksnap_column *cols)
{
	check(ksnap_stream_meta(s, cols, NCOLS), "write");
	check(ksnap_stream_start_time(s, 1700000000123456789ULL), "write");
	check(ksnap_stream_header(s, cols, NCOLS), "write");
}

int main(int argc, char **argv)
{
	struct ksnap_column cols[NCOLS];
	struct ksnap_stream_stats st;
	struct ksnap_stream s;
	struct ksnap_out out;
	unsigned long long rows = 40, period = 1000000, every = 10;
	unsigned long long lost[MAX_LOST], nlost = 0, pos, written = 0;
	unsigned long long skp[MAX_LOST], nskp = 0;
	unsigned long long last = 0, first = 0, rotate = 0;
	unsigned long long late_pct = 2, read_pct = 1;
	const char *rotated = NULL;
	unsigned long long spike_pos = 0, spike_v = 0;
	__u64 v[NCOLS], cpu_a = 0, cpu_b = 0;
	bool lossy = false, wave = false, spike = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lossy"))
			lossy = true;
		else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
			rows = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--period") && i + 1 < argc)
			period = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--flush-every") && i + 1 < argc)
			every = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--lateness-pct") && i + 1 < argc)
			late_pct = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--read-pct") && i + 1 < argc)
			read_pct = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--rotate-after") && i + 2 < argc) {
			rotate = strtoull(argv[++i], NULL, 10);
			rotated = argv[++i];
		} else if (!strcmp(argv[i], "--spike") && i + 2 < argc) {
			spike = true;
			spike_pos = strtoull(argv[++i], NULL, 10);
			spike_v = strtoull(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--wave"))
			wave = true;
		else if (!strcmp(argv[i], "--first-position") && i + 1 < argc)
			first = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--module-lost") && i + 1 < argc &&
			 nlost < MAX_LOST)
			lost[nlost++] = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--skipped") && i + 1 < argc &&
			 nskp < MAX_LOST)
			skp[nskp++] = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "gen-stream: bad argument '%s'\n",
				argv[i]);
			return 2;
		}
	}

	set_col(&cols[0], "/ksnap/mem_free", "", "",
		"Free memory, in \"pages\" \\ 4 KiB.", 0);
	set_col(&cols[1], "/ksnap/cpu_usage", "cgroup", "/a",
		"CPU time.", KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	set_col(&cols[2], "/ksnap/cpu_usage", "cgroup", "/b",
		"CPU time.", KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);

	check(ksnap_out_init(&out, 1, false, lossy, KSNAP_OUT_DEFAULT_SIZE),
	      "init");
	if (rotated) {
		out.fd = open(rotated, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out.fd < 0) {
			perror(rotated);
			return 1;
		}
	}
	ksnap_stream_init(&s, &out, lossy);
	head(&s, cols);
	for (pos = first; pos < first + rows + nlost + nskp; pos++) {
		unsigned long long k, t = (pos + 1) * period + pos * 37 % 101;
		bool skip = false;

		for (k = 0; k < nlost; k++)
			skip |= lost[k] == pos;
		for (k = 0; k < nskp; k++)
			skip |= skp[k] == pos;
		if (skip)
			continue;
		for (k = 0; k < NCOLS; k++)
			v[k] = pos * 10 + k;
		if (wave) {
			unsigned long long tri = pos % 8000, jit = pos * 37 % 101;

			tri = tri < 4000 ? tri : 8000 - tri;
			v[0] = 40000 + 5 * tri + (pos / 3000 % 2) * 8000 + jit;
			/* busy 30% or 70% of the period, in phases */
			cpu_a += period * (pos / 5000 % 2 ? 70 : 30) / 100 +
				 jit * period / 2000;
			/* 10%, with bursts of 90% */
			cpu_b += period * (pos % 6000 < 300 ? 90 : 10) / 100;
			v[1] = cpu_a;
			v[2] = cpu_b;
		}
		if (spike && pos == spike_pos)
			v[0] = spike_v;
		check(ksnap_stream_row(&s, t, v, NCOLS), "write");
		last = t;
		if (every && ++written % every == 0)
			check(ksnap_out_flush(&out), "write");
		if (rotated && written == rotate) {
			/* SIGHUP: end this file, a whole stream in the next */
			check(lossy ? ksnap_stream_finish(&s) :
				      ksnap_out_flush(&out), "write");
			close(out.fd);
			out.fd = 1;
			ksnap_stream_reset(&s);
			head(&s, cols);
		}
	}
	memset(&st, 0, sizeof(st));
	st.collection_rate_nanos = period;
	st.cheap_start_nanos = 5000;
	st.cheap_last_collection_nanos = 5000 + last;
	st.total_snapshots = written;
	st.total_sleep_timing_error_nanos = written * period * late_pct / 100;
	st.total_collection_timing_error_nanos = written * period * read_pct /
						 100;
	st.ksnap_snapshots_taken = first + written + nlost + nskp;
	st.ksnap_snapshots_lost = nlost;
	st.ksnapd_snapshots_skipped = nskp;
	st.ksnapd_first_position = first;
	st.ksnapd_rows_in_earlier_files = rotated ? rotate : 0;
	check(ksnap_stream_stats(&s, &st), "write");
	check(ksnap_stream_finish(&s), "write");
	ksnap_out_fini(&out);
	return 0;
}

// SPDX-License-Identifier: MIT
/* ksnapd's end-of-collection summary (summary.h). */
#include "summary.h"

/* The figures of the summary, computed once from STATS. */
struct figures {
	uint64_t rate;		/* period, ns */
	uint64_t expected;	/* snapshots the period makes for */
	uint64_t late;		/* average lateness of the rows, ns */
	uint64_t rd;		/* average read time of the rows, ns */
	double capture;		/* % of expected */
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void compute(const struct ksnap_stream_stats *st, struct figures *f)
{
	uint64_t dur = st->cheap_last_collection_nanos - st->cheap_start_nanos;
	uint64_t n = st->total_snapshots;
	/* Resumed: the collection's first snapshots are an earlier
	 * reader's rows, in another file, not missing ones. */
	uint64_t seen = n + st->ksnapd_first_position;

	f->rate = st->collection_rate_nanos;
	f->expected = f->rate ? dur / f->rate : 0;
	f->late = n ? st->total_sleep_timing_error_nanos / n : 0;
	f->rd = n ? st->total_collection_timing_error_nanos / n : 0;
	/* As gVisor's CollectionStats.Log: one extra snapshot is normal. */
	if (seen == f->expected + 1)
		f->expected = seen;
	f->capture = pct(seen, f->expected);
}

/* The figures, and what else happened to the collection's snapshots. */
static void report(FILE *log, uint32_t gen,
		   const struct ksnap_stream_stats *st,
		   const struct figures *f)
{
	fprintf(log, "ksnapd: collection %u: %llu snapshots, capture %.2f%% "
		"(%llu expected), lateness %llu ns (%.2f%% of the %llu ns "
		"period), read time %llu ns (%.2f%%), %llu lost (ring full), "
		"%llu periods missed\n", gen,
		(unsigned long long)st->total_snapshots, f->capture,
		(unsigned long long)f->expected, (unsigned long long)f->late,
		pct(f->late, f->rate), (unsigned long long)f->rate,
		(unsigned long long)f->rd, pct(f->rd, f->rate),
		(unsigned long long)st->ksnap_snapshots_lost,
		(unsigned long long)st->ksnap_periods_missed);
	if (st->ksnap_periods_thinned)
		fprintf(log, "ksnapd: collection %u: %llu of the periods "
			"missed were thinned: the module's reads took longer "
			"than their bound, with no cgroup left to shed, and it "
			"read less often (stats/thinned)\n", gen,
			(unsigned long long)st->ksnap_periods_thinned);
	if (st->ksnapd_first_position)
		fprintf(log, "ksnapd: collection %u: resumed at position %llu: "
			"the capture counts the %llu snapshots an earlier "
			"reader read\n", gen,
			(unsigned long long)st->ksnapd_first_position,
			(unsigned long long)st->ksnapd_first_position);
	if (st->ksnapd_snapshots_overwritten)
		fprintf(log, "ksnapd: collection %u: %llu snapshots "
			"overwritten before they were read (overflow="
			"overwrite)\n", gen,
			(unsigned long long)st->ksnapd_snapshots_overwritten);
	if (st->ksnapd_snapshots_skipped)
		fprintf(log, "ksnapd: collection %u: %llu snapshots skipped: "
			"of a column set the module no longer named (ksnapd "
			"fell behind its set changes) or not of the stream's "
			"set, no rows\n", gen,
			(unsigned long long)st->ksnapd_snapshots_skipped);
}

/* The warnings; returns how many. */
static int warn(FILE *log, uint32_t gen, const struct ksnap_stream_stats *st,
		const struct figures *f)
{
	int warnings = 0;

	if (st->ksnapd_rows_dropped) {
		warnings++;
		fprintf(log, "ksnapd: warning: collection %u: %llu rows "
			"dropped because the output was full\n", gen,
			(unsigned long long)st->ksnapd_rows_dropped);
	}
	/* STATS that span no time expect nothing: not judged. */
	if (f->expected && f->capture < 99.0) {
		warnings++;
		fprintf(log, "ksnapd: warning: collection %u: capture rate "
			"%.2f%% is below 99%%: %llu snapshots lost, %llu "
			"periods missed\n", gen, f->capture,
			(unsigned long long)st->ksnap_snapshots_lost,
			(unsigned long long)st->ksnap_periods_missed);
	}
	if (pct(f->late, f->rate) > 10.0) {
		warnings++;
		fprintf(log, "ksnapd: warning: collection %u: average "
			"lateness is %.2f%% of the period (above 10%%)\n",
			gen, pct(f->late, f->rate));
	}
	if (pct(f->rd, f->rate) > 10.0) {
		warnings++;
		fprintf(log, "ksnapd: warning: collection %u: average read "
			"time is %.2f%% of the period (above 10%%)\n", gen,
			pct(f->rd, f->rate));
	}
	return warnings;
}

int ksnapd_summary(FILE *log, uint32_t gen,
		   const struct ksnap_stream_stats *st)
{
	struct figures f;
	int warnings;

	if (!log)
		return 0;
	compute(st, &f);
	report(log, gen, st, &f);
	warnings = warn(log, gen, st, &f);
	fflush(log);
	return warnings;
}

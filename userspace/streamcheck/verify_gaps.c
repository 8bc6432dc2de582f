// SPDX-License-Identifier: MIT
/*
 * Rows missing from a stream: STATS' total_snapshots (the rows its writer
 * wrote) against the rows found, and where the gaps in time between
 * consecutive rows are.  A gap also comes from snapshots the module
 * dropped (ring full, periods missed) or ksnapd dropped or overwrote;
 * STATS counts those, so they are not lines lost.
 */
#include <stdlib.h>

#include "verify_gaps.h"
#include "verify_stream.h"

uint64_t ksv_slots_in(uint64_t gap, uint64_t period)
{
	uint64_t k = (gap + period / 2) / period;

	return k ? k - 1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t ksv_median_step(const uint64_t *t, size_t n)
{
	uint64_t *g, m;
	size_t k, ng = 0;

	if (n < 2)
		return 0;
	g = malloc((n - 1) * sizeof(*g));
	if (!g)
		return 0;
	for (k = 1; k < n; k++)
		if (t[k] > t[k - 1])
			g[ng++] = t[k] - t[k - 1];
	m = 0;
	if (ng) {
		qsort(g, ng, sizeof(*g), cmp_u64);
		m = g[(ng - 1) / 2];
	}
	free(g);
	return m;
}

/* Without STATS, the period is the median time between rows. */
static uint64_t median_gap(const struct ksv_stream *s)
{
	uint64_t *g, m;
	size_t k;

	if (s->nr_rows < 2)
		return 0;
	g = malloc((s->nr_rows - 1) * sizeof(*g));
	if (!g)
		return 0;
	for (k = 1; k < s->nr_rows; k++)
		g[k - 1] = s->rows[k].t - s->rows[k - 1].t;
	qsort(g, s->nr_rows - 1, sizeof(*g), cmp_u64);
	m = g[(s->nr_rows - 1) / 2];
	free(g);
	return m;
}

/* Rows missing before rows[k]: the slots of the gap, less the cut or
 * damaged rows found in it. */
static uint64_t gap_before(const struct ksv_stream *s, size_t k,
			   uint64_t period)
{
	uint64_t sl = ksv_slots_in(s->rows[k].t - s->rows[k - 1].t, period);
	uint64_t bad = k < s->cap_bad ? s->bad_after[k] : 0;

	return sl > bad ? sl - bad : 0;
}

static uint64_t gap_slots(const struct ksv_stream *s, uint64_t period)
{
	uint64_t n = 0;
	size_t k;

	if (!period)
		return 0;
	for (k = 1; k < s->nr_rows; k++)
		n += gap_before(s, k, period);
	return n;
}

/* One finding per gap; explained: STATS counts no row missing. */
static void emit_gaps(const struct ksv_stream *s, uint64_t period,
		      bool explained)
{
	struct ksv_finding f = { .what = KSV_GAP };
	size_t k;

	for (k = 1; k < s->nr_rows; k++) {
		uint64_t sl = gap_before(s, k, period);

		if (!sl)
			continue;
		f.line = s->rows[k].no;
		f.gap.slots = sl;
		f.gap.from_line = s->rows[k - 1].no;
		f.gap.from_t = s->rows[k - 1].t;
		f.gap.to_line = s->rows[k].no;
		f.gap.to_t = s->rows[k].t;
		f.gap.explained = explained;
		ksv_emit(s, &f);
	}
}

/* Rows STATS counts: written to this file, found in it. */
static void count_by_stats(struct ksv_stream *s, struct ksv_finding *f)
{
	const struct ksv_stats *st = &s->st;

	f->rows.dropped = st->lost + st->missed + st->dropped +
			  st->overwritten + st->skipped;
	/* After a reopen (SIGHUP) the first rows are in the files before
	 * this one. */
	f->rows.earlier = st->earlier;
	f->rows.written = st->total - st->earlier;
	if (st->earlier) {
		f->what = KSV_EARLIER_FILES;
		ksv_emit(s, f);
	}
	if (f->rows.written > f->rows.found) {
		f->rows.missing = f->rows.written - f->rows.found;
	} else if (f->rows.written < f->rows.found) {
		f->what = KSV_EXTRA_ROWS;
		ksv_emit(s, f);
	}
}

void ksv_check_rows(struct ksv_stream *s)
{
	uint64_t period = s->st_ok ? s->st.rate :
			  s->streaming ? 0 : median_gap(s);
	struct ksv_finding f = { .what = KSV_MISSING_ROWS };

	f.rows.found = s->nr_rows + s->rows_bad + s->orphans;
	if (s->st_ok)
		count_by_stats(s, &f);
	/* Streaming: the gaps were found, and told, as the rows came. */
	f.rows.gap_slots = s->streaming ? s->gap_slots : gap_slots(s, period);
	if (f.rows.gap_slots && !s->streaming)
		emit_gaps(s, period, s->st_ok && !f.rows.missing);
	if (!s->st_ok) {
		f.what = KSV_GAPS_UNCOUNTED;
		if (f.rows.gap_slots)
			ksv_emit(s, &f);
		return;
	}
	if (!f.rows.missing) {
		f.what = KSV_GAPS_DROPPED;
		if (f.rows.gap_slots && f.rows.dropped)
			ksv_emit(s, &f);
		return;
	}
	s->info.rows_missing = f.rows.missing;
	f.what = KSV_MISSING_ROWS;
	ksv_emit(s, &f);
}

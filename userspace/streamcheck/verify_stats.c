// SPDX-License-Identifier: MIT
/*
 * A STATS line's figures (verify_stats.h): read from its flat JSON
 * object, and judged as gVisor's reader judges them.
 */
#include <string.h>

#include "verify_lex.h"
#include "verify_stats.h"

/* gVisor's key first, then the format page's _nanos spelling. */
static bool stat2(const struct ksv_line *l, const char *k1, const char *k2,
		  uint64_t *v)
{
	return ksv_json_u64(l->body, l->body_len, k1, v) ||
	       (k2 && ksv_json_u64(l->body, l->body_len, k2, v));
}

static bool stat1(const struct ksv_line *l, const char *k, uint64_t *v)
{
	return ksv_json_u64(l->body, l->body_len, k, v);
}

bool ksv_parse_stats(const struct ksv_line *l, struct ksv_stats *st)
{
	const char *b = l->body + 6;
	size_t n = l->body_len - 6;

	memset(st, 0, sizeof(*st));
	if (n < 2 || b[0] != '{' || b[n - 1] != '}')
		return false;
	if (!stat2(l, "collection_rate", "collection_rate_nanos", &st->rate) ||
	    !stat1(l, "cheap_start_nanos", &st->start) ||
	    !stat1(l, "cheap_last_collection_nanos", &st->last) ||
	    !stat1(l, "total_snapshots", &st->total))
		return false;
	stat2(l, "total_sleep_timing_error", "total_sleep_timing_error_nanos",
	      &st->sleep_err);
	stat2(l, "total_collection_timing_error",
	      "total_collection_timing_error_nanos", &st->coll_err);
	stat1(l, "num_backoff_sleeps", &st->backoffs);
	stat2(l, "total_backoff_sleep", "total_backoff_sleep_nanos",
	      &st->backoff_ns);
	st->has_lost = stat1(l, "ksnap_snapshots_lost", &st->lost);
	st->has_missed = stat1(l, "ksnap_periods_missed", &st->missed);
	st->has_taken = stat1(l, "ksnap_snapshots_taken", &st->taken);
	stat1(l, "ksnapd_rows_dropped", &st->dropped);
	stat1(l, "ksnapd_snapshots_overwritten", &st->overwritten);
	/* A writer without the key skipped none it told of: 0. */
	stat1(l, "ksnapd_snapshots_skipped", &st->skipped);
	stat1(l, "ksnapd_first_position", &st->first_position);
	/* A writer without them: no allowance for lateness and reads. */
	stat1(l, "ksnap_max_lateness_nanos", &st->max_late);
	stat1(l, "ksnap_max_read_nanos", &st->max_read);
	stat1(l, "ksnapd_rows_in_earlier_files", &st->earlier);
	if (st->earlier > st->total)
		st->earlier = st->total;
	return true;
}

static double pct_of(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

void ksv_stats_capture(const struct ksv_stats *st, struct ksv_capture *c)
{
	memset(c, 0, sizeof(*c));
	c->dur = st->last > st->start ? st->last - st->start : 0;
	c->expected = st->rate ? c->dur / st->rate : 0;
	/* A resumed stream: the first snapshots are an earlier reader's. */
	c->seen = st->total + st->first_position;
	if (c->seen == c->expected + 1)
		c->expected = c->seen;
	c->judged = c->expected > 0;
	c->rate = c->judged ? (double)c->seen / (double)c->expected : 0;
	c->late_avg = st->total ? st->sleep_err / st->total : 0;
	c->read_avg = st->total ? st->coll_err / st->total : 0;
	c->late_pct = pct_of(c->late_avg, st->rate);
	c->read_pct = pct_of(c->read_avg, st->rate);
	c->backoff_pct = pct_of(st->backoff_ns, c->dur);
	c->warn_capture = c->judged && c->rate < 0.99;
	c->warn_late = c->late_pct > 10.0;
	c->warn_read = c->read_pct > 10.0;
	c->warn_backoff = st->backoffs && c->backoff_pct > 5.0;
}


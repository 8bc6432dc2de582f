/* SPDX-License-Identifier: MIT */
/*
 * A stream's STATS line: the figures the checks read from its JSON, and
 * what gVisor's reader would say of them.
 */
#ifndef KSNAP_VERIFY_STATS_H
#define KSNAP_VERIFY_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "verify_lex.h"

/* STATS, the figures the checks read (README.md, "STATS keys"). */
struct ksv_stats {
	uint64_t rate, start, last, total, sleep_err, coll_err;
	uint64_t backoffs, backoff_ns, lost, missed, taken, dropped;
	uint64_t overwritten, skipped, first_position, earlier;
	uint64_t max_late, max_read;	/* the module's largest, ns */
	bool has_lost, has_missed, has_taken;
};

/*
 * STATS as gVisor's reader judges them (CollectionStats.Log): the share
 * of the expected snapshots captured, the average lateness and read time
 * per row written against the period, backoff against the duration.
 */
struct ksv_capture {
	uint64_t dur;			/* last - start, ns */
	uint64_t expected, seen;	/* snapshots; seen counts the ones
					 * an earlier reader read */
	double rate;			/* seen / expected (0: none expected) */
	bool judged;			/* expected > 0: STATS span some time */
	uint64_t late_avg, read_avg;	/* ns per row */
	double late_pct, read_pct;	/* of the period */
	double backoff_pct;		/* of the duration */
	bool warn_capture;		/* judged and below 99% */
	bool warn_late, warn_read;	/* above 10% of the period */
	bool warn_backoff;		/* above 5% */
};

void ksv_stats_capture(const struct ksv_stats *st, struct ksv_capture *c);

/* The STATS figures the checks use, from a STATS line; false: invalid. */
bool ksv_parse_stats(const struct ksv_line *l, struct ksv_stats *st);

#endif /* KSNAP_VERIFY_STATS_H */

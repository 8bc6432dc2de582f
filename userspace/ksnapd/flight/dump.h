/* SPDX-License-Identifier: MIT */
/*
 * A window of a collection written as a whole stream of its own (the
 * flight recorder's dumps and ksnapd --slice): META, START_TIME, the
 * header, the rows, STATS and, in lossy mode, ADLER32, formatted by
 * stream.c into output.c's buffer, so that ksnap-verify and gVisor's
 * reader take it as they take the main stream.  Row times are the
 * collection's (ns since its start), START_TIME is its start.
 *
 * STATS says what the window holds, honestly:
 *   total_snapshots               its rows;
 *   cheap_start_nanos, cheap_last_collection_nanos
 *                                 its first and last rows (CLOCK_MONOTONIC);
 *   total_*_timing_error, ksnap_lateness_sum_nanos, ksnap_read_sum_nanos,
 *   ksnap_max_*                   over its rows;
 *   ksnap_snapshots_taken         the ring positions from its first row to
 *                                 its last (snapshots the kernel wrote);
 *   ksnapd_snapshots_overwritten  those of them that are not rows (the
 *                                 kernel overwrote them before they were
 *                                 read);
 *   ksnap_snapshots_lost, ksnap_periods_missed
 *                                 0: snapshots dropped (ring full) and
 *                                 periods missed have no position, and
 *                                 are counted in the main stream; the
 *                                 gaps they leave are in ksnapd_dump_gaps;
 * and the caller's keys (which collection, which window) after them.
 */
#ifndef KSNAPD_DUMP_H
#define KSNAPD_DUMP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "output.h"
#include "ring.h"
#include "stream.h"

#define DUMP_BUFFER_SIZE	(256 * 1024)

struct dump {
	bool open;
	bool own_fd;		/* opened here: closed here */
	char path[PATH_MAX];
	struct ksnap_out sink;
	struct ksnap_stream stream;
	const struct ksnap_coll *coll;

	uint64_t rows;
	uint64_t first_t, last_t;	/* row times */
	uint64_t first_seq, last_seq;	/* ring positions */
	uint64_t gaps;			/* > 1.5 periods between rows */
	uint64_t lateness_sum, read_sum, lateness_max, read_max;
	/* The exit record a rule on exits fired on: listed in STATS
	 * (ksnap_exits), or NULL. */
	const struct ksnap_exit *exit;
	const struct ksnap_identity *exit_id;	/* who its cgroup was */
};

/*
 * Create path (O_EXCL: -EEXIST when it exists) and begin the stream of
 * collection c in it.  Returns 0 or -errno.
 */
int dump_open_path(struct dump *d, const char *path, bool lossy,
		   const struct ksnap_coll *c);
/* The same into fd (a --slice client's file), which dump_close() leaves
 * open. */
int dump_open_fd(struct dump *d, int fd, bool lossy,
		 const struct ksnap_coll *c);

/* One row; rows come in position order.  Returns 0 or -errno. */
int dump_row(struct dump *d, const struct ksnap_record *rec);
int dump_flush(struct dump *d);

/*
 * STATS (above, then extra[0..n)), ADLER32 in lossy mode, and close.
 * Returns 0 or -errno; the dump is closed either way.
 */
int dump_close(struct dump *d, const struct ksnap_stats_extra *extra,
	       uint32_t n);
/* Close without STATS (an error path). */
void dump_abort(struct dump *d);

#endif /* KSNAPD_DUMP_H */

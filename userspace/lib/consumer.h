/* SPDX-License-Identifier: MIT */
/*
 * The seam between ksnapd's collector (collect.h), which reads the ring,
 * and what is done with the rows.  Every consumer sees each collection
 * begin, every record read, and the collection end with its statistics.
 * The output file (outfile.h) is one; a flight recorder (trigger rules
 * evaluated on every row, dump files of the rows before and after an
 * event) would be another beside it, seeing the same rows: it needs no
 * change to the collector, only ksnapd_collect_add() (daemon.c).
 *
 * For each collection, the collector calls each consumer so:
 *
 *	ops->begin(self, &coll, first_position);
 *	at every wake-up:
 *		ops->exit(self, record) for each exit record taken;
 *		ops->wake(self);
 *		for (pos = tail; pos != head; pos++)
 *			ops->row(self, record at pos);
 *		ops->flush(self);	then the tail goes back to the kernel
 *	ops->end(self, &end);		until it returns 0
 *
 * Rules a consumer can rely on, and must keep:
 *  - c (and its columns) stays valid and unchanged from begin() until
 *    end() has returned 0.  rec is valid only during row(): copy what is
 *    kept.
 *  - row() sees the records in position order, each once; a record the
 *    kernel overwrote before it was read is not seen (overwrite mode,
 *    counted in the end's stats).  It must not block: the ring is kept
 *    drained.
 *  - flush() is called before the slots of the rows just seen are handed
 *    back to the kernel: what must not be lost is out (or knowingly
 *    dropped, and counted) when it returns.  A ksnapd killed after flush()
 *    and before the hand-back writes those rows again the next time: at
 *    least once, never lost.
 *  - end() may return 1, "not yet" (the output is full): the collection
 *    is then not handed back to the kernel, which refuses a new start
 *    meanwhile, and end() is called again at the next wake-up, after
 *    wake() and flush().  With e->stopping (ksnapd is exiting) it must
 *    not: it finishes now or fails.  Once it has returned 0 it is not
 *    called again for this collection.
 *  - Every function returns 0 (end(): or 1) or -errno, having said what
 *    failed in the error buffer it was given; an error ends ksnapd.
 *  - wake(), flush() and exit() may be NULL.
 */
#ifndef KSNAPD_CONSUMER_H
#define KSNAPD_CONSUMER_H

#include <stdbool.h>
#include <stdint.h>

#include "ksnap_abi.h"
#include "ring.h"
#include "stream.h"

/* A collection's end, as the collector knows it. */
struct ksnapd_end {
	const struct ksnap_coll *coll;
	/*
	 * Its STATS as far as the collector knows them: the period and start,
	 * the module's figures (after the drain), the records overwritten
	 * before they were read and those skipped, the first position.
	 * The figures of the rows a consumer wrote are its own:
	 * total_snapshots, the timing errors, rows dropped and in earlier
	 * files are 0 here, and cheap_last_collection_nanos is the start.
	 */
	struct ksnap_stream_stats stats;
	bool stopping;			/* a stop signal: finish now or fail */
	/*
	 * The collection goes on under another column set (ksnap_abi.h
	 * "Column sets"): begin() follows at once with the new set's
	 * columns, its rows starting at first_position (the rows before
	 * were this stream's and earlier ones': not an earlier reader's).
	 * stats: this stream's share, taken = its last position.
	 */
	bool split;
};

struct ksnapd_consumer_ops {
	/* A collection begins; its rows start at first_position. */
	int (*begin)(void *self, const struct ksnap_coll *c,
		     uint64_t first_position);
	/* A wake-up, before its rows: retry what is pending. */
	int (*wake)(void *self);
	/* One record of the collection (c->nr_columns values). */
	int (*row)(void *self, const struct ksnap_record *rec);
	/* The rows so far are out: their slots go back to the kernel. */
	int (*flush)(void *self);
	/* The collection has ended and every row was seen: 0 done, 1 not
	 * yet (call again at the next wake-up). */
	int (*end)(void *self, const struct ksnapd_end *e);
	/* An exit record of the collection (docs/format.md, "Exits"), taken
	 * at a wake-up before its rows; may be NULL. */
	int (*exit)(void *self, const struct ksnap_exit *x);
};

#endif /* KSNAPD_CONSUMER_H */

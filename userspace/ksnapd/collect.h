/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's collector: the state machine that follows the kernel's
 * collections in the ring and hands their rows to the consumers
 * (consumer.h: the output file, and whatever comes beside it).
 *
 *   state       leaves when                                 for
 *   WAIT_START  a collection to write is there              STREAM
 *               a stop signal came                          DONE
 *   STREAM      it has stopped, or a stop signal came,      END
 *               and the ring is drained
 *   END         every consumer has ended it                 WAIT_START, or
 *                                                           DONE (--once,
 *                                                           a stop signal)
 *   DONE        never: ksnapd exits
 *
 * WAIT_START: a collection is to be written when it is running, or when it
 * was started and stopped again before ksnapd looked (echo 1; echo 0:
 * STOPPED with a generation not reported done): it must be
 * drained and handed back, or the kernel would refuse every later start.
 * A stopped collection that is done (the kernel counts the last one as
 * done when the device is opened: an earlier reader's) is not written,
 * but its unread records are skipped (tail = head) so that poll() can
 * sleep.
 *
 * STREAM: at every wake-up, the records between tail and head go to every
 * consumer and are flushed by it before the tail hands their slots back
 * to the kernel: a ksnapd killed in between leaves rows that the next one
 * writes again (at least once), never rows that no file has.  A tail an
 * earlier reader (a killed ksnapd) left in the collection is where the
 * rows begin (first_position).  In overwrite mode, records the kernel
 * overwrote before they were read are counted (overwritten), not seen.
 * Each record goes to the consumers with its values at values[] (a newer
 * module's longer header is skipped: values_offset); one of another
 * column set than the collection's is counted (foreign) and logged at
 * the end, never read under the collection's columns; but one of a later
 * set (a running collection's cgroup patterns matched other cgroups)
 * ends the stream there and begins the next under the new set's columns
 * (each consumer's end() with split, then begin()), with no row between
 * them lost; a later set the module no longer names (ESTALE: ksnapd fell
 * more sets behind than it keeps) is skipped.  The records of no stream
 * (not of its set, or of a set the module no longer names) are counted
 * in the stream they come in (STATS ksnapd_snapshots_skipped).  Each
 * stream's STATS count its own rows; the last one's the collection's
 * totals, the rows before it counted as before its first position
 * (ksnapd_first_position): taken = first_position + rows + lost +
 * overwritten + dropped + skipped in every stream.
 * With stop_collection set (--stop-on-exit), a stop signal first stops
 * the collection in the kernel, so that the drain ends with its last
 * snapshot (KSNAP_REC_LAST) and the collection is handed back.
 *
 * END: the consumers end the collection (STATS), each until it says it
 * has (the output may be full: it is retried at every wake-up, and a stop
 * signal meanwhile fails it).  Only then is a stopped collection handed
 * back (KSNAP_IOC_DONE); the kernel refuses a new start until then.
 */
#ifndef KSNAPD_COLLECT_H
#define KSNAPD_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "consumer.h"
#include "ring.h"

enum ksnapd_state {
	KSNAPD_WAIT_START,	/* no collection of ours: wait for a start */
	KSNAPD_STREAM,		/* rows to the consumers as they come */
	KSNAPD_END,		/* over and drained: ending at the consumers */
	KSNAPD_DONE,		/* exit */
};

struct ksnapd_collect_config {
	bool once;			/* exit after the first collection */
	FILE *log;			/* notices, or NULL */
	/* --stop-on-exit: stop the collection in the kernel (above), or
	 * NULL.  Returns 0 or -errno; then the drain ends as without it. */
	int (*stop_collection)(void *arg);
	void *stop_arg;
};

/* ksnapd_collect.stop_ret before stop_collection() is called. */
#define KSNAPD_STOP_NOT_CALLED	1

/* Exit records one stream's STATS lists at most (the rest are counted:
 * ksnapd_exits_unlisted); the line lists fewer when these would take
 * more than 24 KiB of it (stream.c). */
#define KSNAPD_EXITS_LISTED	64

/* Consumers one collector feeds: the output file, the flight recorder
 * and the OpenMetrics endpoint. */
#define KSNAPD_MAX_CONSUMERS	3

struct ksnapd_consumer {
	const struct ksnapd_consumer_ops *ops;
	void *self;
	bool ended;			/* its end() returned done */
};

struct ksnapd_collect {
	struct ksnapd_collect_config cfg;
	struct ksnap_ring *ring;
	enum ksnapd_state state;
	/*
	 * A stop signal came: not a state but a request, which each state
	 * acts on (WAIT_START: exit; STREAM: drain and end now; END: the
	 * consumers may not wait for room any more).
	 */
	bool stop;
	int stop_ret;			/* what stop_collection() returned */

	struct ksnap_coll coll;		/* the collection being written */
	struct ksnap_record *rec;	/* overwrite mode: one record copy */
	struct ksnap_record *norm;	/* one record, values moved up */
	uint64_t tail;
	/* Where this reader began in the collection: the records before
	 * were an earlier reader's (STATS ksnapd_first_position). */
	uint64_t first_position;
	/* Overwrite mode: records lost to the kernel before they were read
	 * (STATS ksnapd_snapshots_overwritten). */
	uint64_t overwritten;
	/* Records the stream read past without a row (STATS
	 * ksnapd_snapshots_skipped): foreign or stale ones since it began. */
	uint64_t skipped;
	/* Records of another column set than the collection's, or with a
	 * values_offset this reader cannot follow: skipped (the collection's
	 * count, for the log). */
	uint64_t foreign;
	/* Records of a set the module no longer named (skip_set): skipped
	 * (the collection's count, for the log). */
	uint64_t stale;
	/* A record of a later column set met at tail: the stream of the
	 * collection's set ends there and one of this set begins
	 * (split_set()); 0 when none. */
	uint32_t next_set;
	/* A later set the module no longer answers for (the reader fell
	 * behind): its records are skipped, counted as stale. */
	uint32_t skip_set;

	/* Exit records taken from the module for the stream being written
	 * (its STATS lists them), and those past what it lists. */
	struct ksnap_exit *exits;
	struct ksnap_identity *exit_ids;	/* who each one's cgroup was */
	uint32_t nr_exits;
	uint64_t exits_unlisted;

	/* Who the stream's cgroups are (its STATS names them), looked up
	 * when it first ends: the paths point into coll.columns. */
	const char **name_paths;
	struct ksnap_identity *name_ids;
	uint32_t nr_names;
	bool names_done;

	struct ksnapd_consumer consumers[KSNAPD_MAX_CONSUMERS];
	unsigned int nr_consumers;

	char *err;			/* what failed, when a call fails */
	size_t errlen;
};

/*
 * Set up a collector of the open ring r; err (errlen bytes) is where it
 * says what failed.  Returns 0 or -ENOMEM.
 */
int ksnapd_collect_init(struct ksnapd_collect *c, struct ksnap_ring *r,
			const struct ksnapd_collect_config *cfg, char *err,
			size_t errlen);
void ksnapd_collect_fini(struct ksnapd_collect *c);

/*
 * Feed the rows to the consumer self through ops too, from the next
 * collection on, after those added before.  Returns 0 or -ENOSPC (all
 * KSNAPD_MAX_CONSUMERS taken).
 */
int ksnapd_collect_add(struct ksnapd_collect *c,
		       const struct ksnapd_consumer_ops *ops, void *self);

/*
 * Act on what the ring shows now.  Returns 1 when done (exit), 0 to wait
 * for the next wake-up, -EAGAIN to retry soon, other -errno on failure
 * with err set.
 */
int ksnapd_collect_step(struct ksnapd_collect *c);

#endif /* KSNAPD_COLLECT_H */

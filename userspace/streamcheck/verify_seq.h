/* SPDX-License-Identifier: MIT */
/*
 * A sequence of streams checked as one whole: ksnapd's FILE, FILE.2, ...
 * (or the streams of one journal), each already checked by itself.  A
 * collection whose cgroup set changes while it runs is written as one
 * stream per column set (docs/format.md, "Sequences"); the streams of a
 * collection share its START_TIME, and each one's STATS say where it
 * begins (ksnapd_first_position) and ends (ksnap_snapshots_taken).
 *
 * Across the streams of a collection the checks are:
 *
 *  - each begins where the one before it ended: its first position is the
 *    one before's taken (a file left out shows here);
 *  - no period is lost at a boundary: its first row is one period after
 *    the last row before it, unless the collection's loss accounting
 *    (lost, missed, overwritten, dropped, skipped) has room for the gap;
 *  - the same collection: period and start (cheap_start_nanos) agree;
 *  - the collection's totals: the last stream's taken equals the rows of
 *    all its streams plus lost, overwritten, dropped, skipped, and the
 *    position the first began at.
 *
 * A stream continues the one before when it has the same START_TIME and
 * begins past position 0; a stream that begins at 0 begins a collection.
 * A stream that begins a collection at a position other than 0 after
 * another collection's streams is a problem too (its start is in no file
 * checked); the first stream checked may (a resumed file).
 */
#ifndef KSNAP_VERIFY_SEQ_H
#define KSNAP_VERIFY_SEQ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "verify_stream.h"

#define KSV_SEQ_NAME_MAX	256

struct ksv_seq_item {
	char name[KSV_SEQ_NAME_MAX];	/* its file, as given */
	unsigned int no;		/* its number in that file */
	bool has_start;
	uint64_t start;			/* START_TIME */
	bool st_ok;
	struct ksv_stats st;
	bool has_rows;
	uint64_t first_t, last_t;	/* intact rows' times */
	uint64_t rows;			/* intact */
};

struct ksv_seq {
	struct ksv_seq_item *it;
	size_t n, cap;
};

/* The sequence's verdict: problems (each said), and what was checked. */
struct ksv_seq_result {
	unsigned int problems;
	unsigned int collections;	/* with more than one stream */
	unsigned int boundaries;	/* checked */
};

void ksv_seq_init(struct ksv_seq *q);
void ksv_seq_fini(struct ksv_seq *q);
/* Keep what the checks need of a checked stream (at end()): 0, -ENOMEM. */
int ksv_seq_add(struct ksv_seq *q, const char *name,
		const struct ksv_stream *s);
/* The checks above; each problem said on rep (may be NULL). */
void ksv_seq_check(const struct ksv_seq *q, FILE *rep,
		   struct ksv_seq_result *res);

#endif /* KSNAP_VERIFY_SEQ_H */

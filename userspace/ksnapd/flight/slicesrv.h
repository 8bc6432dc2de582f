/* SPDX-License-Identifier: MIT */
/*
 * The slices ksnapd --slice asks the daemon for (slicesrv.c): each one a
 * dump of the rows from its begin to its end, cut from the flight
 * recorder's history and the rows that come after it.
 */
#ifndef KSNAPD_SLICESRV_H
#define KSNAPD_SLICESRV_H

#include <stdbool.h>
#include <stdint.h>

#include "consumer.h"
#include "dump.h"
#include "history.h"

#define FLIGHT_MAX_SLICES	4

/* A --slice being served. */
struct flight_slice {
	bool used;
	struct dump dump;
	int out_fd, client_fd;
	uint64_t begin_t, end_t;	/* row times */
	uint64_t history_from_t;	/* the oldest row kept */
};

struct flight_slices {
	struct flight_slice slice[FLIGHT_MAX_SLICES];
};

/* What a slice is cut from: the running collection (NULL: none), the
 * history, and the last row's time. */
struct flight_slice_src {
	const struct ksnap_coll *coll;
	const struct history *hist;
	uint64_t prev_t;
};

void flight_slices_init(struct flight_slices *ss);
/*
 * Serve a slice: the rows from begin_rel to end_rel ns around the last
 * row (negative: before it), as a stream into out_fd; the reply (one
 * line, "ok ..." or "error ...") goes to client_fd when it is written,
 * now or when the row at end_rel has come.  Both descriptors are ss's.
 */
void flight_slices_start(struct flight_slices *ss,
			 const struct flight_slice_src *src, int64_t begin_rel,
			 int64_t end_rel, bool lossy, int out_fd, int client_fd);
/* Each row, and the collection's end. */
void flight_slices_row(struct flight_slices *ss,
		       const struct ksnap_coll *coll,
		       const struct ksnap_record *rec);
void flight_slices_flush(struct flight_slices *ss);
void flight_slices_end(struct flight_slices *ss,
		       const struct ksnap_coll *coll);

#endif /* KSNAPD_SLICESRV_H */

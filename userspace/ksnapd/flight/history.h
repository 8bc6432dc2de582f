/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder's memory: the last records of the collection, whole
 * (header and values), in a ring sized at a collection's begin for a span
 * of time at its period: what the longest pre (and for) of the rules
 * needs, or --history for slices, whichever is longer, at most 256 MiB.
 * Appending never allocates.
 */
#ifndef KSNAPD_HISTORY_H
#define KSNAPD_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "ksnap_abi.h"

struct history {
	unsigned char *buf;
	size_t rec_size;	/* bytes of one record kept */
	uint32_t nr_columns;
	uint32_t cap, first, len;
	uint64_t span_ns;	/* what it was sized for */
	uint64_t evicted;	/* records pushed out since the reset */
};

/*
 * Room for span_ns of records every period_ns of nr_columns values (one
 * more for the row at the edge, and some for jitter).  Reuses the buffer
 * when it is large enough.  Returns 0 or -ENOMEM.
 */
int history_size(struct history *h, uint64_t span_ns, uint64_t period_ns,
		 uint32_t nr_columns);
void history_free(struct history *h);
void history_reset(struct history *h);

/* Bytes held (the figure ksnapd reports at startup). */
static inline size_t history_bytes(const struct history *h)
{
	return (size_t)h->cap * h->rec_size;
}

void history_push(struct history *h, const struct ksnap_record *rec);

/* Record k, 0 the oldest, len - 1 the newest. */
static inline const struct ksnap_record *
history_at(const struct history *h, uint32_t k)
{
	uint32_t s = h->first + k;

	if (s >= h->cap)
		s -= h->cap;
	return (const struct ksnap_record *)(h->buf + (size_t)s * h->rec_size);
}

/* The index of the oldest record at or after time t (len if none). */
uint32_t history_find(const struct history *h, uint64_t t);

#endif /* KSNAPD_HISTORY_H */

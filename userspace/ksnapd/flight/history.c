// SPDX-License-Identifier: MIT
/* The flight recorder's records in memory (history.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"

/* At most 2^24 records (2.8 min at 100 kHz, 4.6 h at 1 kHz), and at
 * most 256 MiB. */
#define HISTORY_MAX_RECORDS	(1U << 24)
#define HISTORY_MAX_BYTES	(256ULL << 20)

int history_size(struct history *h, uint64_t span_ns, uint64_t period_ns,
		 uint32_t nr_columns)
{
	uint64_t n = span_ns / (period_ns ? period_ns : 1);
	size_t rs = KSNAP_RECORD_SIZE((size_t)nr_columns);
	unsigned char *buf;

	n = n + n / 16 + 16;
	if (n > HISTORY_MAX_RECORDS)
		n = HISTORY_MAX_RECORDS;
	if (n * rs > HISTORY_MAX_BYTES)
		n = HISTORY_MAX_BYTES / rs;
	if (!h->buf || (uint64_t)h->cap * h->rec_size < n * rs) {
		buf = malloc((size_t)n * rs);
		if (!buf)
			return -ENOMEM;
		free(h->buf);
		h->buf = buf;
	}
	h->rec_size = rs;
	h->nr_columns = nr_columns;
	h->cap = (uint32_t)n;
	h->span_ns = span_ns;
	history_reset(h);
	return 0;
}

void history_free(struct history *h)
{
	free(h->buf);
	memset(h, 0, sizeof(*h));
}

void history_reset(struct history *h)
{
	h->first = 0;
	h->len = 0;
	h->evicted = 0;
}

void history_push(struct history *h, const struct ksnap_record *rec)
{
	uint32_t s;

	if (!h->cap)
		return;
	if (h->len == h->cap) {
		h->first = h->first + 1 == h->cap ? 0 : h->first + 1;
		h->len--;
		h->evicted++;
	}
	s = h->first + h->len;
	if (s >= h->cap)
		s -= h->cap;
	memcpy(h->buf + (size_t)s * h->rec_size, rec, h->rec_size);
	h->len++;
}

uint32_t history_find(const struct history *h, uint64_t t)
{
	uint32_t lo = 0, hi = h->len, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (history_at(h, mid)->time_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* SPDX-License-Identifier: MIT */
/*
 * A stream's rows against STATS: the rows missing by its count, and the
 * gaps in time that locate them.
 */
#ifndef KSNAP_VERIFY_GAPS_H
#define KSNAP_VERIFY_GAPS_H

#include <stddef.h>
#include <stdint.h>

#include "verify_stream.h"

/* Rows missing by STATS' count, and the gaps in time. */
void ksv_check_rows(struct ksv_stream *s);
/* Rounded number of periods in gap, minus one: rows that fit in it. */
uint64_t ksv_slots_in(uint64_t gap, uint64_t period);
/* Streaming: the period estimated from row times t[0, n) in input order
 * (the median positive difference); 0 if none. */
uint64_t ksv_median_step(const uint64_t *t, size_t n);

#endif /* KSNAP_VERIFY_GAPS_H */

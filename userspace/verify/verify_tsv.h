/* SPDX-License-Identifier: MIT */
/*
 * Write a checked stream's intact lines as a plain profiling-metrics
 * stream: META lines, START_TIME, the header (without the lossy
 * Checksum column), the rows in time order, STATS.  A lossy stream
 * that lost nothing comes out byte for byte as ksnapd's plain stream.
 * One user of the parser API (verify_check.h), at its end() callback.
 */
#ifndef KSNAP_VERIFY_TSV_H
#define KSNAP_VERIFY_TSV_H

#include <stdio.h>

#include "verify_check.h"

/* 0, or the first callback error; write errors show at f's fclose. */
int ksv_write_tsv(const struct ksv_stream *s, FILE *f);

#endif /* KSNAP_VERIFY_TSV_H */

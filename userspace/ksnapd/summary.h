/* SPDX-License-Identifier: MIT */
/*
 * The end-of-collection summary ksnapd logs (standard error), from what
 * the collection's STATS line says: the capture rate, the average
 * lateness and read time against the period, what was lost, with a
 * warning at each of gVisor's thresholds (CollectionStats.Log): capture
 * below 99%, lateness or read time above 10% of the period.  One more: rows
 * dropped because the output was full.
 */
#ifndef KSNAPD_SUMMARY_H
#define KSNAPD_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "stream.h"

/*
 * Log the summary of collection gen on log (nothing when log is NULL).
 * Returns the number of warnings (0 when log is NULL).
 */
int ksnapd_summary(FILE *log, uint32_t gen,
		   const struct ksnap_stream_stats *st);

#endif /* KSNAPD_SUMMARY_H */

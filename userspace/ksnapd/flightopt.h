/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's flight recorder options, checked at startup once the device is
 * open (ksnapd.c): the rules against the module's columns (--check-rules
 * stops there), the memory the history takes, and whether the module's
 * ring holds --history.
 */
#ifndef KSNAPD_FLIGHTOPT_H
#define KSNAPD_FLIGHTOPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ring.h"
#include "rules.h"

/*
 * Check rs against the ring's columns and say what the flight recorder
 * will keep (history_ns: --history, 0 when no daemon history is kept).
 * check_only: --check-rules, which also lists the rules.  Returns 0, or
 * -EINVAL (a bad rule: each said), or other -errno.
 */
int flightopt_check(const struct ksnap_ring *r, struct rules *rs,
		    uint64_t history_ns, bool check_only, FILE *log);

/* Does the ring hold --history?  Says so on log when it does not. */
void flightopt_ring_history(const struct ksnap_ring *r, uint64_t history_ns,
			    FILE *log);

#endif /* KSNAPD_FLIGHTOPT_H */

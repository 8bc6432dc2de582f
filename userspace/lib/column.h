/* SPDX-License-Identifier: MIT */
/*
 * A column of the module's column set, as read through the device
 * (ring.h: ksnap_ring_read_columns()), and as the stream writer and the
 * flight recorder's rules take it.
 */
#ifndef KSNAP_COLUMN_H
#define KSNAP_COLUMN_H

#include <stdint.h>

#include "ksnap_abi.h"

/*
 * One column of a set, as KSNAP_IOC_COLUMN gives it (struct
 * ksnap_column_info): what the stream's header and the flight recorder's
 * rules need of it.
 */
struct ksnap_column {
	char metric[KSNAP_METRIC_NAME_MAX];
	char field[KSNAP_FIELD_NAME_MAX];	/* "" when none */
	char value[KSNAP_FIELD_VALUE_MAX];	/* a cgroup path, a CPU */
	char description[KSNAP_DESC_MAX];
	uint32_t flags;		/* KSNAP_COL_* */
	uint32_t freshness;	/* KSNAP_FRESH_* */
	/* The longest time between two updates of the value, 0 when read
	 * live: the module's (KSNAP_FEAT_REFRESH_NS), else the longest its
	 * freshness allows (a tick at HZ=100). */
	uint64_t refresh_ns;
};

/*
 * The longest time between two updates that a freshness allows, for a
 * module that does not say (version 4): a tick at HZ=100 for
 * KSNAP_FRESH_TICK.
 */
static inline uint64_t ksnap_fresh_longest_ns(uint32_t freshness)
{
	switch (freshness) {
	case KSNAP_FRESH_TICK:
		return 10000000ULL;
	case KSNAP_FRESH_1S:
		return 1000000000ULL;
	case KSNAP_FRESH_2S:
		return 2000000000ULL;
	default:
		return 0;
	}
}

#endif /* KSNAP_COLUMN_H */

/* SPDX-License-Identifier: MIT */
/*
 * --history DURATION with --load PARAMS: the module's ring sized by time.
 * The ring is sized at load in KiB (ring_kb=); ksnapd works that out from
 * the period PARAMS ask for (period_us=, 1000 by default) and the columns
 * (at most: each metric of metrics= once per cgroup of cgroups=; the
 * default metrics are pgfault, pgmajfault, nr_free_pages and one
 * memory.current per cgroup; a list naming a group, as many columns as the
 * module allows), as the module lays records out: a power of two of
 * records of 32 + 8 x columns bytes.
 */
#ifndef KSNAPD_RINGSIZE_H
#define KSNAPD_RINGSIZE_H

#include <stdint.h>

#define RINGSIZE_KB_MIN	64
#define RINGSIZE_KB_MAX	262144

/*
 * ring_kb for span_ns with PARAMS (NULL: none).  Returns the KiB (at
 * least RINGSIZE_KB_MIN), 0 when PARAMS set ring_kb= already, -ERANGE
 * when more than RINGSIZE_KB_MAX would be needed, -EINVAL for a
 * period_us= that is not a number.
 */
long ringsize_kb(uint64_t span_ns, const char *params);

/* How long a ring of nr_records holds at period_ns. */
static inline uint64_t ringsize_span_ns(uint32_t nr_records,
					uint64_t period_ns)
{
	return (uint64_t)nr_records * period_ns;
}

#endif /* KSNAPD_RINGSIZE_H */

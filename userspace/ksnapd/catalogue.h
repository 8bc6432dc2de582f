/* SPDX-License-Identifier: MIT */
/*
 * The module's catalogue of metrics, read through KSNAP_IOC_METRIC on a
 * read-only (query) open of the device, which a running reader does not
 * notice: ksnapd --list-metrics prints it, ksnapd --metrics checks a list
 * against it and suggests a close name for a misspelt one.
 */
#ifndef KSNAPD_CATALOGUE_H
#define KSNAPD_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ksnap_abi.h"

struct catalogue {
	struct ksnap_metric_info *m;
	unsigned int n;
};

/* The named groups of a metrics list; "all" has no KSNAP_GROUP_* bit. */
#define CATALOGUE_GROUP_ALL	0xffffffffU

/*
 * Read the whole catalogue from dev.  Returns 0, or -errno: -ENOTTY from a
 * module without the ioctl, the open's error otherwise.
 */
int catalogue_read(const char *dev, struct catalogue *c);
void catalogue_free(struct catalogue *c);

/* KSNAP_GROUP_* of group name, CATALOGUE_GROUP_ALL, or 0 when none. */
unsigned int catalogue_group(const char *name);

/*
 * One line per metric in groups (a catalogue_group() value), tab
 * separated: name, "cumulative" or "gauge", unit, freshness, field
 * ("cpu", "cgroup" or "-"), description; a header line first when asked.
 * Returns what fprintf() says of the last line (< 0: an error).
 */
int catalogue_print(const struct catalogue *c, unsigned int groups,
		    bool header, FILE *out);

/* Levenshtein distance between a and b (each at most 255 bytes used). */
unsigned int catalogue_distance(const char *a, const char *b);

/* The metric or group name closest to name, or NULL when none is close. */
const char *catalogue_suggest(const struct catalogue *c, const char *name);

/*
 * Each entry of a metrics list ("a,b[cpu],vmstat") against the catalogue:
 * for each unknown one, "ksnapd: <what>: unknown metric 'x': did you mean
 * y?" on log.  Returns the number of unknown entries.
 */
unsigned int catalogue_check_list(const struct catalogue *c,
				  const char *list, const char *what,
				  FILE *log);

#endif /* KSNAPD_CATALOGUE_H */

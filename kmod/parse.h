/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of the comma-separated lists given in metrics= and cgroups= (and
 * written to /sys/kernel/ksnap/{metrics,cgroups}).  Pure functions: the
 * KUnit suite ksnap_parse tests them.
 *
 * Rules: one trailing newline is ignored; an empty or all-blank string is
 * the empty list; entries are separated by ',' and trimmed of blanks; an
 * entry must be non-empty (so no leading, doubled or trailing comma),
 * printable ASCII without blanks, shorter than its maximum length, and
 * unique; at most KSNAP_LIST_MAX entries.
 */
#ifndef KSNAP_PARSE_H
#define KSNAP_PARSE_H

#include <linux/types.h>

#include "ring.h"

#define KSNAP_LIST_MAX	KSNAP_MAX_COLUMNS

struct ksnap_list {
	unsigned int nr;
	const char *item[KSNAP_LIST_MAX];	/* point into the parsed buffer */
};

/* What was wrong, for one log line: "<why> '<bad>'" (no bad if bad_len 0). */
struct ksnap_parse_err {
	const char *why;
	const char *bad;	/* points into the parsed buffer */
	int bad_len;
};

/* Returns the index of a metric name, or a negative errno when unknown. */
typedef int (*ksnap_lookup_fn)(const char *name);

int ksnap_parse_list(char *buf, size_t max_len, struct ksnap_list *list,
		     struct ksnap_parse_err *err);
int ksnap_parse_metrics(char *buf, ksnap_lookup_fn lookup,
			struct ksnap_list *list, u16 *idx,
			struct ksnap_parse_err *err);
int ksnap_parse_cgroups(char *buf, struct ksnap_list *list,
			struct ksnap_parse_err *err);

#endif /* KSNAP_PARSE_H */

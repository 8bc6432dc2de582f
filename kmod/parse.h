/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of the comma-separated lists given in metrics= and cgroups= (and
 * written to the metrics and cgroups attributes).  Pure functions: the
 * KUnit suite ksnap_parse tests them.
 *
 * Rules: one trailing newline is ignored; an empty or all-blank string is
 * the empty list; entries are separated by ',' and trimmed of blanks; an
 * entry must be non-empty (so no leading, doubled or trailing comma),
 * printable ASCII without blanks, shorter than its maximum length, and
 * unique; at most KSNAP_LIST_MAX entries.
 *
 * A metric entry is "name", "name[N]" (CPU N only) or "name[cpu]" (one
 * column per possible CPU); whether the metric allows a CPU is the
 * configuration's business, not the parser's.  A metric named twice must
 * be named by two CPUs ("name[0],name[1]"): any other pair would give it
 * the same column twice, or columns with and without the cpu field.
 *
 * A metric list may also name groups of metrics ("vmstat", "all"): an
 * entry that is not a metric's name is looked up as a group's, and takes
 * no selector.  ksnap_expand_groups() then puts each group's metrics in
 * its place: those not named by a name anywhere in the list, nor brought
 * by an earlier group (duplicates collapse), in table order.
 *
 * A cgroup entry starts with '/' and has no '[' or ']': it becomes the
 * field value of a column ("memory.current[/a/b]").
 */
#ifndef KSNAP_PARSE_H
#define KSNAP_PARSE_H

#include <linux/limits.h>
#include <linux/types.h>

#include "ksnap_abi.h"

#define KSNAP_LIST_MAX	KSNAP_MAX_COLUMNS
/* cgroups=: paths and pattern matches together. */
#define KSNAP_MAX_CGROUPS	2048

struct ksnap_list {
	unsigned int nr;
	const char *item[KSNAP_LIST_MAX];	/* point into the parsed buffer */
};

/* What was wrong, for one log line: "<why> '<bad>'" (no bad if bad_len 0). */
struct ksnap_parse_err {
	const char *why;
	const char *bad;	/* points into the parsed buffer */
	int bad_len;
	unsigned int count;	/* ksnap_expand_groups(): the group's columns */
};

/* Returns the index of a metric name, or a negative errno when unknown. */
typedef int (*ksnap_lookup_fn)(const char *name);
/* The number of a group called name, or a negative errno when none. */
typedef int (*ksnap_group_fn)(const char *name);
/* The columns metric idx gives as a member of group, 0 when it is none. */
typedef unsigned int (*ksnap_member_fn)(void *ctx, unsigned int group,
					unsigned int idx);

int ksnap_parse_list(char *buf, size_t max_len, struct ksnap_list *list,
		     struct ksnap_parse_err *err);
/* ksnap_parse_metric_sel(): no selector, "[cpu]"; else a CPU number. */
#define KSNAP_SEL_NONE		(-1)
#define KSNAP_SEL_EACH_CPU	(-2)
#define KSNAP_SEL_CPU_MAX	S16_MAX
/* ksnap_parse_metrics(): the entry is a group, its idx the group's number */
#define KSNAP_SEL_GROUP		(-3)

int ksnap_parse_metric_sel(const char *entry, char *name, size_t size,
			   int *sel);
int ksnap_parse_metrics(char *buf, ksnap_lookup_fn lookup,
			ksnap_group_fn group, struct ksnap_list *list,
			u16 *idx, s16 *sel, struct ksnap_parse_err *err);

/* ksnap_expand_groups()'s result: the metrics, each from a list entry. */
struct ksnap_selection {
	unsigned int nr;
	u16 idx[KSNAP_LIST_MAX];
	s16 sel[KSNAP_LIST_MAX];
	u16 from[KSNAP_LIST_MAX];	/* the list entry that selected it */
};

int ksnap_expand_groups(const struct ksnap_list *list, const u16 *idx,
			const s16 *sel, unsigned int nr_metrics,
			ksnap_member_fn member, void *ctx,
			unsigned int max_columns, unsigned long *seen,
			struct ksnap_selection *out,
			struct ksnap_parse_err *err);
int ksnap_parse_cgroups(char *buf, struct ksnap_list *list,
			struct ksnap_parse_err *err);
int ksnap_parse_uint(const char *buf, unsigned int *val);
int ksnap_parse_overflow(const char *buf, bool *overwrite);

#endif /* KSNAP_PARSE_H */

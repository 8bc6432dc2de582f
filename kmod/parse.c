// SPDX-License-Identifier: GPL-2.0
/* Metric and cgroup list parsing: see the rules in parse.h. */
#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/stringify.h>

#include "ksnap_abi.h"
#include "parse.h"

static bool ksnap_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void ksnap_parse_fail(struct ksnap_parse_err *err, const char *why,
			     const char *bad, size_t len)
{
	err->why = why;
	err->bad = bad;
	err->bad_len = len;
}

/* Split at ',' and trim one entry in place; returns its length. */
static size_t ksnap_next_entry(char **cursor, char **entry)
{
	char *s = *cursor, *end = strchrnul(s, ',');
	size_t len;

	*cursor = *end ? end + 1 : NULL;
	*end = '\0';
	while (ksnap_blank(*s))
		s++;
	len = strlen(s);
	while (len && ksnap_blank(s[len - 1]))
		s[--len] = '\0';
	*entry = s;
	return len;
}

static bool ksnap_entry_printable(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] <= ' ' || s[i] > '~')	/* char may be signed */
			return false;
	return true;
}

/**
 * ksnap_parse_list() - split a comma-separated list in place
 * @buf: NUL-terminated, modified; the items point into it
 * @max_len: size of the destination of one item, NUL included
 * @list: filled on success
 * @err: filled on failure
 *
 * Return: 0 or -EINVAL.
 */
int ksnap_parse_list(char *buf, size_t max_len, struct ksnap_list *list,
		     struct ksnap_parse_err *err)
{
	char *cursor = buf, *entry;
	size_t len = strlen(buf), n;

	list->nr = 0;
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	for (n = 0; n < len && ksnap_blank(buf[n]); n++)
		;
	if (n == len)
		return 0;

	while (cursor) {
		unsigned int i;

		len = ksnap_next_entry(&cursor, &entry);
		if (!len) {
			ksnap_parse_fail(err,
					 "empty entry (leading, doubled or trailing comma)",
					 entry, 0);
			return -EINVAL;
		}
		if (!ksnap_entry_printable(entry, len)) {
			ksnap_parse_fail(err,
					 "only printable ASCII without blanks allowed:",
					 entry, len);
			return -EINVAL;
		}
		if (len >= max_len) {
			ksnap_parse_fail(err, "entry too long:", entry, len);
			return -EINVAL;
		}
		for (i = 0; i < list->nr; i++) {
			if (!strcmp(list->item[i], entry)) {
				ksnap_parse_fail(err, "duplicate entry", entry,
						 len);
				return -EINVAL;
			}
		}
		if (list->nr == KSNAP_LIST_MAX) {
			ksnap_parse_fail(err, "too many entries, from", entry,
					 len);
			return -EINVAL;
		}
		list->item[list->nr++] = entry;
	}
	return 0;
}

/**
 * ksnap_parse_metric_sel() - split "name[selector]"
 * @entry: one list entry, NUL-terminated
 * @name: receives the name, NUL-terminated
 * @size: room in @name
 * @sel: KSNAP_SEL_NONE, KSNAP_SEL_EACH_CPU ("[cpu]") or a CPU number
 *	 (decimal, 0..KSNAP_SEL_CPU_MAX, no sign or leading zero)
 *
 * Return: 0, or -EINVAL for an empty name, a bad or unclosed selector,
 * or text after the ']'.
 */
int ksnap_parse_metric_sel(const char *entry, char *name, size_t size,
			   int *sel)
{
	const char *open = strchr(entry, '['), *s;
	size_t len = open ? open - entry : strlen(entry);
	long cpu = 0;

	if (!len || len >= size)
		return -EINVAL;
	memcpy(name, entry, len);
	name[len] = '\0';
	*sel = KSNAP_SEL_NONE;
	if (!open)
		return 0;
	s = open + 1;
	if (!strcmp(s, "cpu]")) {
		*sel = KSNAP_SEL_EACH_CPU;
		return 0;
	}
	if (*s < '0' || *s > '9' || (*s == '0' && s[1] != ']'))
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		cpu = cpu * 10 + (*s - '0');
		if (cpu > KSNAP_SEL_CPU_MAX)
			return -EINVAL;
	}
	if (s[0] != ']' || s[1])
		return -EINVAL;
	*sel = cpu;
	return 0;
}

/*
 * A metric named more than once must be named by distinct CPUs only:
 * "name" with "name[...]" would give one metric columns with and without
 * the cpu field (the stream's metadata allows one or the other), and
 * "name[cpu]" with "name[N]" would give two columns "name[N]".
 */
static int ksnap_check_selectors(const struct ksnap_list *list,
				 const u16 *idx, const s16 *sel,
				 unsigned int i, struct ksnap_parse_err *err)
{
	unsigned int j;

	if (sel[i] == KSNAP_SEL_GROUP)
		return 0;
	for (j = 0; j < i; j++) {
		if (sel[j] == KSNAP_SEL_GROUP || idx[j] != idx[i])
			continue;
		if (sel[i] >= 0 && sel[j] >= 0)
			continue;	/* two CPUs; equal ones are duplicates */
		ksnap_parse_fail(err,
				 "metric selected twice (name it once: name, name[cpu], or name[N] for each CPU N):",
				 list->item[i], strlen(list->item[i]));
		return -EINVAL;
	}
	return 0;
}

/**
 * ksnap_parse_metrics() - parse a list of metric and group names
 * @buf: as for ksnap_parse_list()
 * @lookup: maps a name to its index in the metric table
 * @group: maps a name to a group's number, or NULL for no groups
 * @list: filled on success
 * @idx: list->nr indexes (a group's number for a group), KSNAP_LIST_MAX
 *	 slots
 * @sel: list->nr selectors (see ksnap_parse_metric_sel(); KSNAP_SEL_GROUP
 *	 for a group), KSNAP_LIST_MAX slots
 * @err: filled on failure; for an unknown name, err->bad is the name
 *	 without its selector
 *
 * Return: 0, -ENOENT for an unknown name, or -EINVAL for bad syntax.
 */
int ksnap_parse_metrics(char *buf, ksnap_lookup_fn lookup,
			ksnap_group_fn group, struct ksnap_list *list,
			u16 *idx, s16 *sel, struct ksnap_parse_err *err)
{
	char name[KSNAP_METRIC_NAME_MAX];
	unsigned int i;
	int ret, s;

	ret = ksnap_parse_list(buf, KSNAP_METRIC_NAME_MAX, list, err);
	if (ret)
		return ret;
	for (i = 0; i < list->nr; i++) {
		const char *item = list->item[i];

		if (ksnap_parse_metric_sel(item, name, sizeof(name), &s)) {
			ksnap_parse_fail(err,
					 "bad CPU selector (use name, name[N] or name[cpu]):",
					 item, strlen(item));
			return -EINVAL;
		}
		ret = lookup(name);
		if (ret < 0 && group && group(name) >= 0) {
			if (s != KSNAP_SEL_NONE) {
				ksnap_parse_fail(err,
						 "a group takes no selector:",
						 item, strlen(item));
				return -EINVAL;
			}
			s = KSNAP_SEL_GROUP;
			ret = group(name);
		}
		if (ret < 0) {
			ksnap_parse_fail(err, "unknown metric", item,
					 strlen(name));
			return -ENOENT;
		}
		idx[i] = ret;
		sel[i] = s;
		ret = ksnap_check_selectors(list, idx, sel, i, err);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * ksnap_expand_groups() - the metrics a parsed list selects
 * @list: as ksnap_parse_metrics() left it
 * @idx: as ksnap_parse_metrics() left it
 * @sel: as ksnap_parse_metrics() left it
 * @nr_metrics: the size of the metric table
 * @member: the columns a metric gives as a member of a group (0: none)
 * @ctx: @member's
 * @max_columns: the most columns a group may give
 * @seen: a zeroed bitmap of @nr_metrics bits, for scratch
 * @out: receives the metrics in list order, each group's in table order
 * @err: filled on failure; err->bad is the group, err->count its columns
 *
 * A metric named by its name is selected there only; one that several
 * groups have, by the first.
 *
 * Return: 0, or -E2BIG when a group gives more than @max_columns columns
 * or the list more than KSNAP_LIST_MAX metrics.
 */
int ksnap_expand_groups(const struct ksnap_list *list, const u16 *idx,
			const s16 *sel, unsigned int nr_metrics,
			ksnap_member_fn member, void *ctx,
			unsigned int max_columns, unsigned long *seen,
			struct ksnap_selection *out,
			struct ksnap_parse_err *err)
{
	unsigned int i, m, n, cols, total = 0;

	for (i = 0; i < list->nr; i++)
		if (sel[i] != KSNAP_SEL_GROUP)
			__set_bit(idx[i], seen);
	out->nr = 0;
	for (i = 0; i < list->nr; i++) {
		if (sel[i] != KSNAP_SEL_GROUP) {
			total++;
			if (out->nr == KSNAP_LIST_MAX)
				continue;
			out->idx[out->nr] = idx[i];
			out->sel[out->nr] = sel[i];
			out->from[out->nr++] = i;
			continue;
		}
		for (cols = 0, m = 0; m < nr_metrics; m++) {
			if (test_bit(m, seen))
				continue;
			n = member(ctx, idx[i], m);
			if (!n)
				continue;
			cols += n;
			total++;
			__set_bit(m, seen);
			if (out->nr == KSNAP_LIST_MAX)
				continue;	/* counted, for the message */
			out->idx[out->nr] = m;
			out->sel[out->nr] = KSNAP_SEL_NONE;
			out->from[out->nr++] = i;
		}
		if (cols > max_columns) {
			ksnap_parse_fail(err, "too many columns from group",
					 list->item[i], strlen(list->item[i]));
			err->count = cols;
			return -E2BIG;
		}
	}
	if (total > KSNAP_LIST_MAX) {
		ksnap_parse_fail(err, "too many metrics", NULL, 0);
		err->count = total;
		return -E2BIG;
	}
	return 0;
}

/*
 * Each plain path of the comma-separated @buf with repeated '/' collapsed
 * and a trailing one dropped (but the root's), in place, as the kernel's
 * own lookup reads it: "/a//b/" and "/a/b" are then one entry, a
 * duplicate.  A pattern's empty component stays, for its own error.
 */
static void ksnap_paths_tidy(char *buf)
{
	char *r = buf, *w = buf;

	while (*r) {
		size_t n = strcspn(r, ",\n"), i;
		bool pattern = memchr(r, '*', n);
		char *start = w;

		for (i = 0; i < n; i++) {
			if (!pattern && r[i] == '/' && w > start && w[-1] == '/')
				continue;
			*w++ = r[i];
		}
		if (!pattern && w - start > 1 && w[-1] == '/')
			w--;
		r += n;
		if (*r)
			*w++ = *r++;
	}
	*w = '\0';
}

/**
 * ksnap_parse_cgroups() - parse a list of cgroup v2 paths
 * @buf: as for ksnap_parse_list()
 * @list: filled on success
 * @err: filled on failure
 *
 * Paths are relative to the cgroup2 root and start with '/'.  A plain
 * path is kept as the kernel reads it ("/a//b/" is "/a/b"), so two
 * spellings of one path are a duplicate entry.
 *
 * Return: 0 or -EINVAL.
 */
int ksnap_parse_cgroups(char *buf, struct ksnap_list *list,
			struct ksnap_parse_err *err)
{
	unsigned int i;
	int ret;

	ksnap_paths_tidy(buf);
	ret = ksnap_parse_list(buf, KSNAP_FIELD_VALUE_MAX, list, err);
	if (ret)
		return ret;
	if (list->nr > KSNAP_MAX_CGROUPS) {
		ksnap_parse_fail(err,
				 "more than " __stringify(KSNAP_MAX_CGROUPS)
				 " cgroups, from",
				 list->item[KSNAP_MAX_CGROUPS],
				 strlen(list->item[KSNAP_MAX_CGROUPS]));
		return -EINVAL;
	}
	for (i = 0; i < list->nr; i++) {
		if (list->item[i][0] != '/') {
			ksnap_parse_fail(err,
					 "path must start with '/' (relative to the cgroup2 root):",
					 list->item[i], strlen(list->item[i]));
			return -EINVAL;
		}
		/* The path is a column's field value: "name[/path]". */
		if (strpbrk(list->item[i], "[]")) {
			ksnap_parse_fail(err,
					 "a stream column cannot carry '[' or ']' in a path:",
					 list->item[i], strlen(list->item[i]));
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * ksnap_parse_uint() - a strict unsigned decimal, as a knob takes it
 * @buf: NUL-terminated; one trailing newline is allowed
 * @val: receives the value on success
 *
 * Only digits: no sign, no blanks, no leading zero (but "0" itself), no
 * base prefix, nothing after the number but the newline.
 *
 * Return: 0, or -EINVAL (not such a number) or -ERANGE (above UINT_MAX).
 */
int ksnap_parse_uint(const char *buf, unsigned int *val)
{
	const char *s = buf;
	u64 v = 0;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > UINT_MAX)
			return -ERANGE;
	}
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*val = v;
	return 0;
}

/**
 * ksnap_parse_overflow() - "drop" or "overwrite" (and a newline)
 * @buf: NUL-terminated
 * @overwrite: receives true for "overwrite"
 *
 * Return: 0 or -EINVAL.
 */
int ksnap_parse_overflow(const char *buf, bool *overwrite)
{
	if (sysfs_streq(buf, "drop"))
		*overwrite = false;
	else if (sysfs_streq(buf, "overwrite"))
		*overwrite = true;
	else
		return -EINVAL;
	return 0;
}

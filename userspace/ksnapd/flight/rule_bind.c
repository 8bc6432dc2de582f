// SPDX-License-Identifier: MIT
/* Trigger rules: column names to a collection's columns (rule.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgpattern.h"
#include "rule.h"
#include "stream.h"

#define LISTED_COLUMNS	8

void rule_column_name(char *buf, size_t size, const struct ksnap_column *c)
{
	char v[KSNAP_VALUE_MAX(KSNAP_FIELD_VALUE_MAX) + 1];

	if (c->field[0]) {
		/* As the stream's header names it (escaped). */
		*ksnap_put_value(v, c->value, sizeof(c->value)) = '\0';
		snprintf(buf, size, "%.*s[%s]", (int)sizeof(c->metric),
			 c->metric, v);
	} else {
		snprintf(buf, size, "%.*s", (int)sizeof(c->metric), c->metric);
	}
}

/* The index of the column named text[0, len), or -1. */
static int find_column(const char *text, size_t len,
		       const struct ksnap_column *cols, uint32_t n)
{
	char name[KSNAP_METRIC_NAME_MAX +
		  KSNAP_VALUE_MAX(KSNAP_FIELD_VALUE_MAX) + 4];
	uint32_t i;

	for (i = 0; i < n; i++) {
		rule_column_name(name, sizeof(name), &cols[i]);
		if (strlen(name) == len && !strncmp(name, text, len))
			return (int)i;
	}
	return -1;
}

static int unknown_column(const struct rule_node *x, const char *text,
			  const struct ksnap_column *cols, uint32_t n,
			  struct rule_error *e)
{
	char name[KSNAP_METRIC_NAME_MAX +
		  KSNAP_VALUE_MAX(KSNAP_FIELD_VALUE_MAX) + 4];
	size_t o;
	uint32_t i;
	int w;

	e->pos = x->pos;
	w = snprintf(e->msg, sizeof(e->msg), "unknown column '%.*s': "
		     "expected one of the module's columns:", (int)x->len,
		     text + x->pos);
	o = w < 0 ? 0 : (size_t)w;
	for (i = 0; i < n && i < LISTED_COLUMNS && o < sizeof(e->msg); i++) {
		rule_column_name(name, sizeof(name), &cols[i]);
		w = snprintf(e->msg + o, sizeof(e->msg) - o, "%s %s",
			     i ? "," : "", name);
		o += w < 0 ? 0 : (size_t)w;
	}
	if (n > LISTED_COLUMNS && o < sizeof(e->msg))
		snprintf(e->msg + o, sizeof(e->msg) - o, ", ... (%u in all)",
			 n);
	return -EINVAL;
}

/*
 * The columns under node i (a rate()'s argument): each cumulative, and
 * all in ns or none.  *ns is set from the first; *first is -1 until one
 * is found.  Returns 0 or -EINVAL with e set.
 */
static int check_counters(const struct rule *r, int i,
			  const struct ksnap_column *cols, int *first,
			  struct rule_error *e)
{
	const struct rule_node *x = &r->node[i];
	const struct ksnap_column *c;
	int ret = 0;

	if (x->a >= 0)
		ret = check_counters(r, x->a, cols, first, e);
	if (!ret && x->b >= 0)
		ret = check_counters(r, x->b, cols, first, e);
	if (ret || x->op != RULE_COL)
		return ret;
	c = &cols[x->col];
	e->pos = x->pos;
	if (!(c->flags & KSNAP_COL_CUMULATIVE)) {
		snprintf(e->msg, sizeof(e->msg), "rate() of '%.*s', a gauge: "
			 "expected a cumulative counter", (int)x->len,
			 r->text + x->pos);
		return -EINVAL;
	}
	if (*first >= 0 && (cols[*first].flags ^ c->flags) &
	    KSNAP_COL_NANOSECONDS) {
		snprintf(e->msg, sizeof(e->msg), "rate() of '%.*s' mixes "
			 "counters in ns and counters of other units: "
			 "expected one kind", (int)x->len, r->text + x->pos);
		return -EINVAL;
	}
	if (*first < 0)
		*first = (int)x->col;
	return 0;
}

/*
 * A column node's text as metric and bracketed value: its pattern when
 * the value holds a '*' (docs/interface.md, "cgroup patterns"), copied
 * NUL-terminated into pat; false when it names no pattern.
 */
static bool node_pattern(const struct rule *r, const struct rule_node *x,
			 size_t *metric_len, char *pat, size_t size)
{
	const char *t = r->text + x->pos, *open;
	size_t n;

	open = memchr(t, '[', x->len);
	if (!open || t[x->len - 1] != ']')
		return false;
	n = (size_t)(t + x->len - 1 - (open + 1));
	if (!memchr(open + 1, '*', n) || n >= size)
		return false;
	/* Written as the header names cgroups: escaped. */
	ksnap_unescape_value(pat, size, open + 1, n);
	*metric_len = (size_t)(open - t);
	return true;
}

bool rule_has_pattern(const struct rule *r)
{
	char pat[RULE_TEXT_MAX];
	size_t ml;
	int i;

	for (i = 0; i < r->nr_nodes; i++)
		if (r->node[i].op == RULE_COL &&
		    node_pattern(r, &r->node[i], &ml, pat, sizeof(pat)))
			return true;
	return false;
}

/* Does column c have metric t[0, ml) and a cgroup value pat matches? */
static bool column_matches(const struct ksnap_column *c, const char *t,
			   size_t ml, const char *pat)
{
	char v[KSNAP_FIELD_VALUE_MAX + 1];

	if (!c->field[0] || strnlen(c->metric, sizeof(c->metric)) != ml ||
	    strncmp(c->metric, t, ml))
		return false;
	snprintf(v, sizeof(v), "%.*s", (int)sizeof(c->value), c->value);
	return ksnap_cgpattern_match(pat, v, KSNAP_CGPATTERN_DEPTH_MAX);
}

/* Is c's cgroup that of one of the columns out[0, k) of cols? */
static bool cgroup_taken(const struct ksnap_column *cols, const uint32_t *out,
			 uint32_t k, const struct ksnap_column *c)
{
	uint32_t j;

	for (j = 0; j < k; j++)
		if (!strncmp(cols[out[j]].value, c->value, sizeof(c->value)))
			return true;
	return false;
}

int rule_cgroups(const struct rule *r, const struct ksnap_column *cols,
		 uint32_t n, uint32_t *out, uint32_t max)
{
	char pat[RULE_TEXT_MAX];
	uint32_t i, k = 0;
	size_t ml;
	int j;

	for (j = 0; j < r->nr_nodes; j++)
		if (r->node[j].op == RULE_COL &&
		    node_pattern(r, &r->node[j], &ml, pat, sizeof(pat)))
			break;
	if (j == r->nr_nodes)
		return 0;
	for (i = 0; i < n && k < max; i++)
		if (column_matches(&cols[i], r->text + r->node[j].pos, ml,
				   pat) && !cgroup_taken(cols, out, k, &cols[i]))
			out[k++] = i;
	return (int)k;
}

/*
 * The column a pattern node names: metric[cgroup] when cgroup is given
 * (and matches), else the first that matches.  Returns its index, -1 when
 * none, -2 with e set when the pattern is invalid.
 */
static int find_pattern_column(const struct rule *r,
			       const struct rule_node *x, const char *cgroup,
			       const struct ksnap_column *cols, uint32_t n,
			       struct rule_error *e)
{
	const char *t = r->text + x->pos, *why = NULL;
	char pat[RULE_TEXT_MAX], v[KSNAP_FIELD_VALUE_MAX + 1];
	size_t ml;
	uint32_t i;

	node_pattern(r, x, &ml, pat, sizeof(pat));
	if (ksnap_cgpattern_check(pat, &why)) {
		e->pos = x->pos;
		snprintf(e->msg, sizeof(e->msg), "column '%.*s': %s",
			 (int)x->len, t, why);
		return -2;
	}
	for (i = 0; i < n; i++) {
		if (!column_matches(&cols[i], t, ml, pat))
			continue;
		snprintf(v, sizeof(v), "%.*s", (int)sizeof(cols[i].value),
			 cols[i].value);
		if (!cgroup || !strcmp(v, cgroup))
			return (int)i;
	}
	return -1;
}

int rule_bind_cgroup(struct rule *r, const struct ksnap_column *cols,
		     uint32_t n, const char *cgroup, struct rule_error *e)
{
	char pat[RULE_TEXT_MAX];
	struct rule_node *x;
	int i, c, first;
	size_t ml;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < r->nr_nodes; i++) {
		x = &r->node[i];
		if (x->op != RULE_COL)
			continue;
		if (node_pattern(r, x, &ml, pat, sizeof(pat))) {
			c = find_pattern_column(r, x, cgroup, cols, n, e);
			if (c == -2)
				return -EINVAL;
			if (c < 0) {
				e->pos = x->pos;
				snprintf(e->msg, sizeof(e->msg), "no column "
					 "matches '%.*s'%s%s", (int)x->len,
					 r->text + x->pos,
					 cgroup ? " for cgroup " : " now",
					 cgroup ? cgroup : "");
				return -ENOENT;
			}
		} else {
			c = find_column(r->text + x->pos, x->len, cols, n);
		}
		if (c < 0)
			return unknown_column(x, r->text, cols, n, e);
		x->col = (uint32_t)c;
	}
	for (i = 0; i < r->nr_nodes; i++) {
		x = &r->node[i];
		if (x->op != RULE_RATE)
			continue;
		first = -1;
		if (check_counters(r, x->a, cols, &first, e))
			return -EINVAL;
		x->ns = first >= 0 &&
			(cols[first].flags & KSNAP_COL_NANOSECONDS);
	}
	return 0;
}

int rule_bind(struct rule *r, const struct ksnap_column *cols, uint32_t n,
	      struct rule_error *e)
{
	return rule_bind_cgroup(r, cols, n, NULL, e);
}

uint64_t rule_longest_window(const struct rule *r)
{
	uint64_t w = 0;
	int i;

	for (i = 0; i < r->nr_nodes; i++)
		if (r->node[i].win >= 0 && r->node[i].window_ns > w)
			w = r->node[i].window_ns;
	return w;
}

// SPDX-License-Identifier: MIT
/* Trigger rules: column names to a collection's columns (rule.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rule.h"

#define LISTED_COLUMNS	8

void rule_column_name(char *buf, size_t size, const struct ksnap_column *c)
{
	if (c->field[0])
		snprintf(buf, size, "%.*s[%.*s]", (int)sizeof(c->metric),
			 c->metric, (int)sizeof(c->value), c->value);
	else
		snprintf(buf, size, "%.*s", (int)sizeof(c->metric), c->metric);
}

/* The index of the column named text[0, len), or -1. */
static int find_column(const char *text, size_t len,
		       const struct ksnap_column *cols, uint32_t n)
{
	char name[KSNAP_METRIC_NAME_MAX + KSNAP_FIELD_VALUE_MAX + 4];
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
	char name[KSNAP_METRIC_NAME_MAX + KSNAP_FIELD_VALUE_MAX + 4];
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

int rule_bind(struct rule *r, const struct ksnap_column *cols, uint32_t n,
	      struct rule_error *e)
{
	struct rule_node *x;
	int i, c, first;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < r->nr_nodes; i++) {
		x = &r->node[i];
		if (x->op != RULE_COL)
			continue;
		c = find_column(r->text + x->pos, x->len, cols, n);
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

uint64_t rule_longest_window(const struct rule *r)
{
	uint64_t w = 0;
	int i;

	for (i = 0; i < r->nr_nodes; i++)
		if (r->node[i].win >= 0 && r->node[i].window_ns > w)
			w = r->node[i].window_ns;
	return w;
}

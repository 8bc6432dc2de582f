// SPDX-License-Identifier: MIT
/*
 * Trigger rules on every row (rule.h).  The nodes are evaluated in index
 * order, children before parents; rate() and avg() keep the (time, value)
 * of their argument over their window in a ring of their own.
 *
 * rate(X, W): the increase of X from the last row at or before t - W (or
 * the oldest row kept, when there is none yet) to this one, over the
 * time between them: per second, or, for counters in ns, as a share of
 * wall time (1.0 = 100%).  A decrease of X between two rows is a counter
 * reset: that step adds nothing (never a negative rate, never a jump of
 * the whole counter value), and is counted.
 *
 * avg(X, W): the mean of X over the rows in (t - W, t), this row
 * excluded, so that a spike does not raise its own bar.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

/* Rows a window holds: W / period, with room for jitter. */
static uint32_t window_cap(uint64_t window_ns, uint64_t period_ns)
{
	uint64_t n = window_ns / (period_ns ? period_ns : 1);

	n = n + n / 4 + 8;
	return n > (1U << 24) ? (1U << 24) : (uint32_t)n;
}

int rule_eval_init(struct rule_eval *ev, const struct rule *r,
		   uint64_t period_ns)
{
	int i;

	memset(ev, 0, sizeof(*ev));
	ev->r = r;
	ev->val = calloc((size_t)r->nr_nodes + 1, sizeof(*ev->val));
	if (!ev->val)
		goto nomem;
	for (i = 0; i < r->nr_nodes; i++) {
		const struct rule_node *x = &r->node[i];
		struct rule_window *w;

		if (x->win < 0)
			continue;
		w = &ev->win[x->win];
		w->cap = window_cap(x->window_ns, period_ns);
		w->t = malloc((size_t)w->cap * sizeof(*w->t));
		w->v = malloc((size_t)w->cap * sizeof(*w->v));
		if (!w->t || !w->v)
			goto nomem;
	}
	return 0;
nomem:
	rule_eval_fini(ev);
	return -ENOMEM;
}

void rule_eval_fini(struct rule_eval *ev)
{
	int i;

	for (i = 0; i < RULE_MAX_WINDOWS; i++) {
		free(ev->win[i].t);
		free(ev->win[i].v);
	}
	free(ev->val);
	memset(ev, 0, sizeof(*ev));
}

void rule_eval_reset(struct rule_eval *ev)
{
	int i;

	for (i = 0; i < RULE_MAX_WINDOWS; i++) {
		struct rule_window *w = &ev->win[i];

		w->first = w->len = 0;
		w->sum = w->mono = w->last_raw = 0;
		w->have_last = false;
		w->resets = 0;
	}
}

size_t rule_eval_bytes(const struct rule_eval *ev)
{
	size_t n = (size_t)ev->r->nr_nodes * sizeof(double);
	int i;

	for (i = 0; i < RULE_MAX_WINDOWS; i++)
		n += (size_t)ev->win[i].cap * (sizeof(uint64_t) +
					       sizeof(double));
	return n;
}

static uint32_t slot(const struct rule_window *w, uint32_t k)
{
	uint32_t s = w->first + k;

	return s >= w->cap ? s - w->cap : s;
}

static void pop_oldest(struct rule_window *w, bool summed)
{
	if (summed)
		w->sum -= w->v[w->first];
	w->first = slot(w, 1);
	w->len--;
}

static void push(struct rule_window *w, uint64_t t, double v, bool summed)
{
	if (w->len == w->cap)
		pop_oldest(w, summed);	/* only with rows denser than sized */
	w->t[slot(w, w->len)] = t;
	w->v[slot(w, w->len)] = v;
	w->len++;
	if (summed)
		w->sum += v;
}

static double rate(struct rule_window *w, const struct rule_node *x,
		   uint64_t t, double raw)
{
	uint64_t from = t > x->window_ns ? t - x->window_ns : 0;
	uint32_t old;

	if (w->have_last) {
		if (raw >= w->last_raw)
			w->mono += raw - w->last_raw;
		else
			w->resets++;
	}
	w->last_raw = raw;
	w->have_last = true;
	push(w, t, w->mono, false);
	/* Keep one row at or before t - W: the window's start. */
	while (w->len >= 2 && w->t[slot(w, 1)] <= from)
		pop_oldest(w, false);
	if (w->len < 2)
		return NAN;
	old = w->first;
	if (t <= w->t[old])
		return NAN;
	return (w->mono - w->v[old]) / (double)(t - w->t[old]) *
	       (x->ns ? 1.0 : 1e9);
}

static double avg(struct rule_window *w, const struct rule_node *x,
		  uint64_t t, double v)
{
	uint64_t from = t > x->window_ns ? t - x->window_ns : 0;
	double a;

	while (w->len && w->t[w->first] <= from)
		pop_oldest(w, true);
	a = w->len ? w->sum / w->len : NAN;
	push(w, t, v, true);
	return a;
}

static bool truth(double v)
{
	return v != 0 && !isnan(v);
}

static double binop(enum rule_op op, double a, double b)
{
	switch (op) {
	case RULE_ADD: return a + b;
	case RULE_SUB: return a - b;
	case RULE_MUL: return a * b;
	case RULE_DIV: return b != 0 ? a / b : NAN;
	case RULE_LT: return a < b;
	case RULE_LE: return a <= b;
	case RULE_GT: return a > b;
	case RULE_GE: return a >= b;
	case RULE_EQ: return a == b;
	case RULE_NE: return !isnan(a) && !isnan(b) && a != b;
	case RULE_AND: return truth(a) && truth(b);
	case RULE_OR: return truth(a) || truth(b);
	default: return NAN;
	}
}

bool rule_eval_row(struct rule_eval *ev, uint64_t t, const __u64 *v)
{
	const struct rule *r = ev->r;
	double *val = ev->val;
	int i;

	for (i = 0; i < r->nr_nodes; i++) {
		const struct rule_node *x = &r->node[i];

		switch (x->op) {
		case RULE_CONST:
			val[i] = x->k;
			break;
		case RULE_COL:
			val[i] = (double)v[x->col];
			break;
		case RULE_NEG:
			val[i] = -val[x->a];
			break;
		case RULE_RATE:
			val[i] = rate(&ev->win[x->win], x, t, val[x->a]);
			break;
		case RULE_AVG:
			val[i] = avg(&ev->win[x->win], x, t, val[x->a]);
			break;
		default:
			val[i] = binop(x->op, val[x->a], val[x->b]);
		}
	}
	return truth(val[r->root]);
}

/* One "text":value member; NaN is null. */
static size_t member(const struct rule *r, const struct rule_node *x,
		     double v, char *buf, size_t size)
{
	int w;
	size_t o = 0, i;

	if (size < 8)
		return 0;
	buf[o++] = '"';
	for (i = 0; i < x->len && o + 4 < size; i++) {
		char c = r->text[x->pos + i];

		if (c == '"' || c == '\\')
			buf[o++] = '\\';
		buf[o++] = c == '\t' ? ' ' : c;
	}
	w = isnan(v) ? snprintf(buf + o, size - o, "\":null") :
		       snprintf(buf + o, size - o, "\":%.15g", v);
	if (w < 0 || (size_t)w >= size - o)
		return 0;
	return o + (size_t)w;
}

size_t rule_eval_values(const struct rule_eval *ev, char *buf, size_t size)
{
	const struct rule *r = ev->r;
	size_t o = 0, n;
	int i, k;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < r->nr_nodes; i++) {
		const struct rule_node *x = &r->node[i];
		int kid[2] = { x->a, x->b };

		if (x->op < RULE_LT || x->op > RULE_NE)
			continue;
		for (k = 0; k < 2; k++) {
			size_t at = o;

			if (r->node[kid[k]].op == RULE_CONST)
				continue;
			if (o && o + 1 < size)
				buf[o++] = ',';
			n = member(r, &r->node[kid[k]], ev->val[kid[k]],
				   buf + o, size - o);
			if (!n) {
				buf[at] = '\0';
				return at;
			}
			o += n;
		}
	}
	if (o < size)
		buf[o] = '\0';
	return o;
}

// SPDX-License-Identifier: MIT
/*
 * ksnap-plot's data reduction (plot_reduce.h): rates of cumulative
 * counters, min/max buckets whose width doubles as the rows come, and
 * bounded lists of time spans.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plot_reduce.h"

/* --- rates ----------------------------------------------------------- */

bool pr_rate_next(struct pr_rate *r, uint64_t t, uint64_t v, double *rate)
{
	bool ok = r->have_prev && t > r->prev_t && v >= r->prev_v;

	if (r->have_prev && v < r->prev_v)
		r->resets++;
	if (ok)
		*rate = (double)(v - r->prev_v) * 1e9 /
			(double)(t - r->prev_t);
	r->have_prev = true;
	r->prev_t = t;
	r->prev_v = v;
	return ok;
}

/* --- buckets --------------------------------------------------------- */

int pr_buckets_init(struct pr_buckets *b, uint32_t nb, uint32_t ns)
{
	size_t cells;

	memset(b, 0, sizeof(*b));
	nb = nb < 2 ? 2 : (nb + 1) & ~1U;
	b->nb = nb;
	b->ns = ns;
	b->w = 1;
	cells = (size_t)nb * (ns ? ns : 1);
	b->cnt = calloc(nb, sizeof(*b->cnt));
	b->t_first = calloc(nb, sizeof(*b->t_first));
	b->t_last = calloc(nb, sizeof(*b->t_last));
	b->min = calloc(cells, sizeof(*b->min));
	b->max = calloc(cells, sizeof(*b->max));
	b->flags = calloc(cells, sizeof(*b->flags));
	if (!b->cnt || !b->t_first || !b->t_last || !b->min || !b->max ||
	    !b->flags) {
		pr_buckets_free(b);
		return -ENOMEM;
	}
	return 0;
}

void pr_buckets_free(struct pr_buckets *b)
{
	free(b->cnt);
	free(b->t_first);
	free(b->t_last);
	free(b->min);
	free(b->max);
	free(b->flags);
	memset(b, 0, sizeof(*b));
}

/* Series s of bucket `to` becomes bucket a then bucket c, merged (a is
 * the earlier; either may have no value).  Ties keep the earlier. */
static void merge_cell(struct pr_buckets *b, size_t to, size_t a, size_t c)
{
	uint8_t fa = b->flags[a], fc = b->flags[c];
	bool min_late, max_late;
	double mn, mx;

	if (!(fc & PR_HAS)) {
		b->min[to] = b->min[a];
		b->max[to] = b->max[a];
		b->flags[to] = fa;
		return;
	}
	if (!(fa & PR_HAS)) {
		b->min[to] = b->min[c];
		b->max[to] = b->max[c];
		b->flags[to] = fc;
		return;
	}
	min_late = b->min[c] < b->min[a];
	max_late = b->max[c] > b->max[a];
	mn = min_late ? b->min[c] : b->min[a];
	mx = max_late ? b->max[c] : b->max[a];
	b->min[to] = mn;
	b->max[to] = mx;
	if (min_late == max_late)	/* both from one half: its order */
		b->flags[to] = min_late ? fc : fa;
	else				/* the one from the later half last */
		b->flags[to] = PR_HAS | (min_late ? PR_MAX_FIRST : 0);
}

void pr_buckets_halve(struct pr_buckets *b)
{
	uint32_t i, half = b->nb / 2, s;

	for (i = 0; i < half; i++) {
		uint32_t a = 2 * i, c = 2 * i + 1;

		for (s = 0; s < b->ns; s++)
			merge_cell(b, (size_t)i * b->ns + s,
				   (size_t)a * b->ns + s,
				   (size_t)c * b->ns + s);
		if (!b->cnt[a]) {
			b->t_first[i] = b->t_first[c];
		} else {
			b->t_first[i] = b->t_first[a];
		}
		b->t_last[i] = b->cnt[c] ? b->t_last[c] : b->t_last[a];
		b->cnt[i] = b->cnt[a] + b->cnt[c];
	}
	for (i = half; i < b->nb; i++) {
		b->cnt[i] = 0;
		for (s = 0; s < b->ns; s++)
			b->flags[(size_t)i * b->ns + s] = 0;
	}
	b->w *= 2;
}

void pr_buckets_coarsen(struct pr_buckets *b)
{
	if (b->nb < 4)
		return;
	pr_buckets_halve(b);
	b->nb = (b->nb / 2 + 1) & ~1U;
}

void pr_buckets_push(struct pr_buckets *b, uint64_t t, const double *v,
		     const bool *has)
{
	uint64_t k;
	uint32_t s;

	if (!b->started) {
		b->started = true;
		b->t0 = t;
	}
	if (t < b->t0)		/* not in time order: the first bucket */
		t = b->t0;
	while ((k = (t - b->t0) / b->w) >= b->nb)
		pr_buckets_halve(b);
	if (!b->cnt[k]++)
		b->t_first[k] = t;
	b->t_last[k] = t;
	b->rows++;
	for (s = 0; s < b->ns; s++) {
		size_t i = (size_t)k * b->ns + s;

		if (!has[s])
			continue;
		if (!(b->flags[i] & PR_HAS)) {
			b->min[i] = b->max[i] = v[s];
			b->flags[i] = PR_HAS;
		} else if (v[s] < b->min[i]) {
			b->min[i] = v[s];	/* the minimum comes last */
			b->flags[i] |= PR_MAX_FIRST;
		} else if (v[s] > b->max[i]) {
			b->max[i] = v[s];	/* the maximum comes last */
			b->flags[i] &= (uint8_t)~PR_MAX_FIRST;
		}
	}
}

uint32_t pr_buckets_used(const struct pr_buckets *b)
{
	uint32_t i, n = 0;

	for (i = 0; i < b->nb; i++)
		n += b->cnt[i] != 0;
	return n;
}

uint64_t pr_buckets_points(const struct pr_buckets *b)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < b->nb; i++)
		n += b->cnt[i] > 1 ? 2 : b->cnt[i];
	return n;
}

int pr_buckets_each(const struct pr_buckets *b, uint32_t s,
		    int (*fn)(void *priv, uint64_t t, double v, bool has),
		    void *priv)
{
	uint32_t i;
	int ret = 0;

	if (s >= b->ns)
		return -EINVAL;
	for (i = 0; i < b->nb && !ret; i++) {
		size_t c = (size_t)i * b->ns + s;
		bool has = b->flags[c] & PR_HAS;
		bool max_first = b->flags[c] & PR_MAX_FIRST;

		if (!b->cnt[i])
			continue;
		ret = fn(priv, b->t_first[i],
			 max_first ? b->max[c] : b->min[c], has);
		if (!ret && b->cnt[i] > 1)
			ret = fn(priv, b->t_last[i],
				 max_first ? b->min[c] : b->max[c], has);
	}
	return ret;
}

/* --- spans ----------------------------------------------------------- */

int pr_spans_init(struct pr_spans *sp, size_t cap)
{
	memset(sp, 0, sizeof(*sp));
	sp->cap = cap < 2 ? 2 : cap;
	sp->s = calloc(sp->cap, sizeof(*sp->s));
	return sp->s ? 0 : -ENOMEM;
}

void pr_spans_free(struct pr_spans *sp)
{
	free(sp->s);
	memset(sp, 0, sizeof(*sp));
}

static void span_join(struct pr_span *to, const struct pr_span *a,
		      const struct pr_span *b)
{
	struct pr_span j = {
		.t0 = a->t0 < b->t0 ? a->t0 : b->t0,
		.t1 = a->t1 > b->t1 ? a->t1 : b->t1,
		.n = a->n + b->n,
	};

	*to = j;
}

void pr_spans_add(struct pr_spans *sp, uint64_t t0, uint64_t t1, uint64_t n)
{
	struct pr_span s = { .t0 = t0 < t1 ? t0 : t1, .t1 = t0 < t1 ? t1 : t0,
			     .n = n };
	size_t i;

	sp->given++;
	sp->total += n;
	/* Touching the last one: the same span, longer. */
	if (sp->len && s.t0 <= sp->s[sp->len - 1].t1 &&
	    s.t1 >= sp->s[sp->len - 1].t0) {
		span_join(&sp->s[sp->len - 1], &sp->s[sp->len - 1], &s);
		return;
	}
	if (sp->len == sp->cap) {
		for (i = 0; i + 1 < sp->len; i += 2)
			span_join(&sp->s[i / 2], &sp->s[i], &sp->s[i + 1]);
		if (sp->len % 2)
			sp->s[i / 2] = sp->s[i];
		sp->len = (sp->len + 1) / 2;
	}
	sp->s[sp->len++] = s;
}

// SPDX-License-Identifier: MIT
/* Window aggregates in a ring of sub-windows (window.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

int window_init(struct window *w, unsigned int nr_series, unsigned int nr_sub,
		uint64_t window_ns)
{
	memset(w, 0, sizeof(*w));
	if (!nr_sub || window_ns < nr_sub)
		return -EINVAL;
	w->nr_series = nr_series;
	w->nr_sub = nr_sub;
	w->nr_slot = nr_sub + 1;
	/* Rounded up: nr_sub of them span at least window_ns. */
	w->width_ns = window_ns / nr_sub + !!(window_ns % nr_sub);
	if (!nr_series)
		return 0;
	w->slot = calloc((size_t)nr_series * w->nr_slot, sizeof(*w->slot));
	w->ref = calloc(nr_series, sizeof(*w->ref));
	if (!w->slot || !w->ref) {
		window_fini(w);
		return -ENOMEM;
	}
	return 0;
}

void window_fini(struct window *w)
{
	free(w->slot);
	free(w->ref);
	w->slot = NULL;
	w->ref = NULL;
	w->nr_series = 0;
}

/* Series i's slot for t_ns, emptied when it held an older sub-window. */
static struct window_slot *slot_at(struct window *w, unsigned int i,
				   uint64_t t_ns)
{
	uint64_t k = t_ns / w->width_ns;
	struct window_slot *s = &w->slot[(size_t)i * w->nr_slot +
					 k % w->nr_slot];

	if (s->epoch != k + 1) {
		s->epoch = k + 1;
		s->have = false;
	}
	return s;
}

static void put(struct window_slot *s, uint64_t t_ns, double v)
{
	if (!s->have) {
		s->max = s->min = v;
		s->max_t = t_ns;
		s->have = true;
		return;
	}
	if (v > s->max) {
		s->max = v;
		s->max_t = t_ns;
	}
	if (v < s->min)
		s->min = v;
}

void window_sample(struct window *w, unsigned int i, uint64_t t_ns, double v)
{
	if (i >= w->nr_series)
		return;
	put(slot_at(w, i, t_ns), t_ns, v);
}

void window_counter(struct window *w, unsigned int i, uint64_t t_ns,
		    uint64_t v, uint64_t interval_ns)
{
	struct window_slot *s;
	struct window_ref *r;

	if (i >= w->nr_series)
		return;
	s = slot_at(w, i, t_ns);
	r = &w->ref[i];
	if (!interval_ns)
		interval_ns = 1;
	if (!r->have || v < r->value || t_ns < r->t_ns) {
		r->t_ns = t_ns;
		r->value = v;
		r->have = true;
		return;
	}
	if (t_ns - r->t_ns < interval_ns)
		return;
	put(s, t_ns, (double)(v - r->value) * 1e9 / (double)(t_ns - r->t_ns));
	r->t_ns = t_ns;
	r->value = v;
}

bool window_query_peak(const struct window *w, unsigned int i,
		       uint64_t now_ns, double *max, double *min, bool *have,
		       uint64_t *max_t)
{
	uint64_t now_k = now_ns / (w->width_ns ? w->width_ns : 1);
	bool seen = false;
	unsigned int j;

	*have = false;
	*max = *min = 0;
	*max_t = 0;
	if (i >= w->nr_series)
		return false;
	for (j = 0; j < w->nr_slot; j++) {
		const struct window_slot *s = &w->slot[(size_t)i * w->nr_slot +
						       j];
		uint64_t k;

		if (!s->epoch)
			continue;
		k = s->epoch - 1;
		/* In [now_k - nr_sub, now_k]; a later one (a clock that
		 * went back) counts as now's. */
		if (k + w->nr_sub < now_k)
			continue;
		seen = true;
		if (!s->have)
			continue;
		/* The sub-windows are in ring order, not in time order. */
		if (!*have || s->max > *max ||
		    (s->max == *max && s->max_t < *max_t)) {
			*max = s->max;
			*max_t = s->max_t;
		}
		if (!*have || s->min < *min)
			*min = s->min;
		*have = true;
	}
	return seen;
}

bool window_query(const struct window *w, unsigned int i, uint64_t now_ns,
		  double *max, double *min, bool *have)
{
	uint64_t max_t;

	return window_query_peak(w, i, now_ns, max, min, have, &max_t);
}

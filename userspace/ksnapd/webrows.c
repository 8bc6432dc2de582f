// SPDX-License-Identifier: MIT
/*
 * The consumer half of ksnapd's OpenMetrics endpoint (webrows.h): the
 * rows of the ring into layouts, windows and last values, removed
 * cgroups, and the exposition rendered from them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"
#include "webrows.h"

/*
 * A series' column: its name across column sets (metric, field, value),
 * and what its family needs once the set no longer has it.
 */
struct web_key {
	const char *metric, *field, *value, *description;
	uint32_t flags, freshness;
	uint64_t refresh_ns;
};

/* A collection's layout, shared by the drain and the scrapes. */
struct web_layout {
	unsigned int refs;		/* under web.lock */
	struct om_layout om;
	/* The records' columns: a series of a column past them is one an
	 * earlier set had, kept until its window has passed. */
	unsigned int nr_values;
	/* Per series: */
	double *scale;
	uint64_t *interval_ns;		/* a counter's rate interval; 0: gauge */
	const char **cgroup;		/* its cgroup's path, or NULL */
	bool *gone;			/* its cgroup was removed, or its set
					 * no longer has it: not fed */
	bool *removed;			/* its cgroup was removed: no current
					 * value either */
	/* The series of a cgroup, sorted by its path (by_cgroup_cmp()). */
	unsigned int *by_cgroup;
	unsigned int nr_by_cgroup;
	struct web_key *key;
	char *strings;			/* key[]'s */
	/* A histogram family's series' histograms (in hists), else NULL;
	 * written by the drain under web.lock. */
	struct om_hist **hist;
	struct om_hist *hists;
};

/* --- layouts ------------------------------------------------------------ */

static void layout_free(struct web_layout *l)
{
	if (!l)
		return;
	om_layout_free(&l->om);
	free(l->scale);
	free(l->interval_ns);
	free(l->cgroup);
	free(l->gone);
	free(l->removed);
	free(l->by_cgroup);
	free(l->key);
	free(l->strings);
	free(l->hist);
	free(l->hists);
	free(l);
}

/* Under w->lock; frees it (after the unlock: *dead) on the last one. */
static void layout_put(struct web_layout *l, struct web_layout **dead)
{
	if (l && !--l->refs)
		*dead = l;
}

/*
 * A counter's rate interval: WEB_RATE_REFRESHES of its refreshes (the
 * kernel's tick for a tick-counted one, as the module says), at least the
 * period.  A value updated every refresh_ns moves in steps of up to a
 * refresh's worth, and a delta over an interval can hold one step more
 * than the interval's own: over ten refreshes, a peak reads at most 10%
 * high.  A live counter's is the period.
 */
static uint64_t rate_interval(uint64_t refresh_ns, uint64_t period_ns)
{
	uint64_t f = refresh_ns * WEB_RATE_REFRESHES;

	if (f < period_ns)
		f = period_ns;
	return f ? f : 1;
}

static char *put_string(char **p, const char *s)
{
	char *at = *p;
	size_t n = strlen(s) + 1;

	memcpy(at, s, n);
	*p += n;
	return at;
}

/* The keys of l's series, of columns cols. */
static int layout_keys(struct web_layout *l, const struct ksnap_column *cols)
{
	unsigned int j;
	size_t len = 1;
	char *p;

	for (j = 0; j < l->om.nr_series; j++) {
		const struct ksnap_column *col = &cols[l->om.series[j].column];

		len += strlen(col->metric) + strlen(col->field) +
		       strlen(col->value) + strlen(col->description) + 4;
	}
	l->key = calloc(l->om.nr_series + 1, sizeof(*l->key));
	l->strings = malloc(len);
	if (!l->key || !l->strings)
		return -ENOMEM;
	p = l->strings;
	for (j = 0; j < l->om.nr_series; j++) {
		const struct ksnap_column *col = &cols[l->om.series[j].column];
		struct web_key *k = &l->key[j];

		k->metric = put_string(&p, col->metric);
		k->field = put_string(&p, col->field);
		k->value = put_string(&p, col->value);
		k->description = put_string(&p, col->description);
		k->flags = col->flags;
		k->freshness = col->freshness;
		k->refresh_ns = col->refresh_ns;
	}
	return 0;
}

/* A series and its cgroup's path, to sort by_cgroup[]. */
struct cg_ref {
	const char *path;
	unsigned int series;
};

static int by_path(const void *a, const void *b)
{
	const struct cg_ref *x = a, *y = b;
	int r = strcmp(x->path, y->path);

	return r ? r : (x->series > y->series) - (x->series < y->series);
}

/* l->by_cgroup sorted by the series' cgroup path.  Returns 0 or -ENOMEM. */
static int sort_by_cgroup(struct web_layout *l)
{
	struct cg_ref *r = calloc(l->nr_by_cgroup + 1, sizeof(*r));
	unsigned int k;

	if (!r)
		return -ENOMEM;
	for (k = 0; k < l->nr_by_cgroup; k++)
		r[k] = (struct cg_ref){ l->cgroup[l->by_cgroup[k]],
					l->by_cgroup[k] };
	qsort(r, l->nr_by_cgroup, sizeof(*r), by_path);
	for (k = 0; k < l->nr_by_cgroup; k++)
		l->by_cgroup[k] = r[k].series;
	free(r);
	return 0;
}

/*
 * The layout of n columns, the records' nr_values first (the others are
 * an earlier set's: their series are not fed).
 */
static int layout_new(struct web *w, const struct ksnap_column *cols,
		      unsigned int n, unsigned int nr_values,
		      uint64_t period_ns, struct web_layout **out)
{
	struct web_layout *l = calloc(1, sizeof(*l));
	unsigned int i, j, nr_hist;
	int ret;

	if (!l)
		return -ENOMEM;
	l->refs = 1;
	l->nr_values = nr_values;
	ret = om_layout_build(&l->om, cols, n, w->cfg.patterns);
	l->om.peak_times = w->cfg.peak_times;
	if (ret) {
		free(l);
		return ret;
	}
	l->scale = calloc(l->om.nr_series + 1, sizeof(*l->scale));
	l->interval_ns = calloc(l->om.nr_series + 1, sizeof(*l->interval_ns));
	l->cgroup = calloc(l->om.nr_series + 1, sizeof(*l->cgroup));
	l->gone = calloc(l->om.nr_series + 1, sizeof(*l->gone));
	l->removed = calloc(l->om.nr_series + 1, sizeof(*l->removed));
	l->by_cgroup = calloc(l->om.nr_series + 1, sizeof(*l->by_cgroup));
	l->hist = calloc(l->om.nr_series + 1, sizeof(*l->hist));
	nr_hist = om_layout_histograms(&l->om, w->cfg.histograms,
				       &w->cfg.hist_spec);
	if (nr_hist)
		l->hists = calloc(l->om.nr_series + 1, sizeof(*l->hists));
	if (!l->scale || !l->interval_ns || !l->cgroup || !l->gone ||
	    !l->removed || !l->by_cgroup || !l->hist || (nr_hist && !l->hists) || layout_keys(l, cols)) {
		layout_free(l);
		return -ENOMEM;
	}
	for (i = 0; i < l->om.nr_fam; i++) {
		const struct om_family *f = &l->om.fam[i];

		for (j = f->first; j < f->first + f->nr; j++) {
			const struct web_key *k = &l->key[j];

			l->scale[j] = f->scale;
			if (!strcmp(k->field, "cgroup"))
				l->cgroup[j] = k->value;
			l->interval_ns[j] = f->counter ?
				rate_interval(k->refresh_ns, period_ns) : 0;
			if (j == f->first)
				l->om.fam[i].rate_interval_ns =
					l->interval_ns[j];
			l->gone[j] = l->om.series[j].column >= nr_values;
			if (f->hist)
				l->hist[j] = &l->hists[j];
			if (l->cgroup[j])
				l->by_cgroup[l->nr_by_cgroup++] = j;
		}
	}
	if (sort_by_cgroup(l)) {
		layout_free(l);
		return -ENOMEM;
	}
	*out = l;
	return 0;
}

/*
 * The series of cgroup path in l: *first in l->by_cgroup, and how many
 * (0: none).
 */
static unsigned int cgroup_series(const struct web_layout *l,
				  const char *path, unsigned int *first)
{
	unsigned int lo = 0, hi = l->nr_by_cgroup, end;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (strcmp(l->cgroup[l->by_cgroup[mid]], path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < l->nr_by_cgroup &&
	     !strcmp(l->cgroup[l->by_cgroup[end]], path); end++)
		;
	*first = lo;
	return end - lo;
}

/* Mark the n series of a cgroup from by_cgroup[first] removed (true: not
 * fed, no current value) or there again (fed if their set has them). */
static void mark_removed(struct web_layout *l, unsigned int first,
			 unsigned int n, bool removed)
{
	unsigned int k;

	for (k = first; k < first + n; k++) {
		unsigned int j = l->by_cgroup[k];

		l->removed[j] = removed;
		l->gone[j] = removed || l->om.series[j].column >= l->nr_values;
	}
}

/* --- a column set change ------------------------------------------------ */

static int key_cmp(const char *m1, const char *f1, const char *v1,
		   const char *m2, const char *f2, const char *v2)
{
	int r = strcmp(m1, m2);

	if (!r)
		r = strcmp(f1, f2);
	return r ? r : strcmp(v1, v2);
}

static int by_key(const void *a, const void *b)
{
	const struct web_key *x = *(const struct web_key *const *)a;
	const struct web_key *y = *(const struct web_key *const *)b;

	return key_cmp(x->metric, x->field, x->value, y->metric, y->field,
		       y->value);
}

/* Series of l by key (keys of l, sorted), or -1. */
static int find_key(const struct web_layout *l, const struct web_key **sorted,
		    const char *metric, const char *field, const char *value)
{
	const struct web_key probe = { .metric = metric, .field = field,
				       .value = value };
	const struct web_key *p = &probe, **hit;

	hit = bsearch(&p, sorted, l->om.nr_series, sizeof(*sorted), by_key);
	return hit ? (int)(*hit - l->key) : -1;
}

static void column_of(struct ksnap_column *col, const struct web_key *k)
{
	snprintf(col->metric, sizeof(col->metric), "%s", k->metric);
	snprintf(col->field, sizeof(col->field), "%s", k->field);
	snprintf(col->value, sizeof(col->value), "%s", k->value);
	snprintf(col->description, sizeof(col->description), "%s",
		 k->description);
	col->flags = k->flags;
	col->freshness = k->freshness;
	col->refresh_ns = k->refresh_ns;
}

/*
 * What the new layout l takes from the old one, old (its series' keys
 * sorted): each series' window, reference and last value; a series frozen
 * because its cgroup was removed stays so while its directory is gone, one
 * an earlier set left out is fed again.
 */
static void carry(const struct web *w, const struct web_layout *old,
		  const struct web_key **sorted, struct web_layout *l,
		  struct window *win, uint64_t *last)
{
	unsigned int j, nr_slot = win->nr_slot;

	for (j = 0; j < l->om.nr_series; j++) {
		const struct web_key *k = &l->key[j];
		int i = find_key(old, sorted, k->metric, k->field, k->value);

		if (i < 0)
			continue;
		memcpy(&win->slot[(size_t)j * nr_slot],
		       &w->win.slot[(size_t)i * nr_slot],
		       nr_slot * sizeof(*win->slot));
		win->ref[j] = w->win.ref[i];
		last[j] = w->last[i];
		if (l->hist[j] && old->hist[i])
			*l->hist[j] = *old->hist[i];
		/* watch() looks whether it is back. */
		l->removed[j] = old->removed[i];
		l->gone[j] = l->gone[j] || l->removed[j];
	}
}

/*
 * Watch the cgroups of the new layout l that the old one (or NULL) did
 * not watch: a new cgroup, or one removed (looked for: it may be back).
 * With look (the records already say a sampled cgroup is gone), a new
 * one is looked for too.  One that is gone has its series marked
 * removed.
 */
static void watch(struct web *w, const struct web_layout *old,
		  struct web_layout *l, bool look)
{
	unsigned int k, n, first, ofirst;

	for (k = 0; k < l->nr_by_cgroup; k += n) {
		const char *path = l->cgroup[l->by_cgroup[k]];
		bool was = false;

		n = cgroup_series(l, path, &first);
		if (old && cgroup_series(old, path, &ofirst)) {
			was = old->removed[old->by_cgroup[ofirst]];
			if (!was)
				continue;
		}
		mark_removed(l, first, n, cgwatch_add(&w->cgw, path) ==
				-ENOENT || ((look || was) &&
					    !cgwatch_exists(&w->cgw, path)));
	}
}

/*
 * The columns of the next set, c's, and after them those of the old
 * layout's series that c no longer has and that are still in the window:
 * *cols (c->columns when there are none: *extra 0, else to free()).
 */
static int columns_kept(const struct web *w, const struct web_layout *old,
			const struct web_key **sorted,
			const struct ksnap_coll *c,
			struct ksnap_column **cols, unsigned int *extra)
{
	uint64_t now = web_now_ns();
	unsigned int i, n = 0;
	bool *found;
	int ret = 0;

	*cols = c->columns;
	*extra = 0;
	found = calloc(old->om.nr_series + 1, sizeof(*found));
	if (!found)
		return -ENOMEM;
	for (i = 0; i < c->nr_columns; i++) {
		const struct ksnap_column *col = &c->columns[i];
		int at = find_key(old, sorted, col->metric, col->field,
				  col->value);

		if (at >= 0)
			found[at] = true;
	}
	for (i = 0; i < old->om.nr_series; i++) {
		double max, min;
		bool have;

		found[i] = found[i] ||
			   !window_query(&w->win, i, now, &max, &min, &have);
		n += !found[i];
	}
	if (n) {
		*cols = calloc((size_t)c->nr_columns + n, sizeof(**cols));
		if (!*cols) {
			*cols = c->columns;
			ret = -ENOMEM;
			goto out;
		}
		memcpy(*cols, c->columns, c->nr_columns * sizeof(**cols));
		for (i = 0; i < old->om.nr_series; i++)
			if (!found[i])
				column_of(&(*cols)[c->nr_columns + (*extra)++],
					  &old->key[i]);
	}
out:
	free(found);
	return ret;
}

/* Whether column col is a series this collection already skipped. */
static bool skipped_before(const struct web *w, const struct ksnap_column *col)
{
	unsigned int i;

	for (i = 0; i < w->nr_skipped; i++) {
		const char *m = w->skipped[i];
		const char *f = m + strlen(m) + 1;
		const char *v = f + strlen(f) + 1;

		if (!key_cmp(m, f, v, col->metric, col->field, col->value))
			return true;
	}
	return false;
}

/*
 * The series l skipped that this collection had not (all of them at a
 * new collection: fresh), remembered; *n says how many.
 */
static int count_skipped(struct web *w, const struct web_layout *l,
			 const struct ksnap_column *cols, bool fresh,
			 uint64_t *n)
{
	unsigned int i;
	char **more;

	*n = 0;
	if (fresh) {
		for (i = 0; i < w->nr_skipped; i++)
			free(w->skipped[i]);
		w->nr_skipped = 0;
	}
	for (i = 0; i < l->om.skipped_utf8; i++) {
		const struct ksnap_column *col = &cols[l->om.skipped_col[i]];
		size_t lm = strlen(col->metric) + 1, lf = strlen(col->field) + 1;
		size_t lv = strlen(col->value) + 1;
		char *k;

		if (skipped_before(w, col))
			continue;
		more = realloc(w->skipped, (w->nr_skipped + 1) *
				sizeof(*w->skipped));
		if (!more)
			return -ENOMEM;
		w->skipped = more;
		k = malloc(lm + lf + lv);
		if (!k)
			return -ENOMEM;
		memcpy(k, col->metric, lm);
		memcpy(k + lm, col->field, lf);
		memcpy(k + lm + lf, col->value, lv);
		w->skipped[w->nr_skipped++] = k;
		(*n)++;
	}
	return 0;
}

/*
 * The layout, window and last values of collection c: new ones, or, at a
 * set change (split), the old ones carried over to c's columns.
 */
static int layout_for(struct web *w, const struct ksnap_coll *c, bool split,
		      struct web_layout **lp, struct window *win,
		      uint64_t **lastp, uint64_t *skipped)
{
	const struct web_layout *old = split ? w->layout : NULL;
	const struct web_key **sorted = NULL;
	struct ksnap_column *cols = c->columns;
	struct web_layout *l = NULL;
	unsigned int i, extra = 0;
	uint64_t *last = NULL;
	int ret = 0;

	memset(win, 0, sizeof(*win));
	if (old) {
		sorted = calloc(old->om.nr_series + 1, sizeof(*sorted));
		if (!sorted) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < old->om.nr_series; i++)
			sorted[i] = &old->key[i];
		qsort(sorted, old->om.nr_series, sizeof(*sorted), by_key);
		ret = columns_kept(w, old, sorted, c, &cols, &extra);
	}
	if (!ret)
		ret = layout_new(w, cols, c->nr_columns + extra, c->nr_columns,
				 c->period_ns, &l);
	if (!ret)
		ret = window_init(win, l->om.nr_series, WINDOW_NR_SUB,
				  w->cfg.window_ns);
	if (!ret) {
		last = calloc(l->om.nr_series + 1, sizeof(*last));
		if (!last)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = count_skipped(w, l, cols, !old, skipped);
	if (ret)
		goto out;
	if (old)
		carry(w, old, sorted, l, win, last);
	watch(w, old, l, old && w->stale);
	*lp = l;
	*lastp = last;
	l = NULL;
	last = NULL;
out:
	if (ret)
		window_fini(win);
	free(last);
	layout_free(l);
	if (cols != c->columns)
		free(cols);
	free(sorted);
	return ret;
}

/* --- the consumer ------------------------------------------------------- */

static int web_begin(void *self, const struct ksnap_coll *c,
		     uint64_t first_position)
{
	struct web *w = self;
	struct web_layout *l = NULL, *dead = NULL;
	bool split = w->split && w->layout &&
		     w->generation == c->generation;
	struct window win, old_win;
	uint64_t *last = NULL, *old_last, skipped = 0;
	int ret;

	(void)first_position;
	w->split = false;
	ret = layout_for(w, c, split, &l, &win, &last, &skipped);
	if (ret) {
		snprintf(w->err, w->errlen, "web: the collection's series: %s",
			 strerror(-ret));
		return ret;
	}
	pthread_mutex_lock(&w->lock);
	layout_put(w->layout, &dead);
	w->layout = l;
	old_win = w->win;
	w->win = win;
	old_last = w->last;
	w->last = last;
	w->self.skipped_utf8 += skipped;
	if (!split) {
		w->start_mono_ns = c->start_mono_ns;
		w->self.running = true;
		__atomic_add_fetch(&w->epoch, 1, __ATOMIC_RELEASE);
		w->self.period_seconds = (double)c->period_ns * 1e-9;
		w->self.taken = w->self.lost = w->self.missed = 0;
		w->self.thinned = 0;
		w->self.cgroups_skipped = 0;
		w->self.read_sum_ns = w->self.read_max_ns = 0;
		w->self.lateness_sum_ns = w->self.lateness_max_ns = 0;
		w->stale = false;
		w->stale_looked = false;
		w->stale_checked_ns = 0;
	}
	pthread_mutex_unlock(&w->lock);
	w->generation = c->generation;
	window_fini(&old_win);
	free(old_last);
	layout_free(dead);
	return 0;
}

static int web_row(void *self, const struct ksnap_record *rec)
{
	struct web *w = self;
	const struct web_layout *l;
	unsigned int i;
	uint64_t t;

	pthread_mutex_lock(&w->lock);
	l = w->layout;
	t = w->start_mono_ns + rec->time_ns;
	if (rec->flags & KSNAP_REC_STALE)
		w->stale = true;
	for (i = 0; l && i < l->om.nr_series; i++) {
		uint64_t v;

		/* An earlier set's: no value here. */
		if (l->om.series[i].column >= l->nr_values)
			continue;
		v = rec->values[l->om.series[i].column];
		w->last[i] = v;
		/* Frozen: left to age out of the window. */
		if (l->gone[i])
			continue;
		if (l->interval_ns[i])
			window_counter(&w->win, i, t, v, l->interval_ns[i]);
		else
			window_sample(&w->win, i, t,
				      om_gauge_value(v, l->scale[i]));
		if (l->hist[i])
			om_hist_observe(&l->om.hspec, l->hist[i],
					om_gauge_value(v, l->scale[i]));
	}
	pthread_mutex_unlock(&w->lock);
	return 0;
}

/* A removal the watcher saw: its cgroup's series are marked removed. */
static void cgroup_gone(void *arg, const char *path)
{
	struct web *w = arg;
	struct web_layout *l = w->layout;
	unsigned int first, n;

	n = l ? cgroup_series(l, path, &first) : 0;
	if (!n || l->removed[l->by_cgroup[first]])
		return;
	pthread_mutex_lock(&w->lock);
	mark_removed(l, first, n, true);
	pthread_mutex_unlock(&w->lock);
}

/* Each cgroup of l not yet removed looked for. */
static void look_for_gone(struct web *w, const struct web_layout *l)
{
	unsigned int k, n, first;

	for (k = 0; k < l->nr_by_cgroup; k += n) {
		const char *path = l->cgroup[l->by_cgroup[k]];

		n = cgroup_series(l, path, &first);
		if (!l->removed[l->by_cgroup[first]] &&
		    !cgwatch_exists(&w->cgw, path))
			cgroup_gone(w, path);
	}
}

/*
 * The series of a removed cgroup stop feeding the window and lose their
 * current value at once; their window aggregates leave once the window
 * has passed.  The watcher's events say which cgroup went (cgwatch.h).
 * The records say only that a sampled cgroup is gone (KSNAP_REC_STALE):
 * the first such record of a collection has each cgroup looked for once
 * (one removed before its watch was set); after that, nothing is looked
 * at, unless the watcher is blind (inotify's limits): then each cgroup
 * is looked for at most once a second while the records say so.  Only
 * the drain writes removed[] and gone[].
 */
static void find_gone(struct web *w)
{
	struct web_layout *l = w->layout;
	uint64_t now = web_now_ns();

	cgwatch_read(&w->cgw, cgroup_gone, w);
	if (!w->stale || !l)
		return;
	if (w->stale_looked && (!w->cgw.blind ||
				now - w->stale_checked_ns < 1000000000ULL))
		return;
	w->stale_looked = true;
	w->stale_checked_ns = now;
	look_for_gone(w, l);
}

static int web_flush(void *self)
{
	struct web *w = self;
	struct ksnap_stats ks;

	find_gone(w);
	if (w->cfg.self_hook) {
		pthread_mutex_lock(&w->lock);
		w->cfg.self_hook(w->cfg.self_arg, &w->self);
		pthread_mutex_unlock(&w->lock);
	}
	if (!w->cfg.ring)
		return 0;
	ksnap_ring_read_stats(w->cfg.ring, &ks);
	pthread_mutex_lock(&w->lock);
	w->self.taken = ks.taken;
	w->self.lost = ks.lost;
	w->self.missed = ks.missed;
	w->self.thinned = ks.thinned;
	w->self.cgroups_skipped = ks.cgroups_skipped;
	w->self.read_sum_ns = ks.read_sum_ns;
	w->self.read_max_ns = ks.read_max_ns;
	w->self.lateness_sum_ns = ks.lateness_sum_ns;
	w->self.lateness_max_ns = ks.lateness_max_ns;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static int web_end(void *self, const struct ksnapd_end *e)
{
	struct web *w = self;

	/* The collection goes on: its figures are the ring's (flush()), a
	 * split's stats are its stream's share. */
	if (e->split) {
		w->split = true;
		return 0;
	}
	pthread_mutex_lock(&w->lock);
	w->self.taken = e->stats.ksnap_snapshots_taken;
	w->self.lost = e->stats.ksnap_snapshots_lost;
	w->self.missed = e->stats.ksnap_periods_missed;
	w->self.thinned = e->stats.ksnap_periods_thinned;
	w->self.cgroups_skipped = e->stats.ksnap_cgroups_skipped;
	w->self.read_sum_ns = e->stats.ksnap_read_sum_nanos;
	w->self.read_max_ns = e->stats.ksnap_max_read_nanos;
	w->self.lateness_sum_ns = e->stats.ksnap_lateness_sum_nanos;
	w->self.lateness_max_ns = e->stats.ksnap_max_lateness_nanos;
	w->self.running = false;
	__atomic_add_fetch(&w->epoch, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

const struct ksnapd_consumer_ops web_ops = {
	.begin = web_begin,
	.row = web_row,
	.flush = web_flush,
	.end = web_end,
};

/* --- a scrape ----------------------------------------------------------- */

uint64_t web_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME in s since the Unix epoch. */
static double web_real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Room for the values of layout l's n series (and their histograms). */
static int values_alloc(const struct web_layout *l, unsigned int n,
			struct om_value **v, struct om_hist **h)
{
	*v = calloc(n + 1, sizeof(**v));
	*h = l && l->hists ? calloc(n + 1, sizeof(**h)) : NULL;
	if (!*v || (l && l->hists && !*h)) {
		free(*v);
		free(*h);
		*v = NULL;
		*h = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * ksnapd's own process figures, for process_*: read at each render, as
 * the client libraries do; a figure that cannot be read is left out.
 */
static void process_figures(const struct web *w, struct om_self *s)
{
	struct timespec ts;
	struct rlimit rl;
	char buf[128], **names = NULL;
	long long size, rss;
	ssize_t n;
	int fd, i;

	s->process = true;
	s->process_start_s = w->start_real_s;
	s->process_cpu_s = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) ? 0 :
			   (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	s->process_rss = s->process_vsize = -1;
	fd = ksnap_sys_open("/proc/self/statm", O_RDONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		n = ksnap_sys_read(fd, buf, sizeof(buf) - 1);
		ksnap_sys_close(fd);
		buf[n > 0 ? n : 0] = '\0';
		if (sscanf(buf, "%lld %lld", &size, &rss) == 2) {
			s->process_vsize = size * ksnap_sys_page_size();
			s->process_rss = rss * ksnap_sys_page_size();
		}
	}
	n = ksnap_sys_list_dir("/proc/self/fd", &names);
	s->process_open_fds = n >= 0 ? n : -1;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	s->process_max_fds = getrlimit(RLIMIT_NOFILE, &rl) ? -1 :
			     rl.rlim_cur == RLIM_INFINITY ? INT64_MAX :
			     (int64_t)rl.rlim_cur;
}

/*
 * A scrape: the layout is taken and the values copied under the lock,
 * their room allocated between the two.  A layout changed in between (a
 * set change) is taken again, never copied from as the old one: at most
 * WEB_RENDER_TRIES times, the last with the room allocated under the
 * lock, so that a scrape always carries the series.
 */
int web_rows_render(struct web *w, enum om_format f, struct om_buf *b,
		    bool scrape, bool process)
{
	struct web_layout *l, *dead = NULL;
	struct om_value *v = NULL;
	struct om_hist *h = NULL;
	struct om_self self;
	uint64_t now = web_now_ns();
	unsigned int i, n, tries = 0;
	double real_s;
	bool last_try;
	int ret;

	pthread_mutex_lock(&w->lock);
	w->self.scrapes += scrape;
	for (;;) {
		l = w->layout;
		n = l ? l->om.nr_series : 0;
		if (l)
			l->refs++;
		last_try = ++tries >= WEB_RENDER_TRIES;
		if (!last_try) {
			pthread_mutex_unlock(&w->lock);
			layout_free(dead);
			dead = NULL;
		}
		ret = values_alloc(l, n, &v, &h);
		if (!last_try) {
			if (!ret && w->cfg.between_hook)
				w->cfg.between_hook(w->cfg.between_arg);
			pthread_mutex_lock(&w->lock);
		}
		if (ret || l == w->layout)
			break;
		layout_put(l, &dead);
		free(v);
		free(h);
	}
	/* The copy: the only part under the lock. */
	real_s = web_real_s();
	now = web_now_ns();
	for (i = 0; !ret && i < n; i++) {
		bool have;

		uint64_t max_t;

		v[i].alive = window_query_peak(&w->win, i, now, &v[i].wmax,
					       &v[i].wmin, &have, &max_t);
		v[i].have_window = have;
		/* The records' monotonic clock read as the realtime one. */
		v[i].wmax_time = real_s - (double)(int64_t)(now - max_t) * 1e-9;
		v[i].removed = l->removed[i];
		v[i].last = w->last[i];
		if (l->hist[i]) {
			h[i] = *l->hist[i];
			v[i].hist = &h[i];
		}
	}
	self = w->self;
	self.refused = __atomic_load_n(&w->refused, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&w->lock);
	if (process)
		process_figures(w, &self);
	layout_free(dead);
	dead = NULL;

	if (!ret)
		ret = om_render(b, f, l ? &l->om : NULL, v, &self);
	free(v);
	free(h);
	pthread_mutex_lock(&w->lock);
	layout_put(l, &dead);
	pthread_mutex_unlock(&w->lock);
	layout_free(dead);
	return ret;
}

int web_render(struct web *w, enum om_format f, struct om_buf *b)
{
	return web_rows_render(w, f, b, true, true);
}

int web_render_file(struct web *w, struct om_buf *b)
{
	return web_rows_render(w, OM_PROMETHEUS, b, false, false);
}

int web_rows_init(struct web *w, char *err, size_t errlen)
{
	int ret;

	w->cgw.fd = -1;
	if (!w->cfg.window_ns)
		w->cfg.window_ns = WEB_DEFAULT_WINDOW_NS;
	w->start_real_s = web_real_s();
	if (!w->cfg.hist_spec.count)
		w->cfg.hist_spec = (struct om_hist_spec){ WEB_HIST_START,
			WEB_HIST_FACTOR, WEB_HIST_COUNT };
	w->err = err;
	w->errlen = errlen;
	w->self.version = w->cfg.version;
	w->self.abi = KSNAP_ABI_VERSION;
	w->self.window_seconds = (double)w->cfg.window_ns * 1e-9;
	if (window_init(&w->win, 0, WINDOW_NR_SUB, w->cfg.window_ns)) {
		snprintf(err, errlen, "--web.window: too short");
		return -EINVAL;
	}
	pthread_mutex_init(&w->lock, NULL);
	ret = cgwatch_init(&w->cgw, w->cfg.cgroup_root ? w->cfg.cgroup_root :
				    WEB_CGROUP_ROOT);
	if (ret) {
		snprintf(err, errlen, "web: %s", strerror(-ret));
		web_rows_fini(w);
		return ret;
	}
	return 0;
}

void web_rows_fini(struct web *w)
{
	pthread_mutex_destroy(&w->lock);
	if (w->layout) {
		layout_free(w->layout);
		w->layout = NULL;
	}
	cgwatch_fini(&w->cgw);
	window_fini(&w->win);
	free(w->last);
	w->last = NULL;
	while (w->nr_skipped)
		free(w->skipped[--w->nr_skipped]);
	free(w->skipped);
	w->skipped = NULL;
}

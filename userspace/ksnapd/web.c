// SPDX-License-Identifier: MIT
/* ksnapd's OpenMetrics endpoint (web.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "sys.h"
#include "web.h"

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

/* --- the address -------------------------------------------------------- */

int web_parse_listen(const char *s, char *addr, size_t addrlen,
		     unsigned int *port)
{
	const char *colon, *host = s;
	size_t hl;
	char *end;
	unsigned long p;

	*port = WEB_DEFAULT_PORT;
	if (!s || !*s) {
		snprintf(addr, addrlen, "%s", WEB_DEFAULT_ADDR);
		return 0;
	}
	if (*s == '[') {
		colon = strchr(s, ']');
		if (!colon)
			return -EINVAL;
		host = s + 1;
		hl = (size_t)(colon - host);
		colon++;
		if (*colon && *colon != ':')
			return -EINVAL;
		if (!*colon)
			colon = NULL;
	} else {
		colon = strrchr(s, ':');
		hl = colon ? (size_t)(colon - s) : strlen(s);
		if (colon && strchr(s, ':') != colon)
			return -EINVAL;	/* IPv6 wants brackets */
	}
	if (hl + 1 > addrlen)
		return -EINVAL;
	if (hl)
		memcpy(addr, host, hl);
	addr[hl] = '\0';
	if (!hl)
		snprintf(addr, addrlen, "%s", WEB_ANY_ADDR);
	else if (!strcmp(addr, "localhost"))
		snprintf(addr, addrlen, "%s", WEB_DEFAULT_ADDR);
	if (colon) {
		errno = 0;
		p = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || p > 65535 ||
		    colon[1] == '-' || colon[1] == '+')
			return -EINVAL;
		*port = (unsigned int)p;
	}
	return 0;
}

const char *web_listen_arg(const char *optarg, char *const *argv, int *next)
{
	if (optarg)
		return optarg;
	if (argv[*next] && argv[*next][0] != '-')
		return argv[(*next)++];
	return "";
}

/* A listening socket on ss; dual: IPv4 too (the IPv6 wildcard).  Returns
 * the fd or -errno. */
static int listen_addr(const struct sockaddr_storage *ss, socklen_t len,
		       bool dual)
{
	int fd, ret, one = 1, zero = 0;

	fd = ksnap_sys_socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	ret = ksnap_sys_setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				   sizeof(one));
	if (!ret && dual)
		ret = ksnap_sys_setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY,
					   &zero, sizeof(zero));
	if (!ret)
		ret = ksnap_sys_bind(fd, (const struct sockaddr *)ss, len);
	if (!ret)
		ret = ksnap_sys_listen(fd, WEB_LISTEN_BACKLOG);
	if (ret) {
		ksnap_sys_close(fd);
		return ret;
	}
	return fd;
}

/*
 * A listening socket on ADDR:PORT (system calls through the seam).  The
 * IPv6 wildcard (:PORT, [::]:PORT) takes IPv4 too, or is 0.0.0.0 where
 * the kernel has no IPv6.
 */
static int listen_on(const char *listen, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	char addr[INET6_ADDRSTRLEN + 8];
	unsigned int port;
	socklen_t len;
	bool dual;
	int fd;

	if (web_parse_listen(listen, addr, sizeof(addr), &port)) {
		snprintf(err, errlen, "--web.listen-address: '%s': expected "
			 "ADDR:PORT, [ADDR6]:PORT or :PORT", listen);
		return -EINVAL;
	}
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		len = sizeof(*in4);
	} else if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		len = sizeof(*in6);
	} else {
		snprintf(err, errlen, "--web.listen-address: '%s' is not an "
			 "IPv4 or IPv6 address", addr);
		return -EINVAL;
	}
	dual = ss.ss_family == AF_INET6 &&
	       IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr);
	fd = listen_addr(&ss, len, dual);
	if (dual && (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL)) {
		memset(&ss, 0, sizeof(ss));
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		in4->sin_addr.s_addr = htonl(INADDR_ANY);
		snprintf(addr, sizeof(addr), "0.0.0.0");
		fd = listen_addr(&ss, sizeof(*in4), false);
	}
	if (fd < 0)
		snprintf(err, errlen, "web: listening on %s port %u: %s", addr,
			 port, strerror(-fd));
	return fd;
}

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
static int render(struct web *w, enum om_format f, struct om_buf *b,
		  bool scrape, bool process)
{
	struct web_layout *l, *dead = NULL;
	struct om_value *v = NULL;
	struct om_hist *h = NULL;
	struct om_self self;
	uint64_t now = web_now_ns();
	unsigned int i, n, tries = 0;
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
	for (i = 0; !ret && i < n; i++) {
		bool have;

		v[i].alive = window_query(&w->win, i, now, &v[i].wmax,
					  &v[i].wmin, &have);
		v[i].have_window = have;
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
	return render(w, f, b, true, true);
}

int web_render_file(struct web *w, struct om_buf *b)
{
	return render(w, OM_PROMETHEUS, b, false, false);
}

/* --- the server --------------------------------------------------------- */

bool web_telemetry_path_ok(const char *s)
{
	size_t n = strlen(s);

	if (s[0] != '/' || n < 2 || n >= WEB_TELEMETRY_PATH_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789/._-~") == n;
}

/* The landing page and the 404 answer, naming the telemetry path. */
static void pages(struct web *w)
{
	snprintf(w->landing, sizeof(w->landing),
		 "<!DOCTYPE html>\n<html><head><title>ksnapd</title></head>"
		 "<body>\n<h1>ksnapd</h1>\n<p>Kernel and cgroup counters at "
		 "the sampling period of ksnap.ko, with window maxima and "
		 "minima that a scrape interval cannot see.</p>\n"
		 "<p><a href=\"%s\">Metrics</a></p>\n</body></html>\n",
		 w->cfg.telemetry_path);
	snprintf(w->not_found, sizeof(w->not_found), "not found: try %s\n",
		 w->cfg.telemetry_path);
}


/* buf (len bytes) gzipped into *out; returns its length, 0 on failure. */
static size_t gzip(const char *buf, size_t len, char **out)
{
	z_stream zs;
	size_t cap;
	char *p;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	cap = deflateBound(&zs, len) + 32;
	p = malloc(cap);
	if (!p) {
		deflateEnd(&zs);
		return 0;
	}
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = (unsigned char *)p;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&zs);
		free(p);
		return 0;
	}
	len = zs.total_out;
	deflateEnd(&zs);
	*out = p;
	return len;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     const char *type, const char *body)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (code == MHD_HTTP_TOO_MANY_REQUESTS ||
	    code == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* The answer to /metrics in format f, gzipped or not; NULL when out of
 * memory. */
static struct MHD_Response *metrics_answer(struct web *w, enum om_format f,
					   bool gz)
{
	struct om_buf b = { 0 };
	struct MHD_Response *r;
	char *body, *z = NULL;
	size_t len, zl = 0;

	if (render(w, f, &b, false, true)) {
		om_buf_free(&b);
		return NULL;
	}
	body = b.p;
	len = b.len;
	if (gz)
		zl = gzip(b.p, b.len, &z);
	if (zl) {
		om_buf_free(&b);
		body = z;
		len = zl;
	}
	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				f == OM_OPENMETRICS ? OM_CT_OPENMETRICS :
						      OM_CT_PROMETHEUS);
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY,
				"Accept, Accept-Encoding");
	if (zl)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING,
					"gzip");
	return r;
}

/*
 * /metrics; a HEAD's answer has the same headers, but is not a scrape.
 * The answer is shared (w->share): one rendered less than the sharing
 * interval ago, or the one a render under way makes, is queued as it
 * is, unless a collection began or ended since its render began
 * (w->epoch); else this request renders it for the others.  At most
 * max_requests are answered at once, the others get 503.
 */
static enum MHD_Result metrics(struct web *w, struct MHD_Connection *conn,
			       bool head)
{
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
			MHD_HTTP_HEADER_ACCEPT);
	const char *enc = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
			MHD_HTTP_HEADER_ACCEPT_ENCODING);
	enum om_format f = om_negotiate(accept);
	bool gz = om_wants_gzip(enc);
	struct web_share *s = &w->share[f == OM_OPENMETRICS][gz];
	enum MHD_Result ret = MHD_NO;
	struct MHD_Response *r;
	uint64_t seen, at;
	bool failed = false;

	pthread_mutex_lock(&w->share_lock);
	if (w->in_flight >= w->cfg.max_requests) {
		__atomic_fetch_add(&w->refused, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&w->share_lock);
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			     "too many requests at once "
			     "(--web.max-requests): try again later\n");
	}
	w->in_flight++;
	seen = s->gen;
	for (;;) {
		uint64_t epoch = __atomic_load_n(&w->epoch, __ATOMIC_ACQUIRE);

		if (s->r && s->epoch == epoch &&
		    (s->gen != seen ||
		     web_now_ns() - s->at_ns < w->cfg.share_ns))
			break;
		if (s->busy) {
			pthread_cond_wait(&w->share_cond, &w->share_lock);
			continue;
		}
		s->busy = true;
		w->renders++;
		pthread_mutex_unlock(&w->share_lock);
		at = web_now_ns();
		epoch = __atomic_load_n(&w->epoch, __ATOMIC_ACQUIRE);
		r = metrics_answer(w, f, gz);
		pthread_mutex_lock(&w->share_lock);
		s->busy = false;
		pthread_cond_broadcast(&w->share_cond);
		if (!r) {
			failed = true;
			break;
		}
		if (s->r)
			MHD_destroy_response(s->r);
		s->r = r;
		s->at_ns = at;
		s->epoch = epoch;
		s->gen++;
		break;
	}
	/* Queued under the lock: the next render may replace s->r. */
	if (!failed)
		ret = MHD_queue_response(conn, MHD_HTTP_OK, s->r);
	w->in_flight--;
	pthread_mutex_unlock(&w->share_lock);
	if (failed)
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
			     "text/plain", "out of memory\n");
	if (!head) {
		pthread_mutex_lock(&w->lock);
		w->self.scrapes++;
		pthread_mutex_unlock(&w->lock);
	}
	return ret;
}

/* --- connections: the header deadline ---------------------------------- */

struct web_conn {
	struct web_conn *next, **pprev;
	int fd;
	uint64_t since_ns;		/* the connection, or its last answer */
	bool in_request;		/* its headers are in */
	bool cut;
};

static struct web_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *i;

	i = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return i ? i->socket_context : NULL;
}

static void conn_notify(void *cls, struct MHD_Connection *conn, void **sc,
			enum MHD_ConnectionNotificationCode toe)
{
	struct web *w = cls;
	const union MHD_ConnectionInfo *i;
	struct web_conn *c = *sc;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		i = MHD_get_connection_info(conn,
					    MHD_CONNECTION_INFO_CONNECTION_FD);
		c = i ? calloc(1, sizeof(*c)) : NULL;
		*sc = c;
		if (!c)
			return;
		c->fd = i->connect_fd;
		c->since_ns = web_now_ns();
		pthread_mutex_lock(&w->conns_lock);
		c->next = w->conns;
		if (c->next)
			c->next->pprev = &c->next;
		c->pprev = &w->conns;
		w->conns = c;
		w->nr_conns++;
		pthread_mutex_unlock(&w->conns_lock);
		return;
	}
	if (!c)
		return;
	/* Before libmicrohttpd closes the fd: the watchdog never shuts down
	 * an fd that is another's by then. */
	pthread_mutex_lock(&w->conns_lock);
	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	w->nr_conns--;
	pthread_mutex_unlock(&w->conns_lock);
	free(c);
	*sc = NULL;
}

static void conn_state(struct web *w, struct MHD_Connection *conn,
		       bool in_request)
{
	struct web_conn *c = conn_of(conn);

	if (!c)
		return;
	pthread_mutex_lock(&w->conns_lock);
	c->in_request = in_request;
	c->since_ns = web_now_ns();
	pthread_mutex_unlock(&w->conns_lock);
}

static void request_done(void *cls, struct MHD_Connection *conn,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	(void)con_cls;
	(void)toe;
	conn_state(cls, conn, false);
}

/* Every half second: a connection whose request line and headers are not
 * in WEB_HEADER_DEADLINE_S after it opened (or its last answer), or whose
 * answer is not out WEB_ANSWER_DEADLINE_S after its headers were in (a
 * client reading a byte at a time), is shut down; libmicrohttpd sees the
 * end of its stream and closes it. */
static void *watchdog(void *arg)
{
	struct web *w = arg;
	const uint64_t header = (w->cfg.header_deadline_s ?
				 w->cfg.header_deadline_s :
				 WEB_HEADER_DEADLINE_S) * 1000000000ULL;
	const uint64_t answer = WEB_ANSWER_DEADLINE_S * 1000000000ULL;
	struct web_conn *c;
	struct timespec ts;
	uint64_t now;

	pthread_mutex_lock(&w->conns_lock);
	while (!w->stop) {
		now = web_now_ns();
		for (c = w->conns; c; c = c->next) {
			if (c->cut || now - c->since_ns <
				      (c->in_request ? answer : header))
				continue;
			c->cut = true;
			w->nr_cut++;
			shutdown(c->fd, SHUT_RDWR);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 500000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->conns_cond, &w->conns_lock, &ts);
	}
	pthread_mutex_unlock(&w->conns_lock);
	return NULL;
}

/* --- requests ----------------------------------------------------------- */

/* The client's address: its bytes (4 or 16) in addr, their number. */
static size_t client_addr(struct MHD_Connection *conn, unsigned char *addr)
{
	const union MHD_ConnectionInfo *i;
	const struct sockaddr *sa;

	i = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	sa = i ? i->client_addr : NULL;
	if (sa && sa->sa_family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 4;
	}
	if (sa && sa->sa_family == AF_INET6) {
		memcpy(addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 16;
	}
	return 0;
}

/* The request's credential passed; else its answer (401, 429) is queued,
 * *queued the result. */
static bool authorized(struct web *w, struct MHD_Connection *conn,
		       enum MHD_Result *queued)
{
	static const char denied[] = "unauthorized\n";
	unsigned char addr[WEB_AUTH_ADDR_LEN] = { 0 };
	enum web_auth_result r = WEB_AUTH_DENIED;
	struct MHD_Response *resp;
	char *user, *pass = NULL;
	size_t alen;

	user = MHD_basic_auth_get_username_password(conn, &pass);
	if (user && pass) {
		alen = client_addr(conn, addr);
		r = web_auth_check(&w->auth, user, pass, addr, alen,
				   web_now_ns());
	}
	if (pass) {
		memset(pass, 0, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	if (r == WEB_AUTH_OK)
		return true;
	if (r == WEB_AUTH_LIMITED) {
		*queued = reply(conn, MHD_HTTP_TOO_MANY_REQUESTS, "text/plain",
				"too many failed attempts: try again later\n");
		return false;
	}
	resp = MHD_create_response_from_buffer(sizeof(denied) - 1,
					       (void *)denied,
					       MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		*queued = MHD_NO;
		return false;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain");
	*queued = MHD_queue_basic_auth_fail_response(conn, WEB_REALM, resp);
	MHD_destroy_response(resp);
	return false;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct web *w = cls;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	(void)con_cls;
	conn_state(w, conn, true);
	/* A body is not read: what comes with a request is dropped. */
	*upload_data_size = 0;
	if (w->conf.nr_users && !authorized(w, conn, &ret))
		return ret;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     "method not allowed: GET or HEAD\n");
	if (!strcmp(url, w->cfg.telemetry_path))
		return metrics(w, conn,
			       !strcmp(method, MHD_HTTP_METHOD_HEAD));
	if (!strcmp(url, "/"))
		return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8",
			     w->landing);
	return reply(conn, MHD_HTTP_NOT_FOUND, "text/plain", w->not_found);
}

int web_systemd_socket(char *err, size_t errlen)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int fd = 3, acc = 0, type = 0, ret = 0;
	socklen_t len = sizeof(int);
	char me[32];

	snprintf(me, sizeof(me), "%ld", (long)getpid());
	if (!pid || !fds || strcmp(pid, me)) {
		snprintf(err, errlen, "--web.systemd-socket: no socket from "
			 "systemd (LISTEN_PID, LISTEN_FDS: start ksnapd "
			 "from ksnapd.socket)");
		ret = -ENOENT;
	} else if (strcmp(fds, "1")) {
		snprintf(err, errlen, "--web.systemd-socket: LISTEN_FDS=%s: "
			 "expected one socket", fds);
		ret = -EINVAL;
	} else if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) ||
		   !acc ||
		   getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) ||
		   type != SOCK_STREAM) {
		snprintf(err, errlen, "--web.systemd-socket: fd 3 is not a "
			 "listening stream socket");
		ret = -ENOTSOCK;
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (ret)
		return ret;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/*
 * The server on fd, TLS with a certificate.  A thread for each connection
 * (at most WEB_MAX_CONNECTIONS of them): a bcrypt, a slow client, or a
 * request waiting for the shared render holds up its own connection
 * only, never a scrape on another.  The bound is on the work
 * (--web.max-requests, the shared render, the deadlines), not on who
 * connects: a limit per address high enough that idle connections
 * from the scraper's own address do not lock it out, low enough that one
 * address cannot take every connection.  The watchdog shuts down a
 * connection's fd and its thread sees the end of the stream.
 */
static int serve(struct web *w, int fd)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO;
	struct MHD_OptionItem tls[4] = { { MHD_OPTION_END, 0, NULL } };

	if (w->conf.cert_pem) {
		flags |= MHD_USE_TLS;
		tls[0] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
						  w->conf.cert_pem };
		tls[1] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
						  w->conf.key_pem };
		tls[2] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES,
						  0, (void *)WEB_TLS_PRIORITIES };
		tls[3] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	}
	w->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, w,
				  MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_LIMIT,
				  (unsigned int)WEB_MAX_CONNECTIONS,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				  (unsigned int)WEB_MAX_PER_IP,
				  MHD_OPTION_CONNECTION_TIMEOUT,
				  (unsigned int)WEB_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				  (size_t)WEB_MEMORY_LIMIT,
				  MHD_OPTION_NOTIFY_CONNECTION, conn_notify, w,
				  MHD_OPTION_NOTIFY_COMPLETED, request_done, w,
				  MHD_OPTION_ARRAY, tls,
				  MHD_OPTION_END);
	return w->mhd ? 0 : -EIO;
}

int web_init(struct web *w, const struct web_config *cfg, char *err,
	     size_t errlen)
{
	pthread_condattr_t ca;
	struct timespec now;
	int fd = -1, ret;

	memset(w, 0, sizeof(*w));
	w->cgw.fd = -1;
	w->cfg = *cfg;
	if (!w->cfg.window_ns)
		w->cfg.window_ns = WEB_DEFAULT_WINDOW_NS;
	if (!w->cfg.max_requests)
		w->cfg.max_requests = WEB_DEFAULT_MAX_REQUESTS;
	if (!w->cfg.share_ns)
		w->cfg.share_ns = WEB_SHARE_NS;
	if (!w->cfg.telemetry_path)
		w->cfg.telemetry_path = WEB_DEFAULT_TELEMETRY_PATH;
	if (!web_telemetry_path_ok(w->cfg.telemetry_path)) {
		snprintf(err, errlen, "--web.telemetry-path: '%.*s': expected "
			 "/ and letters, digits, /._-~", 64,
			 w->cfg.telemetry_path);
		return -EINVAL;
	}
	pages(w);
	clock_gettime(CLOCK_REALTIME, &now);
	w->start_real_s = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
	if (!w->cfg.hist_spec.count)
		w->cfg.hist_spec = (struct om_hist_spec){ WEB_HIST_START,
			WEB_HIST_FACTOR, WEB_HIST_COUNT };
	w->err = err;
	w->errlen = errlen;
	w->self.version = cfg->version;
	w->self.abi = KSNAP_ABI_VERSION;
	w->self.window_seconds = (double)w->cfg.window_ns * 1e-9;
	if (window_init(&w->win, 0, WINDOW_NR_SUB, w->cfg.window_ns)) {
		snprintf(err, errlen, "--web.window: too short");
		return -EINVAL;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_mutex_init(&w->conns_lock, NULL);
	pthread_mutex_init(&w->share_lock, NULL);
	pthread_cond_init(&w->share_cond, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->conns_cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = cgwatch_init(&w->cgw, cfg->cgroup_root ? cfg->cgroup_root :
				    WEB_CGROUP_ROOT);
	if (ret) {
		snprintf(err, errlen, "web: %s", strerror(-ret));
		goto fail;
	}
	if (cfg->no_server)
		return 0;
	if (cfg->config_file) {
		ret = webconf_load(cfg->config_file, &w->conf, err, errlen);
		if (ret)
			goto fail;
	}
	if (w->conf.nr_users) {
		ret = web_auth_init(&w->auth, w->conf.users,
				    w->conf.nr_users);
		if (ret) {
			snprintf(err, errlen, "web: authentication: %s",
				 strerror(-ret));
			goto fail;
		}
	}
	fd = cfg->systemd_socket ? web_systemd_socket(err, errlen) :
				   listen_on(cfg->listen, err, errlen);
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	ret = -pthread_create(&w->watchdog, NULL, watchdog, w);
	if (ret) {
		snprintf(err, errlen, "web: a thread: %s", strerror(-ret));
		goto fail;
	}
	w->have_watchdog = true;
	if (w->conf.cert_pem && MHD_is_feature_supported(MHD_FEATURE_TLS) !=
				MHD_YES) {
		snprintf(err, errlen, "--web.config.file: %s: "
			 "tls_server_config: this libmicrohttpd was built "
			 "without TLS", cfg->config_file);
		ret = -EOPNOTSUPP;
		goto fail;
	}
	ret = serve(w, fd);
	if (ret) {
		snprintf(err, errlen, "web: the HTTP server did not start%s",
			 w->conf.cert_pem ? " (TLS: " WEB_TLS_PRIORITIES ")" :
			 "");
		goto fail;
	}
	if (cfg->log)
		fprintf(cfg->log, "ksnapd: serving %s on %s (port %u)%s%s\n",
			w->cfg.telemetry_path,
			cfg->systemd_socket ? "systemd's socket" :
			cfg->listen && *cfg->listen ? cfg->listen :
			WEB_DEFAULT_ADDR, web_port(w),
			w->conf.cert_pem ? ", TLS" : "",
			w->conf.nr_users ? ", basic authentication" : "");
	return 0;
fail:
	if (fd >= 0)
		ksnap_sys_close(fd);
	web_fini(w);
	return ret;
}

unsigned int web_port(struct web *w)
{
	const union MHD_DaemonInfo *i;

	i = MHD_get_daemon_info(w->mhd, MHD_DAEMON_INFO_BIND_PORT);
	return i ? i->port : 0;
}

void web_fini(struct web *w)
{
	unsigned int i;

	if (w->mhd) {
		MHD_stop_daemon(w->mhd);
		w->mhd = NULL;
	}
	if (w->have_watchdog) {
		pthread_mutex_lock(&w->conns_lock);
		w->stop = true;
		pthread_cond_signal(&w->conns_cond);
		pthread_mutex_unlock(&w->conns_lock);
		pthread_join(w->watchdog, NULL);
		w->have_watchdog = false;
	}
	pthread_cond_destroy(&w->conns_cond);
	pthread_mutex_destroy(&w->conns_lock);
	for (i = 0; i < 4; i++) {
		struct web_share *s = &w->share[i / 2][i % 2];

		if (s->r)
			MHD_destroy_response(s->r);
		s->r = NULL;
	}
	pthread_cond_destroy(&w->share_cond);
	pthread_mutex_destroy(&w->share_lock);
	web_auth_fini(&w->auth);
	webconf_free(&w->conf);
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

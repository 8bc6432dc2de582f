// SPDX-License-Identifier: MIT
/*
 * ksnap-plot's reader: one walk of the shared parser (verify_check.h) in
 * streaming mode over an input, its rows reduced as they come
 * (plot_reduce.h), its findings made into gaps and damaged places on the
 * time axis and, through ksnap-verify's own report, into the words the
 * page says them in.
 */
#define _GNU_SOURCE	/* fopencookie */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "json.h"
#include "plot_model.h"
#include "plot_names.h"
#include "plot_read.h"
#include "stream.h"
#include "verify_report.h"

struct reader {
	struct plot *p;
	const char *name;
	const char *buf;
	size_t len;
	bool mapped;			/* buf is an mmap of the input */
	size_t dropped;			/* pages before this are dropped */
	struct ksv_report rep;
	struct ksnap_verify_opts vo;
	struct ksnap_verify_result res;
	struct plot_stream *cur;		/* the stream being read */
};

/* --- the report, its first lines kept -------------------------------- */

static ssize_t keep_report(void *cookie, const char *buf, size_t n)
{
	struct plot *p = cookie;
	size_t i, room = PLOT_REPORT_MAX - p->report_len;

	if (!p->report_lines_over && n <= room) {
		char *r = realloc(p->report, p->report_len + n + 1);

		if (r) {
			memcpy(r + p->report_len, buf, n);
			p->report_len += n;
			r[p->report_len] = '\0';
			p->report = r;
			return (ssize_t)n;
		}
	}
	for (i = 0; i < n; i++)
		p->report_lines_over += buf[i] == '\n';
	return (ssize_t)n;
}

static FILE *report_file(struct plot *p)
{
	static const cookie_io_functions_t io = { .write = keep_report };

	return fopencookie(p, "w", io);
}

/* --- a stream's charts, at its first row ----------------------------- */

struct cols {
	struct plot_stream *ps;
	char **names;
};

static size_t metric_len(const char *name, size_t len)
{
	const char *br = memchr(name, '[', len);

	return br ? (size_t)(br - name) : len;
}

static int add_column(void *priv, uint32_t k, const char *name, size_t len)
{
	struct cols *c = priv;

	c->names[k] = strndup(name, len);
	return c->names[k] ? 0 : -ENOMEM;
}

/* The unit a description ends with (", bytes"), as ksnap's do. */
static void unit_of(struct plot_chart *ch, const char *desc)
{
	const char *u = desc ? strrchr(desc, ',') : NULL;

	if (!u)
		return;
	u++;
	while (*u == ' ')
		u++;
	if (!strcmp(u, "bytes")) {
		ch->unit = PLOT_U_BYTES;
	} else if (!strcmp(u, "KiB")) {
		ch->unit = PLOT_U_BYTES;
		ch->scale = 1024;
	} else if (!strcmp(u, "ns")) {
		ch->unit = PLOT_U_NS;
	} else if (!strcmp(u, "pages")) {
		ch->unit = PLOT_U_PAGES;
	} else if (!strcmp(u, "load/1000")) {
		ch->scale = 0.001;
	}
}

static int add_meta(void *priv, const char *name, size_t name_len,
		    const char *json, size_t json_len)
{
	struct plot_stream *ps = priv;
	const char *v;
	size_t vl;
	uint32_t i;

	for (i = 0; i < ps->ncharts; i++) {
		struct plot_chart *ch = &ps->charts[i];

		if (strlen(ch->metric) != name_len ||
		    memcmp(ch->metric, name, name_len))
			continue;
		ch->rate = json_get(json, json_len, "cumulative", &v,
					 &vl) && vl == 4 && !memcmp(v, "true", 4);
		if (json_get(json, json_len, "description", &v, &vl))
			ch->desc = json_string(v, vl);
		unit_of(ch, ch->desc);
		if (json_get(json, json_len, "units", &v, &vl) &&
		    vl == 19 && !memcmp(v, "\"UNITS_NANOSECONDS\"", 19))
			ch->unit = PLOT_U_NS;
	}
	return 0;
}

/* Put column k in the chart of its metric, made if new. */
static int chart_column(struct plot_stream *ps, char *name, uint32_t k)
{
	size_t ml = metric_len(name, strlen(name));
	struct plot_chart *ch = NULL;
	uint32_t i;

	for (i = 0; i < ps->ncharts; i++)
		if (strlen(ps->charts[i].metric) == ml &&
		    !memcmp(ps->charts[i].metric, name, ml))
			ch = &ps->charts[i];
	if (!ch) {
		ch = &ps->charts[ps->ncharts++];
		ch->metric = strndup(name, ml);
		ch->scale = 1;
		ch->cols = calloc(ps->ncols, sizeof(*ch->cols));
		ch->labels = calloc(ps->ncols, sizeof(*ch->labels));
		if (!ch->metric || !ch->cols || !ch->labels)
			return -ENOMEM;
	}
	ps->col_chart[k] = (uint32_t)(ch - ps->charts);
	ch->cols[ch->nseries] = k;
	/* The field's value, "name[value]" (unescaped: docs/format.md,
	 * "Columns"), or the metric's name. */
	if (name[ml] == '[') {
		size_t l = strlen(name + ml + 1);
		char *label = malloc(l + 1);

		if (label)
			ksnap_unescape_value(label, l + 1, name + ml + 1,
					     l && name[ml + l] == ']' ?
					     l - 1 : l);
		ch->labels[ch->nseries] = label;
	} else {
		ch->labels[ch->nseries] = strdup(name);
	}
	ch->nseries++;
	return ch->labels[ch->nseries - 1] ? 0 : -ENOMEM;
}

/* Buckets for this stream: as the options say, fewer if its columns are
 * so many that their data would not fit the page. */
static uint32_t buckets_for(const struct plot_opts *o, uint32_t ncols)
{
	uint64_t fit = o->max_size / (2 * 12 * (uint64_t)(ncols + 1));
	uint32_t nb = o->buckets;

	while (nb > 64 && nb > fit)
		nb /= 2;
	return nb;
}

static int set_up(struct reader *rd, struct plot_stream *ps,
		  const struct ksv_stream *s)
{
	struct cols c = { .ps = ps };
	uint32_t k, n = ksv_stream_info(s)->ncols;
	int ret;

	ps->set_up = true;
	ps->ncols = n;
	c.names = calloc(n + 1, sizeof(*c.names));
	ps->charts = calloc(n + 1, sizeof(*ps->charts));
	ps->col_chart = calloc(n + 1, sizeof(*ps->col_chart));
	ps->rates = calloc(n + 1, sizeof(*ps->rates));
	ps->v = calloc(n + 1, sizeof(*ps->v));
	ps->has = calloc(n + 1, sizeof(*ps->has));
	if (!c.names || !ps->charts || !ps->col_chart || !ps->rates ||
	    !ps->v || !ps->has) {
		free(c.names);
		return -ENOMEM;
	}
	ret = ksv_stream_columns(s, add_column, &c);
	for (k = 0; !ret && k < n; k++)
		ret = chart_column(ps, c.names[k], k);
	for (k = 0; k < n; k++)
		free(c.names[k]);
	free(c.names);
	if (!ret)
		ret = ksv_stream_metas(s, add_meta, ps);
	if (!ret) {
		ps->nb_first = buckets_for(rd->p->o, n);
		ret = pr_buckets_init(&ps->b, ps->nb_first, n);
	}
	return ret;
}

/* --- the walk's callbacks -------------------------------------------- */

static int on_begin(void *priv, const struct ksv_stream *s)
{
	struct reader *rd = priv;
	struct plot *p = rd->p;
	struct plot_stream *ps, **ns;
	int ret;

	ns = realloc(p->streams, (p->nstreams + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	p->streams = ns;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	p->streams[p->nstreams++] = ps;
	ps->file = rd->name;
	ps->info = *ksv_stream_info(s);
	ret = pr_spans_init(&ps->gaps, PLOT_MAX_SPANS);
	if (!ret)
		ret = pr_spans_init(&ps->damage, PLOT_MAX_SPANS);
	if (ret)
		return ret;
	rd->cur = ps;
	return ksnap_report_begin(&rd->rep, s);
}

/* Where a bad line is on the time axis: after the last intact row. */
static bool bad_time(const struct ksv_finding *f, uint64_t *t)
{
	if (f->bad.where.after_row) {
		*t = f->bad.where.row_t;
		return true;
	}
	if (f->has_t) {
		*t = f->t;
		return true;
	}
	return false;
}

static void on_finding(void *priv, const struct ksv_stream *s,
		       const struct ksv_finding *f)
{
	struct reader *rd = priv;
	struct plot_stream *ps = s ? rd->cur : NULL;
	uint64_t t;

	/* Streaming gaps are not yet known to be explained: the page says
	 * what they are at the stream's end. */
	if (f->what != KSV_GAP)
		ksnap_report_finding(&rd->rep, s, f);
	if (!ps)
		return;
	switch (f->what) {
	case KSV_GAP:
		pr_spans_add(&ps->gaps, f->gap.from_t, f->gap.to_t,
			     f->gap.slots);
		break;
	case KSV_BAD_LINE:
	case KSV_REPAIRED_LINE:
		if (bad_time(f, &t))
			pr_spans_add(&ps->damage, t, t, 1);
		break;
	case KSV_DUPLICATE:
		if (f->dup.rows)
			pr_spans_add(&ps->damage, f->dup.t0, f->dup.t1,
				     f->dup.to - f->dup.from + 1);
		break;
	case KSV_GAPS_DROPPED:
		ps->gaps_dropped = true;
		break;
	default:
		break;
	}
}

static int on_row(void *priv, const struct ksv_stream *s,
		  const struct ksv_row *r)
{
	struct reader *rd = priv;
	struct plot_stream *ps = rd->cur;
	uint32_t k;
	int ret;

	if (!ps->set_up) {
		ret = set_up(rd, ps, s);
		if (ret)
			return ret;
		ps->first_t = r->t;
	}
	ps->last_t = r->t;
	for (k = 0; k < ps->ncols; k++) {
		struct plot_chart *ch = &ps->charts[ps->col_chart[k]];
		double rate;

		if (ch->rate) {
			uint64_t before = ps->rates[k].resets;

			ps->has[k] = pr_rate_next(&ps->rates[k], r->t, r->v[k],
						  &rate);
			ps->v[k] = rate * ch->scale;
			ch->resets += ps->rates[k].resets - before;
		} else if (r->v[k] == UINT64_MAX) {
			ps->has[k] = false;
			ch->unlimited++;
		} else {
			ps->has[k] = true;
			ps->v[k] = (double)r->v[k] * ch->scale;
		}
	}
	pr_buckets_push(&ps->b, r->t, ps->v, ps->has);
	rd->p->rows++;
	return 0;
}

struct kv {
	char *buf;
	size_t len;
};

static int add_stat(void *priv, const char *key, size_t key_len,
		    const char *value, size_t value_len)
{
	struct kv *kv = priv;
	char *b = realloc(kv->buf, kv->len + key_len + value_len + 3);

	if (!b)
		return -ENOMEM;
	kv->buf = b;
	memcpy(b + kv->len, key, key_len);
	kv->len += key_len;
	b[kv->len++] = '\t';
	memcpy(b + kv->len, value, value_len);
	kv->len += value_len;
	b[kv->len++] = '\n';
	b[kv->len] = '\0';
	return 0;
}

static int on_end(void *priv, const struct ksv_stream *s)
{
	struct reader *rd = priv;
	struct plot_stream *ps = rd->cur;
	const struct ksv_stats *st = ksv_stream_stats(s);
	struct kv kv = { 0 };
	const char *json;
	size_t len = 0;
	int ret;

	ps->info = *ksv_stream_info(s);
	ps->ended = true;
	ps->has_start = ksv_stream_start_time(s, &ps->start_time);
	if (st) {
		ps->has_stats = true;
		ps->st = *st;
		ksv_stats_capture(st, &ps->cap);
		ret = ksv_stream_stats_each(s, add_stat, &kv);
		if (ret == -ENOMEM)
			return ret;
		ps->stats_kv = kv.buf;
		ps->stats_kv_len = kv.len;
		json = ksv_stream_stats_json(s, &len);
		ret = plot_names_add(rd->p, json, len);
		if (ret)
			return ret;
	}
	if (ps->info.rows && ps->info.status < KSNAP_VERIFY_UNUSABLE &&
	    ps->info.status > rd->p->status)
		rd->p->status = ps->info.status;
	return ksnap_report_end(&rd->rep, s);
}

/* Drop the pages of the mapped input the walk has read past: its memory
 * stays bounded whatever the input's length (pages read again come back
 * from the file). */
static void on_progress(void *priv, size_t pos)
{
	struct reader *rd = priv;
	size_t keep = 1 << 20, upto;

	if (!rd->mapped || pos < keep + (16u << 20))
		return;
	upto = (pos - keep) & ~(size_t)0xfffff;
	madvise((void *)rd->buf, upto, MADV_DONTNEED);
}

int plot_read(struct plot *p, const char *name, const char *buf, size_t len,
	      bool mapped)
{
	struct reader rd = { .p = p, .name = name, .buf = buf, .len = len,
			     .mapped = mapped };
	const struct ksv_ops ops = {
		.priv = &rd, .begin = on_begin, .finding = on_finding,
		.end = on_end, .row = on_row, .progress = on_progress,
	};
	struct ksv_log log;
	FILE *rf = report_file(p);
	int ret, status;

	if (!rf)
		return -ENOMEM;
	if (p->ninputs > 1)
		fprintf(rf, "== %s\n", name);
	ksnap_report_init(&rd.rep, &rd.vo, rf, &rd.res);
	ret = ksv_walk(buf, len, &ops, &log);
	p->foreign += log.foreign;
	if (ret && ret != -ENOENT) {
		fclose(rf);
		return ret;
	}
	status = ksnap_report_done(&rd.rep, ret, &log);
	ksnap_report_summary(rf, name, status, &rd.res);
	fclose(rf);
	if (ret == -ENOENT) {
		fprintf(stderr, "ksnap-plot: %s: no profiling-metrics stream "
			"found (%llu lines read)\n", name,
			(unsigned long long)log.lines);
		return -ENOENT;
	}
	if (!rd.res.rows && status == KSNAP_VERIFY_UNUSABLE) {
		fprintf(stderr, "ksnap-plot: %s: no stream with a column "
			"header: nothing to plot\n", name);
		return -ENODATA;
	}
	return 0;
}

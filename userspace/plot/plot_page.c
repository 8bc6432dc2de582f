// SPDX-License-Identifier: MIT
/*
 * ksnap-plot's page: one self-contained HTML file.  The text (banner,
 * each stream's summary, STATS, what was lost, ksnap-verify's report) is
 * HTML written here; the charts' data is one JSON document the page's
 * script (plot_page.js) draws with dygraphs, whose code and style are
 * inlined from where its package installed them.  A Content-Security-
 * Policy forbids the page every request: it can load nothing from
 * anywhere.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plot_model.h"
#include "plot_page.h"
#include "verify_report.h"
/* plot_page_js, plot_page_css: the page's own script and style. */
#include "plot-assets.h"

#ifndef KSNAP_VERSION
#define KSNAP_VERSION "0.1"
#endif

/* Where the page goes, or only how long it is (f NULL). */
struct out {
	FILE *f;
	uint64_t n;
};

static void put(struct out *o, const char *s, size_t n)
{
	o->n += n;
	if (o->f)
		fwrite(s, 1, n, o->f);
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void say(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct out *o, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(o, buf, (size_t)n < sizeof(buf) ? (size_t)n :
			    sizeof(buf) - 1);
}

/* Text as HTML. */
static void html(struct out *o, const char *s, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i < n; i++) {
		const char *e = s[i] == '&' ? "&amp;" : s[i] == '<' ? "&lt;" :
				s[i] == '>' ? "&gt;" : s[i] == '"' ? "&quot;" :
				NULL;

		if (!e)
			continue;
		put(o, s + from, i - from);
		puts_(o, e);
		from = i + 1;
	}
	put(o, s + from, n - from);
}

static void htmls(struct out *o, const char *s)
{
	html(o, s, strlen(s));
}

/* A JSON string, safe inside <script>: '<' as \u003c. */
static void json_str(struct out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	put(o, "\"", 1);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\') {
			char e[2] = { '\\', (char)*p };

			put(o, e, 2);
		} else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') {
			say(o, "\\u%04x", *p);
		} else {
			put(o, (const char *)p, 1);
		}
	}
	put(o, "\"", 1);
}

/* --- the charts' data ------------------------------------------------ */

static const char *const unit_name[] = {
	[PLOT_U_NONE] = "none", [PLOT_U_BYTES] = "bytes",
	[PLOT_U_NS] = "ns", [PLOT_U_PAGES] = "pages",
};

struct arr {
	struct out *o;
	bool first;
	bool rate;
};

static int put_time(void *priv, uint64_t t, double v, bool has)
{
	struct arr *a = priv;

	(void)v;
	(void)has;
	say(a->o, "%s%" PRIu64, a->first ? "" : ",", t);
	a->first = false;
	return 0;
}

/* A gauge exactly as read (an integer), a rate to 6 digits. */
static int put_value(void *priv, uint64_t t, double v, bool has)
{
	struct arr *a = priv;
	const char *sep = a->first ? "" : ",";

	(void)t;
	a->first = false;
	if (!has)
		say(a->o, "%snull", sep);
	else if (!a->rate && v == floor(v) && fabs(v) < 9007199254740992.0)
		say(a->o, "%s%.0f", sep, v);
	else
		say(a->o, "%s%.6g", sep, v);
	return 0;
}

static bool plotted(const struct plot_stream *s)
{
	return s->set_up && s->b.rows && s->ncharts;
}

/*
 * A collection that follows cgroup patterns is written as one stream per
 * column set (docs/format.md, "Sequences"): the streams of one collection
 * that follow each other are drawn as one set of charts, each metric's
 * series the union of the streams' columns, a series drawn where its
 * column exists and broken (a gap) in the streams without it.
 */

/* Does b go on with a's collection: the stream of its next column set? */
static bool continues(const struct plot_stream *a, const struct plot_stream *b)
{
	return plotted(a) && plotted(b) && a->has_start && b->has_start &&
	       a->start_time == b->start_time && b->has_stats &&
	       b->st.first_position;
}

/* How many streams from i on are drawn together (1: i alone). */
static size_t run_at(const struct plot *p, size_t i)
{
	size_t n = 1;

	while (i + n < p->nstreams &&
	       continues(p->streams[i + n - 1], p->streams[i + n]))
		n++;
	return n;
}

struct mchart {
	const struct plot_chart *first;	/* unit, rate, description */
	const char **labels;
	uint32_t nl;
};

struct merged {
	struct plot_stream *const *s;
	size_t n;
	struct mchart *c;
	uint32_t nc;
};

static const struct plot_chart *chart_of(const struct plot_stream *s,
					 const char *metric)
{
	uint32_t i;

	for (i = 0; i < s->ncharts; i++)
		if (!strcmp(s->charts[i].metric, metric))
			return &s->charts[i];
	return NULL;
}

static int series_of(const struct plot_chart *ch, const char *label)
{
	uint32_t k;

	for (k = 0; ch && k < ch->nseries; k++)
		if (!strcmp(ch->labels[k], label))
			return (int)k;
	return -1;
}

static void merged_free(struct merged *m)
{
	uint32_t i;

	for (i = 0; m->c && i < m->nc; i++)
		free(m->c[i].labels);
	free(m->c);
	m->c = NULL;
}

/* The charts of streams p->streams[i, i + n): every metric, every label. */
static int merge(struct merged *m, const struct plot *p, size_t i, size_t n)
{
	uint32_t most = 0, c, k;
	size_t j;

	memset(m, 0, sizeof(*m));
	m->s = p->streams + i;
	m->n = n;
	for (j = 0; j < n; j++)
		most += m->s[j]->ncharts;
	m->c = calloc(most + 1, sizeof(*m->c));
	if (!m->c)
		return -ENOMEM;
	for (j = 0; j < n; j++) {
		const struct plot_stream *st = m->s[j];

		for (c = 0; c < st->ncharts; c++) {
			const struct plot_chart *ch = &st->charts[c];
			struct mchart *mc = NULL;
			uint32_t x, room = 0;
			size_t l;

			for (x = 0; x < m->nc; x++)
				if (!strcmp(m->c[x].first->metric, ch->metric))
					mc = &m->c[x];
			if (!mc) {
				mc = &m->c[m->nc++];
				mc->first = ch;
				for (l = j; l < n; l++) {
					const struct plot_chart *o =
						chart_of(m->s[l], ch->metric);

					room += o ? o->nseries : 0;
				}
				mc->labels = calloc(room + 1,
						    sizeof(*mc->labels));
				if (!mc->labels)
					return -ENOMEM;
			}
			for (k = 0; k < ch->nseries; k++) {
				for (x = 0; x < mc->nl; x++)
					if (!strcmp(mc->labels[x],
						    ch->labels[k]))
						break;
				if (x == mc->nl)
					mc->labels[mc->nl++] = ch->labels[k];
			}
		}
	}
	return 0;
}

static int count_point(void *priv, uint64_t t, double v, bool has)
{
	(void)t;
	(void)v;
	(void)has;
	(*(uint64_t *)priv)++;
	return 0;
}

/* x, then each chart's series: what plot_data_size() counts. */
static void stream_arrays(struct out *o, const struct plot_stream *s)
{
	struct arr a = { .o = o, .first = true };
	uint32_t c, k;

	puts_(o, "\"x\":[");
	pr_buckets_each(&s->b, 0, put_time, &a);
	puts_(o, "],\"charts\":[");
	for (c = 0; c < s->ncharts; c++) {
		const struct plot_chart *ch = &s->charts[c];

		say(o, "%s{\"title\":", c ? "," : "");
		json_str(o, ch->metric);
		say(o, ",\"unit\":\"%s\",\"rate\":%s,\"labels\":[",
		    unit_name[ch->unit], ch->rate ? "true" : "false");
		for (k = 0; k < ch->nseries; k++) {
			if (k)
				puts_(o, ",");
			json_str(o, ch->labels[k]);
		}
		puts_(o, "],\"y\":[");
		for (k = 0; k < ch->nseries; k++) {
			a = (struct arr){ .o = o, .first = true,
					  .rate = ch->rate };
			puts_(o, k ? ",[" : "[");
			pr_buckets_each(&s->b, ch->cols[k], put_value, &a);
			puts_(o, "]");
		}
		puts_(o, "]}");
	}
	puts_(o, "]");
}

/* The same for a collection's streams drawn together: "gap" where a
 * stream has no column of a series (the page's script breaks the line). */
static void merged_arrays(struct out *o, const struct merged *m)
{
	struct arr a = { .o = o, .first = true };
	uint64_t pts, q;
	uint32_t c, k;
	size_t j;

	puts_(o, "\"x\":[");
	for (j = 0; j < m->n; j++)
		pr_buckets_each(&m->s[j]->b, 0, put_time, &a);
	puts_(o, "],\"charts\":[");
	for (c = 0; c < m->nc; c++) {
		const struct mchart *mc = &m->c[c];

		say(o, "%s{\"title\":", c ? "," : "");
		json_str(o, mc->first->metric);
		say(o, ",\"unit\":\"%s\",\"rate\":%s,\"labels\":[",
		    unit_name[mc->first->unit],
		    mc->first->rate ? "true" : "false");
		for (k = 0; k < mc->nl; k++) {
			if (k)
				puts_(o, ",");
			json_str(o, mc->labels[k]);
		}
		puts_(o, "],\"y\":[");
		for (k = 0; k < mc->nl; k++) {
			a = (struct arr){ .o = o, .first = true,
					  .rate = mc->first->rate };
			puts_(o, k ? ",[" : "[");
			for (j = 0; j < m->n; j++) {
				const struct plot_stream *st = m->s[j];
				const struct plot_chart *ch =
					chart_of(st, mc->first->metric);
				int x = series_of(ch, mc->labels[k]);

				if (x >= 0) {
					pr_buckets_each(&st->b, ch->cols[x],
							put_value, &a);
					continue;
				}
				pts = 0;
				pr_buckets_each(&st->b, 0, count_point, &pts);
				for (q = 0; q < pts; q++) {
					say(o, "%s\"gap\"", a.first ? "" : ",");
					a.first = false;
				}
			}
			puts_(o, "]");
		}
		puts_(o, "]}");
	}
	puts_(o, "]");
}

uint64_t plot_data_size(const struct plot_stream *s)
{
	struct out o = { 0 };

	if (plotted(s))
		stream_arrays(&o, s);
	return o.n;
}

/* The gaps (damage: false) or damaged places of streams s[0, n). */
static void spans(struct out *o, const char *name,
		  struct plot_stream *const *s, size_t n, bool damage)
{
	bool first = true;
	size_t i, j;

	say(o, ",\"%s\":[", name);
	for (j = 0; j < n; j++) {
		const struct pr_spans *sp = damage ? &s[j]->damage :
						     &s[j]->gaps;

		for (i = 0; i < sp->len; i++) {
			say(o, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
			    first ? "" : ",", sp->s[i].t0, sp->s[i].t1,
			    sp->s[i].n);
			first = false;
		}
	}
	puts_(o, "]");
}

/* The events of streams no to last, on stream no's time axis. */
static void events(struct out *o, const struct plot *p,
		   const struct plot_stream *s, unsigned int no,
		   unsigned int last)
{
	bool first = true;
	size_t i;

	puts_(o, ",\"events\":[");
	for (i = 0; i < p->ev.n; i++) {
		const struct plot_event *e = &p->ev.e[i];
		uint64_t t = e->t;

		if (e->stream && (e->stream < no || e->stream > last))
			continue;
		if (e->wall) {
			if (!s->has_start || t < s->start_time)
				continue;
			t -= s->start_time;
		}
		say(o, "%s[%" PRIu64 ",", first ? "" : ",", t);
		json_str(o, e->label);
		puts_(o, "]");
		first = false;
	}
	puts_(o, "]");
}

static void data(struct out *o, const struct plot *p)
{
	bool first = true;
	size_t i, n;

	puts_(o, "<script type=\"application/json\" id=\"ksnap-data\">"
	      "{\"streams\":[");
	for (i = 0; i < p->nstreams; i += n) {
		const struct plot_stream *s = p->streams[i];
		struct merged m;

		n = run_at(p, i);
		if (!plotted(s))
			continue;
		puts_(o, first ? "{" : ",{");
		first = false;
		if (n > 1 && !merge(&m, p, i, n))
			merged_arrays(o, &m);
		else
			stream_arrays(o, s);
		if (n > 1)
			merged_free(&m);
		spans(o, "gaps", p->streams + i, n, false);
		spans(o, "damage", p->streams + i, n, true);
		events(o, p, s, (unsigned int)i + 1, (unsigned int)(i + n));
		puts_(o, "}");
	}
	puts_(o, "]}</script>\n");
}

/* --- the text -------------------------------------------------------- */

static void duration(struct out *o, uint64_t ns)
{
	if (ns >= 1000000000ULL)
		say(o, "%.3f s", (double)ns / 1e9);
	else if (ns >= 1000000)
		say(o, "%.3f ms", (double)ns / 1e6);
	else if (ns >= 1000)
		say(o, "%.3f &micro;s", (double)ns / 1e3);
	else
		say(o, "%" PRIu64 " ns", ns);
}

static void stream_name(struct out *o, const struct plot *p,
			const struct plot_stream *s)
{
	say(o, "stream %u", s->info.no);
	if (p->ninputs > 1 || p->nstreams > 1) {
		puts_(o, " of ");
		htmls(o, s->file);
	}
}

/* gVisor's warnings and the damage, at the top of the page. */
static bool banner_lines(struct out *o, const struct plot *p,
			 const struct plot_stream *s)
{
	const struct ksv_capture *c = &s->cap;
	const struct ksv_info *i = &s->info;
	bool any = false;

#define LINE(...) do {							\
		puts_(o, "<p>");					\
		stream_name(o, p, s);					\
		say(o, ": " __VA_ARGS__);				\
		puts_(o, "</p>\n");					\
		any = true;						\
	} while (0)
	if (s->has_stats && c->warn_capture)
		LINE("capture %.2f%% of the expected snapshots (%" PRIu64
		     " of %" PRIu64 "): below 99%%", c->rate * 100.0, c->seen,
		     c->expected);
	if (s->has_stats && c->warn_late)
		LINE("lateness averages %.2f%% of the period: above 10%%",
		     c->late_pct);
	if (s->has_stats && c->warn_read)
		LINE("read time averages %.2f%% of the period: above 10%%",
		     c->read_pct);
	if (s->has_stats && c->warn_backoff)
		LINE("backoff %.2f%% of the capture: above 5%%",
		     c->backoff_pct);
	if (i->status == KSNAP_VERIFY_DAMAGED)
		LINE("damaged, rows recovered: %" PRIu64 " rows cut or damaged, "
		     "%" PRIu64 " missing, %" PRIu64 " duplicate lines dropped"
		     "%s (below)", i->rows_bad, i->rows_missing, i->dup_lines,
		     i->sum_ok ? "" : ", whole-stream checksum mismatch");
	if (i->status == KSNAP_VERIFY_UNUSABLE)
		LINE("unusable: no column header, its rows cannot be read");
#undef LINE
	return any;
}

static void banner(struct out *o, const struct plot *p)
{
	struct out count = { 0 };
	size_t i;

	for (i = 0; i < p->nstreams; i++)
		banner_lines(&count, p, p->streams[i]);
	if (!count.n) {
		puts_(o, "<div class=\"banner ok\"><p>Every stream intact; "
		      "capture, lateness and read time within gVisor's "
		      "thresholds.</p></div>\n");
		return;
	}
	puts_(o, "<div class=\"banner\">\n");
	for (i = 0; i < p->nstreams; i++)
		banner_lines(o, p, p->streams[i]);
	puts_(o, "</div>\n");
}

static void stats_text(struct out *o, const struct plot_stream *s)
{
	const struct ksv_capture *c = &s->cap;
	const struct ksv_stats *st = &s->st;
	const char *k, *e;

	if (!s->has_stats) {
		puts_(o, "<p>No STATS line: the capture cannot be judged.</p>\n");
		return;
	}
	puts_(o, "<p>STATS: period ");
	duration(o, st->rate);
	say(o, ", %" PRIu64 " snapshots over %.3f s; ", st->total,
	    (double)c->dur / 1e9);
	if (c->judged)
		say(o, "capture %.2f%% of the expected; ", c->rate * 100.0);
	else
		puts_(o, "capture not judged (the STATS span no time); ");
	say(o, "lateness %.2f%% and read time %.2f%% of the period on "
	    "average", c->late_pct, c->read_pct);
	if (st->has_lost || st->has_missed)
		say(o, "; %" PRIu64 " snapshots lost (ring full), %" PRIu64
		    " periods missed", st->lost, st->missed);
	if (st->dropped)
		say(o, "; %" PRIu64 " rows dropped by ksnapd (output full)",
		    st->dropped);
	puts_(o, ".</p>\n<details><summary>Every STATS key</summary>"
	      "<table class=\"stats\">\n");
	for (k = s->stats_kv; k && *k; k = e + 1) {
		const char *tab = strchr(k, '\t');

		e = strchr(k, '\n');
		if (!tab || !e)
			break;
		puts_(o, "<tr><td>");
		html(o, k, (size_t)(tab - k));
		puts_(o, "</td><td>");
		html(o, tab + 1, (size_t)(e - tab - 1));
		puts_(o, "</td></tr>\n");
	}
	puts_(o, "</table></details>\n");
}

static void reduction_text(struct out *o, const struct plot *p,
			   const struct plot_stream *s)
{
	uint64_t pts = pr_buckets_points(&s->b);
	uint32_t used = pr_buckets_used(&s->b);

	if (pts == s->b.rows) {
		say(o, "<p class=\"note\">Every one of the %" PRIu64 " rows is "
		    "drawn: no reduction.</p>\n", s->b.rows);
		return;
	}
	say(o, "<p class=\"note\">Reduced: %" PRIu64 " rows into %u buckets "
	    "of ", s->b.rows, used);
	duration(o, s->b.w);
	say(o, "; each series keeps the minimum and the maximum of each "
	    "bucket, in the order they came (%" PRIu64 " points), so a spike "
	    "of a single row stays drawn at every zoom level.", pts);
	if (s->b.nb < p->o->buckets)
		say(o, " At most %u buckets (not %u) to keep the page under its "
		    "size cap.", s->b.nb, p->o->buckets);
	puts_(o, "</p>\n");
}

static void losses_text(struct out *o, const struct plot_stream *s)
{
	const struct ksv_info *i = &s->info;

	if (s->gaps.given) {
		say(o, "<p>Gaps in time (shaded): %" PRIu64 ", room for %"
		    PRIu64 " rows; %s.", s->gaps.given, s->gaps.total,
		    s->gaps_dropped ? "STATS counts them as snapshots the "
		    "module dropped (lost or missed periods), not lines lost" :
		    i->rows_missing ? "rows are missing by STATS' count (see "
		    "ksnap-verify's report below)" : "no STATS to tell rows "
		    "lost from snapshots dropped");
		if (s->gaps.len < s->gaps.given)
			say(o, " Shown as %zu shaded spans, neighbours merged.",
			    s->gaps.len);
		puts_(o, "</p>\n");
	}
	if (s->damage.given)
		say(o, "<p>Damaged or duplicated lines (red): %" PRIu64
		    " place(s); %" PRIu64 " rows cut or damaged, %" PRIu64
		    " duplicate lines dropped.</p>\n", s->damage.given,
		    i->rows_bad, i->dup_lines);
}

static void chart_divs(struct out *o, const struct plot_stream *s, size_t si)
{
	uint32_t c;

	for (c = 0; c < s->ncharts; c++) {
		const struct plot_chart *ch = &s->charts[c];

		puts_(o, "<h3>");
		htmls(o, ch->metric);
		puts_(o, ch->rate ? " <small>(cumulative: per second)</small>" :
		      "");
		puts_(o, "</h3>\n");
		if (ch->desc) {
			puts_(o, "<div class=\"desc\">");
			htmls(o, ch->desc);
			puts_(o, "</div>\n");
		}
		say(o, "<div class=\"chart\" id=\"c%zu_%u\"></div>\n", si, c);
		if (ch->resets)
			say(o, "<p class=\"note\">%" PRIu64 " counter reset(s): "
			    "no rate at those rows.</p>\n", ch->resets);
		if (ch->unlimited)
			say(o, "<p class=\"note\">%" PRIu64 " value(s) "
			    "18446744073709551615 (\"max\", no limit) not "
			    "drawn.</p>\n", ch->unlimited);
	}
}

/* The charts of streams drawn together (merged_arrays()), as chart si. */
static void merged_section(struct out *o, const struct plot *p, size_t i,
			   size_t n, size_t si)
{
	const struct plot_stream *a = p->streams[i], *z = p->streams[i + n - 1];
	struct merged m;
	uint32_t c;

	if (strcmp(a->file, z->file)) {
		puts_(o, "<h2>");
		htmls(o, a->file);
		puts_(o, " to ");
		htmls(o, z->file);
	} else {
		say(o, "<h2>Streams %u to %u", a->info.no, z->info.no);
		if (p->ninputs > 1) {
			puts_(o, " of ");
			htmls(o, a->file);
		}
	}
	say(o, ": one collection, %zu sets of columns</h2>\n<p>The "
	    "collection's cgroups changed while it ran, and each set of "
	    "columns is a stream of its own (its section follows). They are "
	    "drawn together here: a series is drawn where its column "
	    "exists, with a gap in the streams that have no such column."
	    "</p>\n", n);
	if (merge(&m, p, i, n))
		return;
	for (c = 0; c < m.nc; c++) {
		const struct plot_chart *ch = m.c[c].first;

		puts_(o, "<h3>");
		htmls(o, ch->metric);
		puts_(o, ch->rate ? " <small>(cumulative: per second)</small>" :
		      "");
		puts_(o, "</h3>\n");
		if (ch->desc) {
			puts_(o, "<div class=\"desc\">");
			htmls(o, ch->desc);
			puts_(o, "</div>\n");
		}
		say(o, "<div class=\"chart\" id=\"c%zu_%u\"></div>\n", si, c);
	}
	merged_free(&m);
}

/* A stream's section; together: its charts are drawn with the others of
 * its collection (merged_section()). */
static void stream_section(struct out *o, const struct plot *p,
			   const struct plot_stream *s, size_t si,
			   bool together)
{
	const struct ksv_info *i = &s->info;

	puts_(o, "<h2>");
	stream_name(o, p, s);
	say(o, ": lines %u-%u, %s, %s</h2>\n", i->first_line, i->last_line,
	    i->lossy ? "lossy" : "plain",
	    i->status == KSNAP_VERIFY_INTACT ? "intact" :
	    i->status == KSNAP_VERIFY_DAMAGED ? "damaged, rows recovered" :
	    "unusable");
	say(o, "<p>%" PRIu64 " intact rows", i->rows);
	if (s->b.rows) {
		puts_(o, " from t = ");
		duration(o, s->first_t);
		puts_(o, " to ");
		duration(o, s->last_t);
	}
	if (s->has_start) {
		time_t sec = (time_t)(s->start_time / 1000000000ULL);
		struct tm tm;
		char when[64];

		if (gmtime_r(&sec, &tm) &&
		    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm))
			say(o, "; the collection started %s (START_TIME)", when);
	}
	puts_(o, ".</p>\n");
	stats_text(o, s);
	losses_text(o, s);
	if (si == SIZE_MAX) {
		puts_(o, "<p>Nothing to draw: no intact row.</p>\n");
		return;
	}
	reduction_text(o, p, s);
	if (together)
		puts_(o, "<p>Drawn with the other streams of its collection, "
		      "above.</p>\n");
	else
		chart_divs(o, s, si);
}

static void events_text(struct out *o, const struct plot *p)
{
	size_t i;

	if (!p->ev.file)
		return;
	puts_(o, "<h2>Events</h2>\n<p>From ");
	htmls(o, p->ev.file);
	say(o, ": %zu event(s), marked on the charts (blue)", p->ev.n);
	if (p->ev.over)
		say(o, "; %" PRIu64 " more not shown", p->ev.over);
	if (p->ev.skipped)
		say(o, "; %" PRIu64 " line(s) not understood, skipped",
		    p->ev.skipped);
	puts_(o, ".</p>\n<table class=\"stats\">\n");
	for (i = 0; i < p->ev.n && i < 50; i++) {
		const struct plot_event *e = &p->ev.e[i];

		say(o, "<tr><td>%s%.6f s</td><td>", e->wall ? "wall " : "t = ",
		    (double)e->t / 1e9);
		htmls(o, e->label);
		puts_(o, "</td></tr>\n");
	}
	puts_(o, "</table>\n");
}

/* The named cgroups: each name and the path its series came from. */
static void names_text(struct out *o, const struct plot *p)
{
	size_t i;

	if (!p->nnames)
		return;
	say(o, "<h2>Containers by name</h2>\n<p>The streams' STATS name "
	    "%zu cgroup(s); their series carry the name.</p>\n"
	    "<details><summary>Each name and its cgroup</summary>"
	    "<table class=\"stats\">\n", p->nnames);
	for (i = 0; i < p->nnames; i++) {
		puts_(o, "<tr><td>");
		htmls(o, p->names[i].label);
		puts_(o, "</td><td>");
		htmls(o, p->names[i].path);
		puts_(o, "</td></tr>\n");
	}
	puts_(o, "</table></details>\n");
}

static void head(struct out *o, const struct plot *p, const char *css,
		 size_t css_len)
{
	size_t i;

	puts_(o, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
	      "<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; script-src 'unsafe-inline'; "
	      "style-src 'unsafe-inline'\">\n<title>");
	htmls(o, p->o->title);
	puts_(o, "</title>\n<style>\n");
	put(o, css, css_len);
	puts_(o, "\n</style>\n<style>\n");
	puts_(o, plot_page_css);
	puts_(o, "</style>\n</head>\n<body>\n<h1>");
	htmls(o, p->o->title);
	puts_(o, "</h1>\n<p class=\"note\">ksnap-plot " KSNAP_VERSION " of ");
	for (i = 0; i < p->ninputs; i++) {
		if (i)
			puts_(o, ", ");
		htmls(o, p->inputs[i]);
	}
	say(o, ": %" PRIu64 " intact rows in %zu stream(s)", p->rows,
	    p->nstreams);
	if (p->foreign)
		say(o, "; %" PRIu64 " lines of other programs skipped",
		    p->foreign);
	puts_(o, ".</p>\n");
}

int plot_write_page(const struct plot *p, FILE *f, const char *lib_js,
		    size_t lib_js_len, const char *lib_css, size_t lib_css_len)
{
	struct out o = { .f = f };
	size_t i, j, n, si = 0;

	head(&o, p, lib_css, lib_css_len);
	banner(&o, p);
	say(&o, "<p class=\"note\">Each stream's rows go into at most %u "
	    "buckets, and the page is kept under %.1f MiB: per series the "
	    "minimum and the maximum of every bucket are drawn, so no spike "
	    "is lost; zooming (drag across a chart; double-click to go back; "
	    "every chart of a stream follows) shows the same buckets larger. "
	    "Cumulative counters are drawn as rates per second between "
	    "consecutive rows.</p>\n", p->o->buckets,
	    (double)p->o->max_size / (1 << 20));
	puts_(&o, "<p class=\"note key\">Marks:<span class=\"gap\"></span>"
	      "gap in time<span class=\"dmg\"></span>damaged or duplicated "
	      "lines<span class=\"ev\"></span>event</p>\n");
	for (i = 0; i < p->nstreams; i += n) {
		const struct plot_stream *s = p->streams[i];

		n = run_at(p, i);
		if (n == 1) {
			stream_section(&o, p, s, plotted(s) ? si++ : SIZE_MAX,
				       false);
			continue;
		}
		merged_section(&o, p, i, n, si);
		for (j = i; j < i + n; j++)
			stream_section(&o, p, p->streams[j], si, true);
		si++;
	}
	events_text(&o, p);
	names_text(&o, p);
	puts_(&o, "<h2>What ksnap-verify says of the input</h2>\n"
	      "<pre class=\"report\">");
	if (p->report)
		html(&o, p->report, p->report_len);
	if (p->report_lines_over)
		say(&o, "... and %" PRIu64 " more lines (ksnap-verify prints "
		    "them all)\n", p->report_lines_over);
	puts_(&o, "</pre>\n");
	data(&o, p);
	puts_(&o, "<script>\n");
	put(&o, lib_js, lib_js_len);
	puts_(&o, "\n</script>\n<script>\n");
	puts_(&o, plot_page_js);
	puts_(&o, "</script>\n</body></html>\n");
	return ferror(f) ? -EIO : 0;
}

// SPDX-License-Identifier: MIT
/*
 * The checks of one stream line against the stream so far: its type's
 * contents, duplicates of earlier lines, rows in time order, the
 * whole-stream Adler-32.  What they find goes to the walk's finding
 * callback; what they keep (the rows, the META lines, the lines there is
 * one of) stays in struct ksv_stream until the stream's end.
 */
#define _GNU_SOURCE	/* memrchr */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "verify_gaps.h"
#include "verify_lex.h"
#include "verify_lines.h"
#include "verify_stats.h"
#include "verify_stream.h"

static bool same_body(const char *a, size_t a_len, const struct ksv_line *b)
{
	return a_len == b->body_len && !memcmp(a, b->body, a_len);
}

static bool same_line(const struct ksv_line *a, const struct ksv_line *b)
{
	return same_body(a->body, a->body_len, b);
}

void ksv_flush_dups(struct ksv_stream *s)
{
	struct ksv_finding f = { .what = KSV_DUPLICATE };

	if (!s->dup.on)
		return;
	s->dup.on = false;
	f.line = s->dup.from;
	f.dup.from = s->dup.from;
	f.dup.to = s->dup.to;
	f.dup.orig_from = s->dup.orig_from;
	f.dup.orig_to = s->dup.orig_to;
	f.dup.rows = s->dup.rows;
	f.dup.t0 = s->dup.t0;
	f.dup.t1 = s->dup.t1;
	ksv_emit(s, &f);
}

/*
 * l repeats line orig: dropped.  Consecutive duplicates of consecutive
 * lines (a flush block written twice) make one finding.
 */
static void mark_dup(struct ksv_stream *s, struct ksv_line *l, uint32_t orig,
		     bool row, uint64_t t)
{
	struct ksv_dup_run *d = &s->dup;

	l->dup = true;
	s->info.dup_lines++;
	if (d->on && orig > d->orig_to) {
		d->to = l->no;
		d->orig_to = orig;
	} else {
		ksv_flush_dups(s);
		d->on = true;
		d->from = d->to = l->no;
		d->orig_from = d->orig_to = orig;
		d->rows = 0;
	}
	if (row) {
		if (!d->rows++)
			d->t0 = t;
		d->t1 = t;
	}
}

static int note_bad_row(struct ksv_stream *s)
{
	size_t k = s->nr_rows;

	if (s->streaming) {
		s->bad_since++;
		s->rows_bad++;
		return 0;
	}
	if (k >= s->cap_bad) {
		size_t cap = (k + 1) * 2, i;
		uint32_t *b = realloc(s->bad_after, cap * sizeof(*b));

		if (!b)
			return -ENOMEM;
		for (i = s->cap_bad; i < cap; i++)
			b[i] = 0;
		s->bad_after = b;
		s->cap_bad = cap;
	}
	s->bad_after[k]++;
	s->rows_bad++;
	return 0;
}

/* The finding's line, type, and a row's time as its digits say. */
static void about_line(struct ksv_finding *f, const struct ksv_line *l)
{
	f->line = l->no;
	f->kind = (enum ksv_kind)l->kind;
	f->has_t = l->kind == KSV_K_ROW &&
		   ksv_leading_u64(l->body, l->body_len, &f->t);
}

static void where(const struct ksv_stream *s, struct ksv_where *w)
{
	w->after_row = s->have_last_row;
	w->before_rows = !s->have_last_row && s->info.has_header;
	w->row_line = s->last_row_line;
	w->row_t = s->last_row_t;
}

/* A cut or damaged line (why: if not the lexer's reason): dropped. */
static int bad_line(struct ksv_stream *s, struct ksv_line *l, const char *why)
{
	struct ksv_finding f = { .what = KSV_BAD_LINE };

	ksv_flush_dups(s);
	if (l->state == KSV_S_OK)
		l->state = KSV_S_DAMAGED;
	if (why)
		l->why = why;
	s->info.bad_lines++;
	about_line(&f, l);
	f.bad.state = (enum ksv_state)l->state;
	f.bad.why = l->why;
	if (l->has_sums && l->said_hex) {
		f.bad.said_hex = l->said_hex;
		f.bad.said_hex_len = l->said_hex_len;
		f.bad.computed = l->sum_got;
	}
	f.bad.prefix_bad = l->prefix_bad;
	where(s, &f.bad.where);
	ksv_emit(s, &f);
	if (l->kind == KSV_K_ROW)
		return note_bad_row(s);
	return 0;
}

/* A line a stream has one of, seen again: a duplicate of the first (no
 * finding of its own), or damage for why. */
static int again(struct ksv_stream *s, struct ksv_line *l,
		 const struct ksv_line *first, const char *why)
{
	if (same_line(first, l)) {
		mark_dup(s, l, first->no, false, 0);
		return 0;
	}
	return bad_line(s, l, why);
}

/*
 * One byte of the prefix, or of the "<TAB>0x" of the checksum, altered,
 * and the line's checksum digits match it: damage, said so, but its
 * content is intact and kept.
 */
static void repaired_line(struct ksv_stream *s, const struct ksv_line *l)
{
	struct ksv_finding f = { .what = KSV_REPAIRED_LINE };

	ksv_flush_dups(s);
	s->info.bad_lines++;
	s->repaired++;
	about_line(&f, l);
	f.bad.state = KSV_S_DAMAGED;
	f.bad.prefix_bad = l->prefix_bad;
	where(s, &f.bad.where);
	ksv_emit(s, &f);
}

static int check_meta(struct ksv_stream *s, struct ksv_line *l)
{
	const char *name, *n2;
	size_t len, len2, k;
	struct ksv_ref *m;

	if (!ksv_lex_meta(l->body, l->body_len, &name, &len, NULL, NULL))
		return bad_line(s, l, "not \"META<TAB>name<TAB>json\"");
	for (k = 0; k < s->nr_metas; k++) {
		const struct ksv_ref *o = &s->metas[k];

		if (same_body(o->body, o->len, l)) {
			mark_dup(s, l, o->no, false, 0);
			return 0;
		}
		ksv_lex_meta(o->body, o->len, &n2, &len2, NULL, NULL);
		if (len == len2 && !memcmp(name, n2, len))
			return bad_line(s, l, "a second META line for "
					"this metric, different from the "
					"first");
	}
	ksv_flush_dups(s);
	m = realloc(s->metas, (s->nr_metas + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	s->metas = m;
	m[s->nr_metas++] = (struct ksv_ref){ .body = l->body,
					     .len = l->body_len, .no = l->no };
	return 0;
}

/* Is there a META line for the metric of header cell [p, p + n)? */
static bool has_meta(const struct ksv_stream *s, const char *p, size_t n)
{
	const char *br = memchr(p, '[', n), *name;
	size_t k, len;

	if (br)
		n = (size_t)(br - p);
	for (k = 0; k < s->nr_metas; k++) {
		const struct ksv_ref *m = &s->metas[k];

		if (ksv_lex_meta(m->body, m->len, &name, &len, NULL, NULL) &&
		    len == n && !memcmp(name, p, n))
			return true;
	}
	return false;
}

/* Every column's metric needs its META line (gVisor's reader refuses
 * the header otherwise). */
static int column_has_meta(void *priv, uint32_t k, const char *name,
			   size_t len)
{
	struct ksv_stream *s = priv;
	struct ksv_finding f = { .what = KSV_NO_META };

	(void)k;
	if (has_meta(s, name, len))
		return 0;
	s->info.missing_lines++;
	f.line = s->header.no;
	f.kind = KSV_K_META;
	f.column.name = name;
	f.column.len = len;
	ksv_emit(s, &f);
	return 0;
}

static int check_header(struct ksv_stream *s, struct ksv_line *l)
{
	size_t fields = ksv_count_fields(l->body, l->body_len);

	if (s->info.has_header)
		return again(s, l, &s->header, "a second column header, "
			     "different from the first");
	if (s->info.lossy) {
		const char *tab = memrchr(l->body, '\t', l->body_len);

		if (!tab || (size_t)(l->body + l->body_len - tab) !=
			    KSV_SUM_COLUMN_LEN ||
		    memcmp(tab, KSV_SUM_COLUMN, KSV_SUM_COLUMN_LEN))
			return bad_line(s, l, "no \"Checksum\" column last");
		fields--;
	}
	ksv_flush_dups(s);
	s->header = *l;
	s->info.has_header = true;
	s->info.ncols = (uint32_t)(fields - 1);
	if (s->streaming) {
		s->row_v = calloc(fields, sizeof(*s->row_v));
		if (!s->row_v)
			return -ENOMEM;
	}
	return ksv_stream_columns(s, column_has_meta, s);
}

/* Index of the first row with time >= t. */
static size_t find_row(const struct ksv_stream *s, uint64_t t)
{
	size_t lo = 0, hi = s->nr_rows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->rows[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keep row l at time t as rows[at], the rows staying in time order. */
static int push_row(struct ksv_stream *s, const struct ksv_line *l,
		    uint64_t t, size_t at)
{
	if (s->nr_rows == s->cap_rows) {
		size_t cap = s->cap_rows ? 2 * s->cap_rows : 256;
		struct ksv_ref *r = realloc(s->rows, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->rows = r;
		s->cap_rows = cap;
	}
	memmove(&s->rows[at + 1], &s->rows[at],
		(s->nr_rows - at) * sizeof(*s->rows));
	s->rows[at] = (struct ksv_ref){ .body = l->body, .len = l->body_len,
					.t = t, .no = l->no };
	s->nr_rows++;
	s->last_row_line = l->no;
	s->last_row_t = t;
	s->have_last_row = true;
	return 0;
}

static int orphan_row(struct ksv_stream *s, const struct ksv_line *l)
{
	struct ksv_finding f = { .what = KSV_ORPHAN_ROW };

	ksv_flush_dups(s);
	s->orphans++;
	s->info.bad_lines++;
	f.line = l->no;
	f.kind = KSV_K_ROW;
	ksv_emit(s, &f);
	return 0;
}

/* --- streaming: the last rows only ----------------------------------- */

static struct ksv_ref *win_at(const struct ksv_stream *s, size_t i)
{
	return &s->win[(s->win_head + i) % s->win_cap];
}

/* Index in the window of the first row with time >= t. */
static size_t win_find(const struct ksv_stream *s, uint64_t t)
{
	size_t lo = 0, hi = s->win_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (win_at(s, mid)->t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keep the row in the window, the oldest going when it is full. */
static int win_push(struct ksv_stream *s, const struct ksv_line *l,
		    uint64_t t)
{
	struct ksv_ref r = { .body = l->body, .len = l->body_len, .t = t,
			     .no = l->no };

	if (s->win_n == s->win_cap && s->win_cap < KSV_WINDOW) {
		size_t cap = s->win_cap ? 2 * s->win_cap : 256;
		struct ksv_ref *w = malloc(cap * sizeof(*w));
		size_t i;

		if (!w)
			return -ENOMEM;
		for (i = 0; i < s->win_n; i++)
			w[i] = *win_at(s, i);
		free(s->win);
		s->win = w;
		s->win_cap = cap;
		s->win_head = 0;
	}
	if (s->win_n == s->win_cap) {
		s->win_head = (s->win_head + 1) % s->win_cap;
		s->win_n--;
	}
	*win_at(s, s->win_n++) = r;
	return 0;
}

/* The gap before a new row at t: told now, not at the stream's end. */
static void stream_gap(struct ksv_stream *s, const struct ksv_line *l,
		       uint64_t t)
{
	struct ksv_finding f = { .what = KSV_GAP };
	uint64_t sl;

	if (!s->have_last_row || !s->period)
		return;
	sl = ksv_slots_in(t - s->last_row_t, s->period);
	sl = sl > s->bad_since ? sl - s->bad_since : 0;
	if (!sl)
		return;
	s->gap_slots += sl;
	f.line = l->no;
	f.gap.slots = sl;
	f.gap.from_line = s->last_row_line;
	f.gap.from_t = s->last_row_t;
	f.gap.to_line = l->no;
	f.gap.to_t = t;
	ksv_emit(s, &f);
}

/*
 * A row of a stream read as it comes: a duplicate among the last rows,
 * or in time order and delivered now; anything else is damage.
 */
static int stream_row(struct ksv_stream *s, struct ksv_line *l, uint64_t t)
{
	struct ksv_row r = { .t = t, .v = s->row_v, .ncols = s->info.ncols,
			     .line = l->no, .text = l->body,
			     .text_len = l->body_len };
	int ret;

	if (s->have_last_row && t <= s->last_row_t) {
		size_t at = win_find(s, t);
		const struct ksv_ref *o = at < s->win_n ? win_at(s, at) : NULL;

		if (o && o->t == t && same_body(o->body, o->len, l)) {
			mark_dup(s, l, o->no, true, t);
			return 0;
		}
		if (o && o->t == t)
			return bad_line(s, l, "same time as an earlier row, "
					"other values");
		s->info.out_of_order = true;
		return bad_line(s, l, "out of time order (not after the row "
				"before it): dropped, the rows being read as "
				"they come");
	}
	ksv_flush_dups(s);
	stream_gap(s, l, t);
	ret = win_push(s, l, t);
	if (ret)
		return ret;
	s->nr_rows++;
	s->bad_since = 0;
	s->last_row_line = l->no;
	s->last_row_t = t;
	s->have_last_row = true;
	return s->ops->row(s->ops->priv, s, &r);
}

/* A row: as many fields as the header, numbers, a new time. */
static int check_row(struct ksv_stream *s, struct ksv_line *l)
{
	size_t fields = ksv_count_fields(l->body, l->body_len), at;
	uint64_t t = 0;

	if (!s->info.has_header)
		return orphan_row(s, l);
	if (fields != s->info.ncols + 1u) {
		l->state = fields < s->info.ncols + 1u ? KSV_S_CUT :
			   KSV_S_DAMAGED;
		return bad_line(s, l, fields < s->info.ncols + 1u ?
				"fewer fields than the header" :
				"more fields than the header");
	}
	if (!ksv_lex_row(l->body, l->body_len, &t, s->row_v))
		return bad_line(s, l, "not an unsigned 64-bit decimal value");
	if (s->streaming)
		return stream_row(s, l, t);
	at = find_row(s, t);
	if (at < s->nr_rows && s->rows[at].t == t) {
		const struct ksv_ref *o = &s->rows[at];

		if (same_body(o->body, o->len, l)) {
			mark_dup(s, l, o->no, true, t);
			return 0;
		}
		return bad_line(s, l, "same time as an earlier row, other "
				"values");
	}
	ksv_flush_dups(s);
	if (at < s->nr_rows) {
		struct ksv_finding f = { .what = KSV_OUT_OF_ORDER };

		s->info.out_of_order = true;
		about_line(&f, l);
		f.t = t;
		f.after_t = s->rows[s->nr_rows - 1].t;
		ksv_emit(s, &f);
	}
	return push_row(s, l, t, at);
}

static int check_stats(struct ksv_stream *s, struct ksv_line *l)
{
	struct ksv_stats st;

	if (s->has_stats)
		return again(s, l, &s->stats, "a second STATS line, "
			     "different from the first");
	if (!ksv_parse_stats(l, &st))
		return bad_line(s, l, "not the JSON of collection "
				"statistics");
	ksv_flush_dups(s);
	s->stats = *l;
	s->has_stats = true;
	s->st = st;
	s->st_ok = true;
	return 0;
}

static int check_start(struct ksv_stream *s, struct ksv_line *l)
{
	uint64_t v;

	if (s->has_start)
		return again(s, l, &s->start_time, "a second START_TIME");
	if (!ksv_lex_start_time(l->body, l->body_len, &v))
		return bad_line(s, l, "not a decimal time");
	ksv_flush_dups(s);
	s->start_time = *l;
	s->has_start = true;
	return 0;
}

/* The final ADLER32 line: the whole-stream checksum so far. */
static int check_adler(struct ksv_stream *s, struct ksv_line *l)
{
	if (l->state != KSV_S_OK)
		return bad_line(s, l, NULL);
	if (l->prefix_bad)
		repaired_line(s, l);
	if (s->has_adler)
		return again(s, l, &s->adler, "a second ADLER32 line, "
			     "different from the first");
	ksv_flush_dups(s);
	s->adler = *l;
	s->has_adler = true;
	s->said = l->sum_said;
	s->sum_matched = s->sum_all == s->said || s->sum_nodup == s->said;
	return 0;
}

static int check_content(struct ksv_stream *s, struct ksv_line *l)
{
	if (l->state != KSV_S_OK)
		return bad_line(s, l, NULL);
	if (l->prefix_bad || l->suffix_bad)
		repaired_line(s, l);
	switch (l->kind) {
	case KSV_K_META:
		return check_meta(s, l);
	case KSV_K_START:
		return check_start(s, l);
	case KSV_K_HEADER:
		return check_header(s, l);
	case KSV_K_ROW:
		return check_row(s, l);
	case KSV_K_STATS:
		return check_stats(s, l);
	default:
		return bad_line(s, l, "unexpected line (not META, "
				"START_TIME, header, row or STATS)");
	}
}

/* As gVisor's reader: the text after the prefix, then "\n". */
static void sum_line(struct ksv_stream *s, const struct ksv_line *l)
{
	static const Bytef nl = '\n';

	if (!s->info.lossy)
		return;
	s->sum_all = adler32(s->sum_all, (const Bytef *)l->full,
			     (uInt)l->full_len);
	s->sum_all = adler32(s->sum_all, &nl, 1);
	if (l->dup)
		return;
	s->sum_nodup = adler32(s->sum_nodup, (const Bytef *)l->full,
			       (uInt)l->full_len);
	s->sum_nodup = adler32(s->sum_nodup, &nl, 1);
}

int ksv_check_line(struct ksv_stream *s, struct ksv_line *l)
{
	int ret;

	if (l->kind == KSV_K_ADLER)
		return check_adler(s, l);
	ret = check_content(s, l);
	if (!ret && s->has_adler && !l->dup && l->state == KSV_S_OK) {
		struct ksv_finding f = { .what = KSV_AFTER_ADLER };

		ksv_flush_dups(s);
		about_line(&f, l);
		f.has_t = false;
		ksv_emit(s, &f);
		s->info.bad_lines++;
		l->state = KSV_S_DAMAGED;
	}
	sum_line(s, l);
	return ret;
}

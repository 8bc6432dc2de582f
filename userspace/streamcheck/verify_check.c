// SPDX-License-Identifier: MIT
/*
 * The walk over a log (see verify_check.h): decide the variant, report
 * the lines of no stream, cut the stream lines into streams, and check
 * each stream with its own struct ksv_stream: line by line
 * (verify_lines.c), then as a whole (the lines there must be one of, the
 * rows STATS counts in verify_gaps.c, the whole-stream checksum).
 *
 * The log is read several times instead of kept as a table of lines:
 * lexing a line again is cheap, and memory stays bounded by the rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "verify_check.h"
#include "verify_gaps.h"
#include "verify_lex.h"
#include "verify_lines.h"
#include "verify_stats.h"
#include "verify_stream.h"

struct walk {
	const char *buf;
	size_t len;
	bool lossy;
	const struct ksv_ops *ops;
	struct ksv_log *log;
};

/* Where the stream being cut out of the log is. */
struct split {
	struct ksv_cursor pending;	/* META lines that may begin the next */
	bool has_pending;
	bool ended;			/* its STATS or ADLER32 was seen */
	bool have_start;
	uint64_t start;			/* its START_TIME */
};

/* Tell the caller how far this pass has read, every 64 Ki lines. */
static void progress(const struct walk *w, const struct ksv_cursor *c)
{
	if (w->ops->progress && !(c->no & 0xffff))
		w->ops->progress(w->ops->priv, c->pos);
}

/* Count the lines, and the foreign ones in ranges for one finding. */
static void find_foreign(struct walk *w)
{
	struct ksv_finding f = { .what = KSV_FOREIGN };
	bool run = false, listed = false;
	struct ksv_cursor c;
	struct ksv_line l;

	ksv_cursor_init(&c, w->buf, w->len);
	while (ksv_cursor_next(&c, w->lossy, &l)) {
		unsigned int *nr = &f.foreign.nr_ranges;

		progress(w, &c);
		if (l.kind != KSV_K_FOREIGN) {
			run = false;
			continue;
		}
		f.foreign.count++;
		if (run) {
			if (listed)
				f.foreign.to[*nr - 1] = l.no;
			continue;
		}
		run = true;
		listed = *nr < KSV_MAX_RANGES;
		if (!listed) {
			f.foreign.more = true;
			continue;
		}
		f.foreign.from[*nr] = f.foreign.to[*nr] = l.no;
		(*nr)++;
	}
	w->log->lines = c.no;
	w->log->foreign = f.foreign.count;
	if (f.foreign.count && w->ops->finding)
		w->ops->finding(w->ops->priv, NULL, &f);
}

/* Streaming: the times of the first rows, for the period. */
struct steps {
	uint64_t *t;
	size_t n;
};

/*
 * Streaming: what the gaps are measured by, known before the rows are
 * checked: the rate of the STATS line the checks will take (the first
 * intact one that parses), else the rows' median step.
 */
static void find_period(struct ksv_stream *s, const struct ksv_line *l,
			struct steps *st)
{
	struct ksv_stats stats;

	if (l->state != KSV_S_OK || s->has_stats)
		return;
	if (l->kind == KSV_K_STATS && ksv_parse_stats(l, &stats)) {
		s->period = stats.rate;
		s->has_stats = true;	/* found; reset before the checks */
	} else if (l->kind == KSV_K_ROW && st->t && st->n < KSV_PERIOD_ROWS &&
		   ksv_leading_u64(l->body, l->body_len, &st->t[st->n])) {
		st->n++;
	}
}

/* The stream's first and last stream lines in [first, end), and when
 * streaming its period. */
static int stream_range(const struct walk *w, const struct ksv_cursor *first,
			size_t end, struct ksv_stream *s)
{
	struct ksv_info *info = &s->info;
	struct ksv_cursor c = *first;
	struct steps st = { 0 };
	struct ksv_line l;
	bool found = false;

	if (s->streaming) {
		st.t = malloc(KSV_PERIOD_ROWS * sizeof(*st.t));
		if (!st.t)
			return -ENOMEM;
	}
	info->first_line = info->last_line = first->no + 1;
	while (c.pos < end && ksv_cursor_next(&c, w->lossy, &l)) {
		progress(w, &c);
		if (!ksv_is_stream_line(&l))
			continue;
		if (!found)
			info->first_line = l.no;
		found = true;
		info->last_line = l.no;
		if (s->streaming)
			find_period(s, &l, &st);
	}
	if (s->streaming && !s->has_stats)
		s->period = ksv_median_step(st.t, st.n);
	s->has_stats = false;
	free(st.t);
	return 0;
}

static void missing_line(struct ksv_stream *s, enum ksv_kind kind,
			 uint32_t line)
{
	struct ksv_finding f = { .what = KSV_MISSING_LINE };

	s->info.missing_lines++;
	f.kind = kind;
	f.line = line;
	ksv_emit(s, &f);
}

/* The lines a stream has one of. */
static void check_structure(struct ksv_stream *s)
{
	if (!s->has_start)
		missing_line(s, KSV_K_START, 0);
	if (!s->info.has_header)
		missing_line(s, KSV_K_HEADER, 0);
	/* Nothing lost (the sum says), nothing dropped (a line whose
	 * prefix or "<TAB>0x" was altered is kept): ended so on purpose. */
	if (!s->has_stats && s->info.lossy && s->has_adler &&
	    s->sum_all == s->said && s->info.bad_lines == s->repaired) {
		struct ksv_finding f = { .what = KSV_ENDED_NO_STATS };

		ksv_emit(s, &f);
	} else if (!s->has_stats) {
		missing_line(s, KSV_K_STATS, 0);
	}
	if (s->info.lossy && !s->has_adler)
		missing_line(s, KSV_K_ADLER, s->info.last_line);
}

/* The whole-stream checksum against the lines found. */
static void check_sum(struct ksv_stream *s)
{
	struct ksv_finding f = { .what = KSV_SUM };
	const struct ksv_info *i = &s->info;

	if (!i->lossy || !s->has_adler)
		return;
	f.sum.said = s->said;
	if (s->sum_all == s->said) {
		f.sum.result = KSV_SUM_MATCH;
		f.sum.computed = (uint32_t)s->sum_all;
	} else if (s->sum_nodup == s->said) {
		f.sum.result = KSV_SUM_MATCH_NODUP;
		f.sum.computed = (uint32_t)s->sum_nodup;
	} else {
		f.sum.result = KSV_SUM_MISMATCH;
		f.sum.computed = (uint32_t)s->sum_nodup;
		/* Nothing else found: lines went missing unseen. */
		if (!i->bad_lines && !i->missing_lines && !i->rows_missing &&
		    !i->out_of_order) {
			f.sum.unexplained = true;
			s->info.missing_lines++;
		}
	}
	s->info.sum = f.sum.result;
	ksv_emit(s, &f);
}

static void stream_verdict(struct ksv_stream *s)
{
	struct ksv_info *i = &s->info;

	i->rows = s->nr_rows;
	i->rows_bad = s->rows_bad + s->orphans;
	i->sum_ok = !i->lossy || s->sum_matched;
	if (!i->has_header)
		i->status = KSNAP_VERIFY_UNUSABLE;
	else if (i->bad_lines || i->dup_lines || i->missing_lines ||
		 i->out_of_order || i->rows_missing || !i->sum_ok)
		i->status = KSNAP_VERIFY_DAMAGED;
}

static int check_lines(const struct walk *w, struct ksv_stream *s,
		       const struct ksv_cursor *first, size_t end)
{
	struct ksv_cursor c = *first;
	struct ksv_line l;
	int ret = 0;

	while (!ret && c.pos < end && ksv_cursor_next(&c, w->lossy, &l)) {
		progress(w, &c);
		if (ksv_is_stream_line(&l))
			ret = ksv_check_line(s, &l);
	}
	ksv_flush_dups(s);
	return ret;
}

/* Check the stream in the lines from first to byte end, number no. */
static int check_stream(struct walk *w, const struct ksv_cursor *first,
			size_t end, unsigned int no)
{
	struct ksv_stream s;
	int ret = 0;

	memset(&s, 0, sizeof(s));
	s.ops = w->ops;
	s.info.no = no;
	s.info.lossy = w->lossy;
	s.sum_all = s.sum_nodup = adler32(0L, Z_NULL, 0);
	s.streaming = w->ops->row != NULL;
	ret = stream_range(w, first, end, &s);
	if (!ret && w->ops->begin)
		ret = w->ops->begin(w->ops->priv, &s);
	if (!ret)
		ret = check_lines(w, &s, first, end);
	if (ret)
		goto out;
	check_structure(&s);
	ksv_check_rows(&s);
	check_sum(&s);
	stream_verdict(&s);
	w->log->streams = no;
	if (w->ops->end)
		ret = w->ops->end(w->ops->priv, &s);
out:
	free(s.rows);
	free(s.metas);
	free(s.bad_after);
	free(s.win);
	free(s.row_v);
	return ret;
}

/*
 * Does line l, at cursor at, begin a new stream?  A META or START_TIME
 * line after the current stream's STATS or ADLER32, or a START_TIME whose
 * value differs from the current stream's; the META lines just before
 * such a START_TIME go with it.  Returns where the new stream begins.
 */
static const struct ksv_cursor *split_at(struct split *sp,
					 const struct ksv_line *l,
					 const struct ksv_cursor *at,
					 uint64_t *v)
{
	switch (l->kind) {
	case KSV_K_META:
		if (sp->ended)
			return at;
		if (sp->have_start && !sp->has_pending) {
			sp->pending = *at;
			sp->has_pending = true;
		}
		return NULL;
	case KSV_K_START:
		*v = 0;
		ksv_lex_start_time(l->body, l->body_len, v);
		if (sp->ended || (sp->have_start && *v != sp->start))
			return sp->has_pending ? &sp->pending : at;
		return NULL;
	case KSV_K_STATS:
	case KSV_K_ADLER:
		sp->ended = true;
		return NULL;
	default:
		return NULL;
	}
}

/* Cut the log into streams (intact lines only decide) and check each. */
static int walk_streams(struct walk *w)
{
	struct ksv_cursor c, at, first;
	struct split sp = { 0 };
	unsigned int no = 0;
	struct ksv_line l;
	int ret;

	ksv_cursor_init(&c, w->buf, w->len);
	first = c;
	for (at = c; ksv_cursor_next(&c, w->lossy, &l); at = c) {
		const struct ksv_cursor *cut;
		uint64_t v = 0;

		progress(w, &c);
		if (!ksv_is_stream_line(&l) || l.state != KSV_S_OK)
			continue;
		cut = split_at(&sp, &l, &at, &v);
		if (cut && cut->pos > first.pos) {
			struct ksv_cursor next = *cut;

			ret = check_stream(w, &first, next.pos, ++no);
			if (ret)
				return ret;
			/* Again from there, in the new stream. */
			first = c = next;
			memset(&sp, 0, sizeof(sp));
			continue;
		}
		if (l.kind == KSV_K_START) {
			sp.start = v;
			sp.have_start = true;
		}
		if (l.kind != KSV_K_META)
			sp.has_pending = false;
	}
	return check_stream(w, &first, w->len, ++no);
}

int ksv_walk(const char *buf, size_t len, const struct ksv_ops *ops,
	     struct ksv_log *log)
{
	struct walk w = { .buf = buf, .len = len, .ops = ops, .log = log };
	size_t lines = 0;
	int ret;

	memset(log, 0, sizeof(*log));
	ret = ksv_lex_variant(buf, len, &w.lossy, &lines);
	log->lossy = w.lossy;
	if (ret) {
		log->lines = lines;
		return ret;
	}
	find_foreign(&w);
	return walk_streams(&w);
}

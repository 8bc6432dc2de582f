// SPDX-License-Identifier: MIT
/*
 * ksnap-verify's parser (see verify_parse.h for what each finding means).
 *
 * Three passes over the input: classify every line (foreign, empty, which
 * stream line, intact/cut/damaged), cut the stream lines into streams, then
 * check each stream: structure, duplicates, row order, row count against
 * STATS, gaps in time, the whole-stream Adler-32.
 */
#define _GNU_SOURCE	/* memrchr */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "verify_parse.h"

#define PREFIX		"GVISOR_METRICS\t"
#define PREFIX_LEN	(sizeof(PREFIX) - 1)
#define TIME_COLUMN	"Time (ns)"
#define MAX_LISTED	20	/* gaps and foreign ranges listed in full */

enum kind {
	K_EMPTY,
	K_FOREIGN,
	K_META,
	K_START,
	K_HEADER,
	K_ROW,
	K_STATS,
	K_ADLER,
	K_UNKNOWN,	/* stream line of no known type */
};

enum state {
	S_OK,
	S_CUT,
	S_DAMAGED,
};

static const char *const kind_name[] = {
	[K_EMPTY] = "empty line",
	[K_FOREIGN] = "foreign line",
	[K_META] = "META line",
	[K_START] = "START_TIME line",
	[K_HEADER] = "column header",
	[K_ROW] = "row",
	[K_STATS] = "STATS line",
	[K_ADLER] = "ADLER32 line",
	[K_UNKNOWN] = "line of unknown type",
};

struct line {
	const char *full;	/* after the prefix, without "\n" */
	size_t full_len;
	const char *body;	/* without the lossy checksum suffix */
	size_t body_len;
	uint32_t no;		/* 1-based input line number */
	uint8_t kind;
	uint8_t state;
	bool nl;		/* ended by "\n" */
	bool dup;
	const char *why;	/* for cut and damaged lines */
	uint32_t sum_said, sum_got;
	bool has_sums;
	/* lossy: one byte of the prefix, or of "<TAB>0x" before the
	 * checksum digits, altered (the line is damage, not foreign) */
	bool prefix_bad, suffix_bad;
	const char *said_hex;	/* the checksum digits as written */
	size_t said_hex_len;
};

struct row {
	uint64_t t;
	size_t line;		/* index in lines[] */
};

struct stats {
	bool ok;
	uint64_t rate, start, last, total, sleep_err, coll_err;
	uint64_t backoffs, backoff_ns, lost, missed, taken, dropped;
	uint64_t overwritten, first_position, earlier;
	bool has_lost, has_missed, has_taken;
};

struct ctx {
	const struct ksnap_verify_opts *o;
	FILE *rep;
	FILE *tsv;
	struct ksnap_verify_result *res;
	bool lossy;
	struct line *lines;
	size_t nr_lines;
};

struct stream {
	unsigned int no;
	size_t first, end;		/* lines[first, end) */
	size_t start_time, header, stats, adler;	/* index or SIZE_MAX */
	size_t *metas;
	size_t nr_metas;
	uint32_t ncols;
	struct row *rows;
	size_t nr_rows, cap_rows;
	/* bad_after[k]: cut/damaged rows seen while k rows were accepted */
	uint32_t *bad_after;
	size_t cap_bad;
	uint64_t rows_bad, dups, bad_lines, missing_lines;
	uint64_t orphans;		/* rows before any header */
	uLong sum_all, sum_nodup;
	uLong said;
	bool sum_matched;
	bool out_of_order;
	int status;
	/* a run of duplicate lines being collected for one report */
	size_t dup_from, dup_to, dup_orig_from, dup_orig_to;
	uint64_t dup_rows, dup_t0, dup_t1;
	bool in_dup;
	size_t last_row_line;		/* last intact row, for messages */
	uint64_t last_row_t;
	bool have_last_row;
	struct stats st;
};

#define NONE	SIZE_MAX

static void say(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->rep)
		return;
	va_start(ap, fmt);
	vfprintf(c->rep, fmt, ap);
	va_end(ap);
}

/* Per-finding lines, left out with --quiet. */
#define detail(c, ...) do { if (!(c)->o->quiet) say(c, __VA_ARGS__); } while (0)

static bool starts(const char *p, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	return n >= l && !memcmp(p, lit, l);
}

/* Strict unsigned decimal: no sign, no leading zero, fits in 64 bits. */
static bool parse_u64(const char *p, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!n || n > 20 || (n > 1 && p[0] == '0'))
		return false;
	for (i = 0; i < n; i++) {
		unsigned int d;

		if (p[i] < '0' || p[i] > '9')
			return false;
		d = (unsigned int)(p[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* "0x" and 1 to 8 lowercase hex digits, no leading zero (but "0x0"). */
static bool parse_hex32(const char *p, size_t n, uint32_t *v)
{
	uint32_t x = 0;
	size_t i;

	if (n < 3 || n > 10 || p[0] != '0' || p[1] != 'x')
		return false;
	if (n > 3 && p[2] == '0')
		return false;
	for (i = 2; i < n; i++) {
		char ch = p[i];

		if (ch >= '0' && ch <= '9')
			x = x << 4 | (uint32_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			x = x << 4 | (uint32_t)(ch - 'a' + 10);
		else
			return false;
	}
	*v = x;
	return true;
}

/* Leading decimal digits as a time, for messages about broken rows. */
static bool leading_u64(const char *p, size_t n, uint64_t *v)
{
	size_t i = 0;

	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	return parse_u64(p, i, v);
}

static size_t count_fields(const char *p, size_t n)
{
	size_t f = 1, i;

	for (i = 0; i < n; i++)
		f += p[i] == '\t';
	return f;
}

static enum kind guess_kind(const char *b, size_t n)
{
	if (starts(b, n, "META\t"))
		return K_META;
	if (starts(b, n, "START_TIME\t"))
		return K_START;
	if (starts(b, n, "STATS\t"))
		return K_STATS;
	if (starts(b, n, "ADLER32\t"))
		return K_ADLER;
	if (starts(b, n, TIME_COLUMN) &&
	    (n == sizeof(TIME_COLUMN) - 1 || b[sizeof(TIME_COLUMN) - 1] == '\t'))
		return K_HEADER;
	if (n && b[0] >= '0' && b[0] <= '9')
		return K_ROW;
	return K_UNKNOWN;
}

static bool digits_and_tabs(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != '\t' && (p[i] < '0' || p[i] > '9'))
			return false;
	return true;
}

/* Exactly one byte of p[0, n) differs from lit (n == strlen(lit)). */
static bool one_byte_off(const char *p, const char *lit, size_t n)
{
	size_t i, diff = 0;

	for (i = 0; i < n && diff < 2; i++)
		diff += p[i] != lit[i];
	return diff == 1;
}

/* Does the line end with "<TAB>0x<hex>" (its checksum suffix)? */
static bool has_checksum(const char *p, size_t n)
{
	const char *tab = memrchr(p, '\t', n);
	uint32_t v;

	return tab && parse_hex32(tab + 1, n - (size_t)(tab + 1 - p), &v);
}

static uint32_t line_sum(const char *p, size_t n)
{
	return (uint32_t)adler32(adler32(0L, Z_NULL, 0), (const Bytef *)p,
				 (uInt)n);
}

/*
 * No valid checksum suffix: is it one with one byte altered?  The line
 * ends with "<TAB>0x" and k hex digits, one byte of the "<TAB>0x" altered
 * and the digits those of the Adler-32 of the rest (*body_len: its
 * length; returns 1), or a whole "<TAB>0x" and one digit not a hex digit
 * whose other digits are those of the sum of the rest (returns 2: the
 * content is not verified).  0 otherwise.
 */
static int suffix_altered(const struct line *l, size_t *body_len)
{
	static const char digits[] = "0123456789abcdef";
	const char *p = l->full;
	size_t n = l->full_len, k, i;

	for (k = 1; k <= 8; k++) {
		const char *t;
		size_t off = 0, bad_digits = 0, bad_at = 0;
		uint32_t v = 0;

		if (n < k + 4)
			break;
		t = p + n - (k + 3);
		off += t[0] != '\t';
		off += t[1] != '0';
		off += t[2] != 'x';
		for (i = 0; i < k; i++) {
			const char *d = memchr(digits, t[3 + i], 16);

			if (!t[3 + i] || !d) {
				bad_digits++;
				bad_at = i;
			} else {
				v = v << 4 | (uint32_t)(d - digits);
			}
		}
		if (off == 1 && !bad_digits && (k == 1 || t[3] != '0') &&
		    line_sum(p, n - (k + 3)) == v) {
			*body_len = n - (k + 3);
			return 1;
		}
		/* One digit replaced, the others those of the sum. */
		if (!off && bad_digits == 1 && k > 1) {
			char want[12];
			uint32_t sum = line_sum(p, n - (k + 3));

			if ((size_t)snprintf(want, sizeof(want), "%x", sum) !=
			    k)
				continue;
			for (i = 0; i < k; i++)
				if (i != bad_at && want[i] != t[3 + i])
					break;
			if (i == k) {
				*body_len = n - (k + 3);
				return 2;
			}
		}
	}
	return 0;
}

/* Is the hex text p[0, n) the start of v in hex (and shorter)? */
static bool hex_prefix_of(const char *p, size_t n, uint32_t v)
{
	char full[12];
	int len = snprintf(full, sizeof(full), "%x", v);

	return (size_t)len > n && !memcmp(full, p, n);
}

static void classify_lossy(struct line *l)
{
	const char *tab;
	size_t body_len;
	uint32_t said;
	uLong got;

	if (!l->full_len) {
		l->kind = K_EMPTY;
		return;
	}
	if (!starts(l->full, l->full_len, PREFIX)) {
		/* One byte of the prefix altered: damage, if what follows
		 * is a stream line with its checksum; else not ours. */
		if (l->full_len <= PREFIX_LEN ||
		    !one_byte_off(l->full, PREFIX, PREFIX_LEN) ||
		    !has_checksum(l->full + PREFIX_LEN,
				  l->full_len - PREFIX_LEN)) {
			l->kind = K_FOREIGN;
			return;
		}
		l->prefix_bad = true;
	}
	l->full += PREFIX_LEN;
	l->full_len -= PREFIX_LEN;
	l->body = l->full;
	l->body_len = l->full_len;
	if (starts(l->full, l->full_len, "ADLER32\t")) {
		l->kind = K_ADLER;
		if (!parse_hex32(l->full + 8, l->full_len - 8, &l->sum_said)) {
			l->state = l->nl ? S_DAMAGED : S_CUT;
			l->why = "no valid hexadecimal checksum";
		}
		return;
	}
	tab = memrchr(l->full, '\t', l->full_len);
	if (!tab || !parse_hex32(tab + 1, l->full_len -
				 (size_t)(tab + 1 - l->full), &said)) {
		switch (suffix_altered(l, &body_len)) {
		case 1:		/* the digits check the line: intact */
			l->body_len = body_len;
			l->kind = guess_kind(l->body, l->body_len);
			l->suffix_bad = true;
			return;
		case 2:
			l->body_len = body_len;
			l->kind = guess_kind(l->body, l->body_len);
			l->state = S_DAMAGED;
			l->why = "a checksum digit altered";
			l->said_hex = l->body + body_len + 3;
			l->said_hex_len = l->full_len - body_len - 3;
			l->has_sums = true;
			l->sum_got = line_sum(l->body, l->body_len);
			return;
		}
		l->kind = guess_kind(l->body, l->body_len);
		l->state = S_CUT;
		l->why = l->nl ? "no checksum at the end of the line" :
				 "no checksum at the end of the line (the input "
				 "ends inside it)";
		return;
	}
	l->body_len = (size_t)(tab - l->full);
	l->kind = guess_kind(l->body, l->body_len);
	got = line_sum(l->body, l->body_len);
	if ((uint32_t)got != said) {
		l->has_sums = true;
		l->sum_said = said;
		l->sum_got = (uint32_t)got;
		l->said_hex = tab + 3;
		l->said_hex_len = l->full_len - (size_t)(tab + 3 - l->full);
		/* Its first digits are right: the line ends early. */
		if (hex_prefix_of(l->said_hex, l->said_hex_len, got)) {
			l->state = S_CUT;
			l->why = "cut inside its checksum";
		} else {
			l->state = S_DAMAGED;
			l->why = "checksum mismatch";
		}
	}
}

static void classify_plain(struct line *l)
{
	l->body = l->full;
	l->body_len = l->full_len;
	if (!l->full_len) {
		l->kind = K_EMPTY;
		return;
	}
	l->kind = guess_kind(l->body, l->body_len);
	if (l->kind == K_UNKNOWN || l->kind == K_ADLER ||
	    (l->kind == K_ROW && !digits_and_tabs(l->body, l->body_len))) {
		l->kind = K_FOREIGN;
		return;
	}
	if (!l->nl) {
		l->state = S_CUT;
		l->why = "no newline at the end of the input";
	}
}

/* Split into lines and decide the variant: the first line that is a
 * stream line says which (as gVisor's metricsviz.FromFile does). */
static int split_lines(struct ctx *c, const char *buf, size_t len)
{
	size_t n = 0, i, pos;
	bool decided = false;

	for (pos = 0; pos < len; n++) {
		const char *nl = memchr(buf + pos, '\n', len - pos);

		pos = nl ? (size_t)(nl - buf) + 1 : len;
	}
	c->lines = calloc(n ? n : 1, sizeof(*c->lines));
	if (!c->lines)
		return -ENOMEM;
	c->nr_lines = n;
	for (pos = 0, i = 0; i < n; i++) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		struct line *l = &c->lines[i];
		size_t end = nl ? (size_t)(nl - buf) : len;

		l->full = buf + pos;
		l->full_len = end - pos;
		l->no = (uint32_t)(i + 1);
		l->nl = nl != NULL;
		pos = nl ? end + 1 : len;
		if (decided || !l->full_len)
			continue;
		if (starts(l->full, l->full_len, PREFIX)) {
			c->lossy = true;
			decided = true;
		} else {
			enum kind k = guess_kind(l->full, l->full_len);

			decided = k == K_META || k == K_START || k == K_HEADER;
		}
	}
	for (i = 0; i < n; i++) {
		if (c->lossy)
			classify_lossy(&c->lines[i]);
		else
			classify_plain(&c->lines[i]);
	}
	return decided ? 0 : -ENOENT;
}

static bool is_stream_line(const struct line *l)
{
	return l->kind != K_EMPTY && l->kind != K_FOREIGN;
}

static void report_foreign(struct ctx *c)
{
	size_t i, j, ranges = 0;
	uint64_t n = 0;

	for (i = 0; i < c->nr_lines; i++)
		n += c->lines[i].kind == K_FOREIGN;
	c->res->foreign = n;
	if (!n)
		return;
	say(c, "skipped: %" PRIu64 " line%s not part of the stream", n,
	    n == 1 ? "" : "s");
	if (c->o->quiet) {
		say(c, "\n");
		return;
	}
	say(c, " (line%s", n == 1 ? "" : "s");
	for (i = 0; i < c->nr_lines; i = j) {
		if (c->lines[i].kind != K_FOREIGN) {
			j = i + 1;
			continue;
		}
		for (j = i; j < c->nr_lines && c->lines[j].kind == K_FOREIGN;)
			j++;
		if (ranges == MAX_LISTED) {
			say(c, ", ...");
			break;
		}
		if (j - i == 1)
			say(c, "%s %u", ranges ? "," : "", c->lines[i].no);
		else
			say(c, "%s %u-%u", ranges ? "," : "", c->lines[i].no,
			    c->lines[j - 1].no);
		ranges++;
	}
	say(c, ")\n");
}

static uint64_t start_value(const struct line *l)
{
	uint64_t v = 0;

	parse_u64(l->body + 11, l->body_len - 11, &v);
	return v;
}

/*
 * Stream boundaries: a META or START_TIME line after the current stream's
 * STATS or ADLER32, or a START_TIME whose value differs from the current
 * stream's; the META lines just before such a START_TIME go with it.
 * Calls fn for each stream [first, end).
 */
static int for_each_stream(struct ctx *c,
			   int (*fn)(struct ctx *, size_t, size_t, unsigned int))
{
	size_t i, first = 0, pending = NONE;
	bool ended = false, have_start = false;
	uint64_t start = 0;
	unsigned int no = 0;
	int ret;

	for (i = 0; i < c->nr_lines; i++) {
		const struct line *l = &c->lines[i];
		size_t cut = NONE;
		uint64_t v = 0;

		if (!is_stream_line(l) || l->state != S_OK)
			continue;
		switch (l->kind) {
		case K_META:
			if (ended)
				cut = i;
			else if (have_start && pending == NONE)
				pending = i;
			break;
		case K_START:
			v = start_value(l);
			if (ended || (have_start && v != start))
				cut = pending != NONE ? pending : i;
			break;
		case K_STATS:
		case K_ADLER:
			ended = true;
			break;
		default:
			break;
		}
		if (cut != NONE && cut > first) {
			ret = fn(c, first, cut, ++no);
			if (ret)
				return ret;
			first = cut;
			ended = false;
			have_start = false;
			pending = NONE;
			i = cut - 1;	/* again, in the new stream */
			continue;
		}
		if (l->kind == K_START) {
			start = v;
			have_start = true;
		}
		if (l->kind != K_META)
			pending = NONE;
	}
	return fn(c, first, c->nr_lines, ++no);
}

/* --- per-stream checks --------------------------------------------- */

static int push_row(struct stream *s, uint64_t t, size_t line, size_t at)
{
	if (s->nr_rows == s->cap_rows) {
		size_t cap = s->cap_rows ? 2 * s->cap_rows : 256;
		struct row *r = realloc(s->rows, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->rows = r;
		s->cap_rows = cap;
	}
	memmove(&s->rows[at + 1], &s->rows[at],
		(s->nr_rows - at) * sizeof(*s->rows));
	s->rows[at].t = t;
	s->rows[at].line = line;
	s->nr_rows++;
	return 0;
}

static int note_bad_row(struct stream *s)
{
	size_t k = s->nr_rows;

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

/* Index of the first row with time >= t. */
static size_t find_row(const struct stream *s, uint64_t t)
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

static bool same_body(const struct line *a, const struct line *b)
{
	return a->body_len == b->body_len &&
	       !memcmp(a->body, b->body, a->body_len);
}

static void flush_dups(struct ctx *c, struct stream *s)
{
	const struct line *f, *t, *of, *ot;

	if (!s->in_dup)
		return;
	s->in_dup = false;
	f = &c->lines[s->dup_from];
	t = &c->lines[s->dup_to];
	of = &c->lines[s->dup_orig_from];
	ot = &c->lines[s->dup_orig_to];
	if (f == t)
		detail(c, "line %u: duplicate of line %u", f->no, of->no);
	else
		detail(c, "lines %u-%u: duplicate of lines %u-%u", f->no,
		       t->no, of->no, ot->no);
	if (s->dup_rows == 1)
		detail(c, " (1 row, t=%" PRIu64 ")", s->dup_t0);
	else if (s->dup_rows)
		detail(c, " (%" PRIu64 " rows, t=%" PRIu64 "..%" PRIu64 ")",
		       s->dup_rows, s->dup_t0, s->dup_t1);
	detail(c, ": %s, dropped\n", f == t ? "a line written twice" :
	       "a flush block written twice");
}

static void mark_dup(struct ctx *c, struct stream *s, size_t i, size_t orig,
		     bool row, uint64_t t)
{
	c->lines[i].dup = true;
	s->dups++;
	if (s->in_dup && orig > s->dup_orig_to) {
		s->dup_to = i;
		s->dup_orig_to = orig;
	} else {
		flush_dups(c, s);
		s->in_dup = true;
		s->dup_from = s->dup_to = i;
		s->dup_orig_from = s->dup_orig_to = orig;
		s->dup_rows = 0;
	}
	if (row) {
		if (!s->dup_rows++)
			s->dup_t0 = t;
		s->dup_t1 = t;
	}
}

static void where_after(struct ctx *c, struct stream *s)
{
	if (s->have_last_row)
		detail(c, ", after the row at t=%" PRIu64 " (line %u)",
		       s->last_row_t, c->lines[s->last_row_line].no);
	else if (s->header != NONE)
		detail(c, ", before the first row");
}

static int bad_line(struct ctx *c, struct stream *s, size_t i,
		    const char *why)
{
	struct line *l = &c->lines[i];
	uint64_t t;

	flush_dups(c, s);
	if (l->state == S_OK)
		l->state = S_DAMAGED;
	if (why)
		l->why = why;
	s->bad_lines++;
	detail(c, "line %u: %s %s", l->no,
	       l->state == S_CUT ? "cut" : "damaged", kind_name[l->kind]);
	if (l->kind == K_ROW && leading_u64(l->body, l->body_len, &t))
		detail(c, " (t=%" PRIu64 "?, unverified)", t);
	detail(c, ": %s", l->why);
	if (l->has_sums && l->said_hex)
		detail(c, " (line %s 0x%.*s, computed 0x%x)",
		       l->state == S_CUT ? "has" : "says",
		       (int)l->said_hex_len, l->said_hex, l->sum_got);
	if (l->prefix_bad)
		detail(c, ", and its \"GVISOR_METRICS<TAB>\" prefix altered");
	where_after(c, s);
	detail(c, "\n");
	if (l->kind == K_ROW)
		return note_bad_row(s);
	return 0;
}

/*
 * One byte of the prefix, or of the "<TAB>0x" of the checksum, altered,
 * and the line's checksum digits match it: damage, said so, but its
 * content is intact and kept.
 */
static void repaired_line(struct ctx *c, struct stream *s, size_t i)
{
	const struct line *l = &c->lines[i];
	uint64_t t;

	flush_dups(c, s);
	s->bad_lines++;
	detail(c, "line %u: damaged %s of %s", l->no,
	       l->prefix_bad ? "prefix" : "checksum", kind_name[l->kind]);
	if (l->kind == K_ROW && leading_u64(l->body, l->body_len, &t))
		detail(c, " (t=%" PRIu64 ")", t);
	if (l->prefix_bad)
		detail(c, ": \"GVISOR_METRICS<TAB>\" altered; %s",
		       l->kind == K_ADLER ? "its value is checked below" :
		       "the line's own checksum matches: kept");
	else
		detail(c, ": \"<TAB>0x\" altered; its digits match the line: "
		       "kept");
	where_after(c, s);
	detail(c, "\n");
}

/* Metric name of a META line body ("META\t<name>\t<json>"). */
static bool meta_name(const struct line *l, const char **name, size_t *n)
{
	const char *p = l->body + 5, *tab;
	size_t rest = l->body_len - 5;

	tab = memchr(p, '\t', rest);
	if (!tab || tab == p || memchr(tab + 1, '\t',
				       rest - (size_t)(tab + 1 - p)))
		return false;
	*name = p;
	*n = (size_t)(tab - p);
	return true;
}

static int check_meta(struct ctx *c, struct stream *s, size_t i)
{
	const struct line *l = &c->lines[i];
	const char *name, *n2;
	size_t len, len2, k;
	size_t *m;

	if (!meta_name(l, &name, &len))
		return bad_line(c, s, i, "not \"META<TAB>name<TAB>json\"");
	for (k = 0; k < s->nr_metas; k++) {
		const struct line *o = &c->lines[s->metas[k]];

		if (same_body(o, l)) {
			mark_dup(c, s, i, s->metas[k], false, 0);
			return 0;
		}
		meta_name(o, &n2, &len2);
		if (len == len2 && !memcmp(name, n2, len))
			return bad_line(c, s, i, "a second META line for "
					"this metric, different from the "
					"first");
	}
	flush_dups(c, s);
	m = realloc(s->metas, (s->nr_metas + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	s->metas = m;
	s->metas[s->nr_metas++] = i;
	return 0;
}

/* Is there a META line for the metric of header cell [p, p + n)? */
static bool has_meta(struct ctx *c, struct stream *s, const char *p, size_t n)
{
	const char *br = memchr(p, '[', n), *name;
	size_t k, len;

	if (br)
		n = (size_t)(br - p);
	for (k = 0; k < s->nr_metas; k++) {
		if (meta_name(&c->lines[s->metas[k]], &name, &len) &&
		    len == n && !memcmp(name, p, n))
			return true;
	}
	return false;
}

static int check_header(struct ctx *c, struct stream *s, size_t i)
{
	const struct line *l = &c->lines[i];
	size_t fields = count_fields(l->body, l->body_len);
	const char *p, *end;

	if (s->header != NONE) {
		if (same_body(&c->lines[s->header], l)) {
			mark_dup(c, s, i, s->header, false, 0);
			return 0;
		}
		return bad_line(c, s, i, "a second column header, different "
				"from the first");
	}
	if (c->lossy) {
		const char *tab = memrchr(l->body, '\t', l->body_len);

		if (!tab || (size_t)(l->body + l->body_len - tab) != 9 ||
		    memcmp(tab + 1, "Checksum", 8))
			return bad_line(c, s, i, "no \"Checksum\" column last");
		fields--;
	}
	flush_dups(c, s);
	s->header = i;
	s->ncols = (uint32_t)(fields - 1);
	/* Every column's metric needs its META line (gVisor's reader
	 * refuses the header otherwise). */
	p = l->body + sizeof(TIME_COLUMN) - 1;
	end = l->body + l->body_len - (c->lossy ? 9 : 0);
	while (p < end) {
		const char *cell = p + 1, *tab;

		tab = memchr(cell, '\t', (size_t)(end - cell));
		if (!tab)
			tab = end;
		if (!has_meta(c, s, cell, (size_t)(tab - cell))) {
			s->missing_lines++;
			detail(c, "missing: META line for column \"%.*s\" of "
			       "the header at line %u\n",
			       (int)(tab - cell), cell, l->no);
		}
		p = tab;
	}
	return 0;
}

static int check_row(struct ctx *c, struct stream *s, size_t i)
{
	struct line *l = &c->lines[i];
	const char *p = l->body, *end = l->body + l->body_len;
	uint64_t t = 0, v;
	size_t fields = count_fields(l->body, l->body_len), at;
	bool first = true;
	int ret;

	if (s->header == NONE) {
		flush_dups(c, s);
		s->orphans++;
		s->bad_lines++;
		detail(c, "line %u: row before any column header: its "
		       "columns are unknown\n", l->no);
		return 0;
	}
	if (fields != s->ncols + 1u) {
		l->state = fields < s->ncols + 1u ? S_CUT : S_DAMAGED;
		return bad_line(c, s, i, fields < s->ncols + 1u ?
				"fewer fields than the header" :
				"more fields than the header");
	}
	while (p <= end) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));

		if (!tab)
			tab = end;
		if (!parse_u64(p, (size_t)(tab - p), first ? &t : &v))
			return bad_line(c, s, i, "not an unsigned 64-bit "
					"decimal value");
		first = false;
		p = tab + 1;
	}

	at = find_row(s, t);
	if (at < s->nr_rows && s->rows[at].t == t) {
		const struct line *o = &c->lines[s->rows[at].line];

		if (same_body(o, l)) {
			mark_dup(c, s, i, s->rows[at].line, true, t);
			return 0;
		}
		return bad_line(c, s, i, "same time as an earlier row, other "
				"values");
	}
	flush_dups(c, s);
	if (at < s->nr_rows) {
		s->out_of_order = true;
		detail(c, "line %u: row t=%" PRIu64 " out of time order "
		       "(after t=%" PRIu64 "), kept in order\n", l->no, t,
		       s->rows[s->nr_rows - 1].t);
	}
	ret = push_row(s, t, i, at);
	if (ret)
		return ret;
	s->last_row_line = i;
	s->last_row_t = t;
	s->have_last_row = true;
	return 0;
}

/* "key":value in a flat JSON object of numbers. */
static bool json_u64(const struct line *l, const char *key, uint64_t *v)
{
	const char *p = l->body, *end = l->body + l->body_len;
	size_t kl = strlen(key);

	while (p < end) {
		const char *q = memchr(p, '"', (size_t)(end - p));

		if (!q)
			return false;
		if ((size_t)(end - q) > kl + 2 && !memcmp(q + 1, key, kl) &&
		    q[kl + 1] == '"' && q[kl + 2] == ':') {
			const char *num = q + kl + 3, *e = num;

			while (e < end && *e >= '0' && *e <= '9')
				e++;
			return parse_u64(num, (size_t)(e - num), v);
		}
		p = q + 1;
	}
	return false;
}

/* gVisor's key first, then the format page's _nanos spelling. */
static bool stat2(const struct line *l, const char *k1, const char *k2,
		  uint64_t *v)
{
	return json_u64(l, k1, v) || (k2 && json_u64(l, k2, v));
}

static bool parse_stats(const struct line *l, struct stats *st)
{
	const char *b = l->body + 6;
	size_t n = l->body_len - 6;

	memset(st, 0, sizeof(*st));
	if (n < 2 || b[0] != '{' || b[n - 1] != '}')
		return false;
	if (!stat2(l, "collection_rate", "collection_rate_nanos", &st->rate) ||
	    !stat2(l, "cheap_start_nanos", NULL, &st->start) ||
	    !stat2(l, "cheap_last_collection_nanos", NULL, &st->last) ||
	    !stat2(l, "total_snapshots", NULL, &st->total))
		return false;
	stat2(l, "total_sleep_timing_error", "total_sleep_timing_error_nanos",
	      &st->sleep_err);
	stat2(l, "total_collection_timing_error",
	      "total_collection_timing_error_nanos", &st->coll_err);
	stat2(l, "num_backoff_sleeps", NULL, &st->backoffs);
	stat2(l, "total_backoff_sleep", "total_backoff_sleep_nanos",
	      &st->backoff_ns);
	st->has_lost = json_u64(l, "ksnap_snapshots_lost", &st->lost);
	st->has_missed = json_u64(l, "ksnap_periods_missed", &st->missed);
	st->has_taken = json_u64(l, "ksnap_snapshots_taken", &st->taken);
	json_u64(l, "ksnapd_rows_dropped", &st->dropped);
	json_u64(l, "ksnapd_snapshots_overwritten", &st->overwritten);
	json_u64(l, "ksnapd_first_position", &st->first_position);
	json_u64(l, "ksnapd_rows_in_earlier_files", &st->earlier);
	if (st->earlier > st->total)
		st->earlier = st->total;
	st->ok = true;
	return true;
}

static int check_stats(struct ctx *c, struct stream *s, size_t i)
{
	const struct line *l = &c->lines[i];
	struct stats st;

	if (s->stats != NONE) {
		if (same_body(&c->lines[s->stats], l)) {
			mark_dup(c, s, i, s->stats, false, 0);
			return 0;
		}
		return bad_line(c, s, i, "a second STATS line, different "
				"from the first");
	}
	if (!parse_stats(l, &st))
		return bad_line(c, s, i, "not the JSON of collection "
				"statistics");
	flush_dups(c, s);
	s->stats = i;
	s->st = st;
	return 0;
}

static void sum_line(struct ctx *c, struct stream *s, const struct line *l)
{
	static const Bytef nl = '\n';

	if (!c->lossy)
		return;
	/* As gVisor's reader: the text after the prefix, then "\n". */
	s->sum_all = adler32(s->sum_all, (const Bytef *)l->full,
			     (uInt)l->full_len);
	s->sum_all = adler32(s->sum_all, &nl, 1);
	if (l->dup)
		return;
	s->sum_nodup = adler32(s->sum_nodup, (const Bytef *)l->full,
			       (uInt)l->full_len);
	s->sum_nodup = adler32(s->sum_nodup, &nl, 1);
}

static int check_line(struct ctx *c, struct stream *s, size_t i)
{
	struct line *l = &c->lines[i];
	int ret = 0;

	if (l->kind == K_ADLER) {
		if (l->state != S_OK)
			return bad_line(c, s, i, NULL);
		if (l->prefix_bad)
			repaired_line(c, s, i);
		if (s->adler != NONE) {
			if (same_body(&c->lines[s->adler], l)) {
				mark_dup(c, s, i, s->adler, false, 0);
				return 0;
			}
			return bad_line(c, s, i, "a second ADLER32 line, "
					"different from the first");
		}
		flush_dups(c, s);
		s->adler = i;
		s->said = l->sum_said;
		s->sum_matched = s->sum_all == s->said ||
				 s->sum_nodup == s->said;
		return 0;
	}
	if (l->state != S_OK) {
		ret = bad_line(c, s, i, NULL);
	} else {
		if (l->prefix_bad || l->suffix_bad)
			repaired_line(c, s, i);
		switch (l->kind) {
		case K_META:
			ret = check_meta(c, s, i);
			break;
		case K_START:
			if (s->start_time != NONE) {
				if (same_body(&c->lines[s->start_time], l))
					mark_dup(c, s, i, s->start_time,
						 false, 0);
				else
					ret = bad_line(c, s, i, "a second "
						       "START_TIME");
			} else if (!parse_u64(l->body + 11, l->body_len - 11,
					      &(uint64_t){ 0 })) {
				ret = bad_line(c, s, i, "not a decimal time");
			} else {
				flush_dups(c, s);
				s->start_time = i;
			}
			break;
		case K_HEADER:
			ret = check_header(c, s, i);
			break;
		case K_ROW:
			ret = check_row(c, s, i);
			break;
		case K_STATS:
			ret = check_stats(c, s, i);
			break;
		default:
			ret = bad_line(c, s, i, "unexpected line (not META, "
				       "START_TIME, header, row or STATS)");
		}
	}
	if (!ret && s->adler != NONE && !l->dup && l->state == S_OK) {
		flush_dups(c, s);
		detail(c, "line %u: %s after the final ADLER32 line\n", l->no,
		       kind_name[l->kind]);
		s->bad_lines++;
		l->state = S_DAMAGED;
	}
	return ret;
}

/* Rounded number of periods in gap, minus one: rows that fit in it. */
static uint64_t slots_in(uint64_t gap, uint64_t period)
{
	uint64_t k = (gap + period / 2) / period;

	return k ? k - 1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median_gap(const struct stream *s)
{
	uint64_t *g, m;
	size_t k;

	if (s->nr_rows < 2)
		return 0;
	g = malloc((s->nr_rows - 1) * sizeof(*g));
	if (!g)
		return 0;
	for (k = 1; k < s->nr_rows; k++)
		g[k - 1] = s->rows[k].t - s->rows[k - 1].t;
	qsort(g, s->nr_rows - 1, sizeof(*g), cmp_u64);
	m = g[(s->nr_rows - 1) / 2];
	free(g);
	return m;
}

/* Rows missing by STATS' count, and where the time gaps are. */
static void check_missing_rows(struct ctx *c, struct stream *s)
{
	uint64_t period = s->st.ok ? s->st.rate : median_gap(s);
	uint64_t found = s->nr_rows + s->rows_bad + s->orphans;
	uint64_t gap_slots = 0, legit = 0;
	uint64_t missing = 0, here = 0;
	size_t k, listed = 0;

	if (s->st.ok) {
		legit = s->st.lost + s->st.missed + s->st.dropped +
			s->st.overwritten;
		/* After a reopen (SIGHUP) the first rows are in the files
		 * before this one. */
		here = s->st.total - s->st.earlier;
		if (s->st.earlier)
			say(c, "rows: STATS says %" PRIu64 " written, %" PRIu64
			    " of them to files before a reopen (SIGHUP): %"
			    PRIu64 " in this file\n", s->st.total,
			    s->st.earlier, here);
		if (here > found)
			missing = here - found;
		else if (here < found)
			detail(c, "note: %" PRIu64 " rows found, STATS says "
			       "%" PRIu64 " were written\n", found, here);
	}
	if (!period)
		goto count;
	for (k = 1; k < s->nr_rows; k++) {
		uint64_t sl = slots_in(s->rows[k].t - s->rows[k - 1].t, period);
		uint64_t bad = k < s->cap_bad ? s->bad_after[k] : 0;

		sl = sl > bad ? sl - bad : 0;
		gap_slots += sl;
	}
	if (!gap_slots || (s->st.ok && !missing))
		goto count;
	for (k = 1; k < s->nr_rows; k++) {
		uint64_t sl = slots_in(s->rows[k].t - s->rows[k - 1].t, period);
		uint64_t bad = k < s->cap_bad ? s->bad_after[k] : 0;

		sl = sl > bad ? sl - bad : 0;
		if (!sl)
			continue;
		if (listed++ == MAX_LISTED) {
			detail(c, "gap: ... (more gaps not listed)\n");
			break;
		}
		detail(c, "gap: about %" PRIu64 " row%s missing between line "
		       "%u (t=%" PRIu64 ") and line %u (t=%" PRIu64 ")\n", sl,
		       sl == 1 ? "" : "s", c->lines[s->rows[k - 1].line].no,
		       s->rows[k - 1].t, c->lines[s->rows[k].line].no,
		       s->rows[k].t);
	}
count:
	if (!s->st.ok) {
		if (gap_slots)
			detail(c, "missing: possibly %" PRIu64 " rows (gaps in "
			       "time; no STATS to count them)\n", gap_slots);
		return;
	}
	if (!missing) {
		if (gap_slots && legit)
			detail(c, "note: the gaps in time (%" PRIu64 " periods) "
			       "are snapshots the module dropped (%" PRIu64
			       " lost, %" PRIu64 " missed)%s, not lines lost\n",
			       gap_slots, s->st.lost, s->st.missed,
			       s->st.dropped ? " and rows ksnapd dropped "
			       "while its output was full" :
			       s->st.overwritten ? " and snapshots overwritten "
			       "before ksnapd read them" : "");
		return;
	}
	c->res->rows_missing += missing;
	say(c, "missing: %" PRIu64 " row%s (STATS says %" PRIu64 " written, "
	    "%" PRIu64 " found)", missing, missing == 1 ? "" : "s",
	    here, found);
	if (gap_slots == missing + legit && !legit)
		say(c, ", all in the gaps listed above\n");
	else if (gap_slots == missing + legit)
		say(c, "; the gaps above also hold the %" PRIu64 " snapshots "
		    "the module dropped, which of them are lines lost cannot "
		    "be told\n", legit);
	else if (gap_slots < missing + legit)
		say(c, "; %" PRIu64 " of them not in any gap: at the start or "
		    "the end of the stream\n", missing + legit - gap_slots);
	else
		say(c, "\n");
}

static void print_ns(struct ctx *c, const char *what, uint64_t total,
		     uint64_t n, uint64_t period)
{
	uint64_t avg = n ? total / n : 0;
	double pct = period ? 100.0 * (double)avg / (double)period : 0;

	say(c, "  %s: average %" PRIu64 " ns (%.2f%% of the period)%s\n",
	    what, avg, pct, pct > 10.0 ? "  WARNING: above 10%" : "");
}

/*
 * ksnapd's accounting: every snapshot the module took is a row, or lost
 * (ring full), dropped (output full), overwritten (overflow=overwrite), or
 * before the position this writer began at (read by an earlier reader,
 * ksnapd_first_position).
 */
static void report_accounting(struct ctx *c, const struct stats *st)
{
	uint64_t sum = st->total + st->lost + st->dropped + st->overwritten +
		       st->first_position;

	if (!st->has_taken)
		return;
	say(c, "  accounting: %" PRIu64 " taken = %" PRIu64 " rows + %" PRIu64
	    " lost", st->taken, st->total, st->lost);
	if (st->dropped)
		say(c, " + %" PRIu64 " dropped", st->dropped);
	if (st->overwritten)
		say(c, " + %" PRIu64 " overwritten", st->overwritten);
	if (st->first_position)
		say(c, " + %" PRIu64 " read by an earlier reader",
		    st->first_position);
	if (sum == st->taken)
		say(c, ": adds up\n");
	else if (sum < st->taken)
		say(c, ": %" PRIu64 " more taken than accounted for (STATS "
		    "written while the collection still ran counts snapshots "
		    "taken after the last row read)\n", st->taken - sum);
	else
		say(c, ": %" PRIu64 " fewer taken than accounted for  "
		    "WARNING\n", sum - st->taken);
}

/* STATS, and gVisor's warnings (CollectionStats.Log thresholds). */
static void report_stats(struct ctx *c, struct stream *s)
{
	const struct stats *st = &s->st;
	uint64_t dur, expected, seen;
	double rate;

	if (!st->ok)
		return;
	dur = st->last > st->start ? st->last - st->start : 0;
	expected = st->rate ? dur / st->rate : 0;
	/* A resumed stream: the first snapshots are an earlier reader's. */
	seen = st->total + st->first_position;
	if (seen == expected + 1)
		expected = seen;
	rate = expected ? (double)seen / (double)expected : 0;
	say(c, "STATS: period %" PRIu64 " ns, %" PRIu64 " snapshots over "
	    "%.3f s", st->rate, st->total, (double)dur / 1e9);
	if (st->has_lost || st->has_missed)
		say(c, ", %" PRIu64 " lost (ring full), %" PRIu64 " periods "
		    "missed", st->lost, st->missed);
	if (st->dropped)
		say(c, ", %" PRIu64 " rows dropped by ksnapd (output full)  "
		    "WARNING", st->dropped);
	if (st->overwritten)
		say(c, ", %" PRIu64 " overwritten before they were read "
		    "(overflow=overwrite)", st->overwritten);
	if (st->first_position)
		say(c, ", resumed at position %" PRIu64 " (the snapshots "
		    "before it were read by an earlier reader, in another "
		    "file)", st->first_position);
	say(c, "\n  capture: %" PRIu64 " of %" PRIu64 " expected snapshots "
	    "(%.2f%%)%s%s\n", seen, expected, rate * 100.0,
	    st->first_position ? ", counting the earlier reader's" : "",
	    rate < 0.99 ? "  WARNING: below 99%" : "");
	print_ns(c, "sleep timing error (lateness)", st->sleep_err, st->total,
		 st->rate);
	print_ns(c, "collection timing error (read time)", st->coll_err,
		 st->total, st->rate);
	if (st->backoffs) {
		double b = dur ? 100.0 * (double)st->backoff_ns / (double)dur
			       : 0;

		say(c, "  backoff: %" PRIu64 " sleeps, %" PRIu64 " ns (%.2f%% "
		    "of the capture)%s\n", st->backoffs, st->backoff_ns, b,
		    b > 5.0 ? "  WARNING: above 5%" : "");
	}
	report_accounting(c, st);
}

static void write_line(FILE *f, const char *p, size_t n)
{
	fwrite(p, 1, n, f);
	fputc('\n', f);
}

static void write_tsv(struct ctx *c, struct stream *s)
{
	FILE *f = c->tsv;
	size_t k;

	for (k = 0; k < s->nr_metas; k++) {
		const struct line *l = &c->lines[s->metas[k]];

		write_line(f, l->body, l->body_len);
	}
	if (s->start_time != NONE) {
		const struct line *l = &c->lines[s->start_time];

		write_line(f, l->body, l->body_len);
	}
	if (s->header != NONE) {
		const struct line *l = &c->lines[s->header];

		write_line(f, l->body, l->body_len - (c->lossy ? 9 : 0));
	}
	for (k = 0; k < s->nr_rows; k++) {
		const struct line *l = &c->lines[s->rows[k].line];

		write_line(f, l->body, l->body_len);
	}
	if (s->stats != NONE) {
		const struct line *l = &c->lines[s->stats];

		write_line(f, l->body, l->body_len);
	}
}

static void missing_line(struct ctx *c, struct stream *s, const char *what)
{
	s->missing_lines++;
	say(c, "missing: %s\n", what);
}

static int verify_stream(struct ctx *c, size_t first, size_t end,
			 unsigned int no)
{
	struct stream s;
	size_t i, last = first, from = NONE;
	int ret = 0;

	memset(&s, 0, sizeof(s));
	s.no = no;
	s.first = first;
	s.end = end;
	s.start_time = s.header = s.stats = s.adler = NONE;
	s.sum_all = s.sum_nodup = adler32(0L, Z_NULL, 0);
	for (i = first; i < end; i++) {
		if (!is_stream_line(&c->lines[i]))
			continue;
		if (from == NONE)
			from = i;
		last = i;
	}
	if (from == NONE)
		from = first;
	say(c, "stream %u: lines %u-%u, %s\n", no, c->lines[from].no,
	    c->lines[last].no, c->lossy ? "lossy" : "plain");

	for (i = first; i < end && !ret; i++) {
		struct line *l = &c->lines[i];

		if (!is_stream_line(l))
			continue;
		ret = check_line(c, &s, i);
		if (l->kind != K_ADLER)
			sum_line(c, &s, l);
	}
	flush_dups(c, &s);
	if (ret)
		goto out;

	if (s.start_time == NONE)
		missing_line(c, &s, "START_TIME line");
	if (s.header == NONE)
		missing_line(c, &s, "column header line: the rows cannot be "
			     "read");
	if (s.stats == NONE && c->lossy && s.adler != NONE &&
	    s.sum_all == s.said && !s.bad_lines)
		/* Nothing lost (the sum says): ended so on purpose. */
		say(c, "no STATS line, but the whole-stream checksum matches: "
		    "the writer ended this file without one (ksnapd does at "
		    "SIGHUP: STATS is in the file after it); its rows cannot "
		    "be counted\n");
	else if (s.stats == NONE)
		missing_line(c, &s, "STATS line");
	if (c->lossy && s.adler == NONE) {
		s.missing_lines++;
		say(c, "missing: final ADLER32 line (the stream ends at line "
		    "%u): the whole-stream checksum cannot be checked\n",
		    c->lines[last].no);
	}
	check_missing_rows(c, &s);

	if (c->lossy && s.adler != NONE) {
		if (s.sum_all == s.said) {
			say(c, "whole-stream checksum: 0x%lx, matches\n",
			    s.sum_all);
		} else if (s.sum_nodup == s.said) {
			say(c, "whole-stream checksum: matches once the "
			    "duplicate lines are dropped\n");
		} else {
			say(c, "whole-stream checksum: mismatch (computed "
			    "0x%lx, ADLER32 line says 0x%lx)", s.sum_nodup,
			    s.said);
			if (!s.bad_lines && !s.missing_lines &&
			    !c->res->rows_missing && !s.out_of_order) {
				say(c, ": lines missing or altered, though "
				    "every line present is intact\n");
				s.missing_lines++;
			} else {
				say(c, ", as expected from the lines above\n");
			}
		}
	}
	report_stats(c, &s);

	if (s.header == NONE)
		s.status = KSNAP_VERIFY_UNUSABLE;
	else if (s.bad_lines || s.dups || s.missing_lines || s.out_of_order ||
		 c->res->rows_missing || (c->lossy && !s.sum_matched))
		s.status = KSNAP_VERIFY_DAMAGED;
	say(c, "stream %u: %s: %zu rows intact, %" PRIu64 " cut or damaged, "
	    "%" PRIu64 " duplicate lines dropped\n", no,
	    s.status == KSNAP_VERIFY_INTACT ? "intact" :
	    s.status == KSNAP_VERIFY_DAMAGED ? "damaged, rows recovered" :
	    "unusable", s.nr_rows, s.rows_bad + s.orphans, s.dups);

	c->res->rows += s.nr_rows;
	c->res->rows_bad += s.rows_bad + s.orphans;
	c->res->dup_lines += s.dups;
	c->res->bad_lines += s.bad_lines;
	c->res->missing_lines += s.missing_lines;
	if (c->lossy && !s.sum_matched)
		c->res->sum_ok = false;
	if (s.status > c->res->status)
		c->res->status = s.status;
	c->res->streams = no;
	/* rows_missing is per stream in the checks above */
	if (c->tsv && c->o->tsv_stream == no && s.header != NONE)
		write_tsv(c, &s);
out:
	free(s.rows);
	free(s.metas);
	free(s.bad_after);
	return ret;
}

/* rows_missing is cumulative in res; each stream tests its own share. */
static int verify_stream_wrap(struct ctx *c, size_t first, size_t end,
			      unsigned int no)
{
	uint64_t before = c->res->rows_missing;
	int ret;

	c->res->rows_missing = 0;
	ret = verify_stream(c, first, end, no);
	c->res->rows_missing += before;
	return ret;
}

int ksnap_verify(const char *buf, size_t len,
		 const struct ksnap_verify_opts *o, FILE *rep, FILE *tsv,
		 struct ksnap_verify_result *res)
{
	struct ctx c = { .o = o, .rep = rep, .tsv = tsv, .res = res };
	int ret;

	memset(res, 0, sizeof(*res));
	res->sum_ok = true;
	ret = split_lines(&c, buf, len);
	res->lines = c.nr_lines;
	res->lossy = c.lossy;
	if (ret == -ENOMEM)
		goto nomem;
	if (ret) {
		say(&c, "no profiling-metrics stream found (%zu lines read)\n",
		    c.nr_lines);
		res->status = KSNAP_VERIFY_UNUSABLE;
		goto out;
	}
	report_foreign(&c);
	ret = for_each_stream(&c, verify_stream_wrap);
	if (ret == -ENOMEM)
		goto nomem;
	if (o->tsv_stream > res->streams && tsv)
		say(&c, "no stream %u to write as TSV (%u found)\n",
		    o->tsv_stream, res->streams);
	/* A stream without header (a journal that starts mid-stream)
	 * does not make the others' rows unusable. */
	if (res->status == KSNAP_VERIFY_UNUSABLE && res->rows)
		res->status = KSNAP_VERIFY_DAMAGED;
	goto out;
nomem:
	say(&c, "out of memory\n");
	res->status = KSNAP_VERIFY_UNUSABLE;
out:
	free(c.lines);
	return res->status;
}

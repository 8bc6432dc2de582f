// SPDX-License-Identifier: MIT
/*
 * ksnap-verify's lexer (see verify_lex.h): line splitting, the variant,
 * line classification with the lossy per-line checksum, numbers.
 */
#define _GNU_SOURCE	/* memrchr */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "json.h"
#include "verify_lex.h"

bool ksv_starts(const char *p, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	return n >= l && !memcmp(p, lit, l);
}

bool ksv_parse_u64(const char *p, size_t n, uint64_t *v)
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

bool ksv_parse_hex32(const char *p, size_t n, uint32_t *v)
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

bool ksv_leading_u64(const char *p, size_t n, uint64_t *v)
{
	size_t i = 0;

	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	return ksv_parse_u64(p, i, v);
}

size_t ksv_count_fields(const char *p, size_t n)
{
	size_t f = 1, i;

	for (i = 0; i < n; i++)
		f += p[i] == '\t';
	return f;
}

uint32_t ksv_line_sum(const char *p, size_t n)
{
	return (uint32_t)adler32(adler32(0L, Z_NULL, 0), (const Bytef *)p,
				 (uInt)n);
}

bool ksv_lex_row(const char *p, size_t n, uint64_t *t, uint64_t *v)
{
	const char *end = p + n;
	uint64_t dummy;
	size_t k = 0;

	while (p <= end) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));

		if (!tab)
			tab = end;
		if (!ksv_parse_u64(p, (size_t)(tab - p),
				   !k ? t : v ? &v[k - 1] : &dummy))
			return false;
		k++;
		p = tab + 1;
	}
	return true;
}

bool ksv_lex_meta(const char *body, size_t n, const char **name,
		  size_t *name_len, const char **json, size_t *json_len)
{
	const char *p = body + 5, *tab;
	size_t rest = n - 5;

	tab = memchr(p, '\t', rest);
	if (!tab || tab == p || memchr(tab + 1, '\t',
				       rest - (size_t)(tab + 1 - p)))
		return false;
	*name = p;
	*name_len = (size_t)(tab - p);
	if (json) {
		*json = tab + 1;
		*json_len = rest - (size_t)(tab + 1 - p);
	}
	return true;
}

bool ksv_lex_start_time(const char *body, size_t n, uint64_t *v)
{
	return ksv_parse_u64(body + 11, n - 11, v);
}

bool ksv_json_u64(const char *p, size_t n, const char *key, uint64_t *v)
{
	const char *num;
	size_t len;

	return json_find_digits(p, n, key, &num, &len) &&
	       ksv_parse_u64(num, len, v);
}

/* --- classification ------------------------------------------------- */

static enum ksv_kind guess_kind(const char *b, size_t n)
{
	if (ksv_starts(b, n, "META\t"))
		return KSV_K_META;
	if (ksv_starts(b, n, "START_TIME\t"))
		return KSV_K_START;
	if (ksv_starts(b, n, "STATS\t"))
		return KSV_K_STATS;
	if (ksv_starts(b, n, "ADLER32\t"))
		return KSV_K_ADLER;
	if (ksv_starts(b, n, KSV_TIME_COLUMN) &&
	    (n == KSV_TIME_COLUMN_LEN || b[KSV_TIME_COLUMN_LEN] == '\t'))
		return KSV_K_HEADER;
	if (n && b[0] >= '0' && b[0] <= '9')
		return KSV_K_ROW;
	return KSV_K_UNKNOWN;
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

	return tab && ksv_parse_hex32(tab + 1, n - (size_t)(tab + 1 - p), &v);
}

/* Is the hex text p[0, n) the start of v in hex (and shorter)? */
static bool hex_prefix_of(const char *p, size_t n, uint32_t v)
{
	char full[12];
	int len = snprintf(full, sizeof(full), "%x", v);

	return (size_t)len > n && !memcmp(full, p, n);
}

/*
 * The k digits at d are those of the sum of the body before them except
 * the one at bad_at, which is not a hex digit at all.
 */
static bool one_digit_replaced(const char *body, size_t body_len,
			       const char *d, size_t k, size_t bad_at)
{
	char want[12];
	size_t i;

	if ((size_t)snprintf(want, sizeof(want), "%x",
			     ksv_line_sum(body, body_len)) != k)
		return false;
	for (i = 0; i < k; i++)
		if (i != bad_at && want[i] != d[i])
			return false;
	return true;
}

/*
 * No valid checksum suffix: is it one with one byte altered?  The line
 * ends with "<TAB>0x" and k hex digits, one byte of the "<TAB>0x" altered
 * and the digits those of the Adler-32 of the rest (*body_len: its
 * length; returns 1), or a whole "<TAB>0x" and one digit not a hex digit
 * whose other digits are those of the sum of the rest (returns 2: the
 * content is not verified).  0 otherwise.
 */
static int suffix_altered(const struct ksv_line *l, size_t *body_len)
{
	static const char digits[] = "0123456789abcdef";
	const char *p = l->full;
	size_t n = l->full_len, k, i;

	for (k = 1; k <= 8 && n >= k + 4; k++) {
		const char *t = p + n - (k + 3);
		size_t off = 0, bad_digits = 0, bad_at = 0;
		uint32_t v = 0;

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
		*body_len = n - (k + 3);
		if (off == 1 && !bad_digits && (k == 1 || t[3] != '0') &&
		    ksv_line_sum(p, *body_len) == v)
			return 1;
		if (!off && bad_digits == 1 && k > 1 &&
		    one_digit_replaced(p, *body_len, t + 3, k, bad_at))
			return 2;
	}
	return 0;
}

/* A lossy line without a valid "<TAB>0x<hex>" at its end. */
static void lossy_no_suffix(struct ksv_line *l)
{
	size_t body_len;

	switch (suffix_altered(l, &body_len)) {
	case 1:		/* the digits check the line: intact */
		l->body_len = body_len;
		l->kind = guess_kind(l->body, l->body_len);
		l->suffix_bad = true;
		return;
	case 2:
		l->body_len = body_len;
		l->kind = guess_kind(l->body, l->body_len);
		l->state = KSV_S_DAMAGED;
		l->why = "a checksum digit altered";
		l->said_hex = l->body + body_len + 3;
		l->said_hex_len = l->full_len - body_len - 3;
		l->has_sums = true;
		l->sum_got = ksv_line_sum(l->body, l->body_len);
		return;
	}
	l->kind = guess_kind(l->body, l->body_len);
	l->state = KSV_S_CUT;
	l->why = l->nl ? "no checksum at the end of the line" :
			 "no checksum at the end of the line (the input "
			 "ends inside it)";
}

/* A lossy line with a checksum suffix at tab: does it match? */
static void lossy_sum(struct ksv_line *l, const char *tab, uint32_t said)
{
	uint32_t got;

	l->body_len = (size_t)(tab - l->full);
	l->kind = guess_kind(l->body, l->body_len);
	got = ksv_line_sum(l->body, l->body_len);
	if (got == said)
		return;
	l->has_sums = true;
	l->sum_said = said;
	l->sum_got = got;
	l->said_hex = tab + 3;
	l->said_hex_len = l->full_len - (size_t)(tab + 3 - l->full);
	/* Its first digits are right: the line ends early. */
	if (hex_prefix_of(l->said_hex, l->said_hex_len, got)) {
		l->state = KSV_S_CUT;
		l->why = "cut inside its checksum";
	} else {
		l->state = KSV_S_DAMAGED;
		l->why = "checksum mismatch";
	}
}

/* The prefix: ours, ours with one byte altered, or a foreign line. */
static bool lossy_prefix(struct ksv_line *l)
{
	if (!ksv_starts(l->full, l->full_len, KSV_PREFIX)) {
		/* One byte of the prefix altered: damage, if what follows
		 * is a stream line with its checksum; else not ours. */
		if (l->full_len <= KSV_PREFIX_LEN ||
		    !one_byte_off(l->full, KSV_PREFIX, KSV_PREFIX_LEN) ||
		    !has_checksum(l->full + KSV_PREFIX_LEN,
				  l->full_len - KSV_PREFIX_LEN))
			return false;
		l->prefix_bad = true;
	}
	l->full += KSV_PREFIX_LEN;
	l->full_len -= KSV_PREFIX_LEN;
	l->body = l->full;
	l->body_len = l->full_len;
	return true;
}

static void classify_lossy(struct ksv_line *l)
{
	const char *tab;
	uint32_t said;

	if (!l->full_len) {
		l->kind = KSV_K_EMPTY;
		return;
	}
	if (!lossy_prefix(l)) {
		l->kind = KSV_K_FOREIGN;
		return;
	}
	/* The ADLER32 line is its own checksum: no suffix. */
	if (ksv_starts(l->full, l->full_len, "ADLER32\t")) {
		l->kind = KSV_K_ADLER;
		if (!ksv_parse_hex32(l->full + 8, l->full_len - 8,
				     &l->sum_said)) {
			l->state = l->nl ? KSV_S_DAMAGED : KSV_S_CUT;
			l->why = "no valid hexadecimal checksum";
		}
		return;
	}
	tab = memrchr(l->full, '\t', l->full_len);
	if (!tab || !ksv_parse_hex32(tab + 1, l->full_len -
				     (size_t)(tab + 1 - l->full), &said))
		lossy_no_suffix(l);
	else
		lossy_sum(l, tab, said);
}

static void classify_plain(struct ksv_line *l)
{
	l->body = l->full;
	l->body_len = l->full_len;
	if (!l->full_len) {
		l->kind = KSV_K_EMPTY;
		return;
	}
	l->kind = guess_kind(l->body, l->body_len);
	if (l->kind == KSV_K_UNKNOWN || l->kind == KSV_K_ADLER ||
	    (l->kind == KSV_K_ROW && !digits_and_tabs(l->body, l->body_len))) {
		l->kind = KSV_K_FOREIGN;
		return;
	}
	if (!l->nl) {
		l->state = KSV_S_CUT;
		l->why = "no newline at the end of the input";
	}
}

void ksv_lex_line(struct ksv_line *l, const char *p, size_t n, bool nl,
		  uint32_t no, bool lossy)
{
	memset(l, 0, sizeof(*l));
	l->full = p;
	l->full_len = n;
	l->no = no;
	l->nl = nl;
	if (lossy)
		classify_lossy(l);
	else
		classify_plain(l);
}

/* --- lines of a log ------------------------------------------------- */

void ksv_cursor_init(struct ksv_cursor *c, const char *buf, size_t len)
{
	c->buf = buf;
	c->len = len;
	c->pos = 0;
	c->no = 0;
}

/* The next line's text, without classifying it. */
static bool cursor_raw(struct ksv_cursor *c, const char **p, size_t *n,
		       bool *nl)
{
	const char *eol;

	if (c->pos >= c->len)
		return false;
	*p = c->buf + c->pos;
	eol = memchr(*p, '\n', c->len - c->pos);
	*nl = eol != NULL;
	*n = eol ? (size_t)(eol - *p) : c->len - c->pos;
	c->pos += *n + (eol != NULL);
	c->no++;
	return true;
}

bool ksv_cursor_next(struct ksv_cursor *c, bool lossy, struct ksv_line *l)
{
	const char *p;
	size_t n;
	bool nl;

	if (!cursor_raw(c, &p, &n, &nl))
		return false;
	ksv_lex_line(l, p, n, nl, c->no, lossy);
	return true;
}

int ksv_lex_variant(const char *buf, size_t len, bool *lossy, size_t *lines)
{
	struct ksv_cursor c;
	const char *p;
	size_t n;
	bool nl;

	*lossy = false;
	ksv_cursor_init(&c, buf, len);
	while (cursor_raw(&c, &p, &n, &nl)) {
		enum ksv_kind k;

		if (!n)
			continue;
		if (ksv_starts(p, n, KSV_PREFIX)) {
			*lossy = true;
			return 0;
		}
		k = guess_kind(p, n);
		if (k == KSV_K_META || k == KSV_K_START || k == KSV_K_HEADER)
			return 0;
	}
	*lines = c.no;
	return -ENOENT;
}

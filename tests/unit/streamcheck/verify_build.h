/* SPDX-License-Identifier: MIT */
/*
 * Build profiling-metrics streams in memory for ksnap-verify's unit
 * tests: plain lines as given, lossy lines with the prefix and their
 * Adler-32 computed here with zlib (not with the parser's own code), and
 * the whole-stream ADLER32 line.
 */
#ifndef KSNAP_TEST_VERIFY_BUILD_H
#define KSNAP_TEST_VERIFY_BUILD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

struct sb {
	char buf[16384];
	size_t len;
	bool lossy;
	uLong sum;		/* whole-stream, lossy */
};

static inline void sb_init(struct sb *b, bool lossy)
{
	b->len = 0;
	b->lossy = lossy;
	b->sum = adler32(0L, Z_NULL, 0);
	b->buf[0] = '\0';
}

/* Append raw text, as a log would carry it. */
static inline void sb_raw(struct sb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void sb_raw(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, sizeof(b->buf) - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
	if (b->len >= sizeof(b->buf))
		b->len = sizeof(b->buf) - 1;
}

/* The text after the prefix of a lossy line: content, "<TAB>0x<sum>". */
static inline void sb_lossy_text(char *out, size_t size, const char *content)
{
	uLong s = adler32(adler32(0L, Z_NULL, 0), (const Bytef *)content,
			  (uInt)strlen(content));

	snprintf(out, size, "%s\t0x%lx", content, s);
}

/* One stream line: plain as given, lossy framed and summed. */
static inline void sb_line(struct sb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void sb_line(struct sb *b, const char *fmt, ...)
{
	char content[4096], text[4200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(content, sizeof(content), fmt, ap);
	va_end(ap);
	if (!b->lossy) {
		sb_raw(b, "%s\n", content);
		return;
	}
	sb_lossy_text(text, sizeof(text), content);
	b->sum = adler32(b->sum, (const Bytef *)text, (uInt)strlen(text));
	b->sum = adler32(b->sum, (const Bytef *)"\n", 1);
	sb_raw(b, "GVISOR_METRICS\t%s\n", text);
}

/* The final whole-stream ADLER32 line of a lossy stream. */
static inline void sb_adler(struct sb *b)
{
	sb_raw(b, "GVISOR_METRICS\tADLER32\t0x%lx\n", b->sum);
}

/* META for metrics "m" and "n", START_TIME, header: columns m and n[x]. */
static inline void sb_head(struct sb *b)
{
	sb_line(b, "META\tm\t{\"name\":\"m\"}");
	sb_line(b, "META\tn\t{\"name\":\"n\"}");
	sb_line(b, "START_TIME\t1700000000000000000");
	sb_line(b, "Time (ns)\tm\tn[x]%s", b->lossy ? "\tChecksum" : "");
}

/* Row i: at t = 1000 * (i + 1), values 10 * i and 10 * i + 1. */
static inline void sb_row(struct sb *b, unsigned int i)
{
	sb_line(b, "%u\t%u\t%u", 1000 * (i + 1), 10 * i, 10 * i + 1);
}

/* STATS: period 1000, rows written, more keys (",\"k\":v..." or ""). */
static inline void sb_stats(struct sb *b, unsigned int rows, const char *more)
{
	sb_line(b, "STATS\t{\"collection_rate\":1000,\"cheap_start_nanos\":0,"
		"\"cheap_last_collection_nanos\":%u,\"total_snapshots\":%u%s}",
		1000 * rows, rows, more);
}

/*
 * A whole stream: sb_head(), rows 0 to rows - 1, STATS saying they were
 * written, and (lossy) ADLER32.  Lines: 1-2 META, 3 START_TIME, 4 the
 * header, row i at line 5 + i.
 */
static inline void sb_stream(struct sb *b, unsigned int rows)
{
	unsigned int i;

	sb_head(b);
	for (i = 0; i < rows; i++)
		sb_row(b, i);
	sb_stats(b, rows, "");
	if (b->lossy)
		sb_adler(b);
}

/* Remove line no (1-based) from the log, as a lossy pipeline would. */
static inline void sb_drop(struct sb *b, unsigned int no)
{
	char *p = b->buf, *end = b->buf + b->len, *eol;

	while (--no) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			return;
		p = eol + 1;
	}
	eol = memchr(p, '\n', (size_t)(end - p));
	eol = eol ? eol + 1 : end;
	memmove(p, eol, (size_t)(end - eol));
	b->len -= (size_t)(eol - p);
}

#endif /* KSNAP_TEST_VERIFY_BUILD_H */

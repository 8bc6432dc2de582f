/* SPDX-License-Identifier: MIT */
/*
 * ksnap-verify's lexer: cut a log into lines and classify each one as a
 * line of a profiling-metrics stream (README.md, "The stream"), plain or
 * lossy, without looking at any other line.  A lossy line is
 * "GVISOR_METRICS<TAB>" + content + "<TAB>0x" + the Adler-32 of the
 * content in lowercase hex; the lexer checks that sum, tells a line cut
 * short from one damaged in place, and recognizes one altered byte in
 * the prefix or in the "<TAB>0x" before the digits.  Also the strict
 * number parsing every later check uses.
 *
 * No allocation, no state between lines: struct ksv_line points into the
 * caller's buffer.
 */
#ifndef KSNAP_VERIFY_LEX_H
#define KSNAP_VERIFY_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KSV_PREFIX		"GVISOR_METRICS\t"
#define KSV_PREFIX_LEN		(sizeof(KSV_PREFIX) - 1)
#define KSV_TIME_COLUMN		"Time (ns)"
#define KSV_TIME_COLUMN_LEN	(sizeof(KSV_TIME_COLUMN) - 1)
/* The lossy header's last column, with the tab before it. */
#define KSV_SUM_COLUMN		"\tChecksum"
#define KSV_SUM_COLUMN_LEN	(sizeof(KSV_SUM_COLUMN) - 1)

enum ksv_kind {
	KSV_K_EMPTY,
	KSV_K_FOREIGN,		/* not a stream line: skipped */
	KSV_K_META,
	KSV_K_START,		/* START_TIME */
	KSV_K_HEADER,		/* "Time (ns)..." */
	KSV_K_ROW,
	KSV_K_STATS,
	KSV_K_ADLER,		/* lossy: the whole-stream ADLER32 */
	KSV_K_UNKNOWN,		/* a stream line of no known type */
};

enum ksv_state {
	KSV_S_OK,
	KSV_S_CUT,		/* ends early */
	KSV_S_DAMAGED,		/* whole, but altered or invalid */
};

struct ksv_line {
	const char *full;	/* after the prefix, without "\n" */
	size_t full_len;
	const char *body;	/* without the lossy checksum suffix */
	size_t body_len;
	uint32_t no;		/* 1-based input line number */
	uint8_t kind;		/* enum ksv_kind */
	uint8_t state;		/* enum ksv_state */
	bool nl;		/* ended by "\n" */
	bool dup;		/* set by the checks: a duplicate line */
	const char *why;	/* for cut and damaged lines */
	uint32_t sum_said, sum_got;
	bool has_sums;
	/* lossy: one byte of the prefix, or of "<TAB>0x" before the
	 * checksum digits, altered (the line is damage, not foreign) */
	bool prefix_bad, suffix_bad;
	const char *said_hex;	/* the checksum digits as written */
	size_t said_hex_len;
};

/* A position in a log: where the next line begins, and its number. */
struct ksv_cursor {
	const char *buf;
	size_t len;
	size_t pos;
	uint32_t no;		/* lines before pos */
};

void ksv_cursor_init(struct ksv_cursor *c, const char *buf, size_t len);
/* The next line, classified for the variant; false at the end. */
bool ksv_cursor_next(struct ksv_cursor *c, bool lossy, struct ksv_line *l);

/*
 * The variant of the log in buf[0, len): the first line that is a stream
 * line says which (as gVisor's metricsviz.FromFile does): lossy if it
 * starts with the prefix, plain if it is a META, START_TIME or header
 * line.  -ENOENT when no line says; *lines is then the number of lines.
 */
int ksv_lex_variant(const char *buf, size_t len, bool *lossy, size_t *lines);

/* Classify the text p[0, n) (nl: a "\n" ended it) as line number no. */
void ksv_lex_line(struct ksv_line *l, const char *p, size_t n, bool nl,
		  uint32_t no, bool lossy);

static inline bool ksv_is_stream_line(const struct ksv_line *l)
{
	return l->kind != KSV_K_EMPTY && l->kind != KSV_K_FOREIGN;
}

/* --- numbers and fields ------------------------------------------- */

bool ksv_starts(const char *p, size_t n, const char *lit);
/* Strict unsigned decimal: no sign, no leading zero, fits in 64 bits. */
bool ksv_parse_u64(const char *p, size_t n, uint64_t *v);
/* "0x" and 1 to 8 lowercase hex digits, no leading zero (but "0x0"). */
bool ksv_parse_hex32(const char *p, size_t n, uint32_t *v);
/* Leading decimal digits as a number, for messages about broken rows. */
bool ksv_leading_u64(const char *p, size_t n, uint64_t *v);
size_t ksv_count_fields(const char *p, size_t n);
uint32_t ksv_line_sum(const char *p, size_t n);

/*
 * A row's fields, every one a strict decimal: the time to *t, the values
 * to v[] (NULL: only checked).  The caller has checked the field count.
 */
bool ksv_lex_row(const char *p, size_t n, uint64_t *t, uint64_t *v);
/* "META<TAB>name<TAB>json": the name and the JSON. */
bool ksv_lex_meta(const char *body, size_t n, const char **name,
		  size_t *name_len, const char **json, size_t *json_len);
/* "START_TIME<TAB>ns". */
bool ksv_lex_start_time(const char *body, size_t n, uint64_t *v);
/* "key":value in the flat JSON object of numbers p[0, n) (json.h's
 * json_find_digits(), then ksv_parse_u64()). */
bool ksv_json_u64(const char *p, size_t n, const char *key, uint64_t *v);

#endif /* KSNAP_VERIFY_LEX_H */

/* SPDX-License-Identifier: MIT */
/*
 * What the stream checks find and tell (verify_check.h says how a walk
 * goes and what each finding means): the statuses, the findings, a
 * stream's and the log's counts, an intact row, and the callbacks a
 * walk calls with them.  Types only: every part of the checker and every
 * user of it shares them.
 */
#ifndef KSNAP_FINDINGS_H
#define KSNAP_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verify_lex.h"

/* A stream's status, and ksnap-verify's exit status. */
#define KSNAP_VERIFY_INTACT	0	/* every stream complete and intact */
#define KSNAP_VERIFY_DAMAGED	1	/* damage found, rows recovered */
#define KSNAP_VERIFY_UNUSABLE	2	/* no stream, no header, no memory;
					 * in a log of several streams, only
					 * when none yielded rows */

/* The foreign line ranges a finding lists; more are only counted. */
#define KSV_MAX_RANGES	20

enum ksv_what {
	KSV_FOREIGN,		/* lines of no stream (before the streams) */
	KSV_BAD_LINE,		/* a cut or damaged line: dropped */
	KSV_REPAIRED_LINE,	/* prefix or "<TAB>0x" altered, the content
				 * checks: kept */
	KSV_DUPLICATE,		/* a run of duplicate lines: dropped */
	KSV_ORPHAN_ROW,		/* a row before any header: dropped */
	KSV_NO_META,		/* a header column without its META line */
	KSV_OUT_OF_ORDER,	/* a row before the time of the last: kept */
	KSV_AFTER_ADLER,	/* a line after the final ADLER32 line */
	KSV_MISSING_LINE,	/* no START_TIME, header, STATS, ADLER32 */
	KSV_ENDED_NO_STATS,	/* no STATS, the whole-stream checksum
				 * matches: ended so by its writer (not
				 * damage) */
	KSV_EARLIER_FILES,	/* STATS counts rows of the files before a
				 * reopen (information) */
	KSV_EXTRA_ROWS,		/* more rows than STATS says (a note) */
	KSV_GAP,		/* a gap in time between two intact rows,
				 * one per gap */
	KSV_GAPS_UNCOUNTED,	/* gaps, and no STATS to count rows by */
	KSV_GAPS_DROPPED,	/* the gaps are the module's drops (note) */
	KSV_MISSING_ROWS,	/* rows STATS counts, not in the stream */
	KSV_SUM,		/* the whole-stream checksum's verdict */
};

enum ksv_sum {
	KSV_SUM_NONE,		/* plain, or no ADLER32 line */
	KSV_SUM_MATCH,
	KSV_SUM_MATCH_NODUP,	/* once the duplicate lines are dropped */
	KSV_SUM_MISMATCH,
};

/* Where a bad line is: after the last intact row, or before any. */
struct ksv_where {
	bool after_row;
	bool before_rows;	/* a header, no intact row yet */
	uint32_t row_line;
	uint64_t row_t;
};

struct ksv_finding {
	enum ksv_what what;
	/* The line: BAD_LINE, REPAIRED_LINE, ORPHAN_ROW, OUT_OF_ORDER,
	 * AFTER_ADLER; DUPLICATE: its first; GAP: the row after it; the
	 * header's for NO_META; MISSING_LINE of an ADLER32: the stream's
	 * last line.  0: none. */
	uint32_t line;
	enum ksv_kind kind;	/* its type; MISSING_LINE: the one missing */
	bool has_t;		/* t: the row's time (BAD_LINE: as read from */
	uint64_t t;		/* the damaged line, unverified) */
	union {
		struct {		/* BAD_LINE, REPAIRED_LINE */
			enum ksv_state state;
			const char *why;
			const char *said_hex;	/* checksum as written, */
			size_t said_hex_len;	/* or NULL */
			uint32_t computed;
			bool prefix_bad;	/* and its prefix altered */
			struct ksv_where where;
		} bad;
		struct {		/* DUPLICATE: lines from-to repeat */
			uint32_t from, to;	/* orig_from-orig_to */
			uint32_t orig_from, orig_to;
			uint64_t rows, t0, t1;	/* rows among them */
		} dup;
		struct {		/* NO_META */
			const char *name;
			size_t len;
		} column;
		uint64_t after_t;	/* OUT_OF_ORDER: the latest row's */
		struct {		/* GAP */
			uint64_t slots;		/* rows that fit in it */
			uint32_t from_line, to_line;
			uint64_t from_t, to_t;
			bool explained;	/* STATS counts no row missing:
					 * not lines lost */
		} gap;
		struct {		/* FOREIGN */
			uint64_t count;
			unsigned int nr_ranges;	/* up to KSV_MAX_RANGES */
			bool more;		/* ranges not listed */
			uint32_t from[KSV_MAX_RANGES], to[KSV_MAX_RANGES];
		} foreign;
		struct {		/* EARLIER_FILES .. MISSING_ROWS */
			uint64_t written;	/* STATS: in this file */
			uint64_t earlier;	/* in files before it */
			uint64_t found;		/* intact, cut, damaged */
			uint64_t missing;
			uint64_t gap_slots;	/* rows the gaps can hold */
			uint64_t dropped;	/* by the module, ksnapd */
		} rows;
		struct {		/* SUM */
			enum ksv_sum result;
			uint32_t computed, said;
			bool unexplained;	/* by the lines above */
		} sum;
	};
};

/* A stream: where it is, what was found, its verdict. */
struct ksv_info {
	unsigned int no;		/* 1-based, in the log */
	bool lossy;
	uint32_t first_line, last_line;	/* its first and last lines */
	/* From here on, valid at end(). */
	int status;			/* KSNAP_VERIFY_* */
	bool has_header;
	uint32_t ncols;			/* value columns */
	uint64_t rows;			/* intact rows */
	uint64_t rows_bad;		/* cut, damaged, before the header */
	uint64_t rows_missing;		/* by STATS' count */
	uint64_t dup_lines;		/* dropped */
	uint64_t bad_lines;		/* cut or damaged, rows included */
	uint64_t missing_lines;		/* other than rows */
	bool out_of_order;
	enum ksv_sum sum;		/* the checksum at the stream's end */
	bool sum_ok;			/* plain, or the ADLER32 line matched
					 * the lines before it */
};

/* The whole log. */
struct ksv_log {
	bool lossy;
	uint64_t lines;
	uint64_t foreign;		/* lines of no stream */
	unsigned int streams;		/* streams checked to their end */
};

struct ksv_stream;

struct ksv_row {
	uint64_t t;			/* ns since the collection started */
	const uint64_t *v;		/* ncols values, in column order */
	uint32_t ncols;
	uint32_t line;			/* its input line */
	const char *text;		/* as written: time and values, */
	size_t text_len;		/* without prefix and checksum */
};

/* Streaming: the rows a duplicate is looked for among, and the rows
 * whose times give the period of a stream without STATS. */
#define KSV_WINDOW		65536
#define KSV_PERIOD_ROWS		4097

struct ksv_ops {
	void *priv;
	int (*begin)(void *priv, const struct ksv_stream *s);
	void (*finding)(void *priv, const struct ksv_stream *s,
			const struct ksv_finding *f);
	int (*end)(void *priv, const struct ksv_stream *s);
	/* Optional: streaming, and the walk's progress (see above). */
	int (*row)(void *priv, const struct ksv_stream *s,
		   const struct ksv_row *r);
	void (*progress)(void *priv, size_t pos);
};

#endif /* KSNAP_FINDINGS_H */

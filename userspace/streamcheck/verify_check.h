/* SPDX-License-Identifier: MIT */
/*
 * The profiling-metrics stream parser shared by ksnap-verify and the tools
 * that read ksnapd's output (ksnap-plot): walk a log, find its streams
 * (README.md, "The stream"; plain or lossy), check each one, and hand
 * each stream's parts and every finding to the caller.  Independent of
 * ksnapd's code on purpose: it is the checker of what ksnapd writes.
 *
 * Use:
 *
 *	struct ksv_ops ops = { .priv = me, .finding = on_finding,
 *			       .end = on_stream };
 *	struct ksv_log log;
 *	int ret = ksv_walk(buf, len, &ops, &log);
 *
 * ksv_walk() reads buf[0, len) (the whole log, e.g. mmap'ed) and calls:
 *
 *  begin(priv, s)         when a stream is found, before its lines are
 *                         checked: ksv_stream_info(s) has its number and
 *                         its first and last line;
 *  finding(priv, s, f)    for every finding, in input order (struct
 *                         ksv_finding: what, the input line, the row time,
 *                         and per kind the details); s is NULL for the
 *                         foreign lines, reported once before the streams;
 *  end(priv, s)           when the stream is checked; then, and only
 *                         then, its parts can be read:
 *      ksv_stream_info()      counts, status (KSNAP_VERIFY_*), line range;
 *      ksv_stream_columns()   the column names, the time column and the
 *                             lossy "Checksum" column left out;
 *      ksv_stream_metas()     each metric's name and META JSON;
 *      ksv_stream_start_time()  START_TIME (ns, wall clock);
 *      ksv_stream_rows()      the intact rows in time order: time and
 *                             values, one row at a time through a
 *                             callback, parsed into one row's buffer;
 *      ksv_stream_stats()     the STATS figures the checks use, and
 *      ksv_stream_stats_each()  every STATS key and value as text;
 *      ksv_stream_stats_json()  the STATS JSON as written.
 *
 * A non-zero return from begin or end stops the walk and is returned, as
 * does one from an accessor's callback stop the accessor.  ksv_walk()
 * returns 0, -ENOENT when the log holds no stream (log->lines says how
 * many lines it read), -ENOMEM.  log also has the variant, the number
 * of lines, of foreign lines and of streams checked.
 *
 * Streaming (ops->row set; ksnap-plot), for logs of any length in memory
 * bounded by the output:
 *
 *  row(priv, s, r)        each intact row as it is read, in input order,
 *                         times strictly increasing within a stream; the
 *                         columns and the META lines before it can be
 *                         read through s.  A non-zero return stops the
 *                         walk and is returned.  ksv_stream_rows() then
 *                         returns -EINVAL at end().
 *
 * What changes: no record is kept per row.  A duplicate row is found
 * among the last KSV_WINDOW intact rows; a row whose time is not after
 * the last intact row's and that is no duplicate of one of them is
 * damage (BAD_LINE, why says out of time order; info.out_of_order is
 * set) and dropped, not put in order.  The GAP findings come as the row
 * after each gap is read, with explained false (GAPS_DROPPED or
 * MISSING_ROWS at the stream's end tells whether STATS accounts for
 * them); the period is STATS' (its line is found before the rows are
 * checked), or without STATS the median time between the first
 * KSV_PERIOD_ROWS rows.  Everything else (findings, info, verdict) is as
 * without streaming for a log whose rows are in time order.
 *
 *  progress(priv, pos)    now and then: the walk has read buf up to pos
 *                         (it reads the log in a few passes, each from
 *                         an earlier position; any part of buf may be
 *                         read again).  A caller that mmap'ed the log may
 *                         drop the pages before pos from memory.
 *
 * For a chart: the rows give the series; the findings with a line and a
 * time (BAD_LINE, REPAIRED_LINE, DUPLICATE, OUT_OF_ORDER) and the GAP
 * findings (every gap in time, explained ones included: those STATS
 * accounts for as the module's drops) give where the data is damaged.
 *
 * Memory: the walk keeps, per stream, one small record per intact row
 * (its time and where its line is, for duplicates and time order; when
 * streaming, for the last KSV_WINDOW rows only) and per META line; no
 * copy of the input, no table of values.
 *
 * What the findings mean (also in ksnap-verify(1)):
 *
 *  foreign   a line that is not part of a stream: in a lossy log, any line
 *            without the "GVISOR_METRICS<TAB>" prefix (but see damaged);
 *            in a plain one, any line that is not META, START_TIME, the
 *            header, a row or STATS.  Skipped, not damage.  Empty lines are
 *            skipped silently.
 *  cut       a stream line that ends early: no "<TAB>0x<hex>" checksum at
 *            its end, one whose first digits are the line's checksum (cut
 *            inside its digits), fewer fields than the header, or (plain)
 *            no newline at the end of the input.
 *  damaged   a whole-looking line whose per-line Adler-32 does not match,
 *            one of whose checksum digits was replaced, or whose contents
 *            are invalid (bad number, unknown line type, a second header
 *            or STATS that differs from the first).  A lossy line with one
 *            byte of its prefix altered, or of the "<TAB>0x" before its
 *            checksum digits, is damaged too (not foreign, not cut); when
 *            its checksum still matches its content, it is kept.
 *  duplicate a line identical to an earlier line of the same stream (a row:
 *            same time and same values), e.g. a flush block written twice;
 *            dropped, reported as ranges of lines.
 *  missing   rows: STATS' total_snapshots (the rows ksnapd wrote) minus the
 *            rows found (intact, cut or damaged).  They are located by the
 *            gaps in time between consecutive rows larger than 1.5 periods;
 *            such gaps also come from snapshots the module itself dropped
 *            (STATS ksnap_snapshots_lost, ksnap_periods_missed), which are
 *            not missing lines; with ksnapd_rows_in_earlier_files (a file
 *            begun at a SIGHUP) the rows of the files before it are not
 *            expected here.  Other lines: a stream without START_TIME,
 *            header, STATS or (lossy) ADLER32, or a header column whose
 *            metric has no META line.  A lossy stream without STATS
 *            whose whole-stream checksum matches was ended so by its
 *            writer (ksnapd at SIGHUP): not missing.  When every line
 *            present is intact and none of the above is found, a
 *            whole-stream checksum mismatch still reports lines missing
 *            or altered.
 *
 * A log may hold several streams (ksnapd writing consecutive collections
 * to stdout): a new stream begins at a META or START_TIME line after a
 * stream's STATS or ADLER32 line, or at a START_TIME with another value.
 */
#ifndef KSNAP_VERIFY_CHECK_H
#define KSNAP_VERIFY_CHECK_H

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

/* STATS, the figures the checks read (README.md, "STATS keys"). */
struct ksv_stats {
	uint64_t rate, start, last, total, sleep_err, coll_err;
	uint64_t backoffs, backoff_ns, lost, missed, taken, dropped;
	uint64_t overwritten, first_position, earlier;
	bool has_lost, has_missed, has_taken;
};

/*
 * STATS as gVisor's reader judges them (CollectionStats.Log): the share
 * of the expected snapshots captured, the average lateness and read time
 * per row written against the period, backoff against the duration.
 */
struct ksv_capture {
	uint64_t dur;			/* last - start, ns */
	uint64_t expected, seen;	/* snapshots; seen counts the ones
					 * an earlier reader read */
	double rate;			/* seen / expected (0: none expected) */
	uint64_t late_avg, read_avg;	/* ns per row */
	double late_pct, read_pct;	/* of the period */
	double backoff_pct;		/* of the duration */
	bool warn_capture;		/* below 99% */
	bool warn_late, warn_read;	/* above 10% of the period */
	bool warn_backoff;		/* above 5% */
};

void ksv_stats_capture(const struct ksv_stats *st, struct ksv_capture *c);

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
struct ksv_row;

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

int ksv_walk(const char *buf, size_t len, const struct ksv_ops *ops,
	     struct ksv_log *log);

/* --- a stream's parts, at end() ----------------------------------- */

struct ksv_row {
	uint64_t t;			/* ns since the collection started */
	const uint64_t *v;		/* ncols values, in column order */
	uint32_t ncols;
	uint32_t line;			/* its input line */
	const char *text;		/* as written: time and values, */
	size_t text_len;		/* without prefix and checksum */
};

const struct ksv_info *ksv_stream_info(const struct ksv_stream *s);
/* false: no valid START_TIME line. */
bool ksv_stream_start_time(const struct ksv_stream *s, uint64_t *ns);
/* fn(priv, k, name, len) for each value column k; -ENOENT: no header. */
int ksv_stream_columns(const struct ksv_stream *s,
		       int (*fn)(void *priv, uint32_t k, const char *name,
				 size_t len),
		       void *priv);
/* fn(priv, name, name_len, json, json_len) for each META line kept. */
int ksv_stream_metas(const struct ksv_stream *s,
		     int (*fn)(void *priv, const char *name, size_t name_len,
			       const char *json, size_t json_len),
		     void *priv);
/* fn(priv, row) for each intact row, in time order; -EINVAL when
 * streaming (the rows went to ops->row). */
int ksv_stream_rows(const struct ksv_stream *s,
		    int (*fn)(void *priv, const struct ksv_row *r),
		    void *priv);
/* NULL: no valid STATS line. */
const struct ksv_stats *ksv_stream_stats(const struct ksv_stream *s);
/* fn(priv, key, key_len, value, value_len) for each STATS key, values as
 * written (numbers, or JSON strings with their quotes); -ENOENT: no
 * STATS, -EINVAL: not a flat JSON object (after the keys before it). */
int ksv_stream_stats_each(const struct ksv_stream *s,
			  int (*fn)(void *priv, const char *key,
				    size_t key_len, const char *value,
				    size_t value_len),
			  void *priv);
const char *ksv_stream_stats_json(const struct ksv_stream *s, size_t *len);

#endif /* KSNAP_VERIFY_CHECK_H */

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

#include "findings.h"
#include "verify_lex.h"
#include "verify_stats.h"
#include "verify_stream.h"

int ksv_walk(const char *buf, size_t len, const struct ksv_ops *ops,
	     struct ksv_log *log);

#endif /* KSNAP_VERIFY_CHECK_H */

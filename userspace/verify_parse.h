/* SPDX-License-Identifier: MIT */
/*
 * ksnap-verify's parser: find profiling-metrics streams (docs/format.md)
 * in a log, check them line by line and as a whole, report what is
 * missing, cut, damaged or duplicated, and write the intact rows back out
 * as a plain stream.  Pure: reads a buffer, writes to two FILEs, so the
 * fuzz target and the tests call it directly.
 *
 * What the checks mean (also in ksnap-verify --help and ksnapd.8):
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
#ifndef KSNAP_VERIFY_PARSE_H
#define KSNAP_VERIFY_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses of ksnap-verify. */
#define KSNAP_VERIFY_INTACT	0	/* every stream complete and intact */
#define KSNAP_VERIFY_DAMAGED	1	/* damage found, rows recovered */
#define KSNAP_VERIFY_UNUSABLE	2	/* no stream, no header, no memory;
					 * in a log of several streams, only
					 * when none yielded rows */

struct ksnap_verify_opts {
	unsigned int tsv_stream;	/* stream (1-based) for tsv; 0: none */
	bool quiet;			/* only the summary, no per-line list */
};

struct ksnap_verify_result {
	int status;			/* KSNAP_VERIFY_* */
	bool lossy;
	unsigned int streams;
	uint64_t lines;			/* input lines */
	uint64_t foreign;		/* lines skipped as not ours */
	uint64_t rows;			/* intact rows, all streams */
	uint64_t rows_bad;		/* cut or damaged rows */
	uint64_t rows_missing;		/* by STATS' count */
	uint64_t dup_lines;		/* duplicate lines dropped */
	uint64_t bad_lines;		/* cut or damaged lines, rows included */
	uint64_t missing_lines;		/* non-row lines missing */
	bool sum_ok;			/* every lossy stream's ADLER32 matched */
};

/*
 * Check the log in buf[0, len).  The report goes to rep (may be NULL);
 * when o->tsv_stream names a stream and tsv is not NULL, its intact lines
 * are written to tsv as a plain stream.  Returns res->status.
 */
int ksnap_verify(const char *buf, size_t len,
		 const struct ksnap_verify_opts *o, FILE *rep, FILE *tsv,
		 struct ksnap_verify_result *res);

#endif /* KSNAP_VERIFY_PARSE_H */

/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's output: the stream of each collection, in a file of its own or
 * on standard output.  This is the only code that opens, writes to or
 * closes the output's file descriptor; ksnapd.c gives it a path, or none
 * for standard output.
 *
 * Files.  A collection's file is created when the collection begins,
 * never truncated: the first of a run goes to FILE, the next ones to
 * FILE.2, FILE.3, ..., or, when FILE holds "%g", to FILE with the
 * kernel's collection number in its place (ksnapd_output_name()).  Before
 * a run's first file, the files an earlier run left under FILE's names are
 * moved aside (retain.h), unless the run resumes a collection (below); and
 * so is a file found under a name about to be created (O_EXCL), with its
 * siblings.  On standard output the streams
 * follow one another.
 *
 * Resume.  A collection an earlier reader had begun (first_position is not
 * 0: a killed ksnapd) may have its first part in FILE: that file is never
 * truncated; this part goes to FILE.resumed.N, the first N that does not
 * exist (O_EXCL).
 *
 * SIGHUP (ksnapd_outfile_hup()): at the next wake-up, if the file was moved
 * away from its name, the stream in it ends (lossy: its ADLER32 line, no
 * STATS) and the name is reopened, appending, for a stream of its own:
 * META, START_TIME, header, whole-stream checksum from 0.  Only the last
 * file of a collection has STATS; ksnapd_rows_in_earlier_files counts the
 * rows of the files before it.
 *
 * Output full (ENOSPC, EDQUOT): said once on the log; what is buffered
 * stays buffered (no partial line is left in a regular file, output.h) and
 * is retried at every wake-up; meanwhile rows are dropped and counted
 * (STATS ksnapd_rows_dropped).  At the end of a collection, STATS waits
 * for room (ksnapd_outfile_end() returns 1) unless ksnapd is stopping,
 * which then fails with -ENOSPC or -EDQUOT.
 *
 * Retention (retain.h): the files of FILE are kept within cfg.retain,
 * oldest closed file first, when a file is created and at a wake-up
 * KSNAPD_RETAIN_INTERVAL_NS after the last check; what was removed is
 * counted in the STATS of the stream being written (ksnapd_files_removed,
 * ksnapd_bytes_removed).  A failure is said on the log (once until it
 * changes), never fatal.
 *
 * Durability (lossy, a regular file): each flush is written with write(2)
 * and made durable by a thread of its own (durable.h); the drain never
 * waits for an fsync.  While more than KSNAP_DURABLE_BOUND (64 MiB) bytes
 * are written and not yet durable, rows are dropped and counted as when
 * the output is full (STATS ksnapd_rows_dropped), said once on the log.
 * A file is closed by that thread after its last fsync.
 *
 * The functions after ksnapd_outfile_init() are this output's side of the
 * consumer interface (consumer.h), in ksnapd_outfile_ops.
 */
#ifndef KSNAPD_OUTFILE_H
#define KSNAPD_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "consumer.h"
#include "durable.h"
#include "journal.h"
#include "output.h"
#include "retain.h"
#include "ring.h"
#include "stream.h"

/* Tries of FILE.resumed.1, .2, ... before giving up (EEXIST). */
#define KSNAPD_RESUMED_MAX	1000

struct ksnapd_outfile_config {
	const char *path;	/* -o FILE, or NULL: standard output */
	bool lossy;		/* the lossy stream format (stream.h) */
	bool once;		/* one collection: its file name goes unsaid */
	FILE *log;		/* notices, the summary, or NULL */
	/* Retention of the files (retain.h): applied at each file's
	 * creation and every KSNAPD_RETAIN_INTERVAL_NS at most while one
	 * is written; not when path's directory has a "%". */
	struct ksnapd_retain_limits retain;
};

/*
 * Where the output is.  Full and ending combine: a collection can end
 * (STATS formatted, no more rows) while the output is full.
 */
enum ksnapd_outfile_state {
	KSNAPD_OUT_IDLE,	/* between collections: no stream begun */
	KSNAPD_OUT_WRITING,	/* rows are formatted and written */
	KSNAPD_OUT_FULL,	/* rows dropped, the buffer retried */
	KSNAPD_OUT_ENDING,	/* STATS formatted: the stream is ending */
	KSNAPD_OUT_ENDING_FULL,	/* ... and the output is full */
};

struct ksnapd_outfile {
	struct ksnapd_outfile_config cfg;
	enum ksnapd_outfile_state state;
	bool reopen;			/* SIGHUP: reopen at the next wake-up */
	struct ksnap_out sink;		/* the buffer, and the fd */
	struct ksnap_stream stream;
	const struct ksnap_coll *coll;	/* the collection, from begin */
	unsigned int collections;	/* begun in this run: FILE, FILE.2 */
	/* The last end() was a column set change (consumer.h): the next
	 * stream is the same collection's, in a file of its own. */
	bool split;
	unsigned int streams;		/* of this collection, its sets */
	char path[PATH_MAX];		/* the file being written */

	/* The rows of this collection, for STATS; zeroed at its begin. */
	struct {
		uint64_t rows;		/* written */
		uint64_t lateness_sum_ns;	/* of the rows written */
		uint64_t read_sum_ns;		/* of the rows written */
		uint64_t last_time_ns;		/* time of the last one */
		uint64_t in_earlier_files;	/* before the last reopen */
		uint64_t dropped;	/* output full */
		uint64_t files_removed;	/* retention */
		uint64_t bytes_removed;
	} count;
	uint64_t retain_next_ns;	/* CLOCK_MONOTONIC: next check */
	char retain_err[256];		/* the last retention error said */
	uint64_t dropped_now;		/* since it last became full */
	struct ksnap_durable durable;	/* fsyncs a lossy file */
	/* Standard output is the journal ($JOURNAL_STREAM): sink.journal
	 * points here, each line an entry of its own (journal.h). */
	struct ksnap_journal journal;
	bool behind;			/* ... more than its bound behind */
	uint64_t dropped_behind;	/* rows dropped since it fell behind */
	int full_err;			/* -ENOSPC or -EDQUOT, the last seen */
	struct ksnap_stream_stats final; /* what STATS says */

	char *err;			/* what failed, when a call fails */
	size_t errlen;
};

/*
 * Set up the output: standard output at once (its type decides on
 * fsync; the journal's stream, as $JOURNAL_STREAM names it, gets each line
 * as an entry of its own: journal.h), a file when its collection begins.  err (errlen bytes) is where
 * every function here says what failed.  Returns 0 or -errno.
 */
int ksnapd_outfile_init(struct ksnapd_outfile *o,
			const struct ksnapd_outfile_config *cfg, char *err,
			size_t errlen);
/* Close the file if one is open (an error exit), free the buffer. */
void ksnapd_outfile_fini(struct ksnapd_outfile *o);

/* SIGHUP: reopen the file at the next wake-up, if there is one. */
void ksnapd_outfile_hup(struct ksnapd_outfile *o);

/* The consumer interface (consumer.h) of the output. */
extern const struct ksnapd_consumer_ops ksnapd_outfile_ops;

int ksnapd_outfile_begin(void *o, const struct ksnap_coll *c,
			 uint64_t first_position);
int ksnapd_outfile_wake(void *o);
int ksnapd_outfile_row(void *o, const struct ksnap_record *rec);
int ksnapd_outfile_flush(void *o);
int ksnapd_outfile_end(void *o, const struct ksnapd_end *e);

/*
 * The file that collection number n (1-based, in this run) of kernel
 * generation gen goes to: path for the first, path.2, path.3, ... after;
 * or, when path holds "%g", path with "%g" replaced by gen for every
 * collection ("%%" is a "%").  Returns 0 or -ENAMETOOLONG.
 */
int ksnapd_output_name(char *buf, size_t size, const char *path,
		       unsigned int n, uint32_t gen);

/*
 * Can files be created in the directory of output path (as given to -o)?
 * Checked at startup: the files themselves are opened when their
 * collections start.  Not checked when the directory's name has a "%"
 * (ksnapd_output_name()).  Returns 0 or -errno with err set.
 */
int ksnapd_check_output_dir(const char *path, char *err, size_t len);

#endif /* KSNAPD_OUTFILE_H */

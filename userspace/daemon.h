/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's state machine: wait for a collection, write its header, stream
 * its records, and when it has stopped and the ring is drained write STATS
 * and hand the collection back (done_generation).
 *
 *   WAIT_START --(state RUNNING)--> STREAM --(STOPPED, drained)--> DONE
 *        |                            |
 *        +----(SIGINT/SIGTERM)-->   DONE  (STREAM: drain, STATS first)
 *
 * A collection started and stopped again before ksnapd looked (echo 1;
 * echo 0) is found STOPPED with a generation that is not done_generation:
 * it goes to STREAM all the same, is drained and handed back, or the
 * kernel would refuse every later start.  A stopped collection that is
 * done (the kernel counts the last one as done when the device is opened:
 * an earlier reader's) is not written, but its unread records are skipped
 * (tail = head) so that poll() can sleep.
 *
 * With cfg.stop_collection set (--stop-on-exit), a SIGINT/SIGTERM during a
 * collection first stops it in the kernel, then drains the ring up to and
 * including the kernel's last snapshot (KSNAP_REC_LAST), then writes STATS.
 *
 * Without --once, STREAM goes back to WAIT_START after each collection
 * (the kernel's stop), and the next collection goes to its own output
 * file (ksnapd_output_name()), or to NAME.resumed.N when an earlier
 * reader had begun it (first_position below).  SIGHUP reopens the output
 * file: the stream ends there (lossy: its ADLER32 line, no STATS) and a
 * whole one begins in the new file (see rows_in_earlier_files).
 *
 * Records are written out before the tail is handed back to the kernel:
 * a ksnapd killed between the two leaves rows that the next one writes
 * again (at least once), never rows that no file has.
 *
 * Output full (ENOSPC, EDQUOT): said once on the log; what was buffered
 * stays buffered (no partial line is left in a regular file, see
 * output.h) and is retried at every wake-up; meanwhile the ring is kept
 * drained and its rows are dropped and counted (STATS
 * ksnapd_rows_dropped), so that taken = rows + lost + dropped.  When the
 * collection ends while the output is full, ksnapd waits for room to write
 * STATS, the collection not being handed back (done_generation) until
 * then; a stop signal meanwhile ends it with -ENOSPC.
 */
#ifndef KSNAP_DAEMON_H
#define KSNAP_DAEMON_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ring.h"
#include "stream.h"

enum ksnapd_phase {
	KSNAPD_WAIT_START,
	KSNAPD_STREAM,
	KSNAPD_DONE,
};

/* Poll timeouts: a wake-up a second lets low-rate rows reach the file
 * even below the module's wake-up watermark; a regular file (test and
 * benchmark mode) cannot be polled, so it is checked every millisecond. */
#define KSNAPD_POLL_MS		1000
#define KSNAPD_FILE_POLL_MS	1
#define KSNAPD_RETRY_MS		1

/* How ksnapd runs, given once to ksnapd_init(). */
struct ksnapd_config {
	/* -o FILE (ksnapd_output_name()), or NULL: standard output. */
	const char *out_path;
	bool once;			/* exit after the first collection */
	FILE *log;			/* summaries and notices, or NULL */

	/*
	 * --stop-on-exit: stop the collection in the kernel (write 0 to
	 * enable), or NULL.  Called once, when a stop signal has arrived and
	 * a collection is being written, before the ring is drained: the
	 * kernel's stop is synchronous, so the drain that follows ends with
	 * its last snapshot and the collection is handed back as done.
	 * Returns 0 or -errno (then the drain ends as without it), which
	 * ksnapd keeps in stop_ret.
	 */
	int (*stop_collection)(void *arg);
	void *stop_arg;
};

/* ksnapd.stop_ret before stop_collection() is called (it returns <= 0). */
#define KSNAPD_STOP_NOT_CALLED	1

struct ksnapd {
	struct ksnapd_config cfg;
	struct ksnap_ring *ring;
	struct ksnap_stream *stream;
	const char *out_name;		/* for messages */

	enum ksnapd_phase phase;
	struct ksnap_coll coll;		/* the collection being written */
	uint64_t tail;
	uint64_t rows;			/* data lines written */
	uint64_t lateness_sum_ns;	/* of the rows written */
	uint64_t read_sum_ns;		/* of the rows written */
	uint64_t last_time_ns;		/* time of the last row */
	bool stop;			/* SIGINT/SIGTERM received */
	bool reopen;			/* SIGHUP received */
	/* KSNAPD_STOP_NOT_CALLED, or what cfg.stop_collection() returned */
	int stop_ret;

	unsigned int collections;	/* collections begun in this run */
	char cur_path[PATH_MAX];	/* the current output file */

	/*
	 * Overwrite mode (KSNAP_CTRL_OVERWRITE): records the kernel overwrote
	 * before they were read, found by position and seq (ksnap_abi.h),
	 * STATS ksnapd_snapshots_overwritten; taken = rows + lost +
	 * overwritten + dropped.
	 */
	uint64_t overwritten;
	struct ksnap_record *rec;	/* one record_size copy */

	/*
	 * Attached to a collection whose tail was not 0: an earlier reader
	 * (a killed ksnapd) read the records before first_position, and
	 * may have written them to the collection's file.  That file is
	 * not truncated: this part goes to FILE.resumed.N (N from 1, the
	 * first that does not exist), and STATS ksnapd_first_position
	 * says where it begins.
	 */
	uint64_t first_position;

	/*
	 * SIGHUP: each reopened file begins a stream of its own (META,
	 * START_TIME, header); only the last file of a collection has
	 * STATS, where ksnapd_rows_in_earlier_files counts the rows of the
	 * files before it (total_snapshots counts them all).
	 */
	uint64_t rows_in_earlier_files;

	/* Output full (see above). */
	bool sink_full;
	int full_err;			/* -ENOSPC or -EDQUOT, the last seen */
	uint64_t dropped;		/* rows dropped in this collection */
	uint64_t dropped_now;		/* ... since the output became full */
	bool stats_queued;		/* STATS is formatted, in the buffer */
	struct ksnap_stream_stats final; /* what STATS says */

	char err[320];			/* what failed, when a call fails */
};

/* Returns 0 or -ENOMEM. */
int ksnapd_init(struct ksnapd *d, struct ksnap_ring *r,
		struct ksnap_stream *s, const struct ksnapd_config *cfg);
void ksnapd_fini(struct ksnapd *d);

/*
 * Act on what the ring shows now.  Returns 1 when done (exit), 0 to wait
 * for the next wake-up, -EAGAIN to retry soon, other -errno on failure
 * with d->err set.
 */
int ksnapd_step(struct ksnapd *d);

/*
 * Step and poll (on the device and on sigfd, a signalfd for SIGINT and
 * SIGTERM, or -1) until done.  Returns 0 or -errno with d->err set.
 */
int ksnapd_run(struct ksnapd *d, int sigfd);

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

/* Tries of FILE.resumed.1, .2, ... before giving up (EEXIST). */
#define KSNAPD_RESUMED_MAX	1000

#endif /* KSNAP_DAEMON_H */

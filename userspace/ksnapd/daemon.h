/* SPDX-License-Identifier: MIT */
/*
 * ksnapd, put together: the collector (collect.h) reads the ring's
 * collections and hands their rows to the consumers (consumer.h); the
 * output file (outfile.h) is the one consumer, writing each collection as
 * a stream (stream.h) to a file or standard output; the summary
 * (summary.h) is logged at the end of each.  ksnapd_run() sleeps in
 * poll() on the device and a signalfd between steps.
 *
 *   ring --> collector --> output file      begin / wake, row..., flush /
 *                    |--> flight recorder     end with the statistics
 *                    |         ^-- control socket (--slice)
 *                    \--> OpenMetrics endpoint (web.h, --web.listen-address)
 *                               \--> DIR/ksnap.prom (textfile.h, --textfile)
 *
 * What a run does (each header has the details):
 *  - waits for a collection, writes its header and rows, and when it has
 *    stopped and the ring is drained, STATS, and hands it back to the
 *    kernel (KSNAP_IOC_DONE), which refuses a new start until then;
 *  - writes rows before it hands their slots back: a ksnapd killed
 *    between the two leaves rows that the next one writes again (at least
 *    once), never rows that no file has;
 *  - without --once, writes each collection to a file of its own (FILE,
 *    FILE.2, or %g), or, when an earlier reader had begun it, to
 *    FILE.resumed.N (never truncating the earlier file);
 *  - SIGINT/SIGTERM: drains the ring, writes STATS and exits (with
 *    --stop-on-exit, stops the collection in the kernel first);
 *  - SIGHUP: reopens a file that was moved, for a stream of its own;
 *  - output full (ENOSPC, EDQUOT): says so once, drops and counts rows
 *    (taken = rows + lost + overwritten + dropped + skipped +
 *    first_position),
 *    retries at every wake-up; STATS waits for room; a stop signal then
 *    ends it with -ENOSPC;
 *  - lossy to a regular file: fsync on a thread of its own, never on the
 *    drain; more than 64 MiB not yet durable: rows dropped and counted as
 *    when the output is full (outfile.h, durable.h).
 */
#ifndef KSNAP_DAEMON_H
#define KSNAP_DAEMON_H

#include <stdbool.h>
#include <stdio.h>

#include "collect.h"
#include "ctlsock.h"
#include "flight.h"
#include "outfile.h"
#include "ring.h"
#include "textfile.h"
#include "web.h"

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
	bool lossy;			/* the lossy stream format */
	bool once;			/* exit after the first collection */
	/* --output-max-size, --output-max-age (retain.h); 0: none. */
	struct ksnapd_retain_limits out_retain;
	FILE *log;			/* summaries and notices, or NULL */

	/*
	 * --stop-on-exit: stop the collection in the kernel (write 0 to
	 * enable), or NULL.  Called once, when a stop signal has arrived and
	 * a collection is being written, before the ring is drained: the
	 * kernel's stop is synchronous, so the drain that follows ends with
	 * its last snapshot and the collection is handed back as done.
	 * Returns 0 or -errno (then the drain ends as without it), which
	 * ksnapd keeps in col.stop_ret (KSNAPD_STOP_NOT_CALLED until then).
	 */
	int (*stop_collection)(void *arg);
	void *stop_arg;

	/*
	 * The flight recorder (flight.h), beside the output file: on when
	 * there are rules or a control socket.  no_output: no stream but
	 * the dumps (rules and no -o).
	 */
	bool no_output;
	const struct rule *rules;
	unsigned int nr_rules;
	const char *dump_dir;
	uint64_t history_ns;		/* --history, for slices */
	unsigned int max_dumps;
	const char *control_path;	/* --control, or NULL: none */

	/* The OpenMetrics endpoint (web.h): on with web_listen. */
	bool web;
	const char *web_listen;		/* ADDR:PORT, "" for the default */
	uint64_t web_window_ns;
	unsigned int web_max_requests;	/* --web.max-requests; 0: default */
	const char *web_telemetry_path;	/* --web.telemetry-path, or NULL */
	const char *web_metrics;	/* --web.metrics, or NULL: all */
	const char *web_histograms;	/* --web.histogram, or NULL */
	bool web_peak_times;		/* --web.peak-times */
	struct om_hist_spec web_hist_spec;	/* count 0: the default */
	const char *web_config;		/* --web.config.file, or NULL */
	bool web_systemd;		/* --web.systemd-socket */
	const char *version;
	/* --textfile DIR (textfile.h), or NULL: the endpoint's series,
	 * with or without its server, written every textfile_interval_ns. */
	const char *textfile_dir;
	uint64_t textfile_interval_ns;
};

struct ksnapd {
	struct ksnapd_collect col;
	struct ksnapd_outfile out;
	bool have_out;
	struct flight fl;
	bool have_flight;
	struct ctlsrv ctl;
	struct web web;
	bool have_web;
	struct textfile tf;
	char err[320];			/* what failed, when a call fails */
};

/* Returns 0 or -errno with d->err set. */
int ksnapd_init(struct ksnapd *d, struct ksnap_ring *r,
		const struct ksnapd_config *cfg);
/* Closes the output file if one is still open (an error exit). */
void ksnapd_fini(struct ksnapd *d);

/*
 * Act on what the ring shows now.  Returns 1 when done (exit), 0 to wait
 * for the next wake-up, -EAGAIN to retry soon, other -errno on failure
 * with d->err set.
 */
int ksnapd_step(struct ksnapd *d);

/*
 * Step and poll (on the device and on sigfd, a signalfd for SIGINT,
 * SIGTERM and SIGHUP, or -1) until done.  Returns 0 or -errno with d->err
 * set.
 */
int ksnapd_run(struct ksnapd *d, int sigfd);

#endif /* KSNAP_DAEMON_H */

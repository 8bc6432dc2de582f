/* SPDX-License-Identifier: MIT */
/*
 * ksnapd --textfile=DIR: the series of the OpenMetrics endpoint (web.h,
 * the same consumer of the collection, with or without its HTTP server)
 * written to DIR/ksnap.prom every --textfile.interval, for
 * node_exporter's textfile collector, which reads the text format 0.0.4
 * only (no # UNIT, no # EOF) from the *.prom files of its
 * --collector.textfile.directory.
 *
 * Each write is atomic, as that collector asks: the exposition goes to
 * DIR/.ksnap.prom.tmp.PID (a name it does not read), mode 0644 set with
 * fchmod() whatever the umask (node_exporter runs as another user),
 * fsync(), then rename() over DIR/ksnap.prom.  A write that fails (a full
 * disk, an unwritable directory) leaves the old file, removes the
 * temporary one, is counted (ksnap_textfile_write_errors_total) and
 * logged with the path when the error is a new one; the collection goes
 * on.  The writes run on a thread of their own, never on the drain; the
 * last one is at textfile_fini(), after the collection has ended.
 */
#ifndef KSNAPD_TEXTFILE_H
#define KSNAPD_TEXTFILE_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "web.h"

#define TEXTFILE_NAME		"ksnap.prom"
#define TEXTFILE_MODE		0644
#define TEXTFILE_DEFAULT_INTERVAL_NS	(5ULL * 1000000000ULL)

struct textfile_config {
	const char *dir;
	uint64_t interval_ns;		/* 0: the default */
	struct web *web;		/* whose series are written */
	FILE *log;
};

struct textfile {
	struct textfile_config cfg;
	pthread_t thread;
	pthread_mutex_t lock;		/* held by a write, and for stop */
	pthread_cond_t cond;		/* CLOCK_MONOTONIC */
	bool stop;			/* under lock */
	bool running;			/* the thread was started */
	/* The thread's: the last write's error (0: it succeeded). */
	int last_err;
	char err[PATH_MAX + 128];
};

/*
 * Write len bytes of buf to dir/TEXTFILE_NAME atomically (above).
 * Returns 0, or -errno with err naming the path.
 */
int textfile_write(const char *dir, const char *buf, size_t len, char *err,
		   size_t errlen);

/*
 * Render w's series and write them (textfile_write()), counted in w's
 * own figures; logs an error that differs from the last one.  Under
 * t->lock: one write at a time, the thread's or a caller's.  Returns
 * what textfile_write() did.
 */
int textfile_once(struct textfile *t);

/* Start the writer thread.  Returns 0 or -errno with err set. */
int textfile_init(struct textfile *t, const struct textfile_config *cfg,
		  char *err, size_t errlen);
/* Stop it, and write the file once more. */
void textfile_fini(struct textfile *t);

#endif /* KSNAPD_TEXTFILE_H */

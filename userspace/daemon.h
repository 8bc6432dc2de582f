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
 * One collection per run for now; DONE is where a later version goes back
 * to WAIT_START with a new output file.
 */
#ifndef KSNAP_DAEMON_H
#define KSNAP_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

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

struct ksnapd {
	struct ksnap_ring *ring;
	struct ksnap_stream *stream;
	const char *out_name;		/* for messages */

	enum ksnapd_phase phase;
	struct ksnap_coll coll;		/* the collection being written */
	uint64_t tail;
	uint64_t rows;			/* data lines written */
	uint64_t last_time_ns;		/* time of the last row */
	bool stop;			/* SIGINT/SIGTERM received */
	int signo;

	char err[320];			/* what failed, when a call fails */
};

/* Returns 0 or -ENOMEM. */
int ksnapd_init(struct ksnapd *d, struct ksnap_ring *r,
		struct ksnap_stream *s, const char *out_name);
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

#endif /* KSNAP_DAEMON_H */

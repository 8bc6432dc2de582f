/* SPDX-License-Identifier: MIT */
/*
 * ksnapd --slice BEGIN[,END]: the rows between two times around now (the
 * newest row), as a stream of their own, whether or not a daemon runs,
 * never stopping or disturbing the collection.
 *
 *  - No daemon (the device opens): the ring is read directly, without
 *    claiming it (ksnap_ring_peek()): in overwrite mode the kernel never
 *    reads the tail and takes this session's base as done, so a later
 *    daemon finds the ring as the earlier one left it.  In drop mode a
 *    ring nobody reads keeps its oldest records and stops there: that is
 *    an error, which says so.
 *  - A daemon (the device is busy, EBUSY): it serves the slice from its
 *    history through its control socket (ctlsock.h).
 * An END after now (+5s) waits for the rows up to it.
 */
#ifndef KSNAPD_SLICE_H
#define KSNAPD_SLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct slice_opts {
	int64_t begin_ns, end_ns;	/* around now; begin <= end */
	bool lossy;
	const char *out_path;		/* NULL: standard output */
	const char *device;
	const char *control;		/* the daemon's socket */
	FILE *log;
};

/*
 * Parse "BEGIN[,END]" ("-30s", "-10s,+5s", "-2s,0"): durations with a
 * sign, END 0 by default.  Returns 0 or -EINVAL.
 */
int slice_parse(const char *arg, int64_t *begin_ns, int64_t *end_ns);

/* One duration with a sign or none ("30s", "-2s"), the whole of s. */
int slice_duration(const char *s, int64_t *ns);

/* Do it; returns the exit status (0, 1 runtime error). */
int slice_run(const struct slice_opts *o);

#endif /* KSNAPD_SLICE_H */

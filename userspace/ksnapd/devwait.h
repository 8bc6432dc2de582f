/* SPDX-License-Identifier: MIT */
/*
 * Opening the ring, waiting for the device when it does not exist yet
 * (ksnapd started before the module is loaded, as systemd may do) or is
 * busy (another reader holds it open read-write: the packaged service
 * beside a container's ksnapd): a try after 1 s, then 1.3 times longer at
 * each try, up to 30 s between tries, until the device opens or a stop
 * signal comes.  A missing device is said at each try, a busy one once,
 * naming who to stop.
 */
#ifndef KSNAPD_DEVWAIT_H
#define KSNAPD_DEVWAIT_H

#include <stdbool.h>
#include <stdio.h>

#include "ring.h"

#define KSNAPD_WAIT_FIRST_MS	1000
#define KSNAPD_WAIT_MAX_MS	30000

/* The next wait for the device after waiting ms: x1.3, capped. */
unsigned int ksnapd_backoff_next(unsigned int ms);

/*
 * Open the ring at dev.  When wait is set and the device does not exist
 * (yet) or is busy (EBUSY), try again after 1 s, 1.3 s, ... up to 30 s
 * between tries, saying so on log; a SIGINT/SIGTERM on sigfd (a signalfd, or -1) ends the wait
 * with -EINTR, a SIGHUP there is consumed.  Returns 0 or what
 * ksnap_ring_open() returned.
 */
int ksnapd_open_ring(struct ksnap_ring *r, const char *dev, bool wait,
		     int sigfd, FILE *log);

#endif /* KSNAPD_DEVWAIT_H */

/* SPDX-License-Identifier: MIT */
/*
 * Opening the ring, waiting for the device when it does not exist yet
 * (ksnapd started before the module is loaded, as systemd may do): a try
 * after 1 s, then 1.3 times longer at each try, up to 30 s between tries,
 * each said on the log, until the device appears or a stop signal comes.
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
 * (yet), try again after 1 s, 1.3 s, ... up to 30 s between tries, saying
 * so on log; a SIGINT/SIGTERM on sigfd (a signalfd, or -1) ends the wait
 * with -EINTR, a SIGHUP there is consumed.  Returns 0 or what
 * ksnap_ring_open() returned.
 */
int ksnapd_open_ring(struct ksnap_ring *r, const char *dev, bool wait,
		     int sigfd, FILE *log);

#endif /* KSNAPD_DEVWAIT_H */

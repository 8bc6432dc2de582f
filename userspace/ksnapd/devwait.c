// SPDX-License-Identifier: MIT
/* Waiting for the ksnap device with backoff (devwait.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>

#include "devwait.h"
#include "sys.h"

unsigned int ksnapd_backoff_next(unsigned int ms)
{
	unsigned int next = ms + ms * 3 / 10;

	return next > KSNAPD_WAIT_MAX_MS ? KSNAPD_WAIT_MAX_MS : next;
}

/* A stop signal on sigfd?  Other signals (SIGHUP) are consumed. */
static bool stop_signalled(int sigfd)
{
	struct signalfd_siginfo si;

	while (ksnap_sys_read(sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGHUP)
			return true;
	return false;
}

/* The device is not there (yet): not loaded, or being created. */
static bool missing(int err)
{
	return err == -ENOENT || err == -ENODEV || err == -ENXIO;
}

int ksnapd_open_ring(struct ksnap_ring *r, const char *dev, bool wait,
		     int sigfd, FILE *log)
{
	unsigned int ms = KSNAPD_WAIT_FIRST_MS;
	struct pollfd p;
	int ret;

	for (;;) {
		ret = ksnap_ring_open(r, dev);
		if (!wait || !missing(ret))
			return ret;
		if (log)
			fprintf(log, "ksnapd: %s: %s: waiting for it, next try "
				"in %u.%u s\n", dev, strerror(-ret), ms / 1000,
				ms % 1000 / 100);
		p.fd = sigfd;
		p.events = POLLIN;
		p.revents = 0;
		ret = ksnap_sys_poll(&p, 1, (int)ms);
		if (ret < 0 && ret != -EINTR)
			return ret;
		if (ret > 0 && (p.revents & POLLIN) && stop_signalled(sigfd))
			return -EINTR;
		ms = ksnapd_backoff_next(ms);
	}
}

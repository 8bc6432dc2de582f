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

/* Why the device could not be opened, said while waiting for it. */
static void say_wait(FILE *log, const char *dev, int err, unsigned int ms,
		     bool *said_busy)
{
	if (!log)
		return;
	if (err != -EBUSY) {
		fprintf(log, "ksnapd: %s: %s: waiting for it, next try in "
			"%u.%u s\n", dev, strerror(-err), ms / 1000,
			ms % 1000 / 100);
		*said_busy = false;
		return;
	}
	if (*said_busy)
		return;
	*said_busy = true;
	fprintf(log, "ksnapd: %s: %s: another reader holds it (one reader at "
		"a time: on a host with the ksnapd package, the packaged "
		"service ksnapd.service owns it; stop it there with "
		"\"systemctl disable --now ksnapd.service\", or stop the "
		"other ksnapd); waiting for it, trying again up to every "
		"%u s\n", dev, strerror(-err), KSNAPD_WAIT_MAX_MS / 1000);
}

int ksnapd_open_ring(struct ksnap_ring *r, const char *dev, bool wait,
		     int sigfd, FILE *log)
{
	unsigned int ms = KSNAPD_WAIT_FIRST_MS;
	bool said_busy = false;
	struct pollfd p;
	int ret;

	for (;;) {
		ret = ksnap_ring_open(r, dev);
		if (!wait || (!missing(ret) && ret != -EBUSY))
			return ret;
		say_wait(log, dev, ret, ms, &said_busy);
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

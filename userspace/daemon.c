// SPDX-License-Identifier: MIT
/* ksnapd put together, and its event loop (daemon.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>

#include "daemon.h"
#include "sys.h"

int ksnapd_init(struct ksnapd *d, struct ksnap_ring *r,
		const struct ksnapd_config *cfg)
{
	const struct ksnapd_outfile_config out = {
		.path = cfg->out_path,
		.lossy = cfg->lossy,
		.once = cfg->once,
		.log = cfg->log,
	};
	const struct ksnapd_collect_config col = {
		.once = cfg->once,
		.log = cfg->log,
		.stop_collection = cfg->stop_collection,
		.stop_arg = cfg->stop_arg,
	};
	int ret;

	memset(d, 0, sizeof(*d));
	ret = ksnapd_outfile_init(&d->out, &out, d->err, sizeof(d->err));
	if (ret)
		return ret;
	ret = ksnapd_collect_init(&d->col, r, &col, d->err, sizeof(d->err));
	if (ret)
		goto err_out;
	ret = ksnapd_collect_add(&d->col, &ksnapd_outfile_ops, &d->out);
	if (ret)
		goto err_col;
	return 0;

err_col:
	ksnapd_collect_fini(&d->col);
err_out:
	ksnapd_outfile_fini(&d->out);
	return ret;
}

void ksnapd_fini(struct ksnapd *d)
{
	ksnapd_collect_fini(&d->col);
	ksnapd_outfile_fini(&d->out);
}

int ksnapd_step(struct ksnapd *d)
{
	return ksnapd_collect_step(&d->col);
}

/* SIGHUP: to the output file; SIGINT, SIGTERM: a stop request. */
static int read_signal(struct ksnapd *d, int sigfd)
{
	struct signalfd_siginfo si;
	ssize_t n = ksnap_sys_read(sigfd, &si, sizeof(si));

	if (n == -EAGAIN || n == -EINTR)
		return 0;
	if (n != sizeof(si)) {
		snprintf(d->err, sizeof(d->err), "signalfd: read: %s",
			 n < 0 ? strerror((int)-n) : "short read");
		return n < 0 ? (int)n : -EIO;
	}
	if (si.ssi_signo == SIGHUP)
		ksnapd_outfile_hup(&d->out);
	else
		d->col.stop = true;
	return 0;
}

/* Sleep until the device, a signal or the timeout wakes us. */
static int wait_event(struct ksnapd *d, int sigfd, int timeout)
{
	const struct ksnap_ring *r = d->col.ring;
	struct pollfd pfd[2] = {
		{ .fd = sigfd, .events = POLLIN },
		/* A regular file is always "readable": do not poll it. */
		{ .fd = r->regular_file ? -1 : r->fd, .events = POLLIN },
	};
	int ret;

	ret = ksnap_sys_poll(pfd, 2, timeout);
	if (ret == -EINTR)
		return 0;
	if (ret < 0) {
		snprintf(d->err, sizeof(d->err), "poll: %s", strerror(-ret));
		return ret;
	}
	if (pfd[1].revents & (POLLERR | POLLHUP | POLLNVAL)) {
		snprintf(d->err, sizeof(d->err), "the device reported an error "
			 "or hang-up (module unloaded?)");
		return -EIO;
	}
	if (pfd[0].revents & POLLIN)
		return read_signal(d, sigfd);
	return 0;
}

int ksnapd_run(struct ksnapd *d, int sigfd)
{
	int ret, timeout;

	for (;;) {
		ret = ksnapd_step(d);
		if (ret == 1)
			return 0;
		if (ret < 0 && ret != -EAGAIN)
			return ret;

		if (ret == -EAGAIN)
			timeout = KSNAPD_RETRY_MS;
		else if (d->col.ring->regular_file)
			timeout = KSNAPD_FILE_POLL_MS;
		else
			timeout = KSNAPD_POLL_MS;
		ret = wait_event(d, sigfd, timeout);
		if (ret)
			return ret;
	}
}

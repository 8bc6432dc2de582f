// SPDX-License-Identifier: MIT
/* ksnapd put together, and its event loop (daemon.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>

#include "daemon.h"
#include "sys.h"

/* The output file, unless there is none (rules and no -o). */
static int add_output(struct ksnapd *d, const struct ksnapd_config *cfg)
{
	const struct ksnapd_outfile_config out = {
		.path = cfg->out_path,
		.lossy = cfg->lossy,
		.retain = cfg->out_retain,
		.once = cfg->once,
		.log = cfg->log,
	};
	int ret;

	if (cfg->no_output)
		return 0;
	ret = ksnapd_outfile_init(&d->out, &out, d->err, sizeof(d->err));
	if (ret)
		return ret;
	d->have_out = true;
	return ksnapd_collect_add(&d->col, &ksnapd_outfile_ops, &d->out);
}

/* The flight recorder, with rules or a control socket; then the socket. */
static int add_flight(struct ksnapd *d, const struct ksnapd_config *cfg)
{
	const struct flight_config fc = {
		.dump_dir = cfg->dump_dir,
		.lossy = cfg->lossy,
		.history_ns = cfg->control_path ? cfg->history_ns : 0,
		.max_dumps = cfg->max_dumps,
		.log = cfg->log,
	};
	int ret;

	if (!cfg->nr_rules && !cfg->control_path)
		return 0;
	ret = flight_init(&d->fl, &fc, cfg->rules, cfg->nr_rules, d->err,
			  sizeof(d->err));
	if (ret)
		return ret;
	d->have_flight = true;
	ret = ksnapd_collect_add(&d->col, &flight_ops, &d->fl);
	if (ret || !cfg->control_path)
		return ret;
	/* Without its socket the daemon still writes: said, not fatal. */
	if (ctlsrv_open(&d->ctl, cfg->control_path, d->err, sizeof(d->err)) &&
	    cfg->log)
		fprintf(cfg->log, "ksnapd: control socket: %s: --slice "
			"cannot reach this daemon\n", d->err);
	d->err[0] = '\0';
	return 0;
}

/* The flight recorder's figures among ksnapd's own series (the drain's). */
static void flight_self(void *arg, struct om_self *s)
{
	const struct ksnapd *d = arg;

	s->flight = d->have_flight;
	s->flight_triggers = d->fl.triggers;
	s->flight_dumps = d->fl.dumps;
}

/* The OpenMetrics endpoint, with --web.listen-address; --textfile's file. */
static int add_web(struct ksnapd *d, struct ksnap_ring *r,
		   const struct ksnapd_config *cfg)
{
	const struct web_config wc = {
		.listen = cfg->web_listen,
		.window_ns = cfg->web_window_ns,
		.max_requests = cfg->web_max_requests,
		.telemetry_path = cfg->web_telemetry_path,
		.patterns = cfg->web_metrics,
		.histograms = cfg->web_histograms,
		.peak_times = cfg->web_peak_times,
		.hist_spec = cfg->web_hist_spec,
		.version = cfg->version,
		.ring = r,
		.log = cfg->log,
		.no_server = !cfg->web,
		.self_hook = flight_self,
		.self_arg = d,
		.config_file = cfg->web_config,
		.systemd_socket = cfg->web_systemd,
	};
	const struct textfile_config tc = {
		.dir = cfg->textfile_dir,
		.interval_ns = cfg->textfile_interval_ns,
		.web = &d->web,
		.log = cfg->log,
	};
	int ret;

	if (!cfg->web && !cfg->textfile_dir)
		return 0;
	ret = web_init(&d->web, &wc, d->err, sizeof(d->err));
	if (ret)
		return ret;
	d->have_web = true;
	ret = ksnapd_collect_add(&d->col, &web_ops, &d->web);
	if (ret || !cfg->textfile_dir)
		return ret;
	return textfile_init(&d->tf, &tc, d->err, sizeof(d->err));
}

int ksnapd_init(struct ksnapd *d, struct ksnap_ring *r,
		const struct ksnapd_config *cfg)
{
	const struct ksnapd_collect_config col = {
		.once = cfg->once,
		.log = cfg->log,
		.stop_collection = cfg->stop_collection,
		.stop_arg = cfg->stop_arg,
	};
	int ret;

	memset(d, 0, sizeof(*d));
	d->ctl.fd = -1;
	ret = ksnapd_collect_init(&d->col, r, &col, d->err, sizeof(d->err));
	if (ret)
		return ret;
	ret = add_output(d, cfg);
	if (!ret)
		ret = add_flight(d, cfg);
	if (!ret)
		ret = add_web(d, r, cfg);
	if (ret)
		ksnapd_fini(d);
	return ret;
}

void ksnapd_fini(struct ksnapd *d)
{
	ctlsrv_close(&d->ctl);
	ksnapd_collect_fini(&d->col);
	if (d->have_out)
		ksnapd_outfile_fini(&d->out);
	if (d->have_flight)
		flight_fini(&d->fl);
	textfile_fini(&d->tf);
	if (d->have_web)
		web_fini(&d->web);
	d->have_out = d->have_flight = d->have_web = false;
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
	if (si.ssi_signo == SIGHUP) {
		if (d->have_out)
			ksnapd_outfile_hup(&d->out);
	}
	else
		d->col.stop = true;
	return 0;
}

/* Sleep until the device, a signal or the timeout wakes us. */
static int wait_event(struct ksnapd *d, int sigfd, int timeout)
{
	const struct ksnap_ring *r = d->col.ring;
	struct pollfd pfd[3] = {
		{ .fd = sigfd, .events = POLLIN },
		/* A regular file is always "readable": do not poll it. */
		{ .fd = r->regular_file ? -1 : r->fd, .events = POLLIN },
		{ .fd = d->ctl.fd, .events = POLLIN },
	};
	int ret;

	ret = ksnap_sys_poll(pfd, 3, timeout);
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
	if (pfd[2].revents & POLLIN)
		ctlsrv_accept(&d->ctl, &d->fl);
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

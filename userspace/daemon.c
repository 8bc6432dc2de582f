// SPDX-License-Identifier: MIT
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>

#include "daemon.h"
#include "sys.h"

int ksnapd_init(struct ksnapd *d, struct ksnap_ring *r,
		struct ksnap_stream *s, const char *out_name)
{
	memset(d, 0, sizeof(*d));
	d->ring = r;
	d->stream = s;
	d->out_name = out_name;
	d->phase = KSNAPD_WAIT_START;
	d->coll.columns = calloc(r->max_columns ? r->max_columns : 1,
				 sizeof(*d->coll.columns));
	return d->coll.columns ? 0 : -ENOMEM;
}

void ksnapd_fini(struct ksnapd *d)
{
	free(d->coll.columns);
	d->coll.columns = NULL;
}

static int out_failed(struct ksnapd *d, int ret)
{
	snprintf(d->err, sizeof(d->err), "%s: write: %s", d->out_name,
		 strerror(-ret));
	return ret;
}

static int ring_failed(struct ksnapd *d, int ret, const char *what)
{
	if (ret != -EAGAIN)
		snprintf(d->err, sizeof(d->err), "%s", what);
	return ret;
}

/* META lines, START_TIME, column header; rows start at the current tail. */
static int begin_collection(struct ksnapd *d)
{
	struct ksnap_ring *r = d->ring;
	struct ksnap_coll *c = &d->coll;
	uint64_t head;
	int ret;

	ret = ksnap_stream_meta(d->stream, c->columns, c->nr_columns);
	if (!ret)
		ret = ksnap_stream_start_time(d->stream, c->start_real_ns);
	if (!ret)
		ret = ksnap_stream_header(d->stream, c->columns, c->nr_columns);
	if (ret)
		return out_failed(d, ret);

	/* Attached mid-collection: the kernel treats an invalid tail as
	 * "ring full", so resume from head rather than from garbage. */
	d->tail = ksnap_ring_tail(r);
	head = ksnap_ring_head(r);
	if (head - d->tail > r->nr_records) {
		d->tail = head;
		ksnap_ring_set_tail(r, head);
	}
	d->rows = 0;
	d->last_time_ns = 0;
	d->phase = KSNAPD_STREAM;
	return 0;
}

static int wait_start(struct ksnapd *d)
{
	struct ksnap_coll *c = &d->coll;
	int ret;

	ret = ksnap_ring_read_coll(d->ring, c);
	if (ret)
		return ring_failed(d, ret, "bad collection fields in the ring "
				   "(nr_columns too large)");
	if (c->state == KSNAP_STATE_RUNNING && c->generation) {
		ret = begin_collection(d);
		if (ret)
			return ret;
		ksnap_ring_set_seen(d->ring, c->generation,
				    KSNAP_STATE_RUNNING);
		return 0;
	}
	if (d->stop) {
		d->phase = KSNAPD_DONE;
		return 1;
	}
	/* Stopped: wait for a start. */
	ksnap_ring_set_seen(d->ring, c->generation, c->state);
	return 0;
}

static void fill_stats(struct ksnapd *d, struct ksnap_stream_stats *st)
{
	struct ksnap_stats ks;

	ksnap_ring_read_stats(d->ring, &ks);
	memset(st, 0, sizeof(*st));
	st->collection_rate_nanos = d->coll.period_ns;
	st->cheap_start_nanos = d->coll.start_mono_ns;
	/* gVisor's reader expects (last - start) / rate + 1 snapshots. */
	st->cheap_last_collection_nanos = d->coll.start_mono_ns +
					  d->last_time_ns;
	st->total_snapshots = d->rows;
	st->total_sleep_timing_error_nanos = ks.lateness_sum_ns;
	st->total_collection_timing_error_nanos = ks.read_sum_ns;
	st->ksnap_snapshots_taken = ks.taken;
	st->ksnap_snapshots_lost = ks.lost;
	st->ksnap_periods_missed = ks.missed;
	st->ksnap_max_lateness_nanos = ks.lateness_max_ns;
	st->ksnap_max_read_nanos = ks.read_max_ns;
	st->ksnap_bad_tail = ks.bad_tail;
}

static int end_collection(struct ksnapd *d, uint32_t state)
{
	struct ksnap_stream_stats st;
	int ret;

	/* Statistics are valid until the next start, which the kernel
	 * refuses until done_generation says we are finished. */
	fill_stats(d, &st);
	ret = ksnap_stream_stats(d->stream, &st);
	if (!ret)
		ret = ksnap_stream_finish(d->stream);
	if (ret)
		return out_failed(d, ret);
	if (state == KSNAP_STATE_STOPPED)
		ksnap_ring_set_done(d->ring, d->coll.generation);
	ksnap_ring_set_seen(d->ring, d->coll.generation, state);
	d->phase = KSNAPD_DONE;
	return 1;
}

static int stream(struct ksnapd *d)
{
	struct ksnap_ring *r = d->ring;
	struct ksnap_coll now = { 0 };
	uint64_t head, tail;
	int ret;

	/* State first, head second: once STOPPED is seen, the head loaded
	 * after it includes the last record (the kernel publishes head
	 * before it marks the collection stopped). */
	ret = ksnap_ring_read_coll(r, &now);
	if (ret)
		return ring_failed(d, ret, "bad collection fields in the ring "
				   "(nr_columns too large)");
	if (now.generation != d->coll.generation) {
		snprintf(d->err, sizeof(d->err),
			 "collection %u was replaced by collection %u before "
			 "it was written out", d->coll.generation,
			 now.generation);
		return -EPROTO;
	}

	head = ksnap_ring_head(r);
	tail = d->tail;
	if (head - tail > r->nr_records) {
		snprintf(d->err, sizeof(d->err),
			 "ring positions out of range (head %llu, tail %llu, "
			 "%u records)", (unsigned long long)head,
			 (unsigned long long)tail, r->nr_records);
		return -EPROTO;
	}
	for (; tail != head; tail++) {
		const struct ksnap_record *rec = ksnap_ring_record(r, tail);

		ret = ksnap_stream_row(d->stream, rec->time_ns, rec->values,
				       d->coll.nr_columns);
		if (ret)
			return out_failed(d, ret);
		d->rows++;
		d->last_time_ns = rec->time_ns;
	}
	if (tail != d->tail) {
		ksnap_ring_set_tail(r, tail);
		d->tail = tail;
	}

	if (now.state == KSNAP_STATE_STOPPED || d->stop)
		return end_collection(d, now.state);

	ksnap_ring_set_seen(r, d->coll.generation, now.state);
	ret = ksnap_out_flush(d->stream->out);
	if (ret)
		return out_failed(d, ret);
	return 0;
}

int ksnapd_step(struct ksnapd *d)
{
	int ret;

	switch (d->phase) {
	case KSNAPD_WAIT_START:
		ret = wait_start(d);
		if (ret || d->phase != KSNAPD_STREAM)
			return ret;
		/* Started: write what is already there. */
		return stream(d);
	case KSNAPD_STREAM:
		return stream(d);
	case KSNAPD_DONE:
		return 1;
	}
	return -EINVAL;
}

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
	d->stop = true;
	d->signo = (int)si.ssi_signo;
	return 0;
}

int ksnapd_run(struct ksnapd *d, int sigfd)
{
	struct ksnap_ring *r = d->ring;
	struct pollfd pfd[2];
	int ret, timeout;

	for (;;) {
		ret = ksnapd_step(d);
		if (ret == 1)
			return 0;
		if (ret < 0 && ret != -EAGAIN)
			return ret;

		if (ret == -EAGAIN)
			timeout = KSNAPD_RETRY_MS;
		else if (r->regular_file)
			timeout = KSNAPD_FILE_POLL_MS;
		else
			timeout = KSNAPD_POLL_MS;
		pfd[0].fd = sigfd;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		/* A regular file is always "readable": do not poll it. */
		pfd[1].fd = r->regular_file ? -1 : r->fd;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;

		ret = ksnap_sys_poll(pfd, 2, timeout);
		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			snprintf(d->err, sizeof(d->err), "poll: %s",
				 strerror(-ret));
			return ret;
		}
		if (pfd[1].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			snprintf(d->err, sizeof(d->err),
				 "the device reported an error or hang-up "
				 "(module unloaded?)");
			return -EIO;
		}
		if (pfd[0].revents & POLLIN) {
			ret = read_signal(d, sigfd);
			if (ret)
				return ret;
		}
	}
}

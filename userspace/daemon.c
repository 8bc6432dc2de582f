// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "daemon.h"
#include "summary.h"
#include "sys.h"

int ksnapd_init(struct ksnapd *d, struct ksnap_ring *r,
		struct ksnap_stream *s, const struct ksnapd_config *cfg)
{
	memset(d, 0, sizeof(*d));
	d->ring = r;
	d->stream = s;
	d->cfg = *cfg;
	d->out_name = cfg->out_path ? cfg->out_path : "<stdout>";
	d->stop_ret = KSNAPD_STOP_NOT_CALLED;
	d->phase = KSNAPD_WAIT_START;
	d->coll.columns = calloc(r->max_columns ? r->max_columns : 1,
				 sizeof(*d->coll.columns));
	d->rec = malloc(r->record_size ? r->record_size : sizeof(*d->rec));
	if (!d->coll.columns || !d->rec) {
		ksnapd_fini(d);
		return -ENOMEM;
	}
	return 0;
}

void ksnapd_fini(struct ksnapd *d)
{
	free(d->coll.columns);
	d->coll.columns = NULL;
	free(d->rec);
	d->rec = NULL;
}

static int out_failed(struct ksnapd *d, int ret)
{
	snprintf(d->err, sizeof(d->err), "%s: write: %s", d->out_name,
		 strerror(-ret));
	return ret;
}

/* ksnap_ring_read_coll() failed: -EAGAIN is retried, -EPROTO said. */
static int coll_failed(struct ksnapd *d, int ret, const struct ksnap_coll *c)
{
	const struct ksnap_ring *r = d->ring;

	if (ret == -EPROTO)
		snprintf(d->err, sizeof(d->err), "bad collection fields in the "
			 "ring: nr_columns %u, more than it has room for "
			 "(max_columns %u; %u values in a record of %u bytes)",
			 c->nr_columns, r->max_columns,
			 (unsigned int)((r->record_size -
					 sizeof(struct ksnap_record)) /
					sizeof(__u64)), r->record_size);
	else if (ret != -EAGAIN)
		snprintf(d->err, sizeof(d->err), "bad collection fields in the "
			 "ring: %s", strerror(-ret));
	return ret;
}

int ksnapd_output_name(char *buf, size_t size, const char *path,
		       unsigned int n, uint32_t gen)
{
	size_t o = 0;
	int w;

	if (!strstr(path, "%g")) {
		w = n <= 1 ? snprintf(buf, size, "%s", path) :
			     snprintf(buf, size, "%s.%u", path, n);
		return w < 0 || (size_t)w >= size ? -ENAMETOOLONG : 0;
	}
	for (; *path; path++) {
		if (path[0] == '%' && (path[1] == 'g' || path[1] == '%')) {
			w = path[1] == 'g' ?
			    snprintf(buf + o, size - o, "%u", gen) :
			    snprintf(buf + o, size - o, "%%");
			path++;
		} else {
			w = snprintf(buf + o, size - o, "%c", *path);
		}
		if (w < 0 || (size_t)w >= size - o)
			return -ENAMETOOLONG;
		o += (size_t)w;
	}
	return 0;
}

int ksnapd_check_output_dir(const char *path, char *err, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int ret;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	/* A directory named after the collection (%g) does not exist yet. */
	if (strchr(dir, '%'))
		return 0;
	ret = ksnap_sys_access(dir, W_OK | X_OK);
	if (ret)
		snprintf(err, len, "%.250s: cannot create the output files "
			 "there: %s", dir, strerror(-ret));
	return ret;
}

/* Collection n's output file, truncated, as gVisor does at a start. */
static int open_output(struct ksnapd *d, int flags)
{
	struct ksnap_out *out = d->stream->out;
	struct stat st;
	int fd, ret;

	fd = ksnap_sys_open(d->cur_path, O_WRONLY | O_CREAT | O_CLOEXEC |
			    flags, 0644);
	if (fd < 0) {
		snprintf(d->err, sizeof(d->err), "%.200s: open: %s", d->cur_path,
			 strerror(-fd));
		return fd;
	}
	ret = ksnap_sys_fstat(fd, &st);
	if (ret) {
		ksnap_sys_close(fd);
		snprintf(d->err, sizeof(d->err), "%.200s: fstat: %s", d->cur_path,
			 strerror(-ret));
		return ret;
	}
	out->fd = fd;
	out->regular = S_ISREG(st.st_mode);
	d->out_name = d->cur_path;
	return 0;
}

static int close_output(struct ksnapd *d)
{
	struct ksnap_out *out = d->stream->out;
	int ret;

	if (!d->cfg.out_path || out->fd < 0)
		return 0;
	ret = ksnap_sys_close(out->fd);
	out->fd = -1;
	if (ret)
		snprintf(d->err, sizeof(d->err), "%.200s: close: %s", d->cur_path,
			 strerror(-ret));
	return ret;
}

static void output_full(struct ksnapd *d, int err);

/* Has the file been moved away from its name (or removed)? */
static bool output_rotated(struct ksnapd *d)
{
	struct stat open_st, name_st;

	if (ksnap_sys_fstat(d->stream->out->fd, &open_st) ||
	    ksnap_sys_stat(d->cur_path, &name_st))
		return true;
	return open_st.st_dev != name_st.st_dev ||
	       open_st.st_ino != name_st.st_ino;
}

/* META lines, START_TIME, column header: the start of a stream. */
static int stream_head(struct ksnapd *d)
{
	struct ksnap_coll *c = &d->coll;
	int ret;

	ksnap_stream_reset(d->stream);
	ret = ksnap_stream_meta(d->stream, c->columns, c->nr_columns);
	if (!ret)
		ret = ksnap_stream_start_time(d->stream, c->start_real_ns);
	if (!ret)
		ret = ksnap_stream_header(d->stream, c->columns, c->nr_columns);
	return ret ? out_failed(d, ret) : 0;
}

/*
 * SIGHUP (log rotation): end the stream in the file being written (what
 * is buffered and, lossy, its ADLER32 line; no STATS, which only the last
 * file of a collection has), reopen the name (appending: logrotate may
 * have created it) and begin a stream there that stands alone: META,
 * START_TIME, header, a whole-stream checksum from 0.  Called before rows
 * are formatted; while the output is full, only once what is buffered is
 * out (d->reopen stays set), so that no row of the old stream follows
 * its ADLER32 line or lands in the new file.  Nothing to do if the name
 * is still the file being written (nothing rotated it), or when the
 * collection is ending (STATS formatted).
 */
static int reopen_output(struct ksnapd *d)
{
	int ret;

	if (!d->cfg.out_path || d->stats_queued) {
		d->reopen = false;
		return 0;
	}
	if (d->sink_full)
		return 0;
	if (!output_rotated(d)) {
		d->reopen = false;
		if (d->cfg.log)
			fprintf(d->cfg.log, "ksnapd: SIGHUP: %s was not moved: "
				"still writing it\n", d->cur_path);
		return 0;
	}
	ret = d->stream->lossy ? ksnap_stream_finish(d->stream) :
				 ksnap_out_flush(d->stream->out);
	if (ksnap_out_full_error(ret)) {
		output_full(d, ret);
		return 0;
	}
	if (ret)
		return out_failed(d, ret);
	d->reopen = false;
	ret = close_output(d);
	if (!ret)
		ret = open_output(d, O_APPEND);
	if (ret)
		return ret;
	if (d->cfg.log)
		fprintf(d->cfg.log, "ksnapd: SIGHUP: reopened %s\n", d->cur_path);
	d->rows_in_earlier_files = d->rows;
	return stream_head(d);
}

/*
 * Where the rows begin: our tail, where an earlier reader (a killed
 * ksnapd) may have left it in this collection; the collection's start when
 * the tail is below it (no reader was in this collection yet).  Positions
 * never wrap (ksnap_abi.h): a tail above head is garbage however close it
 * comes modulo 2^64, and so is one more than a ring behind head in drop
 * mode, where the kernel treats it as "ring full": resume from head then.
 * In overwrite mode a tail more than a ring behind is not garbage:
 * stream() counts what was overwritten.
 */
static void resume_position(struct ksnapd *d)
{
	struct ksnap_ring *r = d->ring;
	uint64_t start = d->coll.start_position, head, tail, was;

	was = ksnap_ring_tail(r);
	head = ksnap_ring_head(r);
	tail = was;
	if (tail < start)
		tail = start;
	else if (tail > head || (head - tail > r->nr_records &&
				 !(d->coll.flags & KSNAP_CTRL_OVERWRITE)))
		tail = head;
	if (tail != was)
		ksnap_ring_set_tail(r, tail);
	d->tail = tail;
	d->first_position = tail - start;
}

/*
 * An earlier reader had begun this collection: its file (the same name)
 * may hold the first part, so it is not truncated; this part goes to
 * base.resumed.N, the first N that does not exist.
 */
static int open_resumed(struct ksnapd *d, const char *base)
{
	unsigned int n;
	int w, ret;

	for (n = 1; n <= KSNAPD_RESUMED_MAX; n++) {
		w = snprintf(d->cur_path, sizeof(d->cur_path), "%s.resumed.%u",
			     base, n);
		if (w < 0 || (size_t)w >= sizeof(d->cur_path)) {
			snprintf(d->err, sizeof(d->err), "%.200s: output file "
				 "name too long", base);
			return -ENAMETOOLONG;
		}
		ret = open_output(d, O_EXCL);
		if (ret != -EEXIST)
			return ret;
	}
	snprintf(d->err, sizeof(d->err), "%.200s.resumed.1 to .%u all exist",
		 base, KSNAPD_RESUMED_MAX);
	return -EEXIST;
}

static int open_collection_output(struct ksnapd *d)
{
	struct ksnap_coll *c = &d->coll;
	char base[PATH_MAX];
	int ret;

	ret = ksnapd_output_name(base, sizeof(base), d->cfg.out_path,
				 d->collections, c->generation);
	if (ret) {
		snprintf(d->err, sizeof(d->err), "%.200s: output file name "
			 "too long", d->cfg.out_path);
		return ret;
	}
	if (d->first_position) {
		ret = open_resumed(d, base);
	} else {
		/* The name, not the PATH_MAX bytes of base past its end. */
		memcpy(d->cur_path, base, strlen(base) + 1);
		ret = open_output(d, O_TRUNC);
	}
	if (ret)
		return ret;
	if (d->cfg.log && (!d->cfg.once || d->first_position))
		fprintf(d->cfg.log, "ksnapd: collection %u: writing %s\n",
			c->generation, d->cur_path);
	return 0;
}

/* META lines, START_TIME, column header; rows start at the current tail. */
static int begin_collection(struct ksnapd *d)
{
	struct ksnap_coll *c = &d->coll;
	int ret;

	d->collections++;
	resume_position(d);
	if (d->first_position && d->cfg.log)
		fprintf(d->cfg.log, "ksnapd: collection %u: resuming at position "
			"%llu: the snapshots before it were read by an "
			"earlier reader (STATS ksnapd_first_position)\n",
			c->generation, (unsigned long long)d->first_position);
	if (d->cfg.out_path) {
		ret = open_collection_output(d);
		if (ret)
			return ret;
	}
	ret = stream_head(d);
	if (ret)
		return ret;

	d->overwritten = 0;
	d->rows = 0;
	d->lateness_sum_ns = 0;
	d->read_sum_ns = 0;
	d->rows_in_earlier_files = 0;
	d->reopen = false;
	d->last_time_ns = 0;
	d->dropped = 0;
	d->stats_queued = false;
	d->phase = KSNAPD_STREAM;
	return 0;
}

/*
 * A stopped collection that is not ours to write (the kernel counted it as
 * finished when we opened the device: an earlier reader's) may have
 * records left unread.  poll() reports head != tail as readable, so leave
 * none: the tail goes to head, and the wait sleeps.
 */
static void skip_finished(struct ksnapd *d)
{
	struct ksnap_ring *r = d->ring;
	uint64_t head = ksnap_ring_head(r), tail = ksnap_ring_tail(r);

	if (head == tail)
		return;
	ksnap_ring_set_tail(r, head);
	if (d->cfg.log && tail < head)
		fprintf(d->cfg.log, "ksnapd: collection %u had stopped with %llu "
			"snapshots unread by an earlier reader: not written\n",
			d->coll.generation,
			(unsigned long long)(head - tail));
}

static int wait_start(struct ksnapd *d)
{
	struct ksnap_coll *c = &d->coll;
	int ret;

	ret = ksnap_ring_read_coll(d->ring, c);
	if (ret)
		return coll_failed(d, ret, c);
	/*
	 * Running, or started and already stopped again before we looked
	 * (echo 1; echo 0): the kernel waits for that one to be written out
	 * (done_generation) before it allows another start.
	 */
	if (c->generation && (c->state == KSNAP_STATE_RUNNING ||
			      c->generation != ksnap_ring_done(d->ring))) {
		ret = begin_collection(d);
		if (ret)
			return ret;
		ksnap_ring_set_seen(d->ring, c->generation, c->state);
		return 0;
	}
	if (d->stop) {
		d->phase = KSNAPD_DONE;
		return 1;
	}
	/* Stopped and finished: wait for a start. */
	skip_finished(d);
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
	/* Over the rows written: gVisor's reader divides by their number. */
	st->total_sleep_timing_error_nanos = d->lateness_sum_ns;
	st->total_collection_timing_error_nanos = d->read_sum_ns;
	st->ksnap_lateness_sum_nanos = ks.lateness_sum_ns;
	st->ksnap_read_sum_nanos = ks.read_sum_ns;
	st->ksnap_snapshots_taken = ks.taken;
	st->ksnap_snapshots_lost = ks.lost;
	st->ksnap_periods_missed = ks.missed;
	st->ksnap_max_lateness_nanos = ks.lateness_max_ns;
	st->ksnap_max_read_nanos = ks.read_max_ns;
	st->ksnap_bad_tail = ks.bad_tail;
	st->ksnapd_rows_dropped = d->dropped;
	st->ksnapd_snapshots_overwritten = d->overwritten;
	st->ksnapd_first_position = d->first_position;
	st->ksnapd_rows_in_earlier_files = d->rows_in_earlier_files;
}

/* The output is full: say so once, from now on drop and count rows. */
static void output_full(struct ksnapd *d, int err)
{
	d->full_err = err;
	if (d->sink_full)
		return;
	d->sink_full = true;
	d->dropped_now = 0;
	if (d->cfg.log) {
		fprintf(d->cfg.log, "ksnapd: %s: write: %s: dropping rows (counted "
			"in STATS ksnapd_rows_dropped) until there is room "
			"again\n", d->out_name, strerror(-err));
		fflush(d->cfg.log);
	}
}

/*
 * Output full: retry what is buffered.  Returns 0 when it is written (or
 * was not full), 1 when still full, -errno on another error.
 */
static int retry_output(struct ksnapd *d)
{
	int ret;

	if (!d->sink_full)
		return 0;
	/* The ADLER32 line, once formatted, is the last write: unframed. */
	ret = d->stream->adler_queued ? ksnap_out_flush_last(d->stream->out) :
					ksnap_out_flush(d->stream->out);
	if (ksnap_out_full_error(ret)) {
		d->full_err = ret;
		return 1;
	}
	if (ret)
		return out_failed(d, ret);
	d->sink_full = false;
	if (d->cfg.log) {
		fprintf(d->cfg.log, "ksnapd: %s: writing again, %llu rows dropped "
			"while the output was full\n", d->out_name,
			(unsigned long long)d->dropped_now);
		fflush(d->cfg.log);
	}
	return 0;
}

/* Flush; a full output is not an error (see output_full()). */
static int flush_output(struct ksnapd *d)
{
	int ret;

	if (d->sink_full)
		return 0;
	ret = ksnap_out_flush(d->stream->out);
	if (ksnap_out_full_error(ret)) {
		output_full(d, ret);
		return 0;
	}
	return ret ? out_failed(d, ret) : 0;
}

/*
 * The collection has ended but the output is full: wait for room (the
 * next wake-up retries), unless asked to stop.
 */
static int end_wait_for_room(struct ksnapd *d, uint32_t state, int err)
{
	if (d->stop) {
		snprintf(d->err, sizeof(d->err), "%s: write: %s: stopping "
			 "with %zu bytes of collection %u unwritten (its "
			 "STATS line among them)", d->out_name,
			 strerror(-err), ksnap_out_pending(d->stream->out),
			 d->coll.generation);
		return err;
	}
	/* Seen, so that poll() sleeps; not done: no new start meanwhile. */
	ksnap_ring_set_seen(d->ring, d->coll.generation, state);
	return 0;
}

static int end_collection(struct ksnapd *d, uint32_t state)
{
	int ret;

	ret = retry_output(d);
	if (ret < 0)
		return ret;
	if (ret)
		return end_wait_for_room(d, state, d->full_err);
	/* Statistics are valid until the next start, which the kernel
	 * refuses until done_generation says we are finished. */
	if (!d->stats_queued) {
		fill_stats(d, &d->final);
		ret = ksnap_stream_stats(d->stream, &d->final);
		if (ksnap_out_full_error(ret)) {
			output_full(d, ret);
			return end_wait_for_room(d, state, ret);
		}
		if (ret)
			return out_failed(d, ret);
		d->stats_queued = true;
	}
	ret = ksnap_stream_finish(d->stream);
	if (ksnap_out_full_error(ret)) {
		output_full(d, ret);
		return end_wait_for_room(d, state, ret);
	}
	if (ret)
		return out_failed(d, ret);
	if (d->sink_full)
		retry_output(d);	/* written: says so */
	ret = close_output(d);
	if (ret)
		return ret;
	ksnapd_summary(d->cfg.log, d->coll.generation, &d->final);
	if (state == KSNAP_STATE_STOPPED)
		ksnap_ring_set_done(d->ring, d->coll.generation);
	ksnap_ring_set_seen(d->ring, d->coll.generation, state);
	if (d->cfg.once || d->stop) {
		d->phase = KSNAPD_DONE;
		return 1;
	}
	/* Wait for the next collection, which gets its own file. */
	d->phase = KSNAPD_WAIT_START;
	return 0;
}

static int stream(struct ksnapd *d)
{
	struct ksnap_ring *r = d->ring;
	struct ksnap_coll now = { 0 };
	bool overwrite = d->coll.flags & KSNAP_CTRL_OVERWRITE;
	uint64_t head, tail;
	int ret;

	/* --stop-on-exit and a stop signal: stop the collection first, so
	 * that the state read below is STOPPED and the head includes the
	 * kernel's last snapshot. */
	if (d->stop && d->cfg.stop_collection &&
	    d->stop_ret == KSNAPD_STOP_NOT_CALLED)
		d->stop_ret = d->cfg.stop_collection(d->cfg.stop_arg);

	/* State first, head second: once STOPPED is seen, the head loaded
	 * after it includes the last record (the kernel publishes head
	 * before it marks the collection stopped). */
	ret = ksnap_ring_read_coll(r, &now);
	if (ret)
		return coll_failed(d, ret, &now);
	if (now.generation != d->coll.generation) {
		snprintf(d->err, sizeof(d->err),
			 "collection %u was replaced by collection %u before "
			 "it was written out", d->coll.generation,
			 now.generation);
		return -EPROTO;
	}

	/* Output full: write what is buffered first, if there is room. */
	ret = retry_output(d);
	if (ret < 0)
		return ret;
	/* SIGHUP: rows from here on go to the new file. */
	if (d->reopen) {
		ret = reopen_output(d);
		if (ret)
			return ret;
	}

	head = ksnap_ring_head(r);
	tail = d->tail;
	if (head - tail > r->nr_records && overwrite) {
		/* Lapped: what lies a ring behind head is gone. */
		d->overwritten += head - r->nr_records - tail;
		tail = head - r->nr_records;
	}
	if (head - tail > r->nr_records) {
		snprintf(d->err, sizeof(d->err),
			 "ring positions out of range (head %llu, tail %llu, "
			 "%u records)", (unsigned long long)head,
			 (unsigned long long)tail, r->nr_records);
		return -EPROTO;
	}
	for (; tail != head; tail++) {
		const struct ksnap_record *rec = ksnap_ring_record(r, tail);

		if (overwrite) {
			if (!ksnap_ring_copy_record(r, tail, d->rec,
						    now.state ==
						    KSNAP_STATE_STOPPED)) {
				d->overwritten++;
				continue;
			}
			rec = d->rec;
		}
		if (!d->sink_full) {
			ret = ksnap_stream_row(d->stream, rec->time_ns,
					       rec->values, d->coll.nr_columns);
			if (ksnap_out_full_error(ret))
				output_full(d, ret);
			else if (ret)
				return out_failed(d, ret);
		}
		if (d->sink_full) {
			d->dropped++;
			d->dropped_now++;
			continue;
		}
		d->rows++;
		d->last_time_ns = rec->time_ns;
		d->lateness_sum_ns += rec->lateness_ns;
		d->read_sum_ns += rec->read_ns;
	}
	/* Written out before the kernel may reuse the slots. */
	ret = flush_output(d);
	if (ret)
		return ret;
	if (tail != d->tail) {
		ksnap_ring_set_tail(r, tail);
		d->tail = tail;
	}

	if (now.state == KSNAP_STATE_STOPPED || d->stop)
		return end_collection(d, now.state);

	ksnap_ring_set_seen(r, d->coll.generation, now.state);
	return 0;
}

int ksnapd_step(struct ksnapd *d)
{
	int ret;

	switch (d->phase) {
	case KSNAPD_WAIT_START:
		d->reopen = false;	/* no file open: the next is new */
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
	if (si.ssi_signo == SIGHUP)
		d->reopen = true;
	else
		d->stop = true;
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

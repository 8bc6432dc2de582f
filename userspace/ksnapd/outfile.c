// SPDX-License-Identifier: MIT
/* ksnapd's output file: names, life cycle, SIGHUP, full disk (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "outfile.h"
#include "summary.h"
#include "sys.h"

#define STDOUT_NAME	"<stdout>"

const struct ksnapd_consumer_ops ksnapd_outfile_ops = {
	.begin = ksnapd_outfile_begin,
	.wake = ksnapd_outfile_wake,
	.row = ksnapd_outfile_row,
	.flush = ksnapd_outfile_flush,
	.end = ksnapd_outfile_end,
};

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

/* The output's name in messages. */
static const char *name(const struct ksnapd_outfile *o)
{
	return o->cfg.path ? o->path : STDOUT_NAME;
}

static bool is_full(const struct ksnapd_outfile *o)
{
	return o->state == KSNAPD_OUT_FULL ||
	       o->state == KSNAPD_OUT_ENDING_FULL;
}

static bool is_ending(const struct ksnapd_outfile *o)
{
	return o->state == KSNAPD_OUT_ENDING ||
	       o->state == KSNAPD_OUT_ENDING_FULL;
}

static int fail(struct ksnapd_outfile *o, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What failed, in o->err; returns ret. */
static int fail(struct ksnapd_outfile *o, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->err, o->errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/* A notice on the log, out at once (the log may be a file). */
#define say(o, ...) ksnap_say((o)->cfg.log, true, __VA_ARGS__)

static int write_failed(struct ksnapd_outfile *o, int ret)
{
	if (ret == -EMSGSIZE && o->sink.journal && o->journal.err[0])
		return fail(o, ret, "%s: the journal: %s", name(o),
			    o->journal.err);
	return fail(o, ret, "%s: write: %s", name(o), strerror(-ret));
}

int ksnapd_outfile_init(struct ksnapd_outfile *o,
			const struct ksnapd_outfile_config *cfg, char *err,
			size_t errlen)
{
	struct stat st = { 0 };
	int ret;

	memset(o, 0, sizeof(*o));
	o->cfg = *cfg;
	o->err = err;
	o->errlen = errlen;
	o->state = KSNAPD_OUT_IDLE;
	/* A file is opened when its collection begins. */
	if (!cfg->path) {
		ret = ksnap_sys_fstat(STDOUT_FILENO, &st);
		if (ret)
			return fail(o, ret, "%s: fstat: %s", STDOUT_NAME,
				    strerror(-ret));
	}
	ret = ksnap_out_init(&o->sink, cfg->path ? -1 : STDOUT_FILENO,
			     S_ISREG(st.st_mode), cfg->lossy,
			     KSNAP_OUT_DEFAULT_SIZE);
	if (ret)
		return fail(o, ret, "%s", strerror(-ret));
	ksnap_durable_init(&o->durable);
	o->sink.durable = &o->durable;
	if (!cfg->path &&
	    ksnap_journal_stream_is(getenv("JOURNAL_STREAM"), &st)) {
		ksnap_journal_init(&o->journal, cfg->log);
		o->sink.journal = &o->journal;
	}
	ksnap_stream_init(&o->stream, &o->sink, cfg->lossy);
	return 0;
}

void ksnapd_outfile_fini(struct ksnapd_outfile *o)
{
	if (o->cfg.path && o->sink.fd >= 0)
		ksnap_durable_close(&o->durable, o->sink.fd);
	o->sink.fd = -1;
	ksnap_out_fini(&o->sink);
	ksnap_journal_fini(&o->journal);
	/* What was written is made durable before ksnapd exits. */
	ksnap_durable_fini(&o->durable);
}

/* Open o->path (O_EXCL or O_APPEND in flags) as the sink. */
static int open_file(struct ksnapd_outfile *o, int flags)
{
	struct stat st;
	int fd, ret;

	fd = ksnap_sys_open(o->path, O_WRONLY | O_CREAT | O_CLOEXEC | flags,
			    0644);
	if (fd < 0)
		return fail(o, fd, "%.200s: open: %s", o->path, strerror(-fd));
	ret = ksnap_sys_fstat(fd, &st);
	if (ret) {
		ksnap_sys_close(fd);
		return fail(o, ret, "%.200s: fstat: %s", o->path,
			    strerror(-ret));
	}
	o->sink.fd = fd;
	o->sink.regular = S_ISREG(st.st_mode);
	return 0;
}

static int close_file(struct ksnapd_outfile *o)
{
	int ret;

	if (!o->cfg.path || o->sink.fd < 0)
		return 0;
	/* Closed after its last fsync, which the drain does not wait for. */
	ret = ksnap_durable_close(&o->durable, o->sink.fd);
	o->sink.fd = -1;
	return ret ? fail(o, ret, "%.200s: close: %s", o->path,
			  strerror(-ret)) : 0;
}

/* Begun by an earlier reader: base may hold its part, never truncated. */
static int open_resumed(struct ksnapd_outfile *o, const char *base)
{
	unsigned int n;
	int w, ret;

	for (n = 1; n <= KSNAPD_RESUMED_MAX; n++) {
		w = snprintf(o->path, sizeof(o->path), "%s.resumed.%u", base,
			     n);
		if (w < 0 || (size_t)w >= sizeof(o->path))
			return fail(o, -ENAMETOOLONG, "%.200s: output file "
				    "name too long", base);
		ret = open_file(o, O_EXCL);
		if (ret != -EEXIST)
			return ret;
	}
	return fail(o, -EEXIST, "%.200s.resumed.1 to .%u all exist", base,
		    KSNAPD_RESUMED_MAX);
}

/*
 * A later column set's stream (split): FILE.N names it already (N counts
 * streams), but a name by generation (%g) gets ".S", its set's number
 * within the collection, from 2.
 */
static int split_name(const struct ksnapd_outfile *o, char *base,
		      size_t size)
{
	size_t len = strlen(base);
	int w;

	if (o->streams < 2 || !strstr(o->cfg.path, "%g"))
		return 0;
	w = snprintf(base + len, size - len, ".%u", o->streams);
	return w < 0 || (size_t)w >= size - len ? -ENAMETOOLONG : 0;
}

/* Move an earlier run's files named base aside (retain.h). */
static int move_aside(struct ksnapd_outfile *o, const char *base)
{
	int ret = ksnapd_move_aside(base, o->cfg.log, o->err, o->errlen);

	return ret < 0 ? ret : 0;
}

/*
 * Create o->path, never truncating: a file there is an earlier run's
 * (with "%g", of a collection number the module gave before it was
 * reloaded), moved aside with its siblings first.
 */
static int create_file(struct ksnapd_outfile *o)
{
	int ret = open_file(o, O_EXCL);

	if (ret != -EEXIST)
		return ret;
	ret = move_aside(o, o->path);
	return ret ? ret : open_file(o, O_EXCL);
}

/* The collection's file, created (never truncated) at its start. */
static int open_collection_file(struct ksnapd_outfile *o, uint32_t gen,
				uint64_t first_position)
{
	char base[PATH_MAX];
	int ret;

	ret = ksnapd_output_name(base, sizeof(base), o->cfg.path,
				 o->collections, gen);
	if (!ret)
		ret = split_name(o, base, sizeof(base));
	if (ret)
		return fail(o, ret, "%.200s: output file name too long",
			    o->cfg.path);
	/*
	 * A run's first file: whatever an earlier run left goes aside,
	 * unless this run resumes the collection one of those files holds
	 * the first part of (they stay; a later name found taken goes
	 * aside when it is created).
	 */
	if (o->collections == 1 && o->streams == 1 && !first_position &&
	    !strstr(o->cfg.path, "%g")) {
		ret = move_aside(o, base);
		if (ret)
			return ret;
	}
	if (first_position) {
		ret = open_resumed(o, base);
	} else {
		/* The name, not the PATH_MAX bytes of base past its end. */
		memcpy(o->path, base, strlen(base) + 1);
		ret = create_file(o);
	}
	if (ret)
		return ret;
	if (!o->cfg.once || first_position)
		say(o, "ksnapd: collection %u: writing %s\n", gen, o->path);
	return 0;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Keep the files within cfg.retain, counting what was removed in this
 * stream's STATS; a failure is said (once until it changes), not fatal.
 */
static void retain(struct ksnapd_outfile *o)
{
	const struct ksnapd_retain_limits *lim = &o->cfg.retain;
	const char *slash = strrchr(o->cfg.path, '/');
	char err[sizeof(o->retain_err)];
	int ret;

	if (!lim->max_size && !lim->max_age_ns)
		return;
	if (slash && memchr(o->cfg.path, '%', (size_t)(slash - o->cfg.path)))
		return;		/* a directory per collection (%g) */
	o->retain_next_ns = (uint64_t)clock_ns(CLOCK_MONOTONIC) +
			    KSNAPD_RETAIN_INTERVAL_NS;
	err[0] = '\0';
	ret = ksnapd_retain(o->cfg.path, o->sink.fd >= 0 ? o->path : NULL,
			    lim, clock_ns(CLOCK_REALTIME),
			    &o->count.files_removed, &o->count.bytes_removed,
			    o->cfg.log, err, sizeof(err));
	if (ret && strcmp(err, o->retain_err))
		say(o, "ksnapd: retention: %s: the output may grow past its "
		    "limits\n", err);
	snprintf(o->retain_err, sizeof(o->retain_err), "%s", ret ? err : "");
}

/* META lines, START_TIME, column header: the start of a stream. */
static int stream_head(struct ksnapd_outfile *o)
{
	const struct ksnap_coll *c = o->coll;
	int ret;

	ksnap_stream_reset(&o->stream);
	ret = ksnap_stream_begin(&o->stream, c->columns, c->nr_columns,
				 c->start_real_ns);
	return ret ? write_failed(o, ret) : 0;
}

int ksnapd_outfile_begin(void *self, const struct ksnap_coll *c,
			 uint64_t first_position)
{
	struct ksnapd_outfile *o = self;
	int ret;

	o->coll = c;
	o->collections++;
	o->journal.collection = c->generation;
	o->streams = o->split ? o->streams + 1 : 1;
	if (o->cfg.path) {
		/* A split's rows before first_position are in our files. */
		ret = open_collection_file(o, c->generation,
					   o->split ? 0 : first_position);
		if (ret)
			return ret;
	}
	o->split = false;
	ret = stream_head(o);
	if (ret)
		return ret;
	memset(&o->count, 0, sizeof(o->count));
	o->reopen = false;
	o->state = KSNAPD_OUT_WRITING;
	if (o->cfg.path)
		retain(o);
	return 0;
}

/* The output is full: say so once, from now on drop and count rows. */
static void output_full(struct ksnapd_outfile *o, int err)
{
	o->full_err = err;
	if (is_full(o))
		return;
	o->state = is_ending(o) ? KSNAPD_OUT_ENDING_FULL : KSNAPD_OUT_FULL;
	o->dropped_now = 0;
	say(o, "ksnapd: %s: write: %s: dropping rows (counted in STATS "
	    "ksnapd_rows_dropped) until there is room again\n", name(o),
	    strerror(-err));
}

/* A write's result: 0, 1 when the output is full (not an error), -errno. */
static int written(struct ksnapd_outfile *o, int ret)
{
	if (ksnap_out_full_error(ret)) {
		output_full(o, ret);
		return 1;
	}
	return ret ? write_failed(o, ret) : 0;
}

/*
 * Output full: retry what is buffered.  Returns 0 when it is written (or
 * was not full), 1 when still full, -errno on another error.
 */
static int retry(struct ksnapd_outfile *o)
{
	int ret;

	if (!is_full(o))
		return 0;
	/* The ADLER32 line, once formatted, is the last write: unframed. */
	ret = o->stream.adler_queued ? ksnap_out_flush_last(&o->sink) :
				       ksnap_out_flush(&o->sink);
	if (ksnap_out_full_error(ret)) {
		o->full_err = ret;
		return 1;
	}
	if (ret)
		return write_failed(o, ret);
	o->state = is_ending(o) ? KSNAPD_OUT_ENDING : KSNAPD_OUT_WRITING;
	say(o, "ksnapd: %s: writing again, %llu rows dropped while the "
	    "output was full\n", name(o), (unsigned long long)o->dropped_now);
	return 0;
}

void ksnapd_outfile_hup(struct ksnapd_outfile *o)
{
	/* Standard output is not reopened; between collections there is
	 * no file, and at the end of one STATS is on its way. */
	if (o->cfg.path && (o->state == KSNAPD_OUT_WRITING ||
			    o->state == KSNAPD_OUT_FULL))
		o->reopen = true;
}

/* Has the file been moved away from its name (or removed)? */
static bool rotated(struct ksnapd_outfile *o)
{
	struct stat open_st, name_st;

	if (ksnap_sys_fstat(o->sink.fd, &open_st) ||
	    ksnap_sys_stat(o->path, &name_st))
		return true;
	return open_st.st_dev != name_st.st_dev ||
	       open_st.st_ino != name_st.st_ino;
}

/*
 * SIGHUP: end the stream in the file (what is buffered, lossy: ADLER32; no
 * STATS), reopen its name appending (logrotate may have created it), and
 * begin a stream that stands alone there.  While the output is full, only
 * once what is buffered is out (reopen stays set): no row of the old
 * stream may follow its ADLER32 line or land in the new file.
 */
static int reopen(struct ksnapd_outfile *o)
{
	int ret;

	if (is_ending(o)) {
		o->reopen = false;
		return 0;
	}
	if (is_full(o))
		return 0;
	if (!rotated(o)) {
		o->reopen = false;
		say(o, "ksnapd: SIGHUP: %s was not moved: still writing it\n",
		    o->path);
		return 0;
	}
	ret = written(o, o->stream.lossy ? ksnap_stream_finish(&o->stream) :
					   ksnap_out_flush(&o->sink));
	if (ret)
		return ret < 0 ? ret : 0;	/* full: reopen stays set */
	o->reopen = false;
	ret = close_file(o);
	if (!ret)
		ret = open_file(o, O_APPEND);
	if (ret)
		return ret;
	say(o, "ksnapd: SIGHUP: reopened %s\n", o->path);
	o->count.in_earlier_files = o->count.rows;
	return stream_head(o);
}

int ksnapd_outfile_wake(void *self)
{
	struct ksnapd_outfile *o = self;
	int ret;

	/* Output full: write what is buffered first, if there is room. */
	ret = retry(o);
	if (ret < 0)
		return ret;
	if (o->cfg.path && o->state != KSNAPD_OUT_IDLE &&
	    (uint64_t)clock_ns(CLOCK_MONOTONIC) >= o->retain_next_ns)
		retain(o);
	/* SIGHUP: rows from here on go to the new file. */
	return o->reopen ? reopen(o) : 0;
}

/*
 * May a row be written, or is the fsync thread too far behind (durable.h)?
 * Said on the log when it falls behind and when it has caught up.
 */
static bool durable_room(struct ksnapd_outfile *o)
{
	/* A row's most: its values, time, lossy prefix and suffix. */
	uint64_t row = (uint64_t)(o->coll->nr_columns + 1) * 21 + 32;
	struct ksnap_out *k = &o->sink;

	if (!k->framed || !k->regular)
		return true;
	if (ksnap_durable_room(&o->durable, ksnap_out_pending(k) + row)) {
		if (o->behind)
			say(o, "ksnapd: %s: fsync caught up: writing again, "
			    "%llu rows dropped while it was behind\n", name(o),
			    (unsigned long long)o->dropped_behind);
		o->behind = false;
		return true;
	}
	if (!o->behind) {
		o->behind = true;
		o->dropped_behind = 0;
		say(o, "ksnapd: %s: fsync is %llu bytes behind (bound %llu): "
		    "dropping rows (counted in STATS ksnapd_rows_dropped) "
		    "until it catches up\n", name(o),
		    (unsigned long long)ksnap_durable_backlog(&o->durable),
		    (unsigned long long)o->durable.bound);
	}
	o->dropped_behind++;
	return false;
}

int ksnapd_outfile_row(void *self, const struct ksnap_record *rec)
{
	struct ksnapd_outfile *o = self;
	int ret;

	if (!is_full(o) && !durable_room(o)) {
		o->count.dropped++;
		return 0;
	}
	if (!is_full(o)) {
		ret = written(o, ksnap_stream_row(&o->stream, rec->time_ns,
						  rec->values,
						  o->coll->nr_columns));
		if (ret < 0)
			return ret;
	}
	if (is_full(o)) {
		o->count.dropped++;
		o->dropped_now++;
		return 0;
	}
	o->count.rows++;
	o->count.last_time_ns = rec->time_ns;
	o->count.lateness_sum_ns += rec->lateness_ns;
	o->count.read_sum_ns += rec->read_ns;
	return 0;
}

/* Flush; a full output is not an error (see output_full()). */
int ksnapd_outfile_flush(void *self)
{
	struct ksnapd_outfile *o = self;
	int ret;

	if (is_full(o))
		return 0;
	ret = written(o, ksnap_out_flush(&o->sink));
	return ret < 0 ? ret : 0;
}

/* STATS: the collection's figures, and those of the rows written. */
static void fill_stats(const struct ksnapd_outfile *o,
		       const struct ksnapd_end *e,
		       struct ksnap_stream_stats *st)
{
	*st = e->stats;
	/* gVisor's reader expects (last - start) / rate + 1 snapshots;
	 * the sums are over the rows written. */
	ksnap_stream_stats_rows(st, e->coll->start_mono_ns,
				o->count.last_time_ns, o->count.rows,
				o->count.lateness_sum_ns,
				o->count.read_sum_ns);
	st->ksnapd_rows_dropped = o->count.dropped;
	st->ksnapd_rows_in_earlier_files = o->count.in_earlier_files;
	st->ksnapd_files_removed = o->count.files_removed;
	st->ksnapd_bytes_removed = o->count.bytes_removed;
}

/* Ended, the output full: wait for room (1), unless ksnapd is stopping. */
static int wait_for_room(struct ksnapd_outfile *o, const struct ksnapd_end *e)
{
	if (!e->stopping)
		return 1;
	return fail(o, o->full_err, "%s: write: %s: stopping with %zu bytes "
		    "of collection %u unwritten (its STATS line among them)",
		    name(o), strerror(-o->full_err),
		    ksnap_out_pending(&o->sink), e->coll->generation);
}

/* Format STATS, once: it says what was written before it. */
static int queue_stats(struct ksnapd_outfile *o, const struct ksnapd_end *e)
{
	int ret;

	fill_stats(o, e, &o->final);
	ret = written(o, ksnap_stream_stats(&o->stream, &o->final));
	if (ret)
		return ret;
	o->state = KSNAPD_OUT_ENDING;
	return 0;
}

int ksnapd_outfile_end(void *self, const struct ksnapd_end *e)
{
	struct ksnapd_outfile *o = self;
	int ret;

	ret = retry(o);
	if (!ret && !is_ending(o))
		ret = queue_stats(o, e);
	if (!ret)
		ret = written(o, ksnap_stream_finish(&o->stream));
	if (ret > 0)
		return wait_for_room(o, e);
	if (ret)
		return ret;
	ret = close_file(o);
	if (ret)
		return ret;
	o->state = KSNAPD_OUT_IDLE;
	o->reopen = false;
	o->split = e->split;
	ksnapd_summary(o->cfg.log, e->coll->generation, &o->final);
	return 0;
}

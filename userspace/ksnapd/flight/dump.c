// SPDX-License-Identifier: MIT
/* A window of a collection as a stream of its own (dump.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump.h"
#include "identity.h"
#include "sys.h"

static int begin(struct dump *d, int fd, bool lossy,
		 const struct ksnap_coll *c)
{
	const struct ksnap_coll *k = c;
	struct stat st;
	int ret;

	ret = ksnap_sys_fstat(fd, &st);
	if (ret)
		return ret;
	ret = ksnap_out_init(&d->sink, fd, S_ISREG(st.st_mode), lossy,
			     DUMP_BUFFER_SIZE);
	if (ret)
		return ret;
	d->open = true;
	d->coll = c;
	ksnap_stream_init(&d->stream, &d->sink, lossy);
	return ksnap_stream_begin(&d->stream, k->columns, k->nr_columns,
				  k->start_real_ns);
}

static void reset(struct dump *d)
{
	char path[PATH_MAX];

	memcpy(path, d->path, sizeof(path));
	memset(d, 0, sizeof(*d));
	memcpy(d->path, path, sizeof(path));
	d->sink.fd = -1;
}

int dump_open_path(struct dump *d, const char *path, bool lossy,
		   const struct ksnap_coll *c)
{
	int fd, ret;

	reset(d);
	if (strlen(path) >= sizeof(d->path))
		return -ENAMETOOLONG;
	strcpy(d->path, path);
	fd = ksnap_sys_open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    0644);
	if (fd < 0)
		return fd;
	d->own_fd = true;
	ret = begin(d, fd, lossy, c);
	if (ret) {
		if (!d->open)
			ksnap_sys_close(fd);
		dump_abort(d);
	}
	return ret;
}

int dump_open_fd(struct dump *d, int fd, bool lossy,
		 const struct ksnap_coll *c)
{
	int ret;

	reset(d);
	ret = begin(d, fd, lossy, c);
	if (ret)
		dump_abort(d);
	return ret;
}

int dump_row(struct dump *d, const struct ksnap_record *rec)
{
	uint64_t p = d->coll->period_ns;

	if (!d->rows) {
		d->first_t = rec->time_ns;
		d->first_seq = rec->seq;
	} else if (rec->time_ns - d->last_t > p + p / 2) {
		d->gaps++;
	}
	d->rows++;
	d->last_t = rec->time_ns;
	d->last_seq = rec->seq;
	d->lateness_sum += rec->lateness_ns;
	d->read_sum += rec->read_ns;
	if (rec->lateness_ns > d->lateness_max)
		d->lateness_max = rec->lateness_ns;
	if (rec->read_ns > d->read_max)
		d->read_max = rec->read_ns;
	return ksnap_stream_row(&d->stream, rec->time_ns, rec->values,
				d->coll->nr_columns);
}

int dump_flush(struct dump *d)
{
	return d->open ? ksnap_out_flush(&d->sink) : 0;
}

static void fill_stats(const struct dump *d, struct ksnap_stream_stats *st)
{
	uint64_t m = d->coll->start_mono_ns;

	memset(st, 0, sizeof(*st));
	st->collection_rate_nanos = d->coll->period_ns;
	st->cheap_start_nanos = m + d->first_t;
	ksnap_stream_stats_rows(st, m, d->last_t, d->rows, d->lateness_sum,
				d->read_sum);
	st->ksnap_lateness_sum_nanos = d->lateness_sum;
	st->ksnap_read_sum_nanos = d->read_sum;
	st->ksnap_max_lateness_nanos = d->lateness_max;
	st->ksnap_max_read_nanos = d->read_max;
	st->ksnap_snapshots_taken = d->rows ? d->last_seq - d->first_seq + 1
					    : 0;
	st->ksnapd_snapshots_overwritten = st->ksnap_snapshots_taken -
					   d->rows;
}

int dump_close(struct dump *d, const struct ksnap_stats_extra *extra,
	       uint32_t n)
{
	struct ksnap_stream_stats st;
	struct ksnap_identity *ids = NULL;
	const char **paths = NULL;
	int ret;

	if (!d->open)
		return -EBADF;
	fill_stats(d, &st);
	st.extra = extra;
	st.nr_extra = n;
	st.exits = d->exit;
	st.exit_ids = d->exit ? d->exit_id : NULL;
	st.nr_exits = d->exit ? 1 : 0;
	/* Who the dump's cgroups are (docs/format.md, "Names"). */
	ret = ksnap_identity_columns(d->coll->columns, d->coll->nr_columns,
				     &paths, &ids);
	if (ret >= 0) {
		st.name_paths = paths;
		st.name_ids = ids;
		st.nr_names = (uint32_t)ret;
		ret = ksnap_stream_stats(&d->stream, &st);
	}
	if (!ret)
		ret = ksnap_stream_finish(&d->stream);
	free(paths);
	free(ids);
	dump_abort(d);
	return ret;
}

void dump_abort(struct dump *d)
{
	if (d->own_fd && d->sink.fd >= 0)
		ksnap_sys_close(d->sink.fd);
	d->sink.fd = -1;
	ksnap_out_fini(&d->sink);
	d->open = false;
	d->own_fd = false;
}

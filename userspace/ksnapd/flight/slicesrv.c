// SPDX-License-Identifier: MIT
/*
 * ksnapd --slice, served by the daemon's flight recorder (slicesrv.h): the
 * rows kept in its history from the slice's begin, then the rows as they
 * come until its end.  The reply, one line on the client's socket:
 *
 *   ok rows=N first_ns=A last_ns=B collection=G begin_ns=X end_ns=Y
 *      history_from_ns=H
 *   error MESSAGE
 *
 * (one line; row times in ns since the collection started).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dump.h"
#include "history.h"
#include "output.h"
#include "slicesrv.h"
#include "sys.h"

static void reply(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void reply(int fd, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (w < 0)
		return;
	if ((size_t)w >= sizeof(line))
		w = sizeof(line) - 1;
	ksnap_out_write_full(fd, line, (size_t)w);
}

static void release(struct flight_slice *s)
{
	if (s->dump.open)
		dump_abort(&s->dump);
	if (s->out_fd >= 0)
		ksnap_sys_close(s->out_fd);
	if (s->client_fd >= 0)
		ksnap_sys_close(s->client_fd);
	s->out_fd = s->client_fd = -1;
	s->used = false;
}

static void finish(const struct ksnap_coll *coll, struct flight_slice *s)
{
	const struct ksnap_stats_extra extra[] = {
		{ "ksnapd_slice_collection", coll->generation },
		{ "ksnapd_slice_begin_nanos", s->begin_t },
		{ "ksnapd_slice_end_nanos", s->end_t },
	};
	uint64_t rows = s->dump.rows, first = s->dump.first_t;
	uint64_t last = s->dump.last_t;
	int ret;

	ret = dump_close(&s->dump, extra, 3);
	if (ret)
		reply(s->client_fd, "error writing the slice: %s\n",
		      strerror(-ret));
	else
		reply(s->client_fd, "ok rows=%llu first_ns=%llu last_ns=%llu "
		      "collection=%u begin_ns=%llu end_ns=%llu "
		      "history_from_ns=%llu\n", (unsigned long long)rows,
		      (unsigned long long)first, (unsigned long long)last,
		      coll->generation, (unsigned long long)s->begin_t,
		      (unsigned long long)s->end_t,
		      (unsigned long long)s->history_from_t);
	release(s);
}

static struct flight_slice *free_slot(struct flight_slices *ss)
{
	unsigned int i;

	for (i = 0; i < FLIGHT_MAX_SLICES; i++)
		if (!ss->slice[i].used)
			return &ss->slice[i];
	return NULL;
}

/* The history's rows in [begin_t, end_t]. */
static int from_history(const struct history *h, struct flight_slice *s)
{
	const struct ksnap_record *rec;
	uint32_t k;
	int ret = 0;

	for (k = history_find(h, s->begin_t); k < h->len && !ret; k++) {
		rec = history_at(h, k);
		if (rec->time_ns > s->end_t)
			break;
		ret = dump_row(&s->dump, rec);
	}
	return ret;
}

static uint64_t around(uint64_t now, int64_t rel)
{
	if (rel < 0)
		return (uint64_t)-rel > now ? 0 : now - (uint64_t)-rel;
	return now + (uint64_t)rel;
}

void flight_slices_init(struct flight_slices *ss)
{
	unsigned int i;

	memset(ss, 0, sizeof(*ss));
	for (i = 0; i < FLIGHT_MAX_SLICES; i++)
		ss->slice[i].out_fd = ss->slice[i].client_fd = -1;
}

void flight_slices_start(struct flight_slices *ss,
			 const struct flight_slice_src *src, int64_t begin_rel,
			 int64_t end_rel, bool lossy, int out_fd, int client_fd)
{
	struct flight_slice *s = src->coll ? free_slot(ss) : NULL;
	int ret;

	if (!s) {
		reply(client_fd, "error %s\n", src->coll ? "too many slices at "
		      "once" : "no collection is running");
		ksnap_sys_close(out_fd);
		ksnap_sys_close(client_fd);
		return;
	}
	s->used = true;
	s->out_fd = out_fd;
	s->client_fd = client_fd;
	s->begin_t = around(src->prev_t, begin_rel);
	s->end_t = around(src->prev_t, end_rel);
	s->history_from_t = src->hist->len ?
			    history_at(src->hist, 0)->time_ns : 0;
	ret = dump_open_fd(&s->dump, out_fd, lossy, src->coll);
	if (!ret)
		ret = from_history(src->hist, s);
	if (ret) {
		reply(client_fd, "error writing the slice: %s\n",
		      strerror(-ret));
		release(s);
		return;
	}
	if (s->end_t <= src->prev_t)
		finish(src->coll, s);
}

void flight_slices_row(struct flight_slices *ss,
		       const struct ksnap_coll *coll,
		       const struct ksnap_record *rec)
{
	unsigned int i;
	int ret;

	for (i = 0; i < FLIGHT_MAX_SLICES; i++) {
		struct flight_slice *s = &ss->slice[i];

		if (!s->used)
			continue;
		if (rec->time_ns > s->end_t) {
			finish(coll, s);
			continue;
		}
		ret = dump_row(&s->dump, rec);
		if (ret) {
			reply(s->client_fd, "error writing the slice: %s\n",
			      strerror(-ret));
			release(s);
		}
	}
}

void flight_slices_flush(struct flight_slices *ss)
{
	unsigned int i;

	for (i = 0; i < FLIGHT_MAX_SLICES; i++)
		if (ss->slice[i].used && dump_flush(&ss->slice[i].dump)) {
			reply(ss->slice[i].client_fd, "error writing the "
			      "slice\n");
			release(&ss->slice[i]);
		}
}

void flight_slices_end(struct flight_slices *ss, const struct ksnap_coll *coll)
{
	unsigned int i;

	for (i = 0; i < FLIGHT_MAX_SLICES; i++)
		if (ss->slice[i].used)
			finish(coll, &ss->slice[i]);
}

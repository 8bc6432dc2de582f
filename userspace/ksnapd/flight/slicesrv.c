// SPDX-License-Identifier: MIT
/*
 * ksnapd --slice, served by the daemon's flight recorder (flight.h): the
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

#include "flight.h"
#include "output.h"
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

static void finish(struct flight *f, struct flight_slice *s)
{
	const struct ksnap_stats_extra extra[] = {
		{ "ksnapd_slice_collection", f->coll->generation },
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
		      f->coll->generation, (unsigned long long)s->begin_t,
		      (unsigned long long)s->end_t,
		      (unsigned long long)s->history_from_t);
	release(s);
}

static struct flight_slice *free_slot(struct flight *f)
{
	unsigned int i;

	for (i = 0; i < FLIGHT_MAX_SLICES; i++)
		if (!f->slice[i].used)
			return &f->slice[i];
	return NULL;
}

/* The history's rows in [begin_t, end_t]. */
static int from_history(struct flight *f, struct flight_slice *s)
{
	const struct history *h = &f->hist;
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

void flight_slice_start(struct flight *f, int64_t begin_rel,
			int64_t end_rel, bool lossy, int out_fd,
			int client_fd)
{
	struct flight_slice *s = f->coll ? free_slot(f) : NULL;
	int ret;

	if (!s) {
		reply(client_fd, "error %s\n", f->coll ? "too many slices at "
		      "once" : "no collection is running");
		ksnap_sys_close(out_fd);
		ksnap_sys_close(client_fd);
		return;
	}
	s->used = true;
	s->out_fd = out_fd;
	s->client_fd = client_fd;
	s->begin_t = around(f->prev_t, begin_rel);
	s->end_t = around(f->prev_t, end_rel);
	s->history_from_t = f->hist.len ? history_at(&f->hist, 0)->time_ns : 0;
	ret = dump_open_fd(&s->dump, out_fd, lossy, f->coll);
	if (!ret)
		ret = from_history(f, s);
	if (ret) {
		reply(client_fd, "error writing the slice: %s\n",
		      strerror(-ret));
		release(s);
		return;
	}
	if (s->end_t <= f->prev_t)
		finish(f, s);
}

void flight_slice_row(struct flight *f, const struct ksnap_record *rec)
{
	unsigned int i;
	int ret;

	for (i = 0; i < FLIGHT_MAX_SLICES; i++) {
		struct flight_slice *s = &f->slice[i];

		if (!s->used)
			continue;
		if (rec->time_ns > s->end_t) {
			finish(f, s);
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

void flight_slice_flush(struct flight *f)
{
	unsigned int i;

	for (i = 0; i < FLIGHT_MAX_SLICES; i++)
		if (f->slice[i].used && dump_flush(&f->slice[i].dump)) {
			reply(f->slice[i].client_fd, "error writing the "
			      "slice\n");
			release(&f->slice[i]);
		}
}

void flight_slice_end(struct flight *f)
{
	unsigned int i;

	for (i = 0; i < FLIGHT_MAX_SLICES; i++)
		if (f->slice[i].used)
			finish(f, &f->slice[i]);
}

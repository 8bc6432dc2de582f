/* SPDX-License-Identifier: MIT */
/*
 * A ksnap ring built in memory (or in a file mapping) with the ABI
 * structs, playing the kernel's part: start, push records, stop; its
 * column set, answered as KSNAP_IOC_COLUMN does, and the reader session,
 * kept as KSNAP_IOC_DONE and KSNAP_IOC_SEEN keep it (fake_ring_ioctl():
 * the fake system calls route the device's ioctl() there, fake_sys.ring).
 */
#ifndef KSNAP_FAKE_RING_H
#define KSNAP_FAKE_RING_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ksnap_abi.h"
#include "ring.h"

#define FAKE_PAGE	4096u

struct fake_ring {
	unsigned char *mem;
	size_t len;
	bool owned;
	struct ksnap_ctrl *ctrl;
	struct ksnap_column *cols;	/* the set's, max_columns of them */
	uint32_t max_columns;
	struct ksnap_consumer *cons;
	unsigned char *data;
	/* The reader session, in the kernel's memory (kmod/device.c). */
	uint32_t reader_done;		/* KSNAP_IOC_DONE, or the base */
	uint32_t reader_seen;		/* KSNAP_GEN_STATE, KSNAP_IOC_SEEN */
	bool reader_seen_set;
	int done_calls, seen_calls;	/* every call, refused ones too */
};

static inline size_t fake_ring_size(uint32_t max_columns, uint32_t nr_records)
{
	uint32_t rs = KSNAP_RECORD_SIZE(max_columns);
	size_t ctrl = sizeof(struct ksnap_ctrl);
	size_t ctrl_pages = (ctrl + FAKE_PAGE - 1) / FAKE_PAGE;
	size_t data_pages = ((size_t)nr_records * rs + FAKE_PAGE - 1) /
			    FAKE_PAGE;

	return (ctrl_pages + 1 + data_pages) * FAKE_PAGE;
}

/* Lay out a ring in mem (NULL: allocate), like the module does at load. */
static inline void fake_ring_init(struct fake_ring *f, void *mem,
				  uint32_t max_columns, uint32_t nr_records)
{
	uint32_t rs = KSNAP_RECORD_SIZE(max_columns);
	size_t ctrl = sizeof(struct ksnap_ctrl);
	uint32_t ctrl_pages = (ctrl + FAKE_PAGE - 1) / FAKE_PAGE;
	uint32_t data_pages = ((size_t)nr_records * rs + FAKE_PAGE - 1) /
			      FAKE_PAGE;

	f->len = fake_ring_size(max_columns, nr_records);
	f->owned = !mem;
	f->mem = mem ? mem : aligned_alloc(FAKE_PAGE, f->len);
	memset(f->mem, 0, f->len);
	f->ctrl = (struct ksnap_ctrl *)f->mem;
	f->ctrl->magic = KSNAP_MAGIC;
	f->ctrl->abi_version = KSNAP_ABI_VERSION;
	f->ctrl->abi_compat = KSNAP_ABI_COMPAT;
	f->ctrl->page_size = FAKE_PAGE;
	f->ctrl->ctrl_pages = ctrl_pages;
	f->ctrl->consumer_pgoff = ctrl_pages;
	f->ctrl->data_pgoff = ctrl_pages + 1;
	f->ctrl->data_pages = data_pages;
	f->ctrl->total_pages = ctrl_pages + 1 + data_pages;
	f->ctrl->record_size = rs;
	f->ctrl->nr_records = nr_records;
	f->ctrl->max_columns = KSNAP_MAX_COLUMNS;
	f->ctrl->set_id = 1;
	f->max_columns = max_columns;
	f->reader_done = 0;
	f->reader_seen = 0;
	f->reader_seen_set = false;
	f->done_calls = 0;
	f->seen_calls = 0;
	f->cols = calloc(max_columns ? max_columns : 1, sizeof(*f->cols));
	f->cons = (struct ksnap_consumer *)(f->mem +
					    (size_t)ctrl_pages * FAKE_PAGE);
	f->data = f->mem + (size_t)(ctrl_pages + 1) * FAKE_PAGE;
}

static inline void fake_ring_free(struct fake_ring *f)
{
	if (f->owned)
		free(f->mem);
	f->mem = NULL;
	free(f->cols);
	f->cols = NULL;
}

static inline void fake_copy(char *dst, size_t size, const char *src)
{
	size_t n;

	src = src ? src : "";
	n = strlen(src);
	if (n > size - 1)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static inline void fake_ring_column(struct fake_ring *f, uint32_t i,
				    const char *metric, const char *field,
				    const char *value, const char *desc,
				    uint32_t flags)
{
	struct ksnap_column *c = &f->cols[i];

	memset(c, 0, sizeof(*c));
	fake_copy(c->metric, sizeof(c->metric), metric);
	fake_copy(c->field, sizeof(c->field), field);
	fake_copy(c->value, sizeof(c->value), value);
	fake_copy(c->description, sizeof(c->description), desc);
	c->flags = flags;
}

/* Collection fields under the seqlock, as the module's start does:
 * positions go on from head, the reader's tail is not touched. */
static inline void fake_ring_start(struct fake_ring *f, uint32_t gen,
				   uint32_t ncols, uint64_t period_ns,
				   uint64_t mono, uint64_t real)
{
	f->ctrl->seq++;
	f->ctrl->generation = gen;
	f->ctrl->state = KSNAP_STATE_RUNNING;
	f->ctrl->nr_columns = ncols;
	f->ctrl->period_ns = period_ns;
	f->ctrl->start_mono_ns = mono;
	f->ctrl->start_real_ns = real;
	f->ctrl->start_position = f->ctrl->head;
	memset(&f->ctrl->stats, 0, sizeof(f->ctrl->stats));
	f->ctrl->seq++;
}

/* A running collection's new column set of ncols columns (kmod/follow.c):
 * the next record pushed is its first, flagged so. */
static inline void fake_ring_set_change(struct fake_ring *f, uint32_t ncols)
{
	f->ctrl->seq++;
	f->ctrl->set_id++;
	f->ctrl->nr_columns = ncols;
	f->ctrl->seq++;
}

static inline void fake_ring_stop(struct fake_ring *f)
{
	f->ctrl->seq++;
	f->ctrl->state = KSNAP_STATE_STOPPED;
	f->ctrl->seq++;
}

/* What the module does when a reader opens the device: a new session,
 * whose base does not blame the reader for collections it did not see,
 * and which has seen nothing (kmod/device.c).  The reader then reports
 * what it sees (ksnap_ring_claim()). */
static inline void fake_ring_open(struct fake_ring *f)
{
	f->ctrl->reader_done_base = f->ctrl->generation -
		(f->ctrl->state == KSNAP_STATE_RUNNING);
	f->reader_done = f->ctrl->reader_done_base;
	f->reader_seen_set = false;
}

/* What the kernel takes as the reader's done generation (sampler.c). */
static inline uint32_t fake_ring_reader_done(const struct fake_ring *f)
{
	return f->reader_done;
}

/* KSNAP_IOC_DONE, checked as kmod/device.c does. */
static inline int fake_ring_done(struct fake_ring *f,
				 const struct ksnap_done *d)
{
	f->done_calls++;
	if (d->reserved || d->generation > f->ctrl->generation -
	    (f->ctrl->state == KSNAP_STATE_RUNNING))
		return -EINVAL;
	f->reader_done = d->generation;
	return 0;
}

/* KSNAP_IOC_SEEN, checked as kmod/device.c does. */
static inline int fake_ring_seen(struct fake_ring *f,
				 const struct ksnap_seen *s)
{
	f->seen_calls++;
	if (s->state > KSNAP_STATE_RUNNING ||
	    s->generation > f->ctrl->generation ||
	    (s->generation == f->ctrl->generation &&
	     s->state == KSNAP_STATE_STOPPED &&
	     f->ctrl->state == KSNAP_STATE_RUNNING))
		return -EINVAL;
	f->reader_seen = KSNAP_GEN_STATE(s->generation, s->state);
	f->reader_seen_set = true;
	return 0;
}

static inline struct ksnap_record *fake_ring_slot(struct fake_ring *f,
						  uint64_t pos)
{
	return (struct ksnap_record *)
		(f->data + (pos % f->ctrl->nr_records) *
		 f->ctrl->record_size);
}

/* KSNAP_IOC_COLUMN, DONE and SEEN, as kmod/device.c answers them. */
static inline int fake_ring_ioctl(struct fake_ring *f, unsigned long req,
				  void *arg)
{
	struct ksnap_column_info *info = arg;
	const struct ksnap_column *c;
	uint32_t set_id, index;

	if (req == KSNAP_IOC_DONE)
		return fake_ring_done(f, arg);
	if (req == KSNAP_IOC_SEEN)
		return fake_ring_seen(f, arg);
	if (req != KSNAP_IOC_COLUMN)
		return -ENOTTY;
	set_id = info->set_id;
	index = info->index;
	if (set_id != f->ctrl->set_id)
		return -ESTALE;
	if (index >= f->ctrl->nr_columns || index >= f->max_columns)
		return -ENOENT;
	c = &f->cols[index];
	memset(info, 0, sizeof(*info));
	info->set_id = set_id;
	info->index = index;
	info->nr_columns = f->ctrl->nr_columns;
	info->flags = c->flags;
	info->freshness = c->freshness;
	fake_copy(info->metric, sizeof(info->metric), c->metric);
	fake_copy(info->field, sizeof(info->field), c->field);
	fake_copy(info->value, sizeof(info->value), c->value);
	fake_copy(info->description, sizeof(info->description),
		  c->description);
	return 0;
}

/* One record at head with values v0, v0+1, ... (ncols values). */
static inline void fake_ring_push(struct fake_ring *f, uint64_t time_ns,
				  uint64_t v0)
{
	uint64_t pos = f->ctrl->head;
	struct ksnap_record *r = fake_ring_slot(f, pos);
	uint32_t i;

	r->seq = pos;
	r->time_ns = time_ns;
	r->flags = 0;
	r->set_id = f->ctrl->set_id;
	r->values_offset = offsetof(struct ksnap_record, values);
	for (i = 0; i < f->ctrl->nr_columns; i++)
		r->values[i] = v0 + i;
	f->ctrl->stats.taken++;
	f->ctrl->head = pos + 1;
}

#endif /* KSNAP_FAKE_RING_H */

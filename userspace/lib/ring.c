// SPDX-License-Identifier: MIT
/*
 * Mapping the ksnap device and reading its ring (see include/ksnap_abi.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ring.h"
#include "sys.h"

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static int bad_layout(struct ksnap_ring *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* r->why: what is wrong, with the value found and the limit. */
static int bad_layout(struct ksnap_ring *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why_buf, sizeof(r->why_buf), fmt, ap);
	va_end(ap);
	r->why = r->why_buf;
	return -EINVAL;
}

/* The regions: the control block, the consumer page. */
static int check_regions(struct ksnap_ring *r, const struct ksnap_ctrl *c,
			 size_t len)
{
	unsigned long long page = c->page_size;
	unsigned long long total = (uint64_t)c->total_pages * page;

	if (!is_pow2(page) || page < sizeof(*c))
		return bad_layout(r, "page_size %llu is not a power of two "
				  "of at least %zu", page, sizeof(*c));
	if (total > len)
		return bad_layout(r, "total_pages %u (%llu bytes) is larger "
				  "than the mapping (%zu bytes)",
				  c->total_pages, total, len);
	if (!c->ctrl_pages || c->ctrl_pages > c->total_pages)
		return bad_layout(r, "ctrl_pages %u is out of range (1 to "
				  "total_pages %u)", c->ctrl_pages,
				  c->total_pages);
	if (c->consumer_pgoff >= c->total_pages)
		return bad_layout(r, "consumer_pgoff %u is out of range "
				  "(below total_pages %u)", c->consumer_pgoff,
				  c->total_pages);
	return 0;
}

/* The record region and the records it holds. */
static int check_records(struct ksnap_ring *r, const struct ksnap_ctrl *c)
{
	unsigned long long data_len = (uint64_t)c->data_pages * c->page_size;
	unsigned long long recs = (uint64_t)c->nr_records * c->record_size;

	if (!c->data_pages ||
	    (uint64_t)c->data_pgoff + c->data_pages > c->total_pages)
		return bad_layout(r, "data region out of range: data_pgoff "
				  "%u + data_pages %u, at least 1 page and up "
				  "to total_pages %u", c->data_pgoff,
				  c->data_pages, c->total_pages);
	if (c->record_size < sizeof(struct ksnap_record) ||
	    c->record_size % 8)
		return bad_layout(r, "record_size %u is too small (at least "
				  "%zu) or not a multiple of 8",
				  c->record_size, sizeof(struct ksnap_record));
	if (!c->nr_records)
		return bad_layout(r, "nr_records is 0");
	if (recs > data_len)
		return bad_layout(r, "records do not fit the data region: "
				  "nr_records %u x record_size %u = %llu bytes, "
				  "more than data_pages %u (%llu bytes)",
				  c->nr_records, c->record_size, recs,
				  c->data_pages, data_len);
	return 0;
}

int ksnap_ring_setup(struct ksnap_ring *r, void *base, size_t len,
		     struct ksnap_consumer *cons)
{
	const struct ksnap_ctrl *c = base;
	int ret;

	if (len < sizeof(*c))
		return bad_layout(r, "mapping of %zu bytes is smaller than "
				  "the control block (%zu bytes)", len,
				  sizeof(*c));
	r->found_magic = c->magic;
	r->found_version = c->abi_version;
	r->found_compat = c->abi_compat;
	if (c->magic != KSNAP_MAGIC)
		return -EPROTO;
	if (!ksnap_ring_version_ok(c->abi_version, c->abi_compat))
		return -EPROTONOSUPPORT;
	ret = check_regions(r, c, len);
	if (!ret)
		ret = check_records(r, c);
	if (ret)
		return ret;

	r->ctrl = c;
	r->cons = cons;
	r->data = (const unsigned char *)base +
		  (size_t)c->data_pgoff * c->page_size;
	r->record_size = c->record_size;
	r->nr_records = c->nr_records;
	r->max_columns = c->max_columns;
	return 0;
}

/* What the first page says of the whole device, before it is mapped. */
struct ring_probe {
	uint32_t page, total, cons_pgoff;
	size_t map_len;
};

/*
 * Map one page: enough to check who we are talking to, and how large the
 * device is (@size: the file's size when it is a regular file, else 0).
 */
static int probe_ring(struct ksnap_ring *r, int fd, off_t size,
		      struct ring_probe *p)
{
	long sys_page = ksnap_sys_page_size();
	const struct ksnap_ctrl *c;
	void *probe = NULL;
	int ret;

	if (r->regular_file && size < sys_page)
		return bad_layout(r, "file of %lld bytes is shorter than one "
				  "page (%ld bytes)", (long long)size, sys_page);
	r->op = "mmap";
	ret = ksnap_sys_mmap(&probe, sys_page, PROT_READ, MAP_SHARED, fd, 0);
	if (ret)
		return ret;
	c = probe;
	r->found_magic = c->magic;
	r->found_version = c->abi_version;
	r->found_compat = c->abi_compat;
	p->page = c->page_size;
	p->total = c->total_pages;
	p->cons_pgoff = c->consumer_pgoff;
	ksnap_sys_munmap(probe, sys_page);

	if (r->found_magic != KSNAP_MAGIC)
		return -EPROTO;
	/* A version 1 ring has no abi_compat: it fails on abi_version. */
	if (!ksnap_ring_version_ok(r->found_version, r->found_compat))
		return -EPROTONOSUPPORT;
	if (p->page != (uint64_t)sys_page)
		return bad_layout(r, "page_size %u differs from the system's "
				  "(%ld)", p->page, sys_page);
	if (!p->total || p->cons_pgoff >= p->total)
		return bad_layout(r, "consumer_pgoff %u is out of range (below "
				  "total_pages %u)", p->cons_pgoff, p->total);
	p->map_len = (size_t)p->total * p->page;
	if (r->regular_file && (uint64_t)size < p->map_len)
		return bad_layout(r, "file of %lld bytes is shorter than "
				  "total_pages %u (%zu bytes)",
				  (long long)size, p->total, p->map_len);
	return 0;
}

/*
 * The whole device read-only and, with @claim, the consumer page
 * read-write and the session begun; checked.
 */
static int map_ring(struct ksnap_ring *r, int fd, const struct ring_probe *p,
		    bool claim)
{
	void *map = NULL, *cons = NULL;
	int ret;

	/* Sizes and offsets as the kernel reports them. */
	ret = ksnap_sys_mmap(&map, p->map_len, PROT_READ, MAP_SHARED, fd, 0);
	if (ret)
		return ret;
	if (claim) {
		ret = ksnap_sys_mmap(&cons, p->page, PROT_READ | PROT_WRITE,
				     MAP_SHARED, fd,
				     (off_t)p->cons_pgoff * p->page);
		if (ret)
			goto err_unmap;
	}
	ret = ksnap_ring_setup(r, map, p->map_len, cons);
	if (ret)
		goto err_unmap_cons;
	if (claim) {
		r->op = "claim";
		ret = ksnap_ring_claim(r);
		if (ret)
			goto err_unmap_cons;
	}
	r->map = map;
	r->map_len = p->map_len;
	r->cons_len = cons ? p->page : 0;
	return 0;

err_unmap_cons:
	if (cons)
		ksnap_sys_munmap(cons, p->page);
err_unmap:
	ksnap_sys_munmap(map, p->map_len);
	r->ctrl = NULL;
	r->cons = NULL;
	return ret;
}

/* Open and map; with @claim, the consumer page too, the session begun. */
static int ring_open(struct ksnap_ring *r, const char *path, bool claim)
{
	struct ring_probe p = { 0 };
	struct stat st;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;

	r->op = "open";
	fd = ksnap_sys_open(path, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	r->fd = fd;	/* the session's ioctl()s, in map_ring() */
	r->op = "fstat";
	ret = ksnap_sys_fstat(fd, &st);
	if (ret)
		goto err_close;
	r->regular_file = S_ISREG(st.st_mode);
	ret = probe_ring(r, fd, r->regular_file ? st.st_size : 0, &p);
	if (ret)
		goto err_close;
	ret = map_ring(r, fd, &p, claim);
	if (ret)
		goto err_close;
	r->op = NULL;
	return 0;

err_close:
	ksnap_sys_close(fd);
	r->fd = -1;
	return ret;
}

int ksnap_ring_open(struct ksnap_ring *r, const char *path)
{
	return ring_open(r, path, true);
}

int ksnap_ring_peek(struct ksnap_ring *r, const char *path)
{
	return ring_open(r, path, false);
}

void ksnap_ring_close(struct ksnap_ring *r)
{
	if (r->cons && r->cons_len)
		ksnap_sys_munmap(r->cons, r->cons_len);
	if (r->map)
		ksnap_sys_munmap(r->map, r->map_len);
	if (r->fd >= 0)
		ksnap_sys_close(r->fd);
	r->cons = NULL;
	r->map = NULL;
	r->ctrl = NULL;
	r->fd = -1;
}

int ksnap_ring_claim(struct ksnap_ring *r)
{
	struct ksnap_coll c = { 0 };
	int ret;

	/* Set by open() before it returned, for us: a plain load. */
	r->done = ksnap_load_relaxed(&r->ctrl->reader_done_base);
	r->seen_sent = false;
	/* A bad nr_columns (-EPROTO) is the daemon's to report, later. */
	ret = ksnap_ring_read_coll(r, &c);
	if (ret && ret != -EPROTO)
		return ret;
	return ksnap_ring_set_seen(r, c.generation, c.state);
}

/* One of the session's ioctl()s; a regular file has no kernel to tell. */
static int session_ioctl(struct ksnap_ring *r, unsigned long req, void *arg)
{
	int ret = ksnap_sys_ioctl(r->fd, req, arg);

	return ret == -ENOTTY && r->regular_file ? 0 : ret;
}

int ksnap_ring_set_seen(struct ksnap_ring *r, uint32_t gen, uint32_t state)
{
	struct ksnap_seen s = { .generation = gen, .state = state };
	uint32_t gs = (uint32_t)KSNAP_GEN_STATE(gen, state);
	int ret;

	if (r->seen_sent && r->seen == gs)
		return 0;
	ret = session_ioctl(r, KSNAP_IOC_SEEN, &s);
	if (ret)
		return ret;
	r->seen = gs;
	r->seen_sent = true;
	return 0;
}

int ksnap_ring_enable(struct ksnap_ring *r, bool on, bool stop_on_close)
{
	struct ksnap_enable e = {
		.on = on,
		.flags = stop_on_close ? KSNAP_ENABLE_STOP_ON_CLOSE : 0,
	};

	if (r->regular_file || !(r->ctrl->features & KSNAP_FEAT_ENABLE_IOCTL))
		return -EOPNOTSUPP;
	return ksnap_sys_ioctl(r->fd, KSNAP_IOC_ENABLE, &e);
}

int ksnap_ring_take_exit(struct ksnap_ring *r, struct ksnap_exit *x)
{
	if (r->regular_file || !(r->ctrl->features & KSNAP_FEAT_EXITS))
		return -EAGAIN;
	memset(x, 0, sizeof(*x));
	return ksnap_sys_ioctl(r->fd, KSNAP_IOC_EXIT, x);
}

int ksnap_ring_set_done(struct ksnap_ring *r, uint32_t gen)
{
	struct ksnap_done d = { .generation = gen };
	int ret;

	ret = session_ioctl(r, KSNAP_IOC_DONE, &d);
	if (ret)
		return ret;
	r->done = gen;
	return 0;
}

int ksnap_ring_read_coll(const struct ksnap_ring *r, struct ksnap_coll *c)
{
	const struct ksnap_ctrl *k = r->ctrl;
	uint32_t s1, s2, nr;
	int tries;

	for (tries = 0; tries < KSNAP_SEQ_RETRIES; tries++) {
		/* Acquire: pairs with the kernel's smp_wmb() before the
		 * even seq at the end of its update (ctrl.c), so what
		 * follows reads at least that update. */
		s1 = ksnap_load_acquire(&k->seq);
		if (s1 & 1) {
			ksnap_sys_yield();
			continue;
		}
		c->generation = ksnap_load_relaxed(&k->generation);
		c->state = ksnap_load_relaxed(&k->state);
		c->set_id = ksnap_load_relaxed(&k->set_id);
		nr = ksnap_load_relaxed(&k->nr_columns);
		c->period_ns = ksnap_load_relaxed(&k->period_ns);
		c->start_mono_ns = ksnap_load_relaxed(&k->start_mono_ns);
		c->start_real_ns = ksnap_load_relaxed(&k->start_real_ns);
		c->start_position = ksnap_load_relaxed(&k->start_position);
		c->flags = ksnap_load_relaxed(&k->flags);
		/* Reserved, so 0 (none), in a ring without the feature. */
		c->stop_reason = ksnap_load_relaxed(&k->stop_reason);
		/* Like read_seqcount_retry()'s smp_rmb(), pairing with the
		 * kernel's smp_wmb() after the odd seq: the reads above
		 * complete before seq is read again. */
		atomic_thread_fence(memory_order_acquire);
		s2 = ksnap_load_relaxed(&k->seq);
		if (s1 != s2) {
			ksnap_sys_yield();
			continue;
		}
		c->nr_columns = nr;
		if (KSNAP_RECORD_SIZE((uint64_t)nr) > r->record_size)
			return -EPROTO;
		return 0;
	}
	return -EAGAIN;
}

/* One column: the module's answer, checked against the set asked for. */
static int read_column(const struct ksnap_ring *r, const struct ksnap_coll *c,
		       uint32_t i, struct ksnap_column_info *info)
{
	int ret;

	memset(info, 0, sizeof(*info));
	info->set_id = c->set_id;
	info->index = i;
	ret = ksnap_sys_ioctl(r->fd, KSNAP_IOC_COLUMN, info);
	if (ret < 0)
		return ret;
	if (info->nr_columns != c->nr_columns)
		return -EPROTO;
	return 0;
}

int ksnap_ring_read_columns(const struct ksnap_ring *r, struct ksnap_coll *c)
{
	struct ksnap_column_info *info;
	struct ksnap_column *cols;
	uint32_t i;
	int ret = 0;

	cols = realloc(c->columns, (c->nr_columns ? c->nr_columns : 1) *
			sizeof(*cols));
	info = malloc(sizeof(*info));
	if (cols)
		c->columns = cols;
	if (!cols || !info) {
		free(info);
		return -ENOMEM;
	}
	memset(cols, 0, (c->nr_columns ? c->nr_columns : 1) * sizeof(*cols));
	for (i = 0; i < c->nr_columns && !ret; i++) {
		ret = read_column(r, c, i, info);
		if (ret)
			break;
		/* The kernel NUL-terminates each; so does this copy. */
		snprintf(cols[i].metric, sizeof(cols[i].metric), "%.*s",
			 (int)sizeof(info->metric), info->metric);
		snprintf(cols[i].field, sizeof(cols[i].field), "%.*s",
			 (int)sizeof(info->field), info->field);
		snprintf(cols[i].value, sizeof(cols[i].value), "%.*s",
			 (int)sizeof(info->value), info->value);
		snprintf(cols[i].description, sizeof(cols[i].description),
			 "%.*s", (int)sizeof(info->description),
			 info->description);
		cols[i].flags = info->flags;
		cols[i].freshness = info->freshness;
		cols[i].refresh_ns = r->ctrl->features & KSNAP_FEAT_REFRESH_NS ?
			info->refresh_ns : ksnap_fresh_longest_ns(info->freshness);
	}
	free(info);
	return ret;
}

int ksnap_ring_set_columns(const struct ksnap_ring *r, uint32_t set_id,
			   uint32_t *nr_columns)
{
	struct ksnap_column_info *info = calloc(1, sizeof(*info));
	int ret;

	if (!info)
		return -ENOMEM;
	info->set_id = set_id;
	ret = ksnap_sys_ioctl(r->fd, KSNAP_IOC_COLUMN, info);
	if (!ret && (!info->nr_columns ||
		     KSNAP_RECORD_SIZE((uint64_t)info->nr_columns) >
		     r->record_size))
		ret = -EPROTO;
	if (!ret)
		*nr_columns = info->nr_columns;
	free(info);
	return ret < 0 ? ret : 0;
}

int ksnap_ring_read_coll_columns(const struct ksnap_ring *r,
				 struct ksnap_coll *c)
{
	int tries, ret = -ESTALE;

	for (tries = 0; tries < KSNAP_SET_RETRIES && ret == -ESTALE;
	     tries++) {
		ret = ksnap_ring_read_coll(r, c);
		if (!ret)
			ret = ksnap_ring_read_columns(r, c);
	}
	return ret;
}

const struct ksnap_record *ksnap_ring_values(const struct ksnap_ring *r,
					     const struct ksnap_record *rec,
					     uint32_t set_id,
					     uint32_t nr_columns,
					     struct ksnap_record *buf)
{
	const size_t here = offsetof(struct ksnap_record, values);
	uint64_t off = rec->values_offset;
	size_t bytes = (size_t)nr_columns * sizeof(__u64);

	if (rec->set_id != set_id)
		return NULL;
	if (off == here)
		return rec;
	/* Before the header this reader knows, unaligned, or past the
	 * slot: not a record it can read. */
	if (off < here || off % 8 || off + bytes > r->record_size)
		return NULL;
	memcpy(buf, rec, here);
	memmove(buf->values, (const unsigned char *)rec + off, bytes);
	buf->values_offset = (uint32_t)here;
	return buf;
}

bool ksnap_ring_copy_record(const struct ksnap_ring *r, uint64_t pos,
			    struct ksnap_record *rec, bool stopped)
{
	const struct ksnap_record *slot = ksnap_ring_record(r, pos);
	uint64_t head;

	memcpy(rec, slot, r->record_size);
	/* [F] pairs with the kernel's [E]: the copy completes before head is
	 * loaded again, so a copy that saw an overwrite sees its head. */
	atomic_thread_fence(memory_order_acquire);
	head = ksnap_load_relaxed(&r->ctrl->head);
	return rec->seq == pos &&
	       (stopped || ksnap_ring_pos_valid(head, pos, r->nr_records));
}

void ksnap_ring_read_stats(const struct ksnap_ring *r, struct ksnap_stats *s)
{
	const struct ksnap_stats *k = &r->ctrl->stats;

	memset(s, 0, sizeof(*s));
	s->taken = ksnap_load_relaxed(&k->taken);
	s->lost = ksnap_load_relaxed(&k->lost);
	s->missed = ksnap_load_relaxed(&k->missed);
	s->lateness_sum_ns = ksnap_load_relaxed(&k->lateness_sum_ns);
	s->lateness_max_ns = ksnap_load_relaxed(&k->lateness_max_ns);
	s->read_sum_ns = ksnap_load_relaxed(&k->read_sum_ns);
	s->read_max_ns = ksnap_load_relaxed(&k->read_max_ns);
	s->bad_tail = ksnap_load_relaxed(&k->bad_tail);
	s->read_estimate_ns = ksnap_load_relaxed(&k->read_estimate_ns);
	s->read_bound_ns = ksnap_load_relaxed(&k->read_bound_ns);
	s->read_recent_ns = ksnap_load_relaxed(&k->read_recent_ns);
	s->cgroups_skipped = ksnap_load_relaxed(&k->cgroups_skipped);
	s->exits_lost = ksnap_load_relaxed(&k->exits_lost);
	s->thinned = ksnap_load_relaxed(&k->thinned);
}

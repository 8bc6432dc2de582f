// SPDX-License-Identifier: MIT
/*
 * Mapping the ksnap device and reading its ring (see include/ksnap_abi.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
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

int ksnap_ring_setup(struct ksnap_ring *r, void *base, size_t len,
		     struct ksnap_consumer *cons)
{
	const struct ksnap_ctrl *c = base;
	unsigned long long page, total, ctrl_len, cols_end, data_len, recs;

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

	page = c->page_size;
	total = (uint64_t)c->total_pages * page;
	ctrl_len = (uint64_t)c->ctrl_pages * page;
	cols_end = c->columns_offset + (uint64_t)c->max_columns *
		   sizeof(struct ksnap_column);
	data_len = (uint64_t)c->data_pages * page;
	recs = (uint64_t)c->nr_records * c->record_size;
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
	if (c->columns_offset < sizeof(*c) || c->columns_offset % 8)
		return bad_layout(r, "columns_offset %u is not a multiple of "
				  "8 past the control block (%zu bytes)",
				  c->columns_offset, sizeof(*c));
	if (cols_end > ctrl_len)
		return bad_layout(r, "columns do not fit the control region: "
				  "columns_offset %u + max_columns %u x %zu = "
				  "%llu bytes, more than ctrl_pages %u (%llu "
				  "bytes)", c->columns_offset, c->max_columns,
				  sizeof(struct ksnap_column), cols_end,
				  c->ctrl_pages, ctrl_len);
	if (c->consumer_pgoff >= c->total_pages)
		return bad_layout(r, "consumer_pgoff %u is out of range "
				  "(below total_pages %u)", c->consumer_pgoff,
				  c->total_pages);
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
	if (!is_pow2(c->nr_records))
		return bad_layout(r, "nr_records %u is not a power of two",
				  c->nr_records);
	if (recs > data_len)
		return bad_layout(r, "records do not fit the data region: "
				  "nr_records %u x record_size %u = %llu bytes, "
				  "more than data_pages %u (%llu bytes)",
				  c->nr_records, c->record_size, recs,
				  c->data_pages, data_len);

	r->ctrl = c;
	r->cons = cons;
	r->columns = (const struct ksnap_column *)
		((const unsigned char *)base + c->columns_offset);
	r->data = (const unsigned char *)base + (size_t)c->data_pgoff * page;
	r->record_size = c->record_size;
	r->nr_records = c->nr_records;
	r->max_columns = c->max_columns;
	return 0;
}

static int ring_open(struct ksnap_ring *r, const char *path, bool claim);

int ksnap_ring_open(struct ksnap_ring *r, const char *path)
{
	return ring_open(r, path, true);
}

int ksnap_ring_peek(struct ksnap_ring *r, const char *path)
{
	return ring_open(r, path, false);
}

/* Open and map; with claim, the consumer page too, claimed. */
static int ring_open(struct ksnap_ring *r, const char *path, bool claim)
{
	long sys_page = ksnap_sys_page_size();
	const struct ksnap_ctrl *probe_ctrl;
	void *probe = NULL, *map = NULL, *cons = NULL;
	uint32_t page, total, cons_pgoff;
	size_t map_len;
	struct stat st;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;

	r->op = "open";
	fd = ksnap_sys_open(path, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	r->op = "fstat";
	ret = ksnap_sys_fstat(fd, &st);
	if (ret)
		goto err_close;
	r->regular_file = S_ISREG(st.st_mode);
	if (r->regular_file && st.st_size < sys_page) {
		ret = bad_layout(r, "file of %lld bytes is shorter than one "
				 "page (%ld bytes)", (long long)st.st_size,
				 sys_page);
		goto err_close;
	}

	/* One page first: enough to check who we are talking to. */
	r->op = "mmap";
	ret = ksnap_sys_mmap(&probe, sys_page, PROT_READ, MAP_SHARED, fd, 0);
	if (ret)
		goto err_close;
	probe_ctrl = probe;
	r->found_magic = probe_ctrl->magic;
	r->found_version = probe_ctrl->abi_version;
	r->found_compat = probe_ctrl->abi_compat;
	page = probe_ctrl->page_size;
	total = probe_ctrl->total_pages;
	cons_pgoff = probe_ctrl->consumer_pgoff;
	ksnap_sys_munmap(probe, sys_page);

	if (r->found_magic != KSNAP_MAGIC) {
		ret = -EPROTO;
		goto err_close;
	}
	/* A version 1 ring has no abi_compat: it fails on abi_version. */
	if (!ksnap_ring_version_ok(r->found_version, r->found_compat)) {
		ret = -EPROTONOSUPPORT;
		goto err_close;
	}
	if (page != (uint64_t)sys_page) {
		ret = bad_layout(r, "page_size %u differs from the system's "
				 "(%ld)", page, sys_page);
		goto err_close;
	}
	if (!total || cons_pgoff >= total) {
		ret = bad_layout(r, "consumer_pgoff %u is out of range (below "
				 "total_pages %u)", cons_pgoff, total);
		goto err_close;
	}
	map_len = (size_t)total * page;
	if (r->regular_file && (uint64_t)st.st_size < map_len) {
		ret = bad_layout(r, "file of %lld bytes is shorter than "
				 "total_pages %u (%zu bytes)",
				 (long long)st.st_size, total, map_len);
		goto err_close;
	}

	/* Sizes and offsets as the kernel reports them. */
	ret = ksnap_sys_mmap(&map, map_len, PROT_READ, MAP_SHARED, fd, 0);
	if (ret)
		goto err_close;
	if (claim)
		ret = ksnap_sys_mmap(&cons, page, PROT_READ | PROT_WRITE,
				     MAP_SHARED, fd, (off_t)cons_pgoff * page);
	if (ret)
		goto err_unmap;
	ret = ksnap_ring_setup(r, map, map_len, cons);
	if (ret)
		goto err_unmap_cons;
	r->op = "claim";
	if (claim)
		ret = ksnap_ring_claim(r);
	if (ret)
		goto err_unmap_cons;

	r->op = NULL;
	r->fd = fd;
	r->map = map;
	r->map_len = map_len;
	r->cons_len = cons ? page : 0;
	return 0;

err_unmap_cons:
	if (cons)
		ksnap_sys_munmap(cons, page);
err_unmap:
	ksnap_sys_munmap(map, map_len);
err_close:
	ksnap_sys_close(fd);
	r->ctrl = NULL;
	r->cons = NULL;
	return ret;
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
	uint32_t session;
	int ret;

	/* Set by open() before it returned, for us: plain loads. */
	session = ksnap_load_relaxed(&r->ctrl->reader_session);
	/* A bad nr_columns (-EPROTO) is the daemon's to report, later. */
	ret = ksnap_ring_read_coll(r, &c);
	if (ret && ret != -EPROTO)
		return ret;
	ksnap_store_relaxed(&r->cons->done_generation,
			    ksnap_load_relaxed(&r->ctrl->reader_done_base));
	ksnap_store_relaxed(&r->cons->seen_state,
			    (uint32_t)KSNAP_GEN_STATE(c.generation, c.state));
	/* [I] pairs with the kernel's [J]: the fields above are ours once
	 * it sees the session. */
	ksnap_store_release(&r->cons->session, session);
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
		nr = ksnap_load_relaxed(&k->nr_columns);
		c->period_ns = ksnap_load_relaxed(&k->period_ns);
		c->start_mono_ns = ksnap_load_relaxed(&k->start_mono_ns);
		c->start_real_ns = ksnap_load_relaxed(&k->start_real_ns);
		c->start_position = ksnap_load_relaxed(&k->start_position);
		c->flags = ksnap_load_relaxed(&k->flags);
		if (c->columns && nr <= r->max_columns)
			memcpy(c->columns, r->columns,
			       (size_t)nr * sizeof(*c->columns));
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
		if (nr > r->max_columns ||
		    KSNAP_RECORD_SIZE((uint64_t)nr) > r->record_size)
			return -EPROTO;
		return 0;
	}
	return -EAGAIN;
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
}

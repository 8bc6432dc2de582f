/* SPDX-License-Identifier: MIT */
/*
 * The reader's side of the ksnap ring (include/ksnap_abi.h): mapping the
 * device, beginning the reader session, reading the collection fields under
 * the seqlock, walking the records between tail and head, and the done
 * and seen handshake (ioctl()s: the consumer page carries only the
 * tail).  Barriers are tagged with the letters of the diagram at the
 * top of kmod/sampler.c.
 */
#ifndef KSNAPD_RING_H
#define KSNAPD_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "column.h"
#include "ksnap_abi.h"

/*
 * Barriers, as C11 atomics on fields that the ABI declares as plain
 * integers (the kernel uses smp_load_acquire()/smp_store_release()).
 */
#define ksnap_load_acquire(p) \
	atomic_load_explicit((_Atomic __typeof__(*(p)) *)(p), \
			     memory_order_acquire)
#define ksnap_load_relaxed(p) \
	atomic_load_explicit((_Atomic __typeof__(*(p)) *)(p), \
			     memory_order_relaxed)
#define ksnap_store_release(p, v) \
	atomic_store_explicit((_Atomic __typeof__(*(p)) *)(p), (v), \
			      memory_order_release)
#define ksnap_store_relaxed(p, v) \
	atomic_store_explicit((_Atomic __typeof__(*(p)) *)(p), (v), \
			      memory_order_relaxed)

/* Collection fields, copied out of ksnap_ctrl under the seqlock. */
struct ksnap_coll {
	uint32_t generation;
	uint32_t state;
	uint32_t set_id;		/* its column set */
	uint32_t nr_columns;
	uint64_t period_ns;
	uint64_t start_mono_ns;
	uint64_t start_real_ns;
	uint64_t start_position;	/* head when it started */
	uint32_t flags;			/* KSNAP_CTRL_* */
	uint32_t stop_reason;		/* KSNAP_STOP_* */
	/* set_id's nr_columns columns (ksnap_ring_read_columns()), owned:
	 * free() them. */
	struct ksnap_column *columns;
};

struct ksnap_ring {
	int fd;
	bool regular_file;		/* --device is a file, not /dev/ksnap */

	void *map;			/* [0, total_pages), read-only */
	size_t map_len;
	struct ksnap_consumer *cons;	/* consumer page, read-write */
	size_t cons_len;

	const struct ksnap_ctrl *ctrl;
	const unsigned char *data;
	uint32_t record_size;
	uint32_t nr_records;
	uint32_t max_columns;

	/* The reader session as the kernel keeps it (ksnap_ring_claim()):
	 * the last collection reported done, the last generation and state
	 * reported seen (when seen_sent). */
	uint32_t done;
	uint32_t seen;
	bool seen_sent;

	/* What was found when ksnap_ring_open() failed with EPROTO or
	 * EPROTONOSUPPORT. */
	uint64_t found_magic;
	uint32_t found_version;
	uint32_t found_compat;
	const char *why;		/* layout problem, for messages: */
	char why_buf[224];		/* the value found and its limit */
	const char *op;			/* system call that failed */
};

/* Seqlock attempts before ksnap_ring_read_coll() gives up with -EAGAIN. */
#define KSNAP_SEQ_RETRIES	10000

/*
 * Open and map the device at path, and begin this reader session
 * (ksnap_ring_claim()).  Returns 0, or -errno with nothing
 * left open or mapped:  -EPROTO: bad magic (found_magic);
 * -EPROTONOSUPPORT: a ring this reader cannot read (found_version,
 * found_compat; see ksnap_ring_version_ok()); -EINVAL: inconsistent layout
 * (why).
 */
int ksnap_ring_open(struct ksnap_ring *r, const char *path);

/*
 * Open and map the device at path read-only, without beginning the
 * session (ksnapd --slice with no daemon): the kernel then keeps the
 * session's base as this reader's done generation and, in overwrite mode,
 * never reads the tail, so nothing this reader does changes what a later
 * reader finds (the tail stays the earlier reader's).  r->cons is NULL:
 * only the collection fields, head, the
 * statistics and copies of records may be read.  Returns as
 * ksnap_ring_open().
 */
int ksnap_ring_peek(struct ksnap_ring *r, const char *path);

/*
 * Can a reader of KSNAP_ABI_VERSION read a ring of these versions?  One
 * that serves it (compat), of a version back to KSNAP_ABI_READS_FROM
 * (the parts added since are found by their feature bits).
 */
static inline bool ksnap_ring_version_ok(uint32_t version, uint32_t compat)
{
	return compat <= KSNAP_ABI_VERSION && KSNAP_ABI_READS_FROM <= version;
}

/*
 * Begin this reader's session (ksnap_abi.h "Reader session"): r->done
 * becomes the session's base (reader_done_base, set by open()) and the
 * collection's current generation and state are reported seen
 * (ksnap_ring_set_seen()).  Nothing is written to the consumer page: the
 * tail is kept, an earlier reader's position in a running collection is
 * where this one resumes.  Called by ksnap_ring_open(); returns 0, what
 * ksnap_ring_read_coll() returns, or the ioctl's -errno.
 */
int ksnap_ring_claim(struct ksnap_ring *r);
void ksnap_ring_close(struct ksnap_ring *r);

/*
 * Point r at an already mapped device: ctrl region at base (total length
 * len) and the consumer page at cons.  Checks the layout.  Used by
 * ksnap_ring_open() and by tests on rings built in memory.
 */
int ksnap_ring_setup(struct ksnap_ring *r, void *base, size_t len,
		     struct ksnap_consumer *cons);

/*
 * Copy generation, state, set_id, nr_columns, period and start times from
 * a consistent snapshot (not the columns: ksnap_ring_read_columns()).
 * Returns 0, -EAGAIN when the writer held the seqlock for too long,
 * -EPROTO on nr_columns larger than the ring allows (c->nr_columns is
 * then the value found, for messages).
 */
int ksnap_ring_read_coll(const struct ksnap_ring *r, struct ksnap_coll *c);

/* Attempts of ksnap_ring_read_coll_columns() at a set being replaced. */
#define KSNAP_SET_RETRIES	100

/*
 * The columns of set c->set_id, c->nr_columns of them, read through the
 * device one by one (KSNAP_IOC_COLUMN) into c->columns, reallocated to
 * fit.  Returns 0; -ESTALE when the set is no longer the module's (read
 * the collection fields again); -EPROTO when the module's answer does not
 * match c (another column count); -ENOMEM, or the ioctl's -errno.
 */
int ksnap_ring_read_columns(const struct ksnap_ring *r, struct ksnap_coll *c);

/*
 * How many columns set set_id has, as the module answers for it (a set a
 * running collection changed to: ksnap_abi.h "Column sets"), into
 * *nr_columns.  Returns 0; -ESTALE when the module no longer answers for
 * it; -EPROTO when its records could not hold them; or the ioctl's -errno.
 */
int ksnap_ring_set_columns(const struct ksnap_ring *r, uint32_t set_id,
			   uint32_t *nr_columns);

/*
 * The collection fields and their columns, consistent: ksnap_ring_read_coll()
 * then ksnap_ring_read_columns(), again while the set is replaced in
 * between (up to KSNAP_SET_RETRIES times, then -ESTALE).
 */
int ksnap_ring_read_coll_columns(const struct ksnap_ring *r,
				 struct ksnap_coll *c);

/*
 * A record as this reader's consumers take it: of column set @set_id,
 * its @nr_columns values at values[].  Returns @rec when it is so
 * already; @buf (record_size bytes) holding its header and its values
 * moved to values[] when the module put them further on (values_offset,
 * a newer module's longer header); NULL when it is of another set or its
 * values_offset is bad: skip it, never read it under other columns.
 */
const struct ksnap_record *ksnap_ring_values(const struct ksnap_ring *r,
					     const struct ksnap_record *rec,
					     uint32_t set_id,
					     uint32_t nr_columns,
					     struct ksnap_record *buf);

/* Producer position.  [C] pairs with the kernel's [B]: the records below
 * head are complete. */
static inline uint64_t ksnap_ring_head(const struct ksnap_ring *r)
{
	return ksnap_load_acquire(&r->ctrl->head);
}

/* Our own position: only we write tail, a relaxed load is enough. */
static inline uint64_t ksnap_ring_tail(const struct ksnap_ring *r)
{
	return ksnap_load_relaxed(&r->cons->tail);
}

/* [D] pairs with the kernel's [A]: our reads of the slots below tail
 * happen before the kernel may reuse them. */
static inline void ksnap_ring_set_tail(struct ksnap_ring *r, uint64_t tail)
{
	ksnap_store_release(&r->cons->tail, tail);
}

/* The slot of position pos: pos % nr_records (not a power of two). */
static inline const struct ksnap_record *
ksnap_ring_record(const struct ksnap_ring *r, uint64_t pos)
{
	return (const struct ksnap_record *)
		(r->data + (size_t)(pos % r->nr_records) * r->record_size);
}

/*
 * Tell the kernel which generation and state we have acted on
 * (KSNAP_IOC_SEEN: poll() stops reporting them).  The ioctl is made only
 * when they differ from the last ones told.  Returns 0 or the ioctl's
 * -errno (EINVAL: values the kernel has not published).  A regular file
 * (--device FILE) without the ioctl (ENOTTY) has no kernel to tell: 0.
 */
int ksnap_ring_set_seen(struct ksnap_ring *r, uint32_t gen, uint32_t state);

/*
 * Every record and the statistics of gen are written out
 * (KSNAP_IOC_DONE).  [G] pairs with the kernel's [H] at the next start:
 * our reads of the collection happen before it reuses the ring and resets
 * the statistics.  Returns 0 (r->done is gen) or the ioctl's -errno
 * (EINVAL: gen is not a finished collection; r->done unchanged); a
 * regular file as ksnap_ring_set_seen().
 */
int ksnap_ring_set_done(struct ksnap_ring *r, uint32_t gen);

/*
 * Start (on) or stop a collection through the session (KSNAP_IOC_ENABLE),
 * without the sysfs attribute; with stop_on_close, the module stops a
 * collection this starts when the session ends, however it ends.
 * Returns 0, -EOPNOTSUPP when the module has no such ioctl
 * (KSNAP_FEAT_ENABLE_IOCTL) or the ring is a regular file, or the
 * ioctl's -errno.
 */
int ksnap_ring_enable(struct ksnap_ring *r, bool on, bool stop_on_close);

/*
 * The oldest exit record the module holds, taken off its queue
 * (KSNAP_IOC_EXIT) into x.  Returns 0, -EAGAIN when there is none (or the
 * module has no exit records, KSNAP_FEAT_EXITS, or the ring is a regular
 * file), or the ioctl's -errno.
 */
int ksnap_ring_take_exit(struct ksnap_ring *r, struct ksnap_exit *x);

/* The last collection the kernel counts as written out: the last one we
 * reported (or the session's base, ksnap_ring_claim()). */
static inline uint32_t ksnap_ring_done(const struct ksnap_ring *r)
{
	return r->done;
}

/*
 * Overwrite mode (KSNAP_CTRL_OVERWRITE): copy the record at pos into rec
 * (record_size bytes), then check that the kernel had not begun to
 * overwrite it: its seq is pos and head, loaded after the copy, is below
 * pos + nr_records.  stopped: the collection was seen stopped before head
 * was loaded, so the kernel writes no more and only seq is checked.
 * Returns true when the copy is valid.
 */
bool ksnap_ring_copy_record(const struct ksnap_ring *r, uint64_t pos,
			    struct ksnap_record *rec, bool stopped);

/* Can a record copied at pos still be valid, head being loaded after? */
static inline bool ksnap_ring_pos_valid(uint64_t head_after, uint64_t pos,
					uint32_t nr_records)
{
	return head_after - pos < nr_records;
}

/* Per-collection statistics; relaxed loads, as the ABI says. */
void ksnap_ring_read_stats(const struct ksnap_ring *r, struct ksnap_stats *s);

#endif /* KSNAPD_RING_H */

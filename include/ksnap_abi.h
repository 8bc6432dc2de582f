/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ksnap shared-memory ABI, version 1.
 *
 * ksnap.ko samples kernel and cgroup counters from an hrtimer into a ring
 * that userspace maps from /dev/ksnap.  This header is the whole contract
 * between the module and its readers (ksnapd, ksnap-verify, tests).
 *
 * Mapping.  The device is one vmalloc'ed area made of three regions, each
 * a whole number of pages.  Offsets below are in pages and are the mmap()
 * offset (in bytes: pgoff * page_size):
 *
 *   pgoff 0                  control region, ctrl_pages pages, READ-ONLY:
 *                            struct ksnap_ctrl, then ksnap_ctrl.nr_columns
 *                            struct ksnap_column at columns_offset.
 *   pgoff consumer_pgoff     consumer page, one page, READ-WRITE:
 *                            struct ksnap_consumer.
 *   pgoff data_pgoff         records, data_pages pages, READ-ONLY:
 *                            nr_records slots of record_size bytes.
 *
 * A reader first maps one page at offset 0 read-only, checks magic and
 * abi_version, then maps [0, total_pages) read-only and the consumer page
 * read-write.  Writable mappings of any other page, mappings past the end
 * and mappings that do not start on a region boundary fail with EINVAL or
 * EPERM; mprotect() cannot make a read-only region writable.
 *
 * Positions.  head (producer) and tail (consumer) are free-running record
 * counts since the collection started; the slot of position p is
 * p & (nr_records - 1).  nr_records is a power of two.  head - tail is the
 * number of unread records.  Positions restart at 0 with each collection
 * and never wrap.  The kernel owns head and never reads tail as an index:
 * a tail behind head - nr_records or above head (all ones included) is
 * counted (bad_tail) and treated as "ring full".
 *
 * Ordering.  The producer fills a slot, then store-releases head.  The
 * consumer load-acquires head, reads the slots, then store-releases tail.
 * The kernel load-acquires tail before reusing a slot.
 *
 * Overflow.  With KSNAP_CTRL_OVERWRITE clear in ksnap_ctrl.flags (the
 * default, overflow=drop) a full ring keeps its unread records and the
 * kernel drops new snapshots, counting them (stats.lost).  With it set
 * (overflow=overwrite, a flight recorder) the kernel never reads tail: it
 * always writes at head, overwriting the oldest records, and orders each
 * head store before its writes to the next slot.  The reader detects what
 * it lost: positions before head - nr_records are gone; a record copied
 * from position p is valid only if its seq is p and head, loaded again
 * after the copy (acquire fence), is below p + nr_records.  The kernel
 * cannot count these (it does not know what was read): the reader does.
 *
 * Collections.  Writing 1 to /sys/kernel/ksnap/enable starts collection
 * number ++generation: head and tail restart at 0, the counters in
 * struct ksnap_stats restart at 0, start times are taken.  Writing 0 takes
 * one last snapshot (flagged KSNAP_REC_LAST) and stops; the control page
 * keeps that collection's figures until the next start.  A reader that has
 * written every record of a collection and its statistics stores that
 * generation in ksnap_consumer.done_generation; while a reader holds the
 * device open, a start is refused (EBUSY) until the reader is done with the
 * previous collection, so no collection is lost between two of them.
 *
 * Seqlock.  ksnap_ctrl.seq is odd while the kernel rewrites the collection
 * fields (generation, state, start times, period, columns); read them
 * between two even, equal values of seq.
 *
 * When a reader opens the device the kernel sets done_generation to the
 * last finished collection and seen_state to the current state, so a new
 * reader is never blamed for collections it did not see.
 *
 * poll(): EPOLLIN | EPOLLRDNORM while head != tail or while
 * KSNAP_GEN_STATE(generation, state) differs from ksnap_consumer.seen_state
 * (the reader stores the value it has acted on); the module wakes readers
 * after a watermark of records and at every start and stop, not on every
 * record.
 *
 * All fields are little-endian host order, naturally aligned, with explicit
 * padding; reserved fields are zero and must be ignored by readers.
 */
#ifndef KSNAP_ABI_H
#define KSNAP_ABI_H

/* Both sides: the kernel's, or linux-libc-dev's uapi types. */
#include <linux/types.h>

#define KSNAP_MAGIC		0x50414e534bULL	/* "KSNAP" */
#define KSNAP_ABI_VERSION	1

#define KSNAP_DEVICE_PATH	"/dev/ksnap"
#define KSNAP_SYSFS_DIR		"/sys/kernel/ksnap"

/* Lengths include the terminating NUL. */
#define KSNAP_METRIC_NAME_MAX	64
#define KSNAP_FIELD_NAME_MAX	16
#define KSNAP_FIELD_VALUE_MAX	160
#define KSNAP_DESC_MAX		224

/* ksnap_ctrl.state (bit 0 of ksnap_consumer.seen_state). */
#define KSNAP_STATE_STOPPED	0
#define KSNAP_STATE_RUNNING	1

#define KSNAP_GEN_STATE(gen, state)	(((gen) << 1) | (state))

/* ksnap_ctrl.flags (per collection) */
#define KSNAP_CTRL_OVERWRITE	(1U << 0)	/* overflow=overwrite */

/* ksnap_column.flags */
#define KSNAP_COL_CUMULATIVE	(1U << 0)	/* never decreases */
#define KSNAP_COL_NANOSECONDS	(1U << 1)	/* value is in ns */

/* ksnap_column.freshness: how current a value is when it is read. */
#define KSNAP_FRESH_LIVE	0	/* read as of the snapshot */
#define KSNAP_FRESH_TICK	1	/* updated every scheduler tick */
#define KSNAP_FRESH_1S		2	/* folded about every second */
#define KSNAP_FRESH_2S		3	/* flushed about every 2 seconds */

/* ksnap_record.flags */
#define KSNAP_REC_LAST		(1U << 0)	/* taken when sampling stopped */
#define KSNAP_REC_STALE		(1U << 1)	/* a sampled cgroup is gone */

/* Per-collection statistics, reset at every start. */
struct ksnap_stats {
	__u64 taken;		/* snapshots attempted = written + lost */
	__u64 lost;		/* dropped because the ring was full */
	__u64 missed;		/* timer periods skipped (hrtimer overruns) */
	__u64 lateness_sum_ns;	/* sum of (collection start - expiry) */
	__u64 lateness_max_ns;
	__u64 read_sum_ns;	/* sum of time spent reading counters */
	__u64 read_max_ns;
	__u64 bad_tail;		/* invalid tails seen from the reader */
	__u64 reserved[8];
};

struct ksnap_ctrl {
	/* Fixed at load time. */
	__u64 magic;		/* KSNAP_MAGIC */
	__u32 abi_version;	/* KSNAP_ABI_VERSION */
	__u32 page_size;
	__u32 ctrl_pages;	/* control region length, pages */
	__u32 consumer_pgoff;	/* consumer page offset, pages */
	__u32 data_pgoff;	/* record region offset, pages */
	__u32 data_pages;	/* record region length, pages */
	__u32 total_pages;	/* whole device */
	__u32 columns_offset;	/* bytes from the start of this struct */
	/*
	 * record_size and nr_records follow the columns: they change, under
	 * seq, only while stopped and while no reader has the device open.
	 */
	__u32 record_size;	/* bytes; multiple of 8 */
	__u32 nr_records;	/* power of two */
	__u32 max_columns;	/* column slots the control region has */
	__u32 reserved0;

	/* Per collection; under seq. */
	__u32 seq;		/* odd while being rewritten */
	__u32 generation;	/* collection number, 0 before the first */
	__u32 state;		/* KSNAP_STATE_* */
	__u32 nr_columns;	/* values per record */
	__u64 period_ns;
	__u64 start_mono_ns;	/* CLOCK_MONOTONIC at start */
	__u64 start_real_ns;	/* CLOCK_REALTIME at start */
	__u32 flags;		/* KSNAP_CTRL_* */
	__u32 reserved1a;
	__u64 reserved1[3];

	/* Producer; own cache line. */
	__u64 head __attribute__((aligned(64)));
	__u64 reserved2[7];

	/* Updated by the timer; read with relaxed loads. */
	struct ksnap_stats stats __attribute__((aligned(64)));
};

/*
 * One column: a metric, and for metrics with a field (per cgroup, per CPU)
 * the field's name and value.  The column's name in the stream is
 * "metric" or "metric[value]".
 */
struct ksnap_column {
	char metric[KSNAP_METRIC_NAME_MAX];
	char field[KSNAP_FIELD_NAME_MAX];	/* "" when none */
	char value[KSNAP_FIELD_VALUE_MAX];
	char description[KSNAP_DESC_MAX];
	__u32 flags;		/* KSNAP_COL_* */
	__u32 freshness;	/* KSNAP_FRESH_* */
	__u64 reserved[5];
};

/* The one page the reader writes. */
struct ksnap_consumer {
	__u64 tail;
	__u32 done_generation;	/* last collection fully written out */
	__u32 seen_state;	/* generation << 1 | state last acted on */
	__u64 reserved[6];
};

/* A slot: header, then ksnap_ctrl.nr_columns values. */
struct ksnap_record {
	__u64 seq;		/* position of this record in the collection */
	__u64 time_ns;		/* midpoint of the reads - start_mono_ns */
	__u32 lateness_ns;	/* collection start - expiry, saturated */
	__u32 read_ns;		/* time spent reading, saturated */
	__u32 flags;		/* KSNAP_REC_* */
	__u32 reserved;
	__u64 values[];
};

#define KSNAP_RECORD_SIZE(ncols) \
	(sizeof(struct ksnap_record) + (ncols) * sizeof(__u64))

#ifndef __KERNEL__
_Static_assert(sizeof(struct ksnap_stats) == 128, "ksnap_stats size");
_Static_assert(sizeof(struct ksnap_column) == 512, "ksnap_column size");
_Static_assert(sizeof(struct ksnap_consumer) == 64, "ksnap_consumer size");
_Static_assert(sizeof(struct ksnap_record) == 32, "ksnap_record size");
_Static_assert(__builtin_offsetof(struct ksnap_ctrl, head) == 128, "head");
_Static_assert(__builtin_offsetof(struct ksnap_ctrl, stats) == 192, "stats");
_Static_assert(sizeof(struct ksnap_ctrl) == 320, "ksnap_ctrl size");
#endif

#endif /* KSNAP_ABI_H */

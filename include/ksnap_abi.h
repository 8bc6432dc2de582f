/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ksnap shared-memory ABI, version 7.
 *
 * ksnap.ko samples kernel and cgroup counters from an hrtimer into a ring
 * that userspace maps from /dev/ksnap.  This header is the whole contract
 * between the module and its readers (ksnapd, ksnap-verify, tests).
 *
 * Versions.  abi_version is the version of the layout and protocol the
 * module speaks; abi_compat is the oldest version whose readers can still
 * read this ring correctly.  A later module that only adds (fields in
 * reserved space, feature bits) keeps abi_compat and raises abi_version.
 * features lists the optional parts present (KSNAP_FEAT_*); a reader uses
 * a part only when its bit is set, so a reader built for version V also
 * reads the rings of the versions back to KSNAP_ABI_READS_FROM, whose
 * added parts it finds absent: it accepts a ring when abi_compat <= V and
 * KSNAP_ABI_READS_FROM <= abi_version.  A module and a reader one
 * version apart, in either order, work together.  Version 5 adds
 * KSNAP_FEAT_REFRESH_NS to version 4; version 6 adds KSNAP_FEAT_EXITS;
 * version 7 adds KSNAP_FEAT_THINNED.  Version 1 (positions
 * that restart with each collection, a consumer page the kernel wrote at
 * open and start) is not compatible with version 2; version 2 (a power of
 * two of records, a slot being p & (nr_records - 1)) is not compatible
 * with version 3; version 3 (a reader session claimed, and the done and
 * seen handshake written, in the consumer page) is not compatible with
 * version 4, whose reader tells the kernel these through ioctl()s and
 * writes nothing but its tail.
 *
 * Mapping.  The device is one vmalloc'ed area made of three regions, each
 * a whole number of pages.  Offsets below are in pages and are the mmap()
 * offset (in bytes: pgoff * page_size):
 *
 *   pgoff 0                  control region, ctrl_pages pages, READ-ONLY:
 *                            struct ksnap_ctrl.
 *   pgoff consumer_pgoff     consumer page, one page, READ-WRITE:
 *                            struct ksnap_consumer.
 *   pgoff data_pgoff         records, data_pages pages, READ-ONLY:
 *                            nr_records slots of record_size bytes.
 *
 * A reader first maps one page at offset 0 read-only, checks magic and the
 * versions, then maps [0, total_pages) read-only and the consumer page
 * read-write.  Writable mappings of any other page, mappings past the end
 * and mappings that do not start on a region boundary fail with EINVAL or
 * EPERM; mprotect() cannot make a read-only region writable.
 *
 * One writer per field.  The kernel writes the control and record regions
 * and never writes the consumer page; the reader writes only the consumer
 * page, and there only its tail.  Shared memory carries data, never a
 * command: what the reader tells the kernel besides its position goes
 * through ioctl()s on its file ("Reader session"), and the kernel ignores
 * every other byte of the consumer page.
 *
 * Positions.  head (producer, kernel) and tail (consumer, reader) are
 * free-running record counts since the module was loaded: they never go
 * back and never wrap (at 100 kHz, 2^64 records take 5.8 million years).
 * The slot of position p is p % nr_records; nr_records is every record
 * that fits in the record region, not a power of two.  Each collection
 * begins at start_position, the value of head when it started; its record
 * number n is at position start_position + n.  A start never touches tail:
 * the reader moves its tail to the new collection when it sees it.  The
 * kernel treats a tail below start_position as start_position (records of
 * earlier collections are free), never uses tail as an index, and counts a
 * tail above head, or one more than nr_records behind it, in
 * stats.bad_tail and treats it as "ring full".
 *
 * Ordering (kmod/sampler.c has the diagram).  The producer fills a slot,
 * then store-releases head; the consumer load-acquires head, reads the
 * slots below it, then store-releases tail; the producer load-acquires
 * tail before reusing a slot.
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
 * Records.  A slot holds one struct ksnap_record: its header, then the
 * values of its column set, values_offset bytes from the slot's start (a
 * later module may add header fields before them: a reader takes the
 * values from values_offset, never from sizeof(struct ksnap_record), and
 * checks that values_offset is a multiple of 8, at least the header it
 * knows, and that the set's values end within record_size).  record_size
 * is fixed per collection: every record of a collection fits it.
 *
 * Column sets.  What a record's values are is its column set: set_id
 * names it.  The module numbers a set when it publishes a configuration
 * (at load, at each reconfiguration of its metrics or cgroups, and when
 * cgroup patterns match other cgroups than before: at a start, or while
 * a collection runs), from 1,
 * never reusing a number while loaded; ksnap_ctrl.set_id (under seq) is
 * the collection's set.  A set's columns are not in the mapping: they are
 * read through the device, one by index, with KSNAP_IOC_COLUMN (struct
 * ksnap_column_info, below), naming the set, which a reader takes from
 * the control page (a query handle, which maps nothing, gets ESTALE for
 * any set it guesses wrong).  The kernel answers for its current set
 * and the last sets swapped out while running (below): ESTALE for any
 * other (the reader reads the collection fields again and starts over,
 * or skips that set's records), ENOENT for an index past the set's
 * nr_columns.  A set has at most KSNAP_MAX_COLUMNS columns; the module's
 * limit is ksnap_ctrl.max_columns.  A reader sizes nothing by its own
 * copy of the constant: it takes nr_columns from the control page and
 * checks that the values fit record_size, so a module with a higher limit
 * serves readers built with a lower one (the limit is not versioned).
 *
 * A collection whose cgroups are patterns changes its set while it runs
 * (cgroups coming and going on a container host):
 *  - a set change takes effect at a snapshot boundary: the first record
 *    of the new set carries its set_id and KSNAP_REC_SET_CHANGED, and
 *    ksnap_ctrl.set_id becomes the new set (under seq) before head covers
 *    that record;
 *  - a reader takes a record's columns from the set its set_id names,
 *    never from the collection's current set: it reads a new set's
 *    columns (KSNAP_IOC_COLUMN) when it first meets its set_id, or skips
 *    and counts the records of a set it does not take (ksnapd, whose
 *    stream has one header per collection, does); either way a record is
 *    never read under another set's columns;
 *  - the module answers KSNAP_IOC_COLUMN for the current set and for the
 *    last 4 sets a running collection swapped out; ESTALE for any other;
 *  - record_size stays the collection's: the records of a configuration
 *    with patterns have room for more cgroups than it matched (as many
 *    columns as leave the ring a fixed number of records, at most
 *    max_columns), and a set that would need more columns, or more than
 *    the read's bound admits, is truncated (its other matches skipped and
 *    counted in stats.cgroups_skipped), so a slot's width never changes
 *    under a reader;
 *  - a column keeps its index only within its set: a reader matches
 *    columns across sets by their names (metric, field, value).
 *
 * Collections.  Writing 1 to the enable attribute (KSNAP_SYSFS_DIR)
 * starts collection number ++generation: start_position = head, the
 * counters in struct
 * ksnap_stats restart at 0, start times are taken.  Writing 0 takes one
 * last snapshot (flagged KSNAP_REC_LAST) and stops; the control page keeps
 * that collection's figures until the next start.  A reconfiguration while
 * stopped (metrics, cgroups) after a collection publishes its column set,
 * record geometry and period as a new collection, ++generation, stopped
 * and empty (start_position = head, statistics zero): a finished
 * collection's records are read only under the columns and period they
 * were taken with.  A reader reads a collection's columns when it begins
 * it; the set may be replaced before (ESTALE): it reads the collection
 * fields again then, and a finished collection whose set is gone has no
 * records left to read (the reconfiguration made a new, empty one).
 *
 * Reader session.  The reader's open file is its session: the device
 * opened O_RDWR, one at a time (a second open fails with EBUSY), until
 * that file's last reference (mappings included) goes.  Before open()
 * returns, the kernel sets reader_done_base to the last collection
 * finished at that moment (the running one, if any, is not) and takes it
 * as the session's done generation.  The kernel keeps the session's done
 * and seen values in its own memory; the reader sets them with
 * KSNAP_IOC_DONE and KSNAP_IOC_SEEN (below) on the file it opened, and
 * nothing it writes into the consumer page besides tail changes them.
 * tail is kept across sessions: a reader restarted mid-collection
 * resumes there.  A query handle (O_RDONLY) is no session: these ioctl()s
 * fail on it with EBADF.
 *
 * Done handshake.  A reader that has written every record of a
 * collection and its statistics reports that generation with
 * KSNAP_IOC_DONE.  While a reader holds the device open, a start is
 * refused (EBUSY) until the reader is done with the previous collection,
 * so no collection is lost between two of them.  The ioctl and the start
 * take the same lock: the reader's reads of the collection happen before
 * the start that reuses the ring and resets the statistics.
 *
 * Seqlock.  ksnap_ctrl.seq is odd while the kernel rewrites the collection
 * fields (generation, state, start times and position, period, flags,
 * record geometry, set_id, nr_columns); read them between two even, equal
 * values of seq.
 *
 * poll(): EPOLLIN | EPOLLRDNORM while the reader has not yet reported
 * what it has seen in this session (KSNAP_IOC_SEEN), while head differs
 * from the tail (as the kernel takes it, above), or while the
 * collection's generation and state differ from the last ones the reader
 * reported with KSNAP_IOC_SEEN (the state it has acted on).  The module wakes readers
 * after a watermark of records and at every start and stop, not on every
 * record.
 *
 * All fields are in the byte order of the machine (the module and its
 * readers run on one machine), naturally aligned, with explicit padding;
 * reserved fields are zero and must be ignored by readers.
 */
#ifndef KSNAP_ABI_H
#define KSNAP_ABI_H

/* Both sides: the kernel's, or linux-libc-dev's uapi types. */
#include <linux/ioctl.h>
#include <linux/types.h>

#define KSNAP_MAGIC		0x50414e534bULL	/* "KSNAP" */
#define KSNAP_ABI_VERSION	7
#define KSNAP_ABI_COMPAT	4	/* oldest reader version this module serves */
#define KSNAP_ABI_READS_FROM	4	/* oldest module version a reader reads */

/* ksnap_ctrl.features: optional parts of the ring. */
#define KSNAP_FEAT_OVERWRITE	(1ULL << 0)	/* overflow=overwrite exists */
#define KSNAP_FEAT_WAKEUPS	(1ULL << 1)	/* ksnap_stats.wakeups counts */
/* ksnap_stats.read_estimate_ns etc. and ksnap_ctrl.stop_reason are set */
#define KSNAP_FEAT_READ_BOUND	(1ULL << 2)
/* The catalogue is enumerated by KSNAP_IOC_METRIC */
#define KSNAP_FEAT_METRIC_IOCTL	(1ULL << 3)
/* The reader reports done and seen by KSNAP_IOC_DONE and KSNAP_IOC_SEEN */
#define KSNAP_FEAT_READER_IOCTL	(1ULL << 4)
/* ksnap_stats.cgroups_skipped counts */
#define KSNAP_FEAT_CGROUPS_SKIPPED	(1ULL << 5)
/* The reader starts and stops collections by KSNAP_IOC_ENABLE */
#define KSNAP_FEAT_ENABLE_IOCTL		(1ULL << 6)
/*
 * ksnap_column_info.refresh_ns and ksnap_metric_info.refresh_ns are set
 * (version 5)
 */
#define KSNAP_FEAT_REFRESH_NS		(1ULL << 7)
/* Exit records, by KSNAP_IOC_EXIT, and ksnap_stats.exits_lost (version 6) */
#define KSNAP_FEAT_EXITS		(1ULL << 8)
/*
 * ksnap_stats.thinned counts, and a collection is never stopped for its
 * reads' cost (stop_reason is never KSNAP_STOP_OVERRUN; version 7)
 */
#define KSNAP_FEAT_THINNED		(1ULL << 9)

#define KSNAP_DEVICE_PATH	"/dev/ksnap"
/*
 * The device's attributes (the knobs, stats/ and plan/).  /sys/kernel/ksnap
 * is a deprecated link to the same directory.
 */
#define KSNAP_SYSFS_DIR		"/sys/class/misc/ksnap"

/* Lengths include the terminating NUL. */
#define KSNAP_METRIC_NAME_MAX	64
#define KSNAP_FIELD_NAME_MAX	16
/* A cgroup path: PATH_MAX, as deep as cgroupfs nests. */
#define KSNAP_FIELD_VALUE_MAX	4096
/* An exit record's path: longer paths are cut (KSNAP_EXIT_PATH_CUT). */
#define KSNAP_EXIT_PATH_MAX	512
#define KSNAP_DESC_MAX		224
#define KSNAP_UNIT_MAX		16

/* Columns in a set, at most (metrics times cgroups or CPUs). */
#define KSNAP_MAX_COLUMNS	8192

/* ksnap_ctrl.state, ksnap_seen.state */
#define KSNAP_STATE_STOPPED	0
#define KSNAP_STATE_RUNNING	1

#define KSNAP_GEN_STATE(gen, state)	(((gen) << 1) | (state))

/*
 * ksnap_ctrl.stop_reason: why the collection stopped.  NONE while it runs
 * and when it was stopped on request (enable, unload).
 */
#define KSNAP_STOP_NONE		0
/*
 * The kernel stopped it: most reads of a snapshot took longer than the
 * bound (ksnap_stats.read_bound_ns) for seconds in a row, and the set had
 * no cgroup left to shed.  Only a module without KSNAP_FEAT_THINNED does;
 * one with it reads less often instead (ksnap_stats.thinned).
 */
#define KSNAP_STOP_OVERRUN	1

/* ksnap_ctrl.flags (per collection) */
#define KSNAP_CTRL_OVERWRITE	(1U << 0)	/* overflow=overwrite */

/* ksnap_column_info.flags */
#define KSNAP_COL_CUMULATIVE	(1U << 0)	/* never decreases */
#define KSNAP_COL_NANOSECONDS	(1U << 1)	/* value is in ns */

/* ksnap_column_info.freshness: how current a value is when it is read. */
#define KSNAP_FRESH_LIVE	0	/* read as of the snapshot */
#define KSNAP_FRESH_TICK	1	/* updated every scheduler tick */
#define KSNAP_FRESH_1S		2	/* folded about every second */
#define KSNAP_FRESH_2S		3	/* flushed about every 2 seconds */

/* ksnap_record.flags */
#define KSNAP_REC_LAST		(1U << 0)	/* taken when sampling stopped */
#define KSNAP_REC_STALE		(1U << 1)	/* a sampled cgroup is gone */
/*
 * A CPU went offline and the kernel has not yet folded its VM events into
 * a live CPU: a sum may count some events twice in this record (the
 * column is held from stepping back afterwards).
 */
#define KSNAP_REC_CPU_FOLD	(1U << 2)
/* A per-CPU column's CPU is offline: the column holds its value. */
#define KSNAP_REC_CPU_OFFLINE	(1U << 3)
/* The first record of a new column set within a collection ("Column sets") */
#define KSNAP_REC_SET_CHANGED	(1U << 4)

/* Per-collection statistics, reset at every start. */
struct ksnap_stats {
	__u64 taken;		/* snapshots attempted = written + lost */
	__u64 lost;		/* dropped because the ring was full */
	/* timer periods that passed with no snapshot: late, or thinned */
	__u64 missed;
	__u64 lateness_sum_ns;	/* sum of (collection start - expiry) */
	__u64 lateness_max_ns;
	__u64 read_sum_ns;	/* sum of time spent reading counters */
	__u64 read_max_ns;
	__u64 bad_tail;		/* invalid tails seen from the reader */
	__u64 wakeups;		/* reader wake-ups queued (KSNAP_FEAT_WAKEUPS) */
	__u64 cpu;		/* the CPU the last snapshot was taken on */
	/* KSNAP_FEAT_READ_BOUND: */
	__u64 read_estimate_ns;	/* a snapshot's read, estimated at start */
	__u64 read_bound_ns;	/* the bound on a snapshot's read */
	__u64 read_recent_ns;	/* the longest read of the last second */
	/*
	 * KSNAP_FEAT_CGROUPS_SKIPPED: pattern matches the column set has no
	 * room for, or the read's bound does not admit, as of its last
	 * expansion (start or rescan).
	 */
	__u64 cgroups_skipped;
	/* KSNAP_FEAT_EXITS: exit records dropped, the queue being full */
	__u64 exits_lost;
	/*
	 * KSNAP_FEAT_THINNED: periods of missed skipped on purpose, the reads
	 * taking longer than their bound with no cgroup left to shed: the
	 * timer then reads every 2, 4, ... periods (at least once a second),
	 * and every period again once reads leave room.
	 */
	__u64 thinned;
};

struct ksnap_ctrl {
	/* Fixed at load time; first cache line. */
	__u64 magic;		/* KSNAP_MAGIC */
	__u32 abi_version;	/* KSNAP_ABI_VERSION of the module */
	__u32 abi_compat;	/* oldest reader version it serves */
	__u64 features;		/* KSNAP_FEAT_* */
	__u32 page_size;
	__u32 ctrl_pages;	/* control region length, pages */
	__u32 consumer_pgoff;	/* consumer page offset, pages */
	__u32 data_pgoff;	/* record region offset, pages */
	__u32 data_pages;	/* record region length, pages */
	__u32 total_pages;	/* whole device */
	__u32 reserved1;
	__u32 max_columns;	/* KSNAP_MAX_COLUMNS of the module */
	__u64 reserved0;

	/* Per collection; under seq. */
	__u32 seq;		/* odd while being rewritten */
	__u32 generation;	/* collection number, 0 before the first */
	__u32 state;		/* KSNAP_STATE_* */
	__u32 nr_columns;	/* values per record: set_id's columns */
	__u64 period_ns;
	__u64 start_mono_ns;	/* CLOCK_MONOTONIC at start */
	__u64 start_real_ns;	/* CLOCK_REALTIME at start */
	__u64 start_position;	/* head when the collection started */
	/*
	 * record_size and nr_records change, under seq, only while stopped
	 * and while no reader has the device open.
	 */
	__u32 record_size;	/* bytes, a slot; multiple of 8 */
	__u32 nr_records;	/* slots; any number from 2 */
	__u32 flags;		/* KSNAP_CTRL_* */
	__u32 stop_reason;	/* KSNAP_STOP_* (KSNAP_FEAT_READ_BOUND) */

	/* Reader session: written by open() before it returns. */
	__u32 reserved5;
	__u32 reader_done_base;	/* last collection finished at that open */
	/* Per collection, under seq: the column set ("Column sets"). */
	__u32 set_id;
	__u32 reserved2;
	__u64 reserved3[6];

	/* Producer; own cache line. */
	__u64 head;
	__u64 reserved4[7];

	/* Updated by the timer; read with relaxed loads. */
	struct ksnap_stats stats;
};

/*
 * KSNAP_IOC_COLUMN: one column of a set, by index.  The caller sets
 * set_id and index, and zeroes the rest; the kernel fills nr_columns and
 * the column: a metric, and for metrics with a field (per cgroup, per CPU)
 * the field's name and value.  The column's name in the stream is
 * "metric" or "metric[value]".  Errors: ESTALE, set_id is neither the
 * current set nor one of the last swapped out ("Column sets"); ENOENT,
 * index is not below nr_columns; EINVAL, a reserved field is not zero;
 * EFAULT.
 */
struct ksnap_column_info {
	__u32 set_id;		/* in */
	__u32 index;		/* in: 0 .. nr_columns - 1 */
	__u32 nr_columns;	/* out: the set's columns */
	__u32 flags;		/* out: KSNAP_COL_* */
	__u32 freshness;	/* out: KSNAP_FRESH_* */
	__u32 reserved0;
	/*
	 * out (KSNAP_FEAT_REFRESH_NS): the longest time between two updates
	 * of the value by the kernel: the tick (1/HZ) for KSNAP_FRESH_TICK,
	 * 1 s and 2 s for KSNAP_FRESH_1S and _2S, 0 for KSNAP_FRESH_LIVE
	 */
	__u64 refresh_ns;
	__u64 reserved[4];
	char metric[KSNAP_METRIC_NAME_MAX];
	char field[KSNAP_FIELD_NAME_MAX];	/* "" when none */
	char description[KSNAP_DESC_MAX];
	char value[KSNAP_FIELD_VALUE_MAX];	/* a cgroup path, a CPU */
};

/*
 * The one page the reader writes, and there only tail; the kernel reads
 * tail and ignores the rest (reserved: whatever is there means nothing).
 */
struct ksnap_consumer {
	__u64 tail;		/* reader's position */
	__u32 reserved0[4];
	__u64 reserved[5];
};

/*
 * KSNAP_IOC_DONE: the reader has written out every record and the
 * statistics of collection generation, the last one it has.  The kernel
 * keeps it as the session's done generation (a start is refused while it
 * is not the last collection).  Errors: EINVAL, generation is a
 * collection not finished (running, or not started yet) or reserved is
 * not zero, and the session's value stays as it was; EBADF, the file is a
 * query handle; EFAULT.
 */
struct ksnap_done {
	__u32 generation;	/* in: at most the last finished collection */
	__u32 reserved;		/* in: zero */
};

/*
 * KSNAP_IOC_SEEN: the collection the reader has acted on, generation and
 * state as it read them (under seq); poll() reports readable while the
 * control page's differ.  Errors: EINVAL, state is not a KSNAP_STATE_*,
 * generation is past the current one, or the current one is said stopped
 * while it runs (the session's value stays as it was); EBADF, the file is
 * a query handle; EFAULT.
 */
struct ksnap_seen {
	__u32 generation;	/* in */
	__u32 state;		/* in: KSNAP_STATE_* */
};

/*
 * KSNAP_IOC_ENABLE: start (on = 1) or stop (on = 0) a collection, as a
 * write of 1 or 0 to the enable attribute does, from the reader's session
 * (KSNAP_FEAT_ENABLE_IOCTL): no writable sysfs is needed.  With
 * KSNAP_ENABLE_STOP_ON_CLOSE, a start also asks that the collection stop
 * when this session ends (the last reference to the file goes: a close,
 * or the reader killed), unless it was stopped before; a stop, or a start
 * without the flag, cancels the request.  Errors: those of a start
 * (EBUSY, EINVAL: see the enable attribute); EINVAL, on is not 0 or 1, or
 * flags or reserved hold an unknown bit; EBADF, the file is a query
 * handle; EFAULT.
 */
struct ksnap_enable {
	__u32 on;		/* in: 1 start, 0 stop */
	__u32 flags;		/* in: KSNAP_ENABLE_* */
	__u64 reserved;		/* in: zero */
};

#define KSNAP_ENABLE_STOP_ON_CLOSE	(1U << 0)

/*
 * KSNAP_IOC_EXIT (KSNAP_FEAT_EXITS): the oldest exit record queued, taken
 * off the queue.  While a collection with cgroup patterns runs, the
 * removal (rmdir) of a cgroup a pattern matches queues one, whether or
 * not the cgroup was ever in a column set: its final CPU and memory
 * figures, read as it is removed (its tasks are gone, and nothing can
 * charge it any more).  The queue holds KSNAP_EXITS_QUEUED records; one
 * that finds it full is dropped and counted in ksnap_stats.exits_lost.
 * Records left from a collection are dropped at the next start (counted
 * in its exits_lost).  Errors: EAGAIN, the queue is empty; EBADF, the
 * file is a query handle; EINVAL, reserved on input is not zero; EFAULT.
 */
struct ksnap_exit {
	__u32 generation;	/* out: the collection it came in */
	__u32 flags;		/* out: KSNAP_EXIT_* */
	__u64 cgroup_id;	/* out: the cgroup's id (cgroupfs inode) */
	/* CLOCK_MONOTONIC, ns since the collection's start_mono_ns */
	__u64 time_ns;		/* out: its removal */
	__u64 born_ns;		/* out: its mkdir (KSNAP_EXIT_BORN) */
	/* cpu.stat's usage_usec, user_usec and system_usec, in ns */
	__u64 cpu_usage_ns;
	__u64 cpu_user_ns;
	__u64 cpu_system_ns;
	/* KSNAP_EXIT_MEMORY: memory.peak (bytes) and memory.events */
	__u64 memory_peak;
	__u64 memory_oom;
	__u64 memory_oom_kill;
	__u64 reserved[2];	/* in: zero; out: zero */
	/* out: the path in the patterns' cgroup namespace, NUL-terminated */
	char path[KSNAP_EXIT_PATH_MAX];
};

/* ksnap_exit.flags */
/* born_ns is set: the mkdir came while the collection ran */
#define KSNAP_EXIT_BORN		(1U << 0)
/* The cgroup had a memory controller: the memory_* fields are set */
#define KSNAP_EXIT_MEMORY	(1U << 1)
/* path was cut to fit KSNAP_EXIT_PATH_MAX (it is the first bytes) */
#define KSNAP_EXIT_PATH_CUT	(1U << 2)
/*
 * The cgroup had dying descendants: their last CPU time reaches it after
 * its removal, so the cpu_* fields are as of the last rstat flush (they
 * may lag by up to the time since it, about 2 s on 5.13 to 6.15, or
 * since the last read of cpu.stat on the others).
 */
#define KSNAP_EXIT_CPU_FLUSHED	(1U << 3)

#define KSNAP_EXITS_QUEUED	256

/*
 * The catalogue: ioctl(fd, KSNAP_IOC_METRIC, &info) on /dev/ksnap, the
 * caller setting info.index (0, 1, 2...) and reserved to zero;
 * the kernel fills in metric number index, or fails with EINVAL past the
 * last one (the catalogue of a loaded module never changes).  A nonzero
 * reserved field on input is EINVAL too.
 *
 * The device opened O_RDONLY is a query handle: it is not a reader
 * session, any number may be open beside the reader's, and it can only
 * ask (KSNAP_IOC_METRIC, KSNAP_IOC_COLUMN; mmap fails with EACCES, poll
 * reports nothing, KSNAP_IOC_DONE and KSNAP_IOC_SEEN fail with EBADF).
 * The reader opens
 * O_RDWR.  KSNAP_FEAT_METRIC_IOCTL in ksnap_ctrl.features says a module
 * has this ioctl.
 *
 * Metric names and groups are what the metrics list (the metrics= module
 * parameter, the metrics attribute in KSNAP_SYSFS_DIR) takes: a group
 * names every metric it has that the configured cgroups allow.
 */
#define KSNAP_IOC_MAGIC		0xB5
#define KSNAP_IOC_METRIC	_IOWR(KSNAP_IOC_MAGIC, 0x01, struct ksnap_metric_info)

/* ksnap_metric_info.flags: KSNAP_COL_* and these. */
#define KSNAP_METRIC_PER_CPU	(1U << 8)	/* "name[N]", "name[cpu]" */
#define KSNAP_METRIC_PER_CGROUP	(1U << 9)	/* a column per cgroup */
#define KSNAP_METRIC_DEFAULT	(1U << 10)	/* in the empty list's set */
/* A memory.stat.* value whose slot the load-time check could not prove */
#define KSNAP_METRIC_UNPROVEN	(1U << 11)

/* ksnap_metric_info.groups: the named groups a metric is in. */
#define KSNAP_GROUP_VMSTAT	(1U << 0)	/* "vmstat": /proc/vmstat */
#define KSNAP_GROUP_CPU		(1U << 1)	/* "cpu": /proc/stat cpu line */
#define KSNAP_GROUP_CONTAINER	(1U << 2)	/* "container": per cgroup */
/*
 * "pod": the per-cgroup counters a container node watches first (memory
 * use and limit, OOM kills, CPU usage, pressure): about 12 columns a
 * cgroup, so a set of KSNAP_MAX_COLUMNS holds some 680 cgroups.
 */
#define KSNAP_GROUP_POD		(1U << 3)
/* "all" is every metric, and has no bit. */

struct ksnap_metric_info {
	__u32 index;		/* in: 0 .. number of metrics - 1 */
	__u32 flags;		/* KSNAP_COL_*, KSNAP_METRIC_* */
	__u32 freshness;	/* KSNAP_FRESH_* */
	__u32 groups;		/* KSNAP_GROUP_* */
	char name[KSNAP_METRIC_NAME_MAX];
	char unit[KSNAP_UNIT_MAX];	/* "bytes", "pages", "ns", "count"... */
	char field[KSNAP_FIELD_NAME_MAX]; /* "cpu", "cgroup", or "" */
	char description[KSNAP_DESC_MAX];
	__u64 refresh_ns;	/* in: zero; out: as ksnap_column_info's */
	__u64 reserved[3];	/* zero */
};

/*
 * A slot: header, then the values of set set_id at values_offset (this
 * module's: at values[]; see "Records" for a later one's).
 */
struct ksnap_record {
	__u64 seq;		/* position of this record */
	__u64 time_ns;		/* midpoint of the reads - start_mono_ns */
	__u32 lateness_ns;	/* collection start - expiry, saturated */
	__u32 read_ns;		/* time spent reading, saturated */
	__u32 flags;		/* KSNAP_REC_* */
	__u32 set_id;		/* the column set of the values */
	__u32 values_offset;	/* bytes from the record's start to values */
	__u32 reserved;
	__u64 values[];
};

#define KSNAP_RECORD_SIZE(ncols) \
	(sizeof(struct ksnap_record) + (ncols) * sizeof(__u64))

/* ioctl()s on /dev/ksnap. */
#define KSNAP_IOC_COLUMN	_IOWR(KSNAP_IOC_MAGIC, 0x02, struct ksnap_column_info)
/* The reader's session (KSNAP_FEAT_READER_IOCTL): O_RDWR only. */
#define KSNAP_IOC_DONE		_IOW(KSNAP_IOC_MAGIC, 0x03, struct ksnap_done)
#define KSNAP_IOC_SEEN		_IOW(KSNAP_IOC_MAGIC, 0x04, struct ksnap_seen)
#define KSNAP_IOC_ENABLE	_IOW(KSNAP_IOC_MAGIC, 0x05, struct ksnap_enable)
#define KSNAP_IOC_EXIT		_IOWR(KSNAP_IOC_MAGIC, 0x06, struct ksnap_exit)

/* The layout, checked wherever this header is compiled. */
#define KSNAP_ABI_ASSERT(cond, what) _Static_assert(cond, "ksnap ABI: " what)
KSNAP_ABI_ASSERT(sizeof(struct ksnap_stats) == 128, "ksnap_stats size");
KSNAP_ABI_ASSERT(sizeof(struct ksnap_column_info) == 4464,
		 "ksnap_column_info size");
KSNAP_ABI_ASSERT(__builtin_offsetof(struct ksnap_column_info, metric) == 64,
		 "ksnap_column_info strings after its numbers");
KSNAP_ABI_ASSERT(sizeof(struct ksnap_consumer) == 64, "ksnap_consumer size");
KSNAP_ABI_ASSERT(sizeof(struct ksnap_done) == 8, "ksnap_done size");
KSNAP_ABI_ASSERT(sizeof(struct ksnap_seen) == 8, "ksnap_seen size");
KSNAP_ABI_ASSERT(sizeof(struct ksnap_enable) == 16, "ksnap_enable size");
KSNAP_ABI_ASSERT(sizeof(struct ksnap_record) == 40, "ksnap_record size");
KSNAP_ABI_ASSERT(sizeof(struct ksnap_exit) == 96 + KSNAP_EXIT_PATH_MAX,
		 "ksnap_exit size");
KSNAP_ABI_ASSERT(__builtin_offsetof(struct ksnap_record, values) == 40,
		 "values right after the header");
KSNAP_ABI_ASSERT(sizeof(struct ksnap_metric_info) == 368,
		 "ksnap_metric_info size");
KSNAP_ABI_ASSERT(__builtin_offsetof(struct ksnap_ctrl, seq) == 64,
		 "collection fields on the second cache line");
KSNAP_ABI_ASSERT(__builtin_offsetof(struct ksnap_ctrl, reader_done_base) == 132,
		 "reader session on the third cache line");
KSNAP_ABI_ASSERT(__builtin_offsetof(struct ksnap_ctrl, set_id) == 136,
		 "set_id after the reader session");
KSNAP_ABI_ASSERT(__builtin_offsetof(struct ksnap_ctrl, head) == 192,
		 "head on a cache line of its own");
KSNAP_ABI_ASSERT(__builtin_offsetof(struct ksnap_ctrl, stats) == 256,
		 "stats after head's cache line");
KSNAP_ABI_ASSERT(sizeof(struct ksnap_ctrl) == 384, "ksnap_ctrl size");

#endif /* KSNAP_ABI_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Ring layout and position arithmetic (pure), and the ring's memory.
 *
 * The device is one vmalloc_user() area: control region (struct ksnap_ctrl;
 * the columns are read through the device, whatever their number), one
 * consumer page, record region.
 * Positions are free-running u64 record counts; the slot of position pos
 * is pos % n, n being however many records fit (not a power of two).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include <linux/vmalloc.h>

#include "ksnap_abi.h"
#include "ring.h"

/**
 * ksnap_layout_init() - compute the fixed regions of the device
 * @l: filled on success
 * @page_size: a power of two, at least 4096
 * @ring_kb: record region size in KiB, KSNAP_RING_KB_MIN..KSNAP_RING_KB_MAX
 *
 * Return: 0, or -EINVAL for an unsupported page size or ring_kb.
 */
int ksnap_layout_init(struct ksnap_layout *l, u32 page_size, u32 ring_kb)
{
	u64 ctrl_bytes, data_bytes;

	if (page_size < 4096 || !is_power_of_2(page_size))
		return -EINVAL;
	if (ring_kb < KSNAP_RING_KB_MIN || ring_kb > KSNAP_RING_KB_MAX)
		return -EINVAL;

	l->page_size = page_size;
	l->max_columns = KSNAP_MAX_COLUMNS;
	ctrl_bytes = sizeof(struct ksnap_ctrl);
	l->ctrl_pages = DIV_ROUND_UP_ULL(ctrl_bytes, page_size);
	l->consumer_pgoff = l->ctrl_pages;
	l->data_pgoff = l->consumer_pgoff + 1;
	data_bytes = (u64)ring_kb * 1024;
	l->data_pages = DIV_ROUND_UP_ULL(data_bytes, page_size);
	l->total_pages = l->data_pgoff + l->data_pages;
	return 0;
}

/**
 * ksnap_layout_records() - record geometry for a number of columns
 * @l: layout from ksnap_layout_init()
 * @nr_columns: values per record, 1..l->max_columns
 * @record_size: KSNAP_RECORD_SIZE(nr_columns)
 * @nr_records: the records the record region holds, every one of them
 *
 * Return: 0, or -EINVAL for no columns or more than max_columns.
 */
int ksnap_layout_records(const struct ksnap_layout *l, u32 nr_columns,
			 u32 *record_size, u32 *nr_records)
{
	u64 fit;

	if (nr_columns == 0 || nr_columns > l->max_columns)
		return -EINVAL;

	*record_size = KSNAP_RECORD_SIZE(nr_columns);
	fit = div_u64((u64)l->data_pages * l->page_size, *record_size);
	if (fit < 2)
		return -EINVAL;
	*nr_records = min_t(u64, fit, KSNAP_RING_RECORDS_MAX);
	return 0;
}

/*
 * The slot of position @pos: a 64-bit division, so the timer does not call
 * it per record (ksnap_ring_next_slot()), only once at each start.
 */
u32 ksnap_ring_slot(u64 pos, u32 nr_records)
{
	u32 slot;

	div_u64_rem(pos, nr_records, &slot);
	return slot;
}

/* The slot after @slot: that of position p + 1 when @slot is p's. */
u32 ksnap_ring_next_slot(u32 slot, u32 nr_records)
{
	return slot + 1 < nr_records ? slot + 1 : 0;
}

/*
 * Positions count records from the module's load and only grow (at 100 kHz
 * they would take 5.8 million years to reach 2^64), so they are compared
 * as plain integers: a valid tail is in [head - nr_records, head].  A tail
 * above head, including one "before 0" such as all ones, is garbage.
 */
enum ksnap_tail ksnap_ring_check_tail(u64 head, u64 tail, u32 nr_records)
{
	if (tail > head)
		return KSNAP_TAIL_AHEAD;
	if (head - tail > nr_records)
		return KSNAP_TAIL_BEHIND;
	return KSNAP_TAIL_OK;
}

/* Unread records; an invalid tail sets *bad_tail and counts as full. */
u64 ksnap_ring_used(u64 head, u64 tail, u32 nr_records, bool *bad_tail)
{
	*bad_tail = ksnap_ring_check_tail(head, tail, nr_records) !=
		    KSNAP_TAIL_OK;
	return *bad_tail ? nr_records : head - tail;
}

/*
 * Unread records of the collection that began at position @start: the
 * records of earlier collections are free whatever the reader's tail says
 * (a reader moves its tail to a new collection when it sees it; the kernel
 * never writes it), so a tail below @start counts as @start.  @start is at
 * most @head.
 */
u64 ksnap_ring_used_since(u64 head, u64 tail, u64 start, u32 nr_records,
			  bool *bad_tail)
{
	return ksnap_ring_used(head, max(tail, start), nr_records, bad_tail);
}

/**
 * ksnap_ring_yet_to_read() - will the reader read position @pos, having
 *	lost nothing so far?
 * @head: the next position written
 * @tail: the reader's
 * @start: the collection's first position (a tail below it counts as it)
 * @nr_records: the ring's
 * @pos: a position written, or @head for none yet
 *
 * True when @pos holds a record, the reader has not read it, and every
 * record the reader has not read is still in the ring (no overflow has
 * taken one yet, and its tail is valid): a reader that can still read
 * everything, and has @pos ahead of it.
 */
bool ksnap_ring_yet_to_read(u64 head, u64 tail, u64 start, u32 nr_records,
			    u64 pos)
{
	bool bad;
	u64 used = ksnap_ring_used_since(head, tail, start, nr_records, &bad);

	return !bad && used < nr_records && pos < head &&
	       max(tail, start) <= pos;
}

/*
 * Unread records at which a sleeping reader is woken: a quarter of the ring,
 * or about @wake_ns of samples (wake_ms=), whichever is fewer; at least one.
 * A record thus waits at most @wake_ns (and a quarter ring's time) in the
 * ring before its reader is woken.
 */
u32 ksnap_ring_wake_mark(u32 nr_records, u64 period_ns, u64 wake_ns)
{
	u64 by_time = period_ns ? div64_u64(wake_ns, period_ns) : 1;
	u64 mark = min_t(u64, nr_records / 4, by_time);

	return max_t(u64, mark, 1);
}

/* Zeroed, mappable memory for the whole device. */
void *ksnap_ring_alloc(const struct ksnap_layout *l)
{
	return vmalloc_user((unsigned long)l->total_pages * l->page_size);
}

void ksnap_ring_free(void *ring)
{
	vfree(ring);
}

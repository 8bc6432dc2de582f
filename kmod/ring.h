/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring geometry and position arithmetic.  Everything here except
 * ksnap_ring_alloc()/ksnap_ring_free() is a pure function of its arguments,
 * so the KUnit suite ksnap_ring can test it.
 */
#ifndef KSNAP_KMOD_RING_H
#define KSNAP_KMOD_RING_H

#include <linux/bits.h>
#include <linux/types.h>

/* ring_kb= : size of the record region, KiB, rounded up to whole pages. */
#define KSNAP_RING_KB_MIN	64
#define KSNAP_RING_KB_MAX	262144
#define KSNAP_RING_KB_DEFAULT	8192

/* Records a ring holds at most, whatever its size: nr_records is a u32. */
#define KSNAP_RING_RECORDS_MAX	BIT(31)

/*
 * wake_ms= : a sleeping reader is woken once this much time of records is
 * unread (or a quarter of the ring, whichever comes first), milliseconds.
 */
#define KSNAP_WAKE_MS_MIN	1
#define KSNAP_WAKE_MS_MAX	10000
#define KSNAP_WAKE_MS_DEFAULT	100

/* Region offsets and sizes, fixed at load time (see ksnap_abi.h). */
struct ksnap_layout {
	u32 page_size;
	u32 ctrl_pages;
	u32 consumer_pgoff;
	u32 data_pgoff;
	u32 data_pages;
	u32 total_pages;
	u32 max_columns;
};

/* Where a reader's tail stands relative to head. */
enum ksnap_tail {
	KSNAP_TAIL_OK,		/* head - nr_records <= tail <= head */
	KSNAP_TAIL_AHEAD,	/* tail > head: the reader skipped ahead */
	KSNAP_TAIL_BEHIND,	/* tail < head - nr_records: overwritten */
};

int ksnap_layout_init(struct ksnap_layout *l, u32 page_size, u32 ring_kb);
int ksnap_layout_records(const struct ksnap_layout *l, u32 nr_columns,
			 u32 *record_size, u32 *nr_records);
u32 ksnap_ring_slot(u64 pos, u32 nr_records);
u32 ksnap_ring_next_slot(u32 slot, u32 nr_records);
enum ksnap_tail ksnap_ring_check_tail(u64 head, u64 tail, u32 nr_records);
u64 ksnap_ring_used(u64 head, u64 tail, u32 nr_records, bool *bad_tail);
bool ksnap_ring_yet_to_read(u64 head, u64 tail, u64 start, u32 nr_records,
			    u64 pos);
u64 ksnap_ring_used_since(u64 head, u64 tail, u64 start, u32 nr_records,
			  bool *bad_tail);
u32 ksnap_ring_wake_mark(u32 nr_records, u64 period_ns, u64 wake_ns);

void *ksnap_ring_alloc(const struct ksnap_layout *l);
void ksnap_ring_free(void *ring);

#endif /* KSNAP_KMOD_RING_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_ring: ring layout and position arithmetic.  The code
 * under test is compiled into this module from kmod/ring.c, so the test
 * module shares no object with ksnap.ko.
 */
#include <kunit/test.h>
#include <linux/log2.h>

#include "../../kmod/ring.c"

static void ksnap_ring_layout_4k(struct kunit *test)
{
	struct ksnap_layout l;

	KUNIT_ASSERT_EQ(test, ksnap_layout_init(&l, 4096, 1024), 0);
	KUNIT_EXPECT_EQ_MSG(test, l.max_columns, KSNAP_MAX_COLUMNS,
			    "columns in a set");
	/* struct ksnap_ctrl alone: the columns are read by ioctl. */
	KUNIT_EXPECT_EQ_MSG(test, l.ctrl_pages, 1U, "control pages");
	KUNIT_EXPECT_EQ_MSG(test, l.consumer_pgoff, 1U, "consumer page");
	KUNIT_EXPECT_EQ_MSG(test, l.data_pgoff, 2U, "data after consumer");
	KUNIT_EXPECT_EQ_MSG(test, l.data_pages, 256U, "1024 KiB of records");
	KUNIT_EXPECT_EQ_MSG(test, l.total_pages, 258U, "whole device");
}

static void ksnap_ring_layout_64k(struct kunit *test)
{
	struct ksnap_layout l;

	KUNIT_ASSERT_EQ(test, ksnap_layout_init(&l, 65536, 1024), 0);
	KUNIT_EXPECT_EQ_MSG(test, l.ctrl_pages, 1U, "control pages");
	KUNIT_EXPECT_EQ_MSG(test, l.consumer_pgoff, 1U, "consumer page");
	KUNIT_EXPECT_EQ_MSG(test, l.data_pgoff, 2U, "data after consumer");
	KUNIT_EXPECT_EQ_MSG(test, l.data_pages, 16U, "1024 KiB of records");
	KUNIT_EXPECT_EQ_MSG(test, l.total_pages, 18U, "whole device");
}

static void ksnap_ring_layout_rounds_up(struct kunit *test)
{
	struct ksnap_layout l;

	KUNIT_ASSERT_EQ(test, ksnap_layout_init(&l, 4096, 65), 0);
	KUNIT_EXPECT_EQ_MSG(test, l.data_pages, 17U,
			    "65 KiB rounds up to 17 pages of 4 KiB");
}

struct ksnap_layout_case {
	const char *name;
	u32 page_size;
	u32 ring_kb;
	int ret;
};

static const struct ksnap_layout_case ksnap_layout_cases[] = {
	{ "ring_kb minimum", 4096, KSNAP_RING_KB_MIN, 0 },
	{ "ring_kb maximum", 4096, KSNAP_RING_KB_MAX, 0 },
	{ "ring_kb zero", 4096, 0, -EINVAL },
	{ "ring_kb below minimum", 4096, KSNAP_RING_KB_MIN - 1, -EINVAL },
	{ "ring_kb above maximum", 4096, KSNAP_RING_KB_MAX + 1, -EINVAL },
	{ "ring_kb huge", 4096, U32_MAX, -EINVAL },
	{ "page size not a power of two", 12288, 1024, -EINVAL },
	{ "page size too small", 2048, 1024, -EINVAL },
	{ "16 KiB pages", 16384, 1024, 0 },
};

static void ksnap_layout_case_desc(const struct ksnap_layout_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_layout, ksnap_layout_cases, ksnap_layout_case_desc);

static void ksnap_ring_layout_range(struct kunit *test)
{
	const struct ksnap_layout_case *c = test->param_value;
	struct ksnap_layout l;

	KUNIT_EXPECT_EQ_MSG(test, ksnap_layout_init(&l, c->page_size,
						    c->ring_kb), c->ret,
			    "page_size %u ring_kb %u", c->page_size,
			    c->ring_kb);
}

/*
 * Every column count: the record size, and every record that fits; a
 * ring that holds fewer than 2 records of a set is refused.
 */
static void ksnap_ring_records_all_columns(struct kunit *test)
{
	static const u32 kbs[] = { KSNAP_RING_KB_MIN, 1024, 4093 };
	struct ksnap_layout l;
	unsigned int k;
	u32 n, size, nr;
	u64 bytes;

	for (k = 0; k < ARRAY_SIZE(kbs); k++) {
		KUNIT_ASSERT_EQ(test, ksnap_layout_init(&l, 4096, kbs[k]), 0);
		bytes = (u64)l.data_pages * l.page_size;
		for (n = 1; n <= KSNAP_MAX_COLUMNS; n++) {
			if (bytes / (40 + 8 * n) < 2) {
				KUNIT_EXPECT_EQ_MSG(test,
						    ksnap_layout_records(&l, n,
									 &size,
									 &nr),
						    -EINVAL,
						    "ring_kb %u, %u columns: fewer than 2 records",
						    kbs[k], n);
				continue;
			}
			KUNIT_ASSERT_EQ_MSG(test,
					    ksnap_layout_records(&l, n, &size,
								 &nr), 0,
					    "ring_kb %u, %u columns",
					    kbs[k], n);
			KUNIT_EXPECT_EQ_MSG(test, size, 40 + 8 * n,
					    "record size for %u columns", n);
			KUNIT_EXPECT_LE_MSG(test, (u64)nr * size, bytes,
					    "%u records of %u bytes overflow %llu bytes",
					    nr, size, bytes);
			KUNIT_EXPECT_GT_MSG(test, (u64)(nr + 1) * size, bytes,
					    "%u records of %u bytes: one more fits in %llu",
					    nr, size, bytes);
		}
	}
}

static void ksnap_ring_records_examples(struct kunit *test)
{
	struct ksnap_layout l;
	u32 size, nr;

	KUNIT_ASSERT_EQ(test, ksnap_layout_init(&l, 4096, 1024), 0);
	KUNIT_ASSERT_EQ(test, ksnap_layout_records(&l, 1, &size, &nr), 0);
	KUNIT_EXPECT_EQ_MSG(test, nr, 21845U, "1 MiB / 48 bytes");
	KUNIT_ASSERT_EQ(test, ksnap_layout_records(&l, 3, &size, &nr), 0);
	KUNIT_EXPECT_EQ_MSG(test, nr, 16384U, "1 MiB / 64 bytes, exactly");
	KUNIT_ASSERT_EQ(test, ksnap_layout_records(&l, KSNAP_MAX_COLUMNS,
						   &size, &nr), 0);
	KUNIT_EXPECT_EQ_MSG(test, nr, 15U, "1 MiB / 65576 bytes");
	KUNIT_ASSERT_EQ(test, ksnap_layout_init(&l, 4096, KSNAP_RING_KB_MIN),
			0);
	KUNIT_ASSERT_EQ(test, ksnap_layout_records(&l, 256, &size, &nr), 0);
	KUNIT_EXPECT_EQ_MSG(test, nr, 31U, "64 KiB / 2088 bytes");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_layout_records(&l, KSNAP_MAX_COLUMNS,
						       &size, &nr), -EINVAL,
			    "64 KiB: not 2 records of 65576 bytes");
}

static void ksnap_ring_records_rejected(struct kunit *test)
{
	struct ksnap_layout l;
	u32 size = 0, nr = 0;

	KUNIT_ASSERT_EQ(test, ksnap_layout_init(&l, 4096, 1024), 0);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_layout_records(&l, 0, &size, &nr),
			    -EINVAL, "no columns");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_layout_records(&l,
						       KSNAP_MAX_COLUMNS + 1,
						       &size, &nr),
			    -EINVAL, "one column too many");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_layout_records(&l, U32_MAX, &size,
						       &nr),
			    -EINVAL, "U32_MAX columns");
}

static void ksnap_ring_slot_wraps(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(0, 1024), 0U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(1023, 1024), 1023U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(1024, 1024), 0U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(U64_MAX, 1024), 1023U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(U64_MAX + 1, 1024), 0U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(BIT_ULL(63) | 5, 1024), 5U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(U64_MAX, 1U << 31),
			(1U << 31) - 1);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(12345, 1), 0U);
	/* Not a power of two: the remainder, not the low bits. */
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(26213, 26214), 26213U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(26214, 26214), 0U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(26215, 26214), 1U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(3 * 26214 + 7, 26214), 7U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(U64_MAX, 1000), 615U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(U64_MAX, 31), 15U);
	KUNIT_EXPECT_EQ(test, ksnap_ring_slot(U64_MAX, (1U << 31) - 1), 3U);
}

/*
 * The timer's slot, stepped beside head from the start's ksnap_ring_slot(),
 * is the slot of every later position: through wraps of a ring whose size
 * is not a power of two, from positions near 0, 2^32 and 2^64 (positions
 * never wrap: the last run ends below it).
 */
static void ksnap_ring_next_slot_wraps(struct kunit *test)
{
	static const u32 sizes[] = { 1, 2, 3, 31, 1000, 26214 };
	static const u64 starts[] = { 0, 5, BIT_ULL(32) - 3,
				      U64_MAX - 100000 };
	unsigned int i, j;
	u64 pos, end;
	u32 slot;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (j = 0; j < ARRAY_SIZE(starts); j++) {
			slot = ksnap_ring_slot(starts[j], sizes[i]);
			end = starts[j] + 3 * (u64)sizes[i] + 11;
			for (pos = starts[j]; pos != end; pos++) {
				if (slot != ksnap_ring_slot(pos, sizes[i])) {
					KUNIT_FAIL(test,
						   "ring of %u from %llu: slot %u at %llu, not %u",
						   sizes[i], starts[j], slot,
						   pos,
						   ksnap_ring_slot(pos, sizes[i]));
					return;
				}
				KUNIT_ASSERT_LT(test, slot, sizes[i]);
				slot = ksnap_ring_next_slot(slot, sizes[i]);
			}
		}
	}
}

struct ksnap_tail_case {
	const char *name;
	u64 head;
	u64 tail;
	u32 nr;
	enum ksnap_tail state;
	u64 used;
};

static const struct ksnap_tail_case ksnap_tail_cases[] = {
	{ "empty", 0, 0, 8, KSNAP_TAIL_OK, 0 },
	{ "some unread", 5, 2, 8, KSNAP_TAIL_OK, 3 },
	{ "exactly full", 8, 0, 8, KSNAP_TAIL_OK, 8 },
	{ "behind by one", 9, 0, 8, KSNAP_TAIL_BEHIND, 8 },
	{ "far behind", 1000, 50, 8, KSNAP_TAIL_BEHIND, 8 },
	{ "ahead by one", 5, 6, 8, KSNAP_TAIL_AHEAD, 8 },
	{ "far ahead", 5, 1ULL << 40, 8, KSNAP_TAIL_AHEAD, 8 },
	{ "all ones, head 0", 0, U64_MAX, 8, KSNAP_TAIL_AHEAD, 8 },
	{ "all ones, head 3", 3, U64_MAX, 8, KSNAP_TAIL_AHEAD, 8 },
	{ "before 0, within a ring modulo 2^64", 2, U64_MAX - 1, 8,
	  KSNAP_TAIL_AHEAD, 8 },
	{ "empty at 2^64 - 1", U64_MAX, U64_MAX, 8, KSNAP_TAIL_OK, 0 },
	{ "full at 2^64 - 1", U64_MAX, U64_MAX - 8, 8, KSNAP_TAIL_OK, 8 },
	{ "tail 0, head at 2^64 - 1", U64_MAX, 0, 8, KSNAP_TAIL_BEHIND, 8 },
	{ "half the number space", 1ULL << 63, 0, 8, KSNAP_TAIL_BEHIND, 8 },
};

static void ksnap_tail_case_desc(const struct ksnap_tail_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_tail, ksnap_tail_cases, ksnap_tail_case_desc);

static void ksnap_ring_tail(struct kunit *test)
{
	const struct ksnap_tail_case *c = test->param_value;
	bool bad = false, bad2 = false;
	u64 used;

	KUNIT_EXPECT_EQ_MSG(test,
			    ksnap_ring_check_tail(c->head, c->tail, c->nr),
			    c->state, "head %llu tail %llu nr %u", c->head,
			    c->tail, c->nr);
	used = ksnap_ring_used(c->head, c->tail, c->nr, &bad);
	KUNIT_EXPECT_EQ_MSG(test, used, c->used, "used slots");
	KUNIT_EXPECT_EQ_MSG(test, bad, c->state != KSNAP_TAIL_OK,
			    "bad_tail flag");
	/* A collection that began at 0 is every position: the same answer. */
	used = ksnap_ring_used_since(c->head, c->tail, 0, c->nr, &bad2);
	KUNIT_EXPECT_EQ_MSG(test, used, c->used, "used slots since 0");
	KUNIT_EXPECT_EQ_MSG(test, bad2, bad, "bad_tail flag since 0");
}

struct ksnap_since_case {
	const char *name;
	u64 head;
	u64 tail;
	u64 start;
	bool bad;
	u64 used;
};

static const struct ksnap_since_case ksnap_since_cases[] = {
	{ "tail at the new start", 100, 100, 100, false, 0 },
	{ "tail still in the last collection", 103, 90, 100, false, 3 },
	{ "tail far before the start", 105, 3, 100, false, 5 },
	{ "tail in this collection", 110, 104, 100, false, 6 },
	{ "ring full since the start", 108, 0, 100, false, 8 },
	{ "too far behind within the collection", 120, 101, 100, true, 8 },
	{ "above head", 105, 106, 100, true, 8 },
	{ "all ones", 105, U64_MAX, 100, true, 8 },
};

static void ksnap_since_case_desc(const struct ksnap_since_case *c,
				  char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_since, ksnap_since_cases, ksnap_since_case_desc);

/* A tail below the collection's start is the start (ksnap_abi.h). */
static void ksnap_ring_tail_since_start(struct kunit *test)
{
	const struct ksnap_since_case *c = test->param_value;
	bool bad = !c->bad;
	u64 used;

	used = ksnap_ring_used_since(c->head, c->tail, c->start, 8, &bad);
	KUNIT_EXPECT_EQ_MSG(test, used, c->used,
			    "unread: head %llu tail %llu start %llu",
			    c->head, c->tail, c->start);
	KUNIT_EXPECT_EQ_MSG(test, bad, c->bad, "bad_tail flag");
}

/*
 * Will the reader read position pos, having lost nothing?  A ring of 8,
 * the collection started at 100.
 */
static void ksnap_ring_yet_to_read_while_nothing_lost(struct kunit *test)
{
	/* Behind pos, nothing lost: yes. */
	KUNIT_EXPECT_TRUE(test, ksnap_ring_yet_to_read(106, 102, 100, 8, 104));
	/* At pos: it has not read it yet. */
	KUNIT_EXPECT_TRUE(test, ksnap_ring_yet_to_read(106, 104, 100, 8, 104));
	/* Past pos: it has. */
	KUNIT_EXPECT_FALSE(test, ksnap_ring_yet_to_read(106, 105, 100, 8, 104));
	/* No record at pos yet (the set never had one). */
	KUNIT_EXPECT_FALSE(test, ksnap_ring_yet_to_read(104, 102, 100, 8, 104));
	/* A tail of an earlier collection counts as the start. */
	KUNIT_EXPECT_TRUE(test, ksnap_ring_yet_to_read(103, 7, 100, 8, 101));
	KUNIT_EXPECT_FALSE(test, ksnap_ring_yet_to_read(103, 7, 100, 8, 99));
	/* One slot free: nothing lost yet. */
	KUNIT_EXPECT_TRUE(test, ksnap_ring_yet_to_read(109, 102, 100, 8, 104));
	/* Full: the next snapshot is lost whatever happens. */
	KUNIT_EXPECT_FALSE(test, ksnap_ring_yet_to_read(110, 102, 100, 8, 104));
	/* Lapped, or garbage (overwrite mode; a tail ahead of head). */
	KUNIT_EXPECT_FALSE(test, ksnap_ring_yet_to_read(120, 101, 100, 8, 104));
	KUNIT_EXPECT_FALSE(test, ksnap_ring_yet_to_read(106, 200, 100, 8, 104));
}

static void ksnap_ring_wake_marks(struct kunit *test)
{
	const u64 ms100 = 100 * NSEC_PER_MSEC;

	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(1024, 1000000, ms100),
			    100U, "1 ms period: 100 ms of records");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(1024, 10000, ms100),
			    256U, "10 us period: a quarter ring");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(4, 1000000000, ms100),
			    1U, "1 s period: every record");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(2, 1000, ms100), 1U,
			    "tiny ring: at least one");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(1024, 0, ms100), 1U,
			    "no period: at least one");
}

/* wake_ms= sets the time part of the mark; the quarter ring still caps it. */
static void ksnap_ring_wake_marks_by_wake_ms(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(1 << 20, 1000,
						       NSEC_PER_MSEC),
			    1000U, "1 ms at 1 MHz: 1000 records");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(1 << 20, 100000,
						       10 * NSEC_PER_SEC),
			    100000U, "10 s at 10 kHz: 100000 records");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(4096, 100000,
						       10 * NSEC_PER_SEC),
			    1024U, "10 s at 10 kHz, small ring: a quarter");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(4096, 10 * NSEC_PER_MSEC,
						       NSEC_PER_MSEC),
			    1U, "1 ms at 100 Hz: every record");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ring_wake_mark(4096, 1000000, 0), 1U,
			    "no time: every record");
}

static struct kunit_case ksnap_ring_cases[] = {
	KUNIT_CASE(ksnap_ring_layout_4k),
	KUNIT_CASE(ksnap_ring_layout_64k),
	KUNIT_CASE(ksnap_ring_layout_rounds_up),
	KUNIT_CASE_PARAM(ksnap_ring_layout_range, ksnap_layout_gen_params),
	KUNIT_CASE(ksnap_ring_records_all_columns),
	KUNIT_CASE(ksnap_ring_records_examples),
	KUNIT_CASE(ksnap_ring_records_rejected),
	KUNIT_CASE(ksnap_ring_slot_wraps),
	KUNIT_CASE(ksnap_ring_next_slot_wraps),
	KUNIT_CASE_PARAM(ksnap_ring_tail, ksnap_tail_gen_params),
	KUNIT_CASE_PARAM(ksnap_ring_tail_since_start, ksnap_since_gen_params),
	KUNIT_CASE(ksnap_ring_yet_to_read_while_nothing_lost),
	KUNIT_CASE(ksnap_ring_wake_marks),
	KUNIT_CASE(ksnap_ring_wake_marks_by_wake_ms),
	{}
};

static struct kunit_suite ksnap_ring_suite = {
	.name = "ksnap_ring",
	.test_cases = ksnap_ring_cases,
};

kunit_test_suite(ksnap_ring_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for ksnap");

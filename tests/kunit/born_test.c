// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_born: the table of when matched cgroups were made
 * (kmod/exits.h): what is added is found once, a slot freed in the
 * middle of a run of collisions hides no later entry, and a full run
 * refuses rather than overwrites.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../../kmod/exits.h"

/* Ids whose first slot is @slot: at most @n, into @ids; how many. */
static unsigned int born_colliding(u64 *ids, unsigned int n, unsigned int slot)
{
	unsigned int found = 0;
	u64 id;

	for (id = 1; found < n && id < 10000000; id++)
		if (ksnap_born_slot(id, 0) == slot)
			ids[found++] = id;
	return found;
}

static struct ksnap_born *born_table(struct kunit *test)
{
	struct ksnap_born *t = kunit_kzalloc(test, KSNAP_BORN_SLOTS * sizeof(*t),
					     GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	return t;
}

/* Each id added is taken back once, with its own time. */
static void ksnap_born_add_then_take_once(struct kunit *test)
{
	struct ksnap_born *t = born_table(test);
	u64 id, ns;

	for (id = 1; id <= 200; id++)
		KUNIT_EXPECT_TRUE_MSG(test, ksnap_born_add(t, id, id * 1000),
				      "adding id %llu", id);
	for (id = 1; id <= 200; id++) {
		ns = 0;
		KUNIT_EXPECT_TRUE_MSG(test, ksnap_born_take(t, id, &ns),
				      "id %llu added, not found", id);
		KUNIT_EXPECT_EQ_MSG(test, ns, id * 1000, "id %llu's time", id);
		KUNIT_EXPECT_FALSE_MSG(test, ksnap_born_take(t, id, &ns),
				       "id %llu found again after it was taken", id);
	}
	KUNIT_EXPECT_FALSE(test, ksnap_born_take(t, 201, &ns));
}

/* Colliding ids: one taken from the middle leaves the later ones found. */
static void ksnap_born_hole_hides_nothing(struct kunit *test)
{
	struct ksnap_born *t = born_table(test);
	u64 ids[4], ns;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, born_colliding(ids, 4, 7), 4U);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_TRUE(test, ksnap_born_add(t, ids[i], i + 1));
	KUNIT_EXPECT_TRUE(test, ksnap_born_take(t, ids[1], &ns));
	for (i = 2; i < 4; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, ksnap_born_take(t, ids[i], &ns),
				      "collision %u lost behind the freed slot", i);
		KUNIT_EXPECT_EQ(test, ns, (u64)i + 1);
	}
}

/* A run of KSNAP_BORN_PROBES taken slots: the next is refused, not kept. */
static void ksnap_born_full_run_refuses(struct kunit *test)
{
	struct ksnap_born *t = born_table(test);
	u64 ids[KSNAP_BORN_PROBES + 1], ns;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, born_colliding(ids, KSNAP_BORN_PROBES + 1, 3),
			KSNAP_BORN_PROBES + 1);
	for (i = 0; i < KSNAP_BORN_PROBES; i++)
		KUNIT_ASSERT_TRUE(test, ksnap_born_add(t, ids[i], i + 1));
	KUNIT_EXPECT_FALSE(test, ksnap_born_add(t, ids[KSNAP_BORN_PROBES], 99));
	for (i = 0; i < KSNAP_BORN_PROBES; i++) {
		KUNIT_EXPECT_TRUE(test, ksnap_born_take(t, ids[i], &ns));
		KUNIT_EXPECT_EQ_MSG(test, ns, (u64)i + 1,
				    "entry %u overwritten by the refused one", i);
	}
}

static struct kunit_case ksnap_born_cases[] = {
	KUNIT_CASE(ksnap_born_add_then_take_once),
	KUNIT_CASE(ksnap_born_hole_hides_nothing),
	KUNIT_CASE(ksnap_born_full_run_refuses),
	{}
};

static struct kunit_suite ksnap_born_suite = {
	.name = "ksnap_born",
	.test_cases = ksnap_born_cases,
};

kunit_test_suite(ksnap_born_suite);

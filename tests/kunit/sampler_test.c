// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_sampler: the sample path on a ring allocated as the
 * module allocates it, driven directly (no timer unless a case starts
 * one), with fake metrics whose values the test knows.  The test plays the
 * reader: it writes the consumer page as ksnapd would.  The code under
 * test is compiled into this module from kmod/sampler.c, ctrl.c, device.c,
 * plan.c, snapshot.c, cpus.c, follow.c, price.c, install.c, gone.c and
 * sets.c; ring, metric and cgroup helpers come from the other suites'
 * objects.
 */
#include <kunit/test.h>
#include <linux/cgroup.h>
#include <linux/fs.h>
#include <linux/irqflags.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../../kmod/sampler.c"
#include "../../kmod/ctrl.c"
#include "../../kmod/device.c"
#include "../../kmod/plan.c"
#include "../../kmod/snapshot.c"
#include "../../kmod/cpus.c"
#include "../../kmod/follow.c"
#include "../../kmod/price.c"
#include "../../kmod/install.c"
#include "../../kmod/gone.c"
#include "../../kmod/exits.c"
#include "../../kmod/sets.c"

/* Fake metrics: item + the number of reads so far, so values move. */
static u64 ksnap_fake_reads;

static u64 ksnap_fake_read(const struct ksnap_metric *m,
			   const struct ksnap_cgroup *cg)
{
	return m->item.other + ksnap_fake_reads++;
}

/* A counter that steps back every other read (as NOHZ idle may). */
static u64 ksnap_fake_read_jitter(const struct ksnap_metric *m,
				  const struct ksnap_cgroup *cg)
{
	return 1000 + (ksnap_fake_reads++ % 2 ? 0 : 10);
}

/* A counter summed over CPUs whose share on each CPU the test sets. */
static u64 ksnap_fake_share[NR_CPUS];

static u64 ksnap_fake_read_cpu(const struct ksnap_metric *m,
			       const struct ksnap_cgroup *cg, int cpu)
{
	return ksnap_fake_share[cpu];
}

static const struct ksnap_metric ksnap_fake_metrics[] = {
	{ .name = "fake.global", .desc = "a test counter", .unit = "count",
	  .item.other = 1000, .read = ksnap_fake_read },
	{ .name = "fake.cgroup", .desc = "a test counter", .unit = "count",
	  .item.other = 5000, .read = ksnap_fake_read, .per_cgroup = true },
	{ .name = "fake.monotonic", .desc = "a test counter", .unit = "ns",
	  .read = ksnap_fake_read_jitter, .monotonic = true },
	{ .name = "fake.summed", .desc = "a test counter", .unit = "count",
	  .read_cpu = ksnap_fake_read_cpu },
};

/* Not a power of two: the timer's slot wraps as a position's remainder. */
#define KSNAP_TEST_RECORDS	7

struct ksnap_fixture {
	struct ksnap ks;
	struct ksnap_config cfg;
	struct ksnap_cgroup cg;
	struct cgroup *cgrp;	/* a fake cgroup the test can kill */
	struct file file;	/* the reader's open file */
};

/*
 * A module-like instance: layout, ring, sampler, control page, and a
 * configuration of @ncols columns: fake.global, fake.cgroup for one fake
 * cgroup, fake.monotonic.
 */
static struct ksnap_fixture *ksnap_fixture(struct kunit *test,
					   unsigned int ncols)
{
	struct ksnap_fixture *f;
	struct ksnap *ks;
	struct ksnap_config *cfg;
	unsigned int i;
	u32 nr;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	f->cgrp = kunit_kzalloc(test, sizeof(*f->cgrp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->cgrp);
	ks = &f->ks;
	cfg = &f->cfg;

	KUNIT_ASSERT_EQ(test, ksnap_layout_init(&ks->layout, PAGE_SIZE,
						KSNAP_RING_KB_MIN), 0);
	ks->ring = ksnap_ring_alloc(&ks->layout);
	KUNIT_ASSERT_NOT_NULL(test, ks->ring);
	ks->ctrl = ks->ring;
	ks->consumer = ks->ring +
		       (size_t)ks->layout.consumer_pgoff * PAGE_SIZE;
	ks->data = ks->ring + (size_t)ks->layout.data_pgoff * PAGE_SIZE;
	mutex_init(&ks->lock);
	ks->period_ns = NSEC_PER_MSEC;
	ks->wake_ms = KSNAP_WAKE_MS_DEFAULT;
	ks->cpu = -1;
	raw_spin_lock_init(&ks->cpus.lock);
	INIT_WORK(&ks->cpus.fold_work, ksnap_cpus_fold_fn);
	ksnap_sampler_init(ks);

	/*
	 * Online, as cgroup_create() makes it, and without a reference
	 * count, as the root: the module's gets and puts do nothing on it.
	 */
	f->cgrp->self.flags = CSS_ONLINE | CSS_NO_REF;
	f->cg.cgrp = f->cgrp;
	strscpy(f->cg.path, "/fake", sizeof(f->cg.path));
	cfg->cgroups = &f->cg;
	cfg->nr_cgroups = 1;
	for (i = 0; i < ncols; i++) {
		cfg->col[i].metric = &ksnap_fake_metrics[i];
		cfg->col[i].cpu = KSNAP_CPU_SUM;
		if (ksnap_fake_metrics[i].per_cgroup)
			cfg->col[i].cg = &f->cg;
	}
	cfg->nr_columns = ncols;
	KUNIT_ASSERT_EQ(test, ksnap_layout_records(&ks->layout, ncols,
						   &cfg->record_size, &nr), 0);
	KUNIT_ASSERT_GE(test, nr, (u32)KSNAP_TEST_RECORDS);
	cfg->nr_records = KSNAP_TEST_RECORDS;
	ksnap_plan_build(cfg);
	ks->cfg = cfg;
	ksnap_ctrl_init(ks);
	mutex_lock(&ks->lock);
	ksnap_ctrl_publish_config(ks);
	mutex_unlock(&ks->lock);
	f->file.private_data = &ks->misc;
	f->file.f_mode = FMODE_READ | FMODE_WRITE;	/* a reader's open */
	ksnap_fake_reads = 0;
	return f;
}

static void ksnap_fixture_free(struct ksnap_fixture *f)
{
	ksnap_sampler_uninit(&f->ks);
	ksnap_cgroup_put(&f->cg);
	cancel_work_sync(&f->ks.cpus.fold_work);
	ksnap_ring_free(f->ks.ring);
}

/* A collection as ksnap_sampler_start() begins it, without the timer. */
static void ksnap_begin(struct ksnap_fixture *f)
{
	ksnap_run_reset(&f->ks);
	cpus_read_lock();
	ksnap_cpus_start(&f->ks, -1);
	cpus_read_unlock();
	ksnap_ctrl_publish_start(&f->ks, 0, 0);
}

static void ksnap_end(struct ksnap_fixture *f)
{
	ksnap_cpus_stop(&f->ks);
	ksnap_ctrl_publish_stop(&f->ks, KSNAP_STOP_NONE);
}

/* @n snapshots, each as the timer takes it; queued wake-ups run between. */
static void ksnap_take(struct ksnap_fixture *f, unsigned int n, u32 flags)
{
	while (n--) {
		local_irq_disable();
		ksnap_sample(&f->ks, 0, flags);
		local_irq_enable();
		irq_work_sync(&f->ks.wake_work);
	}
}

static const struct ksnap_record *ksnap_rec(struct ksnap_fixture *f, u64 pos)
{
	return (const void *)(f->ks.data +
		(size_t)ksnap_ring_slot(pos, f->cfg.nr_records) *
		f->cfg.record_size);
}

/* A fake cgroup removed (rmdir): its own css is offline from now on. */
static void ksnap_kill_cgroup(struct ksnap_fixture *f)
{
	f->cgrp->self.flags &= ~CSS_ONLINE;
}

static void ksnap_sampler_records_carry_positions(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	const struct ksnap_record *r;
	u64 t = 0;
	unsigned int i;

	ksnap_begin(f);
	ksnap_take(f, 5, 0);
	KUNIT_EXPECT_EQ_MSG(test, f->ks.ctrl->head, 5ULL, "head after 5");
	for (i = 0; i < 5; i++) {
		r = ksnap_rec(f, i);
		KUNIT_EXPECT_EQ_MSG(test, r->seq, (u64)i, "seq of record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r->values[0], 1000ULL + i,
				    "value of record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r->flags, 0U, "flags of record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r->set_id, f->ks.ctrl->set_id,
				    "the collection's column set (record %u)",
				    i);
		KUNIT_EXPECT_EQ_MSG(test, r->values_offset,
				    (u32)offsetof(struct ksnap_record, values),
				    "values right after the header (record %u)",
				    i);
		KUNIT_EXPECT_GE_MSG(test, r->time_ns, t,
				    "times never go back (record %u)", i);
		t = r->time_ns;
	}
	ksnap_take(f, 1, KSNAP_REC_LAST);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_rec(f, 5)->flags, KSNAP_REC_LAST,
			    "the stop's snapshot is flagged LAST");
	ksnap_end(f);

	/* Positions go on: the next collection starts where head is. */
	ksnap_begin(f);
	KUNIT_EXPECT_EQ(test, f->ks.ctrl->start_position, 6ULL);
	KUNIT_EXPECT_EQ(test, f->ks.ctrl->generation, 2U);
	f->ks.consumer->tail = 6;	/* the reader read everything */
	ksnap_take(f, 1, 0);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_rec(f, 6)->seq, 6ULL,
			    "a record's seq is its position, not its number");
	KUNIT_EXPECT_EQ(test, f->ks.ctrl->stats.taken, 1ULL);
	ksnap_fixture_free(f);
}

/*
 * KSNAP_IOC_COLUMN's answer: a column of the current set by index, with
 * its cgroup's path; ENOENT past the set, ESTALE for another set, and a
 * reconfiguration publishes a new set.
 */
static void ksnap_sampler_column_info(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 2);
	struct ksnap_column_info *col;
	struct ksnap *ks = &f->ks;
	u32 set = ks->ctrl->set_id;

	col = kunit_kzalloc(test, sizeof(*col), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, col);
	KUNIT_EXPECT_NE_MSG(test, set, 0U, "a set is never 0");
	mutex_lock(&ks->lock);
	col->set_id = set;
	col->index = 1;
	KUNIT_EXPECT_EQ(test, ksnap_ctrl_column(ks, col), 0);
	KUNIT_EXPECT_EQ(test, col->nr_columns, 2U);
	KUNIT_EXPECT_STREQ(test, col->metric, "fake.cgroup");
	KUNIT_EXPECT_STREQ(test, col->field, "cgroup");
	KUNIT_EXPECT_STREQ(test, col->value, "/fake");
	KUNIT_EXPECT_STREQ(test, col->description, "a test counter");
	col->index = 0;
	KUNIT_EXPECT_EQ(test, ksnap_ctrl_column(ks, col), 0);
	KUNIT_EXPECT_STREQ(test, col->metric, "fake.global");
	KUNIT_EXPECT_STREQ(test, col->field, "");
	col->index = 2;
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ctrl_column(ks, col), -ENOENT,
			    "past the set's last column");
	col->set_id = set + 1;
	col->index = 0;
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ctrl_column(ks, col), -ESTALE,
			    "not the current set");
	ksnap_ctrl_publish_config(ks);
	KUNIT_EXPECT_EQ_MSG(test, ks->ctrl->set_id, set + 1,
			    "a configuration published is a new set");
	KUNIT_EXPECT_EQ(test, ksnap_ctrl_column(ks, col), 0);
	col->set_id = set;
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ctrl_column(ks, col), -ESTALE,
			    "the set before");
	mutex_unlock(&ks->lock);
	ksnap_fixture_free(f);
}

static void ksnap_sampler_drop_counts_lost(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	const struct ksnap_stats *st = &f->ks.ctrl->stats;

	ksnap_begin(f);
	ksnap_take(f, KSNAP_TEST_RECORDS + 3, 0);
	KUNIT_EXPECT_EQ_MSG(test, f->ks.ctrl->head, (u64)KSNAP_TEST_RECORDS,
			    "a full ring keeps its unread records");
	KUNIT_EXPECT_EQ(test, st->taken, KSNAP_TEST_RECORDS + 3ULL);
	KUNIT_EXPECT_EQ(test, st->lost, 3ULL);
	KUNIT_EXPECT_EQ(test, st->bad_tail, 0ULL);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_rec(f, 0)->seq, 0ULL,
			    "the oldest record is not overwritten");

	/* The reader frees two slots: two more are written. */
	f->ks.consumer->tail = 2;
	ksnap_take(f, 3, 0);
	KUNIT_EXPECT_EQ(test, f->ks.ctrl->head, KSNAP_TEST_RECORDS + 2ULL);
	KUNIT_EXPECT_EQ(test, st->lost, 4ULL);
	KUNIT_EXPECT_EQ_MSG(test, st->taken, st->lost + f->ks.ctrl->head,
			    "taken = written + lost");
	ksnap_fixture_free(f);
}

static void ksnap_sampler_overwrite_keeps_newest(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	const struct ksnap_stats *st = &f->ks.ctrl->stats;

	f->ks.overwrite = true;
	f->ks.consumer->tail = ~0ULL;	/* never read in this mode */
	ksnap_begin(f);
	KUNIT_EXPECT_EQ(test, f->ks.ctrl->flags, KSNAP_CTRL_OVERWRITE);
	ksnap_take(f, KSNAP_TEST_RECORDS + 3, 0);
	KUNIT_EXPECT_EQ(test, f->ks.ctrl->head, KSNAP_TEST_RECORDS + 3ULL);
	KUNIT_EXPECT_EQ(test, st->lost, 0ULL);
	KUNIT_EXPECT_EQ_MSG(test, st->bad_tail, 0ULL,
			    "the tail is not looked at");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_rec(f, 0)->seq,
			    (u64)KSNAP_TEST_RECORDS,
			    "slot 0 holds the newest record of its slot");
	KUNIT_EXPECT_EQ(test, ksnap_rec(f, 2)->seq, KSNAP_TEST_RECORDS + 2ULL);
	KUNIT_EXPECT_EQ(test, ksnap_rec(f, 3)->seq, 3ULL);
	ksnap_fixture_free(f);
}

struct ksnap_bad_tail_case {
	const char *name;
	s64 from_head;	/* the tail, relative to head */
};

static const struct ksnap_bad_tail_case ksnap_bad_tail_cases[] = {
	{ "ahead of head", 1 },
	{ "far ahead", 1LL << 40 },
	{ "more than a ring behind", -(KSNAP_TEST_RECORDS + 1) },
};

static void ksnap_bad_tail_desc(const struct ksnap_bad_tail_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_bad_tail, ksnap_bad_tail_cases, ksnap_bad_tail_desc);

static void ksnap_sampler_bad_tail_is_full(struct kunit *test)
{
	const struct ksnap_bad_tail_case *c = test->param_value;
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	const struct ksnap_stats *st = &f->ks.ctrl->stats;
	u64 head;

	ksnap_begin(f);
	f->ks.consumer->tail = 0;
	ksnap_take(f, KSNAP_TEST_RECORDS, 0);
	f->ks.consumer->tail = KSNAP_TEST_RECORDS;
	ksnap_take(f, 2 * KSNAP_TEST_RECORDS, 0);
	head = f->ks.ctrl->head;
	f->ks.consumer->tail = head + c->from_head;
	ksnap_take(f, 2, 0);
	KUNIT_EXPECT_EQ_MSG(test, f->ks.ctrl->head, head,
			    "nothing written past an invalid tail");
	KUNIT_EXPECT_EQ(test, st->bad_tail, 2ULL);
	KUNIT_EXPECT_EQ(test, st->lost, KSNAP_TEST_RECORDS + 2ULL);
	ksnap_fixture_free(f);
}

static void ksnap_sampler_wakes_at_the_mark(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	const struct ksnap_stats *st = &f->ks.ctrl->stats;

	ksnap_begin(f);
	f->ks.run.wake_mark = 3;
	ksnap_take(f, 2, 0);
	KUNIT_EXPECT_EQ_MSG(test, st->wakeups, 0ULL, "below the mark");
	ksnap_take(f, 1, 0);
	KUNIT_EXPECT_EQ_MSG(test, st->wakeups, 1ULL, "at the mark");
	ksnap_take(f, 2, 0);
	KUNIT_EXPECT_EQ_MSG(test, st->wakeups, 1ULL,
			    "once per crossing, not per record");
	f->ks.consumer->tail = f->ks.ctrl->head;	/* all read */
	ksnap_take(f, 3, 0);
	KUNIT_EXPECT_EQ_MSG(test, st->wakeups, 2ULL,
			    "the next crossing after a read");
	ksnap_end(f);

	f->ks.overwrite = true;
	ksnap_begin(f);
	f->ks.run.wake_mark = 2;
	ksnap_take(f, 7, 0);
	KUNIT_EXPECT_EQ_MSG(test, st->wakeups, 3ULL,
			    "overwrite: every wake_mark records");
	ksnap_fixture_free(f);
}

static void ksnap_sampler_monotonic_never_steps_back(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 3);
	unsigned int i;

	ksnap_begin(f);
	ksnap_take(f, 4, 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, ksnap_rec(f, i)->values[2], 1010ULL,
				    "record %u keeps the highest value read", i);
	ksnap_fixture_free(f);
}

static void ksnap_sampler_gone_cgroup_freezes(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 2);
	u64 frozen;

	ksnap_begin(f);
	ksnap_take(f, 2, 0);
	KUNIT_EXPECT_EQ(test, ksnap_rec(f, 1)->flags, 0U);
	frozen = ksnap_rec(f, 1)->values[1];
	ksnap_kill_cgroup(f);
	ksnap_take(f, 3, 0);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_rec(f, 2)->flags, KSNAP_REC_STALE,
			    "the first record after the removal is stale");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_rec(f, 4)->values[1], frozen,
			    "the cgroup's column keeps its last value");
	KUNIT_EXPECT_GT_MSG(test, ksnap_rec(f, 4)->values[0],
			    ksnap_rec(f, 1)->values[0],
			    "a global column goes on");
	flush_work(&f->ks.gone_work);
	KUNIT_EXPECT_TRUE_MSG(test, test_bit(0, f->ks.gone_logged),
			      "the removal was logged");
	KUNIT_EXPECT_PTR_EQ_MSG(test, f->cfg.cgroups, &f->cg,
				"the configuration is not written");
	ksnap_end(f);

	/* Removed before the next start: stale from the first record. */
	ksnap_begin(f);
	KUNIT_EXPECT_TRUE(test, test_bit(0, f->ks.run.gone));
	KUNIT_EXPECT_TRUE_MSG(test, test_bit(0, f->ks.gone_logged),
			      "logged once while held, not per collection");
	mutex_lock(&f->ks.lock);
	ksnap_gone_reset(&f->ks);
	mutex_unlock(&f->ks.lock);
	KUNIT_EXPECT_FALSE_MSG(test, test_bit(0, f->ks.gone_logged),
			       "news again once the cgroups are resolved again");
	f->ks.consumer->tail = f->ks.ctrl->start_position;
	ksnap_take(f, 1, 0);
	KUNIT_EXPECT_EQ(test, ksnap_rec(f, f->ks.ctrl->start_position)->flags,
			KSNAP_REC_STALE);
	ksnap_fixture_free(f);
}

/* What ksnap_sampler_stop() and _start() do while stopped. */
static void ksnap_release_gone(struct ksnap_fixture *f)
{
	mutex_lock(&f->ks.lock);
	ksnap_sampler_release_gone(&f->ks);
	mutex_unlock(&f->ks.lock);
}

/*
 * A removed cgroup's references go at the stop, not at the next cgroups
 * write: the next collection reads nothing of it, its column is frozen at
 * the value kept at the release (0 for a test's metric), and its records
 * are stale.  A live cgroup stays held.
 */
static void ksnap_sampler_gone_cgroup_released(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 2);
	const struct ksnap_record *r;
	unsigned int i;
	u64 reads;

	ksnap_begin(f);
	ksnap_take(f, 2, 0);
	ksnap_end(f);
	ksnap_release_gone(f);
	KUNIT_EXPECT_PTR_EQ_MSG(test, f->cg.cgrp, f->cgrp,
				"a live cgroup stays held");
	KUNIT_EXPECT_FALSE(test, ksnap_cgroup_released(&f->cg));

	ksnap_begin(f);
	f->ks.consumer->tail = f->ks.ctrl->start_position;
	ksnap_take(f, 1, 0);
	ksnap_kill_cgroup(f);
	ksnap_take(f, 2, 0);
	ksnap_end(f);
	ksnap_release_gone(f);
	KUNIT_EXPECT_NULL_MSG(test, f->cg.cgrp,
			      "the stop dropped the removed cgroup's reference");
	KUNIT_EXPECT_TRUE(test, ksnap_cgroup_released(&f->cg));
	KUNIT_EXPECT_STREQ(test, f->cg.path, "/fake");
	KUNIT_EXPECT_PTR_EQ(test, f->cfg.cgroups, &f->cg);

	ksnap_begin(f);
	KUNIT_EXPECT_TRUE_MSG(test, test_bit(0, f->ks.run.gone),
			      "a released cgroup is gone from the start");
	f->ks.consumer->tail = f->ks.ctrl->start_position;
	reads = ksnap_fake_reads;
	ksnap_take(f, 3, 0);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_fake_reads - reads, 3ULL,
			    "only the global column is read, once a record");
	for (i = 0; i < 3; i++) {
		r = ksnap_rec(f, f->ks.ctrl->start_position + i);
		KUNIT_EXPECT_EQ_MSG(test, r->flags, KSNAP_REC_STALE,
				    "record %u is stale", i);
		KUNIT_EXPECT_EQ_MSG(test, r->values[1], 0ULL,
				    "record %u: the column keeps the value kept", i);
	}
	ksnap_end(f);
	ksnap_release_gone(f);
	KUNIT_EXPECT_TRUE(test, ksnap_cgroup_released(&f->cg));
	ksnap_fixture_free(f);
}

struct ksnap_missed_case {
	u64 step, period, missed;
};

static const struct ksnap_missed_case ksnap_missed_cases[] = {
	{ 1000, 1000, 0 },	/* on time */
	{ 1999, 1000, 0 },	/* late, but within the next period */
	{ 2000, 1000, 1 },
	{ 3500, 1000, 2 },
	{ 4000000, 100000, 39 },	/* a 4 ms tick at 100 us */
	{ 0, 1000, 0 },
};

static void ksnap_missed_desc(const struct ksnap_missed_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "step %llu period %llu",
		 c->step, c->period);
}

KUNIT_ARRAY_PARAM(ksnap_missed, ksnap_missed_cases, ksnap_missed_desc);

static void ksnap_sampler_missed_periods(struct kunit *test)
{
	const struct ksnap_missed_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ksnap_periods_missed(c->step, c->period),
			c->missed);
}

/*
 * The race of ABI version 1: a reader loads head, a stop and a start
 * happen, the reader stores tail = that head.  Version 1 reset head and
 * tail to 0 at start, so the stored tail was above head: every snapshot
 * of the new collection was counted lost and bad_tail until the reader
 * noticed.  Now positions go on and the kernel never writes the tail.
 */
static void ksnap_sampler_start_race_loses_nothing(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	const struct ksnap_stats *st = &f->ks.ctrl->stats;
	u64 head;

	ksnap_begin(f);
	ksnap_take(f, 5, 0);
	/* The reader's [C], as skip_finished() did it. */
	head = smp_load_acquire(&f->ks.ctrl->head);
	ksnap_end(f);
	ksnap_begin(f);					/* the start */
	/* The reader's [D], with the head it loaded before the start. */
	smp_store_release(&f->ks.consumer->tail, head);
	ksnap_take(f, 3, 0);
	KUNIT_EXPECT_EQ(test, st->taken, 3ULL);
	KUNIT_EXPECT_EQ_MSG(test, st->lost, 0ULL,
			    "no snapshot counted lost after the race");
	KUNIT_EXPECT_EQ(test, st->bad_tail, 0ULL);
	KUNIT_EXPECT_EQ(test, f->ks.ctrl->head, head + 3);
	ksnap_fixture_free(f);
}

/* A reader that never read the last collection does not block this one. */
static void ksnap_sampler_old_tail_is_free(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	const struct ksnap_stats *st = &f->ks.ctrl->stats;

	ksnap_begin(f);
	ksnap_take(f, KSNAP_TEST_RECORDS + 2, 0);
	KUNIT_EXPECT_EQ(test, st->lost, 2ULL);
	ksnap_end(f);
	ksnap_begin(f);
	ksnap_take(f, 3, 0);
	KUNIT_EXPECT_EQ_MSG(test, st->lost, 0ULL,
			    "a tail below the collection's start is its start");
	KUNIT_EXPECT_EQ(test, f->ks.ctrl->head, KSNAP_TEST_RECORDS + 3ULL);
	ksnap_fixture_free(f);
}

/* The reader's page before anything: a pattern the kernel must ignore. */
static void ksnap_consumer_pattern(struct ksnap_consumer *c)
{
	memset(c, 0xa5, sizeof(*c));
	c->tail = 0;
}

/* KSNAP_IOC_DONE and KSNAP_IOC_SEEN as the ioctl makes them, locked. */
static int ksnap_test_done(struct ksnap *ks, u32 gen)
{
	int ret;

	mutex_lock(&ks->lock);
	ret = ksnap_reader_set_done(ks, gen);
	mutex_unlock(&ks->lock);
	return ret;
}

static int ksnap_test_seen(struct ksnap *ks, u32 gen, u32 state)
{
	int ret;

	mutex_lock(&ks->lock);
	ret = ksnap_reader_set_seen(ks, gen, state);
	mutex_unlock(&ks->lock);
	return ret;
}

/*
 * The whole life of a collection with a reader: open, refused start,
 * seen, done, start, samples, stop, start again.  The kernel reads only
 * the consumer page's tail and never writes the page.
 */
static void ksnap_sampler_reader_session(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	struct ksnap *ks = &f->ks;
	struct ksnap_consumer *cons = ks->consumer;
	struct ksnap_consumer before;
	struct file *query;

	/* The timer, armed by the real start, must not fire meanwhile. */
	ks->period_ns = NSEC_PER_SEC;
	/* Collection 1, with no reader, still running at open. */
	ksnap_consumer_pattern(cons);
	mutex_lock(&ks->lock);
	KUNIT_ASSERT_EQ(test, ksnap_sampler_start(ks), 0);
	mutex_unlock(&ks->lock);
	KUNIT_ASSERT_EQ(test, ksnap_open(NULL, &f->file), 0);
	KUNIT_EXPECT_EQ_MSG(test, ks->ctrl->reader_done_base, 0U,
			    "the running collection is not finished");
	KUNIT_EXPECT_FALSE(test, ksnap_reader_attached(ks));
	KUNIT_EXPECT_EQ_MSG(test, ksnap_poll(&f->file, NULL),
			    EPOLLIN | EPOLLRDNORM,
			    "a reader that has reported nothing is readable");

	mutex_lock(&ks->lock);
	ksnap_sampler_stop(ks);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_sampler_start(ks), -EBUSY,
			    "collection 1 is not written out");
	mutex_unlock(&ks->lock);

	/* The reader reads collection 1 out and reports it seen stopped. */
	cons->tail = ks->ctrl->head;
	KUNIT_EXPECT_EQ(test, ksnap_test_seen(ks, 1, KSNAP_STATE_STOPPED), 0);
	KUNIT_EXPECT_TRUE(test, ksnap_reader_attached(ks));
	KUNIT_EXPECT_EQ_MSG(test, ksnap_poll(&f->file, NULL), 0U,
			    "nothing to act on");
	mutex_lock(&ks->lock);
	KUNIT_EXPECT_EQ(test, ksnap_sampler_start(ks), -EBUSY);
	mutex_unlock(&ks->lock);
	/* Refused reports change nothing. */
	KUNIT_EXPECT_EQ(test, ksnap_test_done(ks, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksnap_test_seen(ks, 2, KSNAP_STATE_RUNNING),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ksnap_test_seen(ks, 1, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks->reader_done, 0U);
	KUNIT_EXPECT_EQ(test, ks->reader_seen,
			(u32)KSNAP_GEN_STATE(1, KSNAP_STATE_STOPPED));
	mutex_lock(&ks->lock);
	KUNIT_EXPECT_EQ(test, ksnap_sampler_start(ks), -EBUSY);
	mutex_unlock(&ks->lock);
	/* The reader's [G]: done with collection 1. */
	KUNIT_EXPECT_EQ(test, ksnap_test_done(ks, 1), 0);
	before = *cons;
	mutex_lock(&ks->lock);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_sampler_start(ks), 0,
			    "collection 1 is done");
	mutex_unlock(&ks->lock);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_test_done(ks, 2), -EINVAL,
			    "collection 2 runs: not finished");
	KUNIT_EXPECT_EQ_MSG(test,
			    ksnap_test_seen(ks, 2, KSNAP_STATE_STOPPED),
			    -EINVAL, "collection 2 is not stopped yet");
	mutex_lock(&ks->lock);
	ksnap_take(f, 2, 0);
	ksnap_sampler_stop(ks);
	mutex_unlock(&ks->lock);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(&before, cons, sizeof(before)), 0,
			    "start, samples and stop write no consumer byte");
	KUNIT_EXPECT_EQ(test, ks->ctrl->stats.lost, 0ULL);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_poll(&f->file, NULL),
			    EPOLLIN | EPOLLRDNORM,
			    "collection 2's records and state are news");
	cons->tail = ks->ctrl->head;
	KUNIT_EXPECT_EQ_MSG(test, ksnap_poll(&f->file, NULL),
			    EPOLLIN | EPOLLRDNORM,
			    "collection 2's state is news");
	KUNIT_EXPECT_EQ(test, ksnap_test_seen(ks, 2, KSNAP_STATE_STOPPED), 0);
	KUNIT_EXPECT_EQ(test, ksnap_poll(&f->file, NULL), 0U);

	/* A second open is refused; a new session after the release. */
	KUNIT_EXPECT_EQ(test, ksnap_open(NULL, &f->file), -EBUSY);
	/* A read-only open is a query handle: no session, not exclusive. */
	query = kunit_kzalloc(test, sizeof(*query), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, query);
	query->private_data = &ks->misc;
	query->f_mode = FMODE_READ;
	before = *cons;
	KUNIT_EXPECT_EQ(test, ksnap_open(NULL, query), 0);
	KUNIT_EXPECT_EQ(test, ksnap_open(NULL, query), 0);
	KUNIT_EXPECT_EQ(test, ksnap_poll(query, NULL), 0U);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_ioctl_done(ks, query, NULL), -EBADF,
			    "a query handle reports nothing");
	KUNIT_EXPECT_EQ(test, ksnap_ioctl_seen(ks, query, NULL), -EBADF);
	KUNIT_EXPECT_EQ(test, ksnap_release(NULL, query), 0);
	KUNIT_EXPECT_TRUE_MSG(test, ks->open,
			      "the reader still holds the device");
	KUNIT_EXPECT_TRUE(test, ksnap_reader_attached(ks));
	KUNIT_EXPECT_EQ(test, memcmp(&before, cons, sizeof(before)), 0);
	ksnap_release(NULL, &f->file);
	KUNIT_EXPECT_FALSE(test, ksnap_reader_attached(ks));
	before = *cons;
	KUNIT_ASSERT_EQ(test, ksnap_open(NULL, &f->file), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&before, cons, sizeof(before)), 0);
	KUNIT_EXPECT_EQ_MSG(test, ks->ctrl->reader_done_base, 2U,
			    "a new reader is not blamed for collection 2");
	KUNIT_EXPECT_FALSE_MSG(test, ksnap_reader_attached(ks),
			       "a new session has seen nothing");
	mutex_lock(&ks->lock);
	KUNIT_EXPECT_EQ(test, ksnap_sampler_start(ks), 0);
	ksnap_sampler_stop(ks);
	mutex_unlock(&ks->lock);
	ksnap_release(NULL, &f->file);
	ksnap_fixture_free(f);
}

/* The fixture's fake.summed column (column 3), in a snapshot now. */
static u64 ksnap_summed_now(struct ksnap_fixture *f)
{
	__u64 v[4];

	local_irq_disable();
	ksnap_snapshot(f->ks.cfg, &f->ks.cpus, NULL, v);
	local_irq_enable();
	return v[3];
}

/*
 * A sum over CPUs stays exact when a CPU goes offline and comes back: its
 * share moves into the base and out again (cpus.c), and only the online
 * CPUs are read.  The test plays the hotplug callbacks on the live set.
 */
static void ksnap_cpus_base_follows_hotplug(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 4);
	struct ksnap_cpus *cpus = &f->ks.cpus;
	unsigned int cpu, down, n = 0;
	u64 sum = 0;

	KUNIT_ASSERT_EQ(test, f->cfg.plan.nr_percpu, 1U);
	for_each_possible_cpu(cpu) {
		ksnap_fake_share[cpu] = 100 * (cpu + 1);
		sum += ksnap_fake_share[cpu];
		n++;
	}
	ksnap_begin(f);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_summed_now(f), sum,
			    "the sum over all %u possible CPUs", n);
	/* The test's own bookkeeping: one CPU read live, the rest in base. */
	down = cpumask_first(&cpus->live);
	for_each_cpu(cpu, &cpus->live)
		if (cpu != down)
			ksnap_cpus_down(&f->ks, cpu);
	ksnap_cpus_down(&f->ks, down);
	KUNIT_EXPECT_TRUE_MSG(test, cpumask_empty(&cpus->live),
			      "every CPU went down");
	KUNIT_EXPECT_EQ_MSG(test, ksnap_summed_now(f), sum,
			    "down: the shares are in the base");
	/* (The fold work may have run already: no check of it in between.) */
	flush_work(&cpus->fold_work);
	KUNIT_EXPECT_TRUE_MSG(test, cpumask_empty(&cpus->unfolded),
			      "VM events are read until the hotplug is over");

	ksnap_cpus_up(&f->ks, down);
	ksnap_fake_share[down] += 7;	/* it runs again */
	KUNIT_EXPECT_EQ_MSG(test, ksnap_summed_now(f), sum + 7,
			    "up: read live again, its new share counted once");
	ksnap_cpus_up(&f->ks, down);	/* a second prepare changes nothing */
	KUNIT_EXPECT_EQ(test, ksnap_summed_now(f), sum + 7);
	ksnap_end(f);
	ksnap_cpus_down(&f->ks, down);	/* stopped: nothing to keep */
	KUNIT_EXPECT_TRUE(test, cpumask_test_cpu(down, &cpus->live));
	ksnap_fixture_free(f);
}

/*
 * The CPU-major pass over real counters (VM events, CPU times, softirqs)
 * gives what reading each column over every possible CPU gives.
 */
static void ksnap_cpus_real_sums_match(struct kunit *test)
{
	static const char *const names[] = {
		"pgfault", "pgalloc_normal", "cpu.system", "cpu.user",
		"softirqs.TIMER", "stat.intr",
	};
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	struct ksnap_config *cfg = &f->cfg;
	__u64 before[ARRAY_SIZE(names)], now[ARRAY_SIZE(names)];
	__u64 after[ARRAY_SIZE(names)];
	unsigned int i;
	int idx;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		idx = ksnap_metric_lookup(names[i]);
		KUNIT_ASSERT_GE_MSG(test, idx, 0, "no metric %s", names[i]);
		cfg->col[i].metric = &ksnap_metrics[idx];
		cfg->col[i].cg = NULL;
		cfg->col[i].cpu = KSNAP_CPU_SUM;
	}
	cfg->nr_columns = ARRAY_SIZE(names);
	ksnap_plan_build(cfg);
	KUNIT_EXPECT_EQ(test, cfg->plan.nr_vm, 2U);
	KUNIT_EXPECT_EQ(test, cfg->plan.nr_cpustat, 2U);
	KUNIT_EXPECT_EQ(test, cfg->plan.nr_percpu, 2U);
	KUNIT_EXPECT_GT(test, cfg->plan.lines_per_cpu, 3U);
	ksnap_begin(f);
	local_irq_disable();
	for (i = 0; i < cfg->nr_columns; i++)
		before[i] = ksnap_metric_read(cfg->col[i].metric, NULL,
					      KSNAP_CPU_SUM);
	ksnap_snapshot(cfg, &f->ks.cpus, NULL, now);
	for (i = 0; i < cfg->nr_columns; i++)
		after[i] = ksnap_metric_read(cfg->col[i].metric, NULL,
					     KSNAP_CPU_SUM);
	local_irq_enable();
	for (i = 0; i < cfg->nr_columns; i++) {
		KUNIT_EXPECT_GE_MSG(test, now[i], before[i],
				    "%s: the sum read before", names[i]);
		KUNIT_EXPECT_LE_MSG(test, now[i], after[i],
				    "%s: the sum read after", names[i]);
	}
	ksnap_fixture_free(f);
}

/*
 * A CPU's own VM-event column keeps what the CPU held while it is
 * offline (mm folds and zeroes its events then), and the records say so:
 * CPU_FOLD until the hotplug operation is over, CPU_OFFLINE while the CPU
 * is away.  The test plays the hotplug callbacks; the CPU stays online.
 */
static void ksnap_cpus_vm_column_holds_offline(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 1);
	struct ksnap_config *cfg = &f->cfg;
	struct ksnap_cpus *cpus = &f->ks.cpus;
	__u64 v[1];
	u32 flags;
	int idx, cpu;

	idx = ksnap_metric_lookup("pgfault");
	KUNIT_ASSERT_GE(test, idx, 0);
	cpu = cpumask_first(cpu_online_mask);
	cfg->col[0].metric = &ksnap_metrics[idx];
	cfg->col[0].cg = NULL;
	cfg->col[0].cpu = cpu;
	ksnap_plan_build(cfg);
	KUNIT_ASSERT_EQ(test, cfg->plan.nr_vm_cpu, 1U);
	ksnap_begin(f);

	local_irq_disable();
	flags = ksnap_snapshot(cfg, cpus, NULL, v);
	local_irq_enable();
	KUNIT_EXPECT_EQ_MSG(test, flags, 0U, "CPU %d online: no flag", cpu);
	KUNIT_EXPECT_GT_MSG(test, v[0], 0ULL, "pgfault[%d] has counted", cpu);

	ksnap_cpus_down(&f->ks, cpu);
	local_irq_disable();
	flags = ksnap_snapshot(cfg, cpus, NULL, v);
	local_irq_enable();
	KUNIT_EXPECT_EQ_MSG(test, v[0], cpus->vm_offset[0],
			    "offline: what the CPU held when it went");
	KUNIT_EXPECT_GT(test, v[0], 0ULL);
	KUNIT_EXPECT_TRUE_MSG(test, flags & KSNAP_REC_CPU_OFFLINE,
			      "flags %#x: CPU_OFFLINE expected", flags);
	flush_work(&cpus->fold_work);
	local_irq_disable();
	flags = ksnap_snapshot(cfg, cpus, NULL, v);
	local_irq_enable();
	KUNIT_EXPECT_EQ_MSG(test, flags, (u32)KSNAP_REC_CPU_OFFLINE,
			    "folded: no CPU_FOLD, still offline");
	KUNIT_EXPECT_EQ(test, v[0], cpus->vm_offset[0]);

	ksnap_cpus_up(&f->ks, cpu);
	local_irq_disable();
	flags = ksnap_snapshot(cfg, cpus, NULL, v);
	local_irq_enable();
	KUNIT_EXPECT_EQ_MSG(test, flags, 0U, "back online: no flag");
	KUNIT_EXPECT_GE_MSG(test, v[0], cpus->vm_offset[0],
			    "back online: what it held, and its count since");
	ksnap_end(f);
	ksnap_fixture_free(f);
}

/*
 * A configuration written after a collection comes as a new, empty and
 * stopped collection: the finished one's records are never read under
 * columns they were not taken with.
 */
static void ksnap_ctrl_reconfig_starts_empty_collection(struct kunit *test)
{
	struct ksnap_fixture *f = ksnap_fixture(test, 3);
	struct ksnap_ctrl *ctrl = f->ks.ctrl;
	u32 gen;

	ksnap_begin(f);
	ksnap_take(f, 5, 0);
	ksnap_end(f);
	gen = ctrl->generation;
	KUNIT_ASSERT_EQ(test, ctrl->stats.taken, 5ULL);
	KUNIT_ASSERT_EQ(test, ctrl->head - ctrl->start_position, 5ULL);

	mutex_lock(&f->ks.lock);
	ksnap_ctrl_publish_config(&f->ks);
	mutex_unlock(&f->ks.lock);
	KUNIT_EXPECT_EQ_MSG(test, ctrl->generation, gen + 1,
			    "a new collection for the new columns");
	KUNIT_EXPECT_EQ(test, ctrl->state, (u32)KSNAP_STATE_STOPPED);
	KUNIT_EXPECT_EQ_MSG(test, ctrl->start_position, ctrl->head,
			    "it has no record");
	KUNIT_EXPECT_EQ(test, ctrl->stats.taken, 0ULL);
	KUNIT_EXPECT_EQ(test, ctrl->seq % 2, 0U);
	ksnap_fixture_free(f);
}

/*
 * A set change (install.c): the new set's cgroups and columns are found in
 * the old one by cgroup and by metric, field and CPU; what is new has no
 * old index.
 */
static void ksnap_follow_maps_columns(struct kunit *test)
{
	static const struct ksnap_metric g = { .name = "g" };
	static const struct ksnap_metric p = { .name = "p", .per_cgroup = true };
	struct ksnap_config *old = kvzalloc(sizeof(*old), GFP_KERNEL);
	struct ksnap_config *new = kvzalloc(sizeof(*new), GFP_KERNEL);
	/* Paths of 4 KiB each: not on the stack. */
	struct ksnap_cgroup *ocg = kunit_kcalloc(test, 2, sizeof(*ocg),
						 GFP_KERNEL);
	struct ksnap_cgroup *ncg = kunit_kcalloc(test, 2, sizeof(*ncg),
						 GFP_KERNEL);
	int cg_from[2], i;

	KUNIT_ASSERT_NOT_NULL(test, old);
	KUNIT_ASSERT_NOT_NULL(test, new);
	KUNIT_ASSERT_NOT_NULL(test, ocg);
	KUNIT_ASSERT_NOT_NULL(test, ncg);
	ocg[0].cgrp = (struct cgroup *)0x100;
	strscpy(ocg[0].path, "/a", sizeof(ocg[0].path));
	ocg[1].cgrp = (struct cgroup *)0x200;
	strscpy(ocg[1].path, "/b", sizeof(ocg[1].path));
	ncg[0].cgrp = (struct cgroup *)0x200;
	strscpy(ncg[0].path, "/b", sizeof(ncg[0].path));
	ncg[1].cgrp = (struct cgroup *)0x300;
	strscpy(ncg[1].path, "/c", sizeof(ncg[1].path));
	old->cgroups = ocg;
	old->nr_cgroups = 2;
	new->cgroups = ncg;
	new->nr_cgroups = 2;
	/* old: g, p[/a], p[/b]; new: g, p[/b], p[/c] */
	old->col[0] = (struct ksnap_source){ .metric = &g, .cpu = KSNAP_CPU_SUM };
	new->col[0] = old->col[0];
	for (i = 0; i < 2; i++) {
		old->col[1 + i] = (struct ksnap_source){ .metric = &p,
			.cg = &ocg[i], .cg_idx = i, .cpu = KSNAP_CPU_SUM };
		new->col[1 + i] = (struct ksnap_source){ .metric = &p,
			.cg = &ncg[i], .cg_idx = i, .cpu = KSNAP_CPU_SUM };
	}
	old->nr_columns = 3;
	new->nr_columns = 3;
	for (i = 0; i < 2; i++)
		cg_from[i] = ksnap_cgpattern_find(old, &ncg[i]);
	KUNIT_EXPECT_EQ(test, cg_from[0], 1);
	KUNIT_EXPECT_EQ(test, cg_from[1], -1);
	KUNIT_EXPECT_EQ(test, ksnap_install_col_from(old, &new->col[0], cg_from), 0);
	KUNIT_EXPECT_EQ(test, ksnap_install_col_from(old, &new->col[1], cg_from), 2);
	KUNIT_EXPECT_EQ(test, ksnap_install_col_from(old, &new->col[2], cg_from), -1);
	/* One new cgroup, one gone. */
	KUNIT_EXPECT_EQ(test, ksnap_follow_count_new(new, old), 1U);
	KUNIT_EXPECT_EQ(test, ksnap_follow_count_new(old, new), 1U);
	kvfree(old);
	kvfree(new);
}

/*
 * The records' room: as wide as leaves KSNAP_CONFIG_MIN_RECORDS records
 * in the ring, at most max_columns, at least the set's own; and how many
 * cgroups a room holds.
 */
static void ksnap_follow_capacity(struct kunit *test)
{
	struct ksnap_config *cfg = kvzalloc(sizeof(*cfg), GFP_KERNEL);
	/* 8 MiB: 128 records of 65,536 bytes, 8187 columns each. */
	struct ksnap_layout l = { .max_columns = KSNAP_MAX_COLUMNS,
				  .page_size = 4096, .data_pages = 2048 };
	int g = ksnap_metric_lookup("pgfault");
	int p = ksnap_metric_lookup("memory.current");

	KUNIT_ASSERT_NOT_NULL(test, cfg);
	KUNIT_ASSERT_GE(test, g, 0);
	KUNIT_ASSERT_GE(test, p, 0);
	cfg->metrics_arg = "pgfault,memory.current";
	cfg->metric[0] = g;
	cfg->metric[1] = p;
	cfg->nr_metrics = 2;
	cfg->nr_cgroups = 1;
	cfg->nr_columns = 2;
	KUNIT_EXPECT_EQ(test, ksnap_config_cap_columns(cfg, &l), 8187U);
	l.max_columns = 4096;
	KUNIT_EXPECT_EQ(test, ksnap_config_cap_columns(cfg, &l), 4096U);
	/* A 64 KiB ring: 128 records of 512 bytes, 59 columns. */
	l.data_pages = 16;
	KUNIT_EXPECT_EQ(test, ksnap_config_cap_columns(cfg, &l), 59U);
	/* Never less than the set's own columns. */
	cfg->nr_columns = 100;
	KUNIT_EXPECT_EQ(test, ksnap_config_cap_columns(cfg, &l), 100U);
	cfg->nr_columns = 2;
	/* 10 columns: pgfault and 9 cgroups' memory.current. */
	KUNIT_EXPECT_EQ(test, ksnap_follow_cg_limit(cfg, 10), 9U);
	KUNIT_EXPECT_EQ(test, ksnap_follow_cg_limit(cfg, 1), 0U);
	kvfree(cfg);
}

/*
 * Admission buys cgroups with what the bound leaves after the start set's
 * estimate, at one cgroup's own price, within the records' room.
 */
static void ksnap_follow_admits_by_price(struct kunit *test)
{
	struct ksnap *ks = kvzalloc(sizeof(*ks), GFP_KERNEL);
	struct ksnap_config *cfg = kvzalloc(sizeof(*cfg), GFP_KERNEL);
	int g = ksnap_metric_lookup("pgfault");
	int p = ksnap_metric_lookup("memory.current");

	KUNIT_ASSERT_NOT_NULL(test, ks);
	KUNIT_ASSERT_NOT_NULL(test, cfg);
	KUNIT_ASSERT_GE(test, g, 0);
	KUNIT_ASSERT_GE(test, p, 0);
	cfg->metrics_arg = "pgfault,memory.current";
	cfg->metric[0] = g;
	cfg->metric[1] = p;
	cfg->nr_metrics = 2;
	cfg->nr_columns = 1;
	cfg->record_size = KSNAP_RECORD_SIZE(1000);
	ks->cfg = cfg;
	/* 2,495,000 ns left at 20,000 ns a cgroup: 124 cgroups. */
	KUNIT_EXPECT_EQ(test, ksnap_follow_admit_columns(ks, 1, 5000, 20000,
							 2500000), 125U);
	/* A dearer class buys fewer. */
	KUNIT_EXPECT_EQ(test, ksnap_follow_admit_columns(ks, 1, 5000, 200000,
							 2500000), 13U);
	/* Never past the records' room. */
	KUNIT_EXPECT_EQ(test, ksnap_follow_admit_columns(ks, 1, 5000, 10,
							 2500000), 1000U);
	/* Nothing left: the start set only. */
	KUNIT_EXPECT_EQ(test, ksnap_follow_admit_columns(ks, 1, 3000000, 20000,
							 2500000), 1U);
	/* No price (no per-cgroup column): the room. */
	KUNIT_EXPECT_EQ(test, ksnap_follow_admit_columns(ks, 1, 5000, 0,
							 2500000), 1000U);
	kvfree(cfg);
	kvfree(ks);
}

static struct kunit_case ksnap_sampler_cases[] = {
	KUNIT_CASE(ksnap_sampler_records_carry_positions),
	KUNIT_CASE(ksnap_sampler_column_info),
	KUNIT_CASE(ksnap_sampler_drop_counts_lost),
	KUNIT_CASE(ksnap_sampler_overwrite_keeps_newest),
	KUNIT_CASE_PARAM(ksnap_sampler_bad_tail_is_full,
			 ksnap_bad_tail_gen_params),
	KUNIT_CASE(ksnap_sampler_wakes_at_the_mark),
	KUNIT_CASE(ksnap_sampler_monotonic_never_steps_back),
	KUNIT_CASE(ksnap_cpus_vm_column_holds_offline),
	KUNIT_CASE(ksnap_ctrl_reconfig_starts_empty_collection),
	KUNIT_CASE(ksnap_sampler_gone_cgroup_freezes),
	KUNIT_CASE(ksnap_sampler_gone_cgroup_released),
	KUNIT_CASE_PARAM(ksnap_sampler_missed_periods, ksnap_missed_gen_params),
	KUNIT_CASE(ksnap_sampler_start_race_loses_nothing),
	KUNIT_CASE(ksnap_sampler_old_tail_is_free),
	KUNIT_CASE(ksnap_sampler_reader_session),
	KUNIT_CASE(ksnap_cpus_base_follows_hotplug),
	KUNIT_CASE(ksnap_cpus_real_sums_match),
	KUNIT_CASE(ksnap_follow_maps_columns),
	KUNIT_CASE(ksnap_follow_capacity),
	KUNIT_CASE(ksnap_follow_admits_by_price),
	{}
};

static struct kunit_suite ksnap_sampler_suite = {
	.name = "ksnap_sampler",
	.test_cases = ksnap_sampler_cases,
};

kunit_test_suite(ksnap_sampler_suite);

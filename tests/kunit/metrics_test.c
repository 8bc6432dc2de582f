// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_metrics: the registry's entries, and every reader run
 * from a real hardirq hrtimer callback so that lockdep and
 * DEBUG_ATOMIC_SLEEP check them in the context the sampler uses.  The code
 * under test is compiled into this module from kmod/metrics.c and
 * kmod/cgroup.c; and the judgement of memory.stat's slot table
 * (kmod/memcgproof.c) on synthetic readings, a shifted table among them.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../kmod/metrics.c"
#include "../../kmod/readers.c"
#include "../../kmod/catalogue.c"
#include "../../kmod/cgroup.c"
#include "../../kmod/psi.c"
#include "../../kmod/memcgproof.c"

static void ksnap_metrics_registry(struct kunit *test)
{
	unsigned int i, j;

	KUNIT_ASSERT_GT(test, ksnap_nr_metrics, 0U);
	for (i = 0; i < ksnap_nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[i];

		KUNIT_EXPECT_LT_MSG(test, strlen(m->name),
				    (size_t)KSNAP_METRIC_NAME_MAX,
				    "name of %s too long", m->name);
		KUNIT_EXPECT_LT_MSG(test, strlen(m->desc),
				    (size_t)KSNAP_DESC_MAX,
				    "description of %s too long", m->name);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strchr(m->desc, ','),
					  "description of %s has no \", unit\"",
					  m->name);
		KUNIT_EXPECT_LE_MSG(test, m->freshness, KSNAP_FRESH_2S,
				    "freshness of %s", m->name);
		KUNIT_EXPECT_TRUE_MSG(test, !m->read != !m->read_cpu,
				      "%s needs exactly one reader", m->name);
		/* Summed per CPU and per cgroup: no CPU selector (config.c). */
		if (m->per_cgroup && m->read_cpu)
			KUNIT_EXPECT_STREQ_MSG(test, m->name, "cpu.stat.usage_self",
					       "%s: per cgroup and per CPU",
					       m->name);
		KUNIT_EXPECT_NOT_NULL_MSG(test, m->unit, "unit of %s", m->name);
		if (m->unit)
			KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(m->desc, m->unit),
						  "description of %s names its unit %s",
						  m->name, m->unit);
		if (m->desc_unproven) {
			KUNIT_EXPECT_LT_MSG(test, strlen(m->desc_unproven),
					    (size_t)KSNAP_DESC_MAX,
					    "unproven description of %s too long",
					    m->name);
			KUNIT_EXPECT_STREQ_MSG(test, strrchr(m->desc_unproven, ','),
					       strrchr(m->desc, ','),
					       "%s: both descriptions end in the unit",
					       m->name);
		}
		KUNIT_EXPECT_EQ_MSG(test,
				    !!(m->flags & KSNAP_COL_NANOSECONDS),
				    m->unit && !strcmp(m->unit, "ns"),
				    "%s: nanosecond flag and unit ns go together",
				    m->name);
		if (!m->per_cgroup)
			KUNIT_EXPECT_TRUE_MSG(test,
					      m->needs == KSNAP_NEEDS_NOTHING ||
					      m->needs == KSNAP_NEEDS_PSI,
					      "%s: a global metric needs no cgroup",
					      m->name);
		KUNIT_EXPECT_EQ_MSG(test, ksnap_metric_lookup(m->name), (int)i,
				    "lookup of %s", m->name);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ_MSG(test, ksnap_metrics[j].name,
						m->name, "duplicate name");
	}
	KUNIT_EXPECT_EQ(test, ksnap_metric_lookup("no such metric"), -ENOENT);
	for (i = 0, j = 0; i < ksnap_nr_metrics; i++)
		j += ksnap_metrics[i].by_default && !ksnap_metrics[i].per_cgroup;
	KUNIT_EXPECT_GT_MSG(test, j, 0U, "a global metric is sampled by default");
}

#ifdef KSNAP_MEMCG_STAT_TABLE
/*
 * Every memory.stat item the metrics table reads is in the copy of
 * mm/memcontrol.c's private memcg_node_stat_items[] (compat.h), the only
 * way to find its slot on 6.12: an item missing there would read 0.  (On
 * 5.10 and 6.1 every node item has a slot: there is nothing to check.)
 */
static void ksnap_metrics_memcg_stat_items_known(struct kunit *test)
{
	unsigned int i, n = 0;

	for (i = 0; i < ksnap_nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[i];

		if (m->read != ksnap_read_memcg_stat)
			continue;
		n++;
		KUNIT_EXPECT_TRUE_MSG(test, ksnap_memcg_stat_known(m->item.node),
				      "%s: node item %d has no memcg slot",
				      m->name, m->item.node);
	}
	KUNIT_EXPECT_GT_MSG(test, n, 0U, "memory.stat items in the table");
}
#endif

/*
 * Synthetic readings of memory.stat's slots (root memcg) and of the node
 * counters, pages, as a 2-CPU guest shows them a while after boot (slack
 * 256 pages).  The items are those of 6.12's table that every kernel
 * has, in its order.
 */
static const enum node_stat_item ksnap_proof_item[] = {
	NR_INACTIVE_ANON, NR_ACTIVE_ANON, NR_INACTIVE_FILE, NR_ACTIVE_FILE,
	NR_UNEVICTABLE, NR_SLAB_RECLAIMABLE_B, NR_SLAB_UNRECLAIMABLE_B,
	WORKINGSET_REFAULT_ANON, WORKINGSET_REFAULT_FILE, NR_ANON_MAPPED,
	NR_FILE_MAPPED, NR_FILE_PAGES, NR_FILE_DIRTY, NR_WRITEBACK, NR_SHMEM,
	NR_KERNEL_STACK_KB,
};

#define KSNAP_PROOF_N	ARRAY_SIZE(ksnap_proof_item)
#define KSNAP_PROOF_SLACK	256

static const long ksnap_proof_node[KSNAP_PROOF_N] = {
	5200, 410, 21000, 9800, 1200, 2900, 7400, 0, 40, 5300, 6100, 31900,
	12, 0, 1300, 2100,
};

/* The kernel's slots, read where the copy says: a little behind. */
static const long ksnap_proof_memcg[KSNAP_PROOF_N] = {
	5150, 405, 20900, 9790, 1200, 1100, 2300, 0, 40, 5240, 6090, 31800,
	0, 0, 1300, 600,
};

/* Judge @memcg (@skew slots further on from @from) against the nodes. */
static bool ksnap_proof_judge(const long *memcg, unsigned int from,
			      unsigned int skew, u8 *state)
{
	unsigned int i, j;

	for (i = 0; i < KSNAP_PROOF_N; i++) {
		j = i < from ? i : from + (i - from + skew) %
				       (KSNAP_PROOF_N - from);
		state[i] = ksnap_memcg_compare(ksnap_proof_item[i], memcg[j],
					       ksnap_proof_node[i],
					       KSNAP_PROOF_SLACK);
	}
	return ksnap_memcg_decide(ksnap_proof_item, state, KSNAP_PROOF_N);
}

/*
 * The right table: the LRU, page cache and anon slots are proven; a value
 * within the tolerance of 0 (the refaults, dirty, writeback) or a bound
 * (slab, kernel stacks) proves nothing.
 */
static void ksnap_metrics_memcg_proof_right(struct kunit *test)
{
	static const u8 want[KSNAP_PROOF_N] = {
		KSNAP_SLOT_PROVEN, KSNAP_SLOT_PROVEN, KSNAP_SLOT_PROVEN,
		KSNAP_SLOT_PROVEN, KSNAP_SLOT_PROVEN, KSNAP_SLOT_UNPROVEN,
		KSNAP_SLOT_UNPROVEN, KSNAP_SLOT_UNPROVEN, KSNAP_SLOT_UNPROVEN,
		KSNAP_SLOT_PROVEN, KSNAP_SLOT_PROVEN, KSNAP_SLOT_PROVEN,
		KSNAP_SLOT_UNPROVEN, KSNAP_SLOT_UNPROVEN, KSNAP_SLOT_PROVEN,
		KSNAP_SLOT_UNPROVEN,
	};
	u8 state[KSNAP_PROOF_N];
	unsigned int i;

	KUNIT_ASSERT_TRUE(test, ksnap_proof_judge(ksnap_proof_memcg, 0, 0,
						  state));
	for (i = 0; i < KSNAP_PROOF_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, state[i], want[i], "slot %u (item %d)",
				    i, ksnap_proof_item[i]);
}

/* A table rotated by one: nothing is offered. */
static void ksnap_metrics_memcg_proof_shifted(struct kunit *test)
{
	u8 state[KSNAP_PROOF_N];
	unsigned int i;

	KUNIT_EXPECT_FALSE(test, ksnap_proof_judge(ksnap_proof_memcg, 0, 1,
						   state));
	for (i = 0; i < KSNAP_PROOF_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, state[i], KSNAP_SLOT_DROPPED,
				    "slot %u", i);
}

/*
 * An item added to the kernel's table after NR_ANON_MAPPED (slot 9): the
 * slots from there on read their neighbour's.  The LRU anchor holds, the
 * slots before the change stay; from there on every slot disagrees, or is
 * unproven after one that does: all are dropped.
 */
static void ksnap_metrics_memcg_proof_inserted(struct kunit *test)
{
	u8 state[KSNAP_PROOF_N];
	unsigned int i;

	KUNIT_ASSERT_TRUE(test, ksnap_proof_judge(ksnap_proof_memcg, 10, 1,
						  state));
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_NE_MSG(test, state[i], KSNAP_SLOT_DROPPED,
				    "slot %u, before the change", i);
	for (i = 10; i < KSNAP_PROOF_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, state[i], KSNAP_SLOT_DROPPED,
				    "slot %u, after the change", i);
}

/* Zeroes, and small values, prove nothing: an idle LRU is no anchor. */
static void ksnap_metrics_memcg_proof_zero(struct kunit *test)
{
	u8 state[KSNAP_PROOF_N];
	unsigned int i;

	KUNIT_EXPECT_EQ(test, ksnap_memcg_compare(NR_FILE_DIRTY, 0, 200, 256),
			KSNAP_SLOT_UNPROVEN);
	KUNIT_EXPECT_EQ(test, ksnap_memcg_compare(NR_FILE_DIRTY, 0, 900, 256),
			KSNAP_SLOT_DROPPED);
	KUNIT_EXPECT_EQ(test, ksnap_memcg_compare(NR_FILE_PAGES, 73, 73, 256),
			KSNAP_SLOT_UNPROVEN);
	KUNIT_EXPECT_EQ(test, ksnap_memcg_compare(NR_FILE_PAGES, 4506, 4506,
						  256),
			KSNAP_SLOT_PROVEN);
	KUNIT_EXPECT_EQ(test, ksnap_memcg_compare(NR_KERNEL_STACK_KB, 3500,
						  3000, 256),
			KSNAP_SLOT_UNPROVEN);
	KUNIT_EXPECT_EQ(test, ksnap_memcg_compare(NR_KERNEL_STACK_KB, 9000,
						  3000, 256),
			KSNAP_SLOT_DROPPED);
	for (i = 0; i < KSNAP_PROOF_N; i++)
		state[i] = ksnap_memcg_compare(ksnap_proof_item[i], 0, 0,
					       KSNAP_PROOF_SLACK);
	KUNIT_EXPECT_FALSE(test, ksnap_memcg_decide(ksnap_proof_item, state,
						    KSNAP_PROOF_N));
	for (i = 0; i < KSNAP_PROOF_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, state[i], KSNAP_SLOT_DROPPED,
				    "slot %u", i);
}

/* KSNAP_IOC_METRIC: every offered metric by index, then EINVAL. */
static void ksnap_metrics_catalogue(struct kunit *test)
{
	struct ksnap_metric_info *info;
	unsigned int i, n = 0;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, info);
	for (i = 0; i < ksnap_nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[i];

		if (!ksnap_metric_offered(m))
			continue;
		memset(info, 0xa5, sizeof(*info));
		info->index = n;
		info->refresh_ns = 0;
		memset(info->reserved, 0, sizeof(info->reserved));
		KUNIT_ASSERT_EQ_MSG(test, ksnap_catalogue_info(info), 0,
				    "index %u", n);
		KUNIT_EXPECT_EQ(test, info->index, n);
		KUNIT_EXPECT_STREQ(test, info->name, m->name);
		KUNIT_EXPECT_STREQ(test, info->unit, m->unit);
		KUNIT_EXPECT_STREQ(test, info->description,
				   ksnap_metric_desc(m));
		KUNIT_EXPECT_EQ(test, info->flags & 0xff, m->flags);
		KUNIT_EXPECT_EQ(test, !!(info->flags & KSNAP_METRIC_PER_CGROUP),
				m->per_cgroup);
		KUNIT_EXPECT_EQ(test, !!(info->flags & KSNAP_METRIC_UNPROVEN),
				ksnap_metric_unproven(m));
		KUNIT_EXPECT_STREQ(test, info->field, m->per_cgroup ? "cgroup" :
				   m->read_cpu ? "cpu" : "");
		KUNIT_EXPECT_EQ(test, info->groups, ksnap_metric_groups(m));
		/* How often the kernel updates it: a tick for a CPU time. */
		KUNIT_EXPECT_EQ_MSG(test, info->refresh_ns,
				    m->freshness == KSNAP_FRESH_TICK ?
				    (u64)TICK_NSEC :
				    m->freshness == KSNAP_FRESH_1S ?
				    (u64)NSEC_PER_SEC :
				    m->freshness == KSNAP_FRESH_2S ?
				    2 * (u64)NSEC_PER_SEC : 0ULL,
				    "%s: refresh_ns", m->name);
		KUNIT_EXPECT_TRUE_MSG(test, !memchr_inv(info->reserved, 0,
							sizeof(info->reserved)),
				      "%s: reserved zeroed", m->name);
		n++;
	}
	info->index = n;
	KUNIT_EXPECT_EQ_MSG(test, ksnap_catalogue_info(info), -EINVAL,
			    "past the end");
	info->index = 0;
	info->reserved[ARRAY_SIZE(info->reserved) - 1] = 1;
	KUNIT_EXPECT_EQ_MSG(test, ksnap_catalogue_info(info), -EINVAL,
			    "nonzero reserved");
	info->reserved[ARRAY_SIZE(info->reserved) - 1] = 0;
	info->refresh_ns = 1;
	KUNIT_EXPECT_EQ_MSG(test, ksnap_catalogue_info(info), -EINVAL,
			    "nonzero refresh_ns on input");
}

/* The named groups: from the catalogue's categories, none a metric. */
static void ksnap_metrics_groups(struct kunit *test)
{
	unsigned int g, i, nr[KSNAP_NR_GROUPS] = {};

	for (g = 0; g < KSNAP_NR_GROUPS; g++) {
		KUNIT_EXPECT_EQ(test, ksnap_group_lookup(ksnap_group_name(g)),
				(int)g);
		KUNIT_EXPECT_LT_MSG(test, ksnap_metric_lookup(ksnap_group_name(g)),
				    0, "group %s is no metric's name",
				    ksnap_group_name(g));
	}
	KUNIT_EXPECT_EQ(test, ksnap_group_lookup("bogus"), -ENOENT);
	for (i = 0; i < ksnap_nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[i];

		for (g = 0; g < KSNAP_NR_GROUPS; g++)
			nr[g] += ksnap_metric_in_group(m, g);
		KUNIT_EXPECT_TRUE_MSG(test, ksnap_metric_in_group(m, 0),
				      "%s in all", m->name);
		KUNIT_EXPECT_EQ_MSG(test, ksnap_metric_in_group(m, 3),
				    m->per_cgroup, "%s: container", m->name);
		if (ksnap_metric_in_group(m, 2))
			KUNIT_EXPECT_TRUE_MSG(test, !strncmp(m->name, "cpu.", 4),
					      "%s in cpu", m->name);
		if (ksnap_metric_in_group(m, 4))
			KUNIT_EXPECT_TRUE_MSG(test, m->per_cgroup,
					      "%s in pod is per cgroup", m->name);
		if (ksnap_metric_in_group(m, 1))
			KUNIT_EXPECT_TRUE_MSG(test, !strchr(m->name, '.'),
					      "%s in vmstat is a /proc/vmstat name",
					      m->name);
	}
	KUNIT_EXPECT_EQ(test, nr[0], ksnap_nr_metrics);
	KUNIT_EXPECT_GT(test, nr[1], 100U);
	KUNIT_EXPECT_EQ(test, nr[2], 10U);
	KUNIT_EXPECT_GT(test, nr[3], 30U);
	i = ksnap_metric_lookup("pgfault");
	KUNIT_EXPECT_TRUE(test, ksnap_metric_in_group(&ksnap_metrics[i], 1));
}

/*
 * The pod group: 13 per cgroup at most (fewer without swap, PSI or
 * memory.stat), so that a node's cgroups fit in a set; memory use, the
 * working set and CPU usage always, memory.stat's long tail never.
 */
static void ksnap_metrics_pod_group_is_lean(struct kunit *test)
{
	static const char *const in[] = { "memory.current", "memory.max",
		"memory.working_set", "memory.events.oom_kill",
		"cpu.stat.usage" };
	static const char *const out[] = { "memory.stat.slab_reclaimable",
		"memory.stat.file_dirty", "cpu.stat.usage_self", "memory.min",
		"pgfault" };
	unsigned int i, nr = 0;
	int idx;

	KUNIT_EXPECT_EQ(test, ksnap_group_lookup("pod"), 4);
	for (i = 0; i < ksnap_nr_metrics; i++)
		nr += ksnap_metric_in_group(&ksnap_metrics[i], 4);
	KUNIT_EXPECT_GE_MSG(test, nr, 4U, "pod has %u metrics", nr);
	KUNIT_EXPECT_LE_MSG(test, nr, 13U, "pod has %u metrics", nr);
	/* 630 cgroups of it fit in the widest set. */
	KUNIT_EXPECT_GE(test, KSNAP_MAX_COLUMNS / 13, 630U);
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		idx = ksnap_metric_lookup(in[i]);
		KUNIT_ASSERT_GE_MSG(test, idx, 0, "%s in the catalogue", in[i]);
		KUNIT_EXPECT_TRUE_MSG(test,
				      ksnap_metric_in_group(&ksnap_metrics[idx], 4),
				      "%s in pod", in[i]);
	}
	for (i = 0; i < ARRAY_SIZE(out); i++) {
		idx = ksnap_metric_lookup(out[i]);
		if (idx < 0)
			continue;
		KUNIT_EXPECT_FALSE_MSG(test,
				       ksnap_metric_in_group(&ksnap_metrics[idx], 4),
				       "%s not in pod", out[i]);
	}
}

struct ksnap_timer_probe {
	struct hrtimer timer;
	struct completion done;
	const struct ksnap_cgroup *cg;	/* for per-cgroup readers, or NULL */
	bool hardirq;
	bool irqs_disabled;
	unsigned int read;		/* readers called */
	u64 value[ARRAY_SIZE(ksnap_metrics)];
	u64 cpu0[ARRAY_SIZE(ksnap_metrics)];	/* per-CPU readers, CPU 0 */
};

/* May this metric be read for this cgroup (the checks config.c does)? */
static bool ksnap_probe_can_read(const struct ksnap_metric *m,
				 const struct ksnap_cgroup *cg)
{
	if (!m->per_cgroup)
		return m->needs != KSNAP_NEEDS_PSI || READ_ONCE(ksnap_psi_system);
	if (!cg)
		return false;
	switch (m->needs) {
	case KSNAP_NEEDS_MEMCG:
		return cg->memcg;
	case KSNAP_NEEDS_NONROOT:
		return cgroup_parent(cg->cgrp);
	case KSNAP_NEEDS_PSI:
		return cg->psi;
	}
	return true;
}

static enum hrtimer_restart ksnap_probe_fn(struct hrtimer *timer)
{
	struct ksnap_timer_probe *p =
		container_of(timer, struct ksnap_timer_probe, timer);
	unsigned int i;

	p->hardirq = in_hardirq();
	p->irqs_disabled = irqs_disabled();
	for (i = 0; i < ksnap_nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[i];

		if (!ksnap_probe_can_read(m, p->cg))
			continue;
		p->value[i] = ksnap_metric_read(m, p->cg, KSNAP_CPU_SUM);
		if (m->read_cpu)
			p->cpu0[i] = ksnap_metric_read(m, p->cg, 0);
		p->read++;
	}
	complete(&p->done);
	return HRTIMER_NORESTART;
}

/* Run every reader that applies to @cg (or the global ones) in a timer. */
/* Returns whether the timer fired; EXPECTs, so callers can clean up. */
static bool ksnap_probe_run(struct kunit *test, struct ksnap_timer_probe *p)
{
	unsigned long left;

	init_completion(&p->done);
	hrtimer_setup(&p->timer, ksnap_probe_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
	hrtimer_start(&p->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
	left = wait_for_completion_timeout(&p->done, 5 * HZ);
	hrtimer_cancel(&p->timer);

	KUNIT_EXPECT_NE_MSG(test, left, 0UL, "the timer never fired");
	if (!left)
		return false;
	KUNIT_EXPECT_TRUE_MSG(test, p->hardirq,
			      "expected the readers to run in hardirq context");
	KUNIT_EXPECT_TRUE_MSG(test, p->irqs_disabled,
			      "expected interrupts off in the callback");
	return true;
}

static u64 ksnap_probe_value(struct ksnap_timer_probe *p, const char *name)
{
	int i = ksnap_metric_lookup(name);

	return i < 0 ? 0 : p->value[i];
}

/* Every global reader, from a real hardirq hrtimer. */
static void ksnap_metrics_read_in_hardirq(struct kunit *test)
{
	struct ksnap_timer_probe *p;
	unsigned int i, global = 0;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	ksnap_psi_resolve();
	for (i = 0; i < ksnap_nr_metrics; i++)
		global += !ksnap_metrics[i].per_cgroup &&
			  ksnap_probe_can_read(&ksnap_metrics[i], NULL);
	if (!ksnap_probe_run(test, p))
		return;
	KUNIT_EXPECT_EQ(test, p->read, global);
	kunit_info(test, "%u global readers run in hardirq context\n", p->read);

	KUNIT_EXPECT_GT_MSG(test, ksnap_probe_value(p, "pgfault"), 0ULL,
			    "no page fault since boot?");
	KUNIT_EXPECT_GT_MSG(test, ksnap_probe_value(p, "nr_free_pages"), 0ULL,
			    "no free page?");
	KUNIT_EXPECT_GT(test, ksnap_probe_value(p, "meminfo.MemTotal"),
			ksnap_probe_value(p, "meminfo.MemAvailable"));
	KUNIT_EXPECT_GT(test, ksnap_probe_value(p, "cpu.system"), 0ULL);
	/* cpu.idle may still be 0: the suites run during a busy boot. */
	KUNIT_EXPECT_GT(test, ksnap_probe_value(p, "softirqs.TIMER") +
			ksnap_probe_value(p, "softirqs.RCU"), 0ULL);
	KUNIT_EXPECT_GE(test, ksnap_probe_value(p, "stat.softirq"),
			ksnap_probe_value(p, "softirqs.TIMER"));
	KUNIT_EXPECT_GT(test, ksnap_probe_value(p, "loadavg.threads"), 1ULL);
	for (i = 0; i < ksnap_nr_metrics; i++)
		if (ksnap_metrics[i].read_cpu)
			KUNIT_EXPECT_LE_MSG(test, p->cpu0[i], p->value[i],
					    "%s: CPU 0 within the sum",
					    ksnap_metrics[i].name);
}

/* Every per-cgroup reader on @path, from a real hardirq hrtimer. */
static void ksnap_metrics_cgroup_case(struct kunit *test, const char *path)
{
	struct ksnap_timer_probe *p;
	struct ksnap_cgroup *cg;
	unsigned int i, nr = 0;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	cg = kunit_kzalloc(test, sizeof(*cg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cg);
	if (ksnap_cgroup_get(cg, path)) {
		kunit_skip(test, "no cgroup %s", path);
		return;
	}
	p->cg = cg;
	if (!ksnap_probe_run(test, p))
		goto out;
	for (i = 0; i < ksnap_nr_metrics; i++)
		if (ksnap_metrics[i].per_cgroup &&
		    ksnap_probe_can_read(&ksnap_metrics[i], cg))
			nr++;
	kunit_info(test, "%s: %u per-cgroup readers run in hardirq context (memory controller %s, PSI %s)\n",
		   path, nr, cg->memcg ? "on" : "off", cg->psi ? "on" : "off");
	KUNIT_EXPECT_FALSE(test, ksnap_cgroup_dying(cg));
	KUNIT_EXPECT_FALSE_MSG(test, ksnap_cgroup_release(cg),
			       "%s: a live cgroup is not released", path);
	KUNIT_EXPECT_NOT_NULL_MSG(test, cg->cgrp, "%s: still held", path);
	if (cg->memcg)
		KUNIT_EXPECT_GE(test, ksnap_probe_value(p, "memory.max"),
				ksnap_probe_value(p, "memory.current"));
out:
	ksnap_cgroup_put(cg);
}

static void ksnap_metrics_cgroup_root(struct kunit *test)
{
	ksnap_metrics_cgroup_case(test, "/");
}

/*
 * A child cgroup, if the guest made one before loading (the suites run at
 * load, before userspace could make one for us): the kernel has no
 * exported way to create a cgroup from a module.
 */
static void ksnap_metrics_cgroup_child(struct kunit *test)
{
	ksnap_metrics_cgroup_case(test, "/ksnaptest");
}

/*
 * A released cgroup (removed, its references dropped) reads as the values
 * kept at its release, answers the configuration's needs as it did then,
 * and is copied with values of its own by a reconfiguration.
 */
static void ksnap_metrics_cgroup_released(struct kunit *test)
{
	int cur = ksnap_metric_lookup("memory.current");
	int psi = ksnap_metric_lookup("cpu.pressure.some");
	/* A path's worth each (PATH_MAX): not on the stack. */
	struct ksnap_cgroup *cg = kunit_kzalloc(test, 2 * sizeof(*cg),
						GFP_KERNEL);
	struct ksnap_cgroup *copy;

	KUNIT_ASSERT_NOT_NULL(test, cg);
	copy = cg + 1;
	cg->had_memcg = true;
	KUNIT_ASSERT_GE(test, cur, 0);
	cg->frozen = kcalloc(ksnap_nr_metrics, sizeof(*cg->frozen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cg->frozen);
	cg->frozen[cur] = 4242;
	strscpy(cg->path, "/gone", sizeof(cg->path));

	KUNIT_EXPECT_TRUE(test, ksnap_cgroup_released(cg));
	KUNIT_EXPECT_TRUE_MSG(test, ksnap_cgroup_dying(cg),
			      "released means removed");
	KUNIT_EXPECT_FALSE(test, ksnap_cgroup_memory_gone(cg));
	KUNIT_EXPECT_TRUE_MSG(test, ksnap_cgroup_release(cg),
			      "released once, a second release is a no-op");
	KUNIT_EXPECT_EQ_MSG(test,
			    ksnap_metric_read(&ksnap_metrics[cur], cg,
					      KSNAP_CPU_SUM), 4242ULL,
			    "a released cgroup reads its kept value");
	KUNIT_EXPECT_TRUE(test, ksnap_cgroup_has(cg, KSNAP_NEEDS_MEMCG));
	KUNIT_EXPECT_TRUE(test, ksnap_cgroup_has(cg, KSNAP_NEEDS_NONROOT));
	KUNIT_EXPECT_FALSE_MSG(test, ksnap_cgroup_has(cg, KSNAP_NEEDS_PSI),
			       "no PSI at its release, none after");
	if (psi >= 0)
		KUNIT_EXPECT_EQ(test, ksnap_metric_read(&ksnap_metrics[psi],
							cg, KSNAP_CPU_SUM),
				0ULL);

	KUNIT_ASSERT_EQ(test, ksnap_cgroup_dup(copy, cg), 0);
	KUNIT_EXPECT_TRUE(test, ksnap_cgroup_released(copy));
	KUNIT_EXPECT_PTR_NE_MSG(test, copy->frozen, cg->frozen,
				"the copy has values of its own");
	KUNIT_EXPECT_NULL(test, copy->cgrp);
	ksnap_cgroup_put(cg);
	KUNIT_EXPECT_NULL(test, cg->frozen);
	KUNIT_EXPECT_EQ_MSG(test,
			    ksnap_metric_read(&ksnap_metrics[cur], copy,
					      KSNAP_CPU_SUM), 4242ULL,
			    "the copy outlives the original");
	KUNIT_EXPECT_STREQ(test, copy->path, "/gone");
	ksnap_cgroup_put(copy);
}

/* memory.working_set: usage less inactive file pages, never below 0. */
static void ksnap_metrics_working_set_less_inactive_file(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksnap_working_set(100 << 20, 30 << 20),
			70ULL << 20);
	KUNIT_EXPECT_EQ(test, ksnap_working_set(100 << 20, 0), 100ULL << 20);
	/* inactive_file flushed later than a live usage that fell */
	KUNIT_EXPECT_EQ(test, ksnap_working_set(10 << 20, 30 << 20), 0ULL);
}

static struct kunit_case ksnap_metrics_cases[] = {
	KUNIT_CASE(ksnap_metrics_registry),
#ifdef KSNAP_MEMCG_STAT_TABLE
	KUNIT_CASE(ksnap_metrics_memcg_stat_items_known),
#endif
	KUNIT_CASE(ksnap_metrics_memcg_proof_right),
	KUNIT_CASE(ksnap_metrics_memcg_proof_shifted),
	KUNIT_CASE(ksnap_metrics_memcg_proof_inserted),
	KUNIT_CASE(ksnap_metrics_memcg_proof_zero),
	KUNIT_CASE(ksnap_metrics_catalogue),
	KUNIT_CASE(ksnap_metrics_groups),
	KUNIT_CASE(ksnap_metrics_pod_group_is_lean),
	KUNIT_CASE(ksnap_metrics_working_set_less_inactive_file),
	KUNIT_CASE(ksnap_metrics_read_in_hardirq),
	KUNIT_CASE(ksnap_metrics_cgroup_root),
	KUNIT_CASE(ksnap_metrics_cgroup_child),
	KUNIT_CASE(ksnap_metrics_cgroup_released),
	{}
};

static struct kunit_suite ksnap_metrics_suite = {
	.name = "ksnap_metrics",
	.test_cases = ksnap_metrics_cases,
};

kunit_test_suite(ksnap_metrics_suite);

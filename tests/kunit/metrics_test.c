// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_metrics: the registry's entries, and every reader run
 * from a real hardirq hrtimer callback so that lockdep and
 * DEBUG_ATOMIC_SLEEP check them in the context the sampler uses.  The code
 * under test is compiled into this module from kmod/metrics.c and
 * kmod/cgroup.c.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../kmod/metrics.c"
#include "../../kmod/cgroup.c"

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
		KUNIT_EXPECT_NOT_NULL_MSG(test, m->read, "reader of %s",
					  m->name);
		KUNIT_EXPECT_EQ_MSG(test, ksnap_metric_lookup(m->name), (int)i,
				    "lookup of %s", m->name);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ_MSG(test, ksnap_metrics[j].name,
						m->name, "duplicate name");
	}
	KUNIT_EXPECT_EQ(test, ksnap_metric_lookup("no such metric"), -ENOENT);
}

struct ksnap_timer_probe {
	struct hrtimer timer;
	struct completion done;
	const struct ksnap_cgroup *cg;	/* for per-cgroup readers, or NULL */
	bool hardirq;
	bool irqs_disabled;
	u64 value[ARRAY_SIZE(ksnap_metrics)];
};

static enum hrtimer_restart ksnap_probe_fn(struct hrtimer *timer)
{
	struct ksnap_timer_probe *p =
		container_of(timer, struct ksnap_timer_probe, timer);
	unsigned int i;

	p->hardirq = in_hardirq();
	p->irqs_disabled = irqs_disabled();
	for (i = 0; i < ksnap_nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[i];

		if (!m->per_cgroup || p->cg)
			p->value[i] = m->read(m, p->cg);
	}
	complete(&p->done);
	return HRTIMER_NORESTART;
}

static void ksnap_metrics_read_in_hardirq(struct kunit *test)
{
	struct ksnap_timer_probe *p;
	struct ksnap_cgroup *cg;
	unsigned long left;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	cg = kunit_kzalloc(test, sizeof(*cg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cg);
	/* The root cgroup always has a memory css when memcg is on. */
	if (!ksnap_cgroup_get(cg, "/"))
		p->cg = cg;

	init_completion(&p->done);
	hrtimer_init(&p->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	p->timer.function = ksnap_probe_fn;
	hrtimer_start(&p->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
	left = wait_for_completion_timeout(&p->done, 5 * HZ);
	hrtimer_cancel(&p->timer);
	if (p->cg)
		ksnap_cgroup_put(cg);

	KUNIT_ASSERT_NE_MSG(test, left, 0UL, "the timer never fired");
	KUNIT_EXPECT_TRUE_MSG(test, p->hardirq,
			      "expected the readers to run in hardirq context");
	KUNIT_EXPECT_TRUE_MSG(test, p->irqs_disabled,
			      "expected interrupts off in the callback");
	KUNIT_EXPECT_GT_MSG(test, p->value[ksnap_metric_lookup("pgfault")],
			    0ULL, "no page fault since boot?");
	KUNIT_EXPECT_GT_MSG(test,
			    p->value[ksnap_metric_lookup("nr_free_pages")],
			    0ULL, "no free page?");
	if (!p->cg)
		kunit_info(test, "memory.current not read: no root memory css\n");
}

static struct kunit_case ksnap_metrics_cases[] = {
	KUNIT_CASE(ksnap_metrics_registry),
	KUNIT_CASE(ksnap_metrics_read_in_hardirq),
	{}
};

static struct kunit_suite ksnap_metrics_suite = {
	.name = "ksnap_metrics",
	.test_cases = ksnap_metrics_cases,
};

kunit_test_suite(ksnap_metrics_suite);

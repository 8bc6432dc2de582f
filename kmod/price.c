// SPDX-License-Identifier: GPL-2.0
/*
 * The price of one more cgroup in a pattern set: what the timer spends on
 * a cgroup's columns, by their own readers (a memory.current is one load,
 * a cpu.stat.usage a walk over CPUs), measured in process context as the
 * start's estimate is (cost.h: each read cold, after a sleep; the median).
 * Admission (follow.c) buys cgroups with what the bound leaves at this
 * price; timing each column in the timer would cost more than the column.
 */
#include <linux/cgroup.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "cost.h"
#include "ksnap.h"

/* Is metric @m one a cgroup matched by @cfg's patterns gets a column of? */
bool ksnap_price_cg_metric(const struct ksnap_config *cfg,
			   const struct ksnap_metric *m)
{
	bool listed = false;
	unsigned int i;

	for (i = 0; i < cfg->nr_metrics; i++) {
		const struct ksnap_metric *c = &ksnap_metrics[cfg->metric[i]];

		if (!c->per_cgroup)
			continue;
		listed = true;
		if (c == m)
			return true;
	}
	if (listed || cfg->nr_cgroups || cfg->metrics_arg[0])
		return false;
	return m->by_default && m->per_cgroup && ksnap_metric_offered(m);
}

/*
 * One cgroup's columns read as the timer reads them, interrupts off: the
 * @nr metrics of @ms, chosen before the clock starts.
 */
static u64 ksnap_price_read(struct ksnap *ks, const struct ksnap_cgroup *cg,
			    const struct ksnap_metric **ms, unsigned int nr)
{
	unsigned long flags;
	unsigned int i;
	u64 t0, t1, sum = 0;
	int cpu;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	/* The timer's per-cgroup checks (sampler.c), then each column. */
	sum += ksnap_cgroup_dying(cg) + ksnap_cgroup_memory_gone(cg);
	for (i = 0; i < nr; i++) {
		const struct ksnap_metric *m = ms[i];

		if (!m->read_cpu) {
			sum += m->read(m, cg);
			continue;
		}
		for_each_cpu(cpu, &ks->cpus.live)
			sum += m->read_cpu(m, cg, cpu);
	}
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	/* Kept, so that the reads are not optimised away. */
	WRITE_ONCE(ks->calib[0], sum);
	return t1 - t0;
}

/**
 * ksnap_follow_price() - the read of one more cgroup's columns, in ns
 * @ks: starting, with ks->lock and cpus_read_lock() held and the live
 *	CPUs set (ksnap_cpus_start())
 *
 * Measured on the set's first cgroup, or on the root of the set's cgroup
 * namespace when it has none yet (every controller is on there; its
 * reads may cost more than a leaf's: ksnap_follow_reprice() measures
 * again on the first cgroup a set change brings).
 *
 * Return: the median of KSNAP_CALIB_READS reads, at least 1; 0 when the
 * set's patterns give a cgroup no column, or on no memory.
 */
u64 ksnap_follow_price(struct ksnap *ks)
{
	const struct ksnap_config *cfg = ks->cfg;
	u64 t[KSNAP_CALIB_READS], v;
	struct ksnap_cgroup *probe = NULL;
	const struct ksnap_metric **ms;
	const struct ksnap_cgroup *cg;
	unsigned int i, j, nr, k = 0;

	if (!cfg->nr_patterns)
		return 0;
	ms = kcalloc(ksnap_nr_metrics, sizeof(*ms), GFP_KERNEL);
	if (!ms)
		return 0;
	for (i = 0; i < ksnap_nr_metrics; i++)
		if (ksnap_price_cg_metric(cfg, &ksnap_metrics[i]))
			ms[k++] = &ksnap_metrics[i];
	if (!k)
		goto out;
	if (cfg->nr_cgroups && !ksnap_cgroup_released(&cfg->cgroups[0])) {
		cg = &cfg->cgroups[0];
	} else {
		struct cgroup *root = cfg->cgns->root_cset->dfl_cgrp;

		probe = kzalloc(sizeof(*probe), GFP_KERNEL);
		if (!probe) {
			k = 0;
			goto out;
		}
		cgroup_get(root);
		ksnap_cgroup_hold(probe, root, "/");
		cg = probe;
	}
	/* What the probe cannot give (no memory controller), it skips. */
	for (i = 0, nr = 0; i < k; i++)
		if (ksnap_cgroup_has(cg, ms[i]->needs))
			ms[nr++] = ms[i];
	for (i = 0; i < KSNAP_CALIB_READS; i++) {
		usleep_range(KSNAP_CALIB_SLEEP_US, 2 * KSNAP_CALIB_SLEEP_US);
		v = ksnap_price_read(ks, cg, ms, nr);
		/* Insertion sort, ascending. */
		for (j = i; j > 0 && t[j - 1] > v; j--)
			t[j] = t[j - 1];
		t[j] = v;
	}
	if (probe) {
		ksnap_cgroup_put(probe);
		kfree(probe);
	}
out:
	kfree(ms);
	return k ? t[KSNAP_CALIB_READS / 2] ?: 1 : 0;
}

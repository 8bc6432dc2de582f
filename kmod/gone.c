// SPDX-License-Identifier: GPL-2.0
/*
 * The configured cgroups the timer found removed (sampler.c sets their
 * bits in ks->run and queues gone_work): each logged once while it is
 * held, then let go of (install.c, ksnap_install_release_fn()).
 */
#include <linux/bitmap.h>
#include <linux/printk.h>
#include <linux/workqueue.h>

#include "ksnap.h"

/*
 * Log each cgroup the sampler found removed, once while it is held.  One
 * matched by a pattern is not logged: its removal is the normal course of
 * a followed set (a hundred a second on a busy host), and the next set
 * change counts it (stats/cgroups_removed).  Process context; never
 * concurrent with itself: the gone worker, or a stop or a set change with
 * the worker cancelled.
 */
void ksnap_gone_report(struct ksnap *ks)
{
	const struct ksnap_config *cfg = ks->cfg;
	struct ksnap_run *run = &ks->run;
	unsigned int i;

	for (i = 0; i < cfg->nr_cgroups; i++) {
		if (test_bit(i, run->memory_gone) &&
		    !test_bit(i, run->gone) &&
		    !test_and_set_bit(i, ks->memory_gone_logged))
			pr_warn("cgroups: '%s': its memory controller was disabled while sampled (a parent's cgroup.subtree_control): its memory columns keep their last values and records are flagged stale\n",
				cfg->cgroups[i].path);
		if (!test_bit(i, run->gone) || test_bit(i, cfg->matched) ||
		    test_and_set_bit(i, ks->gone_logged))
			continue;
		pr_warn("cgroups: '%s' was removed while sampled: its columns keep their last values and records are flagged stale\n",
			cfg->cgroups[i].path);
	}
}

/*
 * ks->cfg cannot change while this is queued or runs: a stop and a set
 * change cancel it first.
 */
static void ksnap_gone_fn(struct work_struct *work)
{
	struct ksnap *ks = container_of(work, struct ksnap, gone_work);

	ksnap_gone_report(ks);
	/* install.c lets them go: it takes ks->lock, which this must not. */
	queue_work(system_unbound_wq, &ks->release_work);
}

/*
 * The configured cgroups were resolved again (a stopped collection's new
 * configuration): their removals are news again.  With ks->lock held.
 */
void ksnap_gone_reset(struct ksnap *ks)
{
	lockdep_assert_held(&ks->lock);
	bitmap_zero(ks->gone_logged, KSNAP_MAX_CGROUPS);
	bitmap_zero(ks->memory_gone_logged, KSNAP_MAX_CGROUPS);
}

void ksnap_gone_init(struct ksnap *ks)
{
	INIT_WORK(&ks->gone_work, ksnap_gone_fn);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ksnap: sample kernel and cgroup counters at a high rate from an hrtimer
 * into a ring that userspace maps read-only from /dev/ksnap.
 */
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "ksnap.h"
#include "parse.h"

static char *metrics = "";
module_param(metrics, charp, 0444);
MODULE_PARM_DESC(metrics,
		 "comma-separated metrics to sample (default: pgfault,pgmajfault,nr_free_pages, and memory.current when cgroups is set)");

static char *cgroups = "";
module_param(cgroups, charp, 0444);
MODULE_PARM_DESC(cgroups,
		 "comma-separated cgroup v2 paths relative to the cgroup2 root, e.g. /system.slice/foo.service, or patterns: * within a component, ** for any number of components, e.g. /system.slice/*.service, /kubepods.slice/**/*.scope");

static unsigned int period_us = KSNAP_PERIOD_US_DEFAULT;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us,
		 "sampling period, microseconds (10..1000000, default 1000)");

static unsigned int ring_kb = KSNAP_RING_KB_DEFAULT;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(ring_kb,
		 "record region size, KiB, rounded up to whole pages (64..262144, default 8192)");

static unsigned int wake_ms = KSNAP_WAKE_MS_DEFAULT;
module_param(wake_ms, uint, 0444);
MODULE_PARM_DESC(wake_ms,
		 "wake a sleeping reader once this much time of records is unread, or a quarter of the ring if that comes first, milliseconds (1..10000, default 100)");

static char *overflow = "drop";
module_param(overflow, charp, 0444);
MODULE_PARM_DESC(overflow,
		 "when the ring is full: drop (keep the unread records, count new snapshots lost; default) or overwrite (keep the newest; the reader counts what it lost)");

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu,
		 "the CPU the sampler's timer runs on; -1 (default): the first online housekeeping CPU");

static struct ksnap ksnap_dev;

static int ksnap_ring_init(struct ksnap *ks)
{
	const struct ksnap_layout *l = &ks->layout;

	ks->ring = ksnap_ring_alloc(l);
	if (!ks->ring)
		return -ENOMEM;
	ks->ctrl = ks->ring;
	ks->consumer = ks->ring + (size_t)l->consumer_pgoff * l->page_size;
	ks->data = ks->ring + (size_t)l->data_pgoff * l->page_size;
	ksnap_ctrl_init(ks);
	mutex_lock(&ks->lock);
	ksnap_ctrl_publish_config(ks);
	mutex_unlock(&ks->lock);
	return 0;
}

static int __init ksnap_init(void)
{
	struct ksnap *ks = &ksnap_dev;
	int ret;

	mutex_init(&ks->lock);
	ret = ksnap_config_check_period(period_us);
	if (ret)
		return ret;
	ks->period_ns = (u64)period_us * NSEC_PER_USEC;
	ret = ksnap_config_check_wake_ms(wake_ms);
	if (ret)
		return ret;
	ks->wake_ms = wake_ms;
	ret = ksnap_parse_overflow(overflow, &ks->overwrite);
	if (ret) {
		pr_err("overflow: '%*pE' is not drop or overwrite\n",
		       (int)min_t(size_t, strlen(overflow), 64), overflow);
		return ret;
	}
	ret = ksnap_layout_init(&ks->layout, PAGE_SIZE, ring_kb);
	if (ret) {
		pr_err("ring_kb: %u is out of range: use %u..%u KiB\n",
		       ring_kb, KSNAP_RING_KB_MIN, KSNAP_RING_KB_MAX);
		return ret;
	}

	ret = ksnap_cpus_check(cpu);
	if (ret)
		return ret;
	ks->cpu = cpu;

	/*
	 * The lists first, each metric offered then: a bad name fails the load
	 * at once, not after the proof's seconds of sleep.  The proof (before
	 * anything is offered: memory.stat.* where it needs a check) may drop
	 * a metric of the set; the set is built again then, its cgroups kept.
	 */
	ks->cfg = ksnap_config_build(metrics, cgroups, &ks->layout, NULL);
	if (IS_ERR(ks->cfg))
		return PTR_ERR(ks->cfg);
	ksnap_memcg_prove();
	if (!ksnap_config_offered(ks->cfg)) {
		const struct ksnap_config *first = ks->cfg;

		ks->cfg = ksnap_config_build(metrics, cgroups, &ks->layout,
					     first);
		ksnap_config_free(first);
		if (IS_ERR(ks->cfg))
			return PTR_ERR(ks->cfg);
	}
	ret = ksnap_ring_init(ks);
	if (ret)
		goto err_config;
	ret = ksnap_cpus_init(ks);
	if (ret)
		goto err_ring;
	ret = ksnap_exits_init(ks);
	if (ret)
		goto err_cpus;
	ksnap_sampler_init(ks);
	/* After the follow worker exists: a probe may queue it at once. */
	ksnap_cgevents_init(ks);
	ksnap_sysfs_init(ks);
	/*
	 * Last: once /dev/ksnap exists a reader can open and map it, and a
	 * failure after that would free the module under the reader.  The
	 * device brings the attributes, which read the state set up above.
	 */
	ret = ksnap_device_init(ks);
	if (ret)
		goto err_sampler;
	ksnap_sysfs_link(ks);
	return 0;

err_sampler:
	ksnap_cgevents_uninit(ks);
	ksnap_sampler_uninit(ks);
	ksnap_exits_uninit(ks);
err_cpus:
	ksnap_cpus_uninit(ks);
err_ring:
	ksnap_ring_free(ks->ring);
err_config:
	ksnap_config_free(ks->cfg);
	return ret;
}

/*
 * The reverse of ksnap_init().  No reader can hold the device here (an
 * open file or a mapping pins the module), so it goes first, the link to
 * it before it; with the device go its attributes, so no store can start
 * the sampler again.
 */
static void __exit ksnap_exit(void)
{
	struct ksnap *ks = &ksnap_dev;

	ksnap_sysfs_unlink(ks);
	ksnap_device_uninit(ks);
	/* No probe runs after this: none queues the follow worker again. */
	ksnap_cgevents_uninit(ks);
	ksnap_sampler_uninit(ks);
	ksnap_exits_uninit(ks);
	ksnap_cpus_uninit(ks);
	ksnap_ring_free(ks->ring);
	ksnap_config_free(ks->cfg);
}

module_init(ksnap_init);
module_exit(ksnap_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("High-rate kernel and cgroup counter sampler");
MODULE_AUTHOR("ksnap authors");

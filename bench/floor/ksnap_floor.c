// SPDX-License-Identifier: GPL-2.0
/*
 * ksnap_floor: the floor of the bench (bench/README.md), never installed.
 *
 * An empty hard-irq hrtimer armed exactly as ksnap's sampler arms its own
 * (kmod/sampler.c): absolute, pinned, hardirq (HRTIMER_MODE_ABS_PINNED_HARD),
 * started from its CPU with smp_call_function_single() and moved on with
 * hrtimer_forward().  Its callback reads the clock, records how late the
 * expiry ran and nothing else, so what ksnap costs above this module, at
 * the same period on the same CPU in the same guest, is ksnap's own.
 *
 * Parameters (read-only): period_us (10..1000000, default 1000), cpu (the
 * timer's CPU, default 0), max_records (lateness values kept per run,
 * 1024..16777216, default 1048576).
 *
 * /sys/kernel/ksnap_floor/
 *   enable    1 starts a run (counts reset), 0 stops it
 *   stats     taken, missed, recorded, lateness_sum_ns, lateness_max_ns,
 *             cpu (where the last expiry ran), running
 *   lateness  binary, while stopped: the run's lateness per expiry in
 *             order, one native-endian u32 of ns each (saturated), the
 *             first max_records of them; EBUSY while running
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#define FLOOR_PERIOD_US_MIN	10
#define FLOOR_PERIOD_US_MAX	1000000
#define FLOOR_RECORDS_MIN	1024
#define FLOOR_RECORDS_MAX	(16U << 20)

static unsigned int period_us = 1000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "timer period, microseconds (10..1000000, default 1000)");

static int cpu;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "the CPU the timer runs on (default 0)");

static unsigned int max_records = 1U << 20;
module_param(max_records, uint, 0444);
MODULE_PARM_DESC(max_records,
		 "lateness values kept per run (1024..16777216, default 1048576)");

/*
 * The run's state.  The counts and the records are written by the timer
 * only; process context reads them once the timer is cancelled, or, for
 * stats, as a snapshot that may be torn between fields.
 */
struct floor {
	struct mutex lock;	/* enable, and reading the records */
	struct hrtimer timer;
	u64 period_ns;
	u64 start_ns;
	bool running;		/* the timer rearms; READ_ONCE in the timer */
	u32 *late;		/* max_records values */
	u64 taken;
	u64 missed;
	u64 late_sum;
	u64 late_max;
	int last_cpu;
	struct kobject *kobj;
};

static struct floor floor_dev;

static enum hrtimer_restart floor_timer_fn(struct hrtimer *timer)
{
	struct floor *f = container_of(timer, struct floor, timer);
	ktime_t now = ktime_get();
	ktime_t expires = hrtimer_get_expires(timer);
	u64 late = max_t(s64, ktime_to_ns(ktime_sub(now, expires)), 0);
	u64 step;

	if (!READ_ONCE(f->running))
		return HRTIMER_NORESTART;
	/* As ksnap: lateness before forwarding, misses from the step. */
	hrtimer_forward(timer, now, ns_to_ktime(f->period_ns));
	step = ktime_to_ns(ktime_sub(hrtimer_get_expires(timer), expires));
	if (step > f->period_ns)
		WRITE_ONCE(f->missed,
			   f->missed + div64_u64(step, f->period_ns) - 1);
	if (f->taken < max_records)
		f->late[f->taken] = min_t(u64, late, U32_MAX);
	WRITE_ONCE(f->taken, f->taken + 1);
	WRITE_ONCE(f->late_sum, f->late_sum + late);
	if (late > f->late_max)
		WRITE_ONCE(f->late_max, late);
	WRITE_ONCE(f->last_cpu, raw_smp_processor_id());
	return HRTIMER_RESTART;
}

/* On the timer's CPU, from an IPI: a pinned timer fires where it starts. */
static void floor_timer_arm(void *arg)
{
	struct floor *f = arg;

	hrtimer_start(&f->timer, ns_to_ktime(f->start_ns + f->period_ns),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

static int floor_start(struct floor *f)
{
	int ret = 0;

	lockdep_assert_held(&f->lock);
	if (f->running)
		return 0;
	cpus_read_lock();
	if (!cpu_online(cpu)) {
		pr_err("enable: CPU %d is offline\n", cpu);
		ret = -EINVAL;
		goto out;
	}
	f->taken = 0;
	f->missed = 0;
	f->late_sum = 0;
	f->late_max = 0;
	f->last_cpu = -1;
	f->start_ns = ktime_get_ns();
	WRITE_ONCE(f->running, true);
	smp_call_function_single(cpu, floor_timer_arm, f, true);
out:
	cpus_read_unlock();
	return ret;
}

static void floor_stop(struct floor *f)
{
	lockdep_assert_held(&f->lock);
	WRITE_ONCE(f->running, false);
	hrtimer_cancel(&f->timer);
}

static ssize_t enable_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(floor_dev.running));
}

static ssize_t enable_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	struct floor *f = &floor_dev;
	int ret = 0;

	mutex_lock(&f->lock);
	if (sysfs_streq(buf, "1")) {
		ret = floor_start(f);
	} else if (sysfs_streq(buf, "0")) {
		floor_stop(f);
	} else {
		pr_err("enable: write 1 or 0\n");
		ret = -EINVAL;
	}
	mutex_unlock(&f->lock);
	return ret ?: count;
}

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	const struct floor *f = &floor_dev;
	u64 taken = READ_ONCE(f->taken);

	return sysfs_emit(buf,
			  "taken %llu\nmissed %llu\nrecorded %llu\n"
			  "lateness_sum_ns %llu\nlateness_max_ns %llu\n"
			  "cpu %d\nrunning %d\n",
			  taken, READ_ONCE(f->missed),
			  min_t(u64, taken, max_records),
			  READ_ONCE(f->late_sum), READ_ONCE(f->late_max),
			  READ_ONCE(f->last_cpu), READ_ONCE(f->running));
}

static ssize_t lateness_read(struct file *file, struct kobject *kobj,
			     struct bin_attribute *attr, char *buf,
			     loff_t off, size_t count)
{
	struct floor *f = &floor_dev;
	ssize_t ret;

	mutex_lock(&f->lock);
	if (f->running)
		ret = -EBUSY;
	else
		ret = memory_read_from_buffer(buf, count, &off, f->late,
					      min_t(u64, f->taken,
						    max_records) *
					      sizeof(*f->late));
	mutex_unlock(&f->lock);
	return ret;
}

static struct kobj_attribute floor_attr_enable = __ATTR_RW(enable);
static struct kobj_attribute floor_attr_stats = __ATTR_RO(stats);

/* Size 0: sysfs leaves the bound to the read function. */
static struct bin_attribute floor_attr_lateness = __BIN_ATTR_RO(lateness, 0);

static struct attribute *floor_attrs[] = {
	&floor_attr_enable.attr,
	&floor_attr_stats.attr,
	NULL,
};

static struct bin_attribute *floor_bin_attrs[] = {
	&floor_attr_lateness,
	NULL,
};

static const struct attribute_group floor_group = {
	.attrs = floor_attrs,
	.bin_attrs = floor_bin_attrs,
};

static int __init floor_init(void)
{
	struct floor *f = &floor_dev;
	int ret;

	if (period_us < FLOOR_PERIOD_US_MIN || period_us > FLOOR_PERIOD_US_MAX) {
		pr_err("period_us: %u is out of range: use %u..%u\n", period_us,
		       FLOOR_PERIOD_US_MIN, FLOOR_PERIOD_US_MAX);
		return -EINVAL;
	}
	if (max_records < FLOOR_RECORDS_MIN || max_records > FLOOR_RECORDS_MAX) {
		pr_err("max_records: %u is out of range: use %u..%u\n",
		       max_records, FLOOR_RECORDS_MIN, FLOOR_RECORDS_MAX);
		return -EINVAL;
	}
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu)) {
		pr_err("cpu: no CPU %d\n", cpu);
		return -EINVAL;
	}
	mutex_init(&f->lock);
	f->period_ns = (u64)period_us * NSEC_PER_USEC;
	f->last_cpu = -1;
	f->late = vmalloc_array(max_records, sizeof(*f->late));
	if (!f->late)
		return -ENOMEM;
	hrtimer_init(&f->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	f->timer.function = floor_timer_fn;
	f->kobj = kobject_create_and_add("ksnap_floor", kernel_kobj);
	if (!f->kobj) {
		ret = -ENOMEM;
		goto err;
	}
	ret = sysfs_create_group(f->kobj, &floor_group);
	if (ret) {
		kobject_put(f->kobj);
		goto err;
	}
	return 0;
err:
	vfree(f->late);
	return ret;
}

static void __exit floor_exit(void)
{
	struct floor *f = &floor_dev;

	sysfs_remove_group(f->kobj, &floor_group);
	kobject_put(f->kobj);
	mutex_lock(&f->lock);
	floor_stop(f);
	mutex_unlock(&f->lock);
	vfree(f->late);
}

module_init(floor_init);
module_exit(floor_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksnap bench floor: an empty pinned hard-irq hrtimer");
MODULE_AUTHOR("ksnap authors");

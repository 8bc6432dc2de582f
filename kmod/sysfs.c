// SPDX-License-Identifier: GPL-2.0
/*
 * The misc device's attributes, /sys/class/misc/ksnap/: enable, metrics,
 * cgroups, period_us, wake_ms, overflow, cpu, and the
 * directories stats/ and plan/ with one value per file.  /sys/kernel/ksnap
 * links to them (deprecated).  ks->lock serialises every store.
 */
#include <linux/cpu.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kobject.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ksnap.h"
#include "parse.h"

/* misc_register() makes the struct miscdevice the device's driver data. */
static struct ksnap *ksnap_from_dev(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct ksnap, misc);
}

/* A bad value is logged escaped, and at most this much of it. */
#define KSNAP_LOG_VALUE_MAX	64

static int ksnap_log_len(const char *buf)
{
	return min_t(size_t, strcspn(buf, "\n"), KSNAP_LOG_VALUE_MAX);
}

/*
 * Every store takes text: a NUL inside the written bytes would hide what
 * follows it ("1\0junk" would read as "1").
 */
static int ksnap_store_text(const char *what, const char *buf, size_t count)
{
	if (strnlen(buf, count) == count)
		return 0;
	pr_err_ratelimited("%s: the value written holds a NUL byte: write text such as '%s'\n",
			   what, what);
	return -EINVAL;
}

/*
 * A list (metrics, cgroups) must come whole in one store and read back
 * whole from one page: sysfs hands a store at most a page, so a longer
 * write() arrives in pieces, the first of which might parse on its own;
 * and a show fills at most a page, its newline included.
 */
#define KSNAP_LIST_BYTES_MAX	(PAGE_SIZE - 2)

static int ksnap_store_list(const char *what, const char *buf, size_t count)
{
	size_t len = count;

	if (ksnap_store_text(what, buf, count))
		return -EINVAL;
	if (len && buf[len - 1] == '\n')
		len--;
	if (count < PAGE_SIZE && len <= KSNAP_LIST_BYTES_MAX)
		return 0;
	pr_err_ratelimited("%s: a list of %zu bytes%s does not fit a page (at most %lu bytes): name fewer entries\n",
			   what, len, count < PAGE_SIZE ? "" : " or more",
			   KSNAP_LIST_BYTES_MAX);
	return -E2BIG;
}

/* A knob that changes only while stopped: -EBUSY and a log line if not. */
static int ksnap_require_stopped(struct ksnap *ks, const char *what)
{
	lockdep_assert_held(&ks->lock);
	if (!ks->running)
		return 0;
	pr_err_ratelimited("%s: busy: stop sampling (echo 0 > enable) first\n",
			   what);
	return -EBUSY;
}

static ssize_t enable_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(ksnap_from_dev(dev)->running));
}

static ssize_t enable_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	bool on, changed;
	int ret = 0;

	/*
	 * Exactly "1" or "0" (and a newline): not kstrtobool(), which
	 * takes "1 0", "yesterday" or 2^64 by their first character.
	 */
	if (ksnap_store_text("enable", buf, count))
		return -EINVAL;
	if (sysfs_streq(buf, "1")) {
		on = true;
	} else if (sysfs_streq(buf, "0")) {
		on = false;
	} else {
		pr_err_ratelimited("enable: '%*pE' is not 1 or 0\n",
				   ksnap_log_len(buf), buf);
		return -EINVAL;
	}

	mutex_lock(&ks->lock);
	changed = on != ks->running;
	if (on)
		ret = ksnap_sampler_start(ks);
	else
		ksnap_sampler_stop(ks);
	mutex_unlock(&ks->lock);
	if (ret)
		return ret;
	if (changed)
		sysfs_notify(&dev->kobj, NULL, "enable");
	return count;
}

/*
 * The metrics sampled, groups expanded (and the defaults for an empty
 * list); when they do not fit in the page, the list as it was written.
 */
static ssize_t metrics_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	const struct ksnap_config *cfg;
	size_t need = 1;
	unsigned int i;
	int len = 0;

	mutex_lock(&ks->lock);
	cfg = ks->cfg;
	for (i = 0; i < cfg->nr_metrics; i++)	/* ",name[NNNNN]" at most */
		need += strlen(ksnap_metrics[cfg->metric[i]].name) + 8;
	if (need >= PAGE_SIZE) {
		len = sysfs_emit(buf, "%s\n", cfg->metrics_arg);
		goto out;
	}
	for (i = 0; i < cfg->nr_metrics; i++) {
		int cpu = cfg->metric_cpu[i];

		len += sysfs_emit_at(buf, len, "%s%s", i ? "," : "",
				     ksnap_metrics[cfg->metric[i]].name);
		if (cpu == KSNAP_CPU_EACH)
			len += sysfs_emit_at(buf, len, "[cpu]");
		else if (cpu >= 0)
			len += sysfs_emit_at(buf, len, "[%d]", cpu);
	}
	len += sysfs_emit_at(buf, len, "\n");
out:
	mutex_unlock(&ks->lock);
	return len;
}

static ssize_t cgroups_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	ssize_t len;

	mutex_lock(&ks->lock);
	len = sysfs_emit(buf, "%s\n", ks->cfg->cgroups_arg);
	mutex_unlock(&ks->lock);
	return len;
}

/*
 * Replace the configuration: stopped, no reader, and all or nothing.  A
 * metrics write keeps the cgroups held (@keep_cgroups); a cgroups write
 * resolves its paths.
 */
static ssize_t ksnap_reconfigure(struct ksnap *ks, const char *what,
				 const char *metrics, const char *cgroups,
				 bool keep_cgroups)
{
	struct ksnap_config *cfg;

	lockdep_assert_held(&ks->lock);
	if (ks->running || ks->open) {
		pr_err_ratelimited("%s: busy: stop sampling (echo 0 > enable) and close /dev/ksnap first\n",
				   what);
		return -EBUSY;
	}
	cfg = ksnap_config_build(metrics, cgroups, &ks->layout,
				 keep_cgroups ? ks->cfg : NULL);
	if (IS_ERR(cfg))
		return PTR_ERR(cfg);
	/* A cgroups write resolves them again: their removals are news again. */
	if (!keep_cgroups)
		ksnap_gone_reset(ks);
	/* Stopped: it cannot fail. */
	return ksnap_install(ks, cfg, KSNAP_INSTALL_PUBLISH);
}

static ssize_t metrics_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	ssize_t ret;

	ret = ksnap_store_list("metrics", buf, count);
	if (ret)
		return ret;
	mutex_lock(&ks->lock);
	ret = ksnap_reconfigure(ks, "metrics", buf, ks->cfg->cgroups_arg, true);
	mutex_unlock(&ks->lock);
	return ret ?: count;
}

static ssize_t cgroups_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	ssize_t ret;

	ret = ksnap_store_list("cgroups", buf, count);
	if (ret)
		return ret;
	mutex_lock(&ks->lock);
	ret = ksnap_reconfigure(ks, "cgroups", ks->cfg->metrics_arg, buf, false);
	mutex_unlock(&ks->lock);
	return ret ?: count;
}

static ssize_t period_us_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  div_u64(READ_ONCE(ksnap_from_dev(dev)->period_ns),
				  NSEC_PER_USEC));
}

static ssize_t period_us_store(struct device *dev, struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	unsigned int us;
	int ret;

	if (ksnap_store_text("period_us", buf, count))
		return -EINVAL;
	/* Digits only: no sign, blanks, base prefix or leading zero. */
	if (ksnap_parse_uint(buf, &us)) {
		pr_err_ratelimited("period_us: '%*pE' is not a number of microseconds (%u..%u)\n",
				   ksnap_log_len(buf), buf, KSNAP_PERIOD_US_MIN,
				   KSNAP_PERIOD_US_MAX);
		return -EINVAL;
	}
	ret = ksnap_config_check_period(us);
	if (ret)
		return ret;

	/*
	 * Not published on the control page here: it keeps the stopped
	 * collection's period for its reader; the next start publishes it.
	 */
	mutex_lock(&ks->lock);
	ret = ksnap_require_stopped(ks, "period_us");
	if (!ret)
		WRITE_ONCE(ks->period_ns, (u64)us * NSEC_PER_USEC);
	mutex_unlock(&ks->lock);
	return ret ?: count;
}

static ssize_t wake_ms_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(ksnap_from_dev(dev)->wake_ms));
}

/* Digits only, in range, while stopped: the next start's wake mark. */
static ssize_t wake_ms_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	unsigned int ms;
	int ret;

	if (ksnap_store_text("wake_ms", buf, count))
		return -EINVAL;
	if (ksnap_parse_uint(buf, &ms)) {
		pr_err_ratelimited("wake_ms: '%*pE' is not a number of milliseconds (%u..%u)\n",
				   ksnap_log_len(buf), buf, KSNAP_WAKE_MS_MIN,
				   KSNAP_WAKE_MS_MAX);
		return -EINVAL;
	}
	ret = ksnap_config_check_wake_ms(ms);
	if (ret)
		return ret;
	mutex_lock(&ks->lock);
	ret = ksnap_require_stopped(ks, "wake_ms");
	if (!ret)
		WRITE_ONCE(ks->wake_ms, ms);
	mutex_unlock(&ks->lock);
	return ret ?: count;
}

static ssize_t overflow_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", READ_ONCE(ksnap_from_dev(dev)->overwrite) ?
			  "overwrite" : "drop");
}

static ssize_t overflow_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	bool overwrite;
	int ret;

	if (ksnap_store_text("overflow", buf, count))
		return -EINVAL;
	ret = ksnap_parse_overflow(buf, &overwrite);
	if (ret) {
		pr_err_ratelimited("overflow: '%*pE' is not drop or overwrite\n",
				   ksnap_log_len(buf), buf);
		return ret;
	}
	mutex_lock(&ks->lock);
	ret = ksnap_require_stopped(ks, "overflow");
	if (!ret)
		WRITE_ONCE(ks->overwrite, overwrite);
	mutex_unlock(&ks->lock);
	return ret ?: count;
}

static ssize_t cpu_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(ksnap_from_dev(dev)->cpu));
}

/* "-1" (the first online housekeeping CPU) or a CPU number; stopped only. */
static ssize_t cpu_store(struct device *dev, struct device_attribute *attr,
			 const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	unsigned int n;
	int cpu, ret;

	if (ksnap_store_text("cpu", buf, count))
		return -EINVAL;
	if (sysfs_streq(buf, "-1")) {
		cpu = -1;
	} else if (!ksnap_parse_uint(buf, &n) && n <= INT_MAX) {
		cpu = n;
	} else {
		pr_err_ratelimited("cpu: '%*pE' is not a CPU number or -1\n",
				   ksnap_log_len(buf), buf);
		return -EINVAL;
	}
	mutex_lock(&ks->lock);
	cpus_read_lock();
	ret = ksnap_cpus_check(cpu);
	cpus_read_unlock();
	if (!ret)
		ret = ksnap_require_stopped(ks, "cpu");
	if (!ret)
		WRITE_ONCE(ks->cpu, cpu);
	mutex_unlock(&ks->lock);
	return ret ?: count;
}

/*
 * plan/: how a snapshot is read (plan.c, cpus.c): the columns by kind, the
 * cache lines one CPU's share touches, and the CPUs read live.  One value
 * per file, read under ks->lock from the configuration in place.
 */
#define KSNAP_PLAN_ATTR(_name, _value)					\
static ssize_t plan_##_name##_show(struct device *dev,			\
				   struct device_attribute *attr,	\
				   char *buf)				\
{									\
	struct ksnap *ks = ksnap_from_dev(dev);				\
	const struct ksnap_config *cfg;					\
	unsigned int value;						\
									\
	mutex_lock(&ks->lock);						\
	cfg = ks->cfg;							\
	value = (_value);						\
	mutex_unlock(&ks->lock);					\
	return sysfs_emit(buf, "%u\n", value);				\
}									\
static struct device_attribute ksnap_plan_attr_##_name =		\
	__ATTR(_name, 0444, plan_##_name##_show, NULL)

KSNAP_PLAN_ATTR(columns, cfg->nr_columns);
KSNAP_PLAN_ATTR(summed_vm_events, cfg->plan.nr_vm);
KSNAP_PLAN_ATTR(summed_cpu_times, cfg->plan.nr_cpustat);
KSNAP_PLAN_ATTR(summed_other, cfg->plan.nr_percpu);
KSNAP_PLAN_ATTR(single, cfg->plan.nr_single + cfg->plan.nr_vm_cpu);
KSNAP_PLAN_ATTR(cache_lines_per_cpu, cfg->plan.lines_per_cpu);

/* The CPUs read live: while running, those the sampler reads; else online. */
static ssize_t plan_live_cpus_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	ssize_t len;

	mutex_lock(&ks->lock);
	raw_spin_lock_irq(&ks->cpus.lock);
	len = sysfs_emit(buf, "%*pbl\n",
			 cpumask_pr_args(ks->cpus.active ?
					 &ks->cpus.live : cpu_online_mask));
	raw_spin_unlock_irq(&ks->cpus.lock);
	mutex_unlock(&ks->lock);
	return len;
}

static struct device_attribute ksnap_plan_attr_live_cpus =
	__ATTR(live_cpus, 0444, plan_live_cpus_show, NULL);

static ssize_t plan_possible_cpus_show(struct device *dev,
				       struct device_attribute *attr,
				       char *buf)
{
	return sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(cpu_possible_mask));
}

static struct device_attribute ksnap_plan_attr_possible_cpus =
	__ATTR(possible_cpus, 0444, plan_possible_cpus_show, NULL);

static struct attribute *ksnap_plan_attrs[] = {
	&ksnap_plan_attr_columns.attr,
	&ksnap_plan_attr_summed_vm_events.attr,
	&ksnap_plan_attr_summed_cpu_times.attr,
	&ksnap_plan_attr_summed_other.attr,
	&ksnap_plan_attr_single.attr,
	&ksnap_plan_attr_cache_lines_per_cpu.attr,
	&ksnap_plan_attr_live_cpus.attr,
	&ksnap_plan_attr_possible_cpus.attr,
	NULL,
};

static const struct attribute_group ksnap_plan_group = {
	.name = "plan",
	.attrs = ksnap_plan_attrs,
};

/*
 * stats/: the collection's counters, one per file.  The counters are the
 * control page's (ksnap_abi.h), each read once; a reader that needs them
 * together, or tied to one collection, reads the mapped control page.
 */
struct ksnap_stat_attr {
	struct device_attribute attr;
	size_t offset;		/* of the __u64 in struct ksnap_stats */
};

static ssize_t ksnap_stat_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	const struct ksnap_stat_attr *sa =
		container_of(attr, struct ksnap_stat_attr, attr);
	const struct ksnap_stats *st = &ksnap_from_dev(dev)->ctrl->stats;
	const __u64 *value = (const void *)st + sa->offset;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(*value));
}

#define KSNAP_STAT_ATTR(_name)						\
	struct ksnap_stat_attr ksnap_stat_attr_##_name = {		\
		.attr.attr = { .name = #_name, .mode = 0444 },		\
		.attr.show = ksnap_stat_show,				\
		.offset = offsetof(struct ksnap_stats, _name),		\
	}

static KSNAP_STAT_ATTR(taken);
static KSNAP_STAT_ATTR(lost);
static KSNAP_STAT_ATTR(missed);
static KSNAP_STAT_ATTR(lateness_sum_ns);
static KSNAP_STAT_ATTR(lateness_max_ns);
static KSNAP_STAT_ATTR(read_sum_ns);
static KSNAP_STAT_ATTR(read_max_ns);
static KSNAP_STAT_ATTR(bad_tail);
static KSNAP_STAT_ATTR(wakeups);
static KSNAP_STAT_ATTR(cpu);
static KSNAP_STAT_ATTR(read_estimate_ns);
static KSNAP_STAT_ATTR(read_bound_ns);
static KSNAP_STAT_ATTR(read_recent_ns);
static KSNAP_STAT_ATTR(exits_lost);
static KSNAP_STAT_ATTR(thinned);

static ssize_t stats_exits_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  ksnap_exits_recorded(ksnap_from_dev(dev)));
}

static struct device_attribute ksnap_stat_attr_exits =
	__ATTR(exits, 0444, stats_exits_show, NULL);

static ssize_t stats_generation_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(ksnap_from_dev(dev)->ctrl->generation));
}

static struct device_attribute ksnap_stat_attr_generation =
	__ATTR(generation, 0444, stats_generation_show, NULL);

/* running or stopped. */
static ssize_t stats_state_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	const struct ksnap_ctrl *ctrl = ksnap_from_dev(dev)->ctrl;

	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(ctrl->state) == KSNAP_STATE_RUNNING ?
			  "running" : "stopped");
}

static struct device_attribute ksnap_stat_attr_state =
	__ATTR(state, 0444, stats_state_show, NULL);

/*
 * The reader of /dev/ksnap: none, open (it has not reported what it has
 * seen yet) or attached (it has, KSNAP_IOC_SEEN: ksnap_abi.h).
 */
static ssize_t stats_reader_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	const char *state;

	mutex_lock(&ks->lock);
	state = !ks->open ? "none" :
		ksnap_reader_attached(ks) ? "attached" : "open";
	mutex_unlock(&ks->lock);
	return sysfs_emit(buf, "%s\n", state);
}

static struct device_attribute ksnap_stat_attr_reader =
	__ATTR(reader, 0444, stats_reader_show, NULL);

/* Why the last collection stopped: none (on request) or overrun. */
static ssize_t stats_stop_reason_show(struct device *dev,
				      struct device_attribute *attr,
				      char *buf)
{
	const struct ksnap_ctrl *ctrl = ksnap_from_dev(dev)->ctrl;

	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(ctrl->stop_reason) == KSNAP_STOP_OVERRUN ?
			  "overrun" : "none");
}

static struct device_attribute ksnap_stat_attr_stop_reason =
	__ATTR(stop_reason, 0444, stats_stop_reason_show, NULL);

/* Periods from one snapshot to the next: 1, or more while thinned. */
static ssize_t stats_stride_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct ksnap *ks = ksnap_from_dev(dev);
	u32 stride;

	mutex_lock(&ks->lock);
	stride = ks->running ? READ_ONCE(ks->run.stride) : 1;
	mutex_unlock(&ks->lock);
	return sysfs_emit(buf, "%u\n", stride);
}

static struct device_attribute ksnap_stat_attr_stride =
	__ATTR(stride, 0444, stats_stride_show, NULL);

/* The set followed while running (follow.c): read under ks->lock. */
struct ksnap_follow_attr {
	struct device_attribute attr;
	size_t offset;		/* of the u64 in struct ksnap_follow_stats */
};

static ssize_t ksnap_follow_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	const struct ksnap_follow_attr *fa =
		container_of(attr, struct ksnap_follow_attr, attr);
	struct ksnap *ks = ksnap_from_dev(dev);
	u64 v;

	mutex_lock(&ks->lock);
	v = *(const u64 *)((const void *)&ks->follow + fa->offset);
	mutex_unlock(&ks->lock);
	return sysfs_emit(buf, "%llu\n", v);
}

#define KSNAP_FOLLOW_ATTR(_name)					\
	struct ksnap_follow_attr ksnap_stat_attr_##_name = {		\
		.attr.attr = { .name = #_name, .mode = 0444 },		\
		.attr.show = ksnap_follow_show,				\
		.offset = offsetof(struct ksnap_follow_stats, _name),	\
	}

static KSNAP_FOLLOW_ATTR(set_changes);
static KSNAP_FOLLOW_ATTR(cgroups_found);
static KSNAP_FOLLOW_ATTR(cgroups_removed);
static KSNAP_FOLLOW_ATTR(cgroups_skipped);
static KSNAP_FOLLOW_ATTR(cgroups_unreadable);
static KSNAP_FOLLOW_ATTR(rescans);
static KSNAP_FOLLOW_ATTR(event_rescans);
static KSNAP_FOLLOW_ATTR(sheds);
static KSNAP_FOLLOW_ATTR(regrows);
static KSNAP_FOLLOW_ATTR(columns_admitted);
static KSNAP_FOLLOW_ATTR(cgroup_price_ns);
static KSNAP_FOLLOW_ATTR(set_change_pause_max_ns);
static KSNAP_FOLLOW_ATTR(set_change_waits);

static struct attribute *ksnap_stats_attrs[] = {
	&ksnap_stat_attr_taken.attr.attr,
	&ksnap_stat_attr_lost.attr.attr,
	&ksnap_stat_attr_missed.attr.attr,
	&ksnap_stat_attr_lateness_sum_ns.attr.attr,
	&ksnap_stat_attr_lateness_max_ns.attr.attr,
	&ksnap_stat_attr_read_sum_ns.attr.attr,
	&ksnap_stat_attr_read_max_ns.attr.attr,
	&ksnap_stat_attr_bad_tail.attr.attr,
	&ksnap_stat_attr_wakeups.attr.attr,
	&ksnap_stat_attr_cpu.attr.attr,
	&ksnap_stat_attr_generation.attr,
	&ksnap_stat_attr_state.attr,
	&ksnap_stat_attr_reader.attr,
	&ksnap_stat_attr_read_estimate_ns.attr.attr,
	&ksnap_stat_attr_read_bound_ns.attr.attr,
	&ksnap_stat_attr_read_recent_ns.attr.attr,
	&ksnap_stat_attr_stop_reason.attr,
	&ksnap_stat_attr_stride.attr,
	&ksnap_stat_attr_thinned.attr.attr,
	&ksnap_stat_attr_set_changes.attr.attr,
	&ksnap_stat_attr_cgroups_found.attr.attr,
	&ksnap_stat_attr_cgroups_removed.attr.attr,
	&ksnap_stat_attr_cgroups_skipped.attr.attr,
	&ksnap_stat_attr_cgroups_unreadable.attr.attr,
	&ksnap_stat_attr_rescans.attr.attr,
	&ksnap_stat_attr_event_rescans.attr.attr,
	&ksnap_stat_attr_sheds.attr.attr,
	&ksnap_stat_attr_regrows.attr.attr,
	&ksnap_stat_attr_columns_admitted.attr.attr,
	&ksnap_stat_attr_cgroup_price_ns.attr.attr,
	&ksnap_stat_attr_set_change_pause_max_ns.attr.attr,
	&ksnap_stat_attr_set_change_waits.attr.attr,
	&ksnap_stat_attr_exits.attr,
	&ksnap_stat_attr_exits_lost.attr.attr,
	NULL,
};

static const struct attribute_group ksnap_stats_group = {
	.name = "stats",
	.attrs = ksnap_stats_attrs,
};

static DEVICE_ATTR_RW(enable);
static DEVICE_ATTR_RW(metrics);
static DEVICE_ATTR_RW(cgroups);
static DEVICE_ATTR_RW(period_us);
static DEVICE_ATTR_RW(wake_ms);
static DEVICE_ATTR_RW(overflow);
static DEVICE_ATTR_RW(cpu);

static struct attribute *ksnap_attrs[] = {
	&dev_attr_enable.attr,
	&dev_attr_metrics.attr,
	&dev_attr_cgroups.attr,
	&dev_attr_period_us.attr,
	&dev_attr_wake_ms.attr,
	&dev_attr_overflow.attr,
	&dev_attr_cpu.attr,
	NULL,
};

static const struct attribute_group ksnap_attr_group = {
	.attrs = ksnap_attrs,
};

/* The misc device's groups: misc_register() adds them before its uevent. */
static const struct attribute_group *ksnap_attr_groups[] = {
	&ksnap_attr_group,
	&ksnap_stats_group,
	&ksnap_plan_group,
	NULL,
};

/*
 * Before misc_register(): the device's groups.  misc_deregister() drains
 * the shows and stores running before it returns.
 */
void ksnap_sysfs_init(struct ksnap *ks)
{
	ks->misc.groups = ksnap_attr_groups;
}

/*
 * /sys/kernel/ksnap, the files' first home, is a link to the device's
 * directory (deprecated).  After misc_register(), when /dev/ksnap may be
 * open already, so not fatal: without it the files are still at
 * /sys/class/misc/ksnap/.
 */
void ksnap_sysfs_link(struct ksnap *ks)
{
	int ret;

	ret = sysfs_create_link(kernel_kobj, &ks->misc.this_device->kobj,
				"ksnap");
	if (ret)
		pr_warn("/sys/kernel/ksnap not linked (%d): the files are at /sys/class/misc/ksnap/\n",
			ret);
	ks->kernel_link = !ret;
}

void ksnap_sysfs_unlink(struct ksnap *ks)
{
	if (ks->kernel_link)
		sysfs_remove_link(kernel_kobj, "ksnap");
	ks->kernel_link = false;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/ksnap/: enable, metrics, cgroups, period_us, wake_ms, overflow,
 * cpu, stats, plan.  ks->lock serialises every store.
 */
#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/kobject.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ksnap.h"
#include "parse.h"

static struct ksnap *ksnap_sysfs_dev;

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

static ssize_t enable_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(ksnap_sysfs_dev->running));
}

static ssize_t enable_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_sysfs_dev;
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
		sysfs_notify(kobj, NULL, "enable");
	return count;
}

/*
 * The metrics sampled, groups expanded (and the defaults for an empty
 * list); when they do not fit in the page, the list as it was written.
 */
static ssize_t metrics_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct ksnap *ks = ksnap_sysfs_dev;
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

static ssize_t cgroups_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct ksnap *ks = ksnap_sysfs_dev;
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
static ssize_t ksnap_reconfigure(const char *what, const char *metrics,
				 const char *cgroups, bool keep_cgroups)
{
	struct ksnap *ks = ksnap_sysfs_dev;
	const struct ksnap_config *cfg, *old;

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
	old = ks->cfg;
	ks->cfg = cfg;
	if (!keep_cgroups)
		ksnap_sampler_cgroups_changed(ks);
	ksnap_ctrl_publish_config(ks);
	ksnap_config_free(old);
	return 0;
}

static ssize_t metrics_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_sysfs_dev;
	ssize_t ret;

	ret = ksnap_store_list("metrics", buf, count);
	if (ret)
		return ret;
	mutex_lock(&ks->lock);
	ret = ksnap_reconfigure("metrics", buf, ks->cfg->cgroups_arg, true);
	mutex_unlock(&ks->lock);
	return ret ?: count;
}

static ssize_t cgroups_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_sysfs_dev;
	ssize_t ret;

	ret = ksnap_store_list("cgroups", buf, count);
	if (ret)
		return ret;
	mutex_lock(&ks->lock);
	ret = ksnap_reconfigure("cgroups", ks->cfg->metrics_arg, buf, false);
	mutex_unlock(&ks->lock);
	return ret ?: count;
}

static ssize_t period_us_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  div_u64(READ_ONCE(ksnap_sysfs_dev->period_ns),
				  NSEC_PER_USEC));
}

static ssize_t period_us_store(struct kobject *kobj,
			       struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_sysfs_dev;
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

static ssize_t wake_ms_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(ksnap_sysfs_dev->wake_ms));
}

/* Digits only, in range, while stopped: the next start's wake mark. */
static ssize_t wake_ms_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_sysfs_dev;
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

static ssize_t overflow_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", READ_ONCE(ksnap_sysfs_dev->overwrite) ?
			  "overwrite" : "drop");
}

static ssize_t overflow_store(struct kobject *kobj,
			      struct kobj_attribute *attr,
			      const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_sysfs_dev;
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

static ssize_t cpu_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(ksnap_sysfs_dev->cpu));
}

/* "-1" (the first online housekeeping CPU) or a CPU number; stopped only. */
static ssize_t cpu_store(struct kobject *kobj, struct kobj_attribute *attr,
			 const char *buf, size_t count)
{
	struct ksnap *ks = ksnap_sysfs_dev;
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
 * How a snapshot is read (plan.c, cpus.c): the columns by kind, the cache
 * lines one CPU's share touches, and the CPUs read live.
 */
static ssize_t plan_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct ksnap *ks = ksnap_sysfs_dev;
	const struct ksnap_plan *p;
	int len;

	mutex_lock(&ks->lock);
	p = &ks->cfg->plan;
	len = sysfs_emit(buf,
			 "columns %u\nsummed_vm_events %u\nsummed_cpu_times %u\n"
			 "summed_other %u\nsingle %u\ncache_lines_per_cpu %u\n",
			 ks->cfg->nr_columns, p->nr_vm, p->nr_cpustat,
			 p->nr_percpu, p->nr_single + p->nr_vm_cpu,
			 p->lines_per_cpu);
	raw_spin_lock_irq(&ks->cpus.lock);
	len += sysfs_emit_at(buf, len, "live_cpus %*pbl\n",
			     cpumask_pr_args(ks->cpus.active ?
					     &ks->cpus.live : cpu_online_mask));
	raw_spin_unlock_irq(&ks->cpus.lock);
	len += sysfs_emit_at(buf, len, "possible_cpus %*pbl\n",
			     cpumask_pr_args(cpu_possible_mask));
	mutex_unlock(&ks->lock);
	return len;
}

/*
 * The reader of /dev/ksnap: none, open (the session is not claimed yet)
 * or attached (it has claimed the consumer page: ksnap_abi.h).
 */
static const char *ksnap_reader_state(struct ksnap *ks)
{
	const char *state;

	mutex_lock(&ks->lock);
	state = !ks->open ? "none" :
		ksnap_reader_claimed(ks) ? "attached" : "open";
	mutex_unlock(&ks->lock);
	return state;
}

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct ksnap *ks = ksnap_sysfs_dev;
	const struct ksnap_ctrl *ctrl = ks->ctrl;
	const struct ksnap_stats *st = &ctrl->stats;

	return sysfs_emit(buf,
			  "taken %llu\nlost %llu\nmissed %llu\n"
			  "lateness_sum_ns %llu\nlateness_max_ns %llu\n"
			  "read_sum_ns %llu\nread_max_ns %llu\nbad_tail %llu\n"
			  "wakeups %llu\ncpu %llu\ngeneration %u\nstate %s\n"
			  "reader %s\nread_estimate_ns %llu\n"
			  "read_bound_ns %llu\nread_recent_ns %llu\n"
			  "stop_reason %s\n",
			  READ_ONCE(st->taken), READ_ONCE(st->lost),
			  READ_ONCE(st->missed), READ_ONCE(st->lateness_sum_ns),
			  READ_ONCE(st->lateness_max_ns),
			  READ_ONCE(st->read_sum_ns), READ_ONCE(st->read_max_ns),
			  READ_ONCE(st->bad_tail), READ_ONCE(st->wakeups),
			  READ_ONCE(st->cpu),
			  READ_ONCE(ctrl->generation),
			  READ_ONCE(ctrl->state) == KSNAP_STATE_RUNNING ?
			  "running" : "stopped", ksnap_reader_state(ks),
			  READ_ONCE(st->read_estimate_ns),
			  READ_ONCE(st->read_bound_ns),
			  READ_ONCE(st->read_recent_ns),
			  READ_ONCE(ctrl->stop_reason) == KSNAP_STOP_OVERRUN ?
			  "overrun" : "none");
}

static struct kobj_attribute ksnap_attr_enable = __ATTR_RW(enable);
static struct kobj_attribute ksnap_attr_metrics = __ATTR_RW(metrics);
static struct kobj_attribute ksnap_attr_cgroups = __ATTR_RW(cgroups);
static struct kobj_attribute ksnap_attr_period_us = __ATTR_RW(period_us);
static struct kobj_attribute ksnap_attr_wake_ms = __ATTR_RW(wake_ms);
static struct kobj_attribute ksnap_attr_overflow = __ATTR_RW(overflow);
static struct kobj_attribute ksnap_attr_stats = __ATTR_RO(stats);
static struct kobj_attribute ksnap_attr_cpu = __ATTR_RW(cpu);
static struct kobj_attribute ksnap_attr_plan = __ATTR_RO(plan);

static struct attribute *ksnap_attrs[] = {
	&ksnap_attr_enable.attr,
	&ksnap_attr_metrics.attr,
	&ksnap_attr_cgroups.attr,
	&ksnap_attr_period_us.attr,
	&ksnap_attr_wake_ms.attr,
	&ksnap_attr_overflow.attr,
	&ksnap_attr_stats.attr,
	&ksnap_attr_cpu.attr,
	&ksnap_attr_plan.attr,
	NULL,
};

static const struct attribute_group ksnap_attr_group = {
	.attrs = ksnap_attrs,
};

int ksnap_sysfs_init(struct ksnap *ks)
{
	int ret;

	ksnap_sysfs_dev = ks;
	ks->kobj = kobject_create_and_add("ksnap", kernel_kobj);
	if (!ks->kobj)
		return -ENOMEM;
	ret = sysfs_create_group(ks->kobj, &ksnap_attr_group);
	if (ret) {
		kobject_put(ks->kobj);
		ks->kobj = NULL;
	}
	return ret;
}

/* After this no store runs: kernfs drains active ones on removal. */
void ksnap_sysfs_uninit(struct ksnap *ks)
{
	sysfs_remove_group(ks->kobj, &ksnap_attr_group);
	kobject_put(ks->kobj);
	ks->kobj = NULL;
}

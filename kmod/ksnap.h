/* SPDX-License-Identifier: GPL-2.0 */
/* ksnap internal interfaces: one section per file. */
#ifndef KSNAP_H
#define KSNAP_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "ksnap_abi.h"
#include "ring.h"

/* period_us= and /sys/kernel/ksnap/period_us, microseconds. */
#define KSNAP_PERIOD_US_MIN	10
#define KSNAP_PERIOD_US_MAX	1000000
#define KSNAP_PERIOD_US_DEFAULT	1000

struct ksnap_cgroup;

/* metrics.c: the registry; adding a counter is one table entry. */
struct ksnap_metric {
	const char *name;
	const char *desc;	/* what it counts, and its unit */
	u32 flags;		/* KSNAP_COL_* */
	u32 freshness;		/* KSNAP_FRESH_* */
	bool per_cgroup;	/* one column per configured cgroup */
	bool by_default;	/* in the list when metrics= is empty */
	int item;		/* the reader's argument (enum item) */
	/* Called from the hrtimer (hardirq): no sleeping, no locks. */
	u64 (*read)(const struct ksnap_metric *m,
		    const struct ksnap_cgroup *cg);
};

extern const struct ksnap_metric ksnap_metrics[];
extern const unsigned int ksnap_nr_metrics;
int ksnap_metric_lookup(const char *name);

/* cgroup.c: a configured cgroup v2 and the references held on it. */
struct ksnap_cgroup {
	struct cgroup *cgrp;
	struct cgroup_subsys_state *memory;	/* its own memory css */
	struct mem_cgroup *memcg;
	char path[KSNAP_FIELD_VALUE_MAX];
};

int ksnap_cgroup_get(struct ksnap_cgroup *cg, const char *path);
void ksnap_cgroup_put(struct ksnap_cgroup *cg);
bool ksnap_cgroup_dying(const struct ksnap_cgroup *cg);

/* config.c: what is sampled; replaced as a whole, only while stopped. */
struct ksnap_source {
	const struct ksnap_metric *metric;
	const struct ksnap_cgroup *cg;	/* NULL for a global metric */
};

struct ksnap_config {
	char *metrics_arg;	/* canonical list as given; "" = default */
	char *cgroups_arg;	/* canonical list */
	unsigned int nr_metrics;
	u16 metric[KSNAP_MAX_COLUMNS];
	unsigned int nr_cgroups;
	struct ksnap_cgroup *cgroups;
	unsigned int nr_columns;
	u32 record_size;
	u32 nr_records;
	struct ksnap_source col[KSNAP_MAX_COLUMNS];
};

struct ksnap_config *ksnap_config_build(const char *metrics,
					const char *cgroups,
					const struct ksnap_layout *l);
void ksnap_config_free(struct ksnap_config *cfg);
int ksnap_config_check_period(unsigned int period_us);

/* The one instance: ring, configuration, timer and device. */
struct ksnap {
	struct mutex lock;	/* configuration, start/stop, open/release */
	struct ksnap_layout layout;
	void *ring;
	struct ksnap_ctrl *ctrl;
	struct ksnap_consumer *consumer;
	u8 *data;
	struct ksnap_config *cfg;
	u64 period_ns;
	u64 start_mono_ns;
	u32 wake_mark;		/* unread records that wake a reader */
	bool running;		/* the timer rearms; READ_ONCE in the timer */
	bool open;		/* a reader holds /dev/ksnap or a mapping */
	struct hrtimer timer;
	struct irq_work wake_work;
	wait_queue_head_t wait;
	struct miscdevice misc;
	struct kobject *kobj;
};

/* ctrl.c: the control page. */
void ksnap_ctrl_init(struct ksnap *ks);
void ksnap_ctrl_write_begin(struct ksnap_ctrl *ctrl);
void ksnap_ctrl_write_end(struct ksnap_ctrl *ctrl);
void ksnap_ctrl_publish_config(struct ksnap *ks);

/* sampler.c: the hrtimer; start/stop with ks->lock held. */
void ksnap_sampler_init(struct ksnap *ks);
int ksnap_sampler_start(struct ksnap *ks);
void ksnap_sampler_stop(struct ksnap *ks);
void ksnap_sampler_uninit(struct ksnap *ks);

/* device.c: /dev/ksnap. */
int ksnap_device_init(struct ksnap *ks);
void ksnap_device_uninit(struct ksnap *ks);

/* sysfs.c: /sys/kernel/ksnap/. */
int ksnap_sysfs_init(struct ksnap *ks);
void ksnap_sysfs_uninit(struct ksnap *ks);

#endif /* KSNAP_H */

// SPDX-License-Identifier: GPL-2.0
/* The catalogue as users see it: KSNAP_IOC_METRIC on /dev/ksnap. */
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "ksnap.h"

/*
 * The offered metrics are numbered 0, 1, 2... in table order: a metric
 * not offered on this kernel (memcgproof.c) takes no number.
 */
static const struct ksnap_metric *ksnap_catalogue_nth(u32 index)
{
	unsigned int i;

	for (i = 0; i < ksnap_nr_metrics; i++) {
		if (!ksnap_metric_offered(&ksnap_metrics[i]))
			continue;
		if (!index--)
			return &ksnap_metrics[i];
	}
	return NULL;
}

/**
 * ksnap_metric_refresh_ns() - the longest time between two updates of @m
 * @m: a metric
 *
 * Return: the tick (1/HZ, which readers cannot learn otherwise) for a
 * tick-counted metric, 1 s or 2 s for one folded or flushed that often,
 * 0 for one read live (ksnap_abi.h, KSNAP_FEAT_REFRESH_NS).
 */
u64 ksnap_metric_refresh_ns(const struct ksnap_metric *m)
{
	switch (m->freshness) {
	case KSNAP_FRESH_TICK:
		return TICK_NSEC;
	case KSNAP_FRESH_1S:
		return NSEC_PER_SEC;
	case KSNAP_FRESH_2S:
		return 2 * NSEC_PER_SEC;
	default:
		return 0;
	}
}

/**
 * ksnap_catalogue_info() - fill in one metric of the catalogue
 * @info: index and reserved set by the caller; the rest is written
 *
 * Return: 0, or -EINVAL past the last metric or for a nonzero reserved
 * field.
 */
int ksnap_catalogue_info(struct ksnap_metric_info *info)
{
	const struct ksnap_metric *m;
	u32 index = info->index;
	unsigned int i;

	if (info->refresh_ns)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(info->reserved); i++)
		if (info->reserved[i])
			return -EINVAL;
	m = ksnap_catalogue_nth(index);
	if (!m)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->index = index;
	info->flags = m->flags;
	if (m->read_cpu && !m->per_cgroup)
		info->flags |= KSNAP_METRIC_PER_CPU;
	if (m->per_cgroup)
		info->flags |= KSNAP_METRIC_PER_CGROUP;
	if (m->by_default)
		info->flags |= KSNAP_METRIC_DEFAULT;
	if (ksnap_metric_unproven(m))
		info->flags |= KSNAP_METRIC_UNPROVEN;
	info->freshness = m->freshness;
	info->refresh_ns = ksnap_metric_refresh_ns(m);
	info->groups = ksnap_metric_groups(m);
	strscpy(info->name, m->name, sizeof(info->name));
	strscpy(info->unit, m->unit, sizeof(info->unit));
	strscpy(info->field, m->per_cgroup ? "cgroup" : m->read_cpu ? "cpu" : "",
		sizeof(info->field));
	strscpy(info->description, ksnap_metric_desc(m),
		sizeof(info->description));
	return 0;
}

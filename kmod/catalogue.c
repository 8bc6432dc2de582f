// SPDX-License-Identifier: GPL-2.0
/* The catalogue as users see it: /sys/kernel/ksnap/available_metrics. */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ksnap.h"
#include "parse.h"

static const char *const ksnap_freshness_name[] = {
	[KSNAP_FRESH_LIVE] = "live",
	[KSNAP_FRESH_TICK] = "tick",
	[KSNAP_FRESH_1S] = "1s",
	[KSNAP_FRESH_2S] = "2s",
};

/**
 * ksnap_catalogue_line() - one line of available_metrics
 * @buf: destination, or NULL with @size 0 to measure
 * @size: room in @buf
 * @m: the metric
 *
 * Tab separated: name, cumulative or gauge, unit, freshness, fields ("cpu",
 * "cgroup" or "-"), description; then a newline.
 *
 * Return: the length of the line (as snprintf()).
 */
static int ksnap_catalogue_line(char *buf, size_t size,
				const struct ksnap_metric *m)
{
	return snprintf(buf, size, "%s\t%s\t%s\t%s\t%s\t%s\n", m->name,
			m->flags & KSNAP_COL_CUMULATIVE ? "cumulative" : "gauge",
			m->unit, ksnap_freshness_name[m->freshness],
			m->per_cgroup ? "cgroup" : m->read_cpu ? "cpu" : "-",
			ksnap_metric_desc(m));
}

/**
 * ksnap_catalogue_text() - the whole of available_metrics
 * @len: its length
 *
 * Process context.  More than a page: sysfs serves it as a binary
 * attribute.
 *
 * Return: a kvmalloc'ed NUL-terminated text, or NULL.
 */
char *ksnap_catalogue_text(size_t *len)
{
	size_t n = 0, size;
	unsigned int i;
	char *text;

	for (i = 0; i < ksnap_nr_metrics; i++)
		if (ksnap_metric_offered(&ksnap_metrics[i]))
			n += ksnap_catalogue_line(NULL, 0, &ksnap_metrics[i]);
	size = n + 1;
	text = kvmalloc(size, GFP_KERNEL);
	if (!text)
		return NULL;
	for (n = 0, i = 0; i < ksnap_nr_metrics; i++)
		if (ksnap_metric_offered(&ksnap_metrics[i]))
			n += ksnap_catalogue_line(text + n, size - n,
						  &ksnap_metrics[i]);
	*len = n;
	return text;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The catalogue as users see it: /sys/kernel/ksnap/available_metrics, and
 * the closest known names for an unknown one.
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ksnap.h"
#include "parse.h"

/**
 * ksnap_metric_suggest() - the known names closest to an unknown one
 * @name: the unknown name
 * @best: filled with up to @n metric indexes, closest first
 * @n: room in @best
 *
 * Close means an edit distance of at most a third of the name's length
 * (at least 2), or the unknown name being a prefix of the known one.
 *
 * Return: how many indexes were stored.
 */
unsigned int ksnap_metric_suggest(const char *name, unsigned int *best,
				  unsigned int n)
{
	unsigned int dist[KSNAP_SUGGEST_MAX], found = 0, i, j, d, limit;
	size_t len = strlen(name);

	limit = max_t(unsigned int, 2, len / 3);
	n = min_t(unsigned int, n, KSNAP_SUGGEST_MAX);
	for (i = 0; i < ksnap_nr_metrics; i++) {
		d = ksnap_edit_distance(name, ksnap_metrics[i].name);
		if (d > limit && len >= 3 &&
		    !strncmp(ksnap_metrics[i].name, name, len))
			d = limit;
		if (d > limit)
			continue;
		for (j = found; j > 0 && dist[j - 1] > d; j--) {
			if (j < n) {
				dist[j] = dist[j - 1];
				best[j] = best[j - 1];
			}
		}
		if (j < n) {
			dist[j] = d;
			best[j] = i;
			if (found < n)
				found++;
		}
	}
	return found;
}

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
int ksnap_catalogue_line(char *buf, size_t size, const struct ksnap_metric *m)
{
	return snprintf(buf, size, "%s\t%s\t%s\t%s\t%s\t%s\n", m->name,
			m->flags & KSNAP_COL_CUMULATIVE ? "cumulative" : "gauge",
			m->unit, ksnap_freshness_name[m->freshness],
			m->per_cgroup ? "cgroup" : m->read_cpu ? "cpu" : "-",
			m->desc);
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
		n += ksnap_catalogue_line(NULL, 0, &ksnap_metrics[i]);
	size = n + 1;
	text = kvmalloc(size, GFP_KERNEL);
	if (!text)
		return NULL;
	for (n = 0, i = 0; i < ksnap_nr_metrics; i++)
		n += ksnap_catalogue_line(text + n, size - n, &ksnap_metrics[i]);
	*len = n;
	return text;
}

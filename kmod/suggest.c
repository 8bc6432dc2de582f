// SPDX-License-Identifier: GPL-2.0
/*
 * "Did you mean": the known metric names closest to an unknown one, for
 * the log line that refuses it.
 */
#include <linux/minmax.h>
#include <linux/string.h>

#include "ksnap.h"
#include "suggest.h"

/**
 * ksnap_edit_distance() - Levenshtein distance between two names
 * @a: NUL-terminated
 * @b: NUL-terminated
 *
 * Insertions, deletions and substitutions cost 1.  Only the first
 * KSNAP_METRIC_NAME_MAX - 1 characters of each string count.
 *
 * Return: the distance.
 */
unsigned int ksnap_edit_distance(const char *a, const char *b)
{
	u8 row[KSNAP_METRIC_NAME_MAX];
	size_t la = strnlen(a, KSNAP_METRIC_NAME_MAX - 1);
	size_t lb = strnlen(b, KSNAP_METRIC_NAME_MAX - 1);
	size_t i, j;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		u8 diag = row[0], up;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = min3(row[j] + 1, row[j - 1] + 1,
				      diag + (a[i - 1] != b[j - 1]));
			diag = up;
		}
	}
	return row[lb];
}

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
		if (!ksnap_metric_offered(&ksnap_metrics[i]))
			continue;
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

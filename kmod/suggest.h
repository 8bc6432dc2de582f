/* SPDX-License-Identifier: GPL-2.0 */
/* suggest.c: close names for an unknown metric; pure but for the table. */
#ifndef KSNAP_SUGGEST_H
#define KSNAP_SUGGEST_H

#include <linux/types.h>

#define KSNAP_SUGGEST_MAX	3

unsigned int ksnap_edit_distance(const char *a, const char *b);
unsigned int ksnap_metric_suggest(const char *name, unsigned int *best,
				  unsigned int n);

#endif /* KSNAP_SUGGEST_H */

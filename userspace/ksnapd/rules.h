/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's rules as given: --trigger RULE (each) and --rules FILE (one rule
 * a line; blank lines and lines starting with '#' skipped, a '#' after a
 * blank ends the line), parsed at startup, then checked against the
 * module's columns once the device is open.  Every error names where the
 * rule came from ("--trigger 2", "FILE:7"), the rule, the position, and
 * what was expected; ksnapd then exits 2.
 */
#ifndef KSNAPD_RULES_H
#define KSNAPD_RULES_H

#include <stdio.h>

#include "ring.h"
#include "rule.h"

#define RULES_MAX	256

struct rules {
	struct rule *rule;
	char (*from)[64];	/* where each came from */
	unsigned int n;
};

/* Returns 0 or -errno (an error said on log). */
int rules_add(struct rules *rs, const char *text, const char *from,
	      FILE *log);
/* Every rule of the file; returns 0 or -errno (said on log). */
int rules_load(struct rules *rs, const char *path, FILE *log);
/* Bind each to the columns; returns 0 or -EINVAL (each error said). */
int rules_check(struct rules *rs, const struct ksnap_column *cols,
		uint32_t n, FILE *log);
void rules_free(struct rules *rs);

#endif /* KSNAPD_RULES_H */

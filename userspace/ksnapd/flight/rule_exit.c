// SPDX-License-Identifier: MIT
/*
 * Exit rules (rule.h): trigger rules on the exit records of the cgroups a
 * collection's patterns match, rather than on its rows.  An exit record
 * is seen as a set of columns named exit.VALUE[cgroup], one per value it
 * has, so that such a rule is parsed, bound and evaluated as any other.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rule.h"

static const struct {
	const char *metric;
	uint32_t flags;
} exit_values[RULE_EXIT_VALUES] = {
	{ "exit.cpu_usage", KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS },
	{ "exit.cpu_user", KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS },
	{ "exit.cpu_system", KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS },
	{ "exit.lifetime", KSNAP_COL_NANOSECONDS },
	{ "exit.memory_peak", 0 },
	{ "exit.oom", KSNAP_COL_CUMULATIVE },
	{ "exit.oom_kill", KSNAP_COL_CUMULATIVE },
};

/* Does node x name an exit value (its text begins "exit.")? */
static bool node_is_exit(const struct rule *r, const struct rule_node *x)
{
	return x->op == RULE_COL && x->len > 5 &&
	       !strncmp(r->text + x->pos, "exit.", 5);
}

bool rule_is_exit(const struct rule *r)
{
	int i;

	for (i = 0; i < r->nr_nodes; i++)
		if (node_is_exit(r, &r->node[i]))
			return true;
	return false;
}

static int exit_error(struct rule_error *e, const struct rule_node *x,
		      const char *fmt, const char *what, int len)
{
	e->pos = x->pos;
	snprintf(e->msg, sizeof(e->msg), fmt, len, what);
	return -EINVAL;
}

int rule_exit_check(const struct rule *r, struct rule_error *e)
{
	const struct rule_node *x;
	const char *t, *open;
	size_t ml;
	int i, k;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < r->nr_nodes; i++) {
		x = &r->node[i];
		t = r->text + x->pos;
		if (x->op == RULE_RATE || x->op == RULE_AVG) {
			e->pos = x->pos;
			snprintf(e->msg, sizeof(e->msg), "rate() and avg() "
				 "take rows: a rule on exits compares one "
				 "exit record's values");
			return -EINVAL;
		}
		if (x->op != RULE_COL)
			continue;
		if (!node_is_exit(r, x))
			return exit_error(e, x, "'%.*s' is a column of the "
					  "rows: expected exit.VALUE[CGROUP] "
					  "only, in a rule on exits", t,
					  x->len);
		open = memchr(t, '[', x->len);
		if (!open || t[x->len - 1] != ']')
			return exit_error(e, x, "'%.*s': expected the cgroups "
					  "it is for, exit.VALUE[PATTERN]", t,
					  x->len);
		ml = (size_t)(open - t);
		for (k = 0; k < RULE_EXIT_VALUES; k++)
			if (strlen(exit_values[k].metric) == ml &&
			    !strncmp(exit_values[k].metric, t, ml))
				break;
		if (k == RULE_EXIT_VALUES)
			return exit_error(e, x, "unknown exit value '%.*s': "
					  "expected exit.cpu_usage, cpu_user, "
					  "cpu_system, lifetime, memory_peak, "
					  "oom or oom_kill", t, (int)ml);
	}
	if (r->for_ns) {
		e->pos = 0;
		snprintf(e->msg, sizeof(e->msg), "for: an exit is one moment: "
			 "expected no for clause in a rule on exits");
		return -EINVAL;
	}
	return 0;
}

uint32_t rule_exit_columns(const struct ksnap_exit *x,
			   struct ksnap_column *cols, __u64 *v)
{
	__u64 all[RULE_EXIT_VALUES] = {
		x->cpu_usage_ns, x->cpu_user_ns, x->cpu_system_ns,
		x->time_ns - x->born_ns, x->memory_peak, x->memory_oom,
		x->memory_oom_kill,
	};
	uint32_t n = 0;
	int k;

	for (k = 0; k < RULE_EXIT_VALUES; k++) {
		/* What the record does not have is no column: a rule on it
		 * does not bind. */
		if (k == 3 && !(x->flags & KSNAP_EXIT_BORN))
			continue;
		if (k >= 4 && !(x->flags & KSNAP_EXIT_MEMORY))
			continue;
		memset(&cols[n], 0, sizeof(cols[n]));
		snprintf(cols[n].metric, sizeof(cols[n].metric), "%s",
			 exit_values[k].metric);
		snprintf(cols[n].field, sizeof(cols[n].field), "cgroup");
		snprintf(cols[n].value, sizeof(cols[n].value), "%.*s",
			 (int)sizeof(x->path), x->path);
		cols[n].flags = exit_values[k].flags;
		v[n++] = all[k];
	}
	return n;
}

// SPDX-License-Identifier: MIT
/* ksnapd's flight recorder options at startup (flightopt.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flight.h"
#include "flightopt.h"
#include "history.h"
#include "ringsize.h"

/* The rules, one line each, for --check-rules. */
static void list_rules(const struct rules *rs, FILE *log)
{
	unsigned int i;

	for (i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->rule[i];

		fprintf(log, "ksnapd: rule %s (%s): for %gs cooldown %gs pre "
			"%gs post %gs: %s\n", r->name, rs->from[i],
			(double)r->for_ns / 1e9, (double)r->cooldown_ns / 1e9,
			(double)r->pre_ns / 1e9, (double)r->post_ns / 1e9,
			r->text);
	}
}

/* What the history will hold for these rules at the ring's period. */
static void say_history(const struct rules *rs, const struct ksnap_coll *c,
			uint64_t history_ns, FILE *log)
{
	struct history h = { 0 };
	uint64_t span = history_ns, s;
	char line[160];
	unsigned int i;

	for (i = 0; i < rs->n; i++) {
		s = rs->rule[i].pre_ns + rs->rule[i].for_ns;
		if (s > span)
			span = s;
	}
	if (!c->period_ns || !span ||
	    history_size(&h, span, c->period_ns, c->nr_columns))
		return;
	flight_history_line(line, sizeof(line), span, c->period_ns,
			    c->nr_columns, history_bytes(&h));
	history_free(&h);
	fprintf(log, "ksnapd: %s\n", line);
}

int flightopt_check(const struct ksnap_ring *r, struct rules *rs,
		    uint64_t history_ns, bool check_only, FILE *log)
{
	struct ksnap_coll c = { 0 };
	int ret;

	ret = ksnap_ring_read_coll_columns(r, &c);
	if (ret) {
		fprintf(log, "ksnapd: cannot read the module's columns: %s\n",
			strerror(-ret));
		goto out;
	}
	ret = rules_check(rs, c.columns, c.nr_columns, log);
	if (ret)
		goto out;
	if (check_only) {
		list_rules(rs, log);
		fprintf(log, "ksnapd: %u rule%s: OK against the %u columns of "
			"the loaded module\n", rs->n, rs->n == 1 ? "" : "s",
			c.nr_columns);
	}
	say_history(rs, &c, history_ns, log);
out:
	free(c.columns);
	return ret;
}

void flightopt_ring_history(const struct ksnap_ring *r, uint64_t history_ns,
			    FILE *log)
{
	struct ksnap_coll c = { 0 };
	uint64_t span;

	if (!history_ns || ksnap_ring_read_coll(r, &c) || !c.period_ns)
		return;
	span = ringsize_span_ns(r->nr_records, c.period_ns);
	if (span >= history_ns)
		return;
	fprintf(log, "ksnapd: --history %gs: the module's ring holds %.3f s "
		"at this period and column count (%u records): --slice without "
		"a daemon reaches back that far only; load ksnap with a larger "
		"ring_kb=, or with ksnapd --load --history\n",
		(double)history_ns / 1e9, (double)span / 1e9, r->nr_records);
}

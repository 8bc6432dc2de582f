/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder: a consumer (consumer.h) beside the output file.
 * It evaluates every trigger rule (rule.h) on every row, at the sampling
 * rate, on the rows' kernel timestamps; keeps the last rows in memory
 * (history.h) for the rules' pre windows and for slices; writes one dump
 * (dump.h) per event into the dump directory, and logs every state change
 * in DIR/events.jsonl (events.h).  It also serves ksnapd --slice from its
 * history and the rows that follow (slicesrv.h).
 *
 * A rule, row by row:
 *  - The condition holds: a run begins (event "pending" when the rule has
 *    a for).  Once it has held on every row for `for` (t - run start >=
 *    for), the rule fires.  A gap of more than 1.5 periods between two
 *    rows (missed periods, lost or overwritten snapshots) ends the run
 *    (event "reset", reason "gap", with the gap) when the condition holds
 *    after it, and a new run begins: rows that are not there are not
 *    taken to have held.
 *  - It fires: with no dump open and no cooldown, a dump opens (event
 *    "firing", with the values of the comparisons' operands): every row
 *    from pre before the run began (what the history has: "pre_available_ns"
 *    says how much when it is less) to the current one, then every row as
 *    it comes.  Inside an open dump's post window, a new fire extends it
 *    ("firing", "extends").  During the cooldown, it is "suppressed"
 *    (reason "cooldown"), once until the condition stops holding (a gap
 *    does not make it a new spike); past --max-dumps, "suppressed"
 *    (reason "limit").
 *  - The condition stops holding: "resolved" (with "fired").
 *  - post after the condition last held (or when the collection ends:
 *    "truncated"), the dump ends: STATS, event "dump" (path, rows, first
 *    and last row times, gaps).  The cooldown starts then, at the dump's
 *    last row; a rule still firing when its cooldown ends fires again,
 *    its dump's pre counted from then.
 *  - A rule whose columns the collection does not have is "disabled" for
 *    that collection (said on the log).
 *  - A rule that names columns by cgroup pattern (rule.h) stands for one
 *    rule per cgroup of the stream's columns that it matches, each with
 *    its own run, dump and cooldown; its events carry "cgroup", its dumps'
 *    STATS ksnapd_dump_cgroup_column (the column, from 0 after the time).
 *    The cgroups are found again at every stream (a set change begins
 *    one): a cgroup that comes is watched from the stream that has it.
 *  - A rule on exits (exit.VALUE[PATTERN], rule.h) is evaluated on each
 *    exit record of the collection instead of on rows: it fires at the
 *    record's exit time (its dump's pre counted back from it, its post
 *    forward), one dump at a time for the rule, with its cooldown; its
 *    events carry the values, and its dump's STATS lists the record.
 *
 * Dumps are named DIR/RULE-N.tsv (lossy: .log), N from 1, the first name
 * that does not exist.
 */
#ifndef KSNAPD_FLIGHT_H
#define KSNAPD_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "consumer.h"
#include "dump.h"
#include "events.h"
#include "history.h"
#include "rule.h"
#include "slicesrv.h"

#define FLIGHT_MAX_RULES	256

struct flight_config {
	const char *dump_dir;	/* NULL: no rules, slices only */
	bool lossy;		/* dumps and slices in the lossy format */
	uint64_t history_ns;	/* --history: at least this in memory */
	unsigned int max_dumps;	/* per run; 0: no limit */
	FILE *log;
};

enum flight_dump_state { FLIGHT_IDLE, FLIGHT_DUMPING, FLIGHT_COOLDOWN };

struct flight_rule {
	struct rule rule;
	char *cgroup;		/* a pattern rule's cgroup, or NULL */
	bool enabled;		/* bound to this collection's columns */
	struct rule_eval ev;
	/* The condition's run. */
	bool holding, fired, suppressed;
	uint64_t run_start, last_true;
	/* Its dump. */
	enum flight_dump_state ds;
	struct dump dump;
	bool opened_now;	/* at this row: the row is in it already */
	uint64_t trigger_t, fire_t, cooldown_until;
	unsigned int fires;
	/* A rule on exits (rule.h): not evaluated on rows; the record it
	 * last fired on, listed in its dump's STATS. */
	bool exit;
	const struct rule *tmpl;
	struct ksnap_exit exit_rec;
	struct ksnap_identity exit_id;	/* who exit_rec's cgroup was */
};


struct flight {
	struct flight_config cfg;
	struct rule *tmpl;		/* the rules as given */
	unsigned int nr_tmpl;
	/* As bound to the stream's columns: each rule, a pattern rule
	 * once per cgroup it matches. */
	struct flight_rule *rules;
	unsigned int nr_rules, cap_rules;
	struct history hist;
	struct events ev;
	const struct ksnap_coll *coll;	/* from begin() to end() */
	uint64_t prev_t;
	bool have_prev;
	unsigned int dumps;		/* opened in this run */
	uint64_t triggers;		/* rules' fires in this run */
	struct flight_slices slices;
	char *err;
	size_t errlen;
};

/*
 * Set up with the rules parsed already (copied).  Opens the events log
 * when there are rules.  Returns 0 or -errno with err set.
 */
int flight_init(struct flight *f, const struct flight_config *cfg,
		const struct rule *rules, unsigned int nr_rules, char *err,
		size_t errlen);
void flight_fini(struct flight *f);

extern const struct ksnapd_consumer_ops flight_ops;

/*
 * The history f keeps for a collection of nr_columns at period_ns, as
 * "history: 10 s x 16 columns at 1 kHz = 1.3 MiB", into buf.
 */
void flight_history_line(char *buf, size_t size, uint64_t span_ns,
			 uint64_t period_ns, uint32_t nr_columns,
			 size_t bytes);
/* What the history must span: the rules' longest pre + for + window,
 * or --history. */
uint64_t flight_span(const struct flight *f);

/* --- slices (slicesrv.h) ------------------------------------------------- */

/*
 * Serve a slice: the rows from begin_rel to end_rel ns around the last
 * row (negative: before it), as a stream into out_fd; the reply (one
 * line, "ok ..." or "error ...") goes to client_fd when it is written,
 * now or when the row at end_rel has come.  Both descriptors are f's.
 */
void flight_slice_start(struct flight *f, int64_t begin_rel,
			int64_t end_rel, bool lossy, int out_fd,
			int client_fd);

#endif /* KSNAPD_FLIGHT_H */

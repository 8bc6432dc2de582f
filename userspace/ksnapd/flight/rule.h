/* SPDX-License-Identifier: MIT */
/*
 * Trigger rules of the flight recorder (flight.h): their text, parsed
 * (rule_parse.c), bound to a collection's columns (rule_bind.c) and
 * evaluated on every row (rule_eval.c).
 *
 *   [NAME:] CONDITION [for D] [cooldown D] [pre D] [post D]
 *
 *   CONDITION := or
 *   or        := and { "or" and }
 *   and       := cmp { "and" cmp }
 *   cmp       := sum [ ("<" | "<=" | ">" | ">=" | "==" | "!=") sum ]
 *   sum       := term { ("+" | "-") term }
 *   term      := unary { ("*" | "/") unary }
 *   unary     := "-" unary | primary
 *   primary   := NUMBER ["%" [primary]] | NUMBER "/" ("s"|"ms"|"us"|"m"|"h")
 *              | COLUMN | "rate(" sum ["," D] ")" | "avg(" sum "," D ")"
 *              | "(" CONDITION ")"
 *   NUMBER    := digits ["." digits] ["k"|"M"|"G"|"KiB"|"MiB"|"GiB"]
 *   D         := NUMBER ("us"|"ms"|"s"|"m"|"h")  (or 0)
 *   COLUMN    := the stream's column name: metric or metric[value], or
 *                metric[PATTERN], a cgroup pattern (lib/cgpattern.h)
 *
 * "N% X" is N/100 times X; a "N%" that no value follows is N/100 (rates
 * of ns counters are shares of wall time: 100% is one CPU busy).
 * Values are doubles; a value that cannot be known yet (a rate or an
 * average without rows before it) is NaN, and every comparison with it is
 * false.  "and" and "or" evaluate both sides: windows see every row.
 *
 * Nodes are stored children first, so evaluating them in index order
 * evaluates every child before its parent, with no recursion.
 */
#ifndef KSNAPD_RULE_H
#define KSNAPD_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "column.h"
#include "ksnap_abi.h"

#define RULE_TEXT_MAX	512
#define RULE_NAME_MAX	32
#define RULE_MAX_NODES	64
#define RULE_MAX_WINDOWS 8
/* Longest window of rate() and avg(), and longest pre/post/for. */
#define RULE_MAX_WINDOW_NS	(3600ULL * 1000000000ULL)

/* Defaults of the clauses (the issue's: for 0, cooldown 60s, pre 5s,
 * post 1s); rate()'s default window. */
#define RULE_DEFAULT_COOLDOWN_NS	(60ULL * 1000000000ULL)
#define RULE_DEFAULT_PRE_NS		(5ULL * 1000000000ULL)
#define RULE_DEFAULT_POST_NS		(1ULL * 1000000000ULL)
#define RULE_DEFAULT_RATE_NS		(100ULL * 1000000ULL)

enum rule_op {
	RULE_CONST,
	RULE_COL,	/* a column's value */
	RULE_NEG,
	RULE_ADD, RULE_SUB, RULE_MUL, RULE_DIV,
	RULE_LT, RULE_LE, RULE_GT, RULE_GE, RULE_EQ, RULE_NE,
	RULE_AND, RULE_OR,
	RULE_RATE,	/* per second, or a share of wall time (ns) */
	RULE_AVG,	/* mean of the rows before, within the window */
};

struct rule_node {
	enum rule_op op;
	int16_t a, b;		/* children, -1 when none */
	uint16_t pos, len;	/* the node's text: text[pos, pos + len) */
	double k;		/* RULE_CONST */
	uint32_t col;		/* RULE_COL, once bound */
	uint64_t window_ns;	/* RULE_RATE, RULE_AVG */
	int8_t win;		/* RULE_RATE, RULE_AVG: its window's index */
	bool ns;		/* RULE_RATE of ns counters: a share */
};

struct rule {
	char text[RULE_TEXT_MAX];	/* as given */
	char name[RULE_NAME_MAX];	/* NAME, or "ruleN" */
	struct rule_node node[RULE_MAX_NODES];
	int nr_nodes;
	int root;
	int nr_windows;
	uint64_t for_ns, cooldown_ns, pre_ns, post_ns;
	/* A pattern rule bound to one cgroup (flight.c): that cgroup, and
	 * the column its first pattern column names; NULL otherwise. */
	const char *cgroup;
	uint32_t cgroup_col;
};

/* Where a rule is wrong: the byte of text, and what was expected. */
struct rule_error {
	unsigned int pos;
	char msg[256];
};

/*
 * Parse text into r, named "rule<index>" when it names itself not.
 * Returns 0, or -EINVAL with e set (position and message).
 */
int rule_parse(struct rule *r, const char *text, unsigned int index,
	       struct rule_error *e);

/*
 * Bind r's column names to the columns cols[0..n) (their stream names):
 * an unknown column, a rate() of a gauge or of ns and other counters
 * mixed is an error.  Returns 0 or -EINVAL with e set.
 */
int rule_bind(struct rule *r, const struct ksnap_column *cols, uint32_t n,
	      struct rule_error *e);

/*
 * Rules that name columns by cgroup pattern, metric[PATTERN], as the
 * module's cgroups list takes them (docs/interface.md; '*' one component,
 * "**" any number; a trailing "**" up to KSNAP_CGPATTERN_DEPTH_MAX, the
 * module having bounded its own matches already): such a rule stands for
 * one rule per matching cgroup, every pattern column of it taken as that
 * cgroup's column (flight.c evaluates each on its own).
 *
 * rule_has_pattern(): does r name a column by pattern?
 * rule_cgroups(): the columns among cols[0..n) its first pattern column
 *   matches, one per cgroup (the first, should a set name a cgroup's
 *   column twice), their indices into out (at most max); returns how
 *   many.  A cgroup that several of the rule's patterns match is one
 *   rule, as the module samples it once.
 * rule_bind_cgroup(): bind r with its pattern columns taken as
 *   metric[cgroup] (cgroup NULL: the first column that matches, as
 *   rule_bind() does).  Returns 0, -EINVAL (as rule_bind()), or -ENOENT
 *   when a pattern column has no such column now, with e set.
 */
bool rule_has_pattern(const struct rule *r);
int rule_cgroups(const struct rule *r, const struct ksnap_column *cols,
		 uint32_t n, uint32_t *out, uint32_t max);
int rule_bind_cgroup(struct rule *r, const struct ksnap_column *cols,
		     uint32_t n, const char *cgroup, struct rule_error *e);

/*
 * Rules on exits (rule_exit.c): a rule whose columns are exit.VALUE[...]
 * fires on the exit records of the cgroups a collection's patterns match
 * (docs/format.md, "Exits"), not on rows: exit.cpu_usage, cpu_user,
 * cpu_system, lifetime (ns), memory_peak (bytes), oom, oom_kill, each
 * with the cgroup (a path or a pattern) in brackets:
 *
 *	oomkill: exit.oom_kill[PATTERN] > 0 pre 10s post 1s
 *
 * rule_is_exit(): does r name an exit value?
 * rule_exit_check(): only exit values, known ones with a cgroup, no
 *   rate() or avg(), no for.  Returns 0 or -EINVAL with e set.
 * rule_exit_columns(): an exit record as columns exit.VALUE[its cgroup]
 *   (those it has: lifetime with a birth, memory_* with a memory
 *   controller) into cols, their values into v; returns how many (at
 *   most RULE_EXIT_VALUES).  rule_bind_cgroup(r, cols, n, x->path, e)
 *   then binds a rule to one record, or fails when it is not for it.
 */
#define RULE_EXIT_VALUES	7

bool rule_is_exit(const struct rule *r);
int rule_exit_check(const struct rule *r, struct rule_error *e);
uint32_t rule_exit_columns(const struct ksnap_exit *x,
			   struct ksnap_column *cols, __u64 *v);

/*
 * "ksnapd: rule NAME: position P: MSG" and the text with a caret under P,
 * into buf.
 */
void rule_format_error(char *buf, size_t size, const struct rule *r,
		       const char *text, const struct rule_error *e);

/* A column's stream name, "metric" or "metric[value]", into buf. */
void rule_column_name(char *buf, size_t size, const struct ksnap_column *c);

/* The longest window of r's rate() and avg(), ns. */
uint64_t rule_longest_window(const struct rule *r);

/* --- evaluation (rule_eval.c) --------------------------------------------- */

/* A window's rows: (time, value) in a ring of cap entries. */
struct rule_window {
	uint64_t *t;
	double *v;
	uint32_t cap, first, len;
	double sum;		/* avg: sum of v over the entries */
	double mono, last_raw;	/* rate: reset-free running count */
	bool have_last;
	uint64_t resets;	/* rate: decreases seen (counter resets) */
};

struct rule_eval {
	const struct rule *r;
	double *val;		/* one per node */
	struct rule_window win[RULE_MAX_WINDOWS];
};

/*
 * Windows sized for rows every period_ns.  Returns 0 or -ENOMEM.
 */
int rule_eval_init(struct rule_eval *ev, const struct rule *r,
		   uint64_t period_ns);
void rule_eval_fini(struct rule_eval *ev);
/* Forget the rows seen (a new collection). */
void rule_eval_reset(struct rule_eval *ev);
/* Bytes the windows hold at most. */
size_t rule_eval_bytes(const struct rule_eval *ev);

/* The condition on one row (time t, values v): true or false. */
bool rule_eval_row(struct rule_eval *ev, uint64_t t, const __u64 *v);

/*
 * The operands of the comparisons, as JSON members ("text":value,...)
 * from the last row evaluated, into buf.  Returns the length.
 */
size_t rule_eval_values(const struct rule_eval *ev, char *buf, size_t size);

#endif /* KSNAPD_RULE_H */

// SPDX-License-Identifier: MIT
/* The flight recorder: rules on every row, dumps, events (flight.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "flight.h"
#include "identity.h"

#define VALUES_MAX	2048
/* Tries of DIR/RULE-1.tsv, -2, ... */
#define DUMP_NAMES_MAX	100000

static int begin(void *self, const struct ksnap_coll *c, uint64_t first);
static int row(void *self, const struct ksnap_record *rec);
static int flush(void *self);
static int end(void *self, const struct ksnapd_end *e);
static int on_exit_record(void *self, const struct ksnap_exit *x);

const struct ksnapd_consumer_ops flight_ops = {
	.begin = begin,
	.row = row,
	.flush = flush,
	.end = end,
	.exit = on_exit_record,
};

/* A notice on the log, out at once. */
#define say(f, ...) ksnap_say((f)->cfg.log, true, __VA_ARGS__)

int flight_init(struct flight *f, const struct flight_config *cfg,
		const struct rule *rules, unsigned int nr_rules, char *err,
		size_t errlen)
{
	unsigned int i;
	int ret;

	memset(f, 0, sizeof(*f));
	f->cfg = *cfg;
	f->err = err;
	f->errlen = errlen;
	f->ev.fd = -1;
	f->tmpl = calloc(nr_rules ? nr_rules : 1, sizeof(*f->tmpl));
	f->rules = calloc(nr_rules ? nr_rules : 1, sizeof(*f->rules));
	if (!f->rules || !f->tmpl) {
		free(f->rules);
		free(f->tmpl);
		f->rules = NULL;
		f->tmpl = NULL;
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	f->nr_tmpl = nr_rules;
	f->nr_rules = nr_rules;
	f->cap_rules = nr_rules ? nr_rules : 1;
	for (i = 0; i < nr_rules; i++) {
		f->tmpl[i] = rules[i];
		f->rules[i].rule = rules[i];
	}
	flight_slices_init(&f->slices);
	if (!nr_rules || !cfg->dump_dir)
		return 0;
	ret = events_open(&f->ev, cfg->dump_dir, cfg->log);
	if (ret) {
		snprintf(err, errlen, "%.200s: %s", f->ev.path, strerror(-ret));
		flight_fini(f);
	}
	return ret;
}

void flight_fini(struct flight *f)
{
	unsigned int i;

	for (i = 0; f->rules && i < f->nr_rules; i++) {
		if (f->rules[i].dump.open)
			dump_abort(&f->rules[i].dump);
		rule_eval_fini(&f->rules[i].ev);
		free(f->rules[i].cgroup);
	}
	free(f->rules);
	f->rules = NULL;
	free(f->tmpl);
	f->tmpl = NULL;
	history_free(&f->hist);
	events_close(&f->ev);
}

uint64_t flight_span(const struct flight *f)
{
	uint64_t span = f->cfg.history_ns, s;
	unsigned int i;

	for (i = 0; i < f->nr_tmpl; i++) {
		const struct rule *r = &f->tmpl[i];

		s = r->pre_ns + r->for_ns;
		if (s > span)
			span = s;
	}
	return span;
}

void flight_history_line(char *buf, size_t size, uint64_t span_ns,
			 uint64_t period_ns, uint32_t nr_columns,
			 size_t bytes)
{
	double hz = period_ns ? 1e9 / (double)period_ns : 0;

	snprintf(buf, size, "history: %g s x %u columns at %g %sHz = %.1f MiB",
		 (double)span_ns / 1e9, nr_columns,
		 hz >= 1000 ? hz / 1000 : hz, hz >= 1000 ? "k" : "",
		 (double)bytes / 1048576.0);
}

/* --- a collection begins ------------------------------------------------ */

static void bind_rule(struct flight *f, struct flight_rule *fr)
{
	const struct ksnap_coll *c = f->coll;
	struct rule_error e;
	char msg[1024];

	rule_eval_fini(&fr->ev);
	fr->enabled = false;
	fr->ds = FLIGHT_IDLE;
	fr->holding = fr->fired = false;
	if (rule_bind_cgroup(&fr->rule, c->columns, c->nr_columns, fr->cgroup,
			     &e)) {
		rule_format_error(msg, sizeof(msg), &fr->rule, fr->rule.text,
				  &e);
		say(f, "ksnapd: collection %u: %sksnapd: rule %s disabled for "
		    "this %s\n", c->generation, msg, fr->rule.name,
		    fr->cgroup ? "cgroup in this stream" : "collection");
		events_write(&f->ev, &fr->rule, c, 0, "disabled",
			     ",\"why\":\"%s\"", "a column is missing");
		return;
	}
	if (rule_eval_init(&fr->ev, &fr->rule, c->period_ns))
		return;
	fr->enabled = true;
}

/* The rules bound to the last stream's columns, let go. */
static void drop_rules(struct flight *f)
{
	unsigned int i;

	for (i = 0; i < f->nr_rules; i++) {
		rule_eval_fini(&f->rules[i].ev);
		free(f->rules[i].cgroup);
	}
	memset(f->rules, 0, f->nr_rules * sizeof(*f->rules));
	f->nr_rules = 0;
}

/* Rule r (for cgroup, or NULL) as one more of f->rules; NULL: ENOMEM. */
static struct flight_rule *add_rule(struct flight *f, const struct rule *r,
				    const char *cgroup)
{
	struct flight_rule *fr;

	if (f->nr_rules == f->cap_rules) {
		fr = realloc(f->rules, 2 * f->cap_rules * sizeof(*fr));
		if (!fr)
			return NULL;
		f->rules = fr;
		f->cap_rules *= 2;
	}
	fr = &f->rules[f->nr_rules];
	memset(fr, 0, sizeof(*fr));
	fr->rule = *r;
	if (cgroup) {
		fr->cgroup = strdup(cgroup);
		if (!fr->cgroup)
			return NULL;
		fr->rule.cgroup = fr->cgroup;
	}
	f->nr_rules++;
	return fr;
}

/* A pattern rule, once per cgroup of the stream it matches. */
static int add_pattern_rule(struct flight *f, const struct rule *r)
{
	const struct ksnap_coll *c = f->coll;
	char v[KSNAP_FIELD_VALUE_MAX + 1];
	struct flight_rule *fr;
	uint32_t *idx;
	int n, i;

	idx = calloc(c->nr_columns ? c->nr_columns : 1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	n = rule_cgroups(r, c->columns, c->nr_columns, idx, c->nr_columns);
	if (!n) {
		say(f, "ksnapd: collection %u: rule %s: no cgroup of this "
		    "stream's columns matches its pattern: it waits for a "
		    "set that has one\n", c->generation, r->name);
		events_write(&f->ev, r, c, 0, "disabled", ",\"why\":\"%s\"",
			     "no cgroup matches");
	}
	for (i = 0; i < n; i++) {
		snprintf(v, sizeof(v), "%.*s",
			 (int)sizeof(c->columns[idx[i]].value),
			 c->columns[idx[i]].value);
		fr = add_rule(f, r, v);
		if (!fr) {
			free(idx);
			return -ENOMEM;
		}
		bind_rule(f, fr);
		fr->rule.cgroup_col = idx[i];
	}
	free(idx);
	return 0;
}

static int bind_rules(struct flight *f)
{
	struct flight_rule *fr;
	unsigned int i;
	int ret;

	drop_rules(f);
	for (i = 0; i < f->nr_tmpl; i++) {
		if (rule_is_exit(&f->tmpl[i])) {
			/* Bound to each exit record as it comes. */
			fr = add_rule(f, &f->tmpl[i], NULL);
			if (!fr)
				return -ENOMEM;
			fr->exit = true;
			fr->tmpl = &f->tmpl[i];
			fr->enabled = true;
			continue;
		}
		if (rule_has_pattern(&f->tmpl[i])) {
			ret = add_pattern_rule(f, &f->tmpl[i]);
			if (ret)
				return ret;
			continue;
		}
		fr = add_rule(f, &f->tmpl[i], NULL);
		if (!fr)
			return -ENOMEM;
		bind_rule(f, fr);
	}
	/* add_rule() may have moved the rules: each evaluator to its own. */
	for (i = 0; i < f->nr_rules; i++)
		f->rules[i].ev.r = &f->rules[i].rule;
	return 0;
}

static int begin(void *self, const struct ksnap_coll *c, uint64_t first)
{
	struct flight *f = self;
	uint64_t span;
	char line[160];
	int ret;

	(void)first;
	f->coll = c;
	f->have_prev = false;
	ret = bind_rules(f);
	if (ret) {
		snprintf(f->err, f->errlen, "flight recorder: %s: %s", "rules",
			 strerror(-ret));
		return ret;
	}
	span = flight_span(f);
	ret = history_size(&f->hist, span, c->period_ns, c->nr_columns);
	if (ret) {
		snprintf(f->err, f->errlen, "flight recorder: %s: %s", "history",
			 strerror(-ret));
		return ret;
	}
	flight_history_line(line, sizeof(line), span, c->period_ns,
			    c->nr_columns, history_bytes(&f->hist));
	say(f, "ksnapd: collection %u: %s%s\n", c->generation, line,
	    f->nr_tmpl ? "" : " (for --slice)");
	return 0;
}

/* --- dumps ---------------------------------------------------------------- */

static int create_dump(struct flight *f, struct flight_rule *fr)
{
	char path[PATH_MAX];
	unsigned int n;
	int w, ret = -EEXIST;

	for (n = 1; n <= DUMP_NAMES_MAX && ret == -EEXIST; n++) {
		w = snprintf(path, sizeof(path), "%s/%s-%u.%s",
			     f->cfg.dump_dir, fr->rule.name, n,
			     f->cfg.lossy ? "log" : "tsv");
		if (w < 0 || (size_t)w >= sizeof(path))
			return -ENAMETOOLONG;
		ret = dump_open_path(&fr->dump, path, f->cfg.lossy, f->coll);
	}
	return ret;
}

/* A dump failed: said, logged, closed; the rule cools down. */
static void dump_failed(struct flight *f, struct flight_rule *fr, uint64_t t,
			int err)
{
	char path[KSNAP_JSON_MAX(PATH_MAX) + 1];

	say(f, "ksnapd: rule %s: dump %s: %s\n", fr->rule.name,
	    fr->dump.path, strerror(-err));
	events_json_string(path, sizeof(path), fr->dump.path);
	events_write(&f->ev, &fr->rule, f->coll, t, "dump_failed",
		     ",\"path\":%s,\"error\":\"%s\"", path, strerror(-err));
	if (fr->dump.open)
		dump_abort(&fr->dump);
	fr->ds = FLIGHT_COOLDOWN;
	fr->cooldown_until = t + fr->rule.cooldown_ns;
}

/* The rows of the history from `from` on (the current one included). */
static int dump_history(struct flight *f, struct flight_rule *fr,
			uint64_t from)
{
	const struct history *h = &f->hist;
	uint32_t k;
	int ret = 0;

	for (k = history_find(h, from); k < h->len && !ret; k++)
		ret = dump_row(&fr->dump, history_at(h, k));
	return ret;
}

static void open_dump(struct flight *f, struct flight_rule *fr, uint64_t t,
		      uint64_t trigger)
{
	const struct rule *r = &fr->rule;
	uint64_t from = trigger > r->pre_ns ? trigger - r->pre_ns : 0;
	uint64_t oldest = f->hist.len ? history_at(&f->hist, 0)->time_ns : t;
	char values[VALUES_MAX], path[KSNAP_JSON_MAX(PATH_MAX) + 1];
	int ret;

	ret = create_dump(f, fr);
	if (!ret)
		ret = dump_history(f, fr, from);
	if (ret) {
		dump_failed(f, fr, t, ret);
		return;
	}
	f->dumps++;
	fr->ds = FLIGHT_DUMPING;
	fr->opened_now = true;
	fr->trigger_t = trigger;
	fr->fire_t = t;
	fr->fires = 1;
	rule_eval_values(&fr->ev, values, sizeof(values));
	events_json_string(path, sizeof(path), fr->dump.path);
	events_write(&f->ev, r, f->coll, t, "firing", ",\"since_ns\":%llu,"
		     "\"values\":{%s},\"dump\":%s,\"pre_ns\":%llu,"
		     "\"pre_available_ns\":%llu", (unsigned long long)trigger,
		     values, path, (unsigned long long)r->pre_ns,
		     (unsigned long long)(trigger - (oldest > from ? oldest :
						     from)));
}

static void close_dump(struct flight *f, struct flight_rule *fr, uint64_t t,
		       bool truncated)
{
	const struct rule *r = &fr->rule;
	struct dump *d = &fr->dump;
	const struct ksnap_stats_extra extra[] = {
		{ "ksnapd_dump_collection", f->coll->generation },
		{ "ksnapd_dump_first_position",
		  d->first_seq - f->coll->start_position },
		{ "ksnapd_dump_trigger_nanos", fr->trigger_t },
		{ "ksnapd_dump_fire_nanos", fr->fire_t },
		{ "ksnapd_dump_pre_nanos", r->pre_ns },
		{ "ksnapd_dump_post_nanos", r->post_ns },
		{ "ksnapd_dump_fires", fr->fires },
		{ "ksnapd_dump_gaps", d->gaps },
		/* last: a pattern rule's only */
		{ "ksnapd_dump_cgroup_column", r->cgroup_col },
	};
	size_t nr_extra = sizeof(extra) / sizeof(extra[0]) -
			  (!r->cgroup || fr->exit);
	char path[KSNAP_JSON_MAX(PATH_MAX) + 1];
	uint64_t rows = d->rows, first = d->first_t, last = d->last_t;
	uint64_t gaps = d->gaps;
	int ret;

	d->exit = fr->exit ? &fr->exit_rec : NULL;
	d->exit_id = &fr->exit_id;
	ret = dump_close(d, extra, nr_extra);
	if (ret) {
		dump_failed(f, fr, t, ret);
		return;
	}
	events_json_string(path, sizeof(path), d->path);
	events_write(&f->ev, r, f->coll, t, "dump", ",\"path\":%s,"
		     "\"rows\":%llu,\"first_ns\":%llu,\"last_ns\":%llu,"
		     "\"gaps\":%llu,\"fires\":%u,\"truncated\":%s", path,
		     (unsigned long long)rows, (unsigned long long)first,
		     (unsigned long long)last, (unsigned long long)gaps,
		     fr->fires, truncated ? "true" : "false");
	fr->ds = r->cooldown_ns ? FLIGHT_COOLDOWN : FLIGHT_IDLE;
	fr->cooldown_until = last + r->cooldown_ns;
}

/* --- a rule on a row ------------------------------------------------------ */

static void fire(struct flight *f, struct flight_rule *fr, uint64_t t,
		 uint64_t trigger)
{
	char values[VALUES_MAX];
	const char *why;

	f->triggers++;
	if (fr->ds == FLIGHT_DUMPING) {
		fr->fires++;
		events_write(&f->ev, &fr->rule, f->coll, t, "firing",
			     ",\"since_ns\":%llu,\"extends\":true,\"fires\":%u",
			     (unsigned long long)trigger, fr->fires);
		return;
	}
	if (fr->ds == FLIGHT_IDLE &&
	    (!f->cfg.max_dumps || f->dumps < f->cfg.max_dumps)) {
		open_dump(f, fr, t, trigger);
		return;
	}
	if (fr->suppressed)
		return;
	fr->suppressed = true;
	why = fr->ds == FLIGHT_COOLDOWN ? "cooldown" : "limit";
	rule_eval_values(&fr->ev, values, sizeof(values));
	events_write(&f->ev, &fr->rule, f->coll, t, "suppressed",
		     ",\"reason\":\"%s\",\"since_ns\":%llu,\"values\":{%s},"
		     "\"cooldown_left_ns\":%llu", why,
		     (unsigned long long)trigger, values,
		     (unsigned long long)(fr->ds == FLIGHT_COOLDOWN ?
					  fr->cooldown_until - t : 0));
}

/* A gap between the rows: the run ends (not held where no row is). */
static void gap(struct flight *f, struct flight_rule *fr, uint64_t t)
{
	uint64_t g = t - f->prev_t, p = f->coll->period_ns;

	if (!fr->holding)
		return;
	events_write(&f->ev, &fr->rule, f->coll, t, "reset", ",\"reason\":"
		     "\"gap\",\"gap_ns\":%llu,\"periods_missing\":%llu,"
		     "\"since_ns\":%llu,\"fired\":%s", (unsigned long long)g,
		     (unsigned long long)((g + p / 2) / p - 1),
		     (unsigned long long)fr->run_start,
		     fr->fired ? "true" : "false");
	fr->holding = fr->fired = false;
}

static void condition(struct flight *f, struct flight_rule *fr, uint64_t t,
		      bool held)
{
	const struct rule *r = &fr->rule;

	if (held && !fr->holding) {
		/* suppressed stays across a gap: the same spike, not a new
		 * one; it clears when the condition stops holding. */
		fr->holding = true;
		fr->fired = false;
		fr->run_start = t;
		if (r->for_ns)
			events_write(&f->ev, r, f->coll, t, "pending",
				     ",\"for_ns\":%llu",
				     (unsigned long long)r->for_ns);
	}
	if (held && !fr->fired && t - fr->run_start >= r->for_ns) {
		fr->fired = true;
		fire(f, fr, t, fr->run_start);
	}
	if (held && fr->fired)
		fr->last_true = t;
	if (!held && fr->holding) {
		events_write(&f->ev, r, f->coll, t, "resolved",
			     ",\"since_ns\":%llu,\"fired\":%s,\"held_ns\":%llu",
			     (unsigned long long)fr->run_start,
			     fr->fired ? "true" : "false",
			     (unsigned long long)(fr->fired ? fr->last_true -
						  fr->run_start : 0));
		fr->holding = fr->fired = fr->suppressed = false;
	}
}

/* The dump's part: close it past post, or take this row. */
static void dump_step(struct flight *f, struct flight_rule *fr,
		      const struct ksnap_record *rec)
{
	uint64_t t = rec->time_ns;
	int ret;

	if (fr->ds != FLIGHT_DUMPING)
		return;
	if (fr->opened_now) {
		fr->opened_now = false;
		return;
	}
	if (!fr->fired && t > fr->last_true + fr->rule.post_ns) {
		close_dump(f, fr, t, false);
		return;
	}
	ret = dump_row(&fr->dump, rec);
	if (ret)
		dump_failed(f, fr, t, ret);
}

static void step(struct flight *f, struct flight_rule *fr,
		 const struct ksnap_record *rec, bool gapped)
{
	uint64_t t = rec->time_ns;
	bool held;

	if (fr->exit) {
		/* Fired by exit records (on_exit_record()): rows only
		 * end its cooldown and fill its dump. */
		if (fr->ds == FLIGHT_COOLDOWN && t >= fr->cooldown_until) {
			fr->ds = FLIGHT_IDLE;
			fr->suppressed = false;
		}
		dump_step(f, fr, rec);
		return;
	}

	if (fr->ds == FLIGHT_COOLDOWN && t >= fr->cooldown_until) {
		fr->ds = FLIGHT_IDLE;
		if (fr->fired)		/* still firing: a new dump, from now */
			open_dump(f, fr, t, t);
	}
	held = rule_eval_row(&fr->ev, t, rec->values);
	/* A gap breaks a run that goes on after it; one that ends there
	 * is resolved as any other. */
	if (gapped && held)
		gap(f, fr, t);
	condition(f, fr, t, held);
	dump_step(f, fr, rec);
}

static int row(void *self, const struct ksnap_record *rec)
{
	struct flight *f = self;
	uint64_t p = f->coll->period_ns;
	bool gapped = f->have_prev && rec->time_ns - f->prev_t > p + p / 2;
	unsigned int i;

	history_push(&f->hist, rec);
	for (i = 0; i < f->nr_rules; i++)
		if (f->rules[i].enabled)
			step(f, &f->rules[i], rec, gapped);
	flight_slices_row(&f->slices, f->coll, rec);
	f->prev_t = rec->time_ns;
	f->have_prev = true;
	return 0;
}

static int flush(void *self)
{
	struct flight *f = self;
	unsigned int i;
	int ret;

	for (i = 0; i < f->nr_rules; i++) {
		struct flight_rule *fr = &f->rules[i];

		if (fr->ds != FLIGHT_DUMPING)
			continue;
		ret = dump_flush(&fr->dump);
		if (ret)
			dump_failed(f, fr, f->prev_t, ret);
	}
	flight_slices_flush(&f->slices);
	return 0;
}

/*
 * An exit record: each rule on exits that is for its cgroup and holds on
 * its values fires at its exit time.  The rows up to it may not all have
 * been read yet: the dump's pre and post windows are counted from it all
 * the same, and the rows fill them as they come.
 */
static int on_exit_record(void *self, const struct ksnap_exit *x)
{
	struct flight *f = self;
	struct ksnap_column *cols;
	__u64 v[RULE_EXIT_VALUES];
	struct rule_eval ev;
	struct rule_error e;
	struct rule r;
	unsigned int i;
	uint32_t n;
	bool held;

	if (!f->coll)
		return 0;
	cols = calloc(RULE_EXIT_VALUES, sizeof(*cols));
	if (!cols) {
		snprintf(f->err, f->errlen, "flight recorder: %s",
			 strerror(ENOMEM));
		return -ENOMEM;
	}
	n = rule_exit_columns(x, cols, v);
	for (i = 0; i < f->nr_rules; i++) {
		struct flight_rule *fr = &f->rules[i];
		uint64_t now;

		if (!fr->exit || !fr->enabled)
			continue;
		r = *fr->tmpl;
		/* Not for this cgroup, or a value it does not have. */
		if (rule_bind_cgroup(&r, cols, n, x->path, &e))
			continue;
		/* Evaluated apart: an open dump keeps its record and rule;
		 * one that opens takes this evaluation. */
		if (rule_eval_init(&ev, &r, f->coll->period_ns)) {
			free(cols);
			snprintf(f->err, f->errlen, "flight recorder: %s",
				 strerror(ENOMEM));
			return -ENOMEM;
		}
		held = rule_eval_row(&ev, x->time_ns, v);
		if (!held || fr->ds == FLIGHT_DUMPING)
			rule_eval_fini(&ev);
		if (!held)
			continue;
		fr->last_true = x->time_ns;
		if (fr->ds == FLIGHT_DUMPING) {
			/* It extends the dump: post from this exit. */
			fire(f, fr, x->time_ns, x->time_ns);
			continue;
		}
		/* The rule and its evaluation become the dump's, as they are. */
		rule_eval_fini(&fr->ev);
		fr->rule = r;
		fr->ev = ev;
		fr->ev.r = &fr->rule;
		fr->exit_rec = *x;
		ksnap_identity_peek(x->path, &fr->exit_id);
		/* Its events name the cgroup, as a pattern rule's do. */
		fr->rule.cgroup = fr->exit_rec.path;
		fr->fired = false;
		now = f->have_prev && f->prev_t > x->time_ns ? f->prev_t :
		      x->time_ns;
		fire(f, fr, now, x->time_ns);
		/* The history went into a dump it opened: the next row is
		 * not in it yet.  And the next record may fire it again. */
		fr->opened_now = false;
		fr->suppressed = false;
	}
	free(cols);
	return 0;
}

/* The collection has ended: open dumps end with what there is. */
static int end(void *self, const struct ksnapd_end *e)
{
	struct flight *f = self;
	unsigned int i;

	(void)e;
	for (i = 0; i < f->nr_rules; i++) {
		struct flight_rule *fr = &f->rules[i];

		if (fr->ds == FLIGHT_DUMPING)
			close_dump(f, fr, f->prev_t, true);
		fr->ds = FLIGHT_IDLE;
		fr->holding = fr->fired = false;
		rule_eval_reset(&fr->ev);
	}
	flight_slices_end(&f->slices, f->coll);
	history_reset(&f->hist);
	f->coll = NULL;
	return 0;
}

void flight_slice_start(struct flight *f, int64_t begin_rel,
			int64_t end_rel, bool lossy, int out_fd,
			int client_fd)
{
	const struct flight_slice_src src = {
		.coll = f->coll, .hist = &f->hist, .prev_t = f->prev_t,
	};

	flight_slices_start(&f->slices, &src, begin_rel, end_rel, lossy,
			    out_fd, client_fd);
}

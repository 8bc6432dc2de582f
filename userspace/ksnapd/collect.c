// SPDX-License-Identifier: MIT
/* ksnapd's collector: the ring's collections to the consumers (collect.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "identity.h"

int ksnapd_collect_init(struct ksnapd_collect *c, struct ksnap_ring *r,
			const struct ksnapd_collect_config *cfg, char *err,
			size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->ring = r;
	c->err = err;
	c->errlen = errlen;
	c->state = KSNAPD_WAIT_START;
	c->stop_ret = KSNAPD_STOP_NOT_CALLED;
	/* Columns: by ksnap_ring_read_columns(), when a collection begins. */
	c->rec = malloc(r->record_size ? r->record_size : sizeof(*c->rec));
	c->norm = malloc(r->record_size ? r->record_size : sizeof(*c->norm));
	c->exits = calloc(KSNAPD_EXITS_LISTED, sizeof(*c->exits));
	c->exit_ids = calloc(KSNAPD_EXITS_LISTED, sizeof(*c->exit_ids));
	if (!c->rec || !c->norm || !c->exits || !c->exit_ids) {
		ksnapd_collect_fini(c);
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

void ksnapd_collect_fini(struct ksnapd_collect *c)
{
	free(c->coll.columns);
	c->coll.columns = NULL;
	free(c->rec);
	c->rec = NULL;
	free(c->norm);
	c->norm = NULL;
	free(c->exits);
	c->exits = NULL;
	free(c->exit_ids);
	c->exit_ids = NULL;
	free(c->name_paths);
	c->name_paths = NULL;
	free(c->name_ids);
	c->name_ids = NULL;
}

int ksnapd_collect_add(struct ksnapd_collect *c,
		       const struct ksnapd_consumer_ops *ops, void *self)
{
	if (c->nr_consumers == KSNAPD_MAX_CONSUMERS)
		return -ENOSPC;
	c->consumers[c->nr_consumers].ops = ops;
	c->consumers[c->nr_consumers].self = self;
	c->nr_consumers++;
	return 0;
}

/* --- the consumers, in the order they were added ---------------------- */

static int each_begin(struct ksnapd_collect *c)
{
	unsigned int i;
	int ret;

	for (i = 0; i < c->nr_consumers; i++) {
		c->consumers[i].ended = false;
		ret = c->consumers[i].ops->begin(c->consumers[i].self, &c->coll,
						 c->first_position);
		if (ret)
			return ret;
	}
	return 0;
}

/* Every consumer's wake (flush false) or flush hook, where it has one. */
static int each_hook(struct ksnapd_collect *c, bool flush)
{
	unsigned int i;
	int ret;

	for (i = 0; i < c->nr_consumers; i++) {
		const struct ksnapd_consumer_ops *ops = c->consumers[i].ops;
		int (*hook)(void *self) = flush ? ops->flush : ops->wake;

		if (!hook)
			continue;
		ret = hook(c->consumers[i].self);
		if (ret)
			return ret;
	}
	return 0;
}

static int each_row(struct ksnapd_collect *c, const struct ksnap_record *rec)
{
	unsigned int i;
	int ret;

	for (i = 0; i < c->nr_consumers; i++) {
		ret = c->consumers[i].ops->row(c->consumers[i].self, rec);
		if (ret)
			return ret;
	}
	return 0;
}

/* Returns 0 when every consumer is done, 1 when one is not yet, or -errno. */
static int each_end(struct ksnapd_collect *c, const struct ksnapd_end *e)
{
	bool pending = false;
	unsigned int i;
	int ret;

	for (i = 0; i < c->nr_consumers; i++) {
		struct ksnapd_consumer *k = &c->consumers[i];

		if (k->ended)
			continue;
		ret = k->ops->end(k->self, e);
		if (ret < 0)
			return ret;
		if (ret)
			pending = true;
		else
			k->ended = true;
	}
	return pending;
}

/* Every consumer's exit hook, where it has one. */
static int each_exit(struct ksnapd_collect *c, const struct ksnap_exit *x)
{
	unsigned int i;
	int ret;

	for (i = 0; i < c->nr_consumers; i++) {
		const struct ksnapd_consumer_ops *ops = c->consumers[i].ops;

		if (!ops->exit)
			continue;
		ret = ops->exit(c->consumers[i].self, x);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The exit records the module holds, for the stream being written: taken
 * before its records are read, so that one of a cgroup the set change
 * read next removes is listed in the stream whose columns held it.  Those
 * of another collection (an earlier one's, left unread) are dropped.
 */
static int take_exits(struct ksnapd_collect *c)
{
	struct ksnap_exit x;
	int ret;

	while (!(ret = ksnap_ring_take_exit(c->ring, &x))) {
		if (x.generation != c->coll.generation)
			continue;
		if (c->nr_exits < KSNAPD_EXITS_LISTED) {
			/* Who it was, while the node's files may still say. */
			ksnap_identity_peek(x.path,
					    &c->exit_ids[c->nr_exits]);
			c->exits[c->nr_exits++] = x;
		} else
			c->exits_unlisted++;
		ret = each_exit(c, &x);
		if (ret)
			return ret;
	}
	if (ret == -EAGAIN)
		return 0;
	snprintf(c->err, c->errlen, "taking an exit record from the module: "
		 "%s", strerror(-ret));
	return ret;
}

/*
 * Who the cgroups of the stream's columns are, for its STATS: looked up
 * once, when it first ends (the node's files say the most by then; a
 * consumer that retries its end gets the same names).
 */
static int name_cgroups(struct ksnapd_collect *c)
{
	int n;

	if (c->names_done)
		return 0;
	n = ksnap_identity_columns(c->coll.columns, c->coll.nr_columns,
				   &c->name_paths, &c->name_ids);
	if (n < 0) {
		snprintf(c->err, c->errlen, "naming the stream's cgroups: %s",
			 strerror(-n));
		return n;
	}
	c->nr_names = (uint32_t)n;
	c->names_done = true;
	return 0;
}

/* A stream has ended at every consumer: the next lists its own. */
static void exits_ended(struct ksnapd_collect *c)
{
	c->nr_exits = 0;
	c->exits_unlisted = 0;
	free(c->name_paths);
	c->name_paths = NULL;
	free(c->name_ids);
	c->name_ids = NULL;
	c->nr_names = 0;
	c->names_done = false;
}

/* --- the reader session's reports (ksnap_abi.h "Reader session") ------ */

/* What was acted on (KSNAP_IOC_SEEN), so that poll() sleeps. */
static int report_seen(struct ksnapd_collect *c, uint32_t gen, uint32_t state)
{
	int ret = ksnap_ring_set_seen(c->ring, gen, state);

	if (ret)
		snprintf(c->err, c->errlen, "telling the module that "
			 "collection %u was seen %s: %s", gen,
			 state == KSNAP_STATE_RUNNING ? "running" : "stopped",
			 strerror(-ret));
	return ret;
}

/*
 * At a collection's end: with @done, it is written out (KSNAP_IOC_DONE,
 * the kernel allows the next start); either way it was seen in @state.
 */
static int hand_back(struct ksnapd_collect *c, uint32_t gen, uint32_t state,
		     bool done)
{
	int ret = done ? ksnap_ring_set_done(c->ring, gen) : 0;

	if (ret) {
		snprintf(c->err, c->errlen, "telling the module that "
			 "collection %u is written out: %s", gen,
			 strerror(-ret));
		return ret;
	}
	return report_seen(c, gen, state);
}

/* --- WAIT_START --------------------------------------------------------- */

/* ksnap_ring_read_columns() failed. */
static int columns_failed(struct ksnapd_collect *c, int ret,
			  const struct ksnap_coll *k)
{
	if (ret == -EPROTO)
		snprintf(c->err, c->errlen, "reading the %u columns of column "
			 "set %u: the module answered with another column "
			 "count", k->nr_columns, k->set_id);
	else
		snprintf(c->err, c->errlen, "reading the %u columns of column "
			 "set %u through the device: %s", k->nr_columns,
			 k->set_id, strerror(-ret));
	return ret;
}

/* ksnap_ring_read_coll() failed: -EAGAIN is retried, -EPROTO said. */
static int coll_failed(struct ksnapd_collect *c, int ret,
		       const struct ksnap_coll *now)
{
	const struct ksnap_ring *r = c->ring;

	if (ret == -EPROTO)
		snprintf(c->err, c->errlen, "bad collection fields in the "
			 "ring: nr_columns %u, more than it has room for "
			 "(%u values in a record of %u bytes)",
			 now->nr_columns,
			 (unsigned int)((r->record_size -
					 sizeof(struct ksnap_record)) /
					sizeof(__u64)), r->record_size);
	else if (ret != -EAGAIN)
		snprintf(c->err, c->errlen, "bad collection fields in the "
			 "ring: %s", strerror(-ret));
	return ret;
}

/*
 * Where the rows begin: our tail, where an earlier reader (a killed
 * ksnapd) may have left it in this collection; the collection's start when
 * the tail is below it (no reader was in this collection yet).  Positions
 * never wrap (ksnap_abi.h): a tail above head is garbage however close it
 * comes modulo 2^64, and so is one more than a ring behind head in drop
 * mode, where the kernel treats it as "ring full": resume from head then.
 * In overwrite mode a tail more than a ring behind is not garbage:
 * read_records() counts what was overwritten.
 */
static void resume_position(struct ksnapd_collect *c)
{
	struct ksnap_ring *r = c->ring;
	uint64_t start = c->coll.start_position, head, tail, was;

	was = ksnap_ring_tail(r);
	head = ksnap_ring_head(r);
	tail = was;
	if (tail < start)
		tail = start;
	else if (tail > head || (head - tail > r->nr_records &&
				 !(c->coll.flags & KSNAP_CTRL_OVERWRITE)))
		tail = head;
	if (tail != was)
		ksnap_ring_set_tail(r, tail);
	c->tail = tail;
	c->first_position = tail - start;
}

/* The consumers begin the collection; rows start at the current tail. */
static int begin(struct ksnapd_collect *c)
{
	int ret;

	resume_position(c);
	if (c->first_position && c->cfg.log)
		fprintf(c->cfg.log, "ksnapd: collection %u: resuming at "
			"position %llu: the snapshots before it were read by "
			"an earlier reader (STATS ksnapd_first_position)\n",
			c->coll.generation,
			(unsigned long long)c->first_position);
	c->overwritten = 0;
	c->skipped = 0;
	c->foreign = 0;
	c->stale = 0;
	c->skip_set = 0;
	ret = each_begin(c);
	if (ret)
		return ret;
	c->state = KSNAPD_STREAM;
	return 0;
}

/*
 * A stopped collection that is not ours to write (the kernel counted it as
 * finished when we opened the device: an earlier reader's) may have
 * records left unread.  poll() reports head != tail as readable, so leave
 * none: the tail goes to head, and the wait sleeps.
 */
static void skip_finished(struct ksnapd_collect *c)
{
	struct ksnap_ring *r = c->ring;
	uint64_t head = ksnap_ring_head(r), tail = ksnap_ring_tail(r);

	if (head == tail)
		return;
	ksnap_ring_set_tail(r, head);
	if (c->cfg.log && tail < head)
		fprintf(c->cfg.log, "ksnapd: collection %u had stopped with "
			"%llu snapshots unread by an earlier reader: not "
			"written\n", c->coll.generation,
			(unsigned long long)(head - tail));
}

static int wait_start(struct ksnapd_collect *c)
{
	struct ksnap_coll *k = &c->coll;
	int ret;

	ret = ksnap_ring_read_coll(c->ring, k);
	if (ret)
		return coll_failed(c, ret, k);
	/*
	 * Running, or started and already stopped again before we looked
	 * (echo 1; echo 0): the kernel waits for that one to be written out
	 * (KSNAP_IOC_DONE) before it allows another start.
	 */
	if (k->generation && (k->state == KSNAP_STATE_RUNNING ||
			      k->generation != ksnap_ring_done(c->ring))) {
		/* Its columns, by the device; a set replaced meanwhile is
		 * news of a new collection: look again. */
		ret = ksnap_ring_read_columns(c->ring, k);
		if (ret == -ESTALE)
			return 0;
		if (ret)
			return columns_failed(c, ret, k);
		ret = begin(c);
		if (ret)
			return ret;
		return report_seen(c, k->generation, k->state);
	}
	if (c->stop) {
		c->state = KSNAPD_DONE;
		return 1;
	}
	/* Stopped and finished: wait for a start. */
	skip_finished(c);
	return report_seen(c, k->generation, k->state);
}

/* --- STREAM ------------------------------------------------------------- */

/*
 * The collection fields now.  State first, head second: once STOPPED is
 * seen, the head loaded after it includes the last record (the kernel
 * publishes head before it marks the collection stopped).
 */
static int read_now(struct ksnapd_collect *c, struct ksnap_coll *now)
{
	int ret;

	ret = ksnap_ring_read_coll(c->ring, now);
	if (ret)
		return coll_failed(c, ret, now);
	if (now->generation != c->coll.generation) {
		snprintf(c->err, c->errlen, "collection %u was replaced by "
			 "collection %u before it was written out",
			 c->coll.generation, now->generation);
		return -EPROTO;
	}
	return 0;
}

/*
 * The record with its values at values[], or NULL when it is not of the
 * collection's column set (counted in the stream's skipped, and as stale
 * or foreign for the log): ksnap_abi.h "Column sets".  A record of a
 * later set the module still names is not counted: it begins the next
 * stream (split_set()).
 */
static const struct ksnap_record *of_set(struct ksnapd_collect *c,
					 const struct ksnap_record *rec)
{
	const struct ksnap_record *v;

	v = ksnap_ring_values(c->ring, rec, c->coll.set_id,
			      c->coll.nr_columns, c->norm);
	if (v)
		return v;
	if (rec->set_id > c->coll.set_id && rec->set_id != c->skip_set) {
		c->next_set = rec->set_id;
		return NULL;
	}
	if (c->skip_set && rec->set_id == c->skip_set)
		c->stale++;
	else
		c->foreign++;
	c->skipped++;
	return NULL;
}

/*
 * The record at pos, or NULL when the kernel overwrote it before it was
 * copied (overwrite mode: copied, then checked; stopped: the kernel
 * writes no more).
 */
static const struct ksnap_record *record(struct ksnapd_collect *c,
					 uint64_t pos, bool stopped)
{
	if (!(c->coll.flags & KSNAP_CTRL_OVERWRITE))
		return of_set(c, ksnap_ring_record(c->ring, pos));
	if (ksnap_ring_copy_record(c->ring, pos, c->rec, stopped))
		return of_set(c, c->rec);
	c->overwritten++;
	return NULL;
}

/* The records from the tail to head, to the consumers; then the tail. */
static int read_records(struct ksnapd_collect *c, bool stopped)
{
	struct ksnap_ring *r = c->ring;
	uint64_t head = ksnap_ring_head(r), tail = c->tail;
	const struct ksnap_record *rec;
	int ret;

	if (head - tail > r->nr_records &&
	    (c->coll.flags & KSNAP_CTRL_OVERWRITE)) {
		/* Lapped: what lies a ring behind head is gone. */
		c->overwritten += head - r->nr_records - tail;
		tail = head - r->nr_records;
	}
	if (head - tail > r->nr_records) {
		snprintf(c->err, c->errlen, "ring positions out of range "
			 "(head %llu, tail %llu, %u records)",
			 (unsigned long long)head, (unsigned long long)tail,
			 r->nr_records);
		return -EPROTO;
	}
	for (; tail != head; tail++) {
		rec = record(c, tail, stopped);
		if (c->next_set)
			break;
		if (!rec)
			continue;
		ret = each_row(c, rec);
		if (ret)
			return ret;
	}
	/* Out before the kernel may reuse the slots. */
	ret = each_hook(c, true);
	if (ret)
		return ret;
	if (tail != c->tail) {
		ksnap_ring_set_tail(r, tail);
		c->tail = tail;
	}
	return 0;
}

static void collection_stats(const struct ksnapd_collect *c,
			     struct ksnap_stream_stats *st);

/*
 * The records at tail are of set c->next_set: the consumers end the
 * stream of the collection's set (STATS of its rows: taken is the
 * position it ends at, the module's losses so far go to the last stream;
 * what it read past since its first position is its rows, overwritten
 * and skipped: taken = first_position + rows + overwritten + dropped +
 * skipped) and begin one of the next set there.  A set the module no
 * longer names is not a stream: its records are skipped, counted in the
 * stream they come in.  Returns 0, 1 while a consumer
 * has not ended (the record is met again at the next wake-up), or -errno.
 */
static int split_set(struct ksnapd_collect *c)
{
	struct ksnapd_end e = { .coll = &c->coll, .stopping = c->stop,
				.split = true };
	uint64_t pos = c->tail - c->coll.start_position;
	struct ksnap_coll next = c->coll;
	int ret;

	next.set_id = c->next_set;
	next.columns = NULL;
	ret = ksnap_ring_set_columns(c->ring, next.set_id, &next.nr_columns);
	if (!ret)
		ret = ksnap_ring_read_columns(c->ring, &next);
	if (ret == -ESTALE) {
		/* Too far behind: the module no longer names that set. */
		free(next.columns);
		if (c->cfg.log)
			fprintf(c->cfg.log, "ksnapd: collection %u: column "
				"set %u is no longer known to the module: "
				"its records are skipped (STATS "
				"ksnapd_snapshots_skipped)\n",
				c->coll.generation, c->next_set);
		c->skip_set = c->next_set;
		c->next_set = 0;
		return 0;
	}
	if (ret) {
		free(next.columns);
		return columns_failed(c, ret, &next);
	}
	ret = name_cgroups(c);
	if (ret) {
		free(next.columns);
		return ret;
	}
	collection_stats(c, &e.stats);
	e.stats.ksnap_snapshots_taken = pos;
	e.stats.ksnap_snapshots_lost = 0;
	e.stats.ksnap_exits_lost = 0;
	ret = each_end(c, &e);
	if (ret) {
		free(next.columns);
		return ret;
	}
	exits_ended(c);
	free(c->coll.columns);
	c->coll = next;
	c->next_set = 0;
	c->first_position = pos;
	c->overwritten = 0;
	c->skipped = 0;
	if (c->cfg.log)
		fprintf(c->cfg.log, "ksnapd: collection %u: column set %u "
			"from position %llu: a new stream\n",
			c->coll.generation, c->coll.set_id,
			(unsigned long long)pos);
	return each_begin(c);
}

/* The records to the consumers, a stream per column set met. */
static int read_sets(struct ksnapd_collect *c, bool stopped)
{
	int ret;

	for (;;) {
		ret = read_records(c, stopped);
		if (ret || !c->next_set)
			return ret;
		ret = split_set(c);
		if (ret)
			return ret;
	}
}

/* --- END ---------------------------------------------------------------- */

/* What the collector knows of STATS (consumer.h: struct ksnapd_end). */
static void collection_stats(const struct ksnapd_collect *c,
			     struct ksnap_stream_stats *st)
{
	struct ksnap_stats ks;

	ksnap_ring_read_stats(c->ring, &ks);
	memset(st, 0, sizeof(*st));
	st->collection_rate_nanos = c->coll.period_ns;
	st->cheap_start_nanos = c->coll.start_mono_ns;
	st->cheap_last_collection_nanos = c->coll.start_mono_ns;
	st->ksnap_lateness_sum_nanos = ks.lateness_sum_ns;
	st->ksnap_read_sum_nanos = ks.read_sum_ns;
	st->ksnap_snapshots_taken = ks.taken;
	st->ksnap_snapshots_lost = ks.lost;
	st->ksnap_periods_missed = ks.missed;
	st->ksnap_periods_thinned = ks.thinned;
	st->ksnap_max_lateness_nanos = ks.lateness_max_ns;
	st->ksnap_max_read_nanos = ks.read_max_ns;
	st->ksnap_bad_tail = ks.bad_tail;
	st->ksnap_cgroups_skipped = ks.cgroups_skipped;
	st->ksnapd_snapshots_overwritten = c->overwritten;
	st->ksnapd_snapshots_skipped = c->skipped;
	st->ksnapd_first_position = c->first_position;
	st->ksnap_exits_lost = ks.exits_lost;
	st->ksnapd_exits_unlisted = c->exits_unlisted;
	st->exits = c->exits;
	st->exit_ids = c->exit_ids;
	st->nr_exits = c->nr_exits;
	st->name_paths = c->name_paths;
	st->name_ids = c->name_ids;
	st->nr_names = c->nr_names;
}

/*
 * The consumers end the collection (STATS).  When they all have, a
 * collection the kernel has stopped is handed back: the statistics stay
 * valid until the next start, which the kernel refuses until then.
 * Returns 1 when ksnapd is done, 0 to go on (waiting for a consumer, or
 * for the next collection), or -errno.
 */
static int end(struct ksnapd_collect *c, uint32_t state)
{
	struct ksnapd_end e = { .coll = &c->coll, .stopping = c->stop };
	uint32_t gen = c->coll.generation;
	int ret, err;

	if (c->state != KSNAPD_END && c->foreign && c->cfg.log)
		fprintf(c->cfg.log, "ksnapd: collection %u: %llu records not "
			"of its column set %u (or with values where this "
			"ksnapd cannot find them) were skipped (STATS "
			"ksnapd_snapshots_skipped)\n",
			gen, (unsigned long long)c->foreign, c->coll.set_id);
	if (c->state != KSNAPD_END) {
		/* The last: the module records none once stopped. */
		ret = take_exits(c);
		if (ret)
			return ret;
	}
	if (c->state != KSNAPD_END && c->stale && c->cfg.log)
		fprintf(c->cfg.log, "ksnapd: collection %u: %llu records of "
			"column sets the module no longer named were skipped "
			"(STATS ksnapd_snapshots_skipped)\n", gen,
			(unsigned long long)c->stale);
	c->state = KSNAPD_END;
	ret = name_cgroups(c);
	if (ret)
		return ret;
	collection_stats(c, &e.stats);
	/*
	 * A stop signal while the collection runs: the timer goes on taking
	 * snapshots after the drain, and one may be counted in taken before
	 * its record is published.  The stream ends where ksnapd read: its
	 * positions, and the module's losses so far (split_set()'s rule).
	 */
	if (state != KSNAP_STATE_STOPPED)
		e.stats.ksnap_snapshots_taken =
			c->tail - c->coll.start_position +
			e.stats.ksnap_snapshots_lost;
	ret = each_end(c, &e);
	if (ret < 0)
		return ret;
	/* Done only once every consumer is: no new start meanwhile. */
	err = hand_back(c, gen, state, !ret && state == KSNAP_STATE_STOPPED);
	if (err)
		return err;
	if (ret)
		return 0;
	exits_ended(c);
	/* Without --once, the next collection gets its own file. */
	c->state = c->cfg.once || c->stop ? KSNAPD_DONE : KSNAPD_WAIT_START;
	return c->state == KSNAPD_DONE;
}

/* The kernel stopped the collection: its reads took too long. */
static void report_overrun(const struct ksnapd_collect *c)
{
	struct ksnap_stats ks;

	if (!c->cfg.log)
		return;
	ksnap_ring_read_stats(c->ring, &ks);
	fprintf(c->cfg.log, "ksnapd: collection %u was stopped by the kernel: "
		"reading a snapshot took longer than its bound of %llu ns "
		"for a sustained time (the longest read of the last second: "
		"%llu ns; estimated at start: %llu ns): use a longer "
		"period_us or fewer metrics\n", c->coll.generation,
		(unsigned long long)ks.read_bound_ns,
		(unsigned long long)ks.read_recent_ns,
		(unsigned long long)ks.read_estimate_ns);
}

/*
 * A wake-up in a collection: what the ring holds to the consumers, then,
 * once it has stopped (or a stop signal came), its end.
 */
static int stream(struct ksnapd_collect *c)
{
	struct ksnap_coll now = { 0 };
	int ret;

	/* --stop-on-exit and a stop signal: stop the collection first, so
	 * that the state read below is STOPPED and the head includes the
	 * kernel's last snapshot. */
	if (c->stop && c->cfg.stop_collection &&
	    c->stop_ret == KSNAPD_STOP_NOT_CALLED)
		c->stop_ret = c->cfg.stop_collection(c->cfg.stop_arg);

	ret = read_now(c, &now);
	if (!ret)
		ret = take_exits(c);
	if (!ret)
		ret = each_hook(c, false);
	if (!ret)
		ret = read_sets(c, now.state == KSNAP_STATE_STOPPED);
	/* A consumer has not ended the last set's stream: the next wake-up. */
	if (ret > 0) {
		c->next_set = 0;
		return 0;
	}
	if (ret)
		return ret;
	if (now.state == KSNAP_STATE_STOPPED &&
	    now.stop_reason == KSNAP_STOP_OVERRUN)
		report_overrun(c);
	if (now.state == KSNAP_STATE_STOPPED || c->stop)
		return end(c, now.state);
	return report_seen(c, c->coll.generation, now.state);
}

int ksnapd_collect_step(struct ksnapd_collect *c)
{
	int ret;

	switch (c->state) {
	case KSNAPD_WAIT_START:
		ret = wait_start(c);
		if (ret || c->state != KSNAPD_STREAM)
			return ret;
		/* Started: write what is already there. */
		return stream(c);
	case KSNAPD_STREAM:
		return stream(c);
	case KSNAPD_END:
		/* Only a stopped collection waits here (with a stop signal
		 * the consumers finish or fail at once): no more rows come.
		 * The consumers retry what is pending, then end again. */
		ret = each_hook(c, false);
		if (!ret)
			ret = each_hook(c, true);
		return ret ? ret : end(c, KSNAP_STATE_STOPPED);
	case KSNAPD_DONE:
		return 1;
	}
	return -EINVAL;
}

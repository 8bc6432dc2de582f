// SPDX-License-Identifier: MIT
/* A sequence of streams checked as one whole (verify_seq.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "verify_seq.h"

#define say(rep, ...) ksnap_say((rep), false, __VA_ARGS__)

void ksv_seq_init(struct ksv_seq *q)
{
	memset(q, 0, sizeof(*q));
}

void ksv_seq_fini(struct ksv_seq *q)
{
	free(q->it);
	memset(q, 0, sizeof(*q));
}

int ksv_seq_add(struct ksv_seq *q, const char *name,
		const struct ksv_stream *s)
{
	const struct ksv_stats *st = ksv_stream_stats(s);
	struct ksv_seq_item *it;

	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 8;

		it = realloc(q->it, cap * sizeof(*it));
		if (!it)
			return -ENOMEM;
		q->it = it;
		q->cap = cap;
	}
	it = &q->it[q->n++];
	memset(it, 0, sizeof(*it));
	snprintf(it->name, sizeof(it->name), "%s", name);
	it->no = ksv_stream_info(s)->no;
	it->rows = ksv_stream_info(s)->rows;
	it->has_start = ksv_stream_start_time(s, &it->start);
	it->has_rows = ksv_stream_span(s, &it->first_t, &it->last_t);
	if (st) {
		it->st_ok = true;
		it->st = *st;
	}
	return 0;
}

/* "FILE" or "FILE stream N" (a file of several streams). */
static const char *label(const struct ksv_seq_item *it, char *buf,
			 size_t size)
{
	if (it->no > 1)
		snprintf(buf, size, "%s stream %u", it->name, it->no);
	else
		snprintf(buf, size, "%s", it->name);
	return buf;
}

#define LABEL_MAX	(KSV_SEQ_NAME_MAX + 24)

/*
 * Does b continue a's collection: the same START_TIME, and b begins past
 * its start (a stream that begins at 0 begins a collection)?
 */
static bool same_collection(const struct ksv_seq_item *a,
			    const struct ksv_seq_item *b)
{
	return a->has_start && b->has_start && a->start == b->start &&
	       (!b->st_ok || b->st.first_position);
}

/* The period and start of b are a's: the same collection's. */
static void check_same(const struct ksv_seq_item *a,
		       const struct ksv_seq_item *b, FILE *rep,
		       struct ksv_seq_result *res)
{
	char la[LABEL_MAX], lb[LABEL_MAX];

	if (!a->st_ok || !b->st_ok)
		return;
	if (a->st.rate != b->st.rate) {
		say(rep, "sequence: %s: period (STATS collection_rate) %"
		    PRIu64 " ns, expected %" PRIu64 " ns as in %s, of the "
		    "same collection (START_TIME %" PRIu64 ")\n",
		    label(b, lb, sizeof(lb)), b->st.rate, a->st.rate,
		    label(a, la, sizeof(la)), a->start);
		res->problems++;
	}
	if (a->st.start != b->st.start) {
		say(rep, "sequence: %s: collection start (STATS "
		    "cheap_start_nanos) %" PRIu64 ", expected %" PRIu64 " as "
		    "in %s, of the same collection (START_TIME %" PRIu64 ")\n",
		    label(b, lb, sizeof(lb)), b->st.start, a->st.start,
		    label(a, la, sizeof(la)), a->start);
		res->problems++;
	}
}

/*
 * b begins where a ended: b's first position is a's taken (a set change),
 * or the position a's reader had read to (a reader restarted: what it left
 * in the ring is the next reader's, whose first position is a's first
 * position plus what a accounted for).
 */
static void check_position(const struct ksv_seq_item *a,
			   const struct ksv_seq_item *b, FILE *rep,
			   struct ksv_seq_result *res)
{
	char la[LABEL_MAX], lb[LABEL_MAX];
	uint64_t want = a->st.taken, got = b->st.first_position;
	uint64_t read_to = a->st.first_position + a->st.total + a->st.lost +
			   a->st.overwritten + a->st.dropped + a->st.skipped;

	if (!a->st_ok || !b->st_ok || !a->st.has_taken || got == want ||
	    (got == read_to && read_to < want))
		return;
	label(a, la, sizeof(la));
	label(b, lb, sizeof(lb));
	if (got > want)
		say(rep, "sequence: %s: begins at position %" PRIu64 " of its "
		    "collection (STATS ksnapd_first_position), expected %"
		    PRIu64 ", where %s ended (its ksnap_snapshots_taken): %"
		    PRIu64 " snapshots are in no stream checked (a file "
		    "missing between them?)\n", lb, got, want, la,
		    got - want);
	else
		say(rep, "sequence: %s: begins at position %" PRIu64 " of its "
		    "collection (STATS ksnapd_first_position), expected %"
		    PRIu64 ", where %s ended (its ksnap_snapshots_taken): the "
		    "two streams overlap by %" PRIu64 " snapshots\n", lb, got,
		    want, la, want - got);
	res->problems++;
}

/*
 * How much later than its period a row's time may come with no period
 * lost: a row's time is the middle of its read, taken when the timer
 * fired.  A timer late by L counts floor(L / period) periods missed and
 * moves its row by the rest (less than a period); a read of R moves it by
 * R / 2.  From the collection's largest lateness and read (the last
 * stream's STATS: the module's maxima so far); 0 from a writer without
 * them.
 */
static uint64_t boundary_slack(const struct ksv_seq_item *last,
			       uint64_t rate)
{
	if (!last->st_ok)
		return 0;
	return (last->st.max_late < rate ? last->st.max_late : rate) +
	       last->st.max_read / 2;
}

/*
 * The periods between a's last row and b's first, beyond the one
 * expected, after the slack above: 0 when b's first row is at most 1.5
 * periods after (as for a gap within a stream, verify_gaps.c).
 * UINT64_MAX: b's first row is not after a's last.
 */
static uint64_t boundary_slots(const struct ksv_seq_item *a,
			       const struct ksv_seq_item *b, uint64_t rate,
			       uint64_t slack)
{
	uint64_t d;

	if (b->first_t <= a->last_t)
		return UINT64_MAX;
	d = b->first_t - a->last_t;
	d = d > slack ? d - slack : 0;
	if (!rate || d <= rate + rate / 2)
		return 0;
	return (d + rate / 2) / rate - 1;
}

/* The collection's streams it[0, n): boundaries, then its totals. */
static void check_collection(const struct ksv_seq_item *it, size_t n,
			     FILE *rep, struct ksv_seq_result *res)
{
	const struct ksv_seq_item *last = &it[n - 1];
	char la[LABEL_MAX], lb[LABEL_MAX];
	uint64_t rows = 0, over = 0, dropped = 0, skipped = 0, budget, sum;
	uint64_t used = 0;
	uint64_t rate = last->st_ok ? last->st.rate : 0;
	uint64_t slack = boundary_slack(last, rate);
	bool totals = true;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!it[i].st_ok || !it[i].st.has_taken) {
			if (totals)
				say(rep, "sequence: %s: no STATS with "
				    "ksnap_snapshots_taken: the collection's "
				    "totals are not checked\n",
				    label(&it[i], la, sizeof(la)));
			totals = false;
			continue;
		}
		rows += it[i].st.total;
		over += it[i].st.overwritten;
		dropped += it[i].st.dropped;
		skipped += it[i].st.skipped;
	}
	budget = (last->st_ok ? last->st.lost + last->st.missed : 0) + over +
		 dropped + skipped;
	for (i = 1; i < n; i++) {
		const struct ksv_seq_item *a = &it[i - 1], *b = &it[i];
		uint64_t slots;

		check_same(a, b, rep, res);
		check_position(a, b, rep, res);
		if (!a->has_rows || !b->has_rows)
			continue;
		res->boundaries++;
		slots = boundary_slots(a, b, rate, slack);
		label(a, la, sizeof(la));
		label(b, lb, sizeof(lb));
		if (slots == UINT64_MAX) {
			say(rep, "sequence: %s: first row at %" PRIu64 " ns, "
			    "expected after %s's last row at %" PRIu64 " ns\n",
			    lb, b->first_t, la, a->last_t);
			res->problems++;
			continue;
		}
		used += slots;
		if (slots && used > budget) {
			say(rep, "sequence: %s: first row at %" PRIu64 " ns, "
			    "expected one period (%" PRIu64 " ns) after %s's "
			    "last row at %" PRIu64 " ns (allowing %" PRIu64
			    " ns for the timer's lateness and read time): %"
			    PRIu64 " periods lost at the boundary, more than "
			    "the collection's loss accounting has room for (%"
			    PRIu64 ": lost, missed, overwritten, dropped, "
			    "skipped)\n", lb, b->first_t, rate, la, a->last_t,
			    slack, slots, budget);
			res->problems++;
		}
	}
	if (!totals)
		return;
	sum = rows + last->st.lost + over + dropped + skipped +
	      it[0].st.first_position;
	say(rep, "sequence: collection of START_TIME %" PRIu64 ", %zu "
	    "streams (%s to %s): %" PRIu64 " taken = %" PRIu64 " rows + %"
	    PRIu64 " lost", it[0].start, n, label(&it[0], la, sizeof(la)),
	    label(last, lb, sizeof(lb)), last->st.taken, rows, last->st.lost);
	if (over)
		say(rep, " + %" PRIu64 " overwritten", over);
	if (dropped)
		say(rep, " + %" PRIu64 " dropped", dropped);
	if (skipped)
		say(rep, " + %" PRIu64 " skipped", skipped);
	if (it[0].st.first_position)
		say(rep, " + %" PRIu64 " read by an earlier reader",
		    it[0].st.first_position);
	if (sum == last->st.taken) {
		say(rep, ": adds up\n");
		return;
	}
	say(rep, ": does not add up: the streams account for %" PRIu64
	    ", %s's STATS say %" PRIu64 " taken\n", sum, lb, last->st.taken);
	res->problems++;
}

void ksv_seq_check(const struct ksv_seq *q, FILE *rep,
		   struct ksv_seq_result *res)
{
	char la[LABEL_MAX], lb[LABEL_MAX];
	size_t i, from = 0;

	memset(res, 0, sizeof(*res));
	for (i = 1; i <= q->n; i++) {
		if (i < q->n && same_collection(&q->it[i - 1], &q->it[i]))
			continue;
		/* it[from, i) is one collection; it[i] begins the next. */
		if (i - from > 1) {
			res->collections++;
			check_collection(&q->it[from], i - from, rep, res);
		}
		if (i < q->n && q->it[i].st_ok && q->it[i].st.first_position) {
			say(rep, "sequence: %s: begins at position %" PRIu64
			    " of a collection (START_TIME %" PRIu64 ") that "
			    "%s is not of: the snapshots before it are in no "
			    "stream checked\n", label(&q->it[i], lb,
			    sizeof(lb)), q->it[i].st.first_position,
			    q->it[i].start, label(&q->it[i - 1], la,
			    sizeof(la)));
			res->problems++;
		}
		from = i;
	}
}

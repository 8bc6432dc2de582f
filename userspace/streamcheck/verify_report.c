// SPDX-License-Identifier: MIT
/*
 * ksnap-verify's report (see verify_report.h): one parser walk, whose
 * findings become the human-readable lines, whose streams' STATS become
 * the summary with gVisor's warnings, and whose chosen stream goes to the
 * TSV writer.  The wording is tested by tests/damage/run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "msg.h"
#include "verify_report.h"

#define MAX_GAPS	20	/* gaps listed in full, per stream */


static const char *const kind_name[] = {
	[KSV_K_EMPTY] = "empty line",
	[KSV_K_FOREIGN] = "foreign line",
	[KSV_K_META] = "META line",
	[KSV_K_START] = "START_TIME line",
	[KSV_K_HEADER] = "column header",
	[KSV_K_ROW] = "row",
	[KSV_K_STATS] = "STATS line",
	[KSV_K_ADLER] = "ADLER32 line",
	[KSV_K_UNKNOWN] = "line of unknown type",
};

#define say(r, ...) ksnap_say((r)->rep, false, __VA_ARGS__)

/* Per-finding lines, left out with --quiet. */
#define detail(r, ...) do { if (!(r)->o->quiet) say(r, __VA_ARGS__); } while (0)

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void report_foreign(struct ksv_report *r, const struct ksv_finding *f)
{
	unsigned int k;

	say(r, "skipped: %" PRIu64 " line%s not part of the stream",
	    f->foreign.count, plural(f->foreign.count));
	if (r->o->quiet) {
		say(r, "\n");
		return;
	}
	say(r, " (line%s", plural(f->foreign.count));
	for (k = 0; k < f->foreign.nr_ranges; k++) {
		if (f->foreign.from[k] == f->foreign.to[k])
			say(r, "%s %u", k ? "," : "", f->foreign.from[k]);
		else
			say(r, "%s %u-%u", k ? "," : "", f->foreign.from[k],
			    f->foreign.to[k]);
	}
	if (f->foreign.more)
		say(r, ", ...");
	say(r, ")\n");
}

static void where(struct ksv_report *r, const struct ksv_where *w)
{
	if (w->after_row)
		detail(r, ", after the row at t=%" PRIu64 " (line %u)",
		       w->row_t, w->row_line);
	else if (w->before_rows)
		detail(r, ", before the first row");
}

static void report_bad(struct ksv_report *r, const struct ksv_finding *f)
{
	bool cut = f->bad.state == KSV_S_CUT;

	detail(r, "line %u: %s %s", f->line, cut ? "cut" : "damaged",
	       kind_name[f->kind]);
	if (f->has_t)
		detail(r, " (t=%" PRIu64 "?, unverified)", f->t);
	detail(r, ": %s", f->bad.why);
	if (f->bad.said_hex)
		detail(r, " (line %s 0x%.*s, computed 0x%x)",
		       cut ? "has" : "says", (int)f->bad.said_hex_len,
		       f->bad.said_hex, f->bad.computed);
	if (f->bad.prefix_bad)
		detail(r, ", and its \"GVISOR_METRICS<TAB>\" prefix altered");
	where(r, &f->bad.where);
	detail(r, "\n");
}

static void report_repaired(struct ksv_report *r, const struct ksv_finding *f)
{
	detail(r, "line %u: damaged %s of %s", f->line,
	       f->bad.prefix_bad ? "prefix" : "checksum", kind_name[f->kind]);
	if (f->has_t)
		detail(r, " (t=%" PRIu64 ")", f->t);
	if (f->bad.prefix_bad)
		detail(r, ": \"GVISOR_METRICS<TAB>\" altered; %s",
		       f->kind == KSV_K_ADLER ? "its value is checked below" :
		       "the line's own checksum matches: kept");
	else
		detail(r, ": \"<TAB>0x\" altered; its digits match the line: "
		       "kept");
	where(r, &f->bad.where);
	detail(r, "\n");
}

static void report_dup(struct ksv_report *r, const struct ksv_finding *f)
{
	bool one = f->dup.from == f->dup.to;

	if (one)
		detail(r, "line %u: duplicate of line %u", f->dup.from,
		       f->dup.orig_from);
	else
		detail(r, "lines %u-%u: duplicate of lines %u-%u",
		       f->dup.from, f->dup.to, f->dup.orig_from,
		       f->dup.orig_to);
	if (f->dup.rows == 1)
		detail(r, " (1 row, t=%" PRIu64 ")", f->dup.t0);
	else if (f->dup.rows)
		detail(r, " (%" PRIu64 " rows, t=%" PRIu64 "..%" PRIu64 ")",
		       f->dup.rows, f->dup.t0, f->dup.t1);
	detail(r, ": %s, dropped\n", one ? "a line written twice" :
	       "a flush block written twice");
}

static void report_missing_line(struct ksv_report *r,
				const struct ksv_finding *f)
{
	switch (f->kind) {
	case KSV_K_START:
		say(r, "missing: START_TIME line\n");
		break;
	case KSV_K_HEADER:
		say(r, "missing: column header line: the rows cannot be "
		    "read\n");
		break;
	case KSV_K_STATS:
		say(r, "missing: STATS line\n");
		break;
	default:
		say(r, "missing: final ADLER32 line (the stream ends at line "
		    "%u): the whole-stream checksum cannot be checked\n",
		    f->line);
	}
}

static void report_gap(struct ksv_report *r, const struct ksv_finding *f)
{
	/* Gaps STATS explains are the module's; not listed. */
	if (f->gap.explained || r->gaps > MAX_GAPS)
		return;
	if (r->gaps++ == MAX_GAPS) {
		detail(r, "gap: ... (more gaps not listed)\n");
		return;
	}
	detail(r, "gap: about %" PRIu64 " row%s missing between line %u (t=%"
	       PRIu64 ") and line %u (t=%" PRIu64 ")\n", f->gap.slots,
	       plural(f->gap.slots), f->gap.from_line, f->gap.from_t,
	       f->gap.to_line, f->gap.to_t);
}

static void report_gaps_dropped(struct ksv_report *r,
				const struct ksv_stats *st,
				const struct ksv_finding *f)
{
	detail(r, "note: the gaps in time (%" PRIu64 " periods) are snapshots "
	       "the module dropped (%" PRIu64 " lost, %" PRIu64 " missed)%s, "
	       "not lines lost\n", f->rows.gap_slots, st->lost, st->missed,
	       st->dropped ? " and rows ksnapd dropped while its output was "
	       "full" : st->overwritten ? " and snapshots overwritten before "
	       "ksnapd read them" : st->skipped ? " and snapshots ksnapd "
	       "skipped (of a column set it could not name)" : "");
}

static void report_missing_rows(struct ksv_report *r,
				const struct ksv_finding *f)
{
	uint64_t missing = f->rows.missing, legit = f->rows.dropped;
	uint64_t slots = f->rows.gap_slots;

	say(r, "missing: %" PRIu64 " row%s (STATS says %" PRIu64 " written, "
	    "%" PRIu64 " found)", missing, plural(missing), f->rows.written,
	    f->rows.found);
	if (slots == missing + legit && !legit)
		say(r, ", all in the gaps listed above\n");
	else if (slots == missing + legit)
		say(r, "; the gaps above also hold the %" PRIu64 " snapshots "
		    "the module dropped, which of them are lines lost cannot "
		    "be told\n", legit);
	else if (slots < missing + legit)
		say(r, "; %" PRIu64 " of them not in any gap: at the start or "
		    "the end of the stream\n", missing + legit - slots);
	else
		say(r, "\n");
}

static void report_sum(struct ksv_report *r, const struct ksv_finding *f)
{
	switch (f->sum.result) {
	case KSV_SUM_MATCH:
		say(r, "whole-stream checksum: 0x%x, matches\n",
		    f->sum.computed);
		break;
	case KSV_SUM_MATCH_NODUP:
		say(r, "whole-stream checksum: matches once the duplicate "
		    "lines are dropped\n");
		break;
	default:
		say(r, "whole-stream checksum: mismatch (computed 0x%x, "
		    "ADLER32 line says 0x%x)", f->sum.computed, f->sum.said);
		if (f->sum.unexplained)
			say(r, ": lines missing or altered, though every line "
			    "present is intact\n");
		else
			say(r, ", as expected from the lines above\n");
	}
}

/* The findings about rows by STATS' count. */
static void report_rows(struct ksv_report *r, const struct ksv_stream *s,
			const struct ksv_finding *f)
{
	switch (f->what) {
	case KSV_EARLIER_FILES:
		say(r, "rows: STATS says %" PRIu64 " written, %" PRIu64 " of "
		    "them to files before a reopen (SIGHUP): %" PRIu64 " in "
		    "this file\n", f->rows.written + f->rows.earlier,
		    f->rows.earlier, f->rows.written);
		break;
	case KSV_EXTRA_ROWS:
		detail(r, "note: %" PRIu64 " rows found, STATS says %" PRIu64
		       " were written\n", f->rows.found, f->rows.written);
		break;
	case KSV_GAPS_UNCOUNTED:
		detail(r, "missing: possibly %" PRIu64 " rows (gaps in time; "
		       "no STATS to count them)\n", f->rows.gap_slots);
		break;
	case KSV_GAPS_DROPPED:
		report_gaps_dropped(r, ksv_stream_stats(s), f);
		break;
	default:
		report_missing_rows(r, f);
	}
}

/* The findings about one line. */
static void report_line(struct ksv_report *r, const struct ksv_finding *f)
{
	switch (f->what) {
	case KSV_BAD_LINE:
		report_bad(r, f);
		break;
	case KSV_REPAIRED_LINE:
		report_repaired(r, f);
		break;
	case KSV_ORPHAN_ROW:
		detail(r, "line %u: row before any column header: its columns "
		       "are unknown\n", f->line);
		break;
	case KSV_OUT_OF_ORDER:
		detail(r, "line %u: row t=%" PRIu64 " out of time order (after "
		       "t=%" PRIu64 "), kept in order\n", f->line, f->t,
		       f->after_t);
		break;
	default:	/* KSV_AFTER_ADLER */
		detail(r, "line %u: %s after the final ADLER32 line\n",
		       f->line, kind_name[f->kind]);
	}
}

void ksnap_report_finding(void *priv, const struct ksv_stream *s,
			  const struct ksv_finding *f)
{
	struct ksv_report *r = priv;

	switch (f->what) {
	case KSV_FOREIGN:
		report_foreign(r, f);
		break;
	case KSV_BAD_LINE:
	case KSV_REPAIRED_LINE:
	case KSV_ORPHAN_ROW:
	case KSV_OUT_OF_ORDER:
	case KSV_AFTER_ADLER:
		report_line(r, f);
		break;
	case KSV_DUPLICATE:
		report_dup(r, f);
		break;
	case KSV_NO_META:
		detail(r, "missing: META line for column \"%.*s\" of the "
		       "header at line %u\n", (int)f->column.len,
		       f->column.name, f->line);
		break;
	case KSV_MISSING_LINE:
		report_missing_line(r, f);
		break;
	case KSV_ENDED_NO_STATS:
		say(r, "no STATS line, but the whole-stream checksum matches: "
		    "the writer ended this file without one (ksnapd does at "
		    "SIGHUP: STATS is in the file after it); its rows cannot "
		    "be counted\n");
		break;
	case KSV_GAP:
		report_gap(r, f);
		break;
	case KSV_SUM:
		report_sum(r, f);
		break;
	default:
		report_rows(r, s, f);
	}
}

static void print_ns(struct ksv_report *r, const char *what, uint64_t avg,
		     double pct, bool warn)
{
	say(r, "  %s: average %" PRIu64 " ns (%.2f%% of the period)%s\n",
	    what, avg, pct, warn ? "  WARNING: above 10%" : "");
}

/*
 * ksnapd's accounting: every snapshot the module took is a row, or lost
 * (ring full), dropped (output full), overwritten (overflow=overwrite),
 * skipped (of a column set ksnapd could not name, or not of the stream's),
 * or before the position this writer began at (read by an earlier reader,
 * ksnapd_first_position).
 */
static void report_accounting(struct ksv_report *r, const struct ksv_stats *st)
{
	uint64_t sum = st->total + st->lost + st->dropped + st->overwritten +
		       st->skipped + st->first_position;

	if (!st->has_taken)
		return;
	say(r, "  accounting: %" PRIu64 " taken = %" PRIu64 " rows + %" PRIu64
	    " lost", st->taken, st->total, st->lost);
	if (st->dropped)
		say(r, " + %" PRIu64 " dropped", st->dropped);
	if (st->overwritten)
		say(r, " + %" PRIu64 " overwritten", st->overwritten);
	if (st->skipped)
		say(r, " + %" PRIu64 " skipped", st->skipped);
	if (st->first_position)
		say(r, " + %" PRIu64 " read by an earlier reader",
		    st->first_position);
	if (sum == st->taken)
		say(r, ": adds up\n");
	else if (sum < st->taken)
		say(r, ": %" PRIu64 " more taken than accounted for (STATS "
		    "written while the collection still ran counts snapshots "
		    "taken after the last row read)\n", st->taken - sum);
	else
		say(r, ": %" PRIu64 " fewer taken than accounted for  "
		    "WARNING\n", sum - st->taken);
}

/* The first line of the STATS summary: what the writer says it did. */
static void report_stats_line(struct ksv_report *r, const struct ksv_stats *st,
			      uint64_t dur)
{
	say(r, "STATS: period %" PRIu64 " ns, %" PRIu64 " snapshots over "
	    "%.3f s", st->rate, st->total, (double)dur / 1e9);
	if (st->has_lost || st->has_missed)
		say(r, ", %" PRIu64 " lost (ring full), %" PRIu64 " periods "
		    "missed", st->lost, st->missed);
	if (st->dropped)
		say(r, ", %" PRIu64 " rows dropped by ksnapd (output full)  "
		    "WARNING", st->dropped);
	if (st->overwritten)
		say(r, ", %" PRIu64 " overwritten before they were read "
		    "(overflow=overwrite)", st->overwritten);
	if (st->skipped)
		say(r, ", %" PRIu64 " skipped by ksnapd (of a column set it "
		    "could not name, or not of the stream's)", st->skipped);
	if (st->first_position)
		say(r, ", resumed at position %" PRIu64 " (the snapshots "
		    "before it were read by an earlier reader, in another "
		    "file)", st->first_position);
}

/* STATS, and gVisor's warnings (CollectionStats.Log thresholds). */
static void report_stats(struct ksv_report *r, const struct ksv_stats *st)
{
	struct ksv_capture c;

	if (!st)
		return;
	ksv_stats_capture(st, &c);
	report_stats_line(r, st, c.dur);
	if (c.judged)
		say(r, "\n  capture: %" PRIu64 " of %" PRIu64 " expected "
		    "snapshots (%.2f%%)%s%s\n", c.seen, c.expected,
		    c.rate * 100.0,
		    st->first_position ? ", counting the earlier reader's" : "",
		    c.warn_capture ? "  WARNING: below 99%" : "");
	else
		say(r, "\n  capture: %" PRIu64 " snapshots; the STATS span no "
		    "time, so none were expected and the capture is not "
		    "judged\n", c.seen);
	print_ns(r, "sleep timing error (lateness)", c.late_avg, c.late_pct,
		 c.warn_late);
	print_ns(r, "collection timing error (read time)", c.read_avg,
		 c.read_pct, c.warn_read);
	if (st->backoffs)
		say(r, "  backoff: %" PRIu64 " sleeps, %" PRIu64 " ns (%.2f%% "
		    "of the capture)%s\n", st->backoffs, st->backoff_ns,
		    c.backoff_pct, c.warn_backoff ? "  WARNING: above 5%" : "");
	report_accounting(r, st);
}

static const char *status_name(int status)
{
	return status == KSNAP_VERIFY_INTACT ? "intact" :
	       status == KSNAP_VERIFY_DAMAGED ? "damaged, rows recovered" :
	       "unusable";
}

int ksnap_report_begin(void *priv, const struct ksv_stream *s)
{
	const struct ksv_info *i = ksv_stream_info(s);
	struct ksv_report *r = priv;

	r->gaps = 0;
	say(r, "stream %u: lines %u-%u, %s\n", i->no, i->first_line,
	    i->last_line, i->lossy ? "lossy" : "plain");
	return 0;
}

static void add_result(struct ksnap_verify_result *res,
		       const struct ksv_info *i)
{
	res->rows += i->rows;
	res->rows_bad += i->rows_bad;
	res->rows_missing += i->rows_missing;
	res->dup_lines += i->dup_lines;
	res->bad_lines += i->bad_lines;
	res->missing_lines += i->missing_lines;
	if (!i->sum_ok)
		res->sum_ok = false;
	if (i->status > res->status)
		res->status = i->status;
	res->streams = i->no;
}

int ksnap_report_end(void *priv, const struct ksv_stream *s)
{
	const struct ksv_info *i = ksv_stream_info(s);
	struct ksv_report *r = priv;

	report_stats(r, ksv_stream_stats(s));
	say(r, "stream %u: %s: %" PRIu64 " rows intact, %" PRIu64 " cut or "
	    "damaged, %" PRIu64 " duplicate lines dropped\n", i->no,
	    status_name(i->status), i->rows, i->rows_bad, i->dup_lines);
	add_result(r->res, i);
	return 0;
}

void ksnap_report_summary(FILE *rep, const char *in_name, int status,
			  const struct ksnap_verify_result *res)
{
	fprintf(rep, "%s: %s: %u stream%s, %llu rows intact, %llu cut or "
		"damaged, %llu missing, %llu duplicate lines, %llu foreign "
		"lines\n", in_name,
		status == KSNAP_VERIFY_INTACT ? "intact" :
		status == KSNAP_VERIFY_DAMAGED ? "damaged, rows recovered" :
		"unusable", res->streams, res->streams == 1 ? "" : "s",
		(unsigned long long)res->rows,
		(unsigned long long)res->rows_bad,
		(unsigned long long)res->rows_missing,
		(unsigned long long)res->dup_lines,
		(unsigned long long)res->foreign);
}

void ksnap_report_init(struct ksv_report *r,
		       const struct ksnap_verify_opts *o, FILE *rep,
		       struct ksnap_verify_result *res)
{
	*r = (struct ksv_report){ .o = o, .rep = rep, .res = res };
	memset(res, 0, sizeof(*res));
	res->sum_ok = true;
}

int ksnap_report_done(struct ksv_report *r, int ret,
		      const struct ksv_log *log)
{
	struct ksnap_verify_result *res = r->res;

	res->lines = log->lines;
	res->lossy = log->lossy;
	res->foreign = log->foreign;
	if (ret == -ENOENT) {
		say(r, "no profiling-metrics stream found (%" PRIu64 " lines "
		    "read)\n", log->lines);
		res->status = KSNAP_VERIFY_UNUSABLE;
		return res->status;
	}
	if (ret) {
		say(r, "out of memory\n");
		res->status = KSNAP_VERIFY_UNUSABLE;
		return res->status;
	}
	/* A stream without header (a journal that starts mid-stream)
	 * does not make the others' rows unusable. */
	if (res->status == KSNAP_VERIFY_UNUSABLE && res->rows)
		res->status = KSNAP_VERIFY_DAMAGED;
	return res->status;
}

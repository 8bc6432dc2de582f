/* SPDX-License-Identifier: MIT */
/*
 * Inside the stream checks (verify_check.c, verify_lines.c,
 * verify_gaps.c, verify_data.c): a stream's state while it is checked.
 * Users of the parser include verify_check.h only.
 */
#ifndef KSNAP_VERIFY_PRIV_H
#define KSNAP_VERIFY_PRIV_H

#include <zlib.h>

#include "verify_check.h"

/* A line kept for later: its body in the input (rows: and their time). */
struct ksv_ref {
	const char *body;
	size_t len;
	uint64_t t;
	uint32_t no;
};

/* A run of duplicate lines being collected for one finding. */
struct ksv_dup_run {
	bool on;
	uint32_t from, to, orig_from, orig_to;
	uint64_t rows, t0, t1;
};

struct ksv_stream {
	struct ksv_info info;
	const struct ksv_ops *ops;
	/* The lines there is one of, once found. */
	struct ksv_line start_time, header, stats, adler;
	bool has_start, has_stats, has_adler;
	struct ksv_ref *metas;
	size_t nr_metas;
	struct ksv_ref *rows;		/* intact rows, in time order */
	size_t nr_rows, cap_rows;
	/* bad_after[k]: cut/damaged rows seen while k rows were accepted */
	uint32_t *bad_after;
	size_t cap_bad;
	uint64_t rows_bad;		/* cut or damaged rows */
	uint64_t repaired;		/* bad lines whose content was kept */
	uint64_t orphans;		/* rows before any header */
	uLong sum_all, sum_nodup;	/* whole-stream, lossy */
	uint32_t said;			/* the ADLER32 line's */
	bool sum_matched;
	struct ksv_dup_run dup;
	bool have_last_row;		/* the last intact row, for findings */
	uint32_t last_row_line;
	uint64_t last_row_t;
	struct ksv_stats st;
	bool st_ok;			/* a valid STATS line */
	/* Streaming (ops->row set): no rows[] nor bad_after[], but the
	 * window of the last intact rows, one row's values, and the gaps
	 * found as the rows come (verify_check.h). */
	bool streaming;
	uint64_t period;		/* for the gaps: STATS', or estimated */
	struct ksv_ref *win;		/* ring: the last intact rows */
	size_t win_head, win_n, win_cap;
	uint64_t *row_v;		/* ncols values */
	uint64_t bad_since;		/* cut/damaged rows since the last */
	uint64_t gap_slots;		/* rows the gaps so far can hold */
};

static inline void ksv_emit(const struct ksv_stream *s,
			    const struct ksv_finding *f)
{
	if (s->ops->finding)
		s->ops->finding(s->ops->priv, s, f);
}

/* verify_lines.c: one stream line; -ENOMEM. */
int ksv_check_line(struct ksv_stream *s, struct ksv_line *l);
/* Report the run of duplicates collected so far, if any. */
void ksv_flush_dups(struct ksv_stream *s);

/* The STATS figures the checks use, from a STATS line; false: invalid. */
bool ksv_parse_stats(const struct ksv_line *l, struct ksv_stats *st);

/* verify_gaps.c: rows missing by STATS' count, and the gaps in time. */
void ksv_check_rows(struct ksv_stream *s);
/* Rounded number of periods in gap, minus one: rows that fit in it. */
uint64_t ksv_slots_in(uint64_t gap, uint64_t period);
/* Streaming: the period estimated from row times t[0, n) in input order
 * (the median positive difference); 0 if none. */
uint64_t ksv_median_step(const uint64_t *t, size_t n);

#endif /* KSNAP_VERIFY_PRIV_H */

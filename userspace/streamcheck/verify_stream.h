/* SPDX-License-Identifier: MIT */
/*
 * A stream being checked: its state, which the checks (verify_check.c,
 * verify_lines.c, verify_gaps.c) fill in, and its parts for the parser's
 * users once it is checked (verify_stream.c reads them from the input
 * where the checks left them).  The users see struct ksv_stream through
 * the accessors only.
 */
#ifndef KSNAP_VERIFY_STREAM_H
#define KSNAP_VERIFY_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "findings.h"
#include "verify_lex.h"
#include "verify_stats.h"

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

/* --- a stream's parts, at end() ----------------------------------- */


const struct ksv_info *ksv_stream_info(const struct ksv_stream *s);
/* false: no valid START_TIME line. */
bool ksv_stream_start_time(const struct ksv_stream *s, uint64_t *ns);
/* fn(priv, k, name, len) for each value column k; -ENOENT: no header. */
int ksv_stream_columns(const struct ksv_stream *s,
		       int (*fn)(void *priv, uint32_t k, const char *name,
				 size_t len),
		       void *priv);
/* fn(priv, name, name_len, json, json_len) for each META line kept. */
int ksv_stream_metas(const struct ksv_stream *s,
		     int (*fn)(void *priv, const char *name, size_t name_len,
			       const char *json, size_t json_len),
		     void *priv);
/* fn(priv, row) for each intact row, in time order; -EINVAL when
 * streaming (the rows went to ops->row). */
int ksv_stream_rows(const struct ksv_stream *s,
		    int (*fn)(void *priv, const struct ksv_row *r),
		    void *priv);
/* NULL: no valid STATS line. */
const struct ksv_stats *ksv_stream_stats(const struct ksv_stream *s);
/* fn(priv, key, key_len, value, value_len) for each STATS key, values as
 * written (numbers, or JSON strings with their quotes); -ENOENT: no
 * STATS, -EINVAL: not a flat JSON object (after the keys before it). */
int ksv_stream_stats_each(const struct ksv_stream *s,
			  int (*fn)(void *priv, const char *key,
				    size_t key_len, const char *value,
				    size_t value_len),
			  void *priv);
const char *ksv_stream_stats_json(const struct ksv_stream *s, size_t *len);
/* The first and last intact rows' times; false: none, or streaming. */
bool ksv_stream_span(const struct ksv_stream *s, uint64_t *first,
		     uint64_t *last);

#endif /* KSNAP_VERIFY_STREAM_H */

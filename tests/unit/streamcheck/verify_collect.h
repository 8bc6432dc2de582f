/* SPDX-License-Identifier: MIT */
/*
 * A user of the parser API for ksnap-verify's unit tests: ksv_walk()
 * over a buffer, every finding, each stream's info and rows kept for
 * the test to look at.
 */
#ifndef KSNAP_TEST_VERIFY_COLLECT_H
#define KSNAP_TEST_VERIFY_COLLECT_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verify_check.h"

#define MAX_FINDINGS	64
#define MAX_STREAMS	4
#define MAX_ROWS	64

struct got {
	struct ksv_log log;
	int ret;
	unsigned int nf;
	struct ksv_finding f[MAX_FINDINGS];
	unsigned int f_stream[MAX_FINDINGS];	/* 0: outside streams */
	unsigned int begun, ended;
	struct ksv_info at_begin[MAX_STREAMS];
	struct ksv_info info[MAX_STREAMS];	/* at end() */
	unsigned int nrows[MAX_STREAMS];
	uint64_t row_t[MAX_STREAMS][MAX_ROWS];
	uint64_t row_v0[MAX_STREAMS][MAX_ROWS];	/* first value */
	int end_ret;		/* what end() returns */
};

static const char *const what_names[] = {
	"FOREIGN", "BAD_LINE", "REPAIRED_LINE", "DUPLICATE", "ORPHAN_ROW",
	"NO_META", "OUT_OF_ORDER", "AFTER_ADLER", "MISSING_LINE",
	"ENDED_NO_STATS", "EARLIER_FILES", "EXTRA_ROWS", "GAP",
	"GAPS_UNCOUNTED", "GAPS_DROPPED", "MISSING_ROWS", "SUM",
};

static inline int got_begin(void *priv, const struct ksv_stream *s)
{
	struct got *g = priv;

	if (g->begun == MAX_STREAMS)
		return -E2BIG;
	g->at_begin[g->begun++] = *ksv_stream_info(s);
	return 0;
}

static inline void got_finding(void *priv, const struct ksv_stream *s,
			       const struct ksv_finding *f)
{
	struct got *g = priv;

	if (g->nf == MAX_FINDINGS)
		return;
	g->f_stream[g->nf] = s ? ksv_stream_info(s)->no : 0;
	g->f[g->nf++] = *f;
}

static inline int got_row(void *priv, const struct ksv_row *r)
{
	struct got *g = priv;
	unsigned int k = g->ended - 1, *n = &g->nrows[k];

	if (*n == MAX_ROWS)
		return 0;
	g->row_t[k][*n] = r->t;
	g->row_v0[k][*n] = r->ncols ? r->v[0] : 0;
	(*n)++;
	return 0;
}

static inline int got_end(void *priv, const struct ksv_stream *s)
{
	struct got *g = priv;

	if (g->ended == MAX_STREAMS)
		return -E2BIG;
	g->info[g->ended++] = *ksv_stream_info(s);
	ksv_stream_rows(s, got_row, g);
	return g->end_ret;
}

static inline void walk(struct got *g, const char *buf, size_t len)
{
	const struct ksv_ops ops = {
		.priv = g, .begin = got_begin, .finding = got_finding,
		.end = got_end,
	};
	int end_ret = g->end_ret;

	memset(g, 0, sizeof(*g));
	g->end_ret = end_ret;
	g->ret = ksv_walk(buf, len, &ops, &g->log);
}

/* The n-th (0-based) finding of kind what, or NULL. */
static inline const struct ksv_finding *
find(const struct got *g, enum ksv_what what, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < g->nf; i++)
		if (g->f[i].what == what && !n--)
			return &g->f[i];
	return NULL;
}

static inline unsigned int count(const struct got *g, enum ksv_what what)
{
	unsigned int i, n = 0;

	for (i = 0; i < g->nf; i++)
		n += g->f[i].what == what;
	return n;
}

/* Fail naming what was expected and listing what was found. */
#define must_find(g, wh, n) ({						\
	const struct ksv_finding *f_ = find(g, wh, n);			\
	if (!f_) {							\
		char l_[512] = "";					\
		unsigned int i_;					\
		for (i_ = 0; i_ < (g)->nf && strlen(l_) < 480; i_++) {	\
			strcat(l_, " ");				\
			strcat(l_, what_names[(g)->f[i_].what]);	\
		}							\
		fail_msg("expected finding %s #%u, got:%s",		\
			 what_names[wh], (unsigned int)(n),		\
			 *l_ ? l_ : " none");				\
		/* Not reached; cmocka's _fail() is not noreturn. */	\
		abort();						\
	}								\
	f_;								\
})

#define expect_u64(what, want, got) do {				\
	unsigned long long w_ = (want), g_ = (got);			\
	if (w_ != g_)							\
		fail_msg("expected %s %llu, got %llu", what, w_, g_);	\
} while (0)

#endif /* KSNAP_TEST_VERIFY_COLLECT_H */

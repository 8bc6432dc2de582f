// SPDX-License-Identifier: MIT
/*
 * A checked stream's parts for the parser's users (verify_stream.h): the
 * column names, META lines, START_TIME, the intact rows one at a time,
 * STATS.  Read from the input where the checks left them, so nothing but
 * one row's values is allocated here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "verify_lex.h"
#include "verify_stream.h"

const struct ksv_info *ksv_stream_info(const struct ksv_stream *s)
{
	return &s->info;
}

bool ksv_stream_start_time(const struct ksv_stream *s, uint64_t *ns)
{
	return s->has_start &&
	       ksv_lex_start_time(s->start_time.body, s->start_time.body_len,
				  ns);
}

int ksv_stream_columns(const struct ksv_stream *s,
		       int (*fn)(void *priv, uint32_t k, const char *name,
				 size_t len),
		       void *priv)
{
	const char *p, *end;
	uint32_t k = 0;
	int ret;

	if (!s->info.has_header)
		return -ENOENT;
	/* Each cell is "<TAB>name", after the time column and, lossy,
	 * before the "<TAB>Checksum" the checks found last. */
	p = s->header.body + KSV_TIME_COLUMN_LEN;
	end = s->header.body + s->header.body_len -
	      (s->info.lossy ? KSV_SUM_COLUMN_LEN : 0);
	while (p < end) {
		const char *cell = p + 1, *tab;

		tab = memchr(cell, '\t', (size_t)(end - cell));
		if (!tab)
			tab = end;
		ret = fn(priv, k++, cell, (size_t)(tab - cell));
		if (ret)
			return ret;
		p = tab;
	}
	return 0;
}

int ksv_stream_metas(const struct ksv_stream *s,
		     int (*fn)(void *priv, const char *name, size_t name_len,
			       const char *json, size_t json_len),
		     void *priv)
{
	const char *name, *json;
	size_t k, nl, jl;
	int ret;

	for (k = 0; k < s->nr_metas; k++) {
		const struct ksv_ref *m = &s->metas[k];

		/* Kept only if it parsed. */
		if (!ksv_lex_meta(m->body, m->len, &name, &nl, &json, &jl))
			continue;
		ret = fn(priv, name, nl, json, jl);
		if (ret)
			return ret;
	}
	return 0;
}

int ksv_stream_rows(const struct ksv_stream *s,
		    int (*fn)(void *priv, const struct ksv_row *r),
		    void *priv)
{
	struct ksv_row r = { .ncols = s->info.ncols };
	uint64_t *v;
	size_t k;
	int ret = 0;

	if (s->streaming)
		return -EINVAL;
	if (!s->nr_rows)
		return 0;
	v = calloc(r.ncols ? r.ncols : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r.v = v;
	for (k = 0; k < s->nr_rows && !ret; k++) {
		const struct ksv_ref *row = &s->rows[k];

		/* Checked when it was kept: it parses. */
		if (!ksv_lex_row(row->body, row->len, &r.t, v)) {
			ret = -EIO;
			break;
		}
		r.line = row->no;
		r.text = row->body;
		r.text_len = row->len;
		ret = fn(priv, &r);
	}
	free(v);
	return ret;
}

const struct ksv_stats *ksv_stream_stats(const struct ksv_stream *s)
{
	return s->st_ok ? &s->st : NULL;
}

const char *ksv_stream_stats_json(const struct ksv_stream *s, size_t *len)
{
	if (!s->has_stats)
		return NULL;
	*len = s->stats.body_len - 6;
	return s->stats.body + 6;
}

/* --- STATS as keys and values ---------------------------------------- */

int ksv_stream_stats_each(const struct ksv_stream *s,
			  int (*fn)(void *priv, const char *key,
				    size_t key_len, const char *value,
				    size_t value_len),
			  void *priv)
{
	const char *p, *end;
	size_t len;
	int ret;

	p = ksv_stream_stats_json(s, &len);
	if (!p)
		return -ENOENT;
	end = p + len;
	p = json_skip_ws(p, end);
	if (p >= end || *p++ != '{')
		return -EINVAL;
	p = json_skip_ws(p, end);
	if (p < end && *p == '}')
		return 0;
	for (;;) {
		const char *k, *v;
		size_t kl, vl;

		if (json_member(&p, end, false, &k, &kl, &v, &vl))
			return -EINVAL;
		ret = fn(priv, k, kl, v, vl);
		if (ret)
			return ret;
		if (p < end && *p == ',')
			p++;
		else
			return p < end && *p == '}' ? 0 : -EINVAL;
	}
}

bool ksv_stream_span(const struct ksv_stream *s, uint64_t *first,
		     uint64_t *last)
{
	if (s->streaming || !s->nr_rows)
		return false;
	*first = s->rows[0].t;
	*last = s->rows[s->nr_rows - 1].t;
	return true;
}

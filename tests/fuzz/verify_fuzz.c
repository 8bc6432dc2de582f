// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for ksnap-verify's parser: any bytes, both with and
 * without a TSV sink, through every accessor of the parser API
 * (verify_check.h), and streaming as ksnap-plot uses it.  The parser
 * must not crash, leak or trip ASan/UBSan, its result must be consistent
 * with its status, and what the API delivers with what it counts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "verify_report.h"
#include "verify_run.h"

static FILE *null_out;

struct seen {
	uint64_t rows, last_t;
	uint32_t cols;
};

static int on_column(void *priv, uint32_t k, const char *name, size_t len)
{
	struct seen *s = priv;

	if (k != s->cols++ || (len && !name))
		abort();
	return 0;
}

static int on_meta(void *priv, const char *name, size_t name_len,
		   const char *json, size_t json_len)
{
	(void)priv;
	if (!name || !name_len || (json_len && !json))
		abort();
	return 0;
}

/* Rows come in time order, each with the header's column count. */
static int on_row(void *priv, const struct ksv_row *r)
{
	struct seen *s = priv;

	if ((s->rows && r->t <= s->last_t) || !r->text_len)
		abort();
	s->rows++;
	s->last_t = r->t;
	return 0;
}

static int on_stat(void *priv, const char *key, size_t key_len,
		   const char *value, size_t value_len)
{
	(void)priv;
	(void)key;
	(void)key_len;
	if (!value || !value_len)
		abort();
	return 0;
}

static int on_end(void *priv, const struct ksv_stream *s)
{
	const struct ksv_info *i = ksv_stream_info(s);
	struct seen seen = { 0 };
	uint64_t start;
	size_t len;
	int ret;

	(void)priv;
	ret = ksv_stream_columns(s, on_column, &seen);
	if (ret ? ret != -ENOENT || i->has_header : seen.cols != i->ncols)
		abort();
	if (ksv_stream_metas(s, on_meta, NULL) ||
	    ksv_stream_rows(s, on_row, &seen) || seen.rows != i->rows)
		abort();
	ksv_stream_start_time(s, &start);
	ret = ksv_stream_stats_each(s, on_stat, NULL);
	if (ret && ret != -EINVAL && ret != -ENOENT)
		abort();
	if (!ksv_stream_stats_json(s, &len) != !ksv_stream_stats(s))
		abort();
	return 0;
}

/* Streaming: rows as read, in time order, as many as the stream counts,
 * and none left for the accessor. */
static int on_stream_row(void *priv, const struct ksv_stream *s,
			 const struct ksv_row *r)
{
	if (r->ncols != ksv_stream_info(s)->ncols)
		abort();
	return on_row(priv, r);
}

static int on_stream_begin(void *priv, const struct ksv_stream *s)
{
	struct seen *seen = priv;

	(void)s;
	seen->rows = 0;
	seen->last_t = 0;
	return 0;
}

static int on_stream_end(void *priv, const struct ksv_stream *s)
{
	struct seen *seen = priv;

	if (seen->rows != ksv_stream_info(s)->rows ||
	    ksv_stream_rows(s, on_row, NULL) != -EINVAL)
		abort();
	return 0;
}

static void on_progress(void *priv, size_t pos)
{
	(void)priv;
	(void)pos;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksnap_verify_opts o = { .tsv_stream = 1 };
	struct ksnap_verify_result r;
	int status;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	status = ksnap_verify((const char *)data, size, &o, null_out,
			      null_out, &r);
	if (status != r.status || status < KSNAP_VERIFY_INTACT ||
	    status > KSNAP_VERIFY_UNUSABLE)
		abort();
	/* Intact means nothing was found wrong. */
	if (status == KSNAP_VERIFY_INTACT &&
	    (r.bad_lines || r.dup_lines || r.rows_missing ||
	     r.missing_lines || !r.sum_ok || !r.streams))
		abort();
	o.quiet = true;
	o.tsv_stream = 2;
	ksnap_verify((const char *)data, size, &o, NULL, NULL, &r);
	{
		const struct ksv_ops ops = { .end = on_end };
		struct ksv_log log;

		ksv_walk((const char *)data, size, &ops, &log);
	}
	{
		struct seen seen = { 0 };
		const struct ksv_ops ops = {
			.priv = &seen, .begin = on_stream_begin,
			.end = on_stream_end, .row = on_stream_row,
			.progress = on_progress,
		};
		struct ksv_log log;

		ksv_walk((const char *)data, size, &ops, &log);
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * The plain stream of a checked stream's intact lines (verify_tsv.h),
 * through the parser's accessors only.  Each part is written as the
 * input spelled it (fwrite, no precision limits), so what went in intact
 * comes out unchanged.
 */
#include <inttypes.h>

#include "verify_tsv.h"

static void put(FILE *f, const char *p, size_t n)
{
	fwrite(p, 1, n, f);
}

static int put_meta(void *priv, const char *name, size_t name_len,
		    const char *json, size_t json_len)
{
	fputs("META\t", priv);
	put(priv, name, name_len);
	fputc('\t', priv);
	put(priv, json, json_len);
	fputc('\n', priv);
	return 0;
}

static int put_column(void *priv, uint32_t k, const char *name, size_t len)
{
	(void)k;
	fputc('\t', priv);
	put(priv, name, len);
	return 0;
}

static int put_row(void *priv, const struct ksv_row *r)
{
	put(priv, r->text, r->text_len);
	fputc('\n', priv);
	return 0;
}

int ksv_write_tsv(const struct ksv_stream *s, FILE *f)
{
	const char *stats;
	uint64_t start;
	size_t len;
	int ret;

	ret = ksv_stream_metas(s, put_meta, f);
	if (ret)
		return ret;
	if (ksv_stream_start_time(s, &start))
		fprintf(f, "START_TIME\t%" PRIu64 "\n", start);
	fputs(KSV_TIME_COLUMN, f);
	ret = ksv_stream_columns(s, put_column, f);
	if (ret)
		return ret;
	fputc('\n', f);
	ret = ksv_stream_rows(s, put_row, f);
	if (ret)
		return ret;
	stats = ksv_stream_stats_json(s, &len);
	if (stats) {
		fputs("STATS\t", f);
		put(f, stats, len);
		fputc('\n', f);
	}
	return 0;
}

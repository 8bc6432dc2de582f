// SPDX-License-Identifier: MIT
/*
 * omrender: ksnapd's OpenMetrics endpoint, natively, without HTTP: a
 * collection of --cols columns (cgroups of 4 columns each: memory.current
 * and memory.swap.current, gauges; cpu.stat.usage and cpu.stat.usage_self,
 * counters) fed through the web consumer (web_ops: begin, 100 rows at
 * 10 ms, flush), then web_render() as a scrape calls it, --reps times per
 * format, and the same bytes gzipped as web.c does (zlib, level 6, gzip
 * wrapper).  Prints one key=value line per (columns, format): render and
 * gzip time (best and median), bytes, gzipped bytes, sample lines.
 *
 *   omrender [--cols 200,8000] [--reps N]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "web.h"

#define MS	1000000ULL

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static size_t gzip_len(const char *buf, size_t len, unsigned char *out,
		       size_t cap)
{
	z_stream zs;
	size_t n = 0;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) == Z_STREAM_END)
		n = zs.total_out;
	deflateEnd(&zs);
	return n;
}

static const struct {
	const char *metric, *desc;
	uint32_t flags;
} kinds[4] = {
	{ "memory.current", "memory charged to the cgroup, bytes", 0 },
	{ "memory.swap.current", "swap charged to the cgroup, bytes", 0 },
	{ "cpu.stat.usage", "CPU time of the cgroup, ns",
	  KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS },
	{ "cpu.stat.usage_self", "CPU time of the cgroup's own tasks, ns",
	  KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS },
};

static int run(uint32_t ncols, int reps)
{
	const struct web_config cfg = {
		.listen = "127.0.0.1:0",
		.window_ns = 60000 * MS,
		.version = "bench",
	};
	struct ksnap_column *cols = calloc(ncols, sizeof(*cols));
	struct ksnap_record *rec = calloc(1, KSNAP_RECORD_SIZE(ncols));
	double *tr = calloc((size_t)reps, sizeof(double));
	double *tz = calloc((size_t)reps, sizeof(double));
	size_t zcap = 64 << 20, zlen = 0;
	unsigned char *z = malloc(zcap);
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = ncols, .period_ns = 10 * MS,
		.start_mono_ns = mono_ns() - 2000 * MS,
	};
	static struct web w;
	char err[256];
	uint32_t i, r;
	int f, ret = -ENOMEM;

	if (!cols || !rec || !tr || !tz || !z)
		goto out;
	for (i = 0; i < ncols; i++) {
		snprintf(cols[i].metric, sizeof(cols[i].metric), "%s",
			 kinds[i % 4].metric);
		snprintf(cols[i].field, sizeof(cols[i].field), "cgroup");
		snprintf(cols[i].value, sizeof(cols[i].value),
			 "/kubepods.slice/pod%04u.slice/cri-containerd-%08x.scope",
			 i / 4, i / 4 * 2654435761u);
		snprintf(cols[i].description, sizeof(cols[i].description),
			 "%s", kinds[i % 4].desc);
		cols[i].flags = kinds[i % 4].flags;
	}
	c.columns = cols;
	memset(&w, 0, sizeof(w));
	ret = web_init(&w, &cfg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "omrender: web_init: %s\n", err);
		goto out;
	}
	ret = web_ops.begin(&w, &c, 0);
	for (r = 0; !ret && r < 100; r++) {
		rec->seq = r;
		rec->time_ns = r * 10 * MS;
		for (i = 0; i < ncols; i++)
			rec->values[i] = (uint64_t)(i + 1) * 1048576 +
					 r * (i % 7 + 1) * 4096;
		ret = web_ops.row(&w, rec);
	}
	if (!ret)
		ret = web_ops.flush(&w);
	for (f = 0; !ret && f < 2; f++) {
		enum om_format fmt = f ? OM_OPENMETRICS : OM_PROMETHEUS;
		size_t bytes = 0, lines = 0;

		for (r = 0; r < (uint32_t)reps; r++) {
			struct om_buf b = { 0 };
			double t0 = (double)mono_ns(), t1;

			ret = web_render(&w, fmt, &b);
			t1 = (double)mono_ns();
			if (ret)
				break;
			zlen = gzip_len(b.p, b.len, z, zcap);
			tz[r] = (double)mono_ns() - t1;
			tr[r] = t1 - t0;
			bytes = b.len;
			if (!r) {
				const char *p = b.p, *e = b.p + b.len;

				for (lines = 0; p < e; p++)
					if (*p == '\n' && p + 1 < e &&
					    p[1] != '#')
						lines++;
			}
			om_buf_free(&b);
		}
		if (ret)
			break;
		qsort(tr, (size_t)reps, sizeof(double), cmp_d);
		qsort(tz, (size_t)reps, sizeof(double), cmp_d);
		printf("kind=omrender cols=%u cgroups=%u format=%s samples=%zu "
		       "bytes=%zu gzip_bytes=%zu render_us=%.1f "
		       "render_median_us=%.1f gzip_us=%.1f gzip_median_us=%.1f "
		       "reps=%d\n", ncols, ncols / 4,
		       f ? "openmetrics" : "prometheus", lines, bytes, zlen,
		       tr[0] / 1e3, tr[reps / 2] / 1e3, tz[0] / 1e3,
		       tz[reps / 2] / 1e3, reps);
	}
	web_fini(&w);
out:
	free(cols);
	free(rec);
	free(tr);
	free(tz);
	free(z);
	return ret;
}

int main(int argc, char **argv)
{
	uint32_t cols[8] = { 200, 8000 }, ncfg = 2, c;
	int reps = 20, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--cols") && i + 1 < argc) {
			char *p = argv[++i];

			for (ncfg = 0; ncfg < 8 && *p; ncfg++) {
				cols[ncfg] = (uint32_t)strtoul(p, &p, 10);
				if (*p == ',')
					p++;
			}
		} else {
			fprintf(stderr, "omrender: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (reps < 1)
		return 2;
	for (c = 0; c < ncfg; c++)
		if (run(cols[c], reps)) {
			fprintf(stderr, "omrender: %u columns failed\n", cols[c]);
			return 1;
		}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * ksnap-plot's model of what it read, shared by its reader (plot_read.c),
 * its events reader (plot_events.c) and its page writer (plot_page.c): per
 * stream the charts (one per metric, its columns the series), the
 * reduced data, the gaps and damage, STATS; for the page, the events and
 * ksnap-verify's report of the log.  Everything here is bounded by the
 * output: nothing is kept per input row.
 */
#ifndef KSNAP_PLOT_MODEL_H
#define KSNAP_PLOT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plot_reduce.h"
#include "verify_check.h"

enum plot_unit {
	PLOT_U_NONE,		/* a count or a number */
	PLOT_U_BYTES,
	PLOT_U_NS,
	PLOT_U_PAGES,
};

struct plot_chart {
	char *metric;		/* the metric's name */
	char *desc;		/* META's description, or NULL */
	enum plot_unit unit;
	double scale;		/* to the unit: KiB 1024, load/1000 0.001 */
	bool rate;		/* cumulative: drawn per second */
	uint32_t nseries;
	uint32_t *cols;		/* its columns, in header order */
	char **labels;		/* a series' field value, or the name */
	uint64_t unlimited;	/* 2^64-1 gauge values ("max"), not drawn */
	uint64_t resets;	/* counter resets: no rate there */
};

#define PLOT_MAX_SPANS	2048	/* gaps and damaged places, per stream */

struct plot_stream {
	const char *file;		/* the input it is in */
	struct ksv_info info;		/* at its end */
	bool ended;
	bool has_start;
	uint64_t start_time;		/* START_TIME, ns */
	uint32_t ncols;
	struct plot_chart *charts;
	uint32_t ncharts;
	uint32_t *col_chart;		/* column -> its chart */
	struct pr_rate *rates;		/* per column */
	double *v;			/* one row, per column */
	bool *has;
	bool set_up;			/* charts made, at the first row */
	struct pr_buckets b;
	uint32_t nb_first;		/* buckets it began with */
	struct pr_spans gaps, damage;
	bool gaps_dropped;		/* STATS: the module dropped them */
	uint64_t first_t, last_t;
	bool has_stats;
	struct ksv_stats st;
	struct ksv_capture cap;
	char *stats_kv;			/* "key\tvalue\n" as written */
	size_t stats_kv_len;
};

struct plot_event {
	uint64_t t;			/* on the stream's time axis, ns */
	bool wall;			/* t is wall clock: minus START_TIME */
	unsigned int stream;		/* 0: every stream */
	char *label;
};

struct plot_events {
	const char *file;
	struct plot_event *e;
	size_t n, cap;
	uint64_t skipped;		/* lines not understood */
	uint64_t over;			/* past the cap */
};

#define PLOT_MAX_EVENTS	1000

struct plot_opts {
	const char *out;		/* -o */
	const char *dygraphs;		/* the library's directory */
	const char *title;
	uint64_t max_size;		/* the page's cap, bytes */
	uint32_t buckets;		/* per stream, at most */
	bool quiet;
};

/* ksnap-verify's report, first lines kept. */
#define PLOT_REPORT_MAX	(96 * 1024)

/* A named cgroup (plot_names.h). */
struct plot_name {
	char *path;			/* as the module gave it, unescaped */
	char *label;			/* "namespace/pod/container" */
};

struct plot {
	const struct plot_opts *o;
	struct plot_stream **streams;
	size_t nstreams;
	struct plot_events ev;
	char *report;			/* the report's text, kept part */
	size_t report_len;
	uint64_t report_lines_over;	/* lines not kept */
	const char **inputs;
	size_t ninputs;
	uint64_t rows, foreign;		/* all inputs */
	int status;			/* worst KSNAP_VERIFY_* with rows */
	struct plot_name *names;	/* sorted by path */
	size_t nnames;
};

#endif /* KSNAP_PLOT_MODEL_H */

/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's metrics as Prometheus sees them: the names (one function,
 * om_map_name(), from a column's metric, field and unit to a family with
 * node_exporter's and cAdvisor's stems and base units), the labels
 * (escaped; a value that is not valid UTF-8 is refused, and the caller
 * skips and counts its series), and the two renderings:
 *
 *   OM_OPENMETRICS  application/openmetrics-text; version=1.0.0: # TYPE,
 *                   # UNIT and # HELP of the family (a counter's name
 *                   without _total), ending in "# EOF"
 *   OM_PROMETHEUS   text/plain; version=0.0.4: # HELP and # TYPE of the
 *                   sample's name, no # UNIT
 *
 * Each family of a collection comes with its window families: for a
 * gauge NAME_UNIT, NAME_window_max_UNIT and NAME_window_min_UNIT (the
 * unit last, as OpenMetrics wants it); for a counter NAME (samples
 * NAME_total), the gauge NAME_window_max_rate, its peak rate per second.
 * With om_layout.peak_times, each window maximum has a gauge of when it
 * was taken: NAME_window_max_timestamp_seconds, a counter's
 * NAME_window_max_rate_timestamp_seconds.
 * A gauge chosen for a histogram (om_layout_histograms()) also has
 * NAME_distribution_UNIT.  No _created series.  A family with no live
 * series is left out.
 */
#ifndef KSNAP_OPENMETRICS_H
#define KSNAP_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "column.h"

#define OM_NAME_MAX	160
#define OM_LABEL_MAX	64
/* A family's HELP: its description, with room for the exported unit. */
#define OM_HELP_MAX	(KSNAP_DESC_MAX + 96)

enum om_format {
	OM_PROMETHEUS,		/* text 0.0.4, the fallback */
	OM_OPENMETRICS,		/* OpenMetrics 1.0.0 */
};

#define OM_CT_OPENMETRICS \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"
#define OM_CT_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"

/* A column's family, as om_map_name() names it. */
struct om_name {
	char family[OM_NAME_MAX];	/* a counter's without _total */
	const char *unit;		/* "bytes", "seconds" or NULL */
	double scale;			/* raw value * scale: the base unit */
	bool counter;
	/* One label the name implies (cpu.user: mode="user"), or "". */
	char label[OM_LABEL_MAX];
	char label_value[OM_LABEL_MAX];
};

/* The unit of a column: its description's text after the last ", ". */
const char *om_desc_unit(const char *description);

/*
 * The family of metric (a column's metric name), field ("cgroup", "cpu"
 * or ""), its KSNAP_COL_* flags and unit (om_desc_unit()).  Returns 0,
 * or -EINVAL for a name that maps to nothing.
 */
int om_map_name(const char *metric, const char *field, uint32_t flags,
		const char *unit, struct om_name *n);

/* Whether s is valid UTF-8 (no overlong forms, no surrogates). */
bool om_utf8_valid(const char *s);

/*
 * Label value v escaped into out (outlen bytes): \ as \\, " as \", a
 * newline as \n.  Returns the length, or -ENOSPC (out is then "").
 */
int om_escape(const char *v, char *out, size_t outlen);

/*
 * The container id and pod uid in cgroup path p, "" when none, as
 * ksnap_id_parse() finds them (identity.h: every runtime's and cgroup
 * driver's shape; a conmon scope has no container id).  The endpoint's
 * series have these and the rest of the cgroup's identity as labels.
 */
void om_cgroup_ids(const char *p, char *cid, size_t cidlen, char *pod,
		   size_t podlen);

/*
 * A cumulative histogram of a gauge's samples (--web.histogram): bucket
 * i < count counts the samples at most start * factor^i (in the base
 * unit), bucket count the others (+Inf); kept per bucket, rendered
 * cumulative as NAME_distribution_UNIT_bucket{le=...}, _sum and _count.
 */
#define OM_HIST_MAX	64

struct om_hist_spec {
	double start, factor;
	unsigned int count;		/* 1..OM_HIST_MAX */
};

struct om_hist {
	uint64_t bucket[OM_HIST_MAX + 1];
	double sum;
	uint64_t count;
};

void om_hist_observe(const struct om_hist_spec *s, struct om_hist *h,
		     double v);

/* One exported family of a collection and its series. */
struct om_family {
	char name[OM_NAME_MAX];
	char help[OM_HELP_MAX];
	const char *unit;
	double scale;
	bool counter;
	bool hist;			/* a gauge with a histogram */
	unsigned int first, nr;		/* its series in om_layout.series */
	/* A counter's: the interval its peak rates are taken over (the
	 * caller's), 0 when not given. */
	uint64_t rate_interval_ns;
};

struct om_series {
	unsigned int column;		/* in the collection's column set */
	char *labels;			/* rendered: a="x",b="y", or "" */
};

/* What a collection exports: built once, when it begins. */
struct om_layout {
	struct om_family *fam;
	unsigned int nr_fam;
	struct om_series *series;	/* grouped by family */
	unsigned int nr_series;
	uint64_t skipped_utf8;		/* series left out: label not UTF-8 */
	unsigned int *skipped_col;	/* their columns, skipped_utf8 of them */
	uint64_t filtered;		/* columns --web.metrics left out */
	struct om_hist_spec hspec;	/* the histograms' buckets */
	/* Each window maximum with NAME_window_max_timestamp_seconds
	 * (a counter's NAME_window_max_rate_timestamp_seconds): when it was
	 * taken (--web.peak-times). */
	bool peak_times;
};

/*
 * The layout of n columns; patterns is a comma-separated list of shell
 * patterns matched against each family's name (a counter's with _total),
 * or NULL for all.  Returns 0 or -ENOMEM.
 */
int om_layout_build(struct om_layout *l, const struct ksnap_column *cols,
		    unsigned int n, const char *patterns);
void om_layout_free(struct om_layout *l);

/*
 * The gauges of l whose name matches patterns (om_match()) get a
 * histogram with buckets s.  Returns how many.
 */
unsigned int om_layout_histograms(struct om_layout *l, const char *patterns,
				  const struct om_hist_spec *s);

/* Whether name matches one of patterns (NULL: every name). */
bool om_match(const char *patterns, const char *name);

/*
 * A gauge's raw value in its base unit (raw * scale); U64_MAX, a cgroup
 * file's "max" (no limit), is +Inf.
 */
double om_gauge_value(uint64_t raw, double scale);

/* A series' values at a scrape. */
struct om_value {
	uint64_t last;			/* raw, as the ring has it */
	bool alive;			/* sampled within the window */
	bool have_window;		/* wmax, wmin set (a counter: a rate) */
	bool removed;			/* its cgroup was removed: no current
					 * value, the window's only */
	double wmax, wmin;		/* scaled; a counter: rate per second */
	double wmax_time;		/* when wmax was taken, s since the
					 * Unix epoch (om_layout.peak_times) */
	const struct om_hist *hist;	/* a histogram family's, or NULL */
};

/* ksnapd's own figures. */
struct om_self {
	const char *version;
	unsigned int abi;
	bool running;			/* a collection is being read */
	double window_seconds;
	double period_seconds;		/* the collection's, 0 when none */
	uint64_t taken, lost, missed;	/* the ring's statistics */
	uint64_t thinned;		/* of missed, skipped on purpose */
	uint64_t cgroups_skipped;	/* matches the set has no room for */
	uint64_t read_sum_ns, read_max_ns;
	uint64_t lateness_sum_ns, lateness_max_ns;
	uint64_t skipped_utf8;
	uint64_t scrapes;
	uint64_t refused;		/* requests answered 503 */
	/* The flight recorder's, when it is on: its rules' fires (one
	 * extending an open dump too) and the dumps it opened. */
	bool flight;
	uint64_t flight_triggers, flight_dumps;
	/* --textfile's, when it is on: the file replaced, writes failed. */
	bool textfile;
	uint64_t textfile_writes, textfile_errors;
	/* The process_* series every Prometheus exporter has (not in a
	 * textfile, where node_exporter's own would clash): CPU time, start
	 * time (Unix seconds), memory, descriptors; -1 for a figure that
	 * could not be read. */
	bool process;
	double process_cpu_s, process_start_s;
	int64_t process_rss, process_vsize, process_open_fds, process_max_fds;
};

/* A growing text buffer. */
struct om_buf {
	char *p;
	size_t len, cap;
	bool failed;			/* out of memory: p is incomplete */
};

void om_buf_free(struct om_buf *b);

/*
 * The exposition of layout l (NULL: none) with values v (one per series),
 * and self, appended to b in format f.  Returns 0 or -ENOMEM.
 */
int om_render(struct om_buf *b, enum om_format f, const struct om_layout *l,
	      const struct om_value *v, const struct om_self *self);

/*
 * The format an Accept header asks for: OpenMetrics when it names
 * application/openmetrics-text with a q above 0 and at least the text
 * format's (text/plain's, else text/'s or the wildcard's), else the text
 * format.
 */
enum om_format om_negotiate(const char *accept);

/* Whether an Accept-Encoding header accepts gzip (not with q=0). */
bool om_wants_gzip(const char *accept_encoding);

#endif /* KSNAP_OPENMETRICS_H */

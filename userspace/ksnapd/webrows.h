/* SPDX-License-Identifier: MIT */
/*
 * The consumer half of ksnapd's OpenMetrics endpoint (web.h): a consumer
 * of the collector beside the output file (consumer.h: one reader of the
 * ring, both outputs) that keeps each series' last value and window
 * aggregates (window.h), and renders the exposition (openmetrics.h) from
 * them for a scrape or for --textfile.  struct web, which it shares with
 * the server (web.c), is here.
 *
 * The drain never waits for a scrape: row() updates the last values and
 * the window aggregates (window.h) under a mutex held for one record's
 * update; a scrape holds it only to copy each series' values (its window
 * query), never while it renders, compresses or sends.  A collection's
 * layout (names, labels) is built by begin() before it takes the mutex,
 * and shared with the scrapes by reference count.  A scrape whose layout
 * changed before its copy takes the new one (web_rows_render()): a
 * scrape always carries the series.
 *
 * The endpoint answers before the first collection and between
 * collections, with ksnap_collection_running 0: a collection's series
 * stay until their window has passed without a sample.  A removed
 * cgroup's (the module freezes its columns and flags the records stale)
 * lose their current value at once, ksnapd stops feeding their window,
 * and their window aggregates stay until it has passed: the removal is
 * an inotify event (cgwatch.h), not a look at each cgroup.
 *
 * A column set change (consumer.h: an end() with split, then begin())
 * is the same collection under other columns: the self counters, the
 * skipped series and ksnap_collection_running go on, each series keeps
 * its window, reference and last value (matched by metric, field and
 * value), and a series the new set no longer has is kept, frozen, until
 * its window has passed, as a removed cgroup's is.
 *
 * The drain is the only writer of the layout, the window and the last
 * values: it reads them without the mutex, and takes it to change them.
 */
#ifndef KSNAPD_WEBROWS_H
#define KSNAPD_WEBROWS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgwatch.h"
#include "consumer.h"
#include "openmetrics.h"
#include "ring.h"
#include "webauth.h"
#include "webconf.h"
#include "window.h"

/* The window when --web.window gives none. */
#define WEB_DEFAULT_WINDOW_NS	(60ULL * 1000000000ULL)
/* A peak rate's interval, in refreshes of its counter: at most 10% high. */
#define WEB_RATE_REFRESHES	10
/* --web.histogram's buckets unless --web.histogram-buckets: 1 to 2^39. */
#define WEB_HIST_START		1.0
#define WEB_HIST_FACTOR		2.0
#define WEB_HIST_COUNT		40

/* Where a column's cgroup path is, to see that it was removed. */
#define WEB_CGROUP_ROOT		"/sys/fs/cgroup"

/* A scrape's attempts to copy the values under the layout it took: the
 * last one copies under the lock it took the layout with. */
#define WEB_RENDER_TRIES	4

/* Where the exposition is served, as node_exporter's --web.telemetry-path. */
#define WEB_DEFAULT_TELEMETRY_PATH	"/metrics"
#define WEB_TELEMETRY_PATH_MAX		128

struct web_config {
	const char *listen;		/* ADDR:PORT, [ADDR6]:PORT, :PORT */
	uint64_t window_ns;
	const char *patterns;		/* --web.metrics, or NULL: all */
	const char *histograms;		/* --web.histogram, or NULL: none */
	bool peak_times;		/* --web.peak-times */
	struct om_hist_spec hist_spec;	/* --web.histogram-buckets */
	const char *version;
	const struct ksnap_ring *ring;	/* for its statistics, or NULL */
	FILE *log;
	/* No HTTP server: the series for --textfile alone. */
	bool no_server;
	/* Called by the drain at each flush, under the lock: more of
	 * ksnapd's own figures (the flight recorder's), or NULL. */
	void (*self_hook)(void *arg, struct om_self *self);
	void *self_arg;
	const char *config_file;	/* --web.config.file, or NULL */
	bool systemd_socket;		/* the socket systemd passes */
	/* The header deadline in s; 0: WEB_HEADER_DEADLINE_S (the tests'
	 * seam). */
	unsigned int header_deadline_s;
	/* Called by a scrape between its two locked sections, or NULL (the
	 * tests' seam: a layout change there). */
	void (*between_hook)(void *arg);
	void *between_arg;
	/* The cgroup2 root the columns' cgroup paths are under; NULL:
	 * WEB_CGROUP_ROOT (the tests' seam). */
	const char *cgroup_root;
	/* --web.max-requests: 0 is WEB_DEFAULT_MAX_REQUESTS. */
	unsigned int max_requests;
	/* How long a rendered answer is shared; 0: WEB_SHARE_NS (the
	 * tests' seam). */
	uint64_t share_ns;
	/* --web.telemetry-path (web_telemetry_path_ok()), or NULL:
	 * WEB_DEFAULT_TELEMETRY_PATH. */
	const char *telemetry_path;
};

/* A rendered answer to /metrics in one format and encoding. */
struct web_share {
	struct MHD_Response *r;		/* or NULL */
	uint64_t at_ns;			/* when its render began */
	uint64_t gen;			/* renders of it that were made */
	uint64_t epoch;			/* w->epoch when its render began */
	bool busy;			/* a render of it is under way */
};

struct web_layout;
struct web_conn;

struct web {
	struct web_config cfg;
	/* The landing page and the 404 answer, which name the telemetry
	 * path; when ksnapd started (process_start_time_seconds). */
	char landing[WEB_TELEMETRY_PATH_MAX + 320];
	char not_found[WEB_TELEMETRY_PATH_MAX + 32];
	double start_real_s;
	pthread_mutex_t lock;
	/* Under lock: */
	struct web_layout *layout;	/* the last collection's, or NULL */
	struct window win;		/* one series per layout series */
	uint64_t *last;			/* raw last values */
	struct om_self self;
	uint64_t start_mono_ns;
	/* The drain's: removed cgroups' watcher; a record said a cgroup is
	 * gone, the cgroups were looked for since, and when (find_gone()). */
	struct cgwatch cgw;
	bool stale, stale_looked;
	uint64_t stale_checked_ns;
	/* The drain's: the collection begun last, whether its stream ended
	 * at a column set change (its next begin() goes on with it), and
	 * the series it skipped (metric, field, value: each string's NUL
	 * included), counted once each. */
	uint32_t generation;
	bool split;
	char **skipped;
	unsigned int nr_skipped;
	/* The server. */
	struct MHD_Daemon *mhd;
	struct webconf conf;
	struct web_auth auth;		/* with conf.nr_users */
	/* The shared answers, by format and gzip, and the /metrics
	 * requests being answered (under share_lock). */
	pthread_mutex_t share_lock;
	pthread_cond_t share_cond;
	struct web_share share[2][2];
	/* A collection began or ended: a shared answer from before it is
	 * not served after it (written under lock, read with atomics). */
	uint64_t epoch;
	unsigned int in_flight;
	uint64_t renders;		/* answers rendered */
	uint64_t refused;		/* answered 503: too many at once */
	/* Its connections, for the header deadline (under conns_lock). */
	pthread_mutex_t conns_lock;
	pthread_cond_t conns_cond;
	struct web_conn *conns;
	unsigned int nr_conns;
	bool stop, have_watchdog;
	pthread_t watchdog;
	uint64_t nr_cut;		/* past the deadline, shut down */
	char *err;
	size_t errlen;
};

/* CLOCK_MONOTONIC, the clock of the records' times, in ns. */
uint64_t web_now_ns(void);

extern const struct ksnapd_consumer_ops web_ops;

/*
 * The exposition now, as a scrape renders it (the server's handler and
 * the tests).  Returns 0 or -ENOMEM.
 */
int web_render(struct web *w, enum om_format f, struct om_buf *b);
/* The same, as --textfile writes it: the text format, not a scrape. */
int web_render_file(struct web *w, struct om_buf *b);

/* The exposition into b; scrape: counted as one, process: process_* too. */
int web_rows_render(struct web *w, enum om_format f, struct om_buf *b,
		    bool scrape, bool process);
/* w's consumer half, from w->cfg.  Returns 0 or -errno with err set. */
int web_rows_init(struct web *w, char *err, size_t errlen);
/* Its end: the layout, the window, the last values, the watcher. */
void web_rows_fini(struct web *w);

#endif /* KSNAPD_WEBROWS_H */

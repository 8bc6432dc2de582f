/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's OpenMetrics endpoint (--web.listen-address): a consumer of the
 * collector beside the output file (consumer.h: one reader of the ring,
 * both outputs), and an HTTP server (libmicrohttpd) on a thread of its
 * own serving
 *
 *   /          a small page that links /metrics
 *   /metrics   the exposition (openmetrics.h), OpenMetrics or the text
 *              format by the Accept header, gzip when Accept-Encoding asks
 *   otherwise  404; a method other than GET or HEAD: 405
 *
 * The drain never waits for a scrape: row() updates the last values and
 * the window aggregates (window.h) under a mutex held for one record's
 * update; a scrape holds it only to copy each series' values (its window
 * query), never while it renders, compresses or sends.  A collection's
 * layout (names, labels) is built by begin() before it takes the mutex,
 * and shared with the scrapes by reference count.  A scrape whose layout
 * changed before its copy takes the new one (render()): a scrape always
 * carries the series.
 *
 * The server gives each connection a thread of its own (a bcrypt holds up
 * its connection only) and has bounded connections (WEB_MAX_CONNECTIONS,
 * WEB_MAX_PER_IP from one address: enough that a few hundred idle ones
 * do not lock a scraper out), bounded work (requests for /metrics share one
 * render, WEB_SHARE_NS; at most --web.max-requests at once), a timeout (WEB_TIMEOUT_S without a
 * byte), a request header limit (WEB_MEMORY_LIMIT bytes for one
 * connection) and a deadline for a request's line and headers (a TLS
 * handshake's too): WEB_HEADER_DEADLINE_S from the connection or from the
 * previous answer on it, however slowly they trickle in, and one for the
 * answer to be read (WEB_ANSWER_DEADLINE_S); a watchdog thread shuts a
 * connection past either down.
 *
 * --web.config.file (webconf.h) adds TLS (GnuTLS through libmicrohttpd;
 * TLS 1.2 and 1.3 only, WEB_TLS_PRIORITIES) and basic authentication
 * (webauth.h): without a credential that passes, every path answers 401
 * with WWW-Authenticate, or 429 once the client has failed too often.
 * --web.systemd-socket serves the listening socket systemd passes
 * (LISTEN_FDS, one socket) instead of opening one.
 * It answers before the first collection and between collections, with
 * ksnap_collection_running 0: a collection's series stay until their
 * window has passed without a sample.  A removed cgroup's (the module
 * freezes its columns and flags the records stale) lose their current
 * value at once, ksnapd stops feeding their window, and their window
 * aggregates stay until it has passed: the removal is an inotify event
 * (cgwatch.h), not a look at each cgroup.
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
 *
 * With no_server, there is no HTTP server: the series are --textfile's
 * (textfile.h), rendered by web_render_file().
 */
#ifndef KSNAPD_WEB_H
#define KSNAPD_WEB_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cgwatch.h"
#include "consumer.h"
#include "openmetrics.h"
#include "ring.h"
#include "webauth.h"
#include "webconf.h"
#include "window.h"

/* The port when --web.listen-address gives none, and the address; the
 * address of :PORT (every address, IPv4 too). */
#define WEB_DEFAULT_PORT	10109
#define WEB_DEFAULT_ADDR	"127.0.0.1"
#define WEB_ANY_ADDR		"::"
#define WEB_DEFAULT_WINDOW_NS	(60ULL * 1000000000ULL)
/* Where the exposition is served, as node_exporter's --web.telemetry-path. */
#define WEB_DEFAULT_TELEMETRY_PATH	"/metrics"
#define WEB_TELEMETRY_PATH_MAX		128
/* A peak rate's interval, in refreshes of its counter: at most 10% high. */
#define WEB_RATE_REFRESHES	10
/* --web.histogram's buckets unless --web.histogram-buckets: 1 to 2^39. */
#define WEB_HIST_START		1.0
#define WEB_HIST_FACTOR		2.0
#define WEB_HIST_COUNT		40

/* Where a column's cgroup path is, to see that it was removed. */
#define WEB_CGROUP_ROOT		"/sys/fs/cgroup"

/* The connections the server holds: a thread and a file descriptor each
 * (the default soft limit of 1024 descriptors leaves room for ksnapd's
 * own); from one address, a third of them, so that one client cannot
 * take them all, while a scraper sharing an address with a few hundred
 * idle connections is still answered. */
#define WEB_MAX_CONNECTIONS	768
#define WEB_MAX_PER_IP		256
/* A flood of connections waits in the kernel's accept queue, to be taken
 * and closed at once past the limits, not dropped to come back later
 * (a SYN retried after 1, 3, 7 ... s): a scrape behind it gets in. */
#define WEB_LISTEN_BACKLOG	1024
#define WEB_TIMEOUT_S		10
#define WEB_MEMORY_LIMIT	(32 * 1024)
#define WEB_HEADER_DEADLINE_S	10
#define WEB_ANSWER_DEADLINE_S	60
/* A rendered answer to /metrics serves the requests that arrive within
 * WEB_SHARE_NS of its render's start, and those that waited for it. */
#define WEB_SHARE_NS		(1000ULL * 1000000ULL)
/* --web.max-requests's default (exporter-toolkit's): /metrics requests
 * answered at once, the others 503; WEB_NO_MAX_REQUESTS: no bound. */
#define WEB_DEFAULT_MAX_REQUESTS	40
#define WEB_NO_MAX_REQUESTS	UINT_MAX
/* A scrape's attempts to copy the values under the layout it took: the
 * last one copies under the lock it took the layout with. */
#define WEB_RENDER_TRIES	4
#define WEB_REALM		"ksnapd"
/* GnuTLS priorities: TLS 1.2 at least. */
#define WEB_TLS_PRIORITIES	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

struct web_config {
	const char *listen;		/* ADDR:PORT, [ADDR6]:PORT, :PORT */
	uint64_t window_ns;
	const char *patterns;		/* --web.metrics, or NULL: all */
	const char *histograms;		/* --web.histogram, or NULL: none */
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

/*
 * Split ADDR:PORT: "" or NULL is WEB_DEFAULT_ADDR:WEB_DEFAULT_PORT, a
 * missing address (":9100") every address (WEB_ANY_ADDR, as
 * node_exporter's), "localhost" loopback, a missing port the default; an
 * IPv6 address in brackets; port 0 is any free port (web_port() says
 * which).  Returns 0 or -EINVAL.
 */
int web_parse_listen(const char *s, char *addr, size_t addrlen,
		     unsigned int *port);

/*
 * --web.listen-address's value: the option's own (--web.listen-address=
 * ADDR), else argv[*next] when it is there and not an option (a space
 * before ADDR: *next is moved past it), else "" (the default address).
 */
const char *web_listen_arg(const char *optarg, char *const *argv, int *next);

/*
 * Is s a telemetry path ksnapd serves: "/" and then up to
 * WEB_TELEMETRY_PATH_MAX - 1 of letters, digits and "/._-~" (what needs
 * no escaping in a URL or in the landing page), not "/" alone (the
 * landing page)?
 */
bool web_telemetry_path_ok(const char *s);

/* Start the server.  Returns 0 or -errno with err set. */
int web_init(struct web *w, const struct web_config *cfg, char *err,
	     size_t errlen);
void web_fini(struct web *w);

/* CLOCK_MONOTONIC, the clock of the records' times, in ns. */
uint64_t web_now_ns(void);

/*
 * The listening socket systemd passes (sd_listen_fds(3) without
 * libsystemd): LISTEN_PID is this process, LISTEN_FDS one, and fd 3 a
 * listening stream socket.  Unsets the variables.  Returns the fd or
 * -errno with err set.
 */
int web_systemd_socket(char *err, size_t errlen);

/* The port the server listens on (a port 0 given: the one it got). */
unsigned int web_port(struct web *w);

extern const struct ksnapd_consumer_ops web_ops;

/*
 * The exposition now, as a scrape renders it (the server's handler and
 * the tests).  Returns 0 or -ENOMEM.
 */
int web_render(struct web *w, enum om_format f, struct om_buf *b);
/* The same, as --textfile writes it: the text format, not a scrape. */
int web_render_file(struct web *w, struct om_buf *b);

#endif /* KSNAPD_WEB_H */

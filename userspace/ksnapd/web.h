/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's OpenMetrics endpoint (--web.listen-address): a consumer of the
 * collector (webrows.h: the series, their windows, the exposition) and an
 * HTTP server (libmicrohttpd) on a thread of its own serving
 *
 *   /          a small page that links /metrics
 *   /metrics   the exposition (openmetrics.h), OpenMetrics or the text
 *              format by the Accept header, gzip when Accept-Encoding asks
 *   otherwise  404; a method other than GET or HEAD: 405
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
 *
 * With no_server, there is no HTTP server: the series are --textfile's
 * (textfile.h), rendered by web_render_file().
 */
#ifndef KSNAPD_WEB_H
#define KSNAPD_WEB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "webrows.h"

/* The port when --web.listen-address gives none, and the address; the
 * address of :PORT (every address, IPv4 too). */
#define WEB_DEFAULT_PORT	10109
#define WEB_DEFAULT_ADDR	"127.0.0.1"
#define WEB_ANY_ADDR		"::"
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
#define WEB_REALM		"ksnapd"
/* GnuTLS priorities: TLS 1.2 at least. */
#define WEB_TLS_PRIORITIES	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

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

/*
 * The listening socket systemd passes (sd_listen_fds(3) without
 * libsystemd): LISTEN_PID is this process, LISTEN_FDS one, and fd 3 a
 * listening stream socket.  Unsets the variables.  Returns the fd or
 * -errno with err set.
 */
int web_systemd_socket(char *err, size_t errlen);

/* The port the server listens on (a port 0 given: the one it got). */
unsigned int web_port(struct web *w);

#endif /* KSNAPD_WEB_H */

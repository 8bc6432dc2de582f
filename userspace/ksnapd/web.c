// SPDX-License-Identifier: MIT
/*
 * The HTTP server of ksnapd's OpenMetrics endpoint (web.h): the listening
 * socket, libmicrohttpd, connections and their watchdog, authentication
 * and the requests; the series it serves are webrows.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "sys.h"
#include "web.h"

/* --- the address -------------------------------------------------------- */

int web_parse_listen(const char *s, char *addr, size_t addrlen,
		     unsigned int *port)
{
	const char *colon, *host = s;
	size_t hl;
	char *end;
	unsigned long p;

	*port = WEB_DEFAULT_PORT;
	if (!s || !*s) {
		snprintf(addr, addrlen, "%s", WEB_DEFAULT_ADDR);
		return 0;
	}
	if (*s == '[') {
		colon = strchr(s, ']');
		if (!colon)
			return -EINVAL;
		host = s + 1;
		hl = (size_t)(colon - host);
		colon++;
		if (*colon && *colon != ':')
			return -EINVAL;
		if (!*colon)
			colon = NULL;
	} else {
		colon = strrchr(s, ':');
		hl = colon ? (size_t)(colon - s) : strlen(s);
		if (colon && strchr(s, ':') != colon)
			return -EINVAL;	/* IPv6 wants brackets */
	}
	if (hl + 1 > addrlen)
		return -EINVAL;
	if (hl)
		memcpy(addr, host, hl);
	addr[hl] = '\0';
	if (!hl)
		snprintf(addr, addrlen, "%s", WEB_ANY_ADDR);
	else if (!strcmp(addr, "localhost"))
		snprintf(addr, addrlen, "%s", WEB_DEFAULT_ADDR);
	if (colon) {
		errno = 0;
		p = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || p > 65535 ||
		    colon[1] == '-' || colon[1] == '+')
			return -EINVAL;
		*port = (unsigned int)p;
	}
	return 0;
}

const char *web_listen_arg(const char *optarg, char *const *argv, int *next)
{
	if (optarg)
		return optarg;
	if (argv[*next] && argv[*next][0] != '-')
		return argv[(*next)++];
	return "";
}

/* A listening socket on ss; dual: IPv4 too (the IPv6 wildcard).  Returns
 * the fd or -errno. */
static int listen_addr(const struct sockaddr_storage *ss, socklen_t len,
		       bool dual)
{
	int fd, ret, one = 1, zero = 0;

	fd = ksnap_sys_socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	ret = ksnap_sys_setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				   sizeof(one));
	if (!ret && dual)
		ret = ksnap_sys_setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY,
					   &zero, sizeof(zero));
	if (!ret)
		ret = ksnap_sys_bind(fd, (const struct sockaddr *)ss, len);
	if (!ret)
		ret = ksnap_sys_listen(fd, WEB_LISTEN_BACKLOG);
	if (ret) {
		ksnap_sys_close(fd);
		return ret;
	}
	return fd;
}

/*
 * A listening socket on ADDR:PORT (system calls through the seam).  The
 * IPv6 wildcard (:PORT, [::]:PORT) takes IPv4 too, or is 0.0.0.0 where
 * the kernel has no IPv6.
 */
static int listen_on(const char *listen, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	char addr[INET6_ADDRSTRLEN + 8];
	unsigned int port;
	socklen_t len;
	bool dual;
	int fd;

	if (web_parse_listen(listen, addr, sizeof(addr), &port)) {
		snprintf(err, errlen, "--web.listen-address: '%s': expected "
			 "ADDR:PORT, [ADDR6]:PORT or :PORT", listen);
		return -EINVAL;
	}
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		len = sizeof(*in4);
	} else if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		len = sizeof(*in6);
	} else {
		snprintf(err, errlen, "--web.listen-address: '%s' is not an "
			 "IPv4 or IPv6 address", addr);
		return -EINVAL;
	}
	dual = ss.ss_family == AF_INET6 &&
	       IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr);
	fd = listen_addr(&ss, len, dual);
	if (dual && (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL)) {
		memset(&ss, 0, sizeof(ss));
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		in4->sin_addr.s_addr = htonl(INADDR_ANY);
		snprintf(addr, sizeof(addr), "0.0.0.0");
		fd = listen_addr(&ss, sizeof(*in4), false);
	}
	if (fd < 0)
		snprintf(err, errlen, "web: listening on %s port %u: %s", addr,
			 port, strerror(-fd));
	return fd;
}

/* --- the server --------------------------------------------------------- */

bool web_telemetry_path_ok(const char *s)
{
	size_t n = strlen(s);

	if (s[0] != '/' || n < 2 || n >= WEB_TELEMETRY_PATH_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789/._-~") == n;
}

/* The landing page and the 404 answer, naming the telemetry path. */
static void pages(struct web *w)
{
	snprintf(w->landing, sizeof(w->landing),
		 "<!DOCTYPE html>\n<html><head><title>ksnapd</title></head>"
		 "<body>\n<h1>ksnapd</h1>\n<p>Kernel and cgroup counters at "
		 "the sampling period of ksnap.ko, with window maxima and "
		 "minima that a scrape interval cannot see.</p>\n"
		 "<p><a href=\"%s\">Metrics</a></p>\n</body></html>\n",
		 w->cfg.telemetry_path);
	snprintf(w->not_found, sizeof(w->not_found), "not found: try %s\n",
		 w->cfg.telemetry_path);
}


/* buf (len bytes) gzipped into *out; returns its length, 0 on failure. */
static size_t gzip(const char *buf, size_t len, char **out)
{
	z_stream zs;
	size_t cap;
	char *p;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	cap = deflateBound(&zs, len) + 32;
	p = malloc(cap);
	if (!p) {
		deflateEnd(&zs);
		return 0;
	}
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = (unsigned char *)p;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&zs);
		free(p);
		return 0;
	}
	len = zs.total_out;
	deflateEnd(&zs);
	*out = p;
	return len;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     const char *type, const char *body)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (code == MHD_HTTP_TOO_MANY_REQUESTS ||
	    code == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* The answer to /metrics in format f, gzipped or not; NULL when out of
 * memory. */
static struct MHD_Response *metrics_answer(struct web *w, enum om_format f,
					   bool gz)
{
	struct om_buf b = { 0 };
	struct MHD_Response *r;
	char *body, *z = NULL;
	size_t len, zl = 0;

	if (web_rows_render(w, f, &b, false, true)) {
		om_buf_free(&b);
		return NULL;
	}
	body = b.p;
	len = b.len;
	if (gz)
		zl = gzip(b.p, b.len, &z);
	if (zl) {
		om_buf_free(&b);
		body = z;
		len = zl;
	}
	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				f == OM_OPENMETRICS ? OM_CT_OPENMETRICS :
						      OM_CT_PROMETHEUS);
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY,
				"Accept, Accept-Encoding");
	if (zl)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING,
					"gzip");
	return r;
}

/*
 * /metrics; a HEAD's answer has the same headers, but is not a scrape.
 * The answer is shared (w->share): one rendered less than the sharing
 * interval ago, or the one a render under way makes, is queued as it
 * is, unless a collection began or ended since its render began
 * (w->epoch); else this request renders it for the others.  At most
 * max_requests are answered at once, the others get 503.
 */
static enum MHD_Result metrics(struct web *w, struct MHD_Connection *conn,
			       bool head)
{
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
			MHD_HTTP_HEADER_ACCEPT);
	const char *enc = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
			MHD_HTTP_HEADER_ACCEPT_ENCODING);
	enum om_format f = om_negotiate(accept);
	bool gz = om_wants_gzip(enc);
	struct web_share *s = &w->share[f == OM_OPENMETRICS][gz];
	enum MHD_Result ret = MHD_NO;
	struct MHD_Response *r;
	uint64_t seen, at;
	bool failed = false;

	pthread_mutex_lock(&w->share_lock);
	if (w->in_flight >= w->cfg.max_requests) {
		__atomic_fetch_add(&w->refused, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&w->share_lock);
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			     "too many requests at once "
			     "(--web.max-requests): try again later\n");
	}
	w->in_flight++;
	seen = s->gen;
	for (;;) {
		uint64_t epoch = __atomic_load_n(&w->epoch, __ATOMIC_ACQUIRE);

		if (s->r && s->epoch == epoch &&
		    (s->gen != seen ||
		     web_now_ns() - s->at_ns < w->cfg.share_ns))
			break;
		if (s->busy) {
			pthread_cond_wait(&w->share_cond, &w->share_lock);
			continue;
		}
		s->busy = true;
		w->renders++;
		pthread_mutex_unlock(&w->share_lock);
		at = web_now_ns();
		epoch = __atomic_load_n(&w->epoch, __ATOMIC_ACQUIRE);
		r = metrics_answer(w, f, gz);
		pthread_mutex_lock(&w->share_lock);
		s->busy = false;
		pthread_cond_broadcast(&w->share_cond);
		if (!r) {
			failed = true;
			break;
		}
		if (s->r)
			MHD_destroy_response(s->r);
		s->r = r;
		s->at_ns = at;
		s->epoch = epoch;
		s->gen++;
		break;
	}
	/* Queued under the lock: the next render may replace s->r. */
	if (!failed)
		ret = MHD_queue_response(conn, MHD_HTTP_OK, s->r);
	w->in_flight--;
	pthread_mutex_unlock(&w->share_lock);
	if (failed)
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
			     "text/plain", "out of memory\n");
	if (!head) {
		pthread_mutex_lock(&w->lock);
		w->self.scrapes++;
		pthread_mutex_unlock(&w->lock);
	}
	return ret;
}

/* --- connections: the header deadline ---------------------------------- */

struct web_conn {
	struct web_conn *next, **pprev;
	int fd;
	uint64_t since_ns;		/* the connection, or its last answer */
	bool in_request;		/* its headers are in */
	bool cut;
};

static struct web_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *i;

	i = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return i ? i->socket_context : NULL;
}

static void conn_notify(void *cls, struct MHD_Connection *conn, void **sc,
			enum MHD_ConnectionNotificationCode toe)
{
	struct web *w = cls;
	const union MHD_ConnectionInfo *i;
	struct web_conn *c = *sc;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		i = MHD_get_connection_info(conn,
					    MHD_CONNECTION_INFO_CONNECTION_FD);
		c = i ? calloc(1, sizeof(*c)) : NULL;
		*sc = c;
		if (!c)
			return;
		c->fd = i->connect_fd;
		c->since_ns = web_now_ns();
		pthread_mutex_lock(&w->conns_lock);
		c->next = w->conns;
		if (c->next)
			c->next->pprev = &c->next;
		c->pprev = &w->conns;
		w->conns = c;
		w->nr_conns++;
		pthread_mutex_unlock(&w->conns_lock);
		return;
	}
	if (!c)
		return;
	/* Before libmicrohttpd closes the fd: the watchdog never shuts down
	 * an fd that is another's by then. */
	pthread_mutex_lock(&w->conns_lock);
	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	w->nr_conns--;
	pthread_mutex_unlock(&w->conns_lock);
	free(c);
	*sc = NULL;
}

static void conn_state(struct web *w, struct MHD_Connection *conn,
		       bool in_request)
{
	struct web_conn *c = conn_of(conn);

	if (!c)
		return;
	pthread_mutex_lock(&w->conns_lock);
	c->in_request = in_request;
	c->since_ns = web_now_ns();
	pthread_mutex_unlock(&w->conns_lock);
}

static void request_done(void *cls, struct MHD_Connection *conn,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	(void)con_cls;
	(void)toe;
	conn_state(cls, conn, false);
}

/* Every half second: a connection whose request line and headers are not
 * in WEB_HEADER_DEADLINE_S after it opened (or its last answer), or whose
 * answer is not out WEB_ANSWER_DEADLINE_S after its headers were in (a
 * client reading a byte at a time), is shut down; libmicrohttpd sees the
 * end of its stream and closes it. */
static void *watchdog(void *arg)
{
	struct web *w = arg;
	const uint64_t header = (w->cfg.header_deadline_s ?
				 w->cfg.header_deadline_s :
				 WEB_HEADER_DEADLINE_S) * 1000000000ULL;
	const uint64_t answer = WEB_ANSWER_DEADLINE_S * 1000000000ULL;
	struct web_conn *c;
	struct timespec ts;
	uint64_t now;

	pthread_mutex_lock(&w->conns_lock);
	while (!w->stop) {
		now = web_now_ns();
		for (c = w->conns; c; c = c->next) {
			if (c->cut || now - c->since_ns <
				      (c->in_request ? answer : header))
				continue;
			c->cut = true;
			w->nr_cut++;
			shutdown(c->fd, SHUT_RDWR);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 500000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->conns_cond, &w->conns_lock, &ts);
	}
	pthread_mutex_unlock(&w->conns_lock);
	return NULL;
}

/* --- requests ----------------------------------------------------------- */

/* The client's address: its bytes (4 or 16) in addr, their number. */
static size_t client_addr(struct MHD_Connection *conn, unsigned char *addr)
{
	const union MHD_ConnectionInfo *i;
	const struct sockaddr *sa;

	i = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	sa = i ? i->client_addr : NULL;
	if (sa && sa->sa_family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 4;
	}
	if (sa && sa->sa_family == AF_INET6) {
		memcpy(addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 16;
	}
	return 0;
}

/* The request's credential passed; else its answer (401, 429) is queued,
 * *queued the result. */
static bool authorized(struct web *w, struct MHD_Connection *conn,
		       enum MHD_Result *queued)
{
	static const char denied[] = "unauthorized\n";
	unsigned char addr[WEB_AUTH_ADDR_LEN] = { 0 };
	enum web_auth_result r = WEB_AUTH_DENIED;
	struct MHD_Response *resp;
	char *user, *pass = NULL;
	size_t alen;

	user = MHD_basic_auth_get_username_password(conn, &pass);
	if (user && pass) {
		alen = client_addr(conn, addr);
		r = web_auth_check(&w->auth, user, pass, addr, alen,
				   web_now_ns());
	}
	if (pass) {
		memset(pass, 0, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	if (r == WEB_AUTH_OK)
		return true;
	if (r == WEB_AUTH_LIMITED) {
		*queued = reply(conn, MHD_HTTP_TOO_MANY_REQUESTS, "text/plain",
				"too many failed attempts: try again later\n");
		return false;
	}
	resp = MHD_create_response_from_buffer(sizeof(denied) - 1,
					       (void *)denied,
					       MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		*queued = MHD_NO;
		return false;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain");
	*queued = MHD_queue_basic_auth_fail_response(conn, WEB_REALM, resp);
	MHD_destroy_response(resp);
	return false;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct web *w = cls;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	(void)con_cls;
	conn_state(w, conn, true);
	/* A body is not read: what comes with a request is dropped. */
	*upload_data_size = 0;
	if (w->conf.nr_users && !authorized(w, conn, &ret))
		return ret;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     "method not allowed: GET or HEAD\n");
	if (!strcmp(url, w->cfg.telemetry_path))
		return metrics(w, conn,
			       !strcmp(method, MHD_HTTP_METHOD_HEAD));
	if (!strcmp(url, "/"))
		return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8",
			     w->landing);
	return reply(conn, MHD_HTTP_NOT_FOUND, "text/plain", w->not_found);
}

int web_systemd_socket(char *err, size_t errlen)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int fd = 3, acc = 0, type = 0, ret = 0;
	socklen_t len = sizeof(int);
	char me[32];

	snprintf(me, sizeof(me), "%ld", (long)getpid());
	if (!pid || !fds || strcmp(pid, me)) {
		snprintf(err, errlen, "--web.systemd-socket: no socket from "
			 "systemd (LISTEN_PID, LISTEN_FDS: start ksnapd "
			 "from ksnapd.socket)");
		ret = -ENOENT;
	} else if (strcmp(fds, "1")) {
		snprintf(err, errlen, "--web.systemd-socket: LISTEN_FDS=%s: "
			 "expected one socket", fds);
		ret = -EINVAL;
	} else if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) ||
		   !acc ||
		   getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) ||
		   type != SOCK_STREAM) {
		snprintf(err, errlen, "--web.systemd-socket: fd 3 is not a "
			 "listening stream socket");
		ret = -ENOTSOCK;
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (ret)
		return ret;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/*
 * The server on fd, TLS with a certificate.  A thread for each connection
 * (at most WEB_MAX_CONNECTIONS of them): a bcrypt, a slow client, or a
 * request waiting for the shared render holds up its own connection
 * only, never a scrape on another.  The bound is on the work
 * (--web.max-requests, the shared render, the deadlines), not on who
 * connects: a limit per address high enough that idle connections
 * from the scraper's own address do not lock it out, low enough that one
 * address cannot take every connection.  The watchdog shuts down a
 * connection's fd and its thread sees the end of the stream.
 */
static int serve(struct web *w, int fd)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO;
	struct MHD_OptionItem tls[4] = { { MHD_OPTION_END, 0, NULL } };

	if (w->conf.cert_pem) {
		flags |= MHD_USE_TLS;
		tls[0] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
						  w->conf.cert_pem };
		tls[1] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
						  w->conf.key_pem };
		tls[2] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES,
						  0, (void *)WEB_TLS_PRIORITIES };
		tls[3] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	}
	w->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, w,
				  MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_LIMIT,
				  (unsigned int)WEB_MAX_CONNECTIONS,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				  (unsigned int)WEB_MAX_PER_IP,
				  MHD_OPTION_CONNECTION_TIMEOUT,
				  (unsigned int)WEB_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				  (size_t)WEB_MEMORY_LIMIT,
				  MHD_OPTION_NOTIFY_CONNECTION, conn_notify, w,
				  MHD_OPTION_NOTIFY_COMPLETED, request_done, w,
				  MHD_OPTION_ARRAY, tls,
				  MHD_OPTION_END);
	return w->mhd ? 0 : -EIO;
}

int web_init(struct web *w, const struct web_config *cfg, char *err,
	     size_t errlen)
{
	pthread_condattr_t ca;
	int fd = -1, ret;

	memset(w, 0, sizeof(*w));
	w->cfg = *cfg;
	if (!w->cfg.max_requests)
		w->cfg.max_requests = WEB_DEFAULT_MAX_REQUESTS;
	if (!w->cfg.share_ns)
		w->cfg.share_ns = WEB_SHARE_NS;
	if (!w->cfg.telemetry_path)
		w->cfg.telemetry_path = WEB_DEFAULT_TELEMETRY_PATH;
	if (!web_telemetry_path_ok(w->cfg.telemetry_path)) {
		snprintf(err, errlen, "--web.telemetry-path: '%.*s': expected "
			 "/ and letters, digits, /._-~", 64,
			 w->cfg.telemetry_path);
		return -EINVAL;
	}
	pages(w);
	ret = web_rows_init(w, err, errlen);
	if (ret)
		return ret;
	pthread_mutex_init(&w->conns_lock, NULL);
	pthread_mutex_init(&w->share_lock, NULL);
	pthread_cond_init(&w->share_cond, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->conns_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (cfg->no_server)
		return 0;
	if (cfg->config_file) {
		ret = webconf_load(cfg->config_file, &w->conf, err, errlen);
		if (ret)
			goto fail;
	}
	if (w->conf.nr_users) {
		ret = web_auth_init(&w->auth, w->conf.users,
				    w->conf.nr_users);
		if (ret) {
			snprintf(err, errlen, "web: authentication: %s",
				 strerror(-ret));
			goto fail;
		}
	}
	fd = cfg->systemd_socket ? web_systemd_socket(err, errlen) :
				   listen_on(cfg->listen, err, errlen);
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	ret = -pthread_create(&w->watchdog, NULL, watchdog, w);
	if (ret) {
		snprintf(err, errlen, "web: a thread: %s", strerror(-ret));
		goto fail;
	}
	w->have_watchdog = true;
	if (w->conf.cert_pem && MHD_is_feature_supported(MHD_FEATURE_TLS) !=
				MHD_YES) {
		snprintf(err, errlen, "--web.config.file: %s: "
			 "tls_server_config: this libmicrohttpd was built "
			 "without TLS", cfg->config_file);
		ret = -EOPNOTSUPP;
		goto fail;
	}
	ret = serve(w, fd);
	if (ret) {
		snprintf(err, errlen, "web: the HTTP server did not start%s",
			 w->conf.cert_pem ? " (TLS: " WEB_TLS_PRIORITIES ")" :
			 "");
		goto fail;
	}
	if (cfg->log)
		fprintf(cfg->log, "ksnapd: serving %s on %s (port %u)%s%s\n",
			w->cfg.telemetry_path,
			cfg->systemd_socket ? "systemd's socket" :
			cfg->listen && *cfg->listen ? cfg->listen :
			WEB_DEFAULT_ADDR, web_port(w),
			w->conf.cert_pem ? ", TLS" : "",
			w->conf.nr_users ? ", basic authentication" : "");
	return 0;
fail:
	if (fd >= 0)
		ksnap_sys_close(fd);
	web_fini(w);
	return ret;
}

unsigned int web_port(struct web *w)
{
	const union MHD_DaemonInfo *i;

	i = MHD_get_daemon_info(w->mhd, MHD_DAEMON_INFO_BIND_PORT);
	return i ? i->port : 0;
}

void web_fini(struct web *w)
{
	unsigned int i;

	if (w->mhd) {
		MHD_stop_daemon(w->mhd);
		w->mhd = NULL;
	}
	if (w->have_watchdog) {
		pthread_mutex_lock(&w->conns_lock);
		w->stop = true;
		pthread_cond_signal(&w->conns_cond);
		pthread_mutex_unlock(&w->conns_lock);
		pthread_join(w->watchdog, NULL);
		w->have_watchdog = false;
	}
	pthread_cond_destroy(&w->conns_cond);
	pthread_mutex_destroy(&w->conns_lock);
	for (i = 0; i < 4; i++) {
		struct web_share *s = &w->share[i / 2][i % 2];

		if (s->r)
			MHD_destroy_response(s->r);
		s->r = NULL;
	}
	pthread_cond_destroy(&w->share_cond);
	pthread_mutex_destroy(&w->share_lock);
	web_auth_fini(&w->auth);
	webconf_free(&w->conf);
	web_rows_fini(w);
}

// SPDX-License-Identifier: MIT
/*
 * The endpoint's basic authentication (webauth.h): bcrypt once per
 * credential, the failures' token buckets (an IPv6 client by its /64, an
 * address that passed before spared the global one), a bcrypt that holds
 * up no other check; then over real HTTP (and TLS)
 * on a loopback port: 401 with WWW-Authenticate, 429, a scrape answered
 * while a bcrypt runs, TLS below 1.2 refused, a plain HTTP request
 * against the TLS port, the header deadline, and the socket systemd passes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "web.h"
#include "web_tls.h"
#include "webauth.h"

#define S	1000000000ULL

static const struct webconf_user users[] = {
	{ .name = "prometheus", .hash = TEST_HASH },
	{ .name = "other", .hash = TEST_HASH },
};
static const unsigned char here[4] = { 10, 0, 0, 1 };
static const unsigned char there[4] = { 10, 0, 0, 2 };
static struct web_auth a;

static int auth_setup(void **state)
{
	assert_int_equal(web_auth_init(&a, users, 2), 0);
	return 0;
}

static int auth_teardown(void **state)
{
	web_auth_fini(&a);
	return 0;
}

static enum web_auth_result check(const char *u, const char *p,
				  const unsigned char *addr, uint64_t t)
{
	return web_auth_check(&a, u, p, addr, 4, t);
}

static void bcrypt_runs_once_per_credential_that_passed(void **state)
{
	int i;

	for (i = 0; i < 10; i++)
		assert_int_equal(check("prometheus", "secret", here, S),
				 WEB_AUTH_OK);
	assert_int_equal(a.bcrypt_runs, 1);
	assert_int_equal(check("other", "secret", here, S), WEB_AUTH_OK);
	assert_int_equal(check("other", "secret", there, S), WEB_AUTH_OK);
	assert_int_equal(a.bcrypt_runs, 2);
}

static void a_wrong_password_is_denied_every_time(void **state)
{
	assert_int_equal(check("prometheus", "secret", here, S), WEB_AUTH_OK);
	assert_int_equal(check("prometheus", "secreT", here, S),
			 WEB_AUTH_DENIED);
	assert_int_equal(check("prometheus", "secreT", here, S),
			 WEB_AUTH_DENIED);
	/* Another user's remembered password is not this one's. */
	assert_int_equal(check("other", "secreT", here, S), WEB_AUTH_DENIED);
	assert_int_equal(check("prometheus", "", here, S), WEB_AUTH_DENIED);
}

static void an_unknown_user_costs_a_bcrypt_as_a_known_one(void **state)
{
	assert_int_equal(check("nobody", "secret", here, S), WEB_AUTH_DENIED);
	assert_int_equal(a.bcrypt_runs, 1);
	assert_int_equal(check("nobody", "secret", here, S), WEB_AUTH_DENIED);
	assert_int_equal(a.bcrypt_runs, 2);
}

static void failures_run_out_of_tokens_and_bcrypt_stops(void **state)
{
	int i;

	for (i = 0; i < WEB_AUTH_BURST; i++)
		assert_int_equal(check("prometheus", "x", here, S),
				 WEB_AUTH_DENIED);
	for (i = 0; i < 100; i++)
		assert_int_equal(check("prometheus", "x", here, S),
				 WEB_AUTH_LIMITED);
	assert_int_equal(a.bcrypt_runs, WEB_AUTH_BURST);
	/* Even the right password waits for a token: it is not known yet. */
	assert_int_equal(check("prometheus", "secret", here, S),
			 WEB_AUTH_LIMITED);
	/* Another address has its own bucket. */
	assert_int_equal(check("prometheus", "secret", there, S),
			 WEB_AUTH_OK);
	/* A remembered credential needs no token. */
	assert_int_equal(check("prometheus", "secret", here, S), WEB_AUTH_OK);
}

static void tokens_come_back_with_time(void **state)
{
	int i;

	for (i = 0; i < WEB_AUTH_BURST; i++)
		check("prometheus", "x", here, S);
	assert_int_equal(check("prometheus", "x", here, S), WEB_AUTH_LIMITED);
	assert_int_equal(check("prometheus", "x", here, 2 * S),
			 WEB_AUTH_DENIED);
	assert_int_equal(check("prometheus", "x", here, 2 * S),
			 WEB_AUTH_LIMITED);
	assert_int_equal(check("prometheus", "secret", here, 3 * S),
			 WEB_AUTH_OK);
}

static void a_credential_that_passes_gives_its_token_back(void **state)
{
	int i;

	for (i = 0; i < WEB_AUTH_BURST - 1; i++)
		check("prometheus", "x", here, S);
	/* The last token, given back. */
	assert_int_equal(check("prometheus", "secret", here, S), WEB_AUTH_OK);
	assert_int_equal(check("prometheus", "x", here, S), WEB_AUTH_DENIED);
	assert_int_equal(check("prometheus", "x", here, S), WEB_AUTH_LIMITED);
}

static void all_addresses_share_a_global_bound(void **state)
{
	unsigned char addr[4] = { 10, 1, 0, 0 };
	unsigned int i, denied = 0;

	for (i = 0; i < 200; i++) {
		addr[2] = (unsigned char)(i >> 8);
		addr[3] = (unsigned char)i;
		denied += check("prometheus", "x", addr, S) ==
			  WEB_AUTH_DENIED;
	}
	assert_int_equal(denied, WEB_AUTH_GLOBAL_BURST);
	assert_int_equal(a.bcrypt_runs, WEB_AUTH_GLOBAL_BURST);
}

static void an_ipv6_client_is_one_by_its_64(void **state)
{
	unsigned char v6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 };
	unsigned char mapped[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	int i;

	/* Each a new interface identifier in the same /64: one bucket. */
	for (i = 0; i < WEB_AUTH_BURST; i++) {
		v6[15] = (unsigned char)i;
		assert_int_equal(web_auth_check(&a, "prometheus", "x", v6, 16,
						S), WEB_AUTH_DENIED);
	}
	v6[15] = 0xee;
	assert_int_equal(web_auth_check(&a, "prometheus", "x", v6, 16, S),
			 WEB_AUTH_LIMITED);
	/* Another /64 has its own (the right password: the global bucket
	 * gets its token back). */
	v6[7] = 2;
	assert_int_equal(web_auth_check(&a, "prometheus", "secret", v6, 16,
					S), WEB_AUTH_OK);
	/* An IPv4 address mapped into IPv6 is that IPv4 address, not the
	 * /64 of all of them. */
	for (i = 0; i < WEB_AUTH_BURST - 1; i++)
		assert_int_equal(check("prometheus", "x", here, S),
				 WEB_AUTH_DENIED);
	assert_int_equal(web_auth_check(&a, "prometheus", "x", mapped, 16,
					S), WEB_AUTH_DENIED);
	assert_int_equal(check("prometheus", "x", here, S), WEB_AUTH_LIMITED);
	/* The global bucket spent, a second later: 10.0.0.2 has tokens. */
	mapped[15] = 2;
	assert_int_equal(web_auth_check(&a, "prometheus", "x", mapped, 16,
					2 * S), WEB_AUTH_DENIED);
}

static void an_address_that_passed_is_not_starved_by_others(void **state)
{
	unsigned char addr[4] = { 10, 1, 0, 0 };
	unsigned int i;

	assert_int_equal(check("prometheus", "secret", here, S), WEB_AUTH_OK);
	/* Many addresses spend the global bucket, and push out old ones. */
	for (i = 0; i < 4 * WEB_AUTH_CLIENTS; i++) {
		addr[3] = (unsigned char)i;
		check("prometheus", "x", addr, S);
	}
	assert_int_equal(check("prometheus", "x", there, S), WEB_AUTH_LIMITED);
	/* here passed before: a credential new to the cache still runs. */
	assert_int_equal(check("other", "secret", here, S), WEB_AUTH_OK);
	assert_int_equal(check("prometheus", "wrong", here, S),
			 WEB_AUTH_DENIED);
}

/* A crypt that waits, for the password "slow", until released. */
static pthread_mutex_t slow_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t slow_cond = PTHREAD_COND_INITIALIZER;
static bool slow_in, slow_go;

static char *slow_crypt(const char *pass, const char *hash,
			struct crypt_data *cd)
{
	if (!strcmp(pass, "slow")) {
		pthread_mutex_lock(&slow_lock);
		slow_in = true;
		pthread_cond_broadcast(&slow_cond);
		while (!slow_go)
			pthread_cond_wait(&slow_cond, &slow_lock);
		pthread_mutex_unlock(&slow_lock);
	}
	return crypt_r(pass, hash, cd);
}

/* Whether *flag is set within 30 s. */
static bool slow_wait(bool *flag)
{
	struct timespec ts;
	bool set;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 30;
	pthread_mutex_lock(&slow_lock);
	while (!*flag &&
	       pthread_cond_timedwait(&slow_cond, &slow_lock, &ts) == 0)
		;
	set = *flag;
	pthread_mutex_unlock(&slow_lock);
	return set;
}

static void slow_release(void)
{
	pthread_mutex_lock(&slow_lock);
	slow_go = true;
	pthread_cond_broadcast(&slow_cond);
	pthread_mutex_unlock(&slow_lock);
}

static void slow_reset(struct web_auth *auth)
{
	slow_in = false;
	slow_go = false;
	auth->crypt = slow_crypt;
}

struct a_check {
	const char *user, *pass;
	const unsigned char *addr;
	enum web_auth_result r;
	bool done;
};

static void *check_thread(void *arg)
{
	struct a_check *c = arg;
	enum web_auth_result r = check(c->user, c->pass, c->addr, S);

	pthread_mutex_lock(&slow_lock);
	c->r = r;
	c->done = true;
	pthread_cond_broadcast(&slow_cond);
	pthread_mutex_unlock(&slow_lock);
	return NULL;
}

static void a_bcrypt_holds_up_no_other_check(void **state)
{
	static const unsigned char third[4] = { 10, 0, 0, 3 };
	struct a_check slow = { .user = "prometheus", .pass = "slow",
				.addr = there };
	struct a_check hit = { .user = "prometheus", .pass = "secret",
			       .addr = here };
	struct a_check miss = { .user = "other", .pass = "secret",
				.addr = third };
	pthread_t t[3];

	slow_reset(&a);
	assert_int_equal(check("prometheus", "secret", here, S), WEB_AUTH_OK);
	assert_int_equal(pthread_create(&t[0], NULL, check_thread, &slow), 0);
	assert_true(slow_wait(&slow_in));
	/* A remembered credential, and another bcrypt, while it runs. */
	assert_int_equal(pthread_create(&t[1], NULL, check_thread, &hit), 0);
	assert_int_equal(pthread_create(&t[2], NULL, check_thread, &miss), 0);
	assert_true(slow_wait(&hit.done));
	assert_true(slow_wait(&miss.done));
	assert_false(slow.done);
	slow_release();
	assert_true(slow_wait(&slow.done));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(hit.r, WEB_AUTH_OK);
	assert_int_equal(miss.r, WEB_AUTH_OK);
	assert_int_equal(slow.r, WEB_AUTH_DENIED);
	assert_int_equal(a.bcrypt_runs, 3);
}

/* --- over HTTP ------------------------------------------------------------ */

static char dir[64], conf[128], err[512];
static struct web w;
static unsigned int port;
static char resp[65536];

static void put(const char *name, const char *text)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void serve(const char *yml)
{
	struct web_config cfg = {
		.listen = "127.0.0.1:0",
		.version = "test",
		.config_file = conf,
	};

	fake_sys_reset();
	snprintf(dir, sizeof(dir), "/tmp/webauth_test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/web.yml", dir);
	put("server.crt", TEST_CERT);
	put("server.key", TEST_KEY);
	put("web.yml", yml);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	port = web_port(&w);
}

static int web_teardown(void **state)
{
	char cmd[128];

	web_fini(&w);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static int dial(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const struct timeval tv = { .tv_sec = 30 };
	int fd;

	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	/* A server that never answers fails the test, not hangs it. */
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				    sizeof(tv)), 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* GET PATH with the Authorization header AUTH (or none): the response. */
static const char *get(const char *path, const char *auth)
{
	char req[512];
	size_t got = 0;
	ssize_t n;
	int fd = dial();

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: localhost\r\n"
		 "%s%s%sConnection: close\r\n\r\n", path,
		 auth ? "Authorization: Basic " : "", auth ? auth : "",
		 auth ? "\r\n" : "");
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	while ((n = read(fd, resp + got, sizeof(resp) - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	resp[got] = '\0';
	return resp;
}

/* The same over TLS (GnuTLS, the certificate not checked). */
static const char *tls_get(const char *path, const char *auth)
{
	gnutls_certificate_credentials_t xc;
	gnutls_session_t s;
	char req[512];
	size_t got = 0;
	ssize_t n;
	int fd = dial(), r;

	assert_int_equal(gnutls_certificate_allocate_credentials(&xc), 0);
	assert_int_equal(gnutls_init(&s, GNUTLS_CLIENT), 0);
	assert_int_equal(gnutls_set_default_priority(s), 0);
	assert_int_equal(gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, xc),
			 0);
	gnutls_transport_set_int(s, fd);
	do
		r = gnutls_handshake(s);
	while (r < 0 && !gnutls_error_is_fatal(r));
	assert_int_equal(r, 0);
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: localhost\r\n"
		 "%s%s%sConnection: close\r\n\r\n", path,
		 auth ? "Authorization: Basic " : "", auth ? auth : "",
		 auth ? "\r\n" : "");
	assert_int_equal(gnutls_record_send(s, req, strlen(req)),
			 (ssize_t)strlen(req));
	while ((n = gnutls_record_recv(s, resp + got,
				       sizeof(resp) - 1 - got)) != 0) {
		if (n < 0 && !gnutls_error_is_fatal((int)n))
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
	}
	resp[got] = '\0';
	gnutls_deinit(s);
	gnutls_certificate_free_credentials(xc);
	close(fd);
	return resp;
}

/* Whether a TLS client limited to the GnuTLS priorities PRIO completes a
 * handshake with the server. */
static bool tls_handshake_with(const char *prio)
{
	gnutls_certificate_credentials_t xc;
	gnutls_session_t s;
	int fd = dial(), r;

	assert_int_equal(gnutls_certificate_allocate_credentials(&xc), 0);
	assert_int_equal(gnutls_init(&s, GNUTLS_CLIENT), 0);
	r = gnutls_priority_set_direct(s, prio, NULL);
	if (r < 0)
		fail_msg("%s: %s", prio, gnutls_strerror(r));
	assert_int_equal(gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, xc),
			 0);
	gnutls_transport_set_int(s, fd);
	do
		r = gnutls_handshake(s);
	while (r < 0 && !gnutls_error_is_fatal(r));
	gnutls_deinit(s);
	gnutls_certificate_free_credentials(xc);
	close(fd);
	return r == 0;
}

/* base64 of prometheus:secret, prometheus:wrong */
#define RIGHT	"cHJvbWV0aGV1czpzZWNyZXQ="
#define WRONG	"cHJvbWV0aGV1czp3cm9uZw=="

static void without_a_credential_every_path_is_401(void **state)
{
	serve("basic_auth_users:\n  prometheus: " TEST_HASH "\n");
	get("/metrics", NULL);
	assert_non_null(strstr(resp, "HTTP/1.1 401"));
	assert_non_null(strstr(resp, "WWW-Authenticate: Basic realm=\"ksnapd\""));
	assert_null(strstr(resp, "ksnap_build_info"));
	get("/nope", NULL);
	assert_non_null(strstr(resp, "HTTP/1.1 401"));
	get("/metrics", WRONG);
	assert_non_null(strstr(resp, "HTTP/1.1 401"));
	get("/metrics", RIGHT);
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	assert_non_null(strstr(resp, "ksnap_build_info"));
	get("/nope", RIGHT);
	assert_non_null(strstr(resp, "HTTP/1.1 404"));
}

static void repeated_wrong_passwords_get_429(void **state)
{
	int i;

	serve("basic_auth_users:\n  prometheus: " TEST_HASH "\n");
	for (i = 0; i < WEB_AUTH_BURST; i++) {
		get("/metrics", WRONG);
		assert_non_null(strstr(resp, "HTTP/1.1 401"));
	}
	get("/metrics", WRONG);
	assert_non_null(strstr(resp, "HTTP/1.1 429"));
	assert_non_null(strstr(resp, "Retry-After: 1"));
	assert_int_equal(w.auth.bcrypt_runs, WEB_AUTH_BURST);
}

/* base64 of prometheus:slow */
#define SLOW	"cHJvbWV0aGV1czpzbG93"

static void *slow_get(void *arg)
{
	static char out[4096];
	char req[256];
	ssize_t n;
	int fd = dial();

	snprintf(req, sizeof(req), "GET /metrics HTTP/1.1\r\nHost: localhost"
		 "\r\nAuthorization: Basic " SLOW "\r\nConnection: close"
		 "\r\n\r\n");
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return NULL;
	n = read(fd, out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return out;
}

static void a_cached_scrape_is_answered_while_a_bcrypt_runs(void **state)
{
	pthread_t t;
	void *out;

	serve("basic_auth_users:\n  prometheus: " TEST_HASH "\n");
	get("/metrics", RIGHT);
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	slow_reset(&w.auth);
	assert_int_equal(pthread_create(&t, NULL, slow_get, NULL), 0);
	assert_true(slow_wait(&slow_in));
	/* The remembered credential, and a request without one. */
	get("/metrics", RIGHT);
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	assert_non_null(strstr(resp, "ksnap_build_info"));
	get("/metrics", NULL);
	assert_non_null(strstr(resp, "HTTP/1.1 401"));
	slow_release();
	pthread_join(t, &out);
	assert_non_null(out);
	assert_non_null(strstr(out, "HTTP/1.1 401"));
}

static void tls_serves_and_plain_http_against_it_is_closed(void **state)
{
	serve("tls_server_config:\n  cert_file: server.crt\n"
	      "  key_file: server.key\n"
	      "basic_auth_users:\n  prometheus: " TEST_HASH "\n");
	tls_get("/metrics", RIGHT);
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	assert_non_null(strstr(resp, "ksnap_build_info"));
	tls_get("/metrics", NULL);
	assert_non_null(strstr(resp, "HTTP/1.1 401"));
	/* No HTTP answer in the clear; the server goes on. */
	get("/metrics", RIGHT);
	assert_null(strstr(resp, "HTTP/1.1 200"));
	assert_null(strstr(resp, "ksnap_build_info"));
	tls_get("/metrics", RIGHT);
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
}

static void tls_below_1_2_is_refused(void **state)
{
	serve("tls_server_config:\n  cert_file: server.crt\n"
	      "  key_file: server.key\n");
	assert_true(tls_handshake_with("NORMAL:-VERS-ALL:+VERS-TLS1.2"));
	assert_true(tls_handshake_with("NORMAL:-VERS-ALL:+VERS-TLS1.3"));
	assert_false(tls_handshake_with("NORMAL:-VERS-ALL:+VERS-TLS1.1"));
	assert_false(tls_handshake_with("NORMAL:-VERS-ALL:+VERS-TLS1.0"));
	tls_get("/metrics", NULL);
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
}

static void a_config_error_stops_the_server_from_starting(void **state)
{
	struct web w2;
	char e2[512];
	const struct web_config cfg = {
		.listen = "127.0.0.1:0",
		.config_file = conf,
	};

	serve("");
	put("web.yml", "tls_server_config:\n  cert_file: none.crt\n"
	    "  key_file: server.key\n");
	assert_int_equal(web_init(&w2, &cfg, e2, sizeof(e2)), -ENOENT);
	assert_non_null(strstr(e2, "tls_server_config.cert_file"));
}

/* --- the header deadline --------------------------------------------------- */

static long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Whether the server closed fd (read 0 or an error) by end_ms; what it
 * sent is dropped. */
static bool closed_by(int fd, long end_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[256];
	ssize_t n;

	while (ms_now() < end_ms) {
		if (poll(&p, 1, 100) < 1)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return true;
	}
	return false;
}

static void headers_trickled_past_the_deadline_are_cut(void **state)
{
	struct web_config cfg = {
		.listen = "127.0.0.1:0",
		.version = "test",
		.header_deadline_s = 1,
	};
	long t0, end;
	int fd, quiet;

	fake_sys_reset();
	snprintf(dir, sizeof(dir), "/tmp/webauth_test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	port = web_port(&w);
	/* A byte every 200 ms: never idle, never done. */
	fd = dial();
	t0 = ms_now();
	end = t0 + 30000;
	while (ms_now() < end) {
		if (write(fd, "G", 1) != 1 || closed_by(fd, ms_now() + 200))
			break;
	}
	assert_true(ms_now() < end);
	/* Not before the deadline (from the accept, a little before t0). */
	assert_true(ms_now() - t0 >= 900);
	close(fd);
	/* One that sends nothing at all. */
	fd = dial();
	assert_true(closed_by(fd, ms_now() + 30000));
	close(fd);
	/* A request in time is answered, and its connection kept alive
	 * meanwhile. */
	pthread_mutex_lock(&w.conns_lock);
	quiet = (int)w.nr_cut;
	pthread_mutex_unlock(&w.conns_lock);
	assert_int_equal(quiet, 2);
	get("/metrics", NULL);
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	pthread_mutex_lock(&w.conns_lock);
	assert_int_equal((int)w.nr_cut, quiet);
	pthread_mutex_unlock(&w.conns_lock);
}

/* --- systemd's socket ------------------------------------------------------ */

static void systemd_socket_is_served(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct web_config cfg = { .version = "test", .systemd_socket = true };
	char pid[32];
	int l, saved = dup(3);

	fake_sys_reset();
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l, 8), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &len), 0);
	/* Not ours: refused, fd 3 left alone. */
	setenv("LISTEN_PID", "1", 1);
	setenv("LISTEN_FDS", "1", 1);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "--web.systemd-socket"));
	assert_int_equal(dup2(l, 3), 3);
	if (l != 3)
		close(l);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	assert_null(getenv("LISTEN_FDS"));
	port = ntohs(sa.sin_port);
	get("/metrics", NULL);
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	web_fini(&w);
	if (saved >= 0) {
		dup2(saved, 3);
		close(saved);
	}
}

int main(void)
{
#define A(f) cmocka_unit_test_setup_teardown(f, auth_setup, auth_teardown)
#define W(f) cmocka_unit_test_teardown(f, web_teardown)
	const struct CMUnitTest tests[] = {
		A(bcrypt_runs_once_per_credential_that_passed),
		A(a_wrong_password_is_denied_every_time),
		A(an_unknown_user_costs_a_bcrypt_as_a_known_one),
		A(failures_run_out_of_tokens_and_bcrypt_stops),
		A(tokens_come_back_with_time),
		A(a_credential_that_passes_gives_its_token_back),
		A(all_addresses_share_a_global_bound),
		A(an_ipv6_client_is_one_by_its_64),
		A(an_address_that_passed_is_not_starved_by_others),
		A(a_bcrypt_holds_up_no_other_check),
		W(without_a_credential_every_path_is_401),
		W(repeated_wrong_passwords_get_429),
		W(a_cached_scrape_is_answered_while_a_bcrypt_runs),
		W(tls_serves_and_plain_http_against_it_is_closed),
		W(tls_below_1_2_is_refused),
		W(a_config_error_stops_the_server_from_starting),
		W(headers_trickled_past_the_deadline_are_cut),
		cmocka_unit_test(systemd_socket_is_served),
	};
#undef A
#undef W

	return cmocka_run_group_tests(tests, NULL, NULL);
}

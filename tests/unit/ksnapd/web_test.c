// SPDX-License-Identifier: MIT
/*
 * The OpenMetrics endpoint (web.h) over real HTTP on a loopback port the
 * kernel picks: the landing page, 404 and 405, /metrics before any
 * collection, a collection's rows through the consumer (the window
 * maximum of a gauge, the peak rate of a counter, the same answer to
 * every scrape), content negotiation, gzip, the end of the collection;
 * a column set change (the same collection under other columns); a
 * removed cgroup (a directory removed under a cgroup root of the test's
 * own); and the listen address's parsing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "web.h"

#define MS	1000000ULL

static struct web w;
static char err[256];
static unsigned int port;
static char resp[1 << 20];
/* The cgroup root of the columns' paths: a directory of x and y. */
static char cgroot[64];

static void cg_path(char *p, size_t len, const char *name)
{
	snprintf(p, len, "%s/%s", cgroot, name);
}

static void cg_remove(const char *name)
{
	char p[128];

	cg_path(p, sizeof(p), name);
	assert_int_equal(rmdir(p), 0);
}

static int setup(void **state)
{
	const struct web_config cfg = {
		.listen = "127.0.0.1:0",
		.window_ns = 60000 * MS,
		.version = "test",
		.cgroup_root = cgroot,
		.share_ns = 1,		/* each GET's count in its answer */
	};
	char p[128];

	fake_sys_reset();
	snprintf(cgroot, sizeof(cgroot), "/tmp/ksnap-cgroot-XXXXXX");
	assert_non_null(mkdtemp(cgroot));
	cg_path(p, sizeof(p), "x");
	assert_int_equal(mkdir(p, 0755), 0);
	cg_path(p, sizeof(p), "y");
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	port = web_port(&w);
	assert_true(port > 0);
	return 0;
}

static int teardown(void **state)
{
	char p[128];

	web_fini(&w);
	cg_path(p, sizeof(p), "x");
	rmdir(p);
	cg_path(p, sizeof(p), "y");
	rmdir(p);
	cg_path(p, sizeof(p), "z");
	rmdir(p);
	rmdir(cgroot);
	return 0;
}

/* One request (its lines, without the last empty one); returns the whole
 * response's length in resp. */
static size_t http(const char *req)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char buf[1024];
	size_t got = 0;
	ssize_t n;
	int fd;

	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(buf, sizeof(buf), "%s\r\nHost: localhost\r\n"
		 "Connection: close\r\n\r\n", req);
	assert_int_equal(write(fd, buf, strlen(buf)), (ssize_t)strlen(buf));
	while ((n = read(fd, resp + got, sizeof(resp) - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	resp[got] = '\0';
	return got;
}

static const char *body(size_t len, size_t *blen)
{
	const char *b = strstr(resp, "\r\n\r\n");

	assert_non_null(b);
	b += 4;
	*blen = len - (size_t)(b - resp);
	return b;
}

static void test_parse_listen(void **state)
{
	char a[64];
	unsigned int p;

	assert_int_equal(web_parse_listen(NULL, a, sizeof(a), &p), 0);
	assert_string_equal(a, "127.0.0.1");
	assert_int_equal(p, WEB_DEFAULT_PORT);
	assert_int_equal(web_parse_listen("", a, sizeof(a), &p), 0);
	assert_string_equal(a, "127.0.0.1");
	assert_int_equal(p, WEB_DEFAULT_PORT);
	/* :PORT is every address, as node_exporter's. */
	assert_int_equal(web_parse_listen(":9999", a, sizeof(a), &p), 0);
	if (strcmp(a, "::"))
		fail_msg("':9999': expected address '::' (every address), "
			 "got '%s'", a);
	assert_int_equal(p, 9999);
	assert_int_equal(web_parse_listen("[::]:9", a, sizeof(a), &p), 0);
	assert_string_equal(a, "::");
	assert_int_equal(web_parse_listen("0.0.0.0:80", a, sizeof(a), &p), 0);
	assert_string_equal(a, "0.0.0.0");
	assert_int_equal(p, 80);
	assert_int_equal(web_parse_listen("[::1]:81", a, sizeof(a), &p), 0);
	assert_string_equal(a, "::1");
	assert_int_equal(p, 81);
	assert_int_equal(web_parse_listen("10.1.2.3", a, sizeof(a), &p), 0);
	assert_int_equal(p, WEB_DEFAULT_PORT);
	assert_int_equal(web_parse_listen("localhost:5", a, sizeof(a), &p), 0);
	assert_string_equal(a, "127.0.0.1");
	assert_int_equal(web_parse_listen("::1:80", a, sizeof(a), &p),
			 -EINVAL);
	assert_int_equal(web_parse_listen("a:99999", a, sizeof(a), &p),
			 -EINVAL);
	assert_int_equal(web_parse_listen("a:-1", a, sizeof(a), &p), -EINVAL);
	assert_int_equal(web_parse_listen("a:", a, sizeof(a), &p), -EINVAL);
}

/* --web.listen-address ADDR, with a space, as --web.listen-address=ADDR;
 * the option alone before another option or at the end: the default. */
static void listen_address_after_a_space(void **state)
{
	char *argv[] = { "ksnapd", "--web.listen-address", "0.0.0.0:9",
			 "--web.listen-address", "--web.window", "5m",
			 "--web.listen-address", NULL };
	int next = 2;
	const char *a;

	a = web_listen_arg(NULL, argv, &next);
	if (strcmp(a, "0.0.0.0:9"))
		fail_msg("--web.listen-address 0.0.0.0:9: expected "
			 "'0.0.0.0:9', got '%s'", a);
	assert_int_equal(next, 3);
	next = 4;
	assert_string_equal(web_listen_arg(NULL, argv, &next), "");
	assert_int_equal(next, 4);
	next = 7;
	assert_string_equal(web_listen_arg(NULL, argv, &next), "");
	assert_int_equal(next, 7);
	next = 3;
	assert_string_equal(web_listen_arg(":9100", argv, &next), ":9100");
	assert_int_equal(next, 3);
}

/* Whether a connection to addr (an IPv4 or IPv6 address) at port gets
 * in; -1 when the family is not there to try. */
static int connects(const char *addr)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd, ok;

	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		len = sizeof(*in4);
	} else {
		assert_int_equal(inet_pton(AF_INET6, addr, &in6->sin6_addr), 1);
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		len = sizeof(*in6);
	}
	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	ok = !connect(fd, (struct sockaddr *)&ss, len);
	if (!ok && (errno == EADDRNOTAVAIL || errno == ENETUNREACH))
		ok = -1;
	close(fd);
	return ok;
}

/* :PORT listens on every address, IPv4 and IPv6; the option alone on
 * loopback only. */
static void colon_port_listens_on_every_address(void **state)
{
	const struct web_config cfg = { .listen = ":0", .version = "test" };
	int v6;

	web_fini(&w);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	port = web_port(&w);
	assert_true(port > 0);
	assert_int_equal(connects("127.0.0.1"), 1);
	v6 = connects("::1");
	if (v6 == 0)
		fail_msg(":%u: expected a connection to [::1]:%u, refused",
			 port, port);
	http("GET /metrics HTTP/1.1");
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
}

static void test_paths_and_methods(void **state)
{
	http("GET / HTTP/1.1");
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	assert_non_null(strstr(resp, "href=\"/metrics\""));
	http("GET /nope HTTP/1.1");
	assert_non_null(strstr(resp, "HTTP/1.1 404"));
	http("POST /metrics HTTP/1.1\r\nContent-Length: 0");
	assert_non_null(strstr(resp, "HTTP/1.1 405"));
	assert_non_null(strstr(resp, "Allow: GET, HEAD"));
	http("HEAD /metrics HTTP/1.1");
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	assert_null(strstr(resp, "ksnap_build_info"));
}

/* ksnap_web_scrapes_total of a GET /metrics. */
static unsigned long scrapes_of_a_get(void)
{
	const char *at;

	http("GET /metrics HTTP/1.1");
	at = strstr(resp, "\nksnap_web_scrapes_total ");
	assert_non_null(at);
	return strtoul(at + strlen("\nksnap_web_scrapes_total "), NULL, 10);
}

/* A HEAD request renders no exposition for a scraper: only GETs are
 * counted. */
static void head_is_not_a_scrape(void **state)
{
	unsigned long before, after;

	before = scrapes_of_a_get();
	http("HEAD /metrics HTTP/1.1");
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	http("HEAD /metrics HTTP/1.1");
	after = scrapes_of_a_get();
	if (after != before + 1)
		fail_msg("two HEADs between two GETs: expected "
			 "ksnap_web_scrapes_total %lu, got %lu", before + 1,
			 after);
}

static void test_no_collection(void **state)
{
	http("GET /metrics HTTP/1.1");
	assert_non_null(strstr(resp, "HTTP/1.1 200"));
	assert_non_null(strstr(resp, "text/plain; version=0.0.4"));
	assert_non_null(strstr(resp, "\nksnap_collection_running 0\n"));
	assert_non_null(strstr(resp, "\nksnap_web_window_seconds 60\n"));
	assert_null(strstr(resp, "ksnap_vmstat"));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct ksnap_column cols[2] = {
	{ .metric = "memory.current", .field = "cgroup", .value = "/x",
	  .description = "memory.current of the cgroup, bytes" },
	{ .metric = "pgfault", .description = "vm event counter, count",
	  .flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE },
};

/* 100 rows at 10 ms, 2 s ago: the gauge peaks at 9000 once, the counter
 * climbs 10 a row but 500 in one. */
static void collection(void)
{
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 2, .period_ns = 10 * MS,
		.start_mono_ns = mono_ns() - 2000 * MS, .columns = cols,
	};
	struct ksnap_record *rec = calloc(1, KSNAP_RECORD_SIZE(2));
	uint64_t count = 0;
	unsigned int i;

	assert_non_null(rec);
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	for (i = 0; i < 100; i++) {
		rec->seq = i;
		rec->time_ns = i * 10 * MS;
		rec->values[0] = i == 37 ? 9000 : 1000 + i;
		count += i == 50 ? 500 : 10;
		rec->values[1] = count;
		assert_int_equal(web_ops.row(&w, rec), 0);
	}
	assert_int_equal(web_ops.flush(&w), 0);
	free(rec);
}

static void test_collection(void **state)
{
	struct om_buf a = { 0 }, b = { 0 };

	collection();
	assert_int_equal(web_render(&w, OM_PROMETHEUS, &a), 0);
	assert_non_null(strstr(a.p, "\nksnap_collection_running 1\n"));
	assert_non_null(strstr(a.p, "\nksnap_cgroup_memory_current_bytes"
				    "{cgroup=\"/x\"} 1099\n"));
	assert_non_null(strstr(a.p, "\nksnap_cgroup_memory_current_window_max"
				    "_bytes{cgroup=\"/x\"} 9000\n"));
	assert_non_null(strstr(a.p, "\nksnap_cgroup_memory_current_window_min"
				    "_bytes{cgroup=\"/x\"} 1000\n"));
	assert_non_null(strstr(a.p, "\nksnap_vmstat_pgfault_total 1490\n"));
	/* 500 in 10 ms: 50000/s */
	assert_non_null(strstr(a.p, "\nksnap_vmstat_pgfault_window_max_rate "
				    "50000\n"));
	/* A second scrape sees the same (but for the scrape count). */
	assert_int_equal(web_render(&w, OM_PROMETHEUS, &b), 0);
	assert_string_equal(strstr(a.p, "# HELP ksnap_cgroup_"),
			    strstr(b.p, "# HELP ksnap_cgroup_"));
	om_buf_free(&a);
	om_buf_free(&b);

	{
		struct ksnapd_end e = { 0 };

		e.stats.ksnap_snapshots_taken = 100;
		e.stats.ksnap_snapshots_lost = 3;
		e.stats.ksnap_max_read_nanos = 2500;
		e.stats.ksnap_lateness_sum_nanos = 1500000000;
		assert_int_equal(web_ops.end(&w, &e), 0);
	}
	assert_int_equal(web_render(&w, OM_PROMETHEUS, &a), 0);
	assert_non_null(strstr(a.p, "\nksnap_snapshot_read_max_seconds "
				    "2.5e-06\n"));
	assert_non_null(strstr(a.p, "\nksnap_snapshot_lateness_seconds_total "
				    "1.5\n"));
	assert_non_null(strstr(a.p, "\nksnap_collection_running 0\n"));
	assert_non_null(strstr(a.p, "\nksnap_snapshots_lost_total 3\n"));
	/* Within the window the series stay. */
	assert_non_null(strstr(a.p, "window_max_bytes{cgroup=\"/x\"} 9000\n"));
	om_buf_free(&a);
}

static void test_negotiation_and_gzip(void **state)
{
	static char plain[1 << 20], unz[1 << 20];
	const char *b;
	size_t len, blen, plen;
	uLongf ulen = sizeof(unz);
	z_stream zs;

	collection();
	len = http("GET /metrics HTTP/1.1\r\nAccept: application/"
		   "openmetrics-text;version=1.0.0,text/plain;q=0.5");
	assert_non_null(strstr(resp, "Content-Type: application/openmetrics-"
				     "text; version=1.0.0; charset=utf-8"));
	b = body(len, &blen);
	assert_true(blen > 6);
	assert_memory_equal(b + blen - 6, "# EOF\n", 6);
	assert_non_null(strstr(b, "# UNIT ksnap_cgroup_memory_current_bytes "
				  "bytes\n"));

	len = http("GET /metrics HTTP/1.1");
	b = body(len, &plen);
	memcpy(plain, b, plen);
	len = http("GET /metrics HTTP/1.1\r\nAccept-Encoding: gzip");
	assert_non_null(strstr(resp, "Content-Encoding: gzip"));
	b = body(len, &blen);
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (unsigned char *)b;
	zs.avail_in = (uInt)blen;
	zs.next_out = (unsigned char *)unz;
	zs.avail_out = (uInt)ulen;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	ulen = zs.total_out;
	inflateEnd(&zs);
	/* The same exposition but for the scrape count: compare from the
	 * collection's families on. */
	unz[ulen] = '\0';
	plain[plen] = '\0';
	assert_string_equal(strstr(unz, "# HELP ksnap_cgroup_"),
			    strstr(plain, "# HELP ksnap_cgroup_"));
}

static void test_filter(void **state)
{
	const struct web_config cfg = {
		.listen = "127.0.0.1:0",
		.window_ns = 10000 * MS,
		.patterns = "ksnap_cgroup_*",
		.version = "test",
		.cgroup_root = cgroot,
	};
	struct om_buf a = { 0 };

	web_fini(&w);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	collection();
	assert_int_equal(web_render(&w, OM_OPENMETRICS, &a), 0);
	assert_non_null(strstr(a.p, "ksnap_cgroup_memory_current_bytes"));
	assert_null(strstr(a.p, "pgfault"));
	assert_non_null(strstr(a.p, "\nksnap_web_window_seconds 10\n"));
	om_buf_free(&a);
}

/* One row at the monotonic time now. */
static void row_now(const struct ksnap_coll *c, uint64_t mem, uint64_t pf,
		    uint32_t flags)
{
	struct ksnap_record *rec = calloc(1, KSNAP_RECORD_SIZE(2));

	assert_non_null(rec);
	rec->time_ns = web_now_ns() - c->start_mono_ns;
	rec->flags = flags;
	rec->values[0] = mem;
	rec->values[1] = pf;
	assert_int_equal(web_ops.row(&w, rec), 0);
	assert_int_equal(web_ops.flush(&w), 0);
	free(rec);
}

/* A removed cgroup (stale records, its directory gone): its window is no
 * longer fed, and its series go once the window has passed. */
static void test_removed_cgroup(void **state)
{
	const struct web_config cfg = {
		.listen = "127.0.0.1:0", .window_ns = 600 * MS,
		.cgroup_root = cgroot,
	};
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 2, .period_ns = 10 * MS, .columns = cols,
	};
	struct om_buf a = { 0 };
	uint64_t deadline;
	bool there = true;

	web_fini(&w);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	c.start_mono_ns = web_now_ns();
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	row_now(&c, 5000, 10, 0);
	fake_sys.access_err = -ENOENT;
	row_now(&c, 7000, 20, KSNAP_REC_STALE);
	row_now(&c, 9000, 30, KSNAP_REC_STALE);
	assert_int_equal(web_render(&w, OM_PROMETHEUS, &a), 0);
	assert_non_null(strstr(a.p, "\nksnap_cgroup_memory_current_window_max"
				    "_bytes{cgroup=\"/x\"} 7000\n"));
	om_buf_free(&a);
	/* Rows go on; the cgroup's series leave once the window passes. */
	deadline = web_now_ns() + 20000 * MS;
	while (there && web_now_ns() < deadline) {
		usleep(20000);
		row_now(&c, 9000, 40, KSNAP_REC_STALE);
		assert_int_equal(web_render(&w, OM_PROMETHEUS, &a), 0);
		there = strstr(a.p, "cgroup=\"/x\"") != NULL;
		assert_non_null(strstr(a.p, "\nksnap_vmstat_pgfault_total 40\n"));
		om_buf_free(&a);
	}
	assert_false(there);
	fake_sys.access_err = 0;
}

static double real_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * --web.peak-times: a spike 30 s ago is dated 30 s before the scrape, on
 * the wall clock, though the records' times are monotonic.
 */
static void a_peak_time_is_the_spikes_wall_clock_time(void **state)
{
	const struct web_config cfg = {
		.listen = "127.0.0.1:0", .window_ns = 60000 * MS,
		.cgroup_root = cgroot, .peak_times = true,
	};
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 2, .period_ns = 10 * MS, .columns = cols,
	};
	const char *key = "\nksnap_cgroup_memory_current_window_max_timestamp_"
			  "seconds{cgroup=\"/x\"} ";
	struct ksnap_record *rec = calloc(1, KSNAP_RECORD_SIZE(2));
	struct om_buf a = { 0 };
	double r0, r1, at = 0;
	uint64_t m0;
	char *p;

	assert_non_null(rec);
	web_fini(&w);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	r0 = real_now_s();
	m0 = web_now_ns();
	c.start_mono_ns = m0 - 40000 * MS;	/* began 40 s ago */
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	rec->time_ns = 10000 * MS;		/* the spike: 30 s ago */
	rec->values[0] = 9000;
	rec->values[1] = 10;
	assert_int_equal(web_ops.row(&w, rec), 0);
	row_now(&c, 5000, 20, 0);
	assert_int_equal(web_render(&w, OM_OPENMETRICS, &a), 0);
	r1 = real_now_s();
	p = strstr(a.p, key);
	if (!p || sscanf(p + strlen(key), "%lf", &at) != 1)
		fail_msg("expected%s<seconds>; got:\n%s", key, a.p);
	if (at < r0 - 30.001 || at > r1 - 29.999)
		fail_msg("expected the peak at %.3f..%.3f (30 s before the "
			 "scrape); got %.3f", r0 - 30, r1 - 30, at);
	om_buf_free(&a);
	free(rec);
}

/* --- a column set change ------------------------------------------------ */

/* A running collection's set: /y's cgroup came before /x's. */
static struct ksnap_column cols3[3] = {
	{ .metric = "memory.current", .field = "cgroup", .value = "/y",
	  .description = "memory.current of the cgroup, bytes" },
	{ .metric = "memory.current", .field = "cgroup", .value = "/x",
	  .description = "memory.current of the cgroup, bytes" },
	{ .metric = "pgfault", .description = "vm event counter, count",
	  .flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE },
};

/* The stream of the set ends (consumer.h), the next set's begins. */
static void set_change(struct ksnap_coll *c, struct ksnap_column *set,
		       unsigned int n)
{
	struct ksnapd_end e = { .coll = c, .split = true };

	e.stats.ksnap_snapshots_taken = 1;	/* a stream's share */
	assert_int_equal(web_ops.end(&w, &e), 0);
	c->columns = set;
	c->nr_columns = n;
	assert_int_equal(web_ops.begin(&w, c, 100), 0);
}

/* One row of n values at the monotonic time now. */
static void row_values(const struct ksnap_coll *c, unsigned int n,
		       const uint64_t *v)
{
	struct ksnap_record *rec = calloc(1, KSNAP_RECORD_SIZE(n));

	assert_non_null(rec);
	rec->time_ns = web_now_ns() - c->start_mono_ns;
	memcpy(rec->values, v, n * sizeof(*v));
	assert_int_equal(web_ops.row(&w, rec), 0);
	assert_int_equal(web_ops.flush(&w), 0);
	free(rec);
}

static void render_has(const char *want)
{
	struct om_buf a = { 0 };

	assert_int_equal(web_render(&w, OM_PROMETHEUS, &a), 0);
	if (!strstr(a.p, want))
		fail_msg("expected:\n%s\n--- in:\n%s", want, a.p);
	om_buf_free(&a);
}

/*
 * A container starts (a new cgroup, a new set) 2 s after a spike of /x:
 * the spike is still the window's maximum, the counter's peak rate is
 * still there, and the series of the next set are fed at their new
 * columns.
 */
static void a_set_change_keeps_the_window_maximum(void **state)
{
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.period_ns = 10 * MS, .start_mono_ns = mono_ns() - 2000 * MS,
	};
	const uint64_t v[3] = { 300, 1200, 1500 };

	collection();
	set_change(&c, cols3, 3);
	row_values(&c, 3, v);
	render_has("\nksnap_collection_running 1\n");
	render_has("\nksnap_cgroup_memory_current_window_max_bytes"
		   "{cgroup=\"/x\"} 9000\n");
	render_has("\nksnap_cgroup_memory_current_window_min_bytes"
		   "{cgroup=\"/x\"} 1000\n");
	render_has("\nksnap_cgroup_memory_current_bytes{cgroup=\"/x\"} "
		   "1200\n");
	render_has("\nksnap_cgroup_memory_current_window_max_bytes"
		   "{cgroup=\"/y\"} 300\n");
	render_has("\nksnap_vmstat_pgfault_total 1500\n");
	render_has("\nksnap_vmstat_pgfault_window_max_rate 50000\n");
}

/*
 * CPU time counted in ticks of 4 ms (HZ=250, as the module says through
 * refresh_ns), one CPU busy: sampled every 1 ms, the counter steps 4 ms
 * every 4 ms.  A rate over 10 ms could hold three steps (1.2 s/s, a peak
 * 20% high); over ten ticks, 40 ms, it holds ten or eleven (at most 10%
 * high), and the interval is exported.
 */
static struct ksnap_column tick_cols[1] = {
	{ .metric = "cpu.user", .description = "CPU time in user mode, ns",
	  .flags = KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS,
	  .freshness = KSNAP_FRESH_TICK, .refresh_ns = 4 * MS },
};

static void a_tick_counted_peak_rate_is_taken_over_ten_ticks(void **state)
{
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 1, .period_ns = 1 * MS,
		.start_mono_ns = mono_ns() - 2000 * MS, .columns = tick_cols,
	};
	struct ksnap_record *rec = calloc(1, KSNAP_RECORD_SIZE(1));
	struct om_buf a = { 0 };
	const char *at;
	double peak;
	unsigned int i;

	assert_non_null(rec);
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	for (i = 0; i <= 1000; i++) {
		rec->seq = i;
		rec->time_ns = i * MS;
		rec->values[0] = i / 4 * 4 * MS;
		assert_int_equal(web_ops.row(&w, rec), 0);
	}
	assert_int_equal(web_ops.flush(&w), 0);
	free(rec);
	assert_int_equal(web_render(&w, OM_PROMETHEUS, &a), 0);
	/* ksnap_cpu_seconds_window_max_rate{mode="user"} V */
	at = strstr(a.p, "_window_max_rate gauge\n");
	at = at ? strchr(at, '\n') : NULL;
	at = at ? strchr(at, ' ') : NULL;
	if (!at)
		fail_msg("expected a _window_max_rate sample, got:\n%s", a.p);
	peak = strtod(at, NULL);
	if (peak > 1.1 || peak < 1.0)
		fail_msg("the peak rate of one CPU's ticks: expected 1.0 to "
			 "1.1 s/s, got %g", peak);
	if (!strstr(a.p, "\nksnap_web_window_rate_interval_seconds{family=\""))
		fail_msg("expected ksnap_web_window_rate_interval_seconds, got:"
			 "\n%s", a.p);
	at = strstr(a.p, "\nksnap_web_window_rate_interval_seconds{");
	at = strchr(at, '}');
	if (strtod(at + 1, NULL) != 0.04)
		fail_msg("the rate interval: expected 0.04 s, got '%.20s'",
			 at + 1);
	om_buf_free(&a);
}

/*
 * The ring's figures of the collection go on across a set change: no
 * counter goes back (a reset to Prometheus) between the begin of the
 * next set's stream and the next flush.
 */
static void a_set_change_keeps_the_self_counters(void **state)
{
	static struct ksnap_ctrl ctrl;
	struct ksnap_ring r = { .ctrl = &ctrl };
	const struct web_config cfg = {
		.listen = "127.0.0.1:0", .window_ns = 60000 * MS, .ring = &r,
	};
	struct ksnap_coll c = {
		.generation = 4, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 2, .period_ns = 10 * MS, .columns = cols,
	};
	const uint64_t v[3] = { 1, 2, 3 };

	web_fini(&w);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	c.start_mono_ns = web_now_ns();
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	ctrl.stats.taken = 50;
	ctrl.stats.lost = 4;
	ctrl.stats.missed = 2;
	ctrl.stats.thinned = 1;
	ctrl.stats.cgroups_skipped = 7;
	row_values(&c, 2, v);
	render_has("\nksnap_snapshots_taken_total 50\n");
	set_change(&c, cols3, 3);
	render_has("\nksnap_collection_running 1\n");
	render_has("\nksnap_snapshots_taken_total 50\n");
	render_has("\nksnap_snapshots_lost_total 4\n");
	render_has("\nksnap_snapshots_missed_total 2\n");
	render_has("\nksnap_snapshots_thinned_total 1\n");
	render_has("\nksnap_cgroups_skipped 7\n");
	render_has("\nksnap_collection_period_seconds 0.01\n");
	ctrl.stats.taken = 60;
	row_values(&c, 3, v);
	render_has("\nksnap_snapshots_taken_total 60\n");
	render_has("\nksnap_snapshots_lost_total 4\n");
}

/*
 * A cgroup leaves (the next set has no column of it): its series stay,
 * no longer fed, until the window has passed, then leave, as a removed
 * cgroup's do; the others go on.
 */
static void a_series_gone_at_a_set_change_leaves_after_the_window(void **s)
{
	const struct web_config cfg = {
		.listen = "127.0.0.1:0", .window_ns = 600 * MS,
		.cgroup_root = cgroot,
	};
	struct ksnap_coll c = {
		.generation = 2, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 2, .period_ns = 10 * MS, .columns = cols,
	};
	const uint64_t v[2] = { 5000, 10 };
	struct om_buf a = { 0 };
	uint64_t deadline, pf = 10;
	bool there = true;

	web_fini(&w);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	c.start_mono_ns = web_now_ns();
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	row_values(&c, 2, v);
	set_change(&c, &cols[1], 1);		/* pgfault alone */
	pf = 20;
	row_values(&c, 1, &pf);
	render_has("\nksnap_cgroup_memory_current_bytes{cgroup=\"/x\"} "
		   "5000\n");
	render_has("\nksnap_cgroup_memory_current_window_max_bytes"
		   "{cgroup=\"/x\"} 5000\n");
	render_has("\nksnap_vmstat_pgfault_total 20\n");
	deadline = web_now_ns() + 20000 * MS;
	while (there && web_now_ns() < deadline) {
		usleep(20000);
		pf += 10;
		row_values(&c, 1, &pf);
		assert_int_equal(web_render(&w, OM_PROMETHEUS, &a), 0);
		there = strstr(a.p, "cgroup=\"/x\"") != NULL;
		assert_non_null(strstr(a.p, "\nksnap_vmstat_pgfault_total "));
		om_buf_free(&a);
	}
	assert_false(there);
	/* Back in a later set: a series again, fed. */
	set_change(&c, cols3, 3);
	{
		const uint64_t v3[3] = { 7, 6000, pf + 10 };

		row_values(&c, 3, v3);
	}
	render_has("\nksnap_cgroup_memory_current_window_max_bytes"
		   "{cgroup=\"/x\"} 6000\n");
}

/*
 * A cgroup whose path is not UTF-8 is one skipped series for the whole
 * collection, however many sets have it; a later collection counts it
 * again, as it does every series of its own.
 */
static void skipped_series_counted_once_across_set_changes(void **state)
{
	static struct ksnap_column bad[3] = {
		{ .metric = "memory.current", .field = "cgroup",
		  .value = "/\xff", .description = "memory, bytes" },
		{ .metric = "memory.current", .field = "cgroup",
		  .value = "/x", .description = "memory, bytes" },
		{ .metric = "memory.current", .field = "cgroup",
		  .value = "/\xfe", .description = "memory, bytes" },
	};
	struct ksnap_coll c = {
		.generation = 5, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 1, .period_ns = 10 * MS, .columns = bad,
	};

	c.start_mono_ns = web_now_ns();
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	render_has("\nksnap_web_series_skipped_total 1\n");
	set_change(&c, bad, 2);
	render_has("\nksnap_web_series_skipped_total 1\n");
	set_change(&c, &bad[1], 1);		/* it went */
	render_has("\nksnap_web_series_skipped_total 1\n");
	set_change(&c, bad, 3);			/* back, and another */
	render_has("\nksnap_web_series_skipped_total 2\n");
	set_change(&c, bad, 3);
	render_has("\nksnap_web_series_skipped_total 2\n");
	{
		struct ksnapd_end e = { .coll = &c };

		assert_int_equal(web_ops.end(&w, &e), 0);
	}
	c.generation = 6;
	c.nr_columns = 1;
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	render_has("\nksnap_web_series_skipped_total 3\n");
}

/* A cgroup without a limit ("max", U64_MAX in the ring): +Inf, in its
 * window too; a limit set later is a finite window minimum. */
static void an_unlimited_limit_is_inf_in_the_window(void **state)
{
	static struct ksnap_column lim[1] = {
		{ .metric = "memory.max", .field = "cgroup", .value = "/x",
		  .description = "hard limit, U64_MAX for max, bytes" },
	};
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 1, .period_ns = 10 * MS, .columns = lim,
	};
	uint64_t v = UINT64_MAX;

	c.start_mono_ns = web_now_ns();
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	row_values(&c, 1, &v);
	render_has("\nksnap_cgroup_memory_max_bytes{cgroup=\"/x\"} +Inf\n");
	render_has("\nksnap_cgroup_memory_max_window_max_bytes"
		   "{cgroup=\"/x\"} +Inf\n");
	v = 4096;
	row_values(&c, 1, &v);
	render_has("\nksnap_cgroup_memory_max_window_max_bytes"
		   "{cgroup=\"/x\"} +Inf\n");
	render_has("\nksnap_cgroup_memory_max_window_min_bytes"
		   "{cgroup=\"/x\"} 4096\n");
}

/* --- a layout change during a scrape ------------------------------------ */

static unsigned int changes_left;
static struct ksnap_coll changing;

/* Between a scrape's two locked sections: the next set, /y's cgroup and
 * then not, while changes_left. */
static void change_the_set(void *arg)
{
	(void)arg;
	if (!changes_left)
		return;
	changes_left--;
	if (changing.columns == cols3)
		set_change(&changing, cols, 2);
	else
		set_change(&changing, cols3, 3);
}

static void start_changing(void)
{
	const struct web_config cfg = {
		.listen = "127.0.0.1:0", .window_ns = 60000 * MS,
		.between_hook = change_the_set,
	};

	web_fini(&w);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	collection();
	changing = (struct ksnap_coll){
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 2, .period_ns = 10 * MS, .columns = cols,
	};
}

/*
 * The set changes between the scrape's taking of the layout and its copy
 * of the values: the scrape still carries every series, with its window
 * (never a scrape of ksnapd's own series alone).
 */
static void a_layout_change_during_a_scrape_leaves_it_whole(void **state)
{
	start_changing();
	changes_left = 1;
	render_has("\nksnap_cgroup_memory_current_window_max_bytes"
		   "{cgroup=\"/x\"} 9000\n");
	assert_int_equal(changes_left, 0);
	render_has("\nksnap_vmstat_pgfault_total 1490\n");
}

/* A change at every attempt: the scrape is still whole, after a bounded
 * number of them. */
static void endless_layout_changes_still_leave_a_scrape_whole(void **state)
{
	start_changing();
	changes_left = 1000;
	render_has("\nksnap_cgroup_memory_current_window_max_bytes"
		   "{cgroup=\"/x\"} 9000\n");
	if (changes_left < 1000 - WEB_RENDER_TRIES)
		fail_msg("a scrape during endless set changes: expected at "
			 "most %d attempts, got %u", WEB_RENDER_TRIES,
			 1000 - changes_left);
	changes_left = 0;
}

/* --- a removed cgroup ---------------------------------------------------- */

/* One row of n values at the monotonic time now, with record flags. */
static void row_flags(const struct ksnap_coll *c, unsigned int n,
		      const uint64_t *v, uint32_t flags)
{
	struct ksnap_record *rec = calloc(1, KSNAP_RECORD_SIZE(n));

	assert_non_null(rec);
	rec->time_ns = web_now_ns() - c->start_mono_ns;
	rec->flags = flags;
	memcpy(rec->values, v, n * sizeof(*v));
	assert_int_equal(web_ops.row(&w, rec), 0);
	assert_int_equal(web_ops.flush(&w), 0);
	free(rec);
}

static bool render_holds(const char *want)
{
	struct om_buf a = { 0 };
	bool there;

	assert_int_equal(web_render(&w, OM_PROMETHEUS, &a), 0);
	there = strstr(a.p, want) != NULL;
	om_buf_free(&a);
	return there;
}

/*
 * A cgroup removed: its current value leaves at once (a sum() of current
 * values never counts a removed pod and its successor), its window
 * maximum stays; the other series go on.
 */
static void a_removed_cgroup_loses_its_current_value_at_removal(void **s)
{
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 2, .period_ns = 10 * MS, .columns = cols,
		.start_mono_ns = web_now_ns(),
	};
	const uint64_t before[2] = { 5000, 10 }, after[2] = { 5000, 20 };
	struct om_buf a = { 0 };

	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	row_flags(&c, 2, before, 0);
	render_has("\nksnap_cgroup_memory_current_bytes{cgroup=\"/x\"} "
		   "5000\n");
	cg_remove("x");
	/* The module freezes its columns and flags the records stale. */
	row_flags(&c, 2, after, KSNAP_REC_STALE);
	assert_int_equal(web_render(&w, OM_PROMETHEUS, &a), 0);
	if (strstr(a.p, "\nksnap_cgroup_memory_current_bytes{cgroup=\"/x\"}"))
		fail_msg("/x removed: expected no ksnap_cgroup_memory_current_"
			 "bytes{cgroup=\"/x\"}, got:\n%s", a.p);
	om_buf_free(&a);
	render_has("\nksnap_cgroup_memory_current_window_max_bytes"
		   "{cgroup=\"/x\"} 5000\n");
	render_has("\nksnap_vmstat_pgfault_total 20\n");
}

/* Three cgroups: /y, /x and /z, which stays. */
static struct ksnap_column cols4[4] = {
	{ .metric = "memory.current", .field = "cgroup", .value = "/y",
	  .description = "memory.current of the cgroup, bytes" },
	{ .metric = "memory.current", .field = "cgroup", .value = "/x",
	  .description = "memory.current of the cgroup, bytes" },
	{ .metric = "memory.current", .field = "cgroup", .value = "/z",
	  .description = "memory.current of the cgroup, bytes" },
	{ .metric = "pgfault", .description = "vm event counter, count",
	  .flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE },
};

/*
 * Once a removal has been seen, records stay stale; a second removal is
 * found by its event alone: over more than a second of stale records,
 * no cgroup's directory is looked at, not even the one that stays.
 */
static void a_removal_is_found_without_a_look_per_second(void **state)
{
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 4, .period_ns = 10 * MS, .columns = cols4,
		.start_mono_ns = web_now_ns(),
	};
	const uint64_t v[4] = { 1000, 2000, 3000, 10 };
	char z[128];
	const char *y = "\nksnap_cgroup_memory_current_bytes{cgroup=\"/y\"} ";
	uint64_t start, deadline;
	bool y_there = true;

	cg_path(z, sizeof(z), "z");
	assert_int_equal(mkdir(z, 0755), 0);
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	row_flags(&c, 4, v, 0);
	cg_remove("x");
	row_flags(&c, 4, v, KSNAP_REC_STALE);
	if (render_holds("\nksnap_cgroup_memory_current_bytes{cgroup=\"/x\"}"))
		fail_msg("/x removed: expected its current value gone, got it");
	fake_sys.access_calls = 0;
	cg_remove("y");
	start = web_now_ns();
	deadline = start + 20000 * MS;
	while ((y_there || web_now_ns() - start < 1100 * MS) &&
	       web_now_ns() < deadline) {
		row_flags(&c, 4, v, KSNAP_REC_STALE);
		y_there = render_holds(y);
		usleep(10000);
	}
	if (y_there)
		fail_msg("/y removed: expected its current value gone, got it");
	if (fake_sys.access_calls)
		fail_msg("%.1f s of stale records after the first: expected 0 "
			 "looks at a directory, got %u",
			 (double)(web_now_ns() - start) * 1e-9,
			 fake_sys.access_calls);
	render_has("\nksnap_cgroup_memory_current_window_max_bytes"
		   "{cgroup=\"/y\"} 1000\n");
	render_has("\nksnap_cgroup_memory_current_bytes{cgroup=\"/z\"} "
		   "3000\n");
	cg_remove("z");
}

/*
 * Without inotify (its limits reached), removals are still found: each
 * cgroup is looked for while the records are stale.
 */
static void a_blind_watcher_still_finds_a_removal(void **state)
{
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 3, .period_ns = 10 * MS, .columns = cols3,
		.start_mono_ns = web_now_ns(),
	};
	const uint64_t v[3] = { 1000, 2000, 10 };
	const char *y = "\nksnap_cgroup_memory_current_bytes{cgroup=\"/y\"} ";
	uint64_t deadline;
	bool y_there = true;

	close(w.cgw.fd);
	w.cgw.fd = -1;
	w.cgw.blind = true;
	assert_int_equal(web_ops.begin(&w, &c, 0), 0);
	row_flags(&c, 3, v, 0);
	cg_remove("x");
	row_flags(&c, 3, v, KSNAP_REC_STALE);
	cg_remove("y");
	deadline = web_now_ns() + 20000 * MS;
	while (y_there && web_now_ns() < deadline) {
		row_flags(&c, 3, v, KSNAP_REC_STALE);
		y_there = render_holds(y);
		usleep(10000);
	}
	if (y_there)
		fail_msg("/y removed, no watcher: expected its current value "
			 "gone within 20 s, got it");
}

/* --- shared renders, and their bound ------------------------------------ */

/* A request on its own connection, answered within timeout_s: its whole
 * response in out (outlen bytes at most); returns its length, 0 when no
 * answer came in time. */
static size_t http_to(const char *req, unsigned int timeout_s, char *out,
		      size_t outlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = timeout_s };
	char buf[512];
	size_t got = 0;
	ssize_t n;
	int fd;

	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	out[0] = '\0';
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 0;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	snprintf(buf, sizeof(buf), "%s\r\nHost: localhost\r\n"
		 "Connection: close\r\n\r\n", req);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, buf, strlen(buf)) != (ssize_t)strlen(buf)) {
		close(fd);
		return 0;
	}
	while (got < outlen - 1 &&
	       (n = read(fd, out + got, outlen - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	out[got] = '\0';
	return got;
}

#define NR_SCRAPERS	50

struct scraper {
	pthread_t t;
	char resp[1 << 16];
};

static struct scraper scrapers[NR_SCRAPERS];

static void *scrape(void *arg)
{
	struct scraper *sc = arg;

	http_to("GET /metrics HTTP/1.1", 10, sc->resp, sizeof(sc->resp));
	return NULL;
}

static unsigned int in_flight(void)
{
	unsigned int n;

	pthread_mutex_lock(&w.share_lock);
	n = w.in_flight;
	pthread_mutex_unlock(&w.share_lock);
	return n;
}

/* A render held until hold_for requests are in flight, or until released
 * (10 s at most). */
static unsigned int hold_for;
static volatile bool released;
static volatile bool holding;

static void hold_render(void *arg)
{
	uint64_t deadline = web_now_ns() + 10000 * MS;

	(void)arg;
	holding = true;
	while (!released && (!hold_for || in_flight() < hold_for) &&
	       web_now_ns() < deadline)
		usleep(1000);
	holding = false;
}

static void start_held(unsigned int max_requests, uint64_t share_ns)
{
	const struct web_config cfg = {
		.listen = "127.0.0.1:0", .window_ns = 60000 * MS,
		.version = "test", .cgroup_root = cgroot,
		.between_hook = hold_render,
		.max_requests = max_requests, .share_ns = share_ns,
	};

	web_fini(&w);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	port = web_port(&w);
	collection();
	released = false;
	hold_for = 0;
}

/*
 * Scrapes that arrive while a render is under way wait for it: however
 * many they are (50 here), one render answers them all, each with the
 * whole exposition; meanwhile the drain still takes rows, and the
 * answer has them.
 */
static void concurrent_scrapes_share_one_render(void **state)
{
	struct ksnap_record *rec = calloc(1, KSNAP_RECORD_SIZE(2));
	uint64_t deadline = web_now_ns() + 10000 * MS;
	unsigned int i;

	assert_non_null(rec);
	/* More than the default --web.max-requests: all answered at once. */
	start_held(NR_SCRAPERS, 1);
	for (i = 0; i < NR_SCRAPERS; i++)
		assert_int_equal(pthread_create(&scrapers[i].t, NULL, scrape,
						&scrapers[i]), 0);
	/* All of them waiting on the one render, which is held. */
	while (in_flight() < NR_SCRAPERS && web_now_ns() < deadline)
		usleep(1000);
	if (in_flight() != NR_SCRAPERS || !holding)
		fail_msg("expected %d scrapes waiting on a held render, got %u "
			 "(render %s)", NR_SCRAPERS, in_flight(),
			 holding ? "held" : "not held");
	/* The drain goes on meanwhile: rows are taken, not held up. */
	rec->seq = 100;
	rec->time_ns = 100 * 10 * MS;
	rec->values[0] = 1100;
	rec->values[1] = 1500;
	assert_int_equal(web_ops.row(&w, rec), 0);
	assert_int_equal(web_ops.flush(&w), 0);
	if (!holding)
		fail_msg("expected a row taken while the render was held, got "
			 "the row waiting for the render to end");
	released = true;
	for (i = 0; i < NR_SCRAPERS; i++)
		pthread_join(scrapers[i].t, NULL);
	free(rec);
	for (i = 0; i < NR_SCRAPERS; i++)
		if (!strstr(scrapers[i].resp, "HTTP/1.1 200") ||
		    !strstr(scrapers[i].resp, "\nksnap_vmstat_pgfault_total "
						"1500\n"))
			fail_msg("scraper %u: expected 200 with the series and "
				 "the row taken while it waited (1500), "
				 "got:\n%.300s", i, scrapers[i].resp);
	(void)state;
	if (w.renders != 1)
		fail_msg("%d concurrent scrapes: expected 1 render, got %llu",
			 NR_SCRAPERS, (unsigned long long)w.renders);
}

/* A scrape within the sharing interval of a render takes its answer; an
 * answer in another encoding is a render of its own. */
static void a_scrape_within_the_sharing_interval_is_not_rendered_again(
	void **state)
{
	static char out[1 << 16];

	start_held(0, 3600000 * MS);
	released = true;
	http_to("GET /metrics HTTP/1.1", 10, out, sizeof(out));
	assert_non_null(strstr(out, "HTTP/1.1 200"));
	http_to("GET /metrics HTTP/1.1", 10, out, sizeof(out));
	assert_non_null(strstr(out, "HTTP/1.1 200"));
	if (w.renders != 1)
		fail_msg("two scrapes within the sharing interval: expected 1 "
			 "render, got %llu", (unsigned long long)w.renders);
	http_to("GET /metrics HTTP/1.1\r\nAccept-Encoding: gzip", 10, out,
		sizeof(out));
	assert_non_null(strstr(out, "Content-Encoding: gzip"));
	if (w.renders != 2)
		fail_msg("then a gzip scrape: expected 2 renders, got %llu",
			 (unsigned long long)w.renders);
}

/*
 * A scrape after the collection ended, within the sharing interval of an
 * earlier one, says that it ended: a shared answer outlives no beginning
 * or end of a collection.
 */
static void a_scrape_after_the_end_is_not_the_shared_answer_from_before(
	void **state)
{
	static char out[1 << 16];
	struct ksnapd_end e = { 0 };

	start_held(0, 3600000 * MS);
	released = true;
	http_to("GET /metrics HTTP/1.1", 10, out, sizeof(out));
	assert_non_null(strstr(out, "\nksnap_collection_running 1\n"));
	e.stats.ksnap_snapshots_taken = 100;
	assert_int_equal(web_ops.end(&w, &e), 0);
	http_to("GET /metrics HTTP/1.1", 10, out, sizeof(out));
	if (!strstr(out, "\nksnap_collection_running 0\n"))
		fail_msg("a scrape after the end, within the sharing interval: "
			 "expected ksnap_collection_running 0, got:\n%.300s",
			 strstr(out, "ksnap_collection_running") ?: out);
}

/*
 * --web.max-requests 2: with two requests in flight (one rendering, one
 * waiting for it), a third is answered 503 at once; the two get their
 * answer, and the next scrape counts the one refused.
 */
static void requests_beyond_max_requests_get_503(void **state)
{
	static char out[1 << 16];
	uint64_t deadline;
	unsigned int i;

	start_held(2, 1);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&scrapers[i].t, NULL, scrape,
						&scrapers[i]), 0);
	deadline = web_now_ns() + 10000 * MS;
	while (in_flight() < 2 && web_now_ns() < deadline)
		usleep(1000);
	assert_int_equal(in_flight(), 2);
	http_to("GET /metrics HTTP/1.1", 5, out, sizeof(out));
	released = true;
	for (i = 0; i < 2; i++)
		pthread_join(scrapers[i].t, NULL);
	if (!strstr(out, "HTTP/1.1 503") || !strstr(out, "Retry-After: 1"))
		fail_msg("a third request with 2 in flight: expected 503 with "
			 "Retry-After, got:\n%.300s", *out ? out :
			 "(no answer in 5 s)");
	for (i = 0; i < 2; i++)
		if (!strstr(scrapers[i].resp, "HTTP/1.1 200"))
			fail_msg("request %u in flight: expected 200, got:\n"
				 "%.300s", i, scrapers[i].resp);
	http_to("GET /metrics HTTP/1.1", 10, out, sizeof(out));
	if (!strstr(out, "\nksnap_web_requests_refused_total 1\n"))
		fail_msg("the next scrape: expected "
			 "ksnap_web_requests_refused_total 1, got:\n%.300s",
			 strstr(out, "ksnap_web_requests_refused") ?: out);
}

/* --- the telemetry path and process_* ---------------------------------------- */

/*
 * --web.telemetry-path /k/metrics: the exposition is there, /metrics is
 * 404 naming the path, and the landing page links to it.
 */
static void the_exposition_is_at_the_telemetry_path(void **state)
{
	static char out[1 << 16];
	const struct web_config cfg = {
		.listen = "127.0.0.1:0", .window_ns = 60000 * MS,
		.version = "test", .cgroup_root = cgroot,
		.telemetry_path = "/k/metrics",
	};

	web_fini(&w);
	assert_int_equal(web_init(&w, &cfg, err, sizeof(err)), 0);
	port = web_port(&w);
	http_to("GET /k/metrics HTTP/1.1", 10, out, sizeof(out));
	if (!strstr(out, "HTTP/1.1 200") || !strstr(out, "\nksnap_build_info{"))
		fail_msg("GET /k/metrics: expected 200 with the exposition, "
			 "got:\n%.300s", out);
	http_to("GET /metrics HTTP/1.1", 10, out, sizeof(out));
	if (!strstr(out, "HTTP/1.1 404") || !strstr(out, "try /k/metrics"))
		fail_msg("GET /metrics: expected 404 naming /k/metrics, got:"
			 "\n%.300s", out);
	http_to("GET / HTTP/1.1", 10, out, sizeof(out));
	if (!strstr(out, "href=\"/k/metrics\""))
		fail_msg("GET /: expected a link to /k/metrics, got:\n%.600s",
			 out);
}

/* What the option takes, and what it refuses. */
static void a_telemetry_path_is_a_plain_absolute_path(void **state)
{
	static const char *const good[] = { "/metrics", "/k/metrics",
		"/a-b_c.d~e" };
	static const char *const bad[] = { "", "/", "metrics", "/a b",
		"/a\"b", "/<x>", "/a?b", "/a%20b" };
	char longer[WEB_TELEMETRY_PATH_MAX + 2];
	unsigned int i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!web_telemetry_path_ok(good[i]))
			fail_msg("'%s': expected taken, got refused", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (web_telemetry_path_ok(bad[i]))
			fail_msg("'%s': expected refused, got taken", bad[i]);
	memset(longer, 'a', sizeof(longer) - 1);
	longer[0] = '/';
	longer[sizeof(longer) - 1] = '\0';
	assert_false(web_telemetry_path_ok(longer));
}

/* The value of the sample that follows name and a space, or -1. */
static double sample_of(const char *text, const char *name)
{
	char want[96];
	const char *at;

	snprintf(want, sizeof(want), "\n%s ", name);
	at = strstr(text, want);
	return at ? strtod(at + strlen(want), NULL) : -1;
}

/*
 * A scrape has the process_* series every exporter has: ksnapd's CPU
 * time, start time, memory and descriptors.
 */
static void a_scrape_has_the_process_series(void **state)
{
	static char out[1 << 16];
	struct timespec now;
	double start;

	clock_gettime(CLOCK_REALTIME, &now);
	http_to("GET /metrics HTTP/1.1", 10, out, sizeof(out));
	start = sample_of(out, "process_start_time_seconds");
	if (start > (double)now.tv_sec + 1 || start < (double)now.tv_sec - 600)
		fail_msg("process_start_time_seconds: expected the start, "
			 "about %lld, got %f", (long long)now.tv_sec, start);
	if (sample_of(out, "process_cpu_seconds_total") < 0)
		fail_msg("expected process_cpu_seconds_total, got:\n%.2000s",
			 out);
	if (sample_of(out, "process_resident_memory_bytes") <= 0)
		fail_msg("process_resident_memory_bytes: expected > 0, got "
			 "%f", sample_of(out, "process_resident_memory_bytes"));
	if (sample_of(out, "process_open_fds") < 3)
		fail_msg("process_open_fds: expected 3 or more, got %f",
			 sample_of(out, "process_open_fds"));
	if (sample_of(out, "process_max_fds") < sample_of(out,
							   "process_open_fds"))
		fail_msg("process_max_fds: expected at least the open ones, "
			 "got %f", sample_of(out, "process_max_fds"));
}

/* --- idle connections ----------------------------------------------------- */

#define NR_IDLE	200

/* The connections the server holds. */
static unsigned int held(void)
{
	unsigned int n;

	pthread_mutex_lock(&w.conns_lock);
	n = w.nr_conns;
	pthread_mutex_unlock(&w.conns_lock);
	return n;
}

/*
 * Hundreds of connections from the scraper's own address, opened and
 * left idle: once the server holds them all, a scrape from that address
 * is still answered.
 */
static void a_scrape_is_answered_while_hundreds_of_connections_idle(
	void **state)
{
	static char out[1 << 16];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd[NR_IDLE];
	uint64_t deadline;
	unsigned int i, n;

	collection();
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < NR_IDLE; i++) {
		fd[i] = socket(AF_INET, SOCK_STREAM, 0);
		assert_true(fd[i] >= 0);
		assert_int_equal(connect(fd[i], (struct sockaddr *)&sa,
					 sizeof(sa)), 0);
	}
	deadline = web_now_ns() + 5000 * MS;
	while (held() < NR_IDLE && web_now_ns() < deadline)
		usleep(1000);
	n = held();
	http_to("GET /metrics HTTP/1.1", 5, out, sizeof(out));
	for (i = 0; i < NR_IDLE; i++)
		close(fd[i]);
	if (!strstr(out, "HTTP/1.1 200") ||
	    !strstr(out, "\nksnap_vmstat_pgfault_total 1490\n"))
		fail_msg("a scrape with %d idle connections open (%u held): "
			 "expected 200 with the series, got:\n%.300s", NR_IDLE,
			 n, *out ? out : "(no answer in 5 s)");
}

static void test_bind_error(void **state)
{
	struct web w2;
	char e2[256];
	char listen[32];
	const struct web_config cfg = { .listen = listen, .window_ns = MS };

	snprintf(listen, sizeof(listen), "127.0.0.1:%u", port);
	assert_int_equal(web_init(&w2, &cfg, e2, sizeof(e2)), -EADDRINUSE);
	assert_non_null(strstr(e2, "Address already in use"));
	snprintf(listen, sizeof(listen), "nohost:1");
	assert_int_equal(web_init(&w2, &cfg, e2, sizeof(e2)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_listen),
		cmocka_unit_test(listen_address_after_a_space),
		cmocka_unit_test_setup_teardown(
			colon_port_listens_on_every_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_and_methods, setup,
						teardown),
		cmocka_unit_test_setup_teardown(head_is_not_a_scrape, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_collection, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_collection, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_negotiation_and_gzip,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_cgroup, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bind_error, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			a_set_change_keeps_the_window_maximum, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_set_change_keeps_the_self_counters, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_series_gone_at_a_set_change_leaves_after_the_window,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			skipped_series_counted_once_across_set_changes, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			an_unlimited_limit_is_inf_in_the_window, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_layout_change_during_a_scrape_leaves_it_whole, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			endless_layout_changes_still_leave_a_scrape_whole,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_removed_cgroup_loses_its_current_value_at_removal,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_removal_is_found_without_a_look_per_second, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_blind_watcher_still_finds_a_removal, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			concurrent_scrapes_share_one_render, setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_scrape_within_the_sharing_interval_is_not_rendered_again,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_scrape_after_the_end_is_not_the_shared_answer_from_before,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			requests_beyond_max_requests_get_503, setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_tick_counted_peak_rate_is_taken_over_ten_ticks,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			the_exposition_is_at_the_telemetry_path, setup,
			teardown),
		cmocka_unit_test(a_telemetry_path_is_a_plain_absolute_path),
		cmocka_unit_test_setup_teardown(
			a_scrape_has_the_process_series, setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_peak_time_is_the_spikes_wall_clock_time, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_scrape_is_answered_while_hundreds_of_connections_idle,
			setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * scrape: a scraper hammering ksnapd's /metrics.  GET /metrics on
 * 127.0.0.1:PORT --rate times a second (clock_nanosleep, TIMER_ABSTIME;
 * one connection per request, read to its end) for --seconds.  Prints one
 * key=value line: requests, failures, bytes per scrape, the response
 * time's median and 99th percentile, its own CPU; figures only.
 *
 *   scrape --port P [--rate R] [--seconds S] [--gzip] [--cpu C]
 *          [--tag TEXT]
 */
#include "common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

static char resp[1 << 22];

/* One request; returns the bytes read (headers included), or -errno. */
static long get(unsigned int port, int gz)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char req[256];
	long got = 0;
	ssize_t n;
	int fd, len;

	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		got = -errno;
		goto out;
	}
	len = snprintf(req, sizeof(req), "GET /metrics HTTP/1.1\r\n"
		       "Host: localhost\r\nAccept: application/openmetrics-text\r\n"
		       "%sConnection: close\r\n\r\n",
		       gz ? "Accept-Encoding: gzip\r\n" : "");
	if (write(fd, req, (size_t)len) != len) {
		got = -EIO;
		goto out;
	}
	while ((n = read(fd, resp, sizeof(resp))) > 0)
		got += n;
	if (n < 0)
		got = -errno;
	else if (got < 12)
		got = -EPROTO;
out:
	close(fd);
	return got;
}

int main(int argc, char **argv)
{
	unsigned int port = 0;
	double rate = 100, seconds = 10;
	int gz = 0, cpu = -1, i;
	const char *tag = "";
	uint64_t n, k, ok = 0, fail = 0, bytes = 0, step, t0, cpu0;
	uint32_t *rt;
	struct timespec ts;
	struct dist d;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--port") && i + 1 < argc)
			port = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			rate = atof(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--gzip"))
			gz = 1;
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
			tag = argv[++i];
		else {
			fprintf(stderr, "scrape: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!port || rate <= 0 || seconds <= 0) {
		fprintf(stderr, "scrape: --port P [--rate R] [--seconds S]\n");
		return 2;
	}
	if (cpu >= 0 && pin_to(cpu))
		die("sched_setaffinity");
	n = (uint64_t)(rate * seconds);
	rt = calloc(n + 1, sizeof(*rt));
	if (!rt)
		die("calloc");
	step = (uint64_t)(1e9 / rate);
	t0 = now_ns(CLOCK_MONOTONIC);
	cpu0 = rusage_cpu_ns();
	for (k = 0; k < n; k++) {
		uint64_t due = t0 + k * step, a;
		long got;

		ts.tv_sec = (time_t)(due / 1000000000ULL);
		ts.tv_nsec = (long)(due % 1000000000ULL);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		a = now_ns(CLOCK_MONOTONIC);
		got = get(port, gz);
		if (got < 0) {
			fail++;
			continue;
		}
		rt[ok++] = (uint32_t)((now_ns(CLOCK_MONOTONIC) - a) / 1000);
		bytes += (uint64_t)got;
	}
	t0 = now_ns(CLOCK_MONOTONIC) - t0;
	cpu0 = rusage_cpu_ns() - cpu0;
	d = dist_of(rt, ok);
	printf("kind=scrape %s gzip=%d rate=%.0f seconds=%.1f requests=%llu "
	       "ok=%llu failed=%llu achieved_per_s=%.1f bytes_per_scrape=%.0f "
	       "resp_p50_us=%u resp_p99_us=%u resp_max_us=%u scraper_cpu_pct=%.2f\n",
	       tag, gz, rate, (double)t0 / 1e9, (unsigned long long)n,
	       (unsigned long long)ok, (unsigned long long)fail,
	       (double)ok * 1e9 / (double)t0,
	       ok ? (double)bytes / (double)ok : 0, d.p50, d.p99, d.max,
	       100.0 * (double)cpu0 / (double)t0);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * httpabuse: what the endpoint's abuse test (web-abuse.sh) does to ksnapd's
 * HTTP server, each from a source address of its own on the loopback
 * network (127.0.0.0/8) so the per-address connection limit of one does
 * not hide another's.  Each prints one line and exits 0 when the server
 * answered or closed within SECS seconds, 1 otherwise.
 *
 *   httpabuse hold PORT SRC N SECS
 *	open N connections (at most 64 connecting at a time), send nothing,
 *	hold each until the server closes it: "connected C refused R closed
 *	X open O longest_held_ms T" (O connections still open after SECS)
 *   httpabuse trickle PORT SRC SECS
 *	a request's line and headers, a byte a second, never ending: "closed
 *	after MS ms, B bytes sent, answer 'STATUS'"
 * A connection's time (T, MS) runs from before its connect(2): the server
 * can only have accepted it later, so a server's deadline counted from
 * its accept is never seen here as shorter than it is, however slowly
 * either side runs.
 *   httpabuse big PORT SRC BYTES SECS
 *	a request with a header of BYTES bytes: "answer 'STATUS' after MS ms"
 *   httpabuse request PORT SRC SECS LINE...
 *	the request LINE (and the next lines, headers) with Connection:
 *	close: "answer 'STATUS' after MS ms" ('closed': none)
 * STATUS is the status line's code, "closed" when the server closed
 * without one, "other" for bytes that are not HTTP.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned short port;
static const char *src;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* A socket bound to src, connecting to 127.0.0.1:port (nonblocking). */
static int dial(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sockaddr_in me = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	inet_pton(AF_INET, src, &me.sin_addr);
	if (bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		perror("bind");
		exit(2);
	}
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait for fd to connect until end_ms: 0, or -1. */
static int connected(int fd, long end_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int e = 0;

	if (poll(&p, 1, (int)(end_ms - now_ms())) != 1)
		return -1;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len);
	return e ? -1 : 0;
}

/* The answer's status from what was read. */
static const char *status(const char *buf, size_t n, char *out)
{
	if (!n)
		return "closed";
	if (n >= 12 && !strncmp(buf, "HTTP/1.", 7)) {
		memcpy(out, buf + 9, 3);
		out[3] = '\0';
		return out;
	}
	return "other";
}

/* Read until the server closes or end_ms: the bytes read (buf, cap). */
static size_t drain(int fd, char *buf, size_t cap, long end_ms, int *closed)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	char sink[4096];
	ssize_t n;

	*closed = 0;
	while (now_ms() < end_ms) {
		if (poll(&p, 1, (int)(end_ms - now_ms())) < 1)
			continue;
		n = read(fd, got < cap ? buf + got : sink,
			 got < cap ? cap - got : sizeof(sink));
		if (n > 0 && got < cap)
			got += (size_t)n;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			*closed = 1;
			break;
		}
	}
	return got;
}

struct conn {
	int fd;
	int state;		/* 0 connecting, 1 held, 2 closed, 3 refused */
	long at;
};

static int hold(int n, int secs)
{
	struct conn *c = calloc((size_t)n, sizeof(*c));
	struct pollfd *p = calloc((size_t)n, sizeof(*p));
	int i, next = 0, connecting = 0, ncon = 0, nref = 0, nclosed = 0;
	long end = now_ms() + secs * 1000L, longest = 0;
	char buf[256];

	if (!c || !p)
		return 2;
	while (now_ms() < end && nclosed + nref < n) {
		while (next < n && connecting < 64) {
			c[next].at = now_ms();
			c[next].fd = dial();
			if (c[next].fd < 0) {
				c[next].state = 3;
				nref++;
			} else {
				connecting++;
			}
			next++;
		}
		for (i = 0; i < next; i++) {
			p[i].fd = c[i].state < 2 ? c[i].fd : -1;
			p[i].events = c[i].state ? POLLIN : POLLOUT;
			p[i].revents = 0;
		}
		if (poll(p, (nfds_t)next, 100) < 1)
			continue;
		for (i = 0; i < next; i++) {
			socklen_t len = sizeof(int);
			int e = 0;
			ssize_t r;

			if (!p[i].revents)
				continue;
			if (c[i].state == 0) {
				connecting--;
				getsockopt(c[i].fd, SOL_SOCKET, SO_ERROR, &e,
					   &len);
				if (e) {
					c[i].state = 3;
					nref++;
					close(c[i].fd);
					continue;
				}
				c[i].state = 1;
				ncon++;
				continue;
			}
			r = read(c[i].fd, buf, sizeof(buf));
			if (r > 0 || (r < 0 && errno == EAGAIN))
				continue;
			c[i].state = 2;
			nclosed++;
			if (now_ms() - c[i].at > longest)
				longest = now_ms() - c[i].at;
			close(c[i].fd);
		}
	}
	printf("connected %d refused %d closed %d open %d longest_held_ms %ld\n",
	       ncon, nref, nclosed, n - nclosed - nref, longest);
	return nclosed + nref == n ? 0 : 1;
}

static int trickle(int secs)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		"X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	long t0 = now_ms(), end = t0 + secs * 1000L;
	int fd = dial(), closed = 0;
	size_t sent = 0, got = 0;
	char buf[256], st[4];

	if (fd < 0 || connected(fd, end)) {
		printf("no connection\n");
		return 1;
	}
	while (now_ms() < end && !closed) {
		if (write(fd, req + sent % (sizeof(req) - 1), 1) != 1) {
			closed = 1;
			break;
		}
		sent++;
		got += drain(fd, buf + got, sizeof(buf) - 1 - got,
			     now_ms() + 1000, &closed);
	}
	printf("closed after %ld ms, %zu bytes sent, answer '%s'\n",
	       now_ms() - t0, sent, closed ? status(buf, got, st) : "none");
	return closed ? 0 : 1;
}

/* Send all of buf (n bytes) until end_ms or the server closes. */
static void send_all(int fd, const char *buf, size_t n, long end_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	size_t off = 0;
	ssize_t w;

	while (off < n && now_ms() < end_ms) {
		if (poll(&p, 1, 100) < 1)
			continue;
		w = write(fd, buf + off, n - off);
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return;
		if (w > 0)
			off += (size_t)w;
	}
}

static int big(size_t bytes, int secs)
{
	static const char head[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ";
	long t0 = now_ms(), end = t0 + secs * 1000L;
	size_t n = sizeof(head) - 1 + bytes + 4, got;
	char *req = malloc(n), buf[256], st[4];
	int fd = dial(), closed;

	if (!req || fd < 0 || connected(fd, end)) {
		printf("no connection\n");
		return 1;
	}
	memcpy(req, head, sizeof(head) - 1);
	memset(req + sizeof(head) - 1, 'a', bytes);
	memcpy(req + n - 4, "\r\n\r\n", 4);
	send_all(fd, req, n, end);
	got = drain(fd, buf, sizeof(buf) - 1, end, &closed);
	printf("answer '%s' after %ld ms\n", closed || got ?
	       status(buf, got, st) : "none", now_ms() - t0);
	return closed || got ? 0 : 1;
}

static int request(int secs, int argc, char **argv)
{
	long t0 = now_ms(), end = t0 + secs * 1000L;
	char req[8192], buf[256], st[4];
	size_t len = 0, got;
	int fd = dial(), closed, i;

	if (fd < 0 || connected(fd, end)) {
		printf("no connection\n");
		return 1;
	}
	for (i = 0; i < argc; i++)
		len += (size_t)snprintf(req + len, sizeof(req) - len,
					"%s\r\n", argv[i]);
	len += (size_t)snprintf(req + len, sizeof(req) - len,
				"Connection: close\r\n\r\n");
	send_all(fd, req, len, end);
	got = drain(fd, buf, sizeof(buf) - 1, end, &closed);
	printf("answer '%s' after %ld ms\n", closed || got ?
	       status(buf, got, st) : "none", now_ms() - t0);
	return closed || got ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct rlimit rl = { 4096, 4096 };

	signal(SIGPIPE, SIG_IGN);
	setrlimit(RLIMIT_NOFILE, &rl);
	if (argc < 5) {
		fprintf(stderr, "usage: httpabuse hold|trickle|big|request "
			"PORT SRC ...\n");
		return 2;
	}
	port = (unsigned short)atoi(argv[2]);
	src = argv[3];
	if (!strcmp(argv[1], "hold") && argc == 6)
		return hold(atoi(argv[4]), atoi(argv[5]));
	if (!strcmp(argv[1], "trickle"))
		return trickle(atoi(argv[4]));
	if (!strcmp(argv[1], "big") && argc == 6)
		return big((size_t)atol(argv[4]), atoi(argv[5]));
	if (!strcmp(argv[1], "request") && argc >= 6)
		return request(atoi(argv[4]), argc - 5, argv + 5);
	fprintf(stderr, "httpabuse: unknown command or arguments\n");
	return 2;
}

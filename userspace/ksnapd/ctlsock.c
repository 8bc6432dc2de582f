// SPDX-License-Identifier: MIT
/* ksnapd's control socket: the daemon's side and --slice's (ctlsock.h). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "ctlsock.h"
#include "output.h"
#include "sys.h"

#define REQUEST_MAX	128

static int address(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return -ENAMETOOLONG;
	strcpy(a->sun_path, path);
	return 0;
}

/* The default path's directory, made if missing; any other path's is not. */
static int make_default_dir(const char *path)
{
	static const char dir[] = "/run/ksnapd";
	int ret;

	if (strcmp(path, KSNAPD_CONTROL_PATH))
		return 0;
	ret = ksnap_sys_mkdir(dir, 0700);
	return ret == -EEXIST ? 0 : ret;
}

int ctlsrv_open(struct ctlsrv *s, const char *path, char *err, size_t len)
{
	struct sockaddr_un a;
	int fd, ret;

	s->fd = -1;
	ret = address(&a, path);
	if (ret) {
		snprintf(err, len, "%.200s: %s", path, strerror(-ret));
		return ret;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	ret = make_default_dir(path);
	if (ret) {
		snprintf(err, len, "/run/ksnapd: %s", strerror(-ret));
		return ret;
	}
	fd = ksnap_sys_socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
			      SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, len, "socket: %s", strerror(-fd));
		return fd;
	}
	/* We hold the device: a socket there is a dead daemon's. */
	ksnap_sys_unlink(path);
	ret = ksnap_sys_bind(fd, (struct sockaddr *)&a, sizeof(a));
	if (!ret)
		ret = ksnap_sys_chmod(path, 0600);
	if (!ret)
		ret = ksnap_sys_listen(fd, 4);
	if (ret) {
		snprintf(err, len, "%.200s: %s", path, strerror(-ret));
		ksnap_sys_close(fd);
		return ret;
	}
	s->fd = fd;
	return 0;
}

void ctlsrv_close(struct ctlsrv *s)
{
	if (s->fd < 0)
		return;
	ksnap_sys_close(s->fd);
	ksnap_sys_unlink(s->path);
	s->fd = -1;
}

/* The request line and the descriptor that came with it (or -1). */
static int receive(int c, char *buf, size_t size, int *fd)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.space,
			    .msg_controllen = sizeof(u.space) };
	struct cmsghdr *h;
	ssize_t n;

	*fd = -1;
	n = ksnap_sys_recvmsg(c, &m, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	h = CMSG_FIRSTHDR(&m);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
	    h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(h), sizeof(int));
	return 0;
}

static void refuse(int c, int fd, const char *why)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "error %s\n", why);

	ksnap_out_write_full(c, line, (size_t)n);
	if (fd >= 0)
		ksnap_sys_close(fd);
	ksnap_sys_close(c);
}

void ctlsrv_accept(struct ctlsrv *s, struct flight *f)
{
	struct timeval tv = { .tv_sec = 1 };
	char req[REQUEST_MAX], mode[8];
	int64_t b, e;
	int c, fd;

	c = ksnap_sys_accept(s->fd, SOCK_CLOEXEC);
	if (c < 0)
		return;
	/* A client that says nothing does not hold the daemon long. */
	ksnap_sys_setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (receive(c, req, sizeof(req), &fd)) {
		refuse(c, -1, "no request");
		return;
	}
	if (sscanf(req, "slice %" SCNd64 " %" SCNd64 " %7s", &b, &e,
		   mode) != 3 || fd < 0 || b > e ||
	    (strcmp(mode, "plain") && strcmp(mode, "lossy"))) {
		refuse(c, fd, "bad request: expected \"slice BEGIN_NS END_NS "
		       "plain|lossy\" and a file descriptor");
		return;
	}
	flight_slice_start(f, b, e, !strcmp(mode, "lossy"), fd, c);
}

static int send_request(int c, const char *req, int out_fd)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = (void *)req, .iov_len = strlen(req) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.space,
			    .msg_controllen = sizeof(u.space) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	ssize_t n;

	memset(&u, 0, sizeof(u));
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &out_fd, sizeof(int));
	n = ksnap_sys_sendmsg(c, &m, MSG_NOSIGNAL);
	if (n < 0)
		return (int)n;
	return (size_t)n == iov.iov_len ? 0 : -EIO;
}

/* The reply: one line, or what there is when the daemon closes. */
static int read_reply(int c, int timeout_ms, char *reply, size_t size)
{
	struct pollfd p = { .fd = c, .events = POLLIN };
	size_t o = 0;
	ssize_t n;
	int ret;

	while (o + 1 < size) {
		ret = ksnap_sys_poll(&p, 1, timeout_ms);
		if (ret == 0)
			return -ETIMEDOUT;
		if (ret < 0 && ret != -EINTR)
			return ret;
		n = ksnap_sys_read(c, reply + o, size - 1 - o);
		if (n < 0 && n != -EINTR && n != -EAGAIN)
			return (int)n;
		if (n == 0)
			break;
		if (n > 0)
			o += (size_t)n;
		if (o && reply[o - 1] == '\n')
			break;
	}
	reply[o] = '\0';
	if (o && reply[o - 1] == '\n')
		reply[o - 1] = '\0';
	return o ? 0 : -ECONNRESET;
}

int ctl_slice(const char *path, int64_t begin_ns, int64_t end_ns, bool lossy,
	      int out_fd, int timeout_ms, char *reply, size_t size)
{
	struct sockaddr_un a;
	char req[REQUEST_MAX];
	int c, ret;

	ret = address(&a, path);
	if (ret)
		return ret;
	c = ksnap_sys_socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0)
		return c;
	ret = ksnap_sys_connect(c, (struct sockaddr *)&a, sizeof(a));
	snprintf(req, sizeof(req), "slice %" PRId64 " %" PRId64 " %s\n",
		 begin_ns, end_ns, lossy ? "lossy" : "plain");
	if (!ret)
		ret = send_request(c, req, out_fd);
	if (!ret)
		ret = read_reply(c, timeout_ms, reply, size);
	ksnap_sys_close(c);
	return ret;
}

// SPDX-License-Identifier: MIT
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "durable.h"
#include "journal.h"
#include "output.h"
#include "sys.h"

int ksnap_out_init(struct ksnap_out *o, int fd, bool regular, bool framed,
		   size_t size)
{
	o->fd = fd;
	o->regular = regular;
	o->durable = NULL;
	o->journal = NULL;
	o->framed = framed;
	o->cap = size;
	/* + leading and trailing frame bytes */
	o->buf = malloc(size + 2);
	if (!o->buf)
		return -ENOMEM;
	o->buf[0] = '\n';
	o->len = 1;
	o->skip = 0;
	return 0;
}

void ksnap_out_fini(struct ksnap_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

/* A non-blocking sink (stdout shared with a process that set O_NONBLOCK
 * on it) said EAGAIN: wait until it takes more. */
static int wait_writable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int ret;

	do
		ret = ksnap_sys_poll(&p, 1, -1);
	while (ret == -EINTR);
	return ret < 0 ? ret : 0;
}

/* Write all of buf; *done: how much was written, also on failure. */
static int write_all(int fd, const char *buf, size_t len, size_t *done)
{
	int ret;

	*done = 0;
	while (len) {
		ssize_t n = ksnap_sys_write(fd, buf, len);

		if (n == -EINTR)
			continue;
		if (n == -EAGAIN || n == -EWOULDBLOCK) {
			ret = wait_writable(fd);
			if (ret)
				return ret;
			continue;
		}
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
		*done += (size_t)n;
	}
	return 0;
}

int ksnap_out_write_full(int fd, const char *buf, size_t len)
{
	size_t done;

	return write_all(fd, buf, len, &done);
}

/*
 * A write of the buffer failed after done bytes: take them back out of a
 * regular file (truncate to where the flush began), or remember them so
 * that the retry writes only the rest.
 */
static void undo_partial(struct ksnap_out *o, off_t start, size_t done)
{
	if (!done)
		return;
	if (start >= 0 && !ksnap_sys_ftruncate(o->fd, start) &&
	    ksnap_sys_lseek(o->fd, start, SEEK_SET) == start)
		return;
	o->skip += done;
}

/*
 * To the journal: each line of start[o->skip, n) an entry of its own
 * (empty ones, the frame, left out), o->skip past each line sent.  Returns
 * 0 when all are sent, 1 when the rest is for the stream (no native
 * protocol), -errno.  The stream's part is refused whole when a line of it
 * would be cut.
 */
static int journal_write(struct ksnap_out *o, const char *start, size_t n)
{
	int ret;

	while (o->journal->native && o->skip < n) {
		const char *p = start + o->skip;
		const char *nl = memchr(p, '\n', n - o->skip);
		size_t len = nl ? (size_t)(nl - p) : n - o->skip;

		ret = len ? ksnap_journal_send(o->journal, p, len) : 0;
		if (ret == 1)
			break;
		if (ret)
			return ret;
		o->skip += len + (nl ? 1 : 0);
	}
	if (o->skip >= n)
		return 0;
	ret = ksnap_journal_check(o->journal, start + o->skip, n - o->skip);
	return ret ? ret : 1;
}

static int out_write(struct ksnap_out *o, bool trailer)
{
	size_t pending = ksnap_out_pending(o);
	const char *start;
	size_t n, done;
	off_t at = -1;
	int ret;

	if (!pending)
		return 0;
	if (o->framed) {
		start = o->buf;
		n = o->len;
		if (trailer)
			o->buf[n++] = '\n';
	} else {
		start = o->buf + 1;
		n = pending;
	}
	if (o->journal) {
		ret = journal_write(o, start, n);
		if (ret <= 0) {
			if (!ret) {
				o->len = 1;
				o->skip = 0;
			}
			return ret;
		}
	}
	/*
	 * Where this flush begins, to cut a failed one off again: the end of
	 * the file (ksnapd is its writer; with O_APPEND the position would
	 * not say).
	 */
	if (o->regular && !o->skip)
		at = ksnap_sys_lseek(o->fd, 0, SEEK_END);
	ret = write_all(o->fd, start + o->skip, n - o->skip, &done);
	if (ret) {
		undo_partial(o, at, done);
		return ret;
	}
	o->len = 1;
	o->skip = 0;
	if (o->framed && o->regular && o->durable)
		return ksnap_durable_written(o->durable, o->fd, done);
	if (o->framed && o->regular)
		do
			ret = ksnap_sys_fsync(o->fd);
		while (ret == -EINTR);
	return ret;
}

int ksnap_out_flush(struct ksnap_out *o)
{
	return out_write(o, true);
}

int ksnap_out_flush_last(struct ksnap_out *o)
{
	return out_write(o, false);
}

char *ksnap_out_reserve(struct ksnap_out *o, size_t n, int *err)
{
	char *nbuf;

	if (o->cap - ksnap_out_pending(o) >= n)
		return o->buf + o->len;
	*err = ksnap_out_flush(o);
	if (*err)
		return NULL;
	if (o->cap >= n)
		return o->buf + o->len;
	nbuf = realloc(o->buf, n + 2);
	if (!nbuf) {
		*err = -ENOMEM;
		return NULL;
	}
	o->buf = nbuf;
	o->cap = n;
	return o->buf + o->len;
}

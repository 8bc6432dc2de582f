// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>

#include "output.h"
#include "sys.h"

int ksnap_out_init(struct ksnap_out *o, int fd, bool regular, bool framed,
		   size_t size)
{
	o->fd = fd;
	o->regular = regular;
	o->framed = framed;
	o->cap = size;
	/* + leading and trailing frame bytes */
	o->buf = malloc(size + 2);
	if (!o->buf)
		return -ENOMEM;
	o->buf[0] = '\n';
	o->len = 1;
	return 0;
}

void ksnap_out_fini(struct ksnap_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

int ksnap_out_write_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = ksnap_sys_write(fd, buf, len);

		if (n == -EINTR)
			continue;
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int out_write(struct ksnap_out *o, bool trailer)
{
	size_t pending = ksnap_out_pending(o);
	int ret;

	if (!pending)
		return 0;
	if (o->framed) {
		size_t n = o->len;

		if (trailer)
			o->buf[n++] = '\n';
		ret = ksnap_out_write_full(o->fd, o->buf, n);
	} else {
		ret = ksnap_out_write_full(o->fd, o->buf + 1, pending);
	}
	o->len = 1;
	if (!ret && o->framed && o->regular)
		ret = ksnap_sys_fsync(o->fd);
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

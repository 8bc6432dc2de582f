/* SPDX-License-Identifier: MIT */
/*
 * The output buffer and its sink.  Lines are formatted straight into the
 * buffer (ksnap_out_reserve() + ksnap_out_commit()); ksnap_out_flush()
 * writes it out with full writes.
 *
 * Framed mode (lossy stream): each flush is one write that begins and ends
 * with "\n", and a regular-file sink is made durable after it: by the
 * thread of durable (durable.h) when the output has one, the flush never
 * waiting for it; else by an fsync() in the flush.
 *
 * A flush that fails keeps what was buffered, to be written by the next
 * flush, and never leaves part of it in a regular file: what a failed
 * write left there (a short write, then ENOSPC) is cut off again with
 * ftruncate(), so the file ends with the last whole flush.  On other sinks
 * (pipes), which cannot be rewound, the next flush writes only the rest.
 */
#ifndef KSNAP_OUTPUT_H
#define KSNAP_OUTPUT_H

#include <stdbool.h>
#include <errno.h>
#include <stddef.h>

#define KSNAP_OUT_DEFAULT_SIZE	(1024 * 1024)

struct ksnap_durable;
struct ksnap_journal;

struct ksnap_out {
	int fd;
	bool regular;		/* fsync after framed flushes */
	struct ksnap_durable *durable;	/* fsyncs them, or NULL: the flush */
	bool framed;
	char *buf;		/* buf[0] is the frame's leading "\n" */
	size_t cap;		/* usable bytes after buf[0], before the
				 * trailing frame byte */
	size_t len;		/* bytes of lines in buf + 1 */
	size_t skip;		/* bytes of buf already written to a sink
				 * that cannot be rewound (failed flush) */
	struct ksnap_journal *journal;	/* the sink is the journal (each
					 * line an entry, journal.h), or
					 * NULL; the owner sets it */
};

/* The sink is full: the write can be retried when space returns. */
static inline bool ksnap_out_full_error(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

/* Returns 0 or -ENOMEM.  durable and journal are NULL; the owner may set
 * them. */
int ksnap_out_init(struct ksnap_out *o, int fd, bool regular, bool framed,
		   size_t size);
void ksnap_out_fini(struct ksnap_out *o);

/*
 * Room for n more bytes: flushes, and when one line is larger than the
 * whole buffer, grows it (only ever for header lines; rows fit).
 * Returns a pointer to the free space or NULL with *err set to -errno.
 */
char *ksnap_out_reserve(struct ksnap_out *o, size_t n, int *err);
static inline void ksnap_out_commit(struct ksnap_out *o, char *end)
{
	o->len = (size_t)(end - o->buf);
}

/* Buffered bytes (without frame); start of the buffered lines. */
static inline size_t ksnap_out_pending(const struct ksnap_out *o)
{
	return o->len - 1;
}
static inline const char *ksnap_out_data(const struct ksnap_out *o)
{
	return o->buf + 1;
}

/*
 * Write what is buffered.  Returns 0 or -errno from write/fsync (with
 * durable: an earlier fsync's error, said once); after a failed write the
 * buffered bytes are kept (see above).  To the journal: each line an entry
 * of its own, or, without the native protocol, -EMSGSIZE for a line
 * journald would cut (journal.h; its err says which).
 */
int ksnap_out_flush(struct ksnap_out *o);

/*
 * The last write of a framed stream: "\n" + buffered bytes, no trailing
 * frame byte (as gVisor's writer does for its checksum line).
 */
int ksnap_out_flush_last(struct ksnap_out *o);

/* Write all of buf, retrying on EINTR and short writes, and waiting in
 * poll(POLLOUT) on EAGAIN (a non-blocking sink). */
int ksnap_out_write_full(int fd, const char *buf, size_t len);

#endif /* KSNAP_OUTPUT_H */

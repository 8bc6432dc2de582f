/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's control socket: a Unix stream socket (default
 * /run/ksnapd.sock, mode 0600) through which ksnapd --slice asks a running
 * daemon for a slice.  The daemon binds it once it holds the device (so a
 * socket left by a killed daemon is replaced, never a live one: only the
 * holder of /dev/ksnap binds it) and removes it when it exits.
 *
 * The protocol, one request per connection:
 *   client: "slice BEGIN_NS END_NS plain|lossy\n", with the descriptor of
 *           the output file in SCM_RIGHTS (the daemon writes the stream
 *           into it: no path, no permissions of the daemon's)
 *   daemon: one line, "ok ..." or "error ..." (slicesrv.c), once the slice
 *           is written (END_NS > 0: after the rows up to it have come)
 */
#ifndef KSNAPD_CTLSOCK_H
#define KSNAPD_CTLSOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flight.h"

/*
 * In a directory of its own, which ksnapd makes (0700) if it is missing,
 * so that systemd's RuntimeDirectory=ksnapd can give a sandboxed daemon
 * (ProtectSystem=strict) a writable place for it.
 */
#define KSNAPD_CONTROL_PATH	"/run/ksnapd/ksnapd.sock"

struct ctlsrv {
	int fd;			/* listening, non-blocking; -1: none */
	char path[108];
};

/* Bind and listen at path.  Returns 0 or -errno with err set. */
int ctlsrv_open(struct ctlsrv *s, const char *path, char *err, size_t len);
/* Close and remove the socket. */
void ctlsrv_close(struct ctlsrv *s);
/* The socket is readable: take a request and hand it to f. */
void ctlsrv_accept(struct ctlsrv *s, struct flight *f);

/*
 * ksnapd --slice through the daemon at path: ask, wait up to timeout_ms
 * for the reply line (into reply).  Returns 0 (reply holds "ok ..." or
 * "error ...") or -errno (connect, send, receive).
 */
int ctl_slice(const char *path, int64_t begin_ns, int64_t end_ns, bool lossy,
	      int out_fd, int timeout_ms, char *reply, size_t size);

#endif /* KSNAPD_CTLSOCK_H */

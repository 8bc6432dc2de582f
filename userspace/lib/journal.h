/* SPDX-License-Identifier: MIT */
/*
 * Standard output that is the journal.  journald reads a service's
 * standard output as a stream and cuts a line longer than its LineMax
 * (journald.conf, 48 KiB by default) into entries of LineMax bytes: a
 * stream's header (a column per followed cgroup and metric) is often
 * longer.  So when standard output is the journal, each line goes as one
 * entry of its own through journald's native protocol (sd_journal_sendv()
 * of libsystemd), whose fields LineMax does not cut: MESSAGE=<line>,
 * PRIORITY=6, SYSLOG_IDENTIFIER=ksnapd and KSNAP_COLLECTION=<the kernel's
 * collection number>.  No empty entries: the framing newlines of a lossy
 * stream (output.h) are for a byte stream.
 *
 * Standard output is the journal when $JOURNAL_STREAM ("DEVICE:INODE",
 * which systemd sets for a service whose output is the journal) names the
 * file standard output is (systemd.exec(5)).
 *
 * Without the native protocol (built without libsystemd, or its socket
 * /run/systemd/journal/socket not there: said once on the log), lines go
 * to the stream as before, but a flush with a line longer than
 * KSNAP_JOURNAL_LINE_MAX - 1 bytes is refused whole (-EMSGSIZE, the line's
 * length and LineMax in err): never written cut.
 */
#ifndef KSNAP_JOURNAL_H
#define KSNAP_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>

/* journald's default LineMax: a stream line of more (newline included)
 * is cut. */
#define KSNAP_JOURNAL_LINE_MAX	(48 * 1024)
/* MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, KSNAP_COLLECTION */
#define KSNAP_JOURNAL_FIELDS	4

struct ksnap_journal {
	bool native;		/* sd_journal_sendv(), else the stream */
	uint32_t collection;	/* KSNAP_COLLECTION= */
	FILE *log;		/* where the fall back is said, or NULL */
	char *msg;		/* "MESSAGE=" + the line */
	size_t msg_cap;
	char coll_field[32];	/* "KSNAP_COLLECTION=N" */
	char err[200];		/* why a flush was refused */
};

/* Is the file st the journal stream $JOURNAL_STREAM (env, may be NULL)
 * names? */
bool ksnap_journal_stream_is(const char *env, const struct stat *st);

void ksnap_journal_init(struct ksnap_journal *j, FILE *log);
void ksnap_journal_fini(struct ksnap_journal *j);

/*
 * The fields of one entry for line (n bytes, no newline) in iov; returns
 * their number (KSNAP_JOURNAL_FIELDS) or -ENOMEM.  iov[0] points into
 * j->msg, valid until the next call.
 */
int ksnap_journal_fields(struct ksnap_journal *j, struct iovec *iov,
			 const char *line, size_t n);

/*
 * The stream fall back: 0 when every line of data (len bytes, lines ended
 * by "\n", the last one maybe not) fits in LineMax, else -EMSGSIZE with
 * the longest line's length in j->err.
 */
int ksnap_journal_check(struct ksnap_journal *j, const char *data,
			size_t len);

/*
 * Send one line as an entry.  Returns 0, -errno, or 1 when the native
 * protocol is not there (then j->native is false from now on and the
 * caller writes the line to the stream).
 */
int ksnap_journal_send(struct ksnap_journal *j, const char *line, size_t n);

#endif /* KSNAP_JOURNAL_H */

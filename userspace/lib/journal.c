// SPDX-License-Identifier: MIT
/* Standard output that is the journal: its entries (journal.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "msg.h"
#include "sys.h"

#define MESSAGE_KEY	"MESSAGE="

bool ksnap_journal_stream_is(const char *env, const struct stat *st)
{
	unsigned long long dev, ino;
	char *end;

	if (!env || !*env)
		return false;
	errno = 0;
	dev = strtoull(env, &end, 10);
	if (errno || end == env || *end != ':')
		return false;
	env = end + 1;
	ino = strtoull(env, &end, 10);
	if (errno || end == env || *end)
		return false;
	return (unsigned long long)st->st_dev == dev &&
	       (unsigned long long)st->st_ino == ino;
}

void ksnap_journal_init(struct ksnap_journal *j, FILE *log)
{
	memset(j, 0, sizeof(*j));
	j->native = true;
	j->log = log;
}

void ksnap_journal_fini(struct ksnap_journal *j)
{
	free(j->msg);
	j->msg = NULL;
	j->msg_cap = 0;
}

int ksnap_journal_fields(struct ksnap_journal *j, struct iovec *iov,
			 const char *line, size_t n)
{
	static const char priority[] = "PRIORITY=6";
	static const char ident[] = "SYSLOG_IDENTIFIER=ksnapd";
	size_t need = sizeof(MESSAGE_KEY) - 1 + n;
	int w;

	if (need > j->msg_cap) {
		char *m = realloc(j->msg, need);

		if (!m)
			return -ENOMEM;
		j->msg = m;
		j->msg_cap = need;
	}
	memcpy(j->msg, MESSAGE_KEY, sizeof(MESSAGE_KEY) - 1);
	memcpy(j->msg + sizeof(MESSAGE_KEY) - 1, line, n);
	w = snprintf(j->coll_field, sizeof(j->coll_field),
		     "KSNAP_COLLECTION=%" PRIu32, j->collection);
	iov[0] = (struct iovec){ .iov_base = j->msg, .iov_len = need };
	iov[1] = (struct iovec){ .iov_base = (void *)priority,
				 .iov_len = sizeof(priority) - 1 };
	iov[2] = (struct iovec){ .iov_base = (void *)ident,
				 .iov_len = sizeof(ident) - 1 };
	iov[3] = (struct iovec){ .iov_base = j->coll_field,
				 .iov_len = (size_t)w };
	return KSNAP_JOURNAL_FIELDS;
}

int ksnap_journal_check(struct ksnap_journal *j, const char *data,
			size_t len)
{
	const char *p = data, *end = data + len;
	size_t longest = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > longest)
			longest = n;
		p += n + 1;
	}
	if (longest + 1 <= KSNAP_JOURNAL_LINE_MAX)
		return 0;
	snprintf(j->err, sizeof(j->err), "a line of %zu bytes is longer than "
		 "journald's LineMax (%u bytes by default) and would be cut: "
		 "not written (ksnapd has no native journal protocol here)",
		 longest, KSNAP_JOURNAL_LINE_MAX);
	return -EMSGSIZE;
}

/* The native protocol is not there: no libsystemd, no socket, or the
 * sandbox forbids it. */
static bool unavailable(int err)
{
	return err == -ENOSYS || err == -ENOENT || err == -ECONNREFUSED ||
	       err == -ENOTCONN || err == -EACCES || err == -EPERM ||
	       err == -EAFNOSUPPORT;
}

int ksnap_journal_send(struct ksnap_journal *j, const char *line, size_t n)
{
	struct iovec iov[KSNAP_JOURNAL_FIELDS];
	int nr, ret;

	if (!j->native)
		return 1;
	nr = ksnap_journal_fields(j, iov, line, n);
	if (nr < 0)
		return nr;
	do
		ret = ksnap_sys_journal_sendv(iov, nr);
	while (ret == -EINTR);
	if (!ret || !unavailable(ret))
		return ret;
	j->native = false;
	if (j->log)
		ksnap_say(j->log, true, "ksnapd: the journal's native protocol: "
			  "%s: writing the stream to standard output, which "
			  "refuses lines longer than journald's LineMax (%u "
			  "bytes)\n", strerror(-ret), KSNAP_JOURNAL_LINE_MAX);
	return 1;
}

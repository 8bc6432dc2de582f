// SPDX-License-Identifier: MIT
/*
 * The system call wrapper of journald's native protocol (sys.h), in an
 * object of its own: the programs that never use the stream output do not
 * link libsystemd.
 */
#include <errno.h>
#include <sys/stat.h>

#include "sys.h"

#ifdef KSNAP_HAVE_SD_JOURNAL
/* No CODE_FILE=, CODE_LINE=, CODE_FUNC= of this file in every entry. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

int ksnap_sys_journal_sendv(const struct iovec *iov, int n)
{
	static int present;	/* 0 not looked yet, 1 there, -errno not */

	/*
	 * sd_journal_sendv() returns 0 when the socket does not exist
	 * (journald "not available"), dropping the entry: look for it once,
	 * so that a missing socket is -ENOENT and the caller falls back.
	 */
	if (!present) {
		struct stat st;

		present = !stat(JOURNAL_SOCKET, &st) && S_ISSOCK(st.st_mode) ?
			  1 : -ENOENT;
	}
	if (present < 0)
		return present;
	/* 0 or -errno already. */
	return sd_journal_sendv(iov, n);
}
#else
int ksnap_sys_journal_sendv(const struct iovec *iov, int n)
{
	(void)iov;
	(void)n;
	return -ENOSYS;
}
#endif

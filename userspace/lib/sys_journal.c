// SPDX-License-Identifier: MIT
/*
 * The system call wrapper of journald's native protocol (sys.h), in an
 * object of its own: only the programs that write to the journal link
 * libsystemd.
 */
#include <errno.h>

#include "sys.h"

#ifdef KSNAP_HAVE_SD_JOURNAL
/* No CODE_FILE=, CODE_LINE=, CODE_FUNC= of this file in every entry. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

int ksnap_sys_journal_sendv(const struct iovec *iov, int n)
{
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

/* SPDX-License-Identifier: MIT */
/*
 * Replacements for userspace/lib/sys.c, linked with -Wl,--wrap=ksnap_sys_*.
 * By default each calls the real wrapper (__real_ksnap_sys_*); a test sets
 * fields of fake_sys to fail a call, to map a ring built in memory, to
 * capture writes, or to run code at each poll().
 */
#ifndef KSNAP_FAKE_SYS_H
#define KSNAP_FAKE_SYS_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#define FAKE_DEV_FD	1000

struct fake_sys {
	/* open: fail with this -errno, or return FAKE_DEV_FD (a char
	 * device for fstat) when mem is set. */
	int open_err;
	/* files that exist: open(O_CREAT | O_EXCL) of one fails (EEXIST) */
	const char *exists[4];
	int open_calls, close_calls;
	/* every open(): path, flags, and how much had been written */
	char opened[8][128];
	int opened_flags[8];
	size_t opened_at[8];
	int nr_opened;

	/* access: fail with this -errno, else the real one; last path,
	 * and how many calls */
	int access_err;
	char accessed[128];
	unsigned int access_calls;

	/* stat: when set, any path is the file FAKE_DEV_FD is open on */
	bool stat_same;

	/* mmap: when mem is set, "map" mem + offset (must be in range). */
	void *mem;
	size_t mem_len;
	int mmap_fail_at;	/* 1-based call number that fails ... */
	int mmap_err;		/* ... with this -errno */
	int mmap_calls, munmap_calls;
	void *mmap_prot_rw;	/* address returned by the RW mapping */

	/* ioctl: when ring (a struct fake_ring) is set, answered from it
	 * (fake_ring_ioctl()), whatever the descriptor; else the real one.
	 * ioctl_err: fail every call with this -errno. */
	void *ring;
	int ioctl_err;
	int ioctl_calls;

	/* poll: when set, called instead (fake device). */
	int (*poll_hook)(struct pollfd *fds, nfds_t n, int timeout);
	int poll_calls;
	void (*yield_hook)(void);
	/* ioctl: when set, called before anything else. */
	int (*ioctl_hook)(int fd, unsigned long req, void *arg);
	int yield_calls;

	/* write: capture into wbuf instead of writing. */
	bool capture;
	char *wbuf;
	size_t wlen, wcap;
	int write_calls;
	size_t write_max;	/* short writes of at most this many bytes */
	int write_eintr;	/* fail this many calls with EINTR first */
	int write_eagain;	/* then this many with EAGAIN */
	int fsync_eintr;	/* fail this many fsync calls with EINTR */
	int write_err;		/* fail every call with this -errno */
	int fsync_calls;	/* atomic: fsync may run on another thread */
	/* fsync: when set, called instead, on whatever thread fsyncs. */
	int (*fsync_hook)(int fd);
	/* A disk of space bytes (captured writes): a write past it is short,
	 * then fails with -ENOSPC; ftruncate() of the capture frees room. */
	bool space_limited;
	size_t space;
	int enospc_calls;	/* writes that failed for lack of space */
	int ftruncate_calls;
	int lseek_calls;

	/* journal_sendv: when set, called instead. */
	int (*journal_hook)(const struct iovec *iov, int n);
	int journal_calls;
};

extern struct fake_sys fake_sys;

void fake_sys_reset(void);

#endif /* KSNAP_FAKE_SYS_H */

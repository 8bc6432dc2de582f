// SPDX-License-Identifier: GPL-2.0
/*
 * guestprobe: the system calls the guest tests need that busybox can't make
 * with a checkable errno.  Each subcommand prints one word: "ok" or the
 * errno's name (EBUSY, EINVAL...), and exits 0 on success, 1 on failure,
 * 2 on a usage error.
 *
 *   guestprobe write FILE VALUE      write(2) VALUE plus a newline, one call
 *   guestprobe load KO [PARAMS]      finit_module(2) with PARAMS
 *   guestprobe open                  open /dev/ksnap read-write once
 *   guestprobe open2                 open /dev/ksnap twice: the errno of the
 *                                    second open (the first must succeed)
 *   guestprobe mmap-write            map the control page writable
 *   guestprobe mprotect-write        map it read-only, then mprotect(WRITE)
 *   guestprobe mmap-data-write       map the first record page writable
 *   guestprobe mmap-past-end         map one page past the device's end
 *   guestprobe mmap-consumer         map the consumer page read-write
 *   guestprobe hold                  map the control region read-only, close
 *                                    the fd, print "held" and wait for
 *                                    SIGTERM/SIGINT, then unmap: "ok"
 *
 * Built statically by scripts/guest into build/guest/bin/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ksnap_abi.h"

static const char *errname(int e)
{
	switch (e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENOTTY: return "ENOTTY";
	case EOVERFLOW: return "EOVERFLOW";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOEXEC: return "ENOEXEC";
	case ESRCH: return "ESRCH";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	default: {
		static char buf[32];

		snprintf(buf, sizeof(buf), "errno%d", e);
		return buf;
	}
	}
}

static int report(int e)
{
	printf("%s\n", errname(e));
	return e ? 1 : 0;
}

static int open_dev(void)
{
	int fd = open(KSNAP_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "guestprobe: open %s: %s\n", KSNAP_DEVICE_PATH,
			strerror(errno));
	return fd;
}

/* The layout, from a read-only map of the control page. */
static int read_ctrl(int fd, struct ksnap_ctrl *c)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "guestprobe: read-only map of the control page: %s\n",
			strerror(errno));
		return -1;
	}
	memcpy(c, p, sizeof(*c));
	munmap(p, page);
	if (c->magic != KSNAP_MAGIC) {
		fprintf(stderr, "guestprobe: bad magic %#llx\n",
			(unsigned long long)c->magic);
		return -1;
	}
	return 0;
}

/* mmap(prot) of npages at pgoff: 0 or the errno. */
static int try_map(int fd, unsigned long pgoff, unsigned long npages, int prot)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, npages * page, prot, MAP_SHARED, fd, pgoff * page);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, npages * page);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ksnap_ctrl c;
	const char *cmd = argc > 1 ? argv[1] : "";
	int fd, fd2, e;
	void *p;

	if (!strcmp(cmd, "write") && argc == 4) {
		char buf[4096];
		int n = snprintf(buf, sizeof(buf), "%s\n", argv[3]);

		fd = open(argv[2], O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return report(errno);
		e = write(fd, buf, n) < 0 ? errno : 0;
		close(fd);
		return report(e);
	}
	if (!strcmp(cmd, "load") && (argc == 3 || argc == 4)) {
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return report(errno);
		e = syscall(SYS_finit_module, fd, argc == 4 ? argv[3] : "", 0) ?
			errno : 0;
		close(fd);
		return report(e);
	}
	if (!strcmp(cmd, "open")) {
		fd = open(KSNAP_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		return report(e);
	}
	if (!strcmp(cmd, "open2")) {
		fd = open_dev();
		if (fd < 0)
			return report(errno);
		fd2 = open(KSNAP_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		e = fd2 < 0 ? errno : 0;
		if (fd2 >= 0)
			close(fd2);
		close(fd);
		return report(e);
	}
	if (!strncmp(cmd, "mmap-", 5) || !strcmp(cmd, "mprotect-write") ||
	    !strcmp(cmd, "hold")) {
		fd = open_dev();
		if (fd < 0)
			return report(errno);
		if (read_ctrl(fd, &c))
			return 3;
		if (!strcmp(cmd, "mmap-write"))
			return report(try_map(fd, 0, 1, PROT_READ | PROT_WRITE));
		if (!strcmp(cmd, "mmap-data-write"))
			return report(try_map(fd, c.data_pgoff, 1,
					      PROT_READ | PROT_WRITE));
		if (!strcmp(cmd, "mmap-past-end"))
			return report(try_map(fd, c.total_pages, 1, PROT_READ));
		if (!strcmp(cmd, "mmap-consumer"))
			return report(try_map(fd, c.consumer_pgoff, 1,
					      PROT_READ | PROT_WRITE));
		if (!strcmp(cmd, "mprotect-write")) {
			p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
			if (p == MAP_FAILED)
				return report(errno);
			e = mprotect(p, page, PROT_READ | PROT_WRITE) ? errno : 0;
			munmap(p, page);
			return report(e);
		}
		if (!strcmp(cmd, "hold")) {
			size_t len = (size_t)c.ctrl_pages * page;

			signal(SIGTERM, on_signal);
			signal(SIGINT, on_signal);
			p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
			if (p == MAP_FAILED)
				return report(errno);
			close(fd);	/* the mapping alone must pin the module */
			printf("held\n");
			fflush(stdout);
			while (!stop)
				sleep(1);
			munmap(p, len);
			return report(0);
		}
	}
	fprintf(stderr, "usage: guestprobe write FILE VALUE | load KO [PARAMS] | open | open2 |\n"
		"       mmap-write | mprotect-write | mmap-data-write | mmap-past-end |\n"
		"       mmap-consumer | hold\n");
	return 2;
}

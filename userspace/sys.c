// SPDX-License-Identifier: MIT
/*
 * System call wrappers: nothing but the call and errno -> -errno, so that
 * tests can replace them one by one (-Wl,--wrap=ksnap_sys_open, ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sys.h"

int ksnap_sys_open(const char *path, int flags, mode_t mode)
{
	int fd = open(path, flags, mode);

	return fd < 0 ? -errno : fd;
}

int ksnap_sys_close(int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

int ksnap_sys_fstat(int fd, struct stat *st)
{
	return fstat(fd, st) < 0 ? -errno : 0;
}

int ksnap_sys_stat(const char *path, struct stat *st)
{
	return stat(path, st) < 0 ? -errno : 0;
}

int ksnap_sys_access(const char *path, int mode)
{
	return access(path, mode) < 0 ? -errno : 0;
}

int ksnap_sys_mmap(void **addr, size_t len, int prot, int flags, int fd,
		   off_t offset)
{
	void *p = mmap(NULL, len, prot, flags, fd, offset);

	if (p == MAP_FAILED)
		return -errno;
	*addr = p;
	return 0;
}

int ksnap_sys_munmap(void *addr, size_t len)
{
	return munmap(addr, len) < 0 ? -errno : 0;
}

int ksnap_sys_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	int n = poll(fds, nfds, timeout_ms);

	return n < 0 ? -errno : n;
}

ssize_t ksnap_sys_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

ssize_t ksnap_sys_write(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : n;
}

int ksnap_sys_fsync(int fd)
{
	return fsync(fd) < 0 ? -errno : 0;
}

off_t ksnap_sys_lseek(int fd, off_t offset, int whence)
{
	off_t o = lseek(fd, offset, whence);

	return o < 0 ? -errno : o;
}

int ksnap_sys_ftruncate(int fd, off_t length)
{
	return ftruncate(fd, length) < 0 ? -errno : 0;
}

void ksnap_sys_yield(void)
{
	sched_yield();
}

long ksnap_sys_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_ring.h"
#include "fake_sys.h"
#include "sys.h"

struct fake_sys fake_sys;

int __real_ksnap_sys_open(const char *path, int flags, mode_t mode);
int __real_ksnap_sys_close(int fd);
int __real_ksnap_sys_ioctl(int fd, unsigned long req, void *arg);
int __real_ksnap_sys_fstat(int fd, struct stat *st);
int __real_ksnap_sys_stat(const char *path, struct stat *st);
int __real_ksnap_sys_access(const char *path, int mode);
int __real_ksnap_sys_mmap(void **addr, size_t len, int prot, int flags,
			  int fd, off_t offset);
int __real_ksnap_sys_munmap(void *addr, size_t len);
int __real_ksnap_sys_ioctl(int fd, unsigned long request, void *arg);
int __real_ksnap_sys_poll(struct pollfd *fds, nfds_t nfds, int timeout);
ssize_t __real_ksnap_sys_read(int fd, void *buf, size_t len);
ssize_t __real_ksnap_sys_write(int fd, const void *buf, size_t len);
int __real_ksnap_sys_fsync(int fd);
off_t __real_ksnap_sys_lseek(int fd, off_t offset, int whence);
int __real_ksnap_sys_ftruncate(int fd, off_t length);
void __real_ksnap_sys_yield(void);
long __real_ksnap_sys_page_size(void);

void fake_sys_reset(void)
{
	free(fake_sys.wbuf);
	memset(&fake_sys, 0, sizeof(fake_sys));
}

int __wrap_ksnap_sys_open(const char *path, int flags, mode_t mode)
{
	fake_sys.open_calls++;
	if (fake_sys.nr_opened < 8) {
		int k = fake_sys.nr_opened++;

		snprintf(fake_sys.opened[k], sizeof(fake_sys.opened[k]), "%s",
			 path);
		fake_sys.opened_flags[k] = flags;
		fake_sys.opened_at[k] = fake_sys.wlen;
	}
	if (fake_sys.open_err)
		return fake_sys.open_err;
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
		int i;

		for (i = 0; i < 4; i++)
			if (fake_sys.exists[i] &&
			    !strcmp(fake_sys.exists[i], path))
				return -EEXIST;
	}
	if (fake_sys.mem)
		return FAKE_DEV_FD;
	return __real_ksnap_sys_open(path, flags, mode);
}

int __wrap_ksnap_sys_close(int fd)
{
	fake_sys.close_calls++;
	if (fd == FAKE_DEV_FD)
		return 0;
	return __real_ksnap_sys_close(fd);
}

int __wrap_ksnap_sys_fstat(int fd, struct stat *st)
{
	if (fd == FAKE_DEV_FD) {
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFCHR | 0600;
		return 0;
	}
	return __real_ksnap_sys_fstat(fd, st);
}

int __wrap_ksnap_sys_stat(const char *path, struct stat *st)
{
	if (fake_sys.stat_same)
		return __wrap_ksnap_sys_fstat(FAKE_DEV_FD, st);
	return __real_ksnap_sys_stat(path, st);
}

int __wrap_ksnap_sys_access(const char *path, int mode)
{
	snprintf(fake_sys.accessed, sizeof(fake_sys.accessed), "%s", path);
	fake_sys.access_calls++;
	if (fake_sys.access_err)
		return fake_sys.access_err;
	return __real_ksnap_sys_access(path, mode);
}

int __wrap_ksnap_sys_mmap(void **addr, size_t len, int prot, int flags,
			  int fd, off_t offset)
{
	fake_sys.mmap_calls++;
	if (fake_sys.mmap_fail_at == fake_sys.mmap_calls)
		return fake_sys.mmap_err;
	if (fd == FAKE_DEV_FD) {
		if ((size_t)offset + len > fake_sys.mem_len)
			return -EINVAL;
		*addr = (char *)fake_sys.mem + offset;
		if (prot & PROT_WRITE)
			fake_sys.mmap_prot_rw = *addr;
		return 0;
	}
	return __real_ksnap_sys_mmap(addr, len, prot, flags, fd, offset);
}

int __wrap_ksnap_sys_ioctl(int fd, unsigned long request, void *arg)
{
	fake_sys.ioctl_calls++;
	if (fake_sys.ioctl_hook)
		return fake_sys.ioctl_hook(fd, request, arg);
	if (fake_sys.ioctl_err)
		return fake_sys.ioctl_err;
	if (fake_sys.ring)
		return fake_ring_ioctl(fake_sys.ring, request, arg);
	return __real_ksnap_sys_ioctl(fd, request, arg);
}

int __wrap_ksnap_sys_munmap(void *addr, size_t len)
{
	fake_sys.munmap_calls++;
	if (fake_sys.mem && (char *)addr >= (char *)fake_sys.mem &&
	    (char *)addr < (char *)fake_sys.mem + fake_sys.mem_len)
		return 0;
	return __real_ksnap_sys_munmap(addr, len);
}

int __wrap_ksnap_sys_poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	fake_sys.poll_calls++;
	if (fake_sys.poll_hook)
		return fake_sys.poll_hook(fds, nfds, timeout);
	return __real_ksnap_sys_poll(fds, nfds, timeout);
}

ssize_t __wrap_ksnap_sys_read(int fd, void *buf, size_t len)
{
	return __real_ksnap_sys_read(fd, buf, len);
}

ssize_t __wrap_ksnap_sys_write(int fd, const void *buf, size_t len)
{
	fake_sys.write_calls++;
	if (fake_sys.write_err)
		return fake_sys.write_err;
	if (fake_sys.write_eintr) {
		fake_sys.write_eintr--;
		return -EINTR;
	}
	if (fake_sys.write_eagain) {
		fake_sys.write_eagain--;
		return -EAGAIN;
	}
	if (!fake_sys.capture)
		return __real_ksnap_sys_write(fd, buf, len);
	if (fake_sys.write_max && len > fake_sys.write_max)
		len = fake_sys.write_max;
	if (fake_sys.space_limited) {
		if (fake_sys.wlen >= fake_sys.space) {
			fake_sys.enospc_calls++;
			return -ENOSPC;
		}
		if (len > fake_sys.space - fake_sys.wlen)
			len = fake_sys.space - fake_sys.wlen;
	}
	if (fake_sys.wlen + len + 1 > fake_sys.wcap) {
		size_t cap = (fake_sys.wlen + len + 1) * 2;

		fake_sys.wbuf = realloc(fake_sys.wbuf, cap);
		if (!fake_sys.wbuf)
			abort();
		fake_sys.wcap = cap;
	}
	memcpy(fake_sys.wbuf + fake_sys.wlen, buf, len);
	fake_sys.wlen += len;
	fake_sys.wbuf[fake_sys.wlen] = '\0';
	return (ssize_t)len;
}

int __wrap_ksnap_sys_fsync(int fd)
{
	__atomic_fetch_add(&fake_sys.fsync_calls, 1, __ATOMIC_SEQ_CST);
	if (fake_sys.fsync_hook)
		return fake_sys.fsync_hook(fd);
	if (fake_sys.fsync_eintr) {
		fake_sys.fsync_eintr--;
		return -EINTR;
	}
	if (fake_sys.capture)
		return 0;
	return __real_ksnap_sys_fsync(fd);
}

off_t __wrap_ksnap_sys_lseek(int fd, off_t offset, int whence)
{
	fake_sys.lseek_calls++;
	if (!fake_sys.capture)
		return __real_ksnap_sys_lseek(fd, offset, whence);
	if (whence == SEEK_CUR || whence == SEEK_END)
		return (off_t)fake_sys.wlen + offset;
	if (whence == SEEK_SET && (size_t)offset <= fake_sys.wlen)
		return offset;
	return -EINVAL;
}

int __wrap_ksnap_sys_ftruncate(int fd, off_t length)
{
	fake_sys.ftruncate_calls++;
	if (!fake_sys.capture)
		return __real_ksnap_sys_ftruncate(fd, length);
	if (length < 0 || (size_t)length > fake_sys.wlen)
		return -EINVAL;
	fake_sys.wlen = (size_t)length;
	if (fake_sys.wbuf)
		fake_sys.wbuf[fake_sys.wlen] = '\0';
	return 0;
}

void __wrap_ksnap_sys_yield(void)
{
	fake_sys.yield_calls++;
	if (fake_sys.yield_hook)
		fake_sys.yield_hook();
}

long __wrap_ksnap_sys_page_size(void)
{
	return __real_ksnap_sys_page_size();
}

int __real_ksnap_sys_journal_sendv(const struct iovec *iov, int n);
int __wrap_ksnap_sys_journal_sendv(const struct iovec *iov, int n)
{
	fake_sys.journal_calls++;
	if (fake_sys.journal_hook)
		return fake_sys.journal_hook(iov, n);
	return __real_ksnap_sys_journal_sendv(iov, n);
}

// SPDX-License-Identifier: MIT
/*
 * System call wrappers: nothing but the call and errno -> -errno, so that
 * tests can replace them one by one (-Wl,--wrap=ksnap_sys_open, ...).
 */
#define _GNU_SOURCE	/* accept4() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
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

int ksnap_sys_ioctl(int fd, unsigned long req, void *arg)
{
	int ret = ioctl(fd, req, arg);

	return ret < 0 ? -errno : ret;
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

int ksnap_sys_socket(int domain, int type, int protocol)
{
	int fd = socket(domain, type, protocol);

	return fd < 0 ? -errno : fd;
}

int ksnap_sys_bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	return bind(fd, addr, len) < 0 ? -errno : 0;
}

int ksnap_sys_listen(int fd, int backlog)
{
	return listen(fd, backlog) < 0 ? -errno : 0;
}

int ksnap_sys_accept(int fd, int flags)
{
	int c = accept4(fd, NULL, NULL, flags);

	return c < 0 ? -errno : c;
}

int ksnap_sys_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	return connect(fd, addr, len) < 0 ? -errno : 0;
}

ssize_t ksnap_sys_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	ssize_t n = sendmsg(fd, msg, flags);

	return n < 0 ? -errno : n;
}

ssize_t ksnap_sys_recvmsg(int fd, struct msghdr *msg, int flags)
{
	ssize_t n = recvmsg(fd, msg, flags);

	return n < 0 ? -errno : n;
}

int ksnap_sys_setsockopt(int fd, int level, int name, const void *val,
			 socklen_t len)
{
	return setsockopt(fd, level, name, val, len) < 0 ? -errno : 0;
}

int ksnap_sys_unlink(const char *path)
{
	return unlink(path) < 0 ? -errno : 0;
}

int ksnap_sys_mkdir(const char *path, mode_t mode)
{
	return mkdir(path, mode) < 0 ? -errno : 0;
}

int ksnap_sys_chmod(const char *path, mode_t mode)
{
	return chmod(path, mode) < 0 ? -errno : 0;
}

int ksnap_sys_fchmod(int fd, mode_t mode)
{
	return fchmod(fd, mode) < 0 ? -errno : 0;
}

int ksnap_sys_rename(const char *from, const char *to)
{
	return rename(from, to) < 0 ? -errno : 0;
}

static int not_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
}

int ksnap_sys_list_dir(const char *dir, char ***names)
{
	struct dirent **list;
	int n, i;

	n = scandir(dir, &list, not_dots, NULL);
	if (n < 0)
		return -errno;
	*names = malloc(sizeof(**names) * (size_t)(n ? n : 1));
	for (i = 0; i < n; i++) {
		if (*names)
			(*names)[i] = strdup(list[i]->d_name);
		if (*names && !(*names)[i]) {
			while (i--)
				free((*names)[i]);
			free(*names);
			*names = NULL;
		}
		free(list[i]);
	}
	free(list);
	return *names ? n : -ENOMEM;
}

int ksnap_sys_nanosleep(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	return nanosleep(&ts, NULL) < 0 ? -errno : 0;
}

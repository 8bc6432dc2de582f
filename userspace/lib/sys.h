/* SPDX-License-Identifier: MIT */
/*
 * Thin wrappers over the system calls ksnapd makes.  Each returns what the
 * system call returns on success and -errno on failure (mmap: MAP_FAILED
 * becomes an error return through *addr).  They live in their own object so
 * the cmocka tests can replace them with -Wl,--wrap=ksnap_sys_<name>.
 */
#ifndef KSNAP_SYS_H
#define KSNAP_SYS_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

int ksnap_sys_open(const char *path, int flags, mode_t mode);
int ksnap_sys_close(int fd);
int ksnap_sys_fstat(int fd, struct stat *st);
int ksnap_sys_stat(const char *path, struct stat *st);
int ksnap_sys_access(const char *path, int mode);
/* On success stores the mapping in *addr and returns 0. */
int ksnap_sys_mmap(void **addr, size_t len, int prot, int flags, int fd,
		   off_t offset);
int ksnap_sys_munmap(void *addr, size_t len);
/* Returns what ioctl() returns (0 for ksnap's). */
int ksnap_sys_ioctl(int fd, unsigned long request, void *arg);
int ksnap_sys_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms);
ssize_t ksnap_sys_read(int fd, void *buf, size_t len);
ssize_t ksnap_sys_write(int fd, const void *buf, size_t len);
int ksnap_sys_fsync(int fd);
off_t ksnap_sys_lseek(int fd, off_t offset, int whence);
int ksnap_sys_ftruncate(int fd, off_t length);
/* Called while spinning on an odd seqlock: lets the writer finish. */
void ksnap_sys_yield(void);
long ksnap_sys_page_size(void);
/* The control socket (ctlsock.c) and ksnapd --slice. */
int ksnap_sys_socket(int domain, int type, int protocol);
int ksnap_sys_bind(int fd, const struct sockaddr *addr, socklen_t len);
int ksnap_sys_listen(int fd, int backlog);
/* accept4() with flags; returns the new descriptor. */
int ksnap_sys_accept(int fd, int flags);
int ksnap_sys_connect(int fd, const struct sockaddr *addr, socklen_t len);
ssize_t ksnap_sys_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t ksnap_sys_recvmsg(int fd, struct msghdr *msg, int flags);
int ksnap_sys_setsockopt(int fd, int level, int name, const void *val,
			 socklen_t len);
int ksnap_sys_unlink(const char *path);
int ksnap_sys_chmod(const char *path, mode_t mode);
int ksnap_sys_fchmod(int fd, mode_t mode);
int ksnap_sys_rename(const char *from, const char *to);
int ksnap_sys_mkdir(const char *path, mode_t mode);
int ksnap_sys_nanosleep(uint64_t ns);
/* The names in directory dir but "." and "..", each malloc'ed, in a
 * malloc'ed *names (scandir(3), unsorted); returns how many. */
int ksnap_sys_list_dir(const char *dir, char ***names);
/* sd_journal_sendv(): one journal entry of n fields; -ENOSYS when built
 * without libsystemd (KSNAP_HAVE_SD_JOURNAL).  In sys_journal.c, so that
 * only what writes to the journal links libsystemd. */
int ksnap_sys_journal_sendv(const struct iovec *iov, int n);

#endif /* KSNAP_SYS_H */

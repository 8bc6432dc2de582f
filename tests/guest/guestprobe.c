// SPDX-License-Identifier: GPL-2.0
/*
 * guestprobe: the system calls the guest tests need that busybox can't make
 * with a checkable errno.  Each subcommand prints one word: "ok" or the
 * errno's name (EBUSY, EINVAL...), and exits 0 on success, 1 on failure,
 * 2 on a usage error.
 *
 *   guestprobe write FILE VALUE      write(2) VALUE plus a newline, one call
 *                                    ("short:W/N" if only W of N bytes
 *                                    were taken; so for write-hex, write-n)
 *   guestprobe nswrite CGDIR FILE VALUE  the same, from inside the cgroup
 *                                    CGDIR and a new cgroup namespace there
 *   guestprobe load KO [PARAMS]      finit_module(2) with PARAMS
 *   guestprobe unload NAME           delete_module(2), O_NONBLOCK as rmmod:
 *                                    a module in use is EAGAIN (EWOULDBLOCK)
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
 *   guestprobe handshake             the reader session's done and seen
 *                                    ioctl()s against starts and stops, a
 *                                    consumer page full of garbage, bad
 *                                    values and a query handle (with the
 *                                    module stopped and no reader): one
 *                                    "step result" a line (handshake())
 *
 * Fault and abuse tests (tests/guest/faults.sh, abuse.sh, stress.sh):
 *
 *   guestprobe ctrl                  the control page's figures, one
 *                                    "key value" a line, named as the
 *                                    files of the stats/ directory (plus head,
 *                                    tail, start_position, nr_records,
 *                                    reader_done_base)
 *   guestprobe column SET INDEX [dirty]
 *                                    KSNAP_IOC_COLUMN for column INDEX of
 *                                    SET ("cur": the module's set_id,
 *                                    "old": the one before, or a number;
 *                                    dirty: a reserved field set): "ok",
 *                                    then "set N nr_columns C", then the
 *                                    metric, field and value a line each;
 *                                    or the errno
 *   guestprobe layout                "ctrl_pages consumer_pgoff data_pgoff
 *                                    data_pages total_pages page_size"
 *   guestprobe map PGOFF NPAGES ro|rw|private
 *                                    mmap(2) of the device (private: a
 *                                    MAP_PRIVATE read-write one): ok or
 *                                    errno
 *   guestprobe map-bytes OFFSET LEN  read-only mmap at a byte offset
 *   guestprobe mremap ctrl|consumer|data
 *                                    map that region, mremap(2) it one page
 *                                    larger (MREMAP_MAYMOVE): ok or errno
 *   guestprobe set-tail behind|ahead|ones|head N
 *                                    store that tail in the consumer page,
 *                                    hold it until N more snapshots were
 *                                    taken (at most 60 s), put the tail
 *                                    back at head; prints "taken T lost L
 *                                    bad_tail B" (the increases meanwhile)
 *                                    on a second line.
 *                                    behind: first reads the collection
 *                                    until head is more than a ring past
 *                                    its start (at most 60 s), then stores
 *                                    a tail one more than a ring behind
 *   guestprobe records SECONDS       a minimal reader: one line per record
 *                                    "seq time_ns flags v0 v1 ...", until
 *                                    the collection stops and is drained
 *                                    (then it is reported done) or
 *                                    SECONDS pass; last line "end N"
 *   guestprobe reads SECONDS         the same reader, one line per record
 *                                    "seq read_ns" (the time the kernel
 *                                    spent reading it)
 *   guestprobe sets SECONDS          the same reader, one line per record
 *                                    "seq set_id flags", and before a
 *                                    set's first record, the cgroups of
 *                                    its cpu.stat.usage columns, asked
 *                                    for then: "set ID cgroups A B ..."
 *                                    (an errno's name after them: the
 *                                    set could not be named whole); last
 *                                    line "end N skipped K overwritten O":
 *                                    K of the N records were of sets it
 *                                    could not name (a reader of values,
 *                                    as ksnapd, skips and counts them),
 *                                    O positions it jumped over unread
 *   guestprobe write-n FILE CHAR N   one write(2) of N times CHAR
 *   guestprobe write-hex FILE HEX    one write(2) of the bytes HEX ("" is
 *                                    a zero-length write)
 *   guestprobe as UID PROG [ARG...]  setgid/setuid(UID), then exec PROG
 *   guestprobe toggle N              write 1 then 0 to enable N times;
 *                                    prints "start_ok S start_ebusy B
 *                                    stop_ok T other O"
 *   guestprobe churn SECONDS SEED    open, map, poll, read, close the
 *                                    device in a loop; prints counts
 *   guestprobe stress SEED SECONDS   random knob writes, device calls,
 *                                    ksnapd runs and kills (see stress())
 *
 * Built statically by scripts/guest into build/guest/bin/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <grp.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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
	case EDQUOT: return "EDQUOT";
	case EROFS: return "EROFS";
	case EISDIR: return "EISDIR";
	case ESTALE: return "ESTALE";
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

/* The whole device mapped as a reader maps it. */
struct dev {
	int fd;
	long page;
	struct ksnap_ctrl *ctrl;	/* [0, total_pages) read-only */
	struct ksnap_consumer *cons;	/* the consumer page, read-write */
	size_t len;
};

/* Generation, state and start position, read under the seqlock. */
static void dev_coll(const struct dev *d, uint32_t *gen, uint32_t *state,
		     uint64_t *start)
{
	uint32_t seq;

	do {
		seq = __atomic_load_n(&d->ctrl->seq, __ATOMIC_ACQUIRE);
		*gen = d->ctrl->generation;
		*state = d->ctrl->state;
		*start = d->ctrl->start_position;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) ||
		 seq != __atomic_load_n(&d->ctrl->seq, __ATOMIC_RELAXED));
}

/* KSNAP_IOC_DONE on fd: 0 or the errno. */
static int ioc_done(int fd, uint32_t gen, uint32_t reserved)
{
	struct ksnap_done dn = { .generation = gen, .reserved = reserved };

	return ioctl(fd, KSNAP_IOC_DONE, &dn) ? errno : 0;
}

/* KSNAP_IOC_ENABLE on fd: 0 or the errno. */
static int ioc_enable(int fd, uint32_t on, uint32_t flags, uint64_t reserved)
{
	struct ksnap_enable en = {
		.on = on, .flags = flags, .reserved = reserved,
	};

	return ioctl(fd, KSNAP_IOC_ENABLE, &en) ? errno : 0;
}

/* KSNAP_IOC_SEEN on fd: 0 or the errno. */
static int ioc_seen(int fd, uint32_t gen, uint32_t state)
{
	struct ksnap_seen sn = { .generation = gen, .state = state };

	return ioctl(fd, KSNAP_IOC_SEEN, &sn) ? errno : 0;
}

/* Begin this session as ksnapd does (ring.c): report what is seen now. */
static int dev_begin(struct dev *d)
{
	uint32_t gen, state;
	uint64_t start;
	int e;

	dev_coll(d, &gen, &state, &start);
	e = ioc_seen(d->fd, gen, state);
	if (e)
		fprintf(stderr, "guestprobe: KSNAP_IOC_SEEN %u %u: %s\n", gen,
			state, strerror(e));
	return e;
}

/* Open and map as a reader; the session begun when @begin. */
static int dev_map_session(struct dev *d, bool begin)
{
	struct ksnap_ctrl c;
	void *p;

	d->page = sysconf(_SC_PAGESIZE);
	d->fd = open(KSNAP_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	if (read_ctrl(d->fd, &c)) {
		close(d->fd);
		return -EPROTO;
	}
	d->len = (size_t)c.total_pages * d->page;
	p = mmap(NULL, d->len, PROT_READ, MAP_SHARED, d->fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	d->ctrl = p;
	p = mmap(NULL, d->page, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd,
		 (off_t)c.consumer_pgoff * d->page);
	if (p == MAP_FAILED) {
		munmap(d->ctrl, d->len);
		goto fail;
	}
	d->cons = p;
	if (begin && dev_begin(d)) {
		munmap(d->cons, d->page);
		munmap(d->ctrl, d->len);
		close(d->fd);
		return -EPROTO;
	}
	return 0;
fail:
	fprintf(stderr, "guestprobe: mmap: %s\n", strerror(errno));
	close(d->fd);
	return -errno;
}

static int dev_map(struct dev *d)
{
	return dev_map_session(d, true);
}

static void dev_unmap(struct dev *d)
{
	munmap(d->cons, d->page);
	munmap(d->ctrl, d->len);
	close(d->fd);
}

static void print_stats(const struct ksnap_ctrl *c, const char *sep)
{
	const struct ksnap_stats *st = &c->stats;

	printf("taken %llu%slost %llu%smissed %llu%sbad_tail %llu%s"
	       "generation %u%sstate %s%s",
	       (unsigned long long)__atomic_load_n(&st->taken, __ATOMIC_RELAXED), sep,
	       (unsigned long long)__atomic_load_n(&st->lost, __ATOMIC_RELAXED), sep,
	       (unsigned long long)__atomic_load_n(&st->missed, __ATOMIC_RELAXED), sep,
	       (unsigned long long)__atomic_load_n(&st->bad_tail, __ATOMIC_RELAXED), sep,
	       c->generation, sep,
	       c->state == KSNAP_STATE_RUNNING ? "running" : "stopped", sep);
}

static int cmd_ctrl(void)
{
	struct dev d;
	int ret = dev_map(&d);

	if (ret)
		return report(-ret);
	print_stats(d.ctrl, "\n");
	printf("head %llu\ntail %llu\nstart_position %llu\nnr_records %u\n"
	       "reader_done_base %u\n",
	       (unsigned long long)__atomic_load_n(&d.ctrl->head, __ATOMIC_ACQUIRE),
	       (unsigned long long)d.cons->tail,
	       (unsigned long long)d.ctrl->start_position, d.ctrl->nr_records,
	       d.ctrl->reader_done_base);
	dev_unmap(&d);
	return 0;
}

static double now_s(void);

/*
 * A tail more than a ring behind head within the collection: a tail below
 * the collection's start is not bad (it is the start), so read until head
 * is far enough past the start.  Returns the tail, or head - nr - 1
 * wrapped below the start when head did not get there in 60 s (then the
 * kernel counts no bad tail, and the test says so).
 */
static uint64_t behind_tail(struct dev *d)
{
	uint64_t nr = d->ctrl->nr_records, start, head;
	double end = now_s() + 60;
	uint32_t gen, state;

	dev_coll(d, &gen, &state, &start);
	for (;;) {
		head = __atomic_load_n(&d->ctrl->head, __ATOMIC_ACQUIRE);
		if (head - start > nr + 1 || now_s() > end)
			return head - nr - 1;
		__atomic_store_n(&d->cons->tail, head, __ATOMIC_RELEASE);
		usleep(10000);
	}
}

static int cmd_set_tail(const char *mode, uint64_t n)
{
	double end;
	struct ksnap_stats before, after;
	uint64_t head, tail;
	struct dev d;
	int ret = dev_map(&d);

	if (ret)
		return report(-ret);
	head = __atomic_load_n(&d.ctrl->head, __ATOMIC_ACQUIRE);
	if (!strcmp(mode, "behind"))
		tail = behind_tail(&d);
	else if (!strcmp(mode, "ahead"))
		tail = head + 1000000;
	else if (!strcmp(mode, "ones"))
		tail = ~0ULL;
	else
		tail = head;
	memcpy(&before, (const void *)&d.ctrl->stats, sizeof(before));
	__atomic_store_n(&d.cons->tail, tail, __ATOMIC_RELEASE);
	/* As many snapshots as asked, however long they take to come. */
	end = now_s() + 60;
	while (__atomic_load_n(&d.ctrl->stats.taken, __ATOMIC_RELAXED) -
	       before.taken < n && now_s() < end)
		usleep(10000);
	memcpy(&after, (const void *)&d.ctrl->stats, sizeof(after));
	/* Back to a valid tail: nothing unread. */
	__atomic_store_n(&d.cons->tail,
			 __atomic_load_n(&d.ctrl->head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	printf("ok\ntaken %llu lost %llu bad_tail %llu\n",
	       (unsigned long long)(after.taken - before.taken),
	       (unsigned long long)(after.lost - before.lost),
	       (unsigned long long)(after.bad_tail - before.bad_tail));
	dev_unmap(&d);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A minimal reader, for the record headers ksnapd does not write out. */
/*
 * The cgroups of set @set_id's cpu.stat.usage columns, as its reader asks
 * for them when it first meets the set in a record: "set ID cgroups A B",
 * or "set ID cgroups [A B...] ERRNAME" when the module no longer names it
 * (ESTALE: the reader fell more set changes behind than the module keeps).
 * Returns 0 when the set was named whole, else the errno.
 */
static int print_set(int fd, uint32_t set_id)
{
	struct ksnap_column_info *ci = calloc(1, sizeof(*ci));
	uint32_t i;
	int e = 0;

	if (!ci) {
		printf("set %u cgroups ENOMEM\n", set_id);
		fflush(stdout);
		return ENOMEM;
	}
	printf("set %u cgroups", set_id);
	for (i = 0; ; i++) {
		memset(ci, 0, sizeof(*ci));
		ci->set_id = set_id;
		ci->index = i;
		if (ioctl(fd, KSNAP_IOC_COLUMN, ci)) {
			e = errno;
			break;
		}
		if (!strcmp(ci->metric, "cpu.stat.usage") &&
		    !strcmp(ci->field, "cgroup"))
			printf(" %s", ci->value);
	}
	if (e != ENOENT)
		printf(" %s", errname(e));
	printf("\n");
	fflush(stdout);
	free(ci);
	return e == ENOENT ? 0 : e;
}

static int cmd_records(double secs, bool reads, bool sets)
{
	uint32_t last_set = 0;
	bool set_named = false;
	double end = now_s() + secs;
	uint64_t n = 0, skipped = 0, overwritten = 0;
	struct dev d;
	int ret = dev_map(&d);

	if (ret)
		return report(-ret);
	while (now_s() < end) {
		struct pollfd p = { .fd = d.fd, .events = POLLIN };
		uint64_t head, tail, start;
		uint32_t gen, state;

		poll(&p, 1, 100);
		dev_coll(&d, &gen, &state, &start);
		head = __atomic_load_n(&d.ctrl->head, __ATOMIC_ACQUIRE);
		tail = d.cons->tail;
		if (tail < start)
			tail = start;
		if (tail > head) {
			tail = head;
		} else if (head - tail > d.ctrl->nr_records) {
			/* Overwritten (overflow=overwrite): jumped, counted. */
			overwritten += head - tail;
			tail = head;
		}
		for (; tail != head; tail++) {
			const struct ksnap_record *r = (const void *)
				((const char *)d.ctrl +
				 (size_t)d.ctrl->data_pgoff * d.page +
				 (size_t)(tail % d.ctrl->nr_records) *
				 d.ctrl->record_size);
			const __u64 *v;
			uint32_t i;

			if (reads) {
				printf("%llu %u\n", (unsigned long long)r->seq,
				       r->read_ns);
				n++;
				continue;
			}
			if (sets) {
				if (r->set_id != last_set)
					set_named = !print_set(d.fd, r->set_id);
				last_set = r->set_id;
				if (!set_named)
					skipped++;
				printf("%llu %u %u\n", (unsigned long long)r->seq,
				       r->set_id, r->flags);
				n++;
				continue;
			}
			/* The values where the record says they are. */
			v = (const __u64 *)((const char *)r + r->values_offset);
			printf("%llu %llu %u", (unsigned long long)r->seq,
			       (unsigned long long)r->time_ns, r->flags);
			for (i = 0; i < d.ctrl->nr_columns; i++)
				printf(" %llu", (unsigned long long)v[i]);
			printf("\n");
			n++;
		}
		__atomic_store_n(&d.cons->tail, tail, __ATOMIC_RELEASE);
		ret = ioc_seen(d.fd, gen, state);
		if (!ret && state == KSNAP_STATE_STOPPED && gen && n)
			ret = ioc_done(d.fd, gen, 0);
		if (ret) {
			fprintf(stderr, "guestprobe: records: %s\n",
				strerror(ret));
			break;
		}
		if (state == KSNAP_STATE_STOPPED && gen && n)
			break;
	}
	if (sets)
		printf("end %llu skipped %llu overwritten %llu\n",
		       (unsigned long long)n, (unsigned long long)skipped,
		       (unsigned long long)overwritten);
	else
		printf("end %llu\n", (unsigned long long)n);
	dev_unmap(&d);
	return 0;
}

/*
 * One write(2) of n bytes: "ok" when all n were taken (0 for n == 0),
 * the errno's name on failure, "short:W/N" when only W were: a knob takes
 * a value whole or refuses it, so a partial write is a result to see.
 */
static int write_buf(const char *path, const char *buf, size_t n)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e;
	ssize_t w;

	if (fd < 0)
		return report(errno);
	w = write(fd, buf, n);
	e = w < 0 ? errno : 0;
	close(fd);
	if (w >= 0 && (size_t)w != n) {
		printf("short:%zd/%zu\n", w, n);
		return 1;
	}
	return report(e);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Move into the cgroup CGDIR, enter a new cgroup namespace (rooted there)
 * and write VALUE to PATH as write does: a knob written from inside a
 * container's cgroup namespace.
 */
static int cmd_nswrite(const char *cgdir, const char *path, const char *value)
{
	char procs[4096], buf[4096];
	int fd, n;
	ssize_t w;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgdir);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "nswrite: %s: %s\n", procs, strerror(errno));
		return 2;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	w = write(fd, buf, n);
	close(fd);
	if (w != n) {
		fprintf(stderr, "nswrite: moving into %s failed\n", cgdir);
		return 2;
	}
	if (unshare(CLONE_NEWCGROUP)) {
		fprintf(stderr, "nswrite: unshare(CLONE_NEWCGROUP): %s\n",
			strerror(errno));
		return 2;
	}
	n = snprintf(buf, sizeof(buf), "%s\n", value);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return 2;
	return write_buf(path, buf, n);
}

static int cmd_write_hex(const char *path, const char *hex)
{
	char buf[4096];
	size_t n = 0;

	while (hex[0] && hex[1] && n < sizeof(buf)) {
		int hi = hexval(hex[0]), lo = hexval(hex[1]);

		if (hi < 0 || lo < 0)
			return 2;
		buf[n++] = (char)(hi << 4 | lo);
		hex += 2;
	}
	return write_buf(path, buf, n);
}

static int cmd_write_n(const char *path, char c, size_t n)
{
	char *buf = malloc(n + 1);
	int ret;

	if (!buf)
		return 3;
	memset(buf, c, n);
	ret = write_buf(path, buf, n);
	free(buf);
	return ret;
}

/* FILE's bytes to PATH in one write(): how a knob takes a long value. */
static int cmd_write_file(const char *path, const char *file)
{
	char *buf = malloc(1 << 20);
	int fd = open(file, O_RDONLY | O_CLOEXEC), ret;
	ssize_t n;

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return 3;
	}
	n = read(fd, buf, 1 << 20);
	close(fd);
	ret = n < 0 ? 3 : write_buf(path, buf, (size_t)n);
	free(buf);
	return ret;
}

static int cmd_mremap(const char *which)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ksnap_ctrl c;
	unsigned long pgoff, pages;
	int prot = PROT_READ, fd, e;
	void *p, *q;

	fd = open_dev();
	if (fd < 0)
		return report(errno);
	if (read_ctrl(fd, &c))
		return 3;
	if (!strcmp(which, "consumer")) {
		pgoff = c.consumer_pgoff;
		pages = 1;
		prot |= PROT_WRITE;
	} else if (!strcmp(which, "data")) {
		pgoff = c.data_pgoff;
		pages = c.data_pages;
	} else {
		pgoff = 0;
		pages = c.ctrl_pages;
	}
	p = mmap(NULL, pages * page, prot, MAP_SHARED, fd, pgoff * page);
	if (p == MAP_FAILED)
		return report(errno);
	q = mremap(p, pages * page, (pages + 1) * page, MREMAP_MAYMOVE);
	e = q == MAP_FAILED ? errno : 0;
	munmap(q == MAP_FAILED ? p : q, (q == MAP_FAILED ? pages : pages + 1) * page);
	close(fd);
	return report(e);
}

/* xorshift64*: the same sequence for the same seed everywhere. */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static unsigned int rnd_below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static void seed_rng(uint64_t seed)
{
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (!rng_state)
		rng_state = 1;
}

/* One reader's visit: open, map, poll, read, maybe move the tail, close. */
static int churn_once(unsigned long *busy, unsigned long *reads_einval)
{
	uint32_t gen, state;
	struct pollfd p;
	uint64_t start;
	struct dev d;
	char buf[16];
	size_t i;
	int ret = dev_map(&d);

	if (ret == -EBUSY) {
		(*busy)++;
		return 0;
	}
	if (ret)
		return ret;
	p.fd = d.fd;
	p.events = POLLIN;
	poll(&p, 1, (int)rnd_below(3));
	if (read(d.fd, buf, sizeof(buf)) < 0)
		(*reads_einval)++;
	switch (rnd_below(4)) {
	case 0:
	case 3:		/* a reader that reads everything */
		__atomic_store_n(&d.cons->tail,
				 __atomic_load_n(&d.ctrl->head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
		dev_coll(&d, &gen, &state, &start);
		ret = ioc_seen(d.fd, gen, state);
		if (!ret && state == KSNAP_STATE_STOPPED)
			ret = ioc_done(d.fd, gen, 0);
		if (ret) {
			fprintf(stderr, "guestprobe: churn: %s\n",
				strerror(ret));
			dev_unmap(&d);
			return -ret;
		}
		break;
	case 1:		/* garbage, the tail and every byte after it */
		d.cons->tail = rnd();
		for (i = 0; i < 4; i++)
			d.cons->reserved0[i] = (uint32_t)rnd();
		for (i = 0; i < 5; i++)
			d.cons->reserved[i] = rnd();
		break;
	default:
		break;
	}
	dev_unmap(&d);
	return 1;
}

static int cmd_churn(double secs, uint64_t seed)
{
	unsigned long opens = 0, busy = 0, rd = 0, errs = 0;
	double end = now_s() + secs;

	seed_rng(seed);
	signal(SIGTERM, on_signal);
	while (now_s() < end && !stop) {
		int r = churn_once(&busy, &rd);

		if (r > 0)
			opens++;
		else if (r < 0)
			errs++;
	}
	printf("opens %lu ebusy %lu read_errors %lu other_errors %lu\n",
	       opens, busy, rd, errs);
	return errs ? 1 : 0;
}

static int knob_write(const char *knob, const char *val)
{
	char path[128], buf[256];
	int fd, n, e;

	snprintf(path, sizeof(path), KSNAP_SYSFS_DIR "/%s", knob);
	n = snprintf(buf, sizeof(buf), "%s\n", val);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	e = write(fd, buf, n) < 0 ? errno : 0;
	close(fd);
	return e;
}

static int cmd_toggle(unsigned long n)
{
	unsigned long s_ok = 0, s_busy = 0, t_ok = 0, other = 0, i;
	int e;

	for (i = 0; i < n; i++) {
		e = knob_write("enable", "1");
		if (!e)
			s_ok++;
		else if (e == EBUSY)
			s_busy++;
		else
			other++;
		e = knob_write("enable", "0");
		if (!e)
			t_ok++;
		else
			other++;
	}
	printf("start_ok %lu start_ebusy %lu stop_ok %lu other %lu\n", s_ok,
	       s_busy, t_ok, other);
	return other ? 1 : 0;
}

/* stats/reader: none, open or attached. */
static const char *reader_stat(void)
{
	static char buf[32];
	FILE *f = fopen(KSNAP_SYSFS_DIR "/stats/reader", "r");

	if (!f || !fgets(buf, sizeof(buf), f))
		snprintf(buf, sizeof(buf), "unreadable");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* poll() of the reader's fd, not waiting: readable or idle. */
static const char *poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) ? "readable" :
	       "idle";
}

static void step(const char *what, const char *result)
{
	printf("%s %s\n", what, result);
}

/*
 * The reader session against starts and stops, with the module stopped
 * and no reader at the beginning (generation G then).  Each line is a
 * step and its result; tests/guest/device-misuse.sh says what each must
 * be.  The consumer page is filled with garbage after the tail: the
 * kernel reads nothing there but the tail, and writes nothing.
 */
static int cmd_handshake(void)
{
	unsigned char page_before[sizeof(struct ksnap_consumer)];
	uint32_t g, g3, state;
	uint64_t start;
	struct dev d;
	int ret, q;

	ret = dev_map_session(&d, false);
	if (ret)
		return report(-ret);
	dev_coll(&d, &g, &state, &start);
	if (state != KSNAP_STATE_STOPPED) {
		fprintf(stderr, "guestprobe: handshake: the module runs\n");
		dev_unmap(&d);
		return 3;
	}
	__atomic_store_n(&d.cons->tail,
			 __atomic_load_n(&d.ctrl->head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	step("reader_before_seen", reader_stat());
	step("poll_before_seen", poll_now(d.fd));
	step("seen_bad_state", errname(ioc_seen(d.fd, g, 2)));
	step("seen_future", errname(ioc_seen(d.fd, g + 1,
					     KSNAP_STATE_RUNNING)));
	step("reader_after_bad_seen", reader_stat());
	step("seen", errname(ioc_seen(d.fd, g, KSNAP_STATE_STOPPED)));
	step("reader_after_seen", reader_stat());
	step("poll_after_seen", poll_now(d.fd));

	/* Collection g + 1: started, stopped, not reported done. */
	step("start1", errname(knob_write("enable", "1")));
	step("seen_stopped_while_running",
	     errname(ioc_seen(d.fd, g + 1, KSNAP_STATE_STOPPED)));
	step("done_running", errname(ioc_done(d.fd, g + 1, 0)));
	step("stop1", errname(knob_write("enable", "0")));
	step("start_not_done", errname(knob_write("enable", "1")));

	/* A version 3 reader's claim, done and seen, and more garbage. */
	__atomic_store_n(&d.cons->tail,
			 __atomic_load_n(&d.ctrl->head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	memset(d.cons->reserved0, 0xff, sizeof(d.cons->reserved0));
	memset(d.cons->reserved, 0x5a, sizeof(d.cons->reserved));
	d.cons->reserved0[0] = 1;			/* session */
	d.cons->reserved0[1] = g + 1;			/* done_generation */
	d.cons->reserved0[2] = KSNAP_GEN_STATE(g + 1, KSNAP_STATE_STOPPED);
	memcpy(page_before, d.cons, sizeof(page_before));
	step("start_garbage", errname(knob_write("enable", "1")));
	step("poll_garbage", poll_now(d.fd));

	/* Bad reports change nothing. */
	step("done_future", errname(ioc_done(d.fd, g + 2, 0)));
	step("done_reserved", errname(ioc_done(d.fd, g + 1, 1)));
	step("start_after_bad_done", errname(knob_write("enable", "1")));

	step("seen_stop", errname(ioc_seen(d.fd, g + 1, KSNAP_STATE_STOPPED)));
	step("poll_seen_stop", poll_now(d.fd));
	step("done", errname(ioc_done(d.fd, g + 1, 0)));
	step("start2", errname(knob_write("enable", "1")));
	step("stop2", errname(knob_write("enable", "0")));
	step("done2", errname(ioc_done(d.fd, g + 2, 0)));

	/* Collection g + 3, through the session: no writable sysfs. */
	step("enable_on_2", errname(ioc_enable(d.fd, 2, 0, 0)));
	step("enable_bad_flag", errname(ioc_enable(d.fd, 1, 2, 0)));
	step("enable_reserved", errname(ioc_enable(d.fd, 1, 0, 1)));
	dev_coll(&d, &g3, &state, &start);
	step("state_after_bad_enables",
	     state == KSNAP_STATE_STOPPED ? "stopped" : "running");
	step("enable_start", errname(ioc_enable(d.fd, 1, 0, 0)));
	dev_coll(&d, &g3, &state, &start);
	step("state_after_enable_start",
	     state == KSNAP_STATE_RUNNING && g3 == g + 3 ? "running" : "other");
	step("enable_stop", errname(ioc_enable(d.fd, 0, 0, 0)));
	dev_coll(&d, &g3, &state, &start);
	step("state_after_enable_stop",
	     state == KSNAP_STATE_STOPPED ? "stopped" : "running");
	step("done3", errname(ioc_done(d.fd, g + 3, 0)));
	step("page_untouched",
	     memcmp(page_before, d.cons, sizeof(page_before)) ? "no" : "yes");

	/* A query handle has no session. */
	q = open(KSNAP_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	step("query_done", q < 0 ? errname(errno) :
	     errname(ioc_done(q, g + 2, 0)));
	step("query_seen", q < 0 ? errname(errno) :
	     errname(ioc_seen(q, g + 2, KSNAP_STATE_STOPPED)));
	step("query_enable", q < 0 ? errname(errno) :
	     errname(ioc_enable(q, 1, 0, 0)));
	if (q >= 0)
		close(q);
	/* What a version 3 reader left is nothing for the next one. */
	memset(d.cons->reserved0, 0, sizeof(d.cons->reserved0));
	memset(d.cons->reserved, 0, sizeof(d.cons->reserved));
	dev_unmap(&d);
	return 0;
}

/*
 * Seeded random stress of the whole interface.  Each step is one of:
 * a knob write (good or garbage values), a reader's visit to the device
 * (maybe with a garbage tail), a ksnapd started and then killed with a
 * random signal after a random time, a stats read.  The sequence of steps
 * is a function of the seed; what each returns depends on timing.
 *
 * The oracle: every knob write's result is checked against the model
 * below wherever it is deterministic.  Only this process writes the
 * knobs, so it knows whether sampling runs and what metrics= and
 * cgroups= were last set to.  The device is open only while a ksnapd
 * child exists (a visit closes it before the next step), so with no
 * child "busy because open" cannot happen; with one, EBUSY is allowed
 * where an open reader may cause it (a start, metrics, cgroups).
 */
static pid_t ksnapd_pid;

/* Signal ksnapd; SIGKILL it if it is still there after 2 s (a SIGHUP
 * only reopens its file, a SIGTERM drains first). */
static void ksnapd_reap(int sig)
{
	int st, i;

	if (ksnapd_pid <= 0)
		return;
	kill(ksnapd_pid, SIGCONT);
	kill(ksnapd_pid, sig);
	for (i = 0; i < 200; i++) {
		if (waitpid(ksnapd_pid, &st, WNOHANG) == ksnapd_pid)
			break;
		usleep(10000);
	}
	if (i == 200) {
		kill(ksnapd_pid, SIGKILL);
		waitpid(ksnapd_pid, &st, 0);
	}
	ksnapd_pid = 0;
}

/* What the stress believes the module's configuration is. */
struct model {
	int running;
	char metrics[256];	/* as last written (metrics_arg) */
	char cgroups[256];
};

static int read_knob(const char *knob, char *buf, size_t size)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KSNAP_SYSFS_DIR "/%s", knob);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int in_list(const char *v, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(v, *list))
			return 1;
	return 0;
}

/* The metrics list names a per-cgroup metric itself (not by default). */
static int names_cgroup_metric(const char *metrics)
{
	return strstr(metrics, "memory.current") != NULL;
}

/*
 * The expected errno of writing @val to @knob, or -2 when it cannot be
 * known; *busy_ok is set when EBUSY is also acceptable.
 */
static int expect_knob(const struct model *m, const char *knob,
		       const char *val, int reader, int *busy_ok)
{
	static const char *const enable_bad[] = { "2", "", "yes", "no", "-1",
						  NULL };
	static const char *const period_ok[] = { "100", "250", "1000", "5000",
						 NULL };
	static const char *const overflow_ok[] = { "drop", "overwrite", NULL };
	static const char *const metrics_bad[] = { "nosuch", ",",
						   "pgfault,,pgfault", NULL };

	*busy_ok = 0;
	if (!strcmp(knob, "enable")) {
		if (in_list(val, enable_bad))
			return EINVAL;
		if (!strcmp(val, "0") || m->running)
			return 0;
		/* A start: refused while a reader holds the previous one. */
		*busy_ok = reader;
		return 0;
	}
	if (!strcmp(knob, "period_us")) {
		if (!in_list(val, period_ok))
			return EINVAL;
		return m->running ? EBUSY : 0;
	}
	if (!strcmp(knob, "overflow")) {
		if (!in_list(val, overflow_ok))
			return EINVAL;
		return m->running ? EBUSY : 0;
	}
	/* metrics and cgroups: busy while running or while open. */
	if (m->running)
		return EBUSY;
	*busy_ok = reader;
	if (!strcmp(knob, "metrics")) {
		if (in_list(val, metrics_bad))
			return EINVAL;
		if (names_cgroup_metric(val) && !m->cgroups[0])
			return EINVAL;
		return 0;
	}
	if (!strcmp(knob, "cgroups")) {
		if (!strcmp(val, "/does/not/exist"))
			return ENOENT;
		if (!strcmp(val, "/ksnapstress,/ksnapstress") ||
		    !strcmp(val, "../.."))
			return EINVAL;
		if (!val[0] && names_cgroup_metric(m->metrics))
			return EINVAL;
		return 0;
	}
	return -2;
}

/* A successful write changes the model. */
static void model_apply(struct model *m, const char *knob, const char *val)
{
	if (!strcmp(knob, "enable"))
		m->running = !strcmp(val, "1");
	else if (!strcmp(knob, "metrics"))
		snprintf(m->metrics, sizeof(m->metrics), "%s", val);
	else if (!strcmp(knob, "cgroups"))
		snprintf(m->cgroups, sizeof(m->cgroups), "%s", val);
}

static int cmd_stress(uint64_t seed, double secs)
{
	static const char *const enable_vals[] = { "1", "0", "1", "0", "2", "",
						   "yes", "no", "-1" };
	static const char *const period_vals[] = { "100", "250", "1000",
		"5000", "0", "5", "abc", "-100", "18446744073709551616",
		"2000000000", " 500", "500 600" };
	static const char *const metric_vals[] = { "pgfault",
		"pgfault,nr_free_pages", "pgfault,memory.current",
		"nr_free_pages", "nosuch", "", ",", "pgfault,,pgfault",
		"memory.current" };
	static const char *const cgroup_vals[] = { "/ksnapstress", "", "/",
		"/does/not/exist", "/ksnapstress,/ksnapstress", "../.." };
	static const char *const overflow_vals[] = { "drop", "overwrite",
						     "lap", "" };
	static const int sigs[] = { SIGKILL, SIGTERM, SIGINT, SIGHUP,
				    SIGSTOP };
	unsigned long steps = 0, knob_ok = 0, knob_err = 0, visits = 0,
		      busy = 0, rd = 0, ksnapds = 0, errs = 0, checked = 0,
		      wrong = 0;
	double end = now_s() + secs;
	struct model m = { 0 };
	char buf[512];
	int fd;

	printf("# stress seed %llu, %.0f s\n", (unsigned long long)seed, secs);
	fflush(stdout);
	if (read_knob("enable", buf, sizeof(buf)) ||
	    read_knob("metrics", m.metrics, sizeof(m.metrics)) ||
	    read_knob("cgroups", m.cgroups, sizeof(m.cgroups))) {
		fprintf(stderr, "guestprobe: stress: cannot read the knobs\n");
		return 1;
	}
	m.running = !strcmp(buf, "1");
	seed_rng(seed);
	signal(SIGPIPE, SIG_IGN);
	while (now_s() < end) {
		unsigned int op = rnd_below(100);
		const char *knob, *val;
		int e = 0, r, want, busy_ok;

		steps++;
		if (op < 30) {
			knob = "enable";
			val = enable_vals[rnd_below(9)];
		} else if (op < 38) {
			knob = "period_us";
			val = period_vals[rnd_below(12)];
		} else if (op < 45) {
			knob = "metrics";
			val = metric_vals[rnd_below(9)];
		} else if (op < 48) {
			knob = "cgroups";
			val = cgroup_vals[rnd_below(6)];
		} else if (op < 50) {
			knob = "overflow";
			val = overflow_vals[rnd_below(4)];
		} else if (op < 75) {
			visits++;
			r = churn_once(&busy, &rd);
			if (r < 0)
				errs++;
			continue;
		} else if (op < 88) {
			if (ksnapd_pid > 0) {
				ksnapd_reap(sigs[rnd_below(5)] == SIGSTOP ?
					    SIGKILL : sigs[rnd_below(4)]);
			} else {
				const char *lossy = rnd_below(2) ? "--lossy" :
								   "--once";
				pid_t pid = fork();

				if (pid == 0) {
					int nul = open("/dev/null", O_WRONLY);

					dup2(nul, 2);
					execlp("ksnapd", "ksnapd", "--no-wait",
					       lossy, "-o", "/tmp/stress.tsv",
					       (char *)NULL);
					_exit(127);
				}
				ksnapd_pid = pid;
				ksnapds++;
			}
			continue;
		} else if (op < 92) {
			if (ksnapd_pid > 0) {
				kill(ksnapd_pid, SIGSTOP);
				usleep(1000 * rnd_below(50));
				kill(ksnapd_pid, SIGCONT);
			}
			continue;
		} else {
			static const char *const values[] = {
				"/stats/taken", "/stats/state",
				"/stats/reader", "/plan/live_cpus",
			};
			char path[128];
			size_t i;

			for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
				snprintf(path, sizeof(path), "%s%s",
					 KSNAP_SYSFS_DIR, values[i]);
				fd = open(path, O_RDONLY);
				if (fd < 0)
					continue;
				if (read(fd, buf, sizeof(buf)) < 0)
					errs++;
				close(fd);
			}
			/* The catalogue, on a query handle beside the reader */
			fd = open(KSNAP_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				struct ksnap_metric_info info;

				memset(&info, 0, sizeof(info));
				while (!ioctl(fd, KSNAP_IOC_METRIC, &info))
					info.index++;
				if (errno != EINVAL || !info.index)
					errs++;
				close(fd);
			}
			continue;
		}
		want = expect_knob(&m, knob, val, ksnapd_pid > 0, &busy_ok);
		e = knob_write(knob, val);
		if (want != -2) {
			checked++;
			if (e != want && !(busy_ok && e == EBUSY)) {
				if (wrong++ < 20)
					printf("step %lu: %s <- '%s': expected %s%s, got %s (model: %s, metrics '%s', cgroups '%s', %s)\n",
					       steps, knob, val, errname(want),
					       busy_ok ? " or EBUSY" : "",
					       errname(e),
					       m.running ? "running" : "stopped",
					       m.metrics, m.cgroups,
					       ksnapd_pid > 0 ? "ksnapd child" : "no reader");
			}
		}
		if (e) {
			knob_err++;
		} else {
			knob_ok++;
			model_apply(&m, knob, val);
		}
		usleep(rnd_below(2000));
	}
	ksnapd_reap(SIGKILL);
	printf("steps %lu knob_ok %lu knob_errors %lu knob_checked %lu "
	       "knob_unexpected %lu visits %lu ebusy %lu ksnapd_runs %lu "
	       "errors %lu\n", steps, knob_ok, knob_err, checked, wrong,
	       visits, busy, ksnapds, errs);
	return errs || wrong ? 1 : 0;
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

		if (n < 0 || (size_t)n >= sizeof(buf))
			return 2;
		return write_buf(argv[2], buf, n);
	}
	if (!strcmp(cmd, "ctrl"))
		return cmd_ctrl();
	if (!strcmp(cmd, "handshake"))
		return cmd_handshake();
	if (!strcmp(cmd, "set-tail") && argc == 4)
		return cmd_set_tail(argv[2], strtoull(argv[3], NULL, 10));
	if (!strcmp(cmd, "records") && argc == 3)
		return cmd_records(atof(argv[2]), false, false);
	if (!strcmp(cmd, "reads") && argc == 3)
		return cmd_records(atof(argv[2]), true, false);
	if (!strcmp(cmd, "sets") && argc == 3)
		return cmd_records(atof(argv[2]), false, true);
	if (!strcmp(cmd, "nswrite") && argc == 5)
		return cmd_nswrite(argv[2], argv[3], argv[4]);
	if (!strcmp(cmd, "write-hex") && argc == 4)
		return cmd_write_hex(argv[2], argv[3]);
	if (!strcmp(cmd, "write-n") && argc == 5)
		return cmd_write_n(argv[2], argv[3][0],
				   strtoul(argv[4], NULL, 10));
	if (!strcmp(cmd, "write-file") && argc == 4)
		return cmd_write_file(argv[2], argv[3]);
	if (!strcmp(cmd, "mremap") && argc == 3)
		return cmd_mremap(argv[2]);
	if (!strcmp(cmd, "toggle") && argc == 3)
		return cmd_toggle(strtoul(argv[2], NULL, 10));
	if (!strcmp(cmd, "churn") && argc == 4)
		return cmd_churn(atof(argv[2]), strtoull(argv[3], NULL, 10));
	if (!strcmp(cmd, "stress") && argc == 4)
		return cmd_stress(strtoull(argv[2], NULL, 10), atof(argv[3]));
	if (!strcmp(cmd, "as") && argc >= 4) {
		uid_t uid = (uid_t)strtoul(argv[2], NULL, 10);

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			return report(errno);
		execvp(argv[3], argv + 3);
		return report(errno);
	}
	if (!strcmp(cmd, "column") && (argc == 4 || argc == 5)) {
		struct ksnap_column_info *ci = calloc(1, sizeof(*ci));

		fd = open_dev();
		if (fd < 0 || !ci)
			return report(errno);
		if (read_ctrl(fd, &c))
			return 3;
		if (!strcmp(argv[2], "cur"))
			ci->set_id = c.set_id;
		else if (!strcmp(argv[2], "old"))
			ci->set_id = c.set_id - 1;
		else
			ci->set_id = (uint32_t)strtoul(argv[2], NULL, 10);
		ci->index = (uint32_t)strtoul(argv[3], NULL, 10);
		if (argc == 5)
			ci->reserved[2] = 1;
		e = ioctl(fd, KSNAP_IOC_COLUMN, ci) ? errno : 0;
		report(e);
		if (!e)
			printf("set %u nr_columns %u\n%s\n%s\n%s\n"
			       "refresh_ns %llu\n", ci->set_id,
			       ci->nr_columns, ci->metric, ci->field,
			       ci->value,
			       (unsigned long long)ci->refresh_ns);
		free(ci);
		close(fd);
		return e ? 1 : 0;
	}
	if (!strcmp(cmd, "layout") || !strcmp(cmd, "map") ||
	    !strcmp(cmd, "map-bytes")) {
		fd = open_dev();
		if (fd < 0)
			return report(errno);
		if (read_ctrl(fd, &c))
			return 3;
		if (!strcmp(cmd, "layout")) {
			printf("%u %u %u %u %u %ld\n", c.ctrl_pages,
			       c.consumer_pgoff, c.data_pgoff, c.data_pages,
			       c.total_pages, page);
			return 0;
		}
		if (!strcmp(cmd, "map") && argc == 5) {
			int prot = PROT_READ, flags = MAP_SHARED;
			unsigned long off = strtoul(argv[2], NULL, 10);
			unsigned long n = strtoul(argv[3], NULL, 10);

			if (!strcmp(argv[4], "rw"))
				prot |= PROT_WRITE;
			if (!strcmp(argv[4], "private")) {
				prot |= PROT_WRITE;
				flags = MAP_PRIVATE;
			}
			p = mmap(NULL, n * page, prot, flags, fd, off * page);
			e = p == MAP_FAILED ? errno : 0;
			if (!e)
				munmap(p, n * page);
			return report(e);
		}
		if (!strcmp(cmd, "map-bytes") && argc == 4) {
			unsigned long off = strtoul(argv[2], NULL, 10);
			unsigned long n = strtoul(argv[3], NULL, 10);

			p = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, off);
			e = p == MAP_FAILED ? errno : 0;
			if (!e)
				munmap(p, n);
			return report(e);
		}
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
	if (!strcmp(cmd, "unload") && argc == 3) {
		/* As rmmod does: never wait for the references to go. */
		e = syscall(SYS_delete_module, argv[2], O_NONBLOCK) ? errno : 0;
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
	fprintf(stderr, "usage: guestprobe write FILE VALUE | load KO [PARAMS] | unload NAME |\n"
		"       open | open2 |\n"
		"       mmap-write | mprotect-write | mmap-data-write | mmap-past-end |\n"
		"       mmap-consumer | hold | ctrl | layout | map PGOFF N ro|rw|private |\n"
		"       map-bytes OFF LEN | mremap ctrl|consumer|data |\n"
		"       set-tail behind|ahead|ones|head N | records SECONDS |\n"
		"       reads SECONDS |\n"
		"       write-n FILE CHAR N | write-hex FILE HEX | write-file FILE SRC |\n"
		"       as UID PROG... |\n"
		"       toggle N | churn SECONDS SEED | stress SEED SECONDS\n");
	return 2;
}

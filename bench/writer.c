// SPDX-License-Identifier: MIT
/*
 * writer: ksnapd's formatting path, natively, from a ring laid out in a
 * memfd exactly as the device is (tests/unit/lib/fake_ring.h plays the
 * kernel), opened through ksnap_ring_open() ("/proc/self/fd/N", the
 * --device regular-file path) and drained by ksnapd_step(), the code the
 * daemon runs on every wake-up: ring walk, row formatting, lossy checksums,
 * flush.  Lossy on a file, the fsyncs run on ksnapd's durability thread
 * (durable.h), beside the timed steps, as in the daemon.
 *
 * Each round the generator fills the whole ring (not timed), then one
 * ksnapd_step() drains it (timed).  Values are counter-like: a mix of 5-
 * to 13-digit numbers that grow from row to row.
 *
 * Against the machine's bounds in the same run: memcpy and zlib's
 * adler32() over the same number of bytes as the stream written, in
 * chunks of ksnapd's output buffer (1 MiB), from a buffer holding stream
 * bytes.
 *
 * Each (mode, columns) is run --reps times (default 3) for --seconds of
 * timed steps each; the best run is reported (least disturbed by other
 * load on the machine), with the median next to it.  Bounds likewise.
 *
 * malloc, calloc and realloc are counted (-Wl,--wrap) during the timed
 * steps: the per-line path should allocate nothing.
 *
 *   writer [--seconds S] [--reps N] [--records N] [--sink FILE|/dev/null]
 *          [--cols 4,16,64]
 * Prints one key=value line per (mode, columns) and one per bound.
 */
/* No _GNU_SOURCE: with it <sys/stat.h> pulls <linux/types.h> (statx),
 * whose __u64 clashes with the typedefs of ksnap_abi.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <zlib.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1U
#endif

#include "daemon.h"
#include "fake_ring.h"
#include "output.h"
#include "ring.h"
#include "stream.h"

/* Allocation counter. */
static unsigned long nalloc;
static int counting;
void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n)
{
	nalloc += counting;
	return __real_malloc(n);
}
void *__wrap_calloc(size_t a, size_t b)
{
	nalloc += counting;
	return __real_calloc(a, b);
}
void *__wrap_realloc(void *p, size_t n)
{
	nalloc += counting;
	return __real_realloc(p, n);
}

/* Bytes written by ksnapd (through its sys.c wrapper). */
static unsigned long long written;
ssize_t __real_ksnap_sys_write(int fd, const void *buf, size_t len);
ssize_t __wrap_ksnap_sys_write(int fd, const void *buf, size_t len)
{
	ssize_t n = __real_ksnap_sys_write(fd, buf, len);

	if (n > 0)
		written += (unsigned long long)n;
	return n;
}

/* The ring's columns, as the device's KSNAP_IOC_COLUMN gives them: a
 * memfd has no such ioctl. */
static struct fake_ring *columns_of;
int __wrap_ksnap_sys_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd;
	return fake_ring_ioctl(columns_of, req, arg);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "writer: %s: %s\n", what, strerror(err));
	exit(1);
}

static uint64_t base[64], inc[64];

static void fill(struct fake_ring *f, uint32_t ncols, uint64_t from,
		 uint32_t n)
{
	uint64_t pos;
	uint32_t i;

	for (pos = from; pos < from + n; pos++) {
		struct ksnap_record *r = fake_ring_slot(f, pos);

		r->seq = pos;
		r->time_ns = (pos + 1) * 20000 + pos % 97;
		r->lateness_ns = 1000;
		r->read_ns = 500;
		r->flags = 0;
		r->set_id = f->ctrl->set_id;
		r->values_offset = offsetof(struct ksnap_record, values);
		for (i = 0; i < ncols; i++)
			r->values[i] = base[i % 64] + pos * inc[i % 64] + (pos * 31 + i) % 7;
	}
	f->ctrl->stats.taken += n;
	ksnap_store_release(&f->ctrl->head, from + n);
}

struct result {
	unsigned long long rows, bytes;
	double secs;
	unsigned long allocs;
};

static struct result run(uint32_t ncols, bool lossy, const char *sink,
			 uint32_t nrec, double seconds)
{
	struct fake_ring f;
	struct ksnap_ring r;
	struct ksnapd d;
	struct result res = { 0 };
	char path[64];
	size_t len = fake_ring_size(ncols, nrec);
	void *mem;
	int mfd, ret;
	uint32_t i;
	uint64_t pos = 0;
	double t0;

	mfd = (int)syscall(SYS_memfd_create, "ksnap-ring", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)len))
		die("memfd", errno);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (mem == MAP_FAILED)
		die("mmap", errno);
	fake_ring_init(&f, mem, ncols, nrec);
	for (i = 0; i < ncols; i++) {
		char v[24];

		snprintf(v, sizeof(v), "/bench%u", i);
		if (i % 4 == 3)
			fake_ring_column(&f, i, "memory.current", "cgroup", v,
					 "bytes charged to the cgroup", 0);
		else
			fake_ring_column(&f, i, i % 4 ? "pgfault" : "cpu.user",
					 "cpu", v + 6, "a counter",
					 KSNAP_COL_CUMULATIVE);
	}
	columns_of = &f;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	ret = ksnap_ring_open(&r, path);
	if (ret)
		die("ksnap_ring_open", -ret);

	/* ksnapd opens (and truncates) sink when the collection starts. */
	ret = ksnapd_init(&d, &r, &(struct ksnapd_config){
		.out_path = sink, .lossy = lossy, .once = true });
	if (ret)
		die(d.err, -ret);

	fake_ring_start(&f, 1, ncols, 20000, 1000, 1700000000000000000ULL);
	/* Header, META: not timed. */
	if ((ret = ksnapd_step(&d)) < 0)
		die(d.err, -ret);
	written = 0;
	t0 = now();
	while (res.secs < seconds) {
		double a;

		fill(&f, ncols, pos, nrec);
		pos += nrec;
		counting = 1;
		a = now();
		ret = ksnapd_step(&d);
		res.secs += now() - a;
		counting = 0;
		if (ret < 0)
			die(d.err, -ret);
		if (now() - t0 > 4 * seconds + 5)
			break;
	}
	res.rows = d.out.count.rows;
	res.bytes = written;
	res.allocs = nalloc;
	nalloc = 0;
	fake_ring_stop(&f);
	while ((ret = ksnapd_step(&d)) == 0)
		;
	if (ret < 0)
		die(d.err, -ret);
	ksnapd_fini(&d);
	ksnap_ring_close(&r);
	munmap(mem, len);
	close(mfd);
	return res;
}

int main(int argc, char **argv)
{
	double seconds = 0.4;
	int reps = 3;
	uint32_t nrec = 65536, cols[8] = { 4, 16, 64 }, ncfg = 3, c, i;
	const char *sink = "/dev/null";
	unsigned long long maxbytes = 0;

	for (i = 1; i < (uint32_t)argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < (uint32_t)argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < (uint32_t)argc)
			reps = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
		else if (!strcmp(argv[i], "--records") && i + 1 < (uint32_t)argc)
			nrec = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--sink") && i + 1 < (uint32_t)argc)
			sink = argv[++i];
		else if (!strcmp(argv[i], "--cols") && i + 1 < (uint32_t)argc) {
			char *p = argv[++i];

			for (ncfg = 0; *p && ncfg < 8; ncfg++) {
				cols[ncfg] = (uint32_t)strtoul(p, &p, 10);
				if (*p == ',')
					p++;
			}
		} else {
			fprintf(stderr, "writer: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	for (i = 0; i < 64; i++) {
		static const uint64_t mag[] = { 123456ull, 98765432ull,
			4294967296ull, 1234567890123ull, 555ull };

		base[i] = mag[i % 5] * (i + 1);
		inc[i] = (i % 5) * 997 + 1;
	}
	for (c = 0; c < ncfg; c++) {
		for (int lossy = 0; lossy < 2; lossy++) {
			struct result r = { 0 }, t;
			double rate[16];
			unsigned long allocs = 0;
			int k, j;

			for (k = 0; k < reps && k < 16; k++) {
				t = run(cols[c], lossy, sink, nrec, seconds);
				rate[k] = (double)t.rows / t.secs;
				allocs += t.allocs;
				if (!k || rate[k] > (double)r.rows / r.secs)
					r = t;
			}
			for (k = 1; k < reps && k < 16; k++)	/* sort */
				for (j = k; j > 0 && rate[j] < rate[j - 1]; j--) {
					double x = rate[j];

					rate[j] = rate[j - 1];
					rate[j - 1] = x;
				}
			printf("kind=writer sink=%s mode=%s cols=%u rows=%llu "
			       "bytes=%llu secs=%.4f rows_per_s=%.0f MB_per_s=%.1f "
			       "ns_per_row=%.1f bytes_per_row=%.1f allocs=%lu "
			       "reps=%d median_rows_per_s=%.0f\n",
			       sink, lossy ? "lossy" : "plain", cols[c], r.rows,
			       r.bytes, r.secs, (double)r.rows / r.secs,
			       (double)r.bytes / r.secs / 1e6,
			       r.secs * 1e9 / (double)r.rows,
			       (double)r.bytes / (double)r.rows, allocs, k,
			       rate[(k - 1) / 2]);
			fflush(stdout);
			if (r.bytes > maxbytes)
				maxbytes = r.bytes;
		}
	}

	/* Bounds over the same bytes: 1 MiB chunks, like ksnapd's buffer. */
	{
		size_t chunk = KSNAP_OUT_DEFAULT_SIZE;
		char *src = malloc(chunk), *dst = malloc(chunk);
		unsigned long long n, total = maxbytes ? maxbytes : 1ull << 30;
		volatile unsigned long sink_adler = 0;
		double t;

		if (!src || !dst)
			die("malloc", ENOMEM);
		for (n = 0; n < chunk; n++)
			src[n] = "0123456789\t\n"[n % 12];
		memset(dst, 0, chunk);
		double best = 1e99;
		int k;

		for (k = 0; k < reps; k++) {
			t = now();
			for (n = 0; n < total; n += chunk) {
				memcpy(dst, src, chunk);
				__asm__ volatile("" : : "r"(dst) : "memory");
			}
			t = now() - t;
			best = t < best ? t : best;
		}
		t = best;
		printf("kind=bound what=memcpy bytes=%llu secs=%.4f MB_per_s=%.1f\n",
		       n, t, (double)n / t / 1e6);
		best = 1e99;
		for (k = 0; k < reps; k++) {
			t = now();
			for (n = 0; n < total; n += chunk)
				sink_adler = adler32(sink_adler, (const Bytef *)src,
						     (uInt)chunk);
			t = now() - t;
			best = t < best ? t : best;
		}
		t = best;
		printf("kind=bound what=adler32 bytes=%llu secs=%.4f MB_per_s=%.1f\n",
		       n, t, (double)n / t / 1e6);
		free(src);
		free(dst);
	}
	return 0;
}

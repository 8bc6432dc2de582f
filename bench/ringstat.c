// SPDX-License-Identifier: MIT
/*
 * ringstat: the guest half of the sampler bench.  Maps /dev/ksnap with
 * ksnapd's own ring code (userspace/lib/ring.c), starts a collection from a
 * chosen CPU (the hrtimer is pinned to the CPU that starts it), drains the
 * ring from another CPU for the given time, stops, and prints one line of
 * key=value figures:
 *
 *   capture    records written / periods elapsed (start to stop)
 *   late_*     per-record lateness_ns (collection start - expiry), ns
 *   read_*     per-record read_ns (time spent reading the counters), ns
 *   lost       ring full (stats.lost), missed: hrtimer overruns
 *   cpu_pct    share of the timer's CPU taken while sampling (idle
 *              spinner, see common.h); readsum_pct: sum(read_ns)/elapsed
 *   reader_pct this program's own CPU time / elapsed (on the other CPU)
 *
 *   ringstat --seconds S [--timer-cpu 0] [--reader-cpu 1] [--tag TEXT]
 *            [--no-spin]
 */
#include "common.h"

#include <fcntl.h>
#include <poll.h>

#include "ring.h"

static int write_enable(int on)
{
	int fd = open(KSNAP_SYSFS_DIR "/enable", O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, on ? "1\n" : "0\n", 2);
	close(fd);
	return n == 2 ? 0 : -errno;
}

int main(int argc, char **argv)
{
	double seconds = 2;
	int timer_cpu = 0, reader_cpu = 1, spin = 1, i;
	const char *tag = "";
	struct ksnap_ring r;
	struct ksnap_coll c = { 0 };
	struct ksnap_stats st;
	struct spin sp = { 0 };
	uint32_t *late, *rd;
	uint64_t cap, n = 0, tail = 0, head, t0, t1 = 0, cpu0, deadline;
	uint64_t read_sum = 0, nlast = 0, expected;
	double rate = 0;
	struct dist dl, dr;
	int ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--timer-cpu") && i + 1 < argc)
			timer_cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reader-cpu") && i + 1 < argc)
			reader_cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
			tag = argv[++i];
		else if (!strcmp(argv[i], "--no-spin"))
			spin = 0;
		else {
			fprintf(stderr, "ringstat: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}

	ret = ksnap_ring_open(&r, KSNAP_DEVICE_PATH);
	if (ret) {
		fprintf(stderr, "ringstat: %s: %s\n", KSNAP_DEVICE_PATH,
			strerror(-ret));
		return 1;
	}
	if (ksnap_ring_read_coll(&r, &c))
		return 1;

	if (spin)
		spin_start(&sp, timer_cpu);
	/* Start from the timer's CPU: the hrtimer is pinned there. */
	if (pin_to(timer_cpu))
		die("sched_setaffinity");
	t0 = now_ns(CLOCK_MONOTONIC);
	ret = write_enable(1);
	if (ret) {
		fprintf(stderr, "ringstat: enable: %s\n", strerror(-ret));
		return 1;
	}
	if (pin_to(reader_cpu))
		die("sched_setaffinity");
	if (ksnap_ring_read_coll(&r, &c))
		return 1;
	/* As ksnapd: poll() reports a start until we say we have seen it. */
	errno = -ksnap_ring_set_seen(&r, c.generation, KSNAP_STATE_RUNNING);
	if (errno)
		die("KSNAP_IOC_SEEN");
	cap = (uint64_t)(seconds * 1e9 / (double)c.period_ns) * 5 / 4 + 1024;
	late = malloc(cap * sizeof(*late));
	rd = malloc(cap * sizeof(*rd));
	if (!late || !rd)
		die("malloc");
	cpu0 = rusage_cpu_ns();
	deadline = t0 + (uint64_t)(seconds * 1e9);

	for (int stopping = 0;;) {
		struct pollfd p = { .fd = r.fd, .events = POLLIN };
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		if (!stopping && now >= deadline) {
			/* Stop from the timer's CPU too (it cancels there). */
			pin_to(timer_cpu);
			write_enable(0);
			t1 = now_ns(CLOCK_MONOTONIC);
			pin_to(reader_cpu);
			stopping = 1;
		}
		if (!stopping)
			poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
		head = ksnap_ring_head(&r);
		for (; tail != head; tail++) {
			const struct ksnap_record *rec = ksnap_ring_record(&r, tail);

			if (rec->flags & KSNAP_REC_LAST) {
				nlast++;
				continue;
			}
			if (n < cap) {
				late[n] = rec->lateness_ns;
				rd[n] = rec->read_ns;
				read_sum += rec->read_ns;
				n++;
			}
		}
		ksnap_ring_set_tail(&r, tail);
		if (stopping)
			break;
	}
	cpu0 = rusage_cpu_ns() - cpu0;
	if (spin)
		rate = spin_stop(&sp);
	ksnap_ring_read_stats(&r, &st);
	ksnap_ring_read_coll(&r, &c);
	errno = -ksnap_ring_set_done(&r, c.generation);
	if (errno)
		die("KSNAP_IOC_DONE");
	errno = -ksnap_ring_set_seen(&r, c.generation, c.state);
	if (errno)
		die("KSNAP_IOC_SEEN");

	expected = (t1 - c.start_mono_ns) / c.period_ns;
	dl = dist_of(late, n);
	dr = dist_of(rd, n);
	printf("kind=ksnap %s period_us=%llu cols=%u elapsed_s=%.3f expected=%llu "
	       "captured=%llu capture_pct=%.2f taken=%llu lost=%llu missed=%llu "
	       "late_p50=%u late_p99=%u late_max=%u late_mean=%.0f "
	       "read_mean=%.0f read_p50=%u read_p99=%u read_max=%u "
	       "readsum_pct=%.3f reader_pct=%.3f spin_rate=%.0f\n",
	       tag, (unsigned long long)(c.period_ns / 1000), c.nr_columns,
	       (double)(t1 - c.start_mono_ns) / 1e9,
	       (unsigned long long)expected, (unsigned long long)n,
	       expected ? 100.0 * (double)n / (double)expected : 0,
	       (unsigned long long)st.taken, (unsigned long long)st.lost,
	       (unsigned long long)st.missed, dl.p50, dl.p99, dl.max, dl.mean,
	       dr.mean, dr.p50, dr.p99, dr.max,
	       100.0 * (double)read_sum / (double)(t1 - c.start_mono_ns),
	       100.0 * (double)cpu0 / (double)(t1 - c.start_mono_ns), rate);
	ksnap_ring_close(&r);
	return 0;
}

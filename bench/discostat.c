// SPDX-License-Identifier: MIT
/*
 * discostat: the discovery latency of a running collection.  The module
 * is loaded with a cgroup pattern (e.g. cgroups=/disc/c*), discover_ms=
 * and a read bound that admits the cgroups to come (read_pct=,
 * read_cap_us=: stats/columns_admitted).  discostat starts the
 * collection from the timer's CPU and drains the ring from another; then,
 * --samples times: waits a random time in [0, discover_ms) (so that the
 * mkdir falls anywhere in the worker's interval), makes DIR/cNNN, and
 * drains until the first record of a later column set.  The latency is
 * that record's time (start_mono_ns + time_ns, CLOCK_MONOTONIC, the
 * midpoint of its reads) minus the time just before mkdir(), same clock.
 * The new set's column count is checked to have grown (the cgroup's
 * column is in it); a cgroup with no new set within 3 x discover_ms + 2 s
 * is counted in timeouts.  Prints one key=value line; figures only.
 *
 *   discostat --dir DIR --samples N --discover-ms MS [--tag TEXT]
 *             [--timer-cpu 0] [--reader-cpu 1]
 */
#include "common.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

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

/*
 * Drain up to the head.  Returns the time (CLOCK_MONOTONIC ns) of the
 * first record whose set is not *set, and sets *set to it; 0 when none.
 */
static uint64_t drain(struct ksnap_ring *r, const struct ksnap_coll *c,
		      uint64_t *tail, uint32_t *set, int wait_ms)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	uint64_t head, found = 0;

	if (wait_ms > 0)
		poll(&p, 1, wait_ms);
	head = ksnap_ring_head(r);
	for (; *tail != head; (*tail)++) {
		const struct ksnap_record *rec = ksnap_ring_record(r, *tail);

		if (rec->flags & KSNAP_REC_LAST)
			continue;
		if (rec->set_id != *set && !found) {
			found = c->start_mono_ns + rec->time_ns;
			*set = rec->set_id;
		}
	}
	ksnap_ring_set_tail(r, *tail);
	return found;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *tag = "";
	int samples = 50, disc_ms = 1000, timer_cpu = 0, reader_cpu = 1, i;
	uint32_t *lat, set, ncols, ncols_new, grew = 0;
	uint64_t tail, t_mk, t_row, t_end, n = 0, timeouts = 0;
	struct ksnap_ring r;
	struct ksnap_coll c = { 0 };
	struct ksnap_stats st;
	struct dist d;
	char path[4096];
	int ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			samples = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--discover-ms") && i + 1 < argc)
			disc_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
			tag = argv[++i];
		else if (!strcmp(argv[i], "--timer-cpu") && i + 1 < argc)
			timer_cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reader-cpu") && i + 1 < argc)
			reader_cpu = atoi(argv[++i]);
		else {
			fprintf(stderr, "discostat: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!dir || samples < 1 || disc_ms < 1) {
		fprintf(stderr, "discostat: --dir DIR --samples N --discover-ms MS\n");
		return 2;
	}
	lat = calloc((size_t)samples, sizeof(*lat));
	if (!lat)
		die("calloc");
	ret = ksnap_ring_open(&r, KSNAP_DEVICE_PATH);
	if (ret) {
		fprintf(stderr, "discostat: %s: %s\n", KSNAP_DEVICE_PATH,
			strerror(-ret));
		return 1;
	}
	if (pin_to(timer_cpu))
		die("sched_setaffinity");
	ret = write_enable(1);
	if (ret) {
		fprintf(stderr, "discostat: enable: %s\n", strerror(-ret));
		return 1;
	}
	if (pin_to(reader_cpu))
		die("sched_setaffinity");
	if (ksnap_ring_read_coll(&r, &c))
		die("read_coll");
	errno = -ksnap_ring_set_seen(&r, c.generation, KSNAP_STATE_RUNNING);
	if (errno)
		die("KSNAP_IOC_SEEN");
	tail = c.start_position;
	set = c.set_id;
	ncols = c.nr_columns;
	srandom((unsigned int)now_ns(CLOCK_MONOTONIC));

	for (i = 0; i < samples; i++) {
		uint64_t until = now_ns(CLOCK_MONOTONIC) +
			(uint64_t)(random() % disc_ms) * 1000000ULL;

		/* Anywhere in the worker's interval; a set change in this
		 * wait (there should be none) is taken as the current set. */
		while (now_ns(CLOCK_MONOTONIC) < until)
			drain(&r, &c, &tail, &set, 10);
		drain(&r, &c, &tail, &set, 0);
		snprintf(path, sizeof(path), "%s/c%03d", dir, i);
		t_mk = now_ns(CLOCK_MONOTONIC);
		if (mkdir(path, 0755))
			die("mkdir");
		t_end = t_mk + (uint64_t)disc_ms * 3000000ULL + 2000000000ULL;
		t_row = 0;
		while (!t_row && now_ns(CLOCK_MONOTONIC) < t_end)
			t_row = drain(&r, &c, &tail, &set, 10);
		if (!t_row) {
			timeouts++;
			continue;
		}
		lat[n++] = t_row > t_mk ? (uint32_t)((t_row - t_mk) / 1000) : 0;
		if (!ksnap_ring_set_columns(&r, set, &ncols_new) &&
		    ncols_new > ncols)
			grew++;
		ncols = ncols_new;
	}

	pin_to(timer_cpu);
	write_enable(0);
	pin_to(reader_cpu);
	drain(&r, &c, &tail, &set, 0);
	ksnap_ring_read_stats(&r, &st);
	ksnap_ring_read_coll(&r, &c);
	ksnap_ring_set_done(&r, c.generation);
	ksnap_ring_set_seen(&r, c.generation, c.state);
	d = dist_of(lat, n);
	printf("kind=discovery %s discover_ms=%d samples=%llu timeouts=%llu "
	       "grew=%u lat_p50_us=%u lat_p99_us=%u lat_max_us=%u "
	       "lat_mean_us=%.0f cols_end=%u lost=%llu\n",
	       tag, disc_ms, (unsigned long long)n,
	       (unsigned long long)timeouts, grew, d.p50, d.p99, d.max,
	       d.mean, ncols, (unsigned long long)st.lost);
	ksnap_ring_close(&r);
	return 0;
}

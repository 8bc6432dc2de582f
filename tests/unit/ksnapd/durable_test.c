// SPDX-License-Identifier: MIT
/*
 * A slow disk does not slow the drain (durable.h): ksnapd --lossy to a
 * regular file, rows at 1 kHz, a ring that holds 5 s of them, and every
 * fsync taking 2 s.  Time is the test's: each wake-up (poll()) is 100 ms
 * in which 100 rows arrive, and an fsync returns once the test's clock is
 * 2 s past its start.  So the drain runs on while an fsync is under way,
 * or it would wait for a release that only the drain's own wake-ups
 * give; a deadline of real time, reached only then, fails the test.
 */
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include "ksnapd_fixture.h"
#include "sys.h"

#define RING_ROWS	5000	/* 5 s at 1 kHz */
#define ROWS_PER_WAKE	100	/* 100 ms */
#define RUN_MS		10000
#define FSYNC_MS	2000
/* Real time an fsync may wait for its release: only a drain that waits
 * for the fsync ever gets there. */
#define STUCK_SECONDS	30

static pthread_t drain_thread;
static sem_t release;
static uint64_t now_ms;			/* the test's clock */
static uint64_t fsync_started_ms;
static bool in_fsync;			/* an fsync waits for its release */
static bool free_running;		/* after the run: fsyncs return */
static bool fsync_on_drain;		/* the drain called fsync */
static bool fsync_stuck;		/* STUCK_SECONDS went by */
static int fsyncs_released;
static uint64_t lost;			/* rows the ring had no room for */
static uint64_t max_unread;		/* unread rows at a wake-up */
static bool stopped;

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/* fsync: 2 s of the test's clock, on whatever thread calls it. */
static int slow_fsync(int fd)
{
	struct timespec deadline;

	if (pthread_equal(pthread_self(), drain_thread))
		STORE(fsync_on_drain, true);
	if (LOAD(free_running) || LOAD(fsync_stuck))
		return 0;
	STORE(fsync_started_ms, LOAD(now_ms));
	STORE(in_fsync, true);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += STUCK_SECONDS;
	while (sem_timedwait(&release, &deadline))
		if (errno != EINTR) {
			STORE(fsync_stuck, true);
			STORE(in_fsync, false);
			break;
		}
	return 0;
}

/* Release the fsync under way, if it has taken its 2 s (or always). */
static void release_fsync(bool always)
{
	if (LOAD(in_fsync) &&
	    (always || LOAD(now_ms) >= LOAD(fsync_started_ms) + FSYNC_MS)) {
		STORE(in_fsync, false);
		fsyncs_released++;
		sem_post(&release);
	}
}

/*
 * The disk is never idle while there is something to make durable: wait
 * (real time, for the thread to be scheduled) until an fsync is under
 * way or nothing is left to sync.  The test's thread waits here, for the
 * test's sake; ksnapd's drain has returned from its step.
 */
static void disk_busy(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!LOAD(in_fsync) && ksnap_durable_backlog(&d.out.durable)) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > STUCK_SECONDS)
			fail_msg("the fsync thread never started an fsync");
		ksnap_sys_nanosleep(100000);
	}
}

/* A wake-up: what the drain left unread, then 100 ms of rows. */
static int wake_100ms(struct pollfd *fds, nfds_t n, int timeout)
{
	uint64_t unread = fr.ctrl->head - ksnap_ring_tail(&ring);
	uint64_t t = LOAD(now_ms);
	int i;

	if (unread > max_unread)
		max_unread = unread;
	if (t > 2 * RUN_MS)
		fail_msg("still running at %llu ms", (unsigned long long)t);
	release_fsync(false);
	disk_busy();
	if (t >= RUN_MS) {
		if (!stopped)
			fake_ring_stop(&fr);
		stopped = true;
		return 1;
	}
	for (i = 0; i < ROWS_PER_WAKE; i++) {
		if (unread + (uint64_t)i >= RING_ROWS) {
			lost++;
			continue;
		}
		fake_ring_push(&fr, (t + (uint64_t)i + 1) * 1000000ULL,
			       t + (uint64_t)i);
	}
	STORE(now_ms, t + ROWS_PER_WAKE);
	return 1;
}

static int setup_slow_disk(void **state)
{
	setup(state);
	fake_ring_free(&fr);
	fake_ring_init(&fr, NULL, 3, 8192);
	columns();
	fake_sys.mem = fr.mem;
	fake_sys.ring = &fr;
	fake_sys.mem_len = fr.len;
	fake_sys.poll_hook = wake_100ms;
	fake_sys.fsync_hook = slow_fsync;
	assert_int_equal(sem_init(&release, 0, 0), 0);
	(void)sig_pipe;	/* the fixture's signalfd: no signal here */
	drain_thread = pthread_self();
	now_ms = fsync_started_ms = 0;
	in_fsync = free_running = fsync_on_drain = fsync_stuck = false;
	stopped = false;
	fsyncs_released = 0;
	lost = max_unread = 0;
	fake_ring_start(&fr, 1, 3, 1000000, 0, 1);
	return 0;
}

static int teardown_slow_disk(void **state)
{
	STORE(free_running, true);
	release_fsync(true);
	teardown(state);
	sem_destroy(&release);
	return 0;
}

/* ksnapd --lossy to a regular file (standard output, here). */
static void run_lossy_to_a_file(uint64_t bound)
{
	attach(true);
	d.out.sink.regular = true;
	if (bound)
		d.out.durable.bound = bound;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	/* Every wake-up found the rows of the one before read. */
	assert_int_equal(max_unread, 0);
	assert_int_equal(lost, 0);
	assert_false(fsync_on_drain);
	assert_false(fsync_stuck);
}

/* Everything written is made durable in the end, by the thread. */
static void all_made_durable(void)
{
	STORE(free_running, true);
	release_fsync(true);
	ksnap_durable_wait(&d.out.durable);
	assert_int_equal(d.out.durable.synced, d.out.durable.written);
	assert_int_equal(d.out.durable.written, fake_sys.wlen);
	assert_false(fsync_on_drain);
}

static void slow_fsync_never_holds_up_the_drain(void **s)
{
	run_lossy_to_a_file(0);
	/* from 100 ms on, one fsync after another, 2 s each */
	assert_true(fsyncs_released >= 4);
	/* 10 s of rows within the 64 MiB bound: none lost. */
	assert_contains(output(), "\"total_snapshots\":10000,");
	assert_contains(output(), "\"ksnap_snapshots_taken\":10000,");
	assert_contains(output(), "\"ksnapd_rows_dropped\":0,");
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "10000000000\t"), 1);
	assert_true(d.out.durable.max_backlog < d.out.durable.bound);
	all_made_durable();
}

/* More than the bound behind: rows dropped and counted, never a wait. */
static void over_the_bound_rows_are_dropped_and_counted(void **s)
{
	char want[64];
	uint64_t dropped;

	run_lossy_to_a_file(16 * 1024);
	assert_true(fsyncs_released >= 4);
	dropped = d.out.count.dropped;
	assert_true(dropped > 0);
	assert_true(dropped < 10000);
	snprintf(want, sizeof(want), "\"total_snapshots\":%llu,",
		 (unsigned long long)(10000 - dropped));
	assert_contains(output(), want);
	snprintf(want, sizeof(want), "\"ksnapd_rows_dropped\":%llu,",
		 (unsigned long long)dropped);
	assert_contains(output(), want);
	all_made_durable();
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_slow_disk, \
					     teardown_slow_disk)
	const struct CMUnitTest tests[] = {
		T(slow_fsync_never_holds_up_the_drain),
		T(over_the_bound_rows_are_dropped_and_counted),
	};

	return cmocka_run_group_tests_name("durable", tests, NULL, NULL);
}

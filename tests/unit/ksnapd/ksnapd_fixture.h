/* SPDX-License-Identifier: MIT */
/*
 * ksnapd on a fake device, for the tests of its collector (collect_test.c)
 * and of its output file (outfile_test.c): a ring built in memory plays
 * the kernel, poll() is where a test's script acts (start, push records,
 * stop, signals), and every write is captured (fake_sys.wbuf).
 *
 * A test sets cfg, then attach()es: the "device" is opened and ksnapd set
 * up on it as main() does, writing to standard output unless cfg.out_path
 * is set (files are then opened through the fake open()).
 */
#ifndef KSNAPD_FIXTURE_H
#define KSNAPD_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon.h"
#include "fake_ring.h"
#include "fake_sys.h"

static struct fake_ring fr;
static struct ksnap_ring ring;
static struct ksnapd d;
/* What attach() gives ksnapd_init(): set by a test before attach(). */
static struct ksnapd_config cfg;

/* What the "kernel" does at each poll() call (1-based), then returns. */
static void (*script)(int call);

static inline int scripted_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	if (fake_sys.poll_calls > 50)
		fail_msg("still polling after 50 wake-ups");
	if (script)
		script(fake_sys.poll_calls);
	return 1;
}

static inline void columns(void)
{
	fake_ring_column(&fr, 0, "/ksnap/mem", NULL, NULL, "Memory.", 0);
	fake_ring_column(&fr, 1, "/ksnap/cpu", "cgroup", "/a", "CPU.",
			 KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	fake_ring_column(&fr, 2, "/ksnap/cpu", "cgroup", "/b", "CPU.",
			 KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
}

static inline int setup(void **state)
{
	fake_sys_reset();
	fake_ring_init(&fr, NULL, 3, 8);
	columns();
	fake_sys.mem = fr.mem;
	fake_sys.ring = &fr;
	fake_sys.mem_len = fr.len;
	fake_sys.capture = true;
	fake_sys.poll_hook = scripted_poll;
	script = NULL;
	cfg = (struct ksnapd_config){ .once = true };
	/* Standard output is not the journal, whatever runs the tests. */
	unsetenv("JOURNAL_STREAM");
	return 0;
}

/* Open the "device" and set up the daemon as main() does. */
static inline void attach(bool lossy)
{
	fake_ring_open(&fr);
	assert_int_equal(ksnap_ring_open(&ring, "/dev/ksnap"), 0);
	cfg.lossy = lossy;
	assert_int_equal(ksnapd_init(&d, &ring, &cfg), 0);
	/* Standard output is a pipe here, whatever the test runs with;
	 * tests of a regular file's full disk say so. */
	d.out.sink.regular = false;
}

static inline int teardown(void **state)
{
	ksnapd_fini(&d);
	ksnap_ring_close(&ring);
	fake_ring_free(&fr);
	fake_sys_reset();
	return 0;
}

static inline int count_lines_starting(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;
	int count = 0;

	while (p && *p) {
		if (!strncmp(p, prefix, n))
			count++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return count;
}

/* Fails with both texts when needle is not in hay. */
#define assert_contains(hay, needle) do { \
	const char *h_ = (hay), *n_ = (needle); \
	if (!strstr(h_, n_)) \
		fail_msg("expected to find:\n%s\n--- in output:\n%s", n_, h_); \
} while (0)

static inline const char *output(void)
{
	return fake_sys.wbuf ? fake_sys.wbuf : "";
}

static inline void stop_now(int call)
{
	if (call == 1)
		fake_ring_stop(&fr);
}

/* The signalfd, played by a pipe: a test writes signalfd_siginfo to [1]. */
static int sig_pipe[2];

#endif /* KSNAPD_FIXTURE_H */

// SPDX-License-Identifier: MIT
/* Waiting for a missing device with backoff, on a fake device. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "devwait.h"
#include "fake_ring.h"
#include "fake_sys.h"

static struct fake_ring fr;
static struct ksnap_ring ring;
static bool ring_open;

/* Fails with both texts when needle is not in hay. */
#define assert_contains(hay, needle) do { \
	const char *h_ = (hay), *n_ = (needle); \
	if (!strstr(h_, n_)) \
		fail_msg("expected to find:\n%s\n--- in output:\n%s", n_, h_); \
} while (0)

static int setup(void **state)
{
	fake_sys_reset();
	fake_ring_init(&fr, NULL, 1, 8);
	fake_sys.mem = fr.mem;
	fake_sys.ring = &fr;
	fake_sys.mem_len = fr.len;
	ring_open = false;
	return 0;
}

static int teardown(void **state)
{
	if (ring_open)
		ksnap_ring_close(&ring);
	fake_ring_free(&fr);
	fake_sys_reset();
	return 0;
}

static void backoff_grows_by_1_3_up_to_30_s(void **s)
{
	unsigned int ms = KSNAPD_WAIT_FIRST_MS, i;

	assert_int_equal(ms, 1000);
	ms = ksnapd_backoff_next(ms);
	assert_int_equal(ms, 1300);
	ms = ksnapd_backoff_next(ms);
	assert_int_equal(ms, 1690);
	for (i = 0; i < 30; i++)
		ms = ksnapd_backoff_next(ms);
	assert_int_equal(ms, 30000);
}

static int waits[8], nr_waits;

static int missing_device_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	assert_int_equal(n, 1);
	if (nr_waits < 8)
		waits[nr_waits++] = timeout;
	if (nr_waits == 3)
		fake_sys.open_err = 0;	/* the module is loaded now */
	return 0;
}

static void missing_device_is_waited_for_with_backoff(void **s)
{
	char *log = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&log, &len);

	fake_sys.open_err = -ENOENT;
	fake_sys.poll_hook = missing_device_poll;
	nr_waits = 0;
	assert_int_equal(ksnapd_open_ring(&ring, "/dev/ksnap", true, -1, f), 0);
	ring_open = true;
	fclose(f);
	assert_int_equal(nr_waits, 3);
	assert_int_equal(waits[0], 1000);
	assert_int_equal(waits[1], 1300);
	assert_int_equal(waits[2], 1690);
	assert_contains(log, "ksnapd: /dev/ksnap: No such file or directory: "
			"waiting for it, next try in 1.0 s\n");
	assert_contains(log, "next try in 1.6 s\n");
	free(log);
}

static void missing_device_without_wait_fails_at_once(void **s)
{
	fake_sys.open_err = -ENOENT;
	assert_int_equal(ksnapd_open_ring(&ring, "/dev/ksnap", false, -1,
					  NULL), -ENOENT);
	assert_int_equal(fake_sys.poll_calls, 0);
}

/* Another error than a missing device is not waited for. */
static void a_device_that_refuses_is_not_waited_for(void **s)
{
	fake_sys.open_err = -EACCES;
	assert_int_equal(ksnapd_open_ring(&ring, "/dev/ksnap", true, -1,
					  NULL), -EACCES);
	assert_int_equal(fake_sys.poll_calls, 0);
}

static int busy_device_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	assert_int_equal(n, 1);
	if (nr_waits < 8)
		waits[nr_waits++] = timeout;
	if (nr_waits == 4)
		fake_sys.open_err = 0;	/* the other reader closed it */
	return 0;
}

/* Only one reader opens the device read-write: the next gets EBUSY. */
static void busy_device_is_waited_for_with_backoff_said_once(void **s)
{
	char *log = NULL, *first;
	size_t len = 0;
	FILE *f = open_memstream(&log, &len);

	fake_sys.open_err = -EBUSY;
	fake_sys.poll_hook = busy_device_poll;
	nr_waits = 0;
	assert_int_equal(ksnapd_open_ring(&ring, "/dev/ksnap", true, -1, f), 0);
	ring_open = true;
	fclose(f);
	assert_int_equal(nr_waits, 4);
	assert_int_equal(waits[0], 1000);
	assert_int_equal(waits[1], 1300);
	assert_int_equal(waits[3], 2197);
	assert_contains(log, "ksnapd: /dev/ksnap: Device or resource busy: "
			"another reader holds it");
	assert_contains(log, "ksnapd.service");
	assert_contains(log, "systemctl disable --now ksnapd.service");
	first = strstr(log, "busy");
	if (strstr(first + 1, "Device or resource busy"))
		fail_msg("expected the busy device said once, got:\n%s", log);
	free(log);
}

static void busy_device_without_wait_fails_at_once(void **s)
{
	fake_sys.open_err = -EBUSY;
	assert_int_equal(ksnapd_open_ring(&ring, "/dev/ksnap", false, -1,
					  NULL), -EBUSY);
	assert_int_equal(fake_sys.poll_calls, 0);
}

static int sig_pipe[2];

static int signal_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	fds[0].revents = POLLIN;
	return 1;
}

static void send_signal(int signo)
{
	struct signalfd_siginfo si = { .ssi_signo = (uint32_t)signo };

	assert_int_equal(write(sig_pipe[1], &si, sizeof(si)), sizeof(si));
}

/* SIGTERM while waiting: -EINTR (ksnapd exits 0); a SIGHUP does not. */
static void a_stop_signal_ends_the_wait_a_hangup_does_not(void **s)
{
	assert_int_equal(pipe(sig_pipe), 0);
	fake_sys.open_err = -ENODEV;
	fake_sys.poll_hook = signal_poll;
	send_signal(SIGHUP);
	send_signal(SIGTERM);
	assert_int_equal(ksnapd_open_ring(&ring, "/dev/ksnap", true,
					  sig_pipe[0], NULL), -EINTR);
	assert_int_equal(fake_sys.poll_calls, 1);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(backoff_grows_by_1_3_up_to_30_s),
		T(missing_device_is_waited_for_with_backoff),
		T(missing_device_without_wait_fails_at_once),
		T(a_device_that_refuses_is_not_waited_for),
		T(busy_device_is_waited_for_with_backoff_said_once),
		T(busy_device_without_wait_fails_at_once),
		T(a_stop_signal_ends_the_wait_a_hangup_does_not),
	};

	return cmocka_run_group_tests_name("devwait", tests, NULL, NULL);
}

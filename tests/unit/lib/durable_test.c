// SPDX-License-Identifier: MIT
/*
 * The fsync thread (durable.h): what it syncs, a file handed over closed
 * after its fsync, an fsync's error said once, everything synced at the
 * end.  fsync and close go through the seam (fake_sys.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "durable.h"
#include "fake_sys.h"

#define FILE_A	701
#define FILE_B	702

static int fsync_err;
static int synced_fd[16];
static int nr_synced;

/* Runs on the thread: keeps the fds it was given, in order. */
static int record_fsync(int fd)
{
	int n = __atomic_load_n(&nr_synced, __ATOMIC_SEQ_CST);

	if (n < 16)
		synced_fd[n] = fd;
	__atomic_store_n(&nr_synced, n + 1, __ATOMIC_SEQ_CST);
	return __atomic_exchange_n(&fsync_err, 0, __ATOMIC_SEQ_CST);
}

static int setup(void **state)
{
	fake_sys_reset();
	fake_sys.fsync_hook = record_fsync;
	fsync_err = 0;
	nr_synced = 0;
	return 0;
}

static int teardown(void **state)
{
	fake_sys_reset();
	return 0;
}

static void nothing_written_no_thread_and_close_at_once(void **s)
{
	struct ksnap_durable d;
	int fd = open("/dev/null", O_WRONLY);

	assert_true(fd >= 0);
	ksnap_durable_init(&d);
	assert_int_equal(d.bound, KSNAP_DURABLE_BOUND);
	assert_int_equal(ksnap_durable_close(&d, fd), 0);
	assert_false(d.started);
	assert_int_equal(fake_sys.close_calls, 1);
	assert_int_equal(ksnap_durable_fini(&d), 0);
	assert_int_equal(fake_sys.fsync_calls, 0);
}

static void written_bytes_are_the_backlog_until_synced(void **s)
{
	struct ksnap_durable d;

	ksnap_durable_init(&d);
	d.bound = 1000;
	assert_true(ksnap_durable_room(&d, 1000));
	assert_int_equal(ksnap_durable_written(&d, FILE_A, 600), 0);
	assert_int_equal(ksnap_durable_written(&d, FILE_A, 300), 0);
	ksnap_durable_wait(&d);
	assert_int_equal(ksnap_durable_backlog(&d), 0);
	assert_int_equal(d.synced, 900);
	assert_true(ksnap_durable_room(&d, 1000));
	assert_false(ksnap_durable_room(&d, 1001));
	assert_true(nr_synced >= 1);
	assert_int_equal(synced_fd[0], FILE_A);
	assert_int_equal(ksnap_durable_fini(&d), 0);
	assert_int_equal(fake_sys.close_calls, 0);	/* the writer's fd */
}

/* A file handed over is synced, then closed, before the next one. */
static void handed_over_file_is_synced_then_closed(void **s)
{
	struct ksnap_durable d;

	ksnap_durable_init(&d);
	assert_int_equal(ksnap_durable_written(&d, FILE_A, 10), 0);
	assert_int_equal(ksnap_durable_close(&d, FILE_A), 0);
	assert_int_equal(ksnap_durable_written(&d, FILE_B, 20), 0);
	ksnap_durable_wait(&d);
	assert_int_equal(fake_sys.close_calls, 1);
	assert_int_equal(d.synced, 30);
	assert_int_equal(synced_fd[nr_synced - 1], FILE_B);
	assert_int_equal(ksnap_durable_fini(&d), 0);
	assert_int_equal(fake_sys.close_calls, 1);
}

/* An fsync's error comes back from the next write, once. */
static void fsync_error_is_said_once(void **s)
{
	struct ksnap_durable d;

	ksnap_durable_init(&d);
	fsync_err = -EIO;
	assert_int_equal(ksnap_durable_written(&d, FILE_A, 10), 0);
	ksnap_durable_wait(&d);
	assert_int_equal(ksnap_durable_written(&d, FILE_A, 10), -EIO);
	ksnap_durable_wait(&d);
	assert_int_equal(ksnap_durable_written(&d, FILE_A, 10), 0);
	assert_int_equal(ksnap_durable_fini(&d), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(nothing_written_no_thread_and_close_at_once),
		T(written_bytes_are_the_backlog_until_synced),
		T(handed_over_file_is_synced_then_closed),
		T(fsync_error_is_said_once),
	};

	return cmocka_run_group_tests_name("durable", tests, NULL, NULL);
}

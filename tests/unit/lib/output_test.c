// SPDX-License-Identifier: MIT
/* The output buffer: full writes, framing, fsync. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "output.h"

static int setup(void **state)
{
	fake_sys_reset();
	fake_sys.capture = true;
	return 0;
}

static int teardown(void **state)
{
	fake_sys_reset();
	return 0;
}

static void put(struct ksnap_out *o, const char *s)
{
	int err = 0;
	char *p = ksnap_out_reserve(o, strlen(s), &err);

	assert_non_null(p);
	memcpy(p, s, strlen(s));
	ksnap_out_commit(o, p + strlen(s));
}

static void full_write_retries_short_writes_and_eintr(void **state)
{
	fake_sys.write_max = 3;
	fake_sys.write_eintr = 2;
	assert_int_equal(ksnap_out_write_full(1, "hello world\n", 12), 0);
	assert_string_equal(fake_sys.wbuf, "hello world\n");
	assert_int_equal(fake_sys.write_calls, 2 + 4);
}

static int pollout_calls;

static int pollout_ready(struct pollfd *fds, nfds_t n, int timeout)
{
	assert_int_equal(n, 1);
	assert_int_equal(fds[0].fd, 1);
	if (!(fds[0].events & POLLOUT))
		fail_msg("expected a poll for POLLOUT, got events 0x%x",
			 fds[0].events);
	pollout_calls++;
	fds[0].revents = POLLOUT;
	return 1;
}

/* A non-blocking stdout (a pipe set O_NONBLOCK by whoever shares it):
 * EAGAIN means wait until it is writable, not a write error. */
static void full_write_waits_for_pollout_on_eagain(void **state)
{
	fake_sys.write_eagain = 3;
	fake_sys.poll_hook = pollout_ready;
	pollout_calls = 0;
	assert_int_equal(ksnap_out_write_full(1, "hello\n", 6), 0);
	assert_string_equal(fake_sys.wbuf, "hello\n");
	if (pollout_calls != 3)
		fail_msg("expected 3 polls for POLLOUT, got %d", pollout_calls);
}

static void write_error_is_returned_as_negative_errno(void **state)
{
	fake_sys.write_err = -ENOSPC;
	assert_int_equal(ksnap_out_write_full(1, "x", 1), -ENOSPC);
}

static void plain_flush_writes_lines_as_they_are(void **state)
{
	struct ksnap_out o;

	assert_int_equal(ksnap_out_init(&o, 1, true, false, 64), 0);
	put(&o, "a\n");
	put(&o, "b\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_int_equal(ksnap_out_flush(&o), 0);	/* nothing pending */
	assert_string_equal(fake_sys.wbuf, "a\nb\n");
	assert_int_equal(fake_sys.write_calls, 1);
	assert_int_equal(fake_sys.fsync_calls, 0);
	ksnap_out_fini(&o);
}

static void framed_flush_is_one_write_between_newlines_then_fsync(void **s)
{
	struct ksnap_out o;

	assert_int_equal(ksnap_out_init(&o, 1, true, true, 64), 0);
	put(&o, "a\n");
	put(&o, "b\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_string_equal(fake_sys.wbuf, "\na\nb\n\n");
	assert_int_equal(fake_sys.write_calls, 1);
	assert_int_equal(fake_sys.fsync_calls, 1);
	put(&o, "END\n");
	assert_int_equal(ksnap_out_flush_last(&o), 0);
	assert_string_equal(fake_sys.wbuf, "\na\nb\n\n\nEND\n");
	ksnap_out_fini(&o);
}

/* A signal during fsync() is not a failed flush: fsync() again. */
static void fsync_is_retried_on_eintr(void **s)
{
	struct ksnap_out o;
	int ret;

	assert_int_equal(ksnap_out_init(&o, 1, true, true, 64), 0);
	put(&o, "a\n");
	fake_sys.fsync_eintr = 2;
	ret = ksnap_out_flush(&o);
	if (ret)
		fail_msg("expected 0 from the flush, got %d (%s)", ret,
			 strerror(-ret));
	assert_int_equal(fake_sys.fsync_calls, 3);
	assert_string_equal(fake_sys.wbuf, "\na\n\n");
	ksnap_out_fini(&o);
}

static void framed_flush_to_a_pipe_does_not_fsync(void **state)
{
	struct ksnap_out o;

	assert_int_equal(ksnap_out_init(&o, 1, false, true, 64), 0);
	put(&o, "a\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_int_equal(fake_sys.fsync_calls, 0);
	ksnap_out_fini(&o);
}

static void reserve_flushes_when_full_and_grows_for_a_long_line(void **s)
{
	struct ksnap_out o;
	char big[200];

	assert_int_equal(ksnap_out_init(&o, 1, false, false, 16), 0);
	put(&o, "0123456789\n");
	put(&o, "abcdefghij\n");	/* does not fit: flushes first */
	assert_string_equal(fake_sys.wbuf, "0123456789\n");
	memset(big, 'x', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	put(&o, big);
	assert_true(o.cap >= sizeof(big) - 1);
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_int_equal(fake_sys.wlen, 11 + 11 + sizeof(big) - 1);
	ksnap_out_fini(&o);
}

/* A disk that fills in the middle of a framed flush to a regular file. */
static void full_regular_file_is_cut_back_and_the_flush_kept(void **s)
{
	struct ksnap_out o;

	assert_int_equal(ksnap_out_init(&o, 1, true, true, 64), 0);
	put(&o, "a\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	fake_sys.space_limited = true;
	fake_sys.space = fake_sys.wlen + 3;	/* part of the next block */
	put(&o, "bbbb\n");
	put(&o, "cccc\n");
	assert_int_equal(ksnap_out_flush(&o), -ENOSPC);
	/* Nothing of the failed block is left in the file ... */
	assert_string_equal(fake_sys.wbuf, "\na\n\n");
	assert_int_equal(fake_sys.ftruncate_calls, 1);
	/* ... and it is still buffered: retried, still full, still cut. */
	assert_int_equal(ksnap_out_pending(&o), 10);
	assert_int_equal(ksnap_out_flush(&o), -ENOSPC);
	assert_string_equal(fake_sys.wbuf, "\na\n\n");
	/* Room again: the whole block, once, one write. */
	fake_sys.space = 1000;
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_string_equal(fake_sys.wbuf, "\na\n\n\nbbbb\ncccc\n\n");
	assert_int_equal(ksnap_out_pending(&o), 0);
	ksnap_out_fini(&o);
}

/* Plain mode on a regular file: no partial line either. */
static void full_plain_file_never_ends_in_a_partial_line(void **s)
{
	struct ksnap_out o;

	assert_int_equal(ksnap_out_init(&o, 1, true, false, 64), 0);
	fake_sys.space_limited = true;
	fake_sys.space = 4;
	put(&o, "12345678\n");
	assert_int_equal(ksnap_out_flush(&o), -ENOSPC);
	assert_string_equal(fake_sys.wbuf, "");
	fake_sys.space = 1000;
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_string_equal(fake_sys.wbuf, "12345678\n");
	ksnap_out_fini(&o);
}

/* A sink that cannot be rewound: the retry writes only the rest. */
static void full_pipe_retry_writes_only_the_rest(void **s)
{
	struct ksnap_out o;

	assert_int_equal(ksnap_out_init(&o, 1, false, true, 64), 0);
	fake_sys.space_limited = true;
	fake_sys.space = 4;
	put(&o, "abcdef\n");
	assert_int_equal(ksnap_out_flush(&o), -ENOSPC);
	assert_int_equal(fake_sys.ftruncate_calls, 0);
	assert_string_equal(fake_sys.wbuf, "\nabc");
	fake_sys.space = 1000;
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_string_equal(fake_sys.wbuf, "\nabcdef\n\n");
	ksnap_out_fini(&o);
}

/* Another error than "full" is returned the same way, buffer kept. */
static void edquot_is_a_full_error_eio_is_not(void **s)
{
	assert_true(ksnap_out_full_error(-ENOSPC));
	assert_true(ksnap_out_full_error(-EDQUOT));
	assert_false(ksnap_out_full_error(-EIO));
	assert_false(ksnap_out_full_error(0));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(full_write_retries_short_writes_and_eintr),
		T(full_write_waits_for_pollout_on_eagain),
		T(write_error_is_returned_as_negative_errno),
		T(plain_flush_writes_lines_as_they_are),
		T(framed_flush_is_one_write_between_newlines_then_fsync),
		T(fsync_is_retried_on_eintr),
		T(framed_flush_to_a_pipe_does_not_fsync),
		T(reserve_flushes_when_full_and_grows_for_a_long_line),
		T(full_regular_file_is_cut_back_and_the_flush_kept),
		T(full_plain_file_never_ends_in_a_partial_line),
		T(full_pipe_retry_writes_only_the_rest),
		T(edquot_is_a_full_error_eio_is_not),
	};

	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}

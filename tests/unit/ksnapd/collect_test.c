// SPDX-License-Identifier: MIT
/*
 * ksnapd's collector on a fake device (ksnapd_fixture.h): which
 * collections it writes, where in the ring it begins, the order of the
 * rows, the done handshake, stop signals and --stop-on-exit, overwrite
 * mode, protocol errors, and the consumer interface.
 */
#include <sys/mman.h>

#include "ksnapd_fixture.h"

static void push_two_and_stop(int call)
{
	if (call == 1) {
		fake_ring_push(&fr, 3000, 30);
		fake_ring_push(&fr, 4000, 40);
		fr.ctrl->stats.lateness_sum_ns = 500;
		fr.ctrl->stats.read_sum_ns = 600;
		fake_ring_stop(&fr);
	}
}

static void stop_writes_stats_after_the_last_row_then_exits(void **s)
{
	fake_ring_start(&fr, 1, 3, 1000, 100000, 1700000000000000000ULL);
	fake_ring_push(&fr, 1000, 10);
	fake_ring_push(&fr, 2000, 20);
	attach(false);
	script = push_two_and_stop;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_string_equal(output(),
		"META\t/ksnap/mem\t{\"name\":\"/ksnap/mem\",\"description\":"
		"\"Memory.\",\"type\":\"TYPE_UINT64\"}\n"
		"META\t/ksnap/cpu\t{\"name\":\"/ksnap/cpu\",\"description\":"
		"\"CPU.\",\"cumulative\":true,\"type\":\"TYPE_UINT64\","
		"\"units\":\"UNITS_NANOSECONDS\",\"fields\":[{\"fieldName\":"
		"\"cgroup\",\"allowedValues\":[\"/a\",\"/b\"]}]}\n"
		"START_TIME\t1700000000000000000\n"
		"Time (ns)\t/ksnap/mem\t/ksnap/cpu[/a]\t/ksnap/cpu[/b]\n"
		"1000\t10\t11\t12\n"
		"2000\t20\t21\t22\n"
		"3000\t30\t31\t32\n"
		"4000\t40\t41\t42\n"
		"STATS\t{\"collection_rate\":1000,"
		"\"collection_rate_nanos\":1000,"
		"\"cheap_start_nanos\":100000,"
		"\"cheap_last_collection_nanos\":104000,"
		"\"total_snapshots\":4,"
		"\"total_sleep_timing_error\":0,"
		"\"total_sleep_timing_error_nanos\":0,"
		"\"total_collection_timing_error\":0,"
		"\"total_collection_timing_error_nanos\":0,"
		"\"num_backoff_sleeps\":0,\"total_backoff_sleep\":0,"
		"\"total_backoff_sleep_nanos\":0,"
		"\"ksnap_snapshots_taken\":4,\"ksnap_snapshots_lost\":0,"
		"\"ksnap_periods_missed\":0,\"ksnap_periods_thinned\":0,"
		"\"ksnap_max_lateness_nanos\":0,"
		"\"ksnap_max_read_nanos\":0,"
		"\"ksnap_lateness_sum_nanos\":500,"
		"\"ksnap_read_sum_nanos\":600,\"ksnap_bad_tail\":0,"
		"\"ksnap_cgroups_skipped\":0,"
		"\"ksnapd_rows_dropped\":0,"
		"\"ksnapd_snapshots_overwritten\":0,"
		"\"ksnapd_snapshots_skipped\":0,"
		"\"ksnapd_first_position\":0,"
		"\"ksnapd_rows_in_earlier_files\":0,"
		"\"ksnapd_files_removed\":0,\"ksnapd_bytes_removed\":0,"
		"\"ksnap_exits_lost\":0,\"ksnapd_exits_unlisted\":0,"
		"\"ksnapd_cgroups_unnamed\":0}\n");
	assert_int_equal(fake_sys.poll_calls, 1);
	assert_int_equal(fr.cons->tail, 4);
	assert_int_equal(fr.reader_done, 1);
	assert_int_equal(fr.reader_seen,
			 KSNAP_GEN_STATE(1, KSNAP_STATE_STOPPED));
}

static void stopped_and_drained_collection_gives_exactly_one_stats(void **s)
{
	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 1);
	attach(false);

	assert_int_equal(ksnapd_step(&d), 0);
	fake_ring_stop(&fr);
	assert_int_equal(ksnapd_step(&d), 1);
	/* Once done, more steps write nothing more. */
	assert_int_equal(ksnapd_step(&d), 1);
	assert_int_equal(ksnapd_step(&d), 1);
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
	assert_int_equal(count_lines_starting(output(), "1000\t1"), 1);
	assert_int_equal(fr.reader_done, 2);
}

static void start_and_stop(int call)
{
	if (call == 2) {
		fake_ring_start(&fr, 4, 1, 500, 0, 99);
		fake_ring_push(&fr, 10, 7);
	} else if (call == 3) {
		fake_ring_stop(&fr);
	}
}

static void started_while_stopped_waits_for_the_next_start(void **s)
{
	fake_ring_start(&fr, 3, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1, 1);
	fake_ring_stop(&fr);
	attach(false);			/* the kernel: 3 is done */

	assert_int_equal(ksnapd_step(&d), 0);
	assert_string_equal(output(), "");
	assert_int_equal(fr.reader_seen,
			 KSNAP_GEN_STATE(3, KSNAP_STATE_STOPPED));

	script = start_and_stop;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(count_lines_starting(output(), "START_TIME\t99\n"), 1);
	assert_int_equal(count_lines_starting(output(), "10\t7\n"), 1);
	assert_int_equal(count_lines_starting(output(), "1\t1\n"), 0);
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
	assert_int_equal(fr.reader_done, 4);
}

/* The kernel's start and stop both before ksnapd looks (echo 1; echo 0). */
static void start_and_stop_unseen(int call)
{
	if (call == 1) {
		fake_ring_start(&fr, 4, 1, 1000, 0, 44);
		fake_ring_push(&fr, 1000, 1);
		fake_ring_push(&fr, 1500, 2);	/* the stop's last snapshot */
		fake_ring_stop(&fr);
	}
}

static void collection_started_and_stopped_unseen_is_written_and_done(
	void **s)
{
	fake_ring_start(&fr, 3, 1, 1000, 0, 1);
	fake_ring_stop(&fr);
	attach(false);			/* the kernel: 3 is done */
	script = start_and_stop_unseen;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_contains(output(), "START_TIME\t44\n");
	assert_contains(output(), "1000\t1\n1500\t2\nSTATS\t");
	assert_contains(output(), "\"total_snapshots\":2,");
	/* Handed back: the kernel would refuse the next start otherwise. */
	if (fr.reader_done != 4)
		fail_msg("expected done_generation 4, got %u",
			 fr.reader_done);
	assert_int_equal(fr.cons->tail, 2);
	assert_int_equal(fr.reader_seen,
			 KSNAP_GEN_STATE(4, KSNAP_STATE_STOPPED));
}

static void start_after_unfinished(int call)
{
	if (call == 1) {
		fake_ring_start(&fr, 6, 1, 1000, 0, 66);
		fake_ring_push(&fr, 1000, 60);
	} else if (call == 2) {
		fake_ring_stop(&fr);
	}
}

/*
 * An earlier reader left collection 5 stopped with rows unread; the kernel
 * counts it as finished when ksnapd opens the device.  ksnapd does not
 * write it, but moves the tail to head: poll() would report the unread
 * records forever otherwise, and ksnapd would spin.
 */
static void stopped_unfinished_collection_of_an_earlier_reader_is_skipped(
	void **s)
{
	fake_ring_start(&fr, 5, 1, 1000, 0, 55);
	fake_ring_push(&fr, 1000, 50);
	fake_ring_push(&fr, 2000, 51);
	fake_ring_push(&fr, 3000, 52);
	fake_ring_stop(&fr);
	fr.cons->tail = 1;		/* the earlier reader got this far */
	attach(false);			/* the kernel: 5 is done */

	assert_int_equal(ksnapd_step(&d), 0);
	assert_string_equal(output(), "");
	/* Nothing left for poll() to report: it sleeps. */
	if (fr.cons->tail != fr.ctrl->head)
		fail_msg("expected tail == head (%llu), got tail %llu",
			 (unsigned long long)fr.ctrl->head,
			 (unsigned long long)fr.cons->tail);
	assert_int_equal(fr.reader_seen,
			 KSNAP_GEN_STATE(5, KSNAP_STATE_STOPPED));
	assert_int_equal(fr.reader_done, 5);

	/* The next collection is written as usual. */
	script = start_after_unfinished;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(count_lines_starting(output(), "START_TIME\t"), 1);
	assert_contains(output(), "START_TIME\t66\n");
	assert_int_equal(count_lines_starting(output(), "1000\t60\n"), 1);
	assert_int_equal(count_lines_starting(output(), "2000\t"), 0);
	assert_int_equal(fr.reader_done, 6);
}

static void attached_mid_collection_writes_rows_from_the_tail(void **s)
{
	uint64_t pos;

	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
	for (pos = 0; pos < 10; pos++)
		fake_ring_push(&fr, pos * 1000, pos);
	fr.cons->tail = 7;		/* a previous reader got this far */
	attach(false);
	script = stop_now;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_contains(output(), "Time (ns)\t/ksnap/mem\n"
			       "7000\t7\n8000\t8\n9000\t9\nSTATS\t");
	assert_contains(output(), "\"total_snapshots\":3,");
	/* The 7 before: an earlier reader's; taken = 7 + rows + lost. */
	assert_contains(output(), "\"ksnapd_first_position\":7");
	assert_int_equal(fr.cons->tail, 10);
}

/*
 * Positions go on across collections (ksnap_abi.h): a collection that
 * begins at position 10 with the reader's tail still at the end of the
 * previous one, or far below it, starts at its first record, and is not a
 * resumed one.
 */
static void a_collection_begins_at_its_start_position(void **s)
{
	static const uint64_t tails[] = { 10, 3, 0 };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		teardown(NULL);
		setup(NULL);
		fr.ctrl->head = 10;
		fake_ring_start(&fr, 4, 1, 1000, 0, 1);
		fake_ring_push(&fr, 1000, 100);
		fake_ring_push(&fr, 2000, 200);
		fr.cons->tail = tails[i];
		attach(false);
		script = stop_now;
		assert_int_equal(ksnapd_run(&d, -1), 0);
		assert_contains(output(), "Time (ns)\t/ksnap/mem\n"
				"1000\t100\n2000\t200\nSTATS\t");
		assert_contains(output(), "\"ksnapd_first_position\":0,");
		if (fr.cons->tail != 12)
			fail_msg("tail %llu before: expected it at 12 after, got "
				 "%llu", (unsigned long long)tails[i],
				 (unsigned long long)fr.cons->tail);
	}
}

/* Resumed in a collection that began at 10: first_position counts from 10. */
static void a_resumed_position_counts_from_the_collection_start(void **s)
{
	uint64_t pos;

	fr.ctrl->head = 10;
	fake_ring_start(&fr, 4, 1, 1000, 0, 1);
	for (pos = 0; pos < 5; pos++)
		fake_ring_push(&fr, (pos + 1) * 1000, pos);
	fr.cons->tail = 13;		/* the killed ksnapd got this far */
	attach(false);
	script = stop_now;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_contains(output(), "Time (ns)\t/ksnap/mem\n4000\t3\n5000\t4\n");
	assert_contains(output(), "\"ksnapd_first_position\":3,");
}

/*
 * A garbage tail a little above head (all ones: head - tail is 6 modulo
 * 2^64, less than a ring) is not "6 records unread": it is garbage, and
 * ksnapd resumes from head instead of writing old slots as rows.
 */
static void tail_above_head_is_garbage_even_when_it_wraps_close(void **s)
{
	uint64_t pos;

	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
	for (pos = 0; pos < 5; pos++)
		fake_ring_push(&fr, (pos + 1) * 1000, pos);
	fr.cons->tail = UINT64_MAX;
	attach(false);
	script = stop_now;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	if (d.out.count.rows != 0)
		fail_msg("expected no rows from a garbage tail, got %llu:\n%s",
			 (unsigned long long)d.out.count.rows, output());
	assert_contains(output(), "Time (ns)\t/ksnap/mem\nSTATS\t");
	assert_int_equal(fr.cons->tail, 5);
}

static void wrap_rows(int call)
{
	uint64_t i;

	if (call <= 3) {	/* 3 x 6 records through an 8-slot ring */
		for (i = 0; i < 6; i++)
			fake_ring_push(&fr, fr.ctrl->head, fr.ctrl->head);
	} else {
		fake_ring_stop(&fr);
	}
}

static void rows_keep_order_when_positions_wrap(void **s)
{
	char want[32];
	const char *p;
	uint64_t i;

	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	attach(false);
	script = wrap_rows;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	p = strstr(output(), "Time (ns)\t/ksnap/mem\n");
	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	for (i = 0; i < 18; i++) {
		snprintf(want, sizeof(want), "%llu\t%llu\n",
			 (unsigned long long)i, (unsigned long long)i);
		assert_memory_equal(p, want, strlen(want));
		p += strlen(want);
	}
	assert_memory_equal(p, "STATS\t", 6);
	assert_int_equal(fr.cons->tail, 18);
}

static void push_then_signal(int call)
{
	struct signalfd_siginfo si = { .ssi_signo = SIGTERM };

	fake_ring_push(&fr, 5000, 5);
	assert_int_equal(write(sig_pipe[1], &si, sizeof(si)), sizeof(si));
}

static int signal_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	scripted_poll(fds, n, timeout);
	fds[0].revents = POLLIN;
	return 1;
}

static void sigterm_drains_writes_stats_and_exits_zero(void **s)
{
	fake_ring_start(&fr, 6, 1, 1000, 0, 1);
	fake_ring_push(&fr, 4000, 4);
	attach(false);
	assert_int_equal(pipe(sig_pipe), 0);
	fake_sys.poll_hook = signal_poll;
	script = push_then_signal;

	assert_int_equal(ksnapd_run(&d, sig_pipe[0]), 0);
	assert_true(d.col.stop);
	assert_contains(output(), "4000\t4\n5000\t5\nSTATS\t");
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
	/* Still running: not handed back as done (5 is, since the open). */
	assert_int_equal(fr.reader_done, 5);
	assert_int_equal(fr.cons->tail, 2);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
}

/*
 * The kernel takes a snapshot after the drain (counted in taken, its
 * record not yet published) and counts one lost: the STATS of a stream
 * ended by a stop signal while the collection runs describe what was
 * read, so that they add up (taken = rows + lost + first_position).
 */
static void push_one_in_flight_then_signal(int call)
{
	struct signalfd_siginfo si = { .ssi_signo = SIGTERM };

	fake_ring_push(&fr, 5000, 5);
	assert_int_equal(write(sig_pipe[1], &si, sizeof(si)), sizeof(si));
	fr.ctrl->stats.taken += 2;	/* one in flight, one lost */
	fr.ctrl->stats.lost++;
}

static void sigterm_while_running_gives_stats_that_add_up(void **s)
{
	fake_ring_start(&fr, 6, 1, 1000, 0, 1);
	fake_ring_push(&fr, 4000, 4);
	attach(false);
	assert_int_equal(pipe(sig_pipe), 0);
	fake_sys.poll_hook = signal_poll;
	script = push_one_in_flight_then_signal;

	assert_int_equal(ksnapd_run(&d, sig_pipe[0]), 0);
	assert_contains(output(), "4000\t4\n5000\t5\nSTATS\t");
	/* 2 rows + 1 lost; the snapshot in flight is not this stream's. */
	assert_contains(output(), "\"ksnap_snapshots_taken\":3,");
	assert_contains(output(), "\"ksnap_snapshots_lost\":1,");
	close(sig_pipe[0]);
	close(sig_pipe[1]);
}

/* --stop-on-exit: the "kernel" stops synchronously, with a last snapshot. */
static int stop_calls;
static bool stats_before_stop;

static int kernel_stop(void *arg)
{
	stop_calls++;
	stats_before_stop = strstr(output(), "STATS\t") != NULL;
	fake_ring_push(&fr, 6000, 6);	/* flagged KSNAP_REC_LAST */
	fake_ring_stop(&fr);
	return 0;
}

static void sigterm_with_stop_on_exit_stops_then_drains_the_last_snapshot(
	void **s)
{
	fake_ring_start(&fr, 6, 1, 1000, 0, 1);
	fake_ring_push(&fr, 4000, 4);
	cfg.stop_collection = kernel_stop;
	attach(false);
	stop_calls = 0;
	stats_before_stop = false;
	assert_int_equal(pipe(sig_pipe), 0);
	fake_sys.poll_hook = signal_poll;
	script = push_then_signal;

	assert_int_equal(ksnapd_run(&d, sig_pipe[0]), 0);
	assert_true(d.col.stop);
	assert_int_equal(stop_calls, 1);
	assert_int_equal(d.col.stop_ret, 0);
	assert_false(stats_before_stop);
	/* The stop's snapshot is the last row, then STATS counts it. */
	assert_contains(output(), "4000\t4\n5000\t5\n6000\t6\nSTATS\t");
	assert_contains(output(), "\"total_snapshots\":3,");
	assert_contains(output(), "\"ksnap_snapshots_taken\":3,");
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
	/* Stopped and written out: handed back as done. */
	assert_int_equal(fr.reader_done, 6);
	assert_int_equal(fr.reader_seen,
			 KSNAP_GEN_STATE(6, KSNAP_STATE_STOPPED));
	assert_int_equal(fr.cons->tail, 3);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
}

static int failing_stop(void *arg)
{
	stop_calls++;
	return -EACCES;
}

static void stop_on_exit_failure_still_writes_stats(void **s)
{
	fake_ring_start(&fr, 6, 1, 1000, 0, 1);
	fake_ring_push(&fr, 4000, 4);
	cfg.stop_collection = failing_stop;
	attach(false);
	stop_calls = 0;
	assert_int_equal(pipe(sig_pipe), 0);
	fake_sys.poll_hook = signal_poll;
	script = push_then_signal;

	assert_int_equal(ksnapd_run(&d, sig_pipe[0]), 0);
	assert_int_equal(stop_calls, 1);
	/* What the stop returned, for ksnapd's exit status. */
	assert_int_equal(d.col.stop_ret, -EACCES);
	assert_contains(output(), "4000\t4\n5000\t5\nSTATS\t");
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
	assert_int_equal(fr.reader_done, 5);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
}

static void stop_on_exit_is_not_called_without_a_signal(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1, 1);
	cfg.stop_collection = failing_stop;
	attach(false);
	stop_calls = 0;
	script = stop_now;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(stop_calls, 0);
	assert_int_equal(d.col.stop_ret, KSNAPD_STOP_NOT_CALLED);
}

static void sigterm_while_waiting_exits_without_output(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_stop(&fr);
	attach(false);
	d.col.stop = true;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_string_equal(output(), "");
}

static int hangup_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	fds[1].revents = POLLHUP;
	return 1;
}

static void device_hangup_is_an_error(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	attach(false);
	fake_sys.poll_hook = hangup_poll;
	assert_int_equal(ksnapd_run(&d, -1), -EIO);
	assert_contains(d.err, "hang-up");
}

static void overrun(int call)
{
	fr.ctrl->head = 100;
}

static void head_too_far_ahead_of_tail_is_a_protocol_error(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	attach(false);
	script = overrun;
	assert_int_equal(ksnapd_run(&d, -1), -EPROTO);
	assert_contains(d.err, "out of range");
}

static void too_many_columns_names_the_value_and_the_limit(void **s)
{
	fake_ring_start(&fr, 1, 100, 1000, 0, 1);
	attach(false);
	assert_int_equal(ksnapd_step(&d), -EPROTO);
	assert_string_equal(d.err, "bad collection fields in the ring: "
			    "nr_columns 100, more than it has room for "
			    "(3 values in a record of 64 bytes)");
}

static void restart(int call)
{
	fake_ring_stop(&fr);
	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
}

static void generation_change_mid_stream_is_a_protocol_error(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	attach(false);
	script = restart;
	assert_int_equal(ksnapd_run(&d, -1), -EPROTO);
	assert_contains(d.err, "replaced");
}

/* --device FILE: a regular file laid out like the device, real syscalls. */
static void regular_file_device_is_read_like_the_device(void **s)
{
	char path[] = "/tmp/ksnap-ring-XXXXXX";
	size_t len = fake_ring_size(3, 8);
	void *mem;
	int fd;

	fake_ring_free(&fr);
	fake_sys.mem = NULL;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(mem != MAP_FAILED);
	fake_ring_init(&fr, mem, 3, 8);
	columns();
	fake_ring_start(&fr, 1, 3, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 10);
	close(fd);

	assert_int_equal(ksnap_ring_open(&ring, path), 0);
	unlink(path);		/* stays mapped; nothing left behind */
	assert_true(ring.regular_file);
	assert_int_equal(ksnapd_init(&d, &ring, &cfg), 0);
	d.out.sink.regular = false;
	script = push_two_and_stop;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_contains(output(), "1000\t10\t11\t12\n"
			       "3000\t30\t31\t32\n4000\t40\t41\t42\nSTATS\t");
	/* The consumer page is shared with the file. */
	assert_int_equal(fr.cons->tail, 3);
	assert_int_equal(fr.reader_done, 1);
	munmap(mem, len);
}

/*
 * overflow=overwrite: the "kernel" laps the reader; ksnapd counts what was
 * overwritten by position and seq, and taken = rows + overwritten.
 */
static void lap_and_stop(int call)
{
	int i;

	if (call == 1) {
		for (i = 1; i <= 20; i++)
			fake_ring_push(&fr, (uint64_t)i * 1000, (uint64_t)i);
		fake_ring_stop(&fr);
	}
}

static void overwrite_mode_counts_what_was_overwritten(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fr.ctrl->flags = KSNAP_CTRL_OVERWRITE;
	attach(false);
	script = lap_and_stop;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	/* Stopped: the whole last ring (positions 12..19) is readable. */
	assert_int_equal(count_lines_starting(output(), "12000\t"), 0);
	assert_int_equal(count_lines_starting(output(), "13000\t"), 1);
	assert_int_equal(count_lines_starting(output(), "20000\t"), 1);
	assert_int_equal(d.out.count.rows, 8);
	assert_int_equal(d.col.overwritten, 12);
	assert_contains(output(), "\"total_snapshots\":8,");
	assert_contains(output(), "\"ksnapd_snapshots_overwritten\":12,");
	assert_int_equal(d.out.count.rows + d.col.overwritten, fr.ctrl->stats.taken);
}

static void lap_running(int call)
{
	int i;

	if (call == 1)
		for (i = 1; i <= 20; i++)
			fake_ring_push(&fr, (uint64_t)i * 1000, (uint64_t)i);
	if (call == 2) {
		fake_ring_push(&fr, 21000, 21);
		fake_ring_stop(&fr);
	}
}

static void overwrite_mode_running_skips_the_slot_being_written(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fr.ctrl->flags = KSNAP_CTRL_OVERWRITE;
	attach(false);
	script = lap_running;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	/* Running, head 20: slot of 12 is where 20 may be being written. */
	assert_int_equal(count_lines_starting(output(), "13000\t"), 0);
	assert_int_equal(count_lines_starting(output(), "14000\t"), 1);
	assert_int_equal(count_lines_starting(output(), "21000\t"), 1);
	assert_int_equal(d.out.count.rows, 8);
	assert_int_equal(d.col.overwritten, 13);
	assert_int_equal(d.out.count.rows + d.col.overwritten, fr.ctrl->stats.taken);
}

static void torn(int call)
{
	if (call == 1) {
		fake_ring_push(&fr, 1000, 1);
		fake_ring_push(&fr, 2000, 2);
		fake_ring_push(&fr, 3000, 3);
		/* As if overwritten after head was loaded: seq moved on. */
		fake_ring_slot(&fr, 1)->seq = 9;
		fake_ring_stop(&fr);
	}
}

static void overwrite_mode_checks_each_record_seq(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fr.ctrl->flags = KSNAP_CTRL_OVERWRITE;
	attach(false);
	script = torn;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(count_lines_starting(output(), "2000\t"), 0);
	assert_int_equal(d.out.count.rows, 2);
	assert_int_equal(d.col.overwritten, 1);
}

/* --- the consumer interface -------------------------------------------- */

/* A second consumer beside the output file: what it saw. */
struct recorder {
	int begins, ends, end_calls;
	uint32_t gen;
	uint64_t first_position, taken;
	uint64_t times[16];
	int rows;
	int not_yet;		/* end() says "not yet" this many times */
	bool stopping;
};

static int rec_begin(void *self, const struct ksnap_coll *c, uint64_t first)
{
	struct recorder *r = self;

	r->begins++;
	r->gen = c->generation;
	r->first_position = first;
	return 0;
}

static int rec_row(void *self, const struct ksnap_record *rec)
{
	struct recorder *r = self;

	if (r->rows < 16)
		r->times[r->rows] = rec->time_ns;
	r->rows++;
	return 0;
}

static int rec_end(void *self, const struct ksnapd_end *e)
{
	struct recorder *r = self;

	r->end_calls++;
	r->stopping = e->stopping;
	if (r->not_yet) {
		r->not_yet--;
		return 1;
	}
	r->ends++;
	r->taken = e->stats.ksnap_snapshots_taken;
	return 0;
}

/* No wake(), no flush(): they may be NULL. */
static const struct ksnapd_consumer_ops recorder_ops = {
	.begin = rec_begin,
	.row = rec_row,
	.end = rec_end,
};

static struct recorder rec, rec2;

static void a_second_consumer_sees_the_rows_the_output_gets(void **s)
{
	fake_ring_start(&fr, 3, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 1);
	fr.cons->tail = 1;		/* an earlier reader's first row */
	fake_ring_push(&fr, 2000, 2);
	attach(false);
	memset(&rec, 0, sizeof(rec));
	assert_int_equal(ksnapd_collect_add(&d.col, &recorder_ops, &rec), 0);
	/* Room for three: the output file, this one and one more. */
	memset(&rec2, 0, sizeof(rec2));
	assert_int_equal(ksnapd_collect_add(&d.col, &recorder_ops, &rec2), 0);
	assert_int_equal(ksnapd_collect_add(&d.col, &recorder_ops, &rec),
			 -ENOSPC);
	script = push_two_and_stop;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_contains(output(), "2000\t2\n3000\t30\n4000\t40\nSTATS\t");
	assert_int_equal(rec.begins, 1);
	assert_int_equal(rec.gen, 3);
	assert_int_equal(rec.first_position, 1);
	assert_int_equal(rec.rows, 3);
	assert_int_equal(rec.times[0], 2000);
	assert_int_equal(rec.times[1], 3000);
	assert_int_equal(rec.times[2], 4000);
	assert_int_equal(rec.ends, 1);
	assert_int_equal(rec.taken, 4);
	assert_false(rec.stopping);
	assert_int_equal(fr.reader_done, 3);
}

/*
 * A consumer not done with the end holds the collection back from the
 * kernel; the one that is done is not asked again (one STATS line).
 */
static void the_collection_is_handed_back_once_every_consumer_has_ended(
	void **s)
{
	fake_ring_start(&fr, 3, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 1);
	attach(false);
	memset(&rec, 0, sizeof(rec));
	rec.not_yet = 2;
	assert_int_equal(ksnapd_collect_add(&d.col, &recorder_ops, &rec), 0);
	fake_ring_stop(&fr);

	assert_int_equal(ksnapd_step(&d), 0);
	assert_int_equal(d.col.state, KSNAPD_END);
	assert_int_equal(fr.reader_done, 2);
	assert_int_equal(fr.reader_seen,
			 KSNAP_GEN_STATE(3, KSNAP_STATE_STOPPED));
	assert_int_equal(ksnapd_step(&d), 0);
	assert_int_equal(fr.reader_done, 2);
	assert_int_equal(ksnapd_step(&d), 1);
	assert_int_equal(fr.reader_done, 3);
	assert_int_equal(rec.end_calls, 3);
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
}

/* The kernel stops the collection: its reads stayed above the bound. */
static void overrun_stop(int call)
{
	if (call == 1) {
		fake_ring_push(&fr, 2000, 20);
		fr.ctrl->stats.read_estimate_ns = 30000;
		fr.ctrl->stats.read_bound_ns = 1000;
		fr.ctrl->stats.read_recent_ns = 45000;
		fr.ctrl->stop_reason = KSNAP_STOP_OVERRUN;
		fake_ring_stop(&fr);
	}
}

/*
 * Collection gen (fake_ring_start()'s figures), with its first record
 * (time 1000, value 10) when push_first, run by scr to its end; what
 * ksnapd logged meanwhile (free it).
 */
static char *run_logged(uint32_t gen, uint32_t ncols, uint64_t period_ns,
			uint64_t mono, bool push_first, void (*scr)(int call))
{
	char *log = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&log, &len);

	assert_non_null(f);
	cfg.log = f;
	fake_ring_start(&fr, gen, ncols, period_ns, mono, 1);
	if (push_first)
		fake_ring_push(&fr, 1000, 10);
	attach(false);
	script = scr;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	fclose(f);
	return log;
}

static void a_stop_by_the_kernel_on_overrun_is_reported(void **s)
{
	char *log;

	log = run_logged(5, 1, 1000, 0, true, overrun_stop);
	assert_contains(log, "ksnapd: collection 5 was stopped by the kernel: "
			"reading a snapshot took longer than its bound of "
			"1000 ns for a sustained time (the longest read of "
			"the last second: 45000 ns; estimated at start: "
			"30000 ns)");
	assert_int_equal(count_lines_starting(log, "ksnapd: collection 5 "
					      "was stopped"), 1);
	assert_int_equal(count_lines_starting(output(), "2000\t20\n"), 1);
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
	free(log);
}

/* "key":N in the STATS line number n (from 1) of out, or -1. */
static long long stats_value(const char *out, int n, const char *key)
{
	const char *p = out;
	char want[64];

	while (n-- > 0 && p) {
		p = strstr(p, "STATS\t");
		if (p && n)
			p++;
	}
	if (!p)
		return -1;
	snprintf(want, sizeof(want), "\"%s\":", key);
	p = strstr(p, want);
	return p ? strtoll(p + strlen(want), NULL, 10) : -1;
}

/*
 * The STATS identity of stream n (from 1) of out: taken = first_position
 * + rows + lost + overwritten + dropped + skipped.
 */
static bool identity_holds(const char *out, int n)
{
	long long taken = stats_value(out, n, "ksnap_snapshots_taken");
	long long sum = stats_value(out, n, "ksnapd_first_position") +
			stats_value(out, n, "total_snapshots") +
			stats_value(out, n, "ksnap_snapshots_lost") +
			stats_value(out, n, "ksnapd_snapshots_overwritten") +
			stats_value(out, n, "ksnapd_rows_dropped") +
			stats_value(out, n, "ksnapd_snapshots_skipped");

	if (taken != sum)
		print_error("stream %d: taken %lld, accounted for %lld\n", n,
			    taken, sum);
	return taken >= 0 && taken == sum;
}

/*
 * A newer module's record, its header one u64 longer (values_offset 48):
 * its values are read from there; a record of an earlier column set than
 * the collection's is skipped and counted, never written under the
 * collection's columns.
 */
static void push_other_layouts_and_stop(int call)
{
	struct ksnap_record *r;
	uint64_t *raw;

	if (call != 1)
		return;
	fake_ring_push(&fr, 2000, 0);
	r = fake_ring_slot(&fr, fr.ctrl->head - 1);
	raw = (uint64_t *)r;
	raw[5] = 0xfeedULL;	/* the newer header's field */
	raw[6] = 20;
	raw[7] = 21;
	r->values_offset = 48;
	fake_ring_push(&fr, 3000, 30);
	fake_ring_slot(&fr, fr.ctrl->head - 1)->set_id = 0;
	fake_ring_push(&fr, 4000, 40);
	fake_ring_stop(&fr);
}

static void records_are_read_by_values_offset_and_set_id(void **s)
{
	char *log;

	/* Two columns: a 64-byte slot holds a 48-byte header and both. */
	log = run_logged(6, 2, 1000, 0, true, push_other_layouts_and_stop);
	assert_contains(output(), "Time (ns)\t/ksnap/mem\t/ksnap/cpu[/a]\n"
			"1000\t10\t11\n2000\t20\t21\n4000\t40\t41\nSTATS\t");
	assert_int_equal(count_lines_starting(output(), "3000\t"), 0);
	assert_contains(log, "ksnapd: collection 6: 1 records not of its "
			"column set 1");
	/* Counted: taken 4 = 3 rows + 1 skipped. */
	assert_int_equal(stats_value(output(), 1, "ksnapd_snapshots_skipped"),
			 1);
	assert_true(identity_holds(output(), 1));
	/* Skipped, yet read: the tail is past it and the collection done. */
	assert_int_equal(fr.cons->tail, 4);
	assert_int_equal(fr.reader_done, 6);
	free(log);
}

/*
 * The set changes while the collection runs (kmod/follow.c): two columns,
 * then three (a cgroup came), then two again (another went).
 */
static void change_sets_and_stop(int call)
{
	if (call == 1) {
		fake_ring_push(&fr, 2000, 20);
		fake_ring_set_change(&fr, 3);
		fake_ring_push(&fr, 3000, 30);
		fake_ring_push(&fr, 4000, 40);
	} else if (call == 2) {
		fake_ring_set_change(&fr, 2);
		fake_ring_push(&fr, 5000, 50);
		fr.ctrl->stats.taken += 2;	/* two lost, ring full */
		fr.ctrl->stats.lost = 2;
		fake_ring_stop(&fr);
	}
}

/*
 * Each set gets a stream of its own: the old one ends with its STATS,
 * the next begins (META, START_TIME, header of the new set's columns)
 * with the very next record: no row lost between them.  Each stream's
 * taken = rows + lost + first_position holds; the last one carries the
 * collection's totals.
 */
static void a_set_change_ends_the_stream_and_begins_the_next(void **s)
{
	char *log;
	const char *out;

	log = run_logged(7, 2, 1000, 0, true, change_sets_and_stop);
	out = output();
	assert_contains(out, "Time (ns)\t/ksnap/mem\t/ksnap/cpu[/a]\n"
			"1000\t10\t11\n2000\t20\t21\nSTATS\t");
	assert_contains(out, "Time (ns)\t/ksnap/mem\t/ksnap/cpu[/a]\t"
			"/ksnap/cpu[/b]\n3000\t30\t31\t32\n4000\t40\t41\t42\n"
			"STATS\t");
	assert_contains(out, "Time (ns)\t/ksnap/mem\t/ksnap/cpu[/a]\n"
			"5000\t50\t51\nSTATS\t");
	assert_int_equal(count_lines_starting(out, "STATS\t"), 3);
	assert_int_equal(count_lines_starting(out, "START_TIME\t1\n"), 3);
	/* Stream 1: positions 0..1; stream 2: 2..3; stream 3: 4. */
	assert_int_equal(stats_value(out, 1, "total_snapshots"), 2);
	assert_int_equal(stats_value(out, 1, "ksnap_snapshots_taken"), 2);
	assert_int_equal(stats_value(out, 1, "ksnap_snapshots_lost"), 0);
	assert_int_equal(stats_value(out, 1, "ksnapd_first_position"), 0);
	assert_int_equal(stats_value(out, 2, "total_snapshots"), 2);
	assert_int_equal(stats_value(out, 2, "ksnap_snapshots_taken"), 4);
	assert_int_equal(stats_value(out, 2, "ksnapd_first_position"), 2);
	assert_int_equal(stats_value(out, 3, "total_snapshots"), 1);
	assert_int_equal(stats_value(out, 3, "ksnap_snapshots_taken"), 7);
	assert_int_equal(stats_value(out, 3, "ksnap_snapshots_lost"), 2);
	assert_int_equal(stats_value(out, 3, "ksnapd_first_position"), 4);
	assert_contains(log, "ksnapd: collection 7: column set 2 from "
			"position 2: a new stream");
	assert_int_equal(count_lines_starting(log, "ksnapd: collection 7: "
					      "column set"), 2);
	assert_int_equal(fr.cons->tail, 5);
	assert_int_equal(fr.reader_done, 7);
	free(log);
}

/*
 * Each stream's STATS names the cgroups of its own columns that have an
 * identity: a set change adds a containerd container (its id from its
 * path), and only the stream whose columns held it names it.
 */
static void each_streams_stats_names_its_own_containers(void **s)
{
	static const char cid[] = "0123456789abcdef0123456789abcdef"
				  "0123456789abcdef0123456789abcdef";
	char path[160], *log;
	const char *out, *st2, *st3;

	snprintf(path, sizeof(path), "/kubepods/besteffort/pod1b2c3d4e-5f60-"
		 "7182-93a4-b5c6d7e8f901/%s", cid);
	fake_ring_column(&fr, 2, "/ksnap/cpu", "cgroup", path, "CPU.",
			 KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	log = run_logged(7, 2, 1000, 0, true, change_sets_and_stop);
	out = output();
	assert_int_equal(count_lines_starting(out, "STATS\t"), 3);
	st2 = strstr(strstr(out, "STATS\t") + 1, "STATS\t");
	st3 = strstr(st2 + 1, "STATS\t");
	if (strstr(out, "\"ksnap_cgroups\"") !=
	    strstr(st2, "\"ksnap_cgroups\"") ||
	    strstr(st3, "\"ksnap_cgroups\""))
		fail_msg("expected the second stream's STATS alone to name "
			 "cgroups, got %s", st2);
	assert_contains(st2, "\"ksnap_cgroups\":[{\"cgroup\":\"/kubepods/");
	assert_contains(st2, "\"container_id\":\"0123456789abcdef");
	assert_contains(st2, "\"pod_uid\":\"1b2c3d4e-5f60-7182-93a4-"
			"b5c6d7e8f901\"}]}\n");
	free(log);
}

static void change_sets_twice_and_stop(int call)
{
	if (call != 1)
		return;
	fake_ring_set_change(&fr, 3);
	fake_ring_push(&fr, 2000, 20);
	fake_ring_set_change(&fr, 2);
	fake_ring_push(&fr, 3000, 30);
	fake_ring_stop(&fr);
}

/*
 * A reader too far behind: the module no longer names the set it meets
 * (ESTALE).  Its records are skipped and counted, never written under
 * other columns; the next set it names begins the next stream.
 */
static void a_set_no_longer_known_is_skipped(void **s)
{
	char *log;
	const char *out;

	log = run_logged(8, 2, 1000, 0, true, change_sets_twice_and_stop);
	out = output();
	assert_contains(out, "1000\t10\t11\nSTATS\t");
	assert_contains(out, "Time (ns)\t/ksnap/mem\t/ksnap/cpu[/a]\n"
			"3000\t30\t31\nSTATS\t");
	assert_int_equal(count_lines_starting(out, "2000\t"), 0);
	assert_int_equal(count_lines_starting(out, "STATS\t"), 2);
	assert_contains(log, "ksnapd: collection 8: column set 2 is no "
			"longer known to the module: its records are skipped");
	assert_contains(log, "ksnapd: collection 8: 1 records of column sets "
			"the module no longer named were skipped (STATS "
			"ksnapd_snapshots_skipped)");
	assert_contains(log, "ksnapd: collection 8: 1 snapshots skipped");
	/* Stream 1: row at 0, skipped at 1, ends at 2; stream 2: row at 2. */
	assert_int_equal(stats_value(out, 1, "ksnapd_snapshots_skipped"), 1);
	assert_int_equal(stats_value(out, 1, "ksnap_snapshots_taken"), 2);
	assert_int_equal(stats_value(out, 2, "ksnapd_snapshots_skipped"), 0);
	assert_int_equal(stats_value(out, 2, "ksnapd_first_position"), 2);
	assert_true(identity_holds(out, 1));
	assert_true(identity_holds(out, 2));
	assert_int_equal(fr.cons->tail, 3);
	assert_int_equal(fr.reader_done, 8);
	free(log);
}

/*
 * Two sets the module no longer names while the first stream is current
 * (three records), one it names (the second stream), then a record of
 * the first set again (foreign to the second) and snapshots lost.
 */
static void change_sets_behind_and_stop(int call)
{
	if (call != 1)
		return;
	fake_ring_push(&fr, 2000, 20);
	fake_ring_set_change(&fr, 3);
	fake_ring_push(&fr, 3000, 30);
	fake_ring_push(&fr, 4000, 40);
	fake_ring_set_change(&fr, 2);
	fake_ring_push(&fr, 5000, 50);
	fake_ring_set_change(&fr, 2);
	fake_ring_push(&fr, 6000, 60);
	fake_ring_push(&fr, 7000, 70);
	fake_ring_push(&fr, 8000, 80);
	fake_ring_slot(&fr, fr.ctrl->head - 1)->set_id = 1;
	fake_ring_push(&fr, 9000, 90);
	fr.ctrl->stats.taken += 3;	/* three lost, ring full */
	fr.ctrl->stats.lost = 3;
	fake_ring_stop(&fr);
}

/*
 * The records ksnapd reads past without rows are counted in the stream
 * they come in: every stream's taken = first_position + rows + lost +
 * overwritten + dropped + skipped, and the last stream's the collection's.
 */
static void skipped_records_keep_every_streams_identity(void **s)
{
	char *log;
	const char *out;

	log = run_logged(9, 2, 1000, 0, true, change_sets_behind_and_stop);
	out = output();
	assert_contains(out, "1000\t10\t11\n2000\t20\t21\nSTATS\t");
	assert_contains(out, "6000\t60\t61\n7000\t70\t71\n9000\t90\t91\n"
			"STATS\t");
	assert_int_equal(count_lines_starting(out, "STATS\t"), 2);
	/* Stream 1: positions 0..4 (rows 0, 1; sets 2 and 3 at 2..4). */
	assert_int_equal(stats_value(out, 1, "total_snapshots"), 2);
	assert_int_equal(stats_value(out, 1, "ksnapd_snapshots_skipped"), 3);
	assert_int_equal(stats_value(out, 1, "ksnap_snapshots_taken"), 5);
	assert_int_equal(stats_value(out, 1, "ksnap_snapshots_lost"), 0);
	assert_true(identity_holds(out, 1));
	/* Stream 2: positions 5..8 (set 1's record at 7), 3 lost. */
	assert_int_equal(stats_value(out, 2, "ksnapd_first_position"), 5);
	assert_int_equal(stats_value(out, 2, "total_snapshots"), 3);
	assert_int_equal(stats_value(out, 2, "ksnapd_snapshots_skipped"), 1);
	assert_int_equal(stats_value(out, 2, "ksnap_snapshots_taken"), 12);
	assert_int_equal(stats_value(out, 2, "ksnap_snapshots_lost"), 3);
	assert_true(identity_holds(out, 2));
	assert_contains(log, "ksnapd: collection 9: 3 records of column sets "
			"the module no longer named were skipped");
	assert_contains(log, "ksnapd: collection 9: 1 records not of its "
			"column set 4");
	assert_int_equal(fr.cons->tail, 9);
	assert_int_equal(fr.reader_done, 9);
	free(log);
}

/* The columns are read through the device, at the collection's begin. */
static void columns_come_through_the_device_ioctl(void **s)
{
	fake_ring_start(&fr, 1, 3, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 10);
	attach(false);
	script = stop_now;
	/* Beside the session's reports (seen at open, done at the end). */
	assert_int_equal(fake_sys.ioctl_calls, fr.seen_calls);
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(fake_sys.ioctl_calls - fr.seen_calls - fr.done_calls,
			 3);
	assert_contains(output(), "/ksnap/cpu[/b]\n1000\t10\t11\t12\n");
}

/*
 * The session's reports: what was seen only when it changes (not at every
 * wake-up), done once, at the end; the consumer page gets the tail only.
 */
static void seen_and_done_are_reported_by_ioctl_once_each(void **s)
{
	struct ksnap_consumer before;

	fake_ring_start(&fr, 1, 3, 1000, 0, 1);
	attach(false);
	assert_int_equal(fr.seen_calls, 1);
	memcpy(&before, fr.cons, sizeof(before));
	fake_ring_push(&fr, 1000, 10);
	assert_int_equal(ksnapd_step(&d), 0);
	fake_ring_push(&fr, 2000, 20);
	assert_int_equal(ksnapd_step(&d), 0);
	assert_int_equal(ksnapd_step(&d), 0);
	assert_int_equal(fr.seen_calls, 1);
	assert_int_equal(fr.done_calls, 0);
	fake_ring_stop(&fr);
	assert_int_equal(ksnapd_step(&d), 1);
	assert_int_equal(fr.seen_calls, 2);
	assert_int_equal(fr.done_calls, 1);
	assert_int_equal(fr.reader_done, 1);
	assert_int_equal(fr.reader_seen,
			 KSNAP_GEN_STATE(1, KSNAP_STATE_STOPPED));
	before.tail = 2;
	assert_memory_equal(&before, fr.cons, sizeof(before));
}

static int refuse_done(int fd, unsigned long req, void *arg)
{
	(void)fd;
	return req == KSNAP_IOC_DONE ? -EINVAL :
	       fake_ring_ioctl(&fr, req, arg);
}

/* A done the module refuses ends ksnapd, saying so. */
static void a_refused_done_is_an_error_that_says_so(void **s)
{
	fake_ring_start(&fr, 1, 3, 1000, 0, 1);
	attach(false);
	fake_ring_push(&fr, 1000, 10);
	fake_ring_stop(&fr);
	fake_sys.ioctl_hook = refuse_done;
	assert_int_equal(ksnapd_step(&d), -EINVAL);
	assert_contains(d.err, "telling the module that collection 1 is "
			"written out: ");
	assert_int_equal(fr.reader_done, 0);
}

/* A device that cannot answer (no such ioctl) is an error that says so. */
static void columns_the_device_cannot_give_are_an_error(void **s)
{
	fake_ring_start(&fr, 1, 3, 1000, 0, 1);
	attach(false);
	fake_sys.ioctl_err = -ENOTTY;
	assert_int_equal(ksnapd_step(&d), -ENOTTY);
	assert_contains(d.err, "reading the 3 columns of column set 1 "
			"through the device: ");
}

/* A stop on request says nothing of the kind. */
static void a_stop_on_request_is_not_reported_as_overrun(void **s)
{
	char *log;

	log = run_logged(1, 3, 1000, 100000, false, push_two_and_stop);
	assert_null(strstr(log, "stopped by the kernel"));
	free(log);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(stop_writes_stats_after_the_last_row_then_exits),
		T(stopped_and_drained_collection_gives_exactly_one_stats),
		T(started_while_stopped_waits_for_the_next_start),
		T(collection_started_and_stopped_unseen_is_written_and_done),
		T(stopped_unfinished_collection_of_an_earlier_reader_is_skipped),
		T(attached_mid_collection_writes_rows_from_the_tail),
		T(a_collection_begins_at_its_start_position),
		T(a_resumed_position_counts_from_the_collection_start),
		T(tail_above_head_is_garbage_even_when_it_wraps_close),
		T(rows_keep_order_when_positions_wrap),
		T(sigterm_drains_writes_stats_and_exits_zero),
		T(sigterm_while_running_gives_stats_that_add_up),
		T(sigterm_with_stop_on_exit_stops_then_drains_the_last_snapshot),
		T(stop_on_exit_failure_still_writes_stats),
		T(stop_on_exit_is_not_called_without_a_signal),
		T(sigterm_while_waiting_exits_without_output),
		T(device_hangup_is_an_error),
		T(head_too_far_ahead_of_tail_is_a_protocol_error),
		T(too_many_columns_names_the_value_and_the_limit),
		T(generation_change_mid_stream_is_a_protocol_error),
		T(regular_file_device_is_read_like_the_device),
		T(records_are_read_by_values_offset_and_set_id),
		T(a_set_change_ends_the_stream_and_begins_the_next),
		T(each_streams_stats_names_its_own_containers),
		T(a_set_no_longer_known_is_skipped),
		T(skipped_records_keep_every_streams_identity),
		T(columns_come_through_the_device_ioctl),
		T(seen_and_done_are_reported_by_ioctl_once_each),
		T(a_refused_done_is_an_error_that_says_so),
		T(columns_the_device_cannot_give_are_an_error),
		T(overwrite_mode_counts_what_was_overwritten),
		T(overwrite_mode_running_skips_the_slot_being_written),
		T(overwrite_mode_checks_each_record_seq),
		T(a_second_consumer_sees_the_rows_the_output_gets),
		T(the_collection_is_handed_back_once_every_consumer_has_ended),
		T(a_stop_by_the_kernel_on_overrun_is_reported),
		T(a_stop_on_request_is_not_reported_as_overrun),
	};

	return cmocka_run_group_tests_name("collect", tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/* ksnapd's state machine on a fake device: poll() is where the test's
 * "kernel" acts (start, push records, stop). */
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
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

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

static int scripted_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	if (fake_sys.poll_calls > 50)
		fail_msg("still polling after 50 wake-ups");
	if (script)
		script(fake_sys.poll_calls);
	return 1;
}

static void columns(void)
{
	fake_ring_column(&fr, 0, "/ksnap/mem", NULL, NULL, "Memory.", 0);
	fake_ring_column(&fr, 1, "/ksnap/cpu", "cgroup", "/a", "CPU.",
			 KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
	fake_ring_column(&fr, 2, "/ksnap/cpu", "cgroup", "/b", "CPU.",
			 KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS);
}

static int setup(void **state)
{
	fake_sys_reset();
	fake_ring_init(&fr, NULL, 3, 8);
	columns();
	fake_sys.mem = fr.mem;
	fake_sys.mem_len = fr.len;
	fake_sys.capture = true;
	fake_sys.poll_hook = scripted_poll;
	script = NULL;
	cfg = (struct ksnapd_config){ .once = true };
	return 0;
}

/* Open the "device" and set up the daemon as main() does. */
static void attach(bool lossy)
{
	fake_ring_open(&fr);
	assert_int_equal(ksnap_ring_open(&ring, "/dev/ksnap"), 0);
	cfg.lossy = lossy;
	assert_int_equal(ksnapd_init(&d, &ring, &cfg), 0);
	/* Standard output is a pipe here, whatever the test runs with;
	 * tests of a regular file's full disk say so. */
	d.out.sink.regular = false;
}

static int teardown(void **state)
{
	ksnapd_fini(&d);
	ksnap_ring_close(&ring);
	fake_ring_free(&fr);
	fake_sys_reset();
	return 0;
}

static int count_lines_starting(const char *text, const char *prefix)
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

static const char *output(void)
{
	return fake_sys.wbuf ? fake_sys.wbuf : "";
}

/*
 * The whole-stream checksum of the lossy stream in text[0, len), computed
 * here with zlib as the format defines it: Adler-32 of every prefixed line
 * but the ADLER32 one, the bytes after the prefix, checksum suffix and
 * "\n" included (frame lines, empty, are not stream lines).  *said: what
 * the stream's ADLER32 line says.  Returns false when it has none.
 */
static bool whole_sum(const char *text, size_t len, unsigned long *computed,
		      unsigned long *said)
{
	const size_t pl = strlen(KSNAP_LOSSY_PREFIX);
	uLong sum = adler32(0L, Z_NULL, 0);
	const char *p = text, *end = text + len;
	bool have = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		assert_non_null(nl);
		if ((size_t)(nl - p) > pl && !strncmp(p, KSNAP_LOSSY_PREFIX, pl)) {
			if (!strncmp(p + pl, "ADLER32\t0x", 10)) {
				*said = strtoul(p + pl + 10, NULL, 16);
				have = true;
			} else {
				sum = adler32(sum, (const Bytef *)p + pl,
					      (uInt)(nl + 1 - p - pl));
			}
		}
		p = nl + 1;
	}
	*computed = sum;
	return have;
}

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
		"\"ksnap_periods_missed\":0,\"ksnap_max_lateness_nanos\":0,"
		"\"ksnap_max_read_nanos\":0,"
		"\"ksnap_lateness_sum_nanos\":500,"
		"\"ksnap_read_sum_nanos\":600,\"ksnap_bad_tail\":0,"
		"\"ksnapd_rows_dropped\":0,"
		"\"ksnapd_snapshots_overwritten\":0,"
		"\"ksnapd_first_position\":0,"
		"\"ksnapd_rows_in_earlier_files\":0}\n");
	assert_int_equal(fake_sys.poll_calls, 1);
	assert_int_equal(fr.cons->tail, 4);
	assert_int_equal(fr.cons->done_generation, 1);
	assert_int_equal(fr.cons->seen_state,
			 KSNAP_GEN_STATE(1, KSNAP_STATE_STOPPED));
}

static void stop_now(int call)
{
	if (call == 1)
		fake_ring_stop(&fr);
}

/* One record with its lateness and read time, as the module fills it. */
static void push_timed(uint64_t t, uint64_t v, uint32_t late, uint32_t rd)
{
	struct ksnap_record *r = fake_ring_slot(&fr, fr.ctrl->head);

	fake_ring_push(&fr, t, v);
	r->lateness_ns = late;
	r->read_ns = rd;
}

/*
 * gVisor's reader divides the timing errors by total_snapshots (rows):
 * they must sum the rows written, not every snapshot the module took
 * (lost ones included); the module's own sums go under ksnap_ keys.
 */
static void timing_errors_sum_the_rows_written_kernel_sums_apart(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	push_timed(1000, 1, 10, 1);
	push_timed(2000, 2, 20, 2);
	push_timed(3000, 3, 30, 3);
	fr.ctrl->stats.taken += 5;		/* and 5 lost, ring full */
	fr.ctrl->stats.lost = 5;
	fr.ctrl->stats.lateness_sum_ns = 1000;
	fr.ctrl->stats.read_sum_ns = 2000;
	attach(false);
	script = stop_now;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_contains(output(), "\"total_snapshots\":3,");
	assert_contains(output(), "\"total_sleep_timing_error\":60,"
			"\"total_sleep_timing_error_nanos\":60,"
			"\"total_collection_timing_error\":6,"
			"\"total_collection_timing_error_nanos\":6,");
	assert_contains(output(), "\"ksnap_lateness_sum_nanos\":1000,"
			"\"ksnap_read_sum_nanos\":2000");
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
	assert_int_equal(fr.cons->done_generation, 2);
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
	assert_int_equal(fr.cons->seen_state,
			 KSNAP_GEN_STATE(3, KSNAP_STATE_STOPPED));

	script = start_and_stop;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(count_lines_starting(output(), "START_TIME\t99\n"), 1);
	assert_int_equal(count_lines_starting(output(), "10\t7\n"), 1);
	assert_int_equal(count_lines_starting(output(), "1\t1\n"), 0);
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
	assert_int_equal(fr.cons->done_generation, 4);
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
	if (fr.cons->done_generation != 4)
		fail_msg("expected done_generation 4, got %u",
			 fr.cons->done_generation);
	assert_int_equal(fr.cons->tail, 2);
	assert_int_equal(fr.cons->seen_state,
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
	assert_int_equal(fr.cons->seen_state,
			 KSNAP_GEN_STATE(5, KSNAP_STATE_STOPPED));
	assert_int_equal(fr.cons->done_generation, 5);

	/* The next collection is written as usual. */
	script = start_after_unfinished;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(count_lines_starting(output(), "START_TIME\t"), 1);
	assert_contains(output(), "START_TIME\t66\n");
	assert_int_equal(count_lines_starting(output(), "1000\t60\n"), 1);
	assert_int_equal(count_lines_starting(output(), "2000\t"), 0);
	assert_int_equal(fr.cons->done_generation, 6);
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
 * The file of a collection an earlier reader had begun (killed, or a
 * restarted service) holds that reader's part: never truncated.  The rest
 * goes to FILE.resumed.N, the first N that does not exist yet.
 */
static void attached_with_a_tail_writes_a_resumed_file_never_truncating(
	void **s)
{
	uint64_t pos;
	int i;

	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
	for (pos = 0; pos < 6; pos++)
		fake_ring_push(&fr, (pos + 1) * 1000, pos);
	fr.cons->tail = 4;		/* the killed ksnapd got this far */
	fake_sys.exists[0] = "out.tsv.resumed.1";	/* an older resume */
	cfg.out_path = "out.tsv";
	attach(false);
	script = stop_now;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	for (i = 1; i < fake_sys.nr_opened; i++)
		if (fake_sys.opened_flags[i] & O_TRUNC)
			fail_msg("expected no O_TRUNC open, got one of %s",
				 fake_sys.opened[i]);
	assert_int_equal(fake_sys.nr_opened, 3);
	assert_string_equal(fake_sys.opened[1], "out.tsv.resumed.1");
	assert_string_equal(fake_sys.opened[2], "out.tsv.resumed.2");
	assert_true(fake_sys.opened_flags[2] & O_EXCL);
	assert_string_equal(d.out.path, "out.tsv.resumed.2");
	assert_contains(output(), "Time (ns)\t/ksnap/mem\n5000\t4\n6000\t5\n");
	assert_contains(output(), "\"ksnapd_first_position\":4");
	assert_int_equal(4 + d.out.count.rows + fr.ctrl->stats.lost,
			 fr.ctrl->stats.taken);
}

/* No earlier reader handed anything back: the file is the usual one. */
static void attached_mid_collection_at_tail_0_truncates_as_usual(void **s)
{
	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 0);
	cfg.out_path = "out.tsv";
	attach(false);
	script = stop_now;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(fake_sys.nr_opened, 2);
	assert_string_equal(fake_sys.opened[1], "out.tsv");
	assert_true(fake_sys.opened_flags[1] & O_TRUNC);
	assert_contains(output(), "\"ksnapd_first_position\":0");
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

static int sig_pipe[2];

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
	assert_int_equal(fr.cons->done_generation, 5);
	assert_int_equal(fr.cons->tail, 2);
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
	assert_int_equal(fr.cons->done_generation, 6);
	assert_int_equal(fr.cons->seen_state,
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
	assert_int_equal(fr.cons->done_generation, 5);
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

static void write_error_names_the_output_file(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1, 1);
	cfg.out_path = "out.tsv";
	attach(false);
	fake_sys.write_err = -EIO;

	assert_int_equal(ksnapd_run(&d, -1), -EIO);
	assert_string_equal(d.err, "out.tsv: write: Input/output error");
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
			    "(max_columns 3; 3 values in a record of 56 "
			    "bytes)");
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

static void lossy_run_ends_with_the_adler32_line(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1, 1);
	attach(true);
	script = stop_now;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "STATS\t"), 1);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "ADLER32\t0x"), 1);
	assert_contains(output(), KSNAP_LOSSY_PREFIX
			       "Time (ns)\t/ksnap/mem\tChecksum\t0x");
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
	assert_int_equal(fr.cons->done_generation, 1);
	munmap(mem, len);
}

/* --- life cycle ---------------------------------------------------- */

static void two_collections(int call)
{
	if (call == 1) {
		fake_ring_push(&fr, 1000, 1);
		fake_ring_stop(&fr);
	} else if (call == 2) {
		fake_ring_start(&fr, 2, 1, 1000, 0, 2);
		fake_ring_push(&fr, 1000, 2);
	} else if (call == 3) {
		fake_ring_stop(&fr);
	} else if (call == 4) {
		d.col.stop = true;
	}
}

static void each_collection_goes_to_its_own_file(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	cfg.once = false;
	cfg.out_path = "out.tsv";
	attach(true);
	script = two_collections;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(fake_sys.nr_opened, 3);	/* device + 2 files */
	assert_string_equal(fake_sys.opened[1], "out.tsv");
	assert_string_equal(fake_sys.opened[2], "out.tsv.2");
	assert_true(fake_sys.opened_flags[1] & O_TRUNC);
	assert_true(fake_sys.opened_flags[2] & O_TRUNC);
	/* Each file holds one whole stream, with its own ADLER32. */
	assert_int_equal(count_lines_starting(output() +
		fake_sys.opened_at[2], KSNAP_LOSSY_PREFIX "STATS\t"), 1);
	assert_int_equal(count_lines_starting(output() +
		fake_sys.opened_at[2], KSNAP_LOSSY_PREFIX "ADLER32\t"), 1);
	assert_int_equal(count_lines_starting(output() +
		fake_sys.opened_at[2], KSNAP_LOSSY_PREFIX "META\t"), 1);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "ADLER32\t"), 2);
	assert_int_equal(fr.cons->done_generation, 2);
	assert_int_equal(d.col.state, KSNAPD_DONE);
}

/*
 * Streams that follow one another on one output: each ADLER32 line sums
 * its own stream's lines alone, from 0.  Checked against Adler-32 computed
 * here over the second stream's bytes; a sum that went on from the first
 * stream would differ from that (checked too, so the test can tell).
 */
static void second_stream_adler32_sums_its_own_lines_alone(void **s)
{
	unsigned long first, second, both, said1, said2;
	const char *adler1, *start2;

	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	cfg.once = false;
	attach(true);
	script = two_collections;
	assert_int_equal(ksnapd_run(&d, -1), 0);

	adler1 = strstr(output(), KSNAP_LOSSY_PREFIX "ADLER32\t0x");
	assert_non_null(adler1);
	start2 = strchr(adler1, '\n') + 1;
	assert_true(whole_sum(output(), (size_t)(start2 - output()), &first,
			      &said1));
	assert_true(whole_sum(start2, strlen(start2), &second, &said2));
	if (said2 != second)
		fail_msg("expected the second ADLER32 to be 0x%lx (Adler-32 of "
			 "the second stream's lines), got 0x%lx", second,
			 said2);
	assert_int_equal(said1, first);
	/* What a sum that went on from the first stream's lines says. */
	assert_true(whole_sum(output(), strlen(output()), &both, &said2));
	assert_int_not_equal(both, second);
}

static void output_names(void **s)
{
	char buf[64];

	assert_int_equal(ksnapd_output_name(buf, sizeof(buf), "k.tsv", 1, 7),
			 0);
	assert_string_equal(buf, "k.tsv");
	assert_int_equal(ksnapd_output_name(buf, sizeof(buf), "k.tsv", 3, 7),
			 0);
	assert_string_equal(buf, "k.tsv.3");
	assert_int_equal(ksnapd_output_name(buf, sizeof(buf), "k-%g.tsv", 1,
					    7), 0);
	assert_string_equal(buf, "k-7.tsv");
	assert_int_equal(ksnapd_output_name(buf, sizeof(buf), "k-%g%%.tsv", 2,
					    12), 0);
	assert_string_equal(buf, "k-12%.tsv");
	assert_int_equal(ksnapd_output_name(buf, 6, "k-%g.tsv", 1, 7),
			 -ENAMETOOLONG);
	assert_int_equal(ksnapd_output_name(buf, 6, "k.tsvvvv", 1, 7),
			 -ENAMETOOLONG);
}

/* -o in a directory ksnapd cannot create files in: said at startup,
 * not when a collection starts (maybe hours later). */
static void unwritable_output_directory_is_reported_up_front(void **s)
{
	char err[320];

	assert_int_equal(ksnapd_check_output_dir("/nonexistent-ksnap-dir/"
						 "k.tsv", err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent-ksnap-dir: cannot create the "
			    "output files there: No such file or directory");
	fake_sys.access_err = -EROFS;
	assert_int_equal(ksnapd_check_output_dir("k.tsv", err, sizeof(err)),
			 -EROFS);
	assert_string_equal(fake_sys.accessed, ".");
	assert_string_equal(err, ".: cannot create the output files there: "
			    "Read-only file system");
	fake_sys.access_err = 0;
	assert_int_equal(ksnapd_check_output_dir("/tmp/k-%g.tsv", err,
						 sizeof(err)), 0);
	assert_string_equal(fake_sys.accessed, "/tmp");
	assert_int_equal(ksnapd_check_output_dir("/k.tsv", err, sizeof(err)),
			 0);
	assert_string_equal(fake_sys.accessed, "/");
}

static void hup_then_stop(int call)
{
	struct signalfd_siginfo si = { .ssi_signo = SIGHUP };

	if (call == 1) {
		assert_int_equal(write(sig_pipe[1], &si, sizeof(si)),
				 sizeof(si));
	} else if (call == 2) {
		fake_ring_push(&fr, 2000, 2);
		fake_ring_stop(&fr);
	}
}

static int hup_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	scripted_poll(fds, n, timeout);
	if (fake_sys.poll_calls == 1)
		fds[0].revents = POLLIN;
	return 1;
}

/* Lines of text[from, to) starting with prefix. */
static int count_in(const char *text, size_t from, size_t to,
		    const char *prefix)
{
	char *part = strndup(text + from, to - from);
	int n;

	assert_non_null(part);
	n = count_lines_starting(part, prefix);
	free(part);
	return n;
}

/* The lossy stream in text[0, len) says its whole-stream checksum right. */
static void assert_whole_sum(const char *text, size_t len)
{
	unsigned long computed, said;

	assert_true(whole_sum(text, len, &computed, &said));
	if (said != computed)
		fail_msg("expected ADLER32 0x%lx (these lines), got 0x%lx",
			 computed, said);
}

/*
 * SIGHUP: the rotated file ends (no STATS: only the last file of a
 * collection has it); the new one begins a stream of its own, with META,
 * START_TIME and header, so that each file can be read alone.
 */
static void sighup_starts_a_whole_stream_in_the_reopened_file(void **s)
{
	size_t at;

	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 1);
	cfg.out_path = "out.tsv";
	attach(false);
	assert_int_equal(pipe(sig_pipe), 0);
	fake_sys.poll_hook = hup_poll;
	script = hup_then_stop;

	assert_int_equal(ksnapd_run(&d, sig_pipe[0]), 0);
	assert_int_equal(fake_sys.nr_opened, 3);
	assert_string_equal(fake_sys.opened[1], "out.tsv");
	assert_true(fake_sys.opened_flags[1] & O_TRUNC);
	assert_string_equal(fake_sys.opened[2], "out.tsv");
	assert_true(fake_sys.opened_flags[2] & O_APPEND);
	assert_false(fake_sys.opened_flags[2] & O_TRUNC);
	at = fake_sys.opened_at[2];
	/* the row before the HUP went to the first file, the rest after */
	assert_int_equal(count_in(output(), 0, at, "1000\t1\n"), 1);
	assert_int_equal(count_in(output(), 0, at, "STATS\t"), 0);
	if (strncmp(output() + at, "META\t/ksnap/mem\t", 16))
		fail_msg("expected the reopened file to begin with META, got:\n"
			 "%s", output() + at);
	assert_contains(output() + at, "START_TIME\t1\nTime (ns)\t/ksnap/mem\n"
			"2000\t2\nSTATS\t");
	assert_false(strstr(output() + at, "1000\t1\n"));
	/* STATS counts every row, and says how many are in earlier files. */
	assert_contains(output() + at, "\"total_snapshots\":2,");
	assert_contains(output() + at, "\"ksnapd_rows_in_earlier_files\":1");
	assert_false(d.col.stop);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
}

/* Lossy: each file has its own whole-stream checksum, from 0. */
static void sighup_lossy_files_each_end_with_their_own_adler32(void **s)
{
	size_t at;
	const char *second;

	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 1);
	cfg.out_path = "out.tsv";
	attach(true);
	assert_int_equal(pipe(sig_pipe), 0);
	fake_sys.poll_hook = hup_poll;
	script = hup_then_stop;

	assert_int_equal(ksnapd_run(&d, sig_pipe[0]), 0);
	assert_int_equal(fake_sys.nr_opened, 3);
	at = fake_sys.opened_at[2];
	assert_int_equal(count_in(output(), 0, at, KSNAP_LOSSY_PREFIX
				  "ADLER32\t0x"), 1);
	assert_int_equal(count_in(output(), 0, at, KSNAP_LOSSY_PREFIX
				  "STATS\t"), 0);
	second = output() + at;
	assert_int_equal(count_lines_starting(second, KSNAP_LOSSY_PREFIX
					      "META\t"), 1);
	assert_int_equal(count_lines_starting(second, KSNAP_LOSSY_PREFIX
					      "Time (ns)\t"), 1);
	assert_int_equal(count_lines_starting(second, KSNAP_LOSSY_PREFIX
					      "ADLER32\t0x"), 1);
	/* Each file's ADLER32 line sums that file's lines alone. */
	assert_whole_sum(output(), at);
	assert_whole_sum(second, strlen(second));
	close(sig_pipe[0]);
	close(sig_pipe[1]);
}

/* A SIGHUP with nothing rotated: the name is still the open file. */
static void sighup_without_rotation_keeps_writing_the_same_file(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 1);
	cfg.out_path = "out.tsv";
	attach(false);
	fake_sys.stat_same = true;
	assert_int_equal(pipe(sig_pipe), 0);
	fake_sys.poll_hook = hup_poll;
	script = hup_then_stop;

	assert_int_equal(ksnapd_run(&d, sig_pipe[0]), 0);
	assert_int_equal(fake_sys.nr_opened, 2);
	assert_int_equal(count_lines_starting(output(), "META\t"), 1);
	assert_contains(output(), "1000\t1\n2000\t2\nSTATS\t");
	assert_contains(output(), "\"ksnapd_rows_in_earlier_files\":0");
	close(sig_pipe[0]);
	close(sig_pipe[1]);
}

/*
 * SIGHUP while the output is full: the rotated file gets what was
 * buffered (and its ADLER32) once there is room, then the reopen; no row
 * of the old stream lands after its ADLER32 line or in the new file.
 */
static void hup_while_full(int call)
{
	struct signalfd_siginfo si = { .ssi_signo = SIGHUP };

	switch (call) {
	case 1:		/* full, rows buffered, then the HUP */
		fake_sys.space_limited = true;
		fake_sys.space = fake_sys.wlen;
		fake_ring_push(&fr, 2000, 2);
		assert_int_equal(write(sig_pipe[1], &si, sizeof(si)),
				 sizeof(si));
		break;
	case 3:
		fake_ring_push(&fr, 3000, 3);	/* dropped: still full */
		break;
	case 4:
		fake_sys.space = 1 << 20;
		fake_ring_push(&fr, 4000, 4);
		break;
	case 5:
		fake_ring_push(&fr, 5000, 5);
		fake_ring_stop(&fr);
		break;
	}
}

static int hup_full_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	scripted_poll(fds, n, timeout);
	if (fake_sys.poll_calls == 2)
		fds[0].revents = POLLIN;
	return 1;
}

static void sighup_while_full_reopens_once_the_buffer_is_out(void **s)
{
	const char *adler, *meta2;
	size_t at;

	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 1);
	cfg.out_path = "out.tsv";
	attach(true);
	d.out.sink.regular = true;
	assert_int_equal(pipe(sig_pipe), 0);
	fake_sys.poll_hook = hup_full_poll;
	script = hup_while_full;

	assert_int_equal(ksnapd_run(&d, sig_pipe[0]), 0);
	assert_int_equal(fake_sys.nr_opened, 3);
	at = fake_sys.opened_at[2];
	adler = strstr(output(), KSNAP_LOSSY_PREFIX "ADLER32\t");
	assert_non_null(adler);
	/* the first file: rows 1000 and 2000, then its ADLER32, last */
	assert_int_equal(count_in(output(), 0, at, KSNAP_LOSSY_PREFIX
				  "2000\t"), 1);
	assert_true((size_t)(strchr(adler, '\n') + 1 - output()) == at);
	/* the second: a whole stream from META on, 3000 dropped */
	meta2 = strstr(output() + at, KSNAP_LOSSY_PREFIX "META\t");
	assert_non_null(meta2);
	assert_int_equal(count_in(output(), at, strlen(output()),
				  KSNAP_LOSSY_PREFIX "2000\t"), 0);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "3000\t"), 0);
	assert_int_equal(count_in(output(), at, strlen(output()),
				  KSNAP_LOSSY_PREFIX "4000\t"), 1);
	assert_contains(output() + at, "\"ksnapd_rows_dropped\":1,");
	assert_contains(output() + at, "\"ksnapd_rows_in_earlier_files\":2");
	close(sig_pipe[0]);
	close(sig_pipe[1]);
}

/*
 * Output full (ENOSPC) mid-collection: the ring is kept drained, rows are
 * dropped and counted, the buffered block goes out when there is room.
 */
static void full_script(int call)
{
	switch (call) {
	case 1:		/* the disk is full from now on */
		fake_sys.space_limited = true;
		fake_sys.space = fake_sys.wlen;
		fake_ring_push(&fr, 3000, 30);
		fake_ring_push(&fr, 4000, 40);
		fake_ring_push(&fr, 5000, 50);
		break;
	case 2:
		fake_ring_push(&fr, 6000, 60);
		fake_ring_push(&fr, 7000, 70);
		break;
	case 3:		/* room again */
		fake_sys.space = 1 << 20;
		fake_ring_push(&fr, 8000, 80);
		fake_ring_stop(&fr);
		break;
	}
}

static char *logbuf;
static size_t loglen;

static void full_output_drops_counts_and_resumes(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 10);
	fake_ring_push(&fr, 2000, 20);
	cfg.log = open_memstream(&logbuf, &loglen);
	attach(true);
	d.out.sink.regular = true;
	script = full_script;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	fclose(cfg.log);
	/* The block of rows 3000..5000 was buffered when the disk filled:
	 * written later; 6000 and 7000 came while full: dropped. */
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "6000\t"), 0);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "7000\t"), 0);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "5000\t"), 1);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "8000\t"), 1);
	assert_contains(output(), "\"total_snapshots\":6,");
	assert_contains(output(), "\"ksnap_snapshots_taken\":8,");
	assert_contains(output(), "\"ksnapd_rows_dropped\":2,");
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "ADLER32\t0x"), 1);
	assert_true(fake_sys.enospc_calls >= 2);
	assert_int_equal(d.out.count.rows + fr.ctrl->stats.lost + d.out.count.dropped,
			 fr.ctrl->stats.taken);
	/* Said once, and said when it writes again. */
	assert_int_equal(count_lines_starting(logbuf, "ksnapd: <stdout>: "
			 "write: No space left on device: dropping rows"), 1);
	assert_int_equal(count_lines_starting(logbuf, "ksnapd: <stdout>: "
			 "writing again, 2 rows dropped"), 1);
	assert_contains(logbuf, "2 rows dropped because the output was full");
	/* The tail follows head: the kernel never saw a full ring. */
	assert_int_equal(fr.cons->tail, fr.ctrl->head);
	free(logbuf);
	logbuf = NULL;
}

/* The collection ends while the disk is full: STATS waits for room. */
static void end_script(int call)
{
	if (call == 1) {
		fake_sys.space_limited = true;
		fake_sys.space = fake_sys.wlen;
		fake_ring_push(&fr, 2000, 20);
		fake_ring_stop(&fr);
	}
	if (call == 5)
		fake_sys.space = 1 << 20;
}

static void stats_waits_for_room_when_the_end_finds_the_output_full(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 10);
	attach(false);
	d.out.sink.regular = true;
	script = end_script;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_true(fake_sys.poll_calls >= 5);
	assert_int_equal(count_lines_starting(output(), "2000\t"), 1);
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
	assert_contains(output(), "\"ksnapd_rows_dropped\":0,");
	/* Handed back only once STATS was out. */
	assert_int_equal(fr.cons->done_generation, 1);
}

/*
 * Lossy, the collection ended while full: room comes back one block at a
 * time (the rows, then STATS), the ADLER32 line last.  Its retry is still
 * the stream's last write, without the trailing frame byte.
 */
static void adler_end_script(int call)
{
	/* Room for exactly what is buffered (with its frame bytes). */
	size_t block = ksnap_out_pending(&d.out.sink) + 2;

	switch (call) {
	case 1:
		fake_ring_push(&fr, 2000, 20);
		fake_ring_stop(&fr);
		fake_sys.space_limited = true;
		fake_sys.space = fake_sys.wlen;
		break;
	case 3:		/* the row block */
	case 5:		/* the STATS block */
		fake_sys.space = fake_sys.wlen + block;
		break;
	case 7:
		fake_sys.space = 1 << 20;
		break;
	}
}

static void lossy_end_while_full_keeps_adler32_last_and_unframed(void **s)
{
	const char *last;
	size_t n;

	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 10);
	attach(true);
	d.out.sink.regular = true;
	script = adler_end_script;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_true(fake_sys.poll_calls >= 7);
	n = strlen(output());
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "2000\t"), 1);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "STATS\t"), 1);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "ADLER32\t0x"), 1);
	/* The last line is ADLER32, with no frame byte after it. */
	assert_true(n > 2 && output()[n - 1] == '\n' && output()[n - 2] != '\n');
	last = output() + n - 2;
	while (last > output() && last[-1] != '\n')
		last--;
	assert_true(!strncmp(last, KSNAP_LOSSY_PREFIX "ADLER32\t0x",
			     strlen(KSNAP_LOSSY_PREFIX "ADLER32\t0x")));
	assert_int_equal(fr.cons->done_generation, 1);
}

static void stop_signal_while_full_gives_up_with_enospc(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 10);
	attach(false);
	d.out.sink.regular = true;
	fake_sys.space_limited = true;
	fake_sys.space = 0;
	d.col.stop = true;

	assert_int_equal(ksnapd_run(&d, -1), -ENOSPC);
	assert_contains(d.err, "<stdout>: write: No space left on device: "
			"stopping with ");
	assert_string_equal(output(), "");
	assert_int_equal(fr.cons->done_generation, 0);
}

/* Over quota, not out of space: the error says which. */
static void stop_signal_while_over_quota_gives_up_with_edquot(void **s)
{
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 10);
	attach(false);
	d.out.sink.regular = true;
	fake_sys.write_err = -EDQUOT;
	d.col.stop = true;

	assert_int_equal(ksnapd_run(&d, -1), -EDQUOT);
	assert_contains(d.err, "<stdout>: write: Disk quota exceeded: "
			"stopping with ");
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

static void position_valid_below_a_ring_behind_head(void **s)
{
	assert_true(ksnap_ring_pos_valid(10, 9, 8));
	assert_true(ksnap_ring_pos_valid(10, 3, 8));
	assert_false(ksnap_ring_pos_valid(10, 2, 8));	/* 10 may be writing */
	assert_false(ksnap_ring_pos_valid(10, 1, 8));
	/* Modulo 2^64. */
	assert_true(ksnap_ring_pos_valid(2, UINT64_MAX, 8));
	assert_false(ksnap_ring_pos_valid(2, 11, 8));	/* ahead of head */
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

static struct recorder rec;

static void a_second_consumer_sees_the_rows_the_output_gets(void **s)
{
	fake_ring_start(&fr, 3, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 1);
	fr.cons->tail = 1;		/* an earlier reader's first row */
	fake_ring_push(&fr, 2000, 2);
	attach(false);
	memset(&rec, 0, sizeof(rec));
	assert_int_equal(ksnapd_collect_add(&d.col, &recorder_ops, &rec), 0);
	/* Room for two: the output file and this one. */
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
	assert_int_equal(fr.cons->done_generation, 3);
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
	assert_int_equal(fr.cons->done_generation, 2);
	assert_int_equal(fr.cons->seen_state,
			 KSNAP_GEN_STATE(3, KSNAP_STATE_STOPPED));
	assert_int_equal(ksnapd_step(&d), 0);
	assert_int_equal(fr.cons->done_generation, 2);
	assert_int_equal(ksnapd_step(&d), 1);
	assert_int_equal(fr.cons->done_generation, 3);
	assert_int_equal(rec.end_calls, 3);
	assert_int_equal(count_lines_starting(output(), "STATS\t"), 1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(stop_writes_stats_after_the_last_row_then_exits),
		T(stopped_and_drained_collection_gives_exactly_one_stats),
		T(timing_errors_sum_the_rows_written_kernel_sums_apart),
		T(started_while_stopped_waits_for_the_next_start),
		T(collection_started_and_stopped_unseen_is_written_and_done),
		T(stopped_unfinished_collection_of_an_earlier_reader_is_skipped),
		T(attached_mid_collection_writes_rows_from_the_tail),
		T(a_collection_begins_at_its_start_position),
		T(a_resumed_position_counts_from_the_collection_start),
		T(attached_with_a_tail_writes_a_resumed_file_never_truncating),
		T(attached_mid_collection_at_tail_0_truncates_as_usual),
		T(tail_above_head_is_garbage_even_when_it_wraps_close),
		T(rows_keep_order_when_positions_wrap),
		T(sigterm_drains_writes_stats_and_exits_zero),
		T(sigterm_with_stop_on_exit_stops_then_drains_the_last_snapshot),
		T(stop_on_exit_failure_still_writes_stats),
		T(stop_on_exit_is_not_called_without_a_signal),
		T(sigterm_while_waiting_exits_without_output),
		T(write_error_names_the_output_file),
		T(device_hangup_is_an_error),
		T(head_too_far_ahead_of_tail_is_a_protocol_error),
		T(too_many_columns_names_the_value_and_the_limit),
		T(generation_change_mid_stream_is_a_protocol_error),
		T(lossy_run_ends_with_the_adler32_line),
		T(regular_file_device_is_read_like_the_device),
		T(each_collection_goes_to_its_own_file),
		T(second_stream_adler32_sums_its_own_lines_alone),
		T(output_names),
		T(unwritable_output_directory_is_reported_up_front),
		T(sighup_starts_a_whole_stream_in_the_reopened_file),
		T(sighup_lossy_files_each_end_with_their_own_adler32),
		T(sighup_without_rotation_keeps_writing_the_same_file),
		T(sighup_while_full_reopens_once_the_buffer_is_out),
		T(full_output_drops_counts_and_resumes),
		T(stats_waits_for_room_when_the_end_finds_the_output_full),
		T(stop_signal_while_full_gives_up_with_enospc),
		T(stop_signal_while_over_quota_gives_up_with_edquot),
		T(lossy_end_while_full_keeps_adler32_last_and_unframed),
		T(overwrite_mode_counts_what_was_overwritten),
		T(overwrite_mode_running_skips_the_slot_being_written),
		T(overwrite_mode_checks_each_record_seq),
		T(position_valid_below_a_ring_behind_head),
		T(a_second_consumer_sees_the_rows_the_output_gets),
		T(the_collection_is_handed_back_once_every_consumer_has_ended),
	};

	return cmocka_run_group_tests_name("daemon", tests, NULL, NULL);
}

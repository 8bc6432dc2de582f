// SPDX-License-Identifier: MIT
/*
 * Standard output that is the journal: how ksnapd knows it is, the fields
 * of an entry, and that no line is ever written cut (journal.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "journal.h"
#include "output.h"

#define MAX_ENTRIES	8

/* The entries sendv was given: their MESSAGE= values and field counts. */
static char *entries[MAX_ENTRIES];
static size_t entry_len[MAX_ENTRIES];
static int nr_entries;
static int send_err;		/* fail every send with this -errno ... */
static int send_err_at;		/* ... or the send of this entry (1-based) */

static int record_entry(const struct iovec *iov, int n)
{
	size_t len;

	assert_int_equal(n, KSNAP_JOURNAL_FIELDS);
	if (send_err)
		return send_err;
	if (send_err_at && nr_entries + 1 == send_err_at) {
		send_err_at = 0;
		return -ENOMEM;
	}
	assert_true(nr_entries < MAX_ENTRIES);
	assert_true(iov[0].iov_len >= 8);
	assert_memory_equal(iov[0].iov_base, "MESSAGE=", 8);
	len = iov[0].iov_len - 8;
	entries[nr_entries] = malloc(len + 1);
	assert_non_null(entries[nr_entries]);
	memcpy(entries[nr_entries], (char *)iov[0].iov_base + 8, len);
	entries[nr_entries][len] = '\0';
	entry_len[nr_entries++] = len;
	return 0;
}

static int setup(void **state)
{
	fake_sys_reset();
	fake_sys.capture = true;
	fake_sys.journal_hook = record_entry;
	nr_entries = 0;
	send_err = 0;
	send_err_at = 0;
	return 0;
}

static int teardown(void **state)
{
	while (nr_entries)
		free(entries[--nr_entries]);
	fake_sys_reset();
	return 0;
}

static void put(struct ksnap_out *o, const char *s, size_t n)
{
	int err = 0;
	char *p = ksnap_out_reserve(o, n, &err);

	assert_non_null(p);
	memcpy(p, s, n);
	ksnap_out_commit(o, p + n);
}

static void puts_(struct ksnap_out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* A line of n bytes of 'x' and its newline. */
static char *long_line(size_t n)
{
	char *l = malloc(n + 1);

	assert_non_null(l);
	memset(l, 'x', n);
	l[n] = '\n';
	return l;
}

static void journal_stream_names_device_and_inode(void **state)
{
	struct stat st = { .st_dev = 64769, .st_ino = 1234 };

	assert_true(ksnap_journal_stream_is("64769:1234", &st));
	assert_false(ksnap_journal_stream_is("64769:1235", &st));
	assert_false(ksnap_journal_stream_is("64768:1234", &st));
	assert_false(ksnap_journal_stream_is(NULL, &st));
	assert_false(ksnap_journal_stream_is("", &st));
	assert_false(ksnap_journal_stream_is("64769", &st));
	assert_false(ksnap_journal_stream_is("64769:", &st));
	assert_false(ksnap_journal_stream_is(":1234", &st));
	assert_false(ksnap_journal_stream_is("64769:1234x", &st));
	assert_false(ksnap_journal_stream_is("x64769:1234", &st));
}

static void fields_are_message_priority_identifier_collection(void **state)
{
	struct ksnap_journal j;
	struct iovec iov[KSNAP_JOURNAL_FIELDS];
	const char line[] = "GVISOR_METRICS\t1\t2";

	ksnap_journal_init(&j, NULL);
	j.collection = 7;
	assert_int_equal(ksnap_journal_fields(&j, iov, line, sizeof(line) - 1),
			 KSNAP_JOURNAL_FIELDS);
	assert_int_equal(iov[0].iov_len, 8 + sizeof(line) - 1);
	assert_memory_equal(iov[0].iov_base, "MESSAGE=GVISOR_METRICS\t1\t2",
			    iov[0].iov_len);
	assert_int_equal(iov[1].iov_len, strlen("PRIORITY=6"));
	assert_memory_equal(iov[1].iov_base, "PRIORITY=6", iov[1].iov_len);
	assert_int_equal(iov[2].iov_len, strlen("SYSLOG_IDENTIFIER=ksnapd"));
	assert_memory_equal(iov[2].iov_base, "SYSLOG_IDENTIFIER=ksnapd",
			    iov[2].iov_len);
	assert_int_equal(iov[3].iov_len, strlen("KSNAP_COLLECTION=7"));
	assert_memory_equal(iov[3].iov_base, "KSNAP_COLLECTION=7",
			    iov[3].iov_len);
	ksnap_journal_fini(&j);
}

/* The stream fall back: a line and its newline up to LineMax pass. */
static void check_refuses_a_line_longer_than_line_max(void **state)
{
	size_t fits = KSNAP_JOURNAL_LINE_MAX - 1;
	char *l = long_line(fits), *l2 = long_line(fits + 1);
	struct ksnap_journal j;
	char want[64];

	ksnap_journal_init(&j, NULL);
	assert_int_equal(ksnap_journal_check(&j, l, fits + 1), 0);
	/* no newline: the last line of data */
	assert_int_equal(ksnap_journal_check(&j, l, fits), 0);
	assert_int_equal(ksnap_journal_check(&j, "A\n", 2), 0);
	assert_int_equal(ksnap_journal_check(&j, l2, fits + 2), -EMSGSIZE);
	snprintf(want, sizeof(want), "a line of %zu bytes", fits + 1);
	assert_non_null(strstr(j.err, want));
	snprintf(want, sizeof(want), "LineMax (%u bytes",
		 KSNAP_JOURNAL_LINE_MAX);
	assert_non_null(strstr(j.err, want));
	assert_int_equal(ksnap_journal_check(&j, l2, fits + 1), -EMSGSIZE);
	ksnap_journal_fini(&j);
	free(l);
	free(l2);
}

/* Each line one entry, whatever its length; the frame's newlines none. */
static void flush_sends_each_line_as_an_entry(void **state)
{
	size_t big = 3 * KSNAP_JOURNAL_LINE_MAX;
	char *l = long_line(big);
	struct ksnap_journal j;
	struct ksnap_out o;

	ksnap_journal_init(&j, NULL);
	assert_int_equal(ksnap_out_init(&o, 1, false, true, 1024), 0);
	o.journal = &j;
	puts_(&o, "A\nBB\n");
	put(&o, l, big + 1);
	puts_(&o, "C\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_int_equal(nr_entries, 4);
	assert_string_equal(entries[0], "A");
	assert_string_equal(entries[1], "BB");
	assert_int_equal(entry_len[2], big);
	assert_int_equal(strspn(entries[2], "x"), big);
	assert_string_equal(entries[3], "C");
	assert_int_equal(fake_sys.wlen, 0);
	assert_int_equal(ksnap_out_pending(&o), 0);
	/* flush_last (the ADLER32 line): no newline after it */
	puts_(&o, "D");
	assert_int_equal(ksnap_out_flush_last(&o), 0);
	assert_int_equal(nr_entries, 5);
	assert_string_equal(entries[4], "D");
	ksnap_out_fini(&o);
	ksnap_journal_fini(&j);
	free(l);
}

/* A failed send keeps the rest: the next flush sends it, no line twice. */
static void failed_send_resumes_at_the_line(void **state)
{
	struct ksnap_journal j;
	struct ksnap_out o;

	ksnap_journal_init(&j, NULL);
	assert_int_equal(ksnap_out_init(&o, 1, false, true, 1024), 0);
	o.journal = &j;
	puts_(&o, "A\nB\nC\n");
	send_err_at = 2;
	assert_int_equal(ksnap_out_flush(&o), -ENOMEM);
	assert_int_equal(nr_entries, 1);
	puts_(&o, "D\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_int_equal(nr_entries, 4);
	assert_string_equal(entries[0], "A");
	assert_string_equal(entries[1], "B");
	assert_string_equal(entries[2], "C");
	assert_string_equal(entries[3], "D");
	assert_true(j.native);
	ksnap_out_fini(&o);
	ksnap_journal_fini(&j);
}

/* No native protocol (no libsystemd, no socket): the stream, as before. */
static void without_native_protocol_short_lines_go_to_the_stream(void **state)
{
	struct ksnap_journal j;
	struct ksnap_out o;

	send_err = -ENOENT;
	ksnap_journal_init(&j, NULL);
	assert_int_equal(ksnap_out_init(&o, 1, false, true, 1024), 0);
	o.journal = &j;
	puts_(&o, "A\nBB\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_false(j.native);
	assert_int_equal(fake_sys.journal_calls, 1);
	/* the frame's leading newline was gone through as an empty line */
	assert_int_equal(fake_sys.wlen, strlen("A\nBB\n\n"));
	assert_memory_equal(fake_sys.wbuf, "A\nBB\n\n", fake_sys.wlen);
	/* from now on the stream alone, framed */
	puts_(&o, "C\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_int_equal(fake_sys.journal_calls, 1);
	assert_int_equal(fake_sys.wlen, 6 + 4);
	assert_memory_equal(fake_sys.wbuf + 6, "\nC\n\n", 4);
	ksnap_out_fini(&o);
	ksnap_journal_fini(&j);
}

/* ... and a line journald would cut is refused whole, nothing written. */
static void without_native_protocol_a_long_line_is_refused(void **state)
{
	size_t n = KSNAP_JOURNAL_LINE_MAX;
	char *l = long_line(n);
	struct ksnap_journal j;
	struct ksnap_out o;
	char want[64];

	send_err = -ENOSYS;
	ksnap_journal_init(&j, NULL);
	assert_int_equal(ksnap_out_init(&o, 1, false, true, 1024), 0);
	o.journal = &j;
	puts_(&o, "A\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_int_equal(fake_sys.wlen, 3);
	/* larger than the buffer: what it holds is flushed first */
	puts_(&o, "B\n");
	put(&o, l, n + 1);
	assert_int_equal(fake_sys.wlen, 3 + 4);
	assert_int_equal(ksnap_out_flush(&o), -EMSGSIZE);
	snprintf(want, sizeof(want), "a line of %zu bytes", n);
	assert_non_null(strstr(j.err, want));
	/* the buffer with it is kept, not written in part */
	assert_int_equal(ksnap_out_flush(&o), -EMSGSIZE);
	assert_int_equal(fake_sys.wlen, 3 + 4);
	assert_int_equal(ksnap_out_pending(&o), n + 1);
	ksnap_out_fini(&o);
	ksnap_journal_fini(&j);
	free(l);
}

/* The socket goes away mid-flush: the lines sent are not written again. */
static void native_protocol_lost_mid_flush_writes_the_rest(void **state)
{
	struct ksnap_journal j;
	struct ksnap_out o;

	ksnap_journal_init(&j, NULL);
	assert_int_equal(ksnap_out_init(&o, 1, false, true, 1024), 0);
	o.journal = &j;
	puts_(&o, "A\nB\n");
	assert_int_equal(ksnap_out_flush(&o), 0);
	puts_(&o, "C\nD\n");
	send_err = -ECONNREFUSED;
	assert_int_equal(ksnap_out_flush(&o), 0);
	assert_int_equal(nr_entries, 2);
	assert_memory_equal(fake_sys.wbuf, "C\nD\n\n", fake_sys.wlen);
	ksnap_out_fini(&o);
	ksnap_journal_fini(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(journal_stream_names_device_and_inode),
		cmocka_unit_test(fields_are_message_priority_identifier_collection),
		cmocka_unit_test(check_refuses_a_line_longer_than_line_max),
		cmocka_unit_test_setup_teardown(flush_sends_each_line_as_an_entry,
						setup, teardown),
		cmocka_unit_test_setup_teardown(failed_send_resumes_at_the_line,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			without_native_protocol_short_lines_go_to_the_stream,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			without_native_protocol_a_long_line_is_refused,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			native_protocol_lost_mid_flush_writes_the_rest,
			setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

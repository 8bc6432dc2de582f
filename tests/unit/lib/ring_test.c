// SPDX-License-Identifier: MIT
/* The ring reader against rings built in memory, and the device attach
 * path with the system calls faked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "fake_ring.h"
#include "ring.h"

static struct fake_ring fr;

static int setup(void **state)
{
	(void)state;
	fake_sys_reset();
	fake_ring_init(&fr, NULL, 4, 8);
	fake_sys.ring = &fr;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_ring_free(&fr);
	fake_sys_reset();
	return 0;
}

static void setup_points_at_the_regions_the_ctrl_block_describes(void **s)
{
	struct ksnap_ring r = { .fd = -1 };

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	assert_ptr_equal(r.data, fr.data);
	assert_int_equal(r.nr_records, 8);
	assert_int_equal(r.record_size, KSNAP_RECORD_SIZE(4));
	assert_int_equal(r.max_columns, KSNAP_MAX_COLUMNS);
}

static void setup_rejects_bad_magic_and_version(void **s)
{
	struct ksnap_ring r = { .fd = -1 };

	fr.ctrl->magic = 0x1234;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons),
			 -EPROTO);
	assert_int_equal(r.found_magic, 0x1234);
	fr.ctrl->magic = KSNAP_MAGIC;
	fr.ctrl->abi_version = 1;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons),
			 -EPROTONOSUPPORT);
	assert_int_equal(r.found_version, 1);
	/* A later version that this reader can still read... */
	fr.ctrl->abi_version = KSNAP_ABI_VERSION + 1;
	fr.ctrl->abi_compat = KSNAP_ABI_VERSION;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	/* ... and one it cannot. */
	fr.ctrl->abi_compat = KSNAP_ABI_VERSION + 1;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons),
			 -EPROTONOSUPPORT);
	assert_int_equal(r.found_compat, KSNAP_ABI_VERSION + 1);
}

/*
 * A module of an older version back to KSNAP_ABI_READS_FROM (4, which has
 * no refresh_ns) is read: a new ksnapd on a node whose module is not
 * reloaded yet; an older one is not.
 */
static void setup_reads_a_module_back_to_reads_from(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	int ret;

	fr.ctrl->abi_version = KSNAP_ABI_READS_FROM;
	fr.ctrl->abi_compat = KSNAP_ABI_READS_FROM;
	fr.ctrl->features &= ~KSNAP_FEAT_REFRESH_NS;
	ret = ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons);
	if (ret)
		fail_msg("a ring of version %d: expected it read (0), got %d",
			 KSNAP_ABI_READS_FROM, ret);
	fr.ctrl->abi_version = KSNAP_ABI_READS_FROM - 1;
	fr.ctrl->abi_compat = KSNAP_ABI_READS_FROM - 1;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons),
			 -EPROTONOSUPPORT);
}

static void setup_rejects_inconsistent_layouts(void **s)
{
	struct ksnap_ring r = { .fd = -1 };

	fr.ctrl->nr_records = 0;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons),
			 -EINVAL);
	/* Each says the value found and the limit it breaks. */
	assert_string_equal(r.why, "nr_records is 0");
	fr.ctrl->nr_records = 1024;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons),
			 -EINVAL);
	assert_string_equal(r.why, "records do not fit the data region: "
			    "nr_records 1024 x record_size 72 = 73728 bytes, "
			    "more than data_pages 1 (4096 bytes)");
	fr.ctrl->nr_records = 8;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len - FAKE_PAGE,
					  fr.cons), -EINVAL);
	assert_string_equal(r.why, "total_pages 3 (12288 bytes) is larger "
			    "than the mapping (8192 bytes)");
	fr.ctrl->record_size = 12;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons),
			 -EINVAL);
	assert_string_equal(r.why, "record_size 12 is too small (at least "
			    "40) or not a multiple of 8");
}

static void records_are_read_in_position_order_across_the_wrap(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	uint64_t pos;

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_ring_start(&fr, 1, 2, 1000, 0, 0);
	/* Positions 5..12 occupy slots 5,6,7,0,1,2,3,4. */
	fr.ctrl->head = 5;
	fr.cons->tail = 5;
	for (pos = 5; pos < 13; pos++)
		fake_ring_push(&fr, pos * 1000, pos * 10);
	assert_int_equal(ksnap_ring_head(&r), 13);
	assert_int_equal(ksnap_ring_tail(&r), 5);
	for (pos = ksnap_ring_tail(&r); pos != ksnap_ring_head(&r); pos++) {
		const struct ksnap_record *rec = ksnap_ring_record(&r, pos);

		assert_int_equal(rec->seq, pos);
		assert_int_equal(rec->time_ns, pos * 1000);
		assert_int_equal(rec->values[0], pos * 10);
		assert_int_equal(rec->values[1], pos * 10 + 1);
	}
	assert_ptr_equal(ksnap_ring_record(&r, 8), fr.data);
	assert_ptr_equal(ksnap_ring_record(&r, 12),
			 fr.data + 4 * KSNAP_RECORD_SIZE(4));
}

/* A ring sized exactly: the slot of a position is its remainder. */
static void records_wrap_at_a_ring_of_any_size(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	uint64_t pos;

	fr.ctrl->nr_records = 6;
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_ring_start(&fr, 1, 2, 1000, 0, 0);
	/* Positions 10..15 occupy slots 4,5,0,1,2,3. */
	fr.ctrl->head = 10;
	fr.cons->tail = 10;
	for (pos = 10; pos < 16; pos++)
		fake_ring_push(&fr, pos * 1000, pos * 10);
	for (pos = 10; pos < 16; pos++) {
		const struct ksnap_record *rec = ksnap_ring_record(&r, pos);

		assert_int_equal(rec->seq, pos);
		assert_int_equal(rec->values[0], pos * 10);
	}
	assert_ptr_equal(ksnap_ring_record(&r, 12), fr.data);
	assert_ptr_equal(ksnap_ring_record(&r, 11),
			 fr.data + 5 * KSNAP_RECORD_SIZE(4));
	assert_ptr_equal(ksnap_ring_record(&r, UINT64_MAX),
			 fr.data + 3 * KSNAP_RECORD_SIZE(4));
}

/*
 * The reader's one write to shared memory is its tail; what it has seen
 * and is done with goes to the kernel by ioctl, seen only when it changes.
 */
static void only_the_tail_lands_in_the_page_seen_and_done_by_ioctl(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	struct ksnap_consumer before;

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_ring_start(&fr, 3, 1, 1000, 0, 0);
	memcpy(&before, fr.cons, sizeof(before));
	ksnap_ring_set_tail(&r, 42);
	assert_int_equal(fr.cons->tail, 42);
	before.tail = 42;
	assert_int_equal(ksnap_ring_set_seen(&r, 3, KSNAP_STATE_RUNNING), 0);
	assert_true(fr.reader_seen_set);
	assert_int_equal(fr.reader_seen, 7);
	assert_int_equal(ksnap_ring_set_seen(&r, 3, KSNAP_STATE_RUNNING), 0);
	assert_int_equal(fr.seen_calls, 1);
	fake_ring_stop(&fr);
	assert_int_equal(ksnap_ring_set_seen(&r, 3, KSNAP_STATE_STOPPED), 0);
	assert_int_equal(fr.reader_seen, 6);
	assert_int_equal(fr.seen_calls, 2);
	assert_int_equal(ksnap_ring_set_done(&r, 3), 0);
	assert_int_equal(fr.reader_done, 3);
	assert_int_equal(ksnap_ring_done(&r), 3);
	assert_int_equal(fake_sys.ioctl_calls, 3);
	assert_memory_equal(&before, fr.cons, sizeof(before));
}

/* The kernel's refusals come back, and what the reader keeps stays. */
static void refused_done_and_seen_change_nothing(void **s)
{
	struct ksnap_ring r = { .fd = -1 };

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_ring_start(&fr, 3, 1, 1000, 0, 0);
	/* Collection 3 runs: not finished; 4 is to come. */
	assert_int_equal(ksnap_ring_set_done(&r, 3), -EINVAL);
	assert_int_equal(ksnap_ring_set_done(&r, 4), -EINVAL);
	assert_int_equal(ksnap_ring_done(&r), 0);
	assert_int_equal(fr.reader_done, 0);
	assert_int_equal(ksnap_ring_set_done(&r, 2), 0);
	assert_int_equal(ksnap_ring_done(&r), 2);
	/* Not stopped yet, and not started yet. */
	assert_int_equal(ksnap_ring_set_seen(&r, 3, KSNAP_STATE_STOPPED),
			 -EINVAL);
	assert_int_equal(ksnap_ring_set_seen(&r, 4, KSNAP_STATE_RUNNING),
			 -EINVAL);
	assert_false(r.seen_sent);
	assert_false(fr.reader_seen_set);
	assert_int_equal(ksnap_ring_set_seen(&r, 3, KSNAP_STATE_RUNNING), 0);
	assert_int_equal(fr.reader_seen, 7);
}

/* --device FILE: a file without the ioctls has no kernel to tell. */
static void a_regular_file_without_the_ioctls_keeps_done_itself(void **s)
{
	struct ksnap_ring r = { .fd = -1 };

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_sys.ring = NULL;
	fake_sys.ioctl_err = -ENOTTY;
	r.regular_file = true;
	assert_int_equal(ksnap_ring_set_done(&r, 5), 0);
	assert_int_equal(ksnap_ring_done(&r), 5);
	assert_int_equal(ksnap_ring_set_seen(&r, 5, KSNAP_STATE_STOPPED), 0);
	/* A device without them is an error. */
	r.regular_file = false;
	assert_int_equal(ksnap_ring_set_done(&r, 6), -ENOTTY);
	assert_int_equal(ksnap_ring_done(&r), 5);
}

static void read_coll_copies_fields_and_columns(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	struct ksnap_coll c = { 0 };
	char path[320];

	/* A Kubernetes pod's scope nested deeper still: ~300 bytes. */
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_ring_column(&fr, 0, "a", NULL, NULL, "A", 0);
	fake_ring_column(&fr, 1, "b", "cgroup", path, "B", KSNAP_COL_CUMULATIVE);
	fr.ctrl->set_id = 7;
	fake_ring_start(&fr, 9, 2, 250, 111, 222);
	assert_int_equal(ksnap_ring_read_coll(&r, &c), 0);
	assert_int_equal(c.generation, 9);
	assert_int_equal(c.state, KSNAP_STATE_RUNNING);
	assert_int_equal(c.set_id, 7);
	assert_int_equal(c.nr_columns, 2);
	assert_int_equal(c.period_ns, 250);
	assert_int_equal(c.start_mono_ns, 111);
	assert_int_equal(c.start_real_ns, 222);
	assert_null(c.columns);
	assert_int_equal(fake_sys.ioctl_calls, 0);
	assert_int_equal(fake_sys.yield_calls, 0);

	/* The columns come through the device, one ioctl each, whole. */
	assert_int_equal(ksnap_ring_read_columns(&r, &c), 0);
	assert_int_equal(fake_sys.ioctl_calls, 2);
	assert_string_equal(c.columns[0].metric, "a");
	assert_string_equal(c.columns[0].field, "");
	assert_string_equal(c.columns[1].field, "cgroup");
	assert_string_equal(c.columns[1].value, path);
	assert_string_equal(c.columns[1].description, "B");
	assert_int_equal(c.columns[1].flags, KSNAP_COL_CUMULATIVE);
	free(c.columns);
}

/* A set the module has replaced is refused: the fields are read again. */
static void read_columns_of_a_replaced_set_is_estale(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	struct ksnap_coll c = { 0 };

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_ring_column(&fr, 0, "a", NULL, NULL, "A", 0);
	fake_ring_column(&fr, 1, "b", NULL, NULL, "B", 0);
	fake_ring_start(&fr, 2, 1, 250, 0, 0);
	assert_int_equal(ksnap_ring_read_coll(&r, &c), 0);
	assert_int_equal(c.set_id, 1);
	/* Reconfigured in between: a new set of two columns. */
	fr.ctrl->set_id = 2;
	fr.ctrl->nr_columns = 2;
	assert_int_equal(ksnap_ring_read_columns(&r, &c), -ESTALE);
	assert_int_equal(ksnap_ring_read_coll_columns(&r, &c), 0);
	assert_int_equal(c.set_id, 2);
	assert_int_equal(c.nr_columns, 2);
	assert_string_equal(c.columns[1].metric, "b");
	/* A module that answers with another count is not believed. */
	c.nr_columns = 1;
	assert_int_equal(ksnap_ring_read_columns(&r, &c), -EPROTO);
	/* Nor is a device that has no such ioctl (a regular file). */
	fake_sys.ring = NULL;
	fake_sys.ioctl_err = -ENOTTY;
	assert_int_equal(ksnap_ring_read_coll_columns(&r, &c), -ENOTTY);
	free(c.columns);
}

/*
 * values_offset: a newer module's longer header is skipped, the values
 * read from where it says; a record of another set, or whose values are
 * not where this reader can follow, is not read at all.
 */
static void values_are_taken_from_values_offset_of_their_set(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	struct ksnap_record *slot, *buf = malloc(KSNAP_RECORD_SIZE(4));
	const struct ksnap_record *v;
	uint64_t *raw;

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_ring_start(&fr, 1, 2, 1000, 0, 0);
	fake_ring_push(&fr, 5000, 70);
	slot = fake_ring_slot(&fr, 0);
	/* This module's: as it is. */
	assert_ptr_equal(ksnap_ring_values(&r, slot, 1, 2, buf), slot);
	assert_int_equal(slot->values[1], 71);

	/* A newer header, one u64 longer: values at 48, not at 40. */
	raw = (uint64_t *)slot;
	raw[5] = 0xdeadbeef;	/* the new header field */
	raw[6] = 80;
	raw[7] = 81;
	slot->values_offset = 48;
	v = ksnap_ring_values(&r, slot, 1, 2, buf);
	assert_ptr_equal(v, buf);
	assert_int_equal(v->seq, 0);
	assert_int_equal(v->time_ns, 5000);
	assert_int_equal(v->values_offset,
			 offsetof(struct ksnap_record, values));
	assert_int_equal(v->values[0], 80);
	assert_int_equal(v->values[1], 81);

	/* Another set: refused, whatever its values. */
	assert_null(ksnap_ring_values(&r, slot, 2, 2, buf));
	/* Values past the slot, before the header, unaligned: refused. */
	slot->values_offset = KSNAP_RECORD_SIZE(4) - 8;
	assert_null(ksnap_ring_values(&r, slot, 1, 2, buf));
	slot->values_offset = 32;
	assert_null(ksnap_ring_values(&r, slot, 1, 2, buf));
	slot->values_offset = 44;
	assert_null(ksnap_ring_values(&r, slot, 1, 2, buf));
	free(buf);
}

/* The "kernel" finishes its update while the reader yields. */
static void finish_update(void)
{
	if (fake_sys.yield_calls == 3) {
		fr.ctrl->generation = 5;
		fr.ctrl->seq++;		/* even again */
	}
}

static void read_coll_retries_while_seq_is_odd(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	struct ksnap_coll c = { 0 };

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_ring_start(&fr, 4, 1, 250, 0, 0);
	fr.ctrl->seq++;			/* odd: update in progress */
	fake_sys.yield_hook = finish_update;
	assert_int_equal(ksnap_ring_read_coll(&r, &c), 0);
	assert_int_equal(fake_sys.yield_calls, 3);
	assert_int_equal(c.generation, 5);
}

static void read_coll_gives_up_with_eagain_on_a_stuck_seq(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	struct ksnap_coll c = { 0 };

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fr.ctrl->seq = 1;
	assert_int_equal(ksnap_ring_read_coll(&r, &c), -EAGAIN);
	assert_int_equal(fake_sys.yield_calls, KSNAP_SEQ_RETRIES);
}

static void read_coll_rejects_more_columns_than_the_ring_has(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	struct ksnap_coll c = { 0 };

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fake_ring_start(&fr, 1, 5, 250, 0, 0);
	assert_int_equal(ksnap_ring_read_coll(&r, &c), -EPROTO);
}

static void read_stats_copies_the_counters(void **s)
{
	struct ksnap_ring r = { .fd = -1 };
	struct ksnap_stats st;

	assert_int_equal(ksnap_ring_setup(&r, fr.mem, fr.len, fr.cons), 0);
	fr.ctrl->stats.taken = 10;
	fr.ctrl->stats.lost = 2;
	fr.ctrl->stats.bad_tail = 1;
	fr.ctrl->stats.read_max_ns = 77;
	ksnap_ring_read_stats(&r, &st);
	assert_int_equal(st.taken, 10);
	assert_int_equal(st.lost, 2);
	assert_int_equal(st.bad_tail, 1);
	assert_int_equal(st.read_max_ns, 77);
}

/* Attach path with open/mmap faked: the device is fr.mem. */
static void fake_device(void)
{
	fake_sys.mem = fr.mem;
	fake_sys.ring = &fr;
	fake_sys.mem_len = fr.len;
}

static void open_maps_probe_page_whole_device_and_consumer_page(void **s)
{
	struct ksnap_ring r;

	fake_device();
	assert_int_equal(ksnap_ring_open(&r, "/dev/ksnap"), 0);
	assert_int_equal(fake_sys.mmap_calls, 3);
	assert_int_equal(fake_sys.munmap_calls, 1);	/* the probe page */
	assert_ptr_equal(r.ctrl, fr.ctrl);
	assert_ptr_equal(r.cons, fr.cons);
	assert_ptr_equal(fake_sys.mmap_prot_rw, fr.cons);
	assert_false(r.regular_file);
	ksnap_ring_close(&r);
	assert_int_equal(fake_sys.munmap_calls, 3);
	assert_int_equal(fake_sys.close_calls, 1);
}

static void open_reports_a_missing_device(void **s)
{
	struct ksnap_ring r;

	fake_sys.open_err = -ENOENT;
	assert_int_equal(ksnap_ring_open(&r, "/dev/ksnap"), -ENOENT);
	assert_string_equal(r.op, "open");
	assert_int_equal(fake_sys.mmap_calls, 0);
}

static void open_rejects_magic_mismatch_and_cleans_up(void **s)
{
	struct ksnap_ring r;

	fake_device();
	fr.ctrl->magic = 0xdead;
	assert_int_equal(ksnap_ring_open(&r, "/dev/ksnap"), -EPROTO);
	assert_int_equal(r.found_magic, 0xdead);
	assert_int_equal(fake_sys.mmap_calls, 1);
	assert_int_equal(fake_sys.munmap_calls, 1);
	assert_int_equal(fake_sys.close_calls, 1);
}

static void open_rejects_version_mismatch_and_cleans_up(void **s)
{
	struct ksnap_ring r;

	fake_device();
	fr.ctrl->abi_version = KSNAP_ABI_VERSION + 1;
	fr.ctrl->abi_compat = KSNAP_ABI_VERSION + 1;
	assert_int_equal(ksnap_ring_open(&r, "/dev/ksnap"), -EPROTONOSUPPORT);
	assert_int_equal(r.found_version, KSNAP_ABI_VERSION + 1);
	assert_int_equal(r.found_compat, KSNAP_ABI_VERSION + 1);
	assert_int_equal(fake_sys.munmap_calls, 1);
	assert_int_equal(fake_sys.close_calls, 1);
}

/*
 * open() begins the session: the base the kernel set at open is this
 * reader's done generation, what it sees goes to the kernel by ioctl, and
 * nothing is written to the consumer page: the tail an earlier reader
 * left is kept, and what it left in the reserved bytes too.
 */
static void open_begins_the_session_writing_nothing_to_the_page(void **s)
{
	struct ksnap_ring r;
	struct ksnap_consumer before;

	fake_device();
	fake_ring_start(&fr, 3, 2, 1000, 0, 0);
	fr.cons->tail = 17;
	memset(fr.cons->reserved0, 0xa5, sizeof(fr.cons->reserved0));
	fake_ring_open(&fr);
	assert_int_equal(fake_ring_reader_done(&fr), 2);
	memcpy(&before, fr.cons, sizeof(before));
	assert_int_equal(ksnap_ring_open(&r, "/dev/ksnap"), 0);
	assert_int_equal(ksnap_ring_done(&r), 2);
	assert_true(fr.reader_seen_set);
	assert_int_equal(fr.reader_seen, KSNAP_GEN_STATE(3, KSNAP_STATE_RUNNING));
	assert_int_equal(fr.done_calls, 0);
	assert_int_equal(fake_ring_reader_done(&fr), 2);
	assert_memory_equal(&before, fr.cons, sizeof(before));
	ksnap_ring_close(&r);
}

/* A device that refuses the session's first report is not opened. */
static void open_fails_and_cleans_up_when_seen_is_refused(void **s)
{
	struct ksnap_ring r;

	fake_device();
	fake_sys.ioctl_err = -EBADF;
	assert_int_equal(ksnap_ring_open(&r, "/dev/ksnap"), -EBADF);
	assert_string_equal(r.op, "claim");
	assert_int_equal(fake_sys.munmap_calls, 3);
	assert_int_equal(fake_sys.close_calls, 1);
	assert_int_equal(r.fd, -1);
	assert_null(r.ctrl);
}

static void open_undoes_mappings_when_an_mmap_fails(void **s)
{
	struct ksnap_ring r;
	int n;

	/* mmap 1: probe, 2: whole device, 3: consumer page */
	for (n = 1; n <= 3; n++) {
		fake_sys_reset();
		fake_device();
		fake_sys.mmap_fail_at = n;
		fake_sys.mmap_err = -EPERM;
		assert_int_equal(ksnap_ring_open(&r, "/dev/ksnap"), -EPERM);
		assert_string_equal(r.op, "mmap");
		/* every successful mmap is undone, the fd is closed */
		assert_int_equal(fake_sys.munmap_calls, n - 1);
		assert_int_equal(fake_sys.close_calls, 1);
		assert_null(r.ctrl);
	}
}

static void open_rejects_a_layout_that_does_not_fit(void **s)
{
	struct ksnap_ring r;

	fake_device();
	fr.ctrl->record_size = 12;
	assert_int_equal(ksnap_ring_open(&r, "/dev/ksnap"), -EINVAL);
	assert_non_null(r.why);
	assert_int_equal(fake_sys.munmap_calls, 3);
	assert_int_equal(fake_sys.close_calls, 1);
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

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(setup_points_at_the_regions_the_ctrl_block_describes),
		T(setup_rejects_bad_magic_and_version),
		T(setup_reads_a_module_back_to_reads_from),
		T(setup_rejects_inconsistent_layouts),
		T(records_are_read_in_position_order_across_the_wrap),
		T(records_wrap_at_a_ring_of_any_size),
		T(only_the_tail_lands_in_the_page_seen_and_done_by_ioctl),
		T(refused_done_and_seen_change_nothing),
		T(a_regular_file_without_the_ioctls_keeps_done_itself),
		T(read_coll_copies_fields_and_columns),
		T(read_columns_of_a_replaced_set_is_estale),
		T(values_are_taken_from_values_offset_of_their_set),
		T(read_coll_retries_while_seq_is_odd),
		T(read_coll_gives_up_with_eagain_on_a_stuck_seq),
		T(read_coll_rejects_more_columns_than_the_ring_has),
		T(read_stats_copies_the_counters),
		T(open_maps_probe_page_whole_device_and_consumer_page),
		T(open_reports_a_missing_device),
		T(open_rejects_magic_mismatch_and_cleans_up),
		T(open_rejects_version_mismatch_and_cleans_up),
		T(open_begins_the_session_writing_nothing_to_the_page),
		T(open_fails_and_cleans_up_when_seen_is_refused),
		T(open_undoes_mappings_when_an_mmap_fails),
		T(open_rejects_a_layout_that_does_not_fit),
		T(position_valid_below_a_ring_behind_head),
	};

	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}

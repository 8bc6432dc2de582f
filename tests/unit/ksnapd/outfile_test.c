// SPDX-License-Identifier: MIT
/*
 * ksnapd's output file on a fake device (ksnapd_fixture.h): what STATS
 * says of the rows written, file names and resumed files, lossy streams
 * and their checksums, SIGHUP, and the full disk.
 */
#include <sys/stat.h>
#include <zlib.h>

#include "ksnapd_fixture.h"

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
static void attached_mid_collection_at_tail_0_creates_the_usual_file(
	void **s)
{
	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 0);
	cfg.out_path = "out.tsv";
	attach(false);
	script = stop_now;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(fake_sys.nr_opened, 2);
	assert_string_equal(fake_sys.opened[1], "out.tsv");
	assert_true(fake_sys.opened_flags[1] & O_EXCL);
	assert_contains(output(), "\"ksnapd_first_position\":0");
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
	assert_true(fake_sys.opened_flags[1] & O_EXCL);
	assert_true(fake_sys.opened_flags[2] & O_EXCL);
	/* Each file holds one whole stream, with its own ADLER32. */
	assert_int_equal(count_lines_starting(output() +
		fake_sys.opened_at[2], KSNAP_LOSSY_PREFIX "STATS\t"), 1);
	assert_int_equal(count_lines_starting(output() +
		fake_sys.opened_at[2], KSNAP_LOSSY_PREFIX "ADLER32\t"), 1);
	assert_int_equal(count_lines_starting(output() +
		fake_sys.opened_at[2], KSNAP_LOSSY_PREFIX "META\t"), 1);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "ADLER32\t"), 2);
	assert_int_equal(fr.reader_done, 2);
	assert_int_equal(d.col.state, KSNAPD_DONE);
}

/* A file of tmp, with text, for the files an earlier run left. */
static void put_file(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* What file dir/name holds, or "(none)" when there is none. */
static const char *file_text(const char *dir, const char *name)
{
	static char buf[128];
	char p[512];
	size_t n;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "r");
	if (!f)
		return "(none)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * A restart after a stopped collection: the earlier run's FILE and FILE.2
 * are moved aside whole (FILE.old.1, FILE.old.1.2) before the new run
 * creates FILE with O_EXCL; nothing is truncated, nothing of the earlier
 * run is left among the new run's names, and unrelated files stay.
 */
static void a_restart_moves_the_earlier_runs_files_aside_never_truncating(
	void **s)
{
	char dir[] = "/tmp/ksnap-outfile-XXXXXX", path[64];
	int i;

	assert_non_null(mkdtemp(dir));
	put_file(dir, "out.tsv", "run 1, collection 1");
	put_file(dir, "out.tsv.2", "run 1, collection 2");
	put_file(dir, "out.tsv.bak", "the user's");
	snprintf(path, sizeof(path), "%s/out.tsv", dir);
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	cfg.once = false;
	cfg.out_path = path;
	attach(true);
	script = two_collections;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	for (i = 1; i < fake_sys.nr_opened; i++)
		if (!(fake_sys.opened_flags[i] & O_EXCL) ||
		    (fake_sys.opened_flags[i] & O_TRUNC))
			fail_msg("expected %s created with O_EXCL, never "
				 "O_TRUNC; got flags 0%o", fake_sys.opened[i],
				 (unsigned int)fake_sys.opened_flags[i]);
	assert_string_equal(file_text(dir, "out.tsv.old.1"),
			    "run 1, collection 1");
	assert_string_equal(file_text(dir, "out.tsv.old.1.2"),
			    "run 1, collection 2");
	assert_string_equal(file_text(dir, "out.tsv.bak"), "the user's");
	/* (the new run's files are the fake's: none here) */
	assert_string_equal(file_text(dir, "out.tsv"), "(none)");
	assert_string_equal(file_text(dir, "out.tsv.2"), "(none)");
	for (i = 0; i < 3; i++) {
		static const char *const n[] = { "out.tsv.old.1",
			"out.tsv.old.1.2", "out.tsv.bak" };
		char p[512];

		snprintf(p, sizeof(p), "%s/%s", dir, n[i]);
		unlink(p);
	}
	assert_int_equal(rmdir(dir), 0);
}

static char wake_dir[32];

/* While the collection runs: a closed file appears, and the next check
 * is due (the 10 s between checks gone by). */
static void file_appears_then_stop(int call)
{
	if (call == 1) {
		put_file(wake_dir, "out.tsv.old.1", "12345");
		d.out.retain_next_ns = 0;
	} else if (call == 2) {
		fake_ring_push(&fr, 2000, 1);
	} else if (call == 3) {
		fake_ring_stop(&fr);
	}
}

/*
 * Retention runs while a collection is written too, not only when a file
 * is created: the file that appeared is removed at the wake-up its check
 * is due, and counted in the STATS of the stream being written.
 */
static void retention_runs_while_a_collection_is_written(void **s)
{
	char path[64];

	snprintf(wake_dir, sizeof(wake_dir), "/tmp/ksnap-outfile-XXXXXX");
	assert_non_null(mkdtemp(wake_dir));
	snprintf(path, sizeof(path), "%s/out.tsv", wake_dir);
	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 0);
	cfg.out_path = path;
	cfg.out_retain.max_size = 1;
	attach(false);
	script = file_appears_then_stop;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_string_equal(file_text(wake_dir, "out.tsv.old.1"), "(none)");
	assert_contains(output(), "\"ksnapd_files_removed\":1,"
			"\"ksnapd_bytes_removed\":5");
	assert_int_equal(rmdir(wake_dir), 0);
}

/*
 * A run that resumes a collection leaves the earlier run's files where
 * they are: one of them holds that collection's first part.
 */
static void a_resumed_run_leaves_the_earlier_runs_files_in_place(void **s)
{
	char dir[] = "/tmp/ksnap-outfile-XXXXXX", path[64], p[128];
	uint64_t pos;

	assert_non_null(mkdtemp(dir));
	put_file(dir, "out.tsv", "the killed run's part");
	snprintf(path, sizeof(path), "%s/out.tsv", dir);
	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
	for (pos = 0; pos < 6; pos++)
		fake_ring_push(&fr, (pos + 1) * 1000, pos);
	fr.cons->tail = 4;		/* the killed ksnapd got this far */
	cfg.out_path = path;
	attach(false);
	script = stop_now;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_string_equal(file_text(dir, "out.tsv"), "the killed run's part");
	assert_string_equal(file_text(dir, "out.tsv.old.1"), "(none)");
	snprintf(p, sizeof(p), "%s/out.tsv.resumed.1", dir);
	assert_string_equal(d.out.path, p);
	snprintf(p, sizeof(p), "%s/out.tsv", dir);
	unlink(p);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * Retention (--output-max-size): the earlier run's file, moved aside, is
 * over the cap and closed: removed when the collection's file is created,
 * and counted in that collection's STATS.
 */
static void retention_removes_closed_files_and_stats_count_them(void **s)
{
	char dir[] = "/tmp/ksnap-outfile-XXXXXX", path[64];

	assert_non_null(mkdtemp(dir));
	put_file(dir, "out.tsv", "run 1, collection 1");
	snprintf(path, sizeof(path), "%s/out.tsv", dir);
	fake_ring_start(&fr, 2, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1000, 0);
	cfg.out_path = path;
	cfg.out_retain.max_size = 1;
	attach(false);
	script = stop_now;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_string_equal(file_text(dir, "out.tsv.old.1"), "(none)");
	assert_contains(output(), "\"ksnapd_files_removed\":1,"
			"\"ksnapd_bytes_removed\":19");
	assert_int_equal(rmdir(dir), 0);
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
	assert_true(fake_sys.opened_flags[1] & O_EXCL);
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
	assert_int_equal(fr.reader_done, 1);
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
	assert_int_equal(fr.reader_done, 1);
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
	assert_int_equal(fr.reader_done, 0);
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

/* The journal's entries: their MESSAGE= values, one line each. */
static char *jbuf;
static size_t jlen;
static FILE *jout;
static int jempty;
static char jcoll[32];

static int journal_entry(const struct iovec *iov, int n)
{
	assert_int_equal(n, KSNAP_JOURNAL_FIELDS);
	assert_memory_equal(iov[0].iov_base, "MESSAGE=", 8);
	if (iov[0].iov_len == 8)
		jempty++;
	fwrite((char *)iov[0].iov_base + 8, 1, iov[0].iov_len - 8, jout);
	fputc('\n', jout);
	snprintf(jcoll, sizeof(jcoll), "%.*s", (int)iov[3].iov_len,
		 (char *)iov[3].iov_base);
	return 0;
}

/*
 * Standard output is the journal ($JOURNAL_STREAM names it): each line
 * goes as an entry of its own, none to the stream, no empty entry (the
 * frame), and the entries are the lossy stream, ADLER32 last.
 */
static void journal_stdout_gets_each_line_as_an_entry(void **s)
{
	struct stat st;
	char env[64];

	assert_int_equal(fstat(STDOUT_FILENO, &st), 0);
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	jout = open_memstream(&jbuf, &jlen);
	assert_non_null(jout);
	jempty = 0;
	fake_sys.journal_hook = journal_entry;
	fake_ring_start(&fr, 5, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1, 1);
	attach(true);
	unsetenv("JOURNAL_STREAM");
	assert_non_null(d.out.sink.journal);
	script = stop_now;

	assert_int_equal(ksnapd_run(&d, -1), 0);
	fclose(jout);
	assert_int_equal(fake_sys.wlen, 0);
	assert_int_equal(jempty, 0);
	assert_contains(jbuf, KSNAP_LOSSY_PREFIX
			"Time (ns)\t/ksnap/mem\tChecksum\t0x");
	assert_int_equal(count_lines_starting(jbuf, KSNAP_LOSSY_PREFIX
					      "STATS\t"), 1);
	assert_int_equal(count_lines_starting(jbuf, KSNAP_LOSSY_PREFIX
					      "ADLER32\t0x"), 1);
	assert_string_equal(jcoll, "KSNAP_COLLECTION=5");
	free(jbuf);
	jbuf = NULL;
}

/* $JOURNAL_STREAM names another file: standard output is a stream. */
static void other_journal_stream_leaves_stdout_a_stream(void **s)
{
	setenv("JOURNAL_STREAM", "1:1", 1);
	fake_ring_start(&fr, 1, 1, 1000, 0, 1);
	fake_ring_push(&fr, 1, 1);
	attach(true);
	unsetenv("JOURNAL_STREAM");
	assert_null(d.out.sink.journal);
	script = stop_now;
	assert_int_equal(ksnapd_run(&d, -1), 0);
	assert_int_equal(fake_sys.journal_calls, 0);
	assert_int_equal(count_lines_starting(output(), KSNAP_LOSSY_PREFIX
					      "ADLER32\t0x"), 1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(timing_errors_sum_the_rows_written_kernel_sums_apart),
		T(attached_with_a_tail_writes_a_resumed_file_never_truncating),
		T(attached_mid_collection_at_tail_0_creates_the_usual_file),
		T(write_error_names_the_output_file),
		T(lossy_run_ends_with_the_adler32_line),
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
		T(journal_stdout_gets_each_line_as_an_entry),
		T(a_restart_moves_the_earlier_runs_files_aside_never_truncating),
		T(retention_removes_closed_files_and_stats_count_them),
		T(retention_runs_while_a_collection_is_written),
		T(a_resumed_run_leaves_the_earlier_runs_files_in_place),
		T(other_journal_stream_leaves_stdout_a_stream),
	};

	return cmocka_run_group_tests_name("outfile", tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * --textfile's writer (textfile.h): the file replaced atomically with mode
 * 0644 whatever the umask; a failed write (a full disk through the write
 * wrapper, a failed fsync, a missing directory) leaves the old file,
 * removes the temporary one and names the path; a link planted at the
 * temporary name is replaced, never written through; and the writer over the
 * endpoint's series without its server: the text format 0.0.4 with the
 * window series, its own counters, the error logged once and counted.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "textfile.h"

#define MS	1000000ULL

static char dir[64], path[128];
static char err[PATH_MAX + 256];

static int setup(void **state)
{
	fake_sys_reset();
	snprintf(dir, sizeof(dir), "/tmp/ksnap-textfile-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, TEXTFILE_NAME);
	return 0;
}

static int teardown(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[sizeof(dir) + 260];

	fake_sys_reset();
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(dir);
	return 0;
}

static char *slurp(const char *p)
{
	static char buf[1 << 16];
	FILE *f = fopen(p, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The names in dir, but . and .., as "a b " */
static const char *listing(void)
{
	static char names[512];
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	names[0] = '\0';
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			strncat(names, e->d_name,
				sizeof(names) - strlen(names) - 2);
			strcat(names, " ");
		}
	closedir(d);
	return names;
}

static void test_write_atomic_mode(void **state)
{
	mode_t old = umask(077);
	struct stat st;

	assert_int_equal(textfile_write(dir, "a 1\n", 4, err, sizeof(err)), 0);
	umask(old);
	assert_string_equal(slurp(path), "a 1\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_string_equal(listing(), TEXTFILE_NAME " ");
	assert_int_equal(textfile_write(dir, "a 2\n", 4, err, sizeof(err)), 0);
	assert_string_equal(slurp(path), "a 2\n");
	assert_int_equal(fake_sys.fsync_calls, 2);
}

static void test_full_disk_keeps_old(void **state)
{
	assert_int_equal(textfile_write(dir, "old 1\n", 6, err, sizeof(err)),
			 0);
	fake_sys.write_err = -ENOSPC;
	assert_int_equal(textfile_write(dir, "new 2\n", 6, err, sizeof(err)),
			 -ENOSPC);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "/.ksnap.prom.tmp."));
	assert_non_null(strstr(err, strerror(ENOSPC)));
	assert_string_equal(slurp(path), "old 1\n");
	assert_string_equal(listing(), TEXTFILE_NAME " ");
	/* Room again: the next write replaces it. */
	fake_sys.write_err = 0;
	assert_int_equal(textfile_write(dir, "new 3\n", 6, err, sizeof(err)),
			 0);
	assert_string_equal(slurp(path), "new 3\n");
}

/* A disk with room for 3 bytes: a short write, then ENOSPC. */
static void test_short_then_enospc(void **state)
{
	assert_int_equal(textfile_write(dir, "old\n", 4, err, sizeof(err)), 0);
	fake_sys.capture = true;
	fake_sys.space_limited = true;
	fake_sys.space = 3;
	assert_int_equal(textfile_write(dir, "abcdef\n", 7, err, sizeof(err)),
			 -ENOSPC);
	assert_int_equal(fake_sys.wlen, 3);
	assert_int_equal(fake_sys.enospc_calls, 1);
	assert_string_equal(slurp(path), "old\n");
	assert_string_equal(listing(), TEXTFILE_NAME " ");
}

/* Writes interrupted by a signal are retried. */
static void test_eintr_retried(void **state)
{
	fake_sys.write_eintr = 2;
	assert_int_equal(textfile_write(dir, "a 1\n", 4, err, sizeof(err)), 0);
	assert_string_equal(slurp(path), "a 1\n");
}

static int fsync_eio(int fd)
{
	return -EIO;
}

static void test_fsync_error_keeps_old(void **state)
{
	assert_int_equal(textfile_write(dir, "old\n", 4, err, sizeof(err)), 0);
	fake_sys.fsync_hook = fsync_eio;
	assert_int_equal(textfile_write(dir, "new\n", 4, err, sizeof(err)),
			 -EIO);
	assert_non_null(strstr(err, "fsync"));
	assert_string_equal(slurp(path), "old\n");
	assert_string_equal(listing(), TEXTFILE_NAME " ");
}

/*
 * A hard link planted at the temporary name (as another user could in a
 * shared directory) is replaced, not written through: the file it links
 * to keeps its bytes.
 */
static void test_planted_link_not_truncated(void **state)
{
	char victim[128], tmp[160];
	FILE *f;

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp.%ld", dir, TEXTFILE_NAME,
		 (long)getpid());
	f = fopen(victim, "w");
	assert_non_null(f);
	fputs("keep me\n", f);
	fclose(f);
	assert_int_equal(link(victim, tmp), 0);
	assert_int_equal(textfile_write(dir, "a 1\n", 4, err, sizeof(err)), 0);
	assert_string_equal(slurp(victim), "keep me\n");
	assert_string_equal(slurp(path), "a 1\n");
	/* A symbolic link there is replaced the same way. */
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(textfile_write(dir, "a 2\n", 4, err, sizeof(err)), 0);
	assert_string_equal(slurp(victim), "keep me\n");
	assert_string_equal(slurp(path), "a 2\n");
	assert_null(strstr(listing(), ".tmp."));
}

static void test_missing_dir(void **state)
{
	char gone[128];

	snprintf(gone, sizeof(gone), "%s/none", dir);
	assert_int_equal(textfile_write(gone, "x 1\n", 4, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, gone));
	assert_non_null(strstr(err, "ksnap.prom"));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct ksnap_column cols[2] = {
	{ .metric = "memory.current", .field = "cgroup", .value = "/x",
	  .description = "memory.current of the cgroup, bytes" },
	{ .metric = "pgfault", .description = "vm event counter, count",
	  .flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE },
};

static void collection(struct web *w)
{
	struct ksnap_coll c = {
		.generation = 1, .state = KSNAP_STATE_RUNNING,
		.nr_columns = 2, .period_ns = 10 * MS,
		.start_mono_ns = mono_ns() - 2000 * MS, .columns = cols,
	};
	struct ksnap_record *rec = calloc(1, KSNAP_RECORD_SIZE(2));
	unsigned int i;

	assert_non_null(rec);
	assert_int_equal(web_ops.begin(w, &c, 0), 0);
	for (i = 0; i < 100; i++) {
		rec->seq = i;
		rec->time_ns = i * 10 * MS;
		rec->values[0] = i == 37 ? 9000 : 1000 + i;
		rec->values[1] = 10 * i;
		assert_int_equal(web_ops.row(w, rec), 0);
	}
	assert_int_equal(web_ops.flush(w), 0);
	free(rec);
}

static unsigned int count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

static uint64_t writes(struct web *w)
{
	uint64_t n;

	pthread_mutex_lock(&w->lock);
	n = w->self.textfile_writes;
	pthread_mutex_unlock(&w->lock);
	return n;
}

static void test_writer_over_the_series(void **state)
{
	const struct web_config wc = {
		.window_ns = 60000 * MS, .version = "test", .no_server = true,
	};
	static struct web w;
	static struct textfile t;
	struct textfile_config tc = {
		.dir = dir, .interval_ns = 3600000 * MS, .web = &w,
	};
	char logbuf[4096] = "";
	uint64_t deadline = mono_ns() + 10000 * MS;
	const char *s;

	tc.log = fmemopen(logbuf, sizeof(logbuf), "w");
	assert_non_null(tc.log);
	setvbuf(tc.log, NULL, _IONBF, 0);
	assert_int_equal(web_init(&w, &wc, err, sizeof(err)), 0);
	assert_int_equal(textfile_init(&t, &tc, err, sizeof(err)), 0);
	/* The thread's first write, at its start. */
	while (!writes(&w) && mono_ns() < deadline)
		usleep(1000);
	assert_int_equal(writes(&w), 1);
	s = slurp(path);
	assert_non_null(strstr(s, "\nksnap_collection_running 0\n"));

	collection(&w);
	assert_int_equal(textfile_once(&t), 0);
	s = slurp(path);
	assert_non_null(strstr(s, "\nksnap_collection_running 1\n"));
	assert_non_null(strstr(s, "\nksnap_cgroup_memory_current_window_max"
				  "_bytes{cgroup=\"/x\"} 9000\n"));
	assert_non_null(strstr(s, "\nksnap_vmstat_pgfault_total 990\n"));
	assert_non_null(strstr(s, "# TYPE ksnap_vmstat_pgfault_window_max_rate"
				  " gauge\n"));
	assert_non_null(strstr(s, "\nksnap_textfile_writes_total 1\n"));
	assert_non_null(strstr(s, "\nksnap_web_scrapes_total 0\n"));
	assert_non_null(strstr(s, "ksnap_build_info{version=\"test\""));
	assert_null(strstr(s, "# EOF"));
	assert_null(strstr(s, "# UNIT"));
	/* node_exporter has its own process_*: a second set would clash. */
	if (strstr(s, "process_"))
		fail_msg("the textfile: expected no process_* series, got "
			 "'%.60s'", strstr(s, "process_"));

	/* A full disk: the old file stays, said once, counted each time. */
	fake_sys.write_err = -ENOSPC;
	assert_int_equal(textfile_once(&t), -ENOSPC);
	assert_int_equal(textfile_once(&t), -ENOSPC);
	assert_non_null(strstr(slurp(path), "ksnap_textfile_writes_total 1\n"));
	assert_non_null(strstr(logbuf, path));
	assert_non_null(strstr(logbuf, strerror(ENOSPC)));
	assert_int_equal(count(logbuf, strerror(ENOSPC)), 1);
	fake_sys.write_err = 0;
	assert_int_equal(textfile_once(&t), 0);
	s = slurp(path);
	assert_non_null(strstr(s, "\nksnap_textfile_write_errors_total 2\n"));
	assert_non_null(strstr(logbuf, "written again"));
	assert_string_equal(listing(), TEXTFILE_NAME " ");

	/* The last write, at the end. */
	textfile_fini(&t);
	assert_non_null(strstr(slurp(path),
			       "\nksnap_textfile_writes_total 3\n"));
	web_fini(&w);
	fclose(tc.log);
}

/* --web.histogram: every row's gauge in the file's histogram. */
static void test_histogram_in_the_file(void **state)
{
	const struct web_config wc = {
		.window_ns = 60000 * MS, .version = "test", .no_server = true,
		.histograms = "ksnap_cgroup_memory_*",
		.hist_spec = { 1024, 2, 4 },	/* 1024 .. 8192 */
	};
	static struct web w;
	static struct textfile t;
	const struct textfile_config tc = {
		.dir = dir, .interval_ns = 3600000 * MS, .web = &w,
	};
	const char *s;

	assert_int_equal(web_init(&w, &wc, err, sizeof(err)), 0);
	assert_int_equal(textfile_init(&t, &tc, err, sizeof(err)), 0);
	collection(&w);
	assert_int_equal(textfile_once(&t), 0);
	s = slurp(path);
	/* 1000..1099 but 9000 at row 37: 25 at most 1024, 99 at most
	 * 2048, the 9000 past 8192. */
	assert_non_null(strstr(s, "ksnap_cgroup_memory_current_distribution_"
				  "bytes_bucket{cgroup=\"/x\",le=\"1024.0\"} 25\n"));
	assert_non_null(strstr(s, "ksnap_cgroup_memory_current_distribution_"
				  "bytes_bucket{cgroup=\"/x\",le=\"8192.0\"} 99\n"));
	assert_non_null(strstr(s, "ksnap_cgroup_memory_current_distribution_"
				  "bytes_bucket{cgroup=\"/x\",le=\"+Inf\"} 100\n"));
	assert_non_null(strstr(s, "ksnap_cgroup_memory_current_distribution_"
				  "bytes_count{cgroup=\"/x\"} 100\n"));
	assert_null(strstr(s, "pgfault_distribution"));
	textfile_fini(&t);
	web_fini(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_atomic_mode, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_full_disk_keeps_old,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_then_enospc, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_eintr_retried, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fsync_error_keeps_old,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_link_not_truncated,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_dir, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_writer_over_the_series,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_histogram_in_the_file,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

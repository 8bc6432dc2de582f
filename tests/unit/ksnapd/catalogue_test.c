// SPDX-License-Identifier: MIT
/* The catalogue by ioctl, its listing, and the names suggested. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "catalogue.h"
#include "fake_sys.h"

/* The fake module's catalogue. */
static const struct ksnap_metric_info fake_metrics[] = {
	{ .name = "pgfault", .unit = "count", .field = "cpu",
	  .flags = KSNAP_COL_CUMULATIVE | KSNAP_METRIC_PER_CPU,
	  .freshness = KSNAP_FRESH_LIVE, .groups = KSNAP_GROUP_VMSTAT,
	  .description = "VM event counter, count" },
	{ .name = "nr_free_pages", .unit = "pages",
	  .freshness = KSNAP_FRESH_1S, .groups = KSNAP_GROUP_VMSTAT,
	  .description = "zone page state, pages" },
	{ .name = "cpu.user", .unit = "ns", .field = "cpu",
	  .flags = KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS,
	  .freshness = KSNAP_FRESH_TICK, .groups = KSNAP_GROUP_CPU,
	  .description = "CPU time in user mode, ns" },
	{ .name = "memory.current", .unit = "bytes", .field = "cgroup",
	  .flags = KSNAP_METRIC_PER_CGROUP, .freshness = KSNAP_FRESH_LIVE,
	  .groups = KSNAP_GROUP_CONTAINER,
	  .description = "memory charged, bytes" },
	{ .name = "memory.stat.anon", .unit = "bytes", .field = "cgroup",
	  .flags = KSNAP_METRIC_PER_CGROUP | KSNAP_METRIC_UNPROVEN,
	  .freshness = KSNAP_FRESH_2S, .groups = KSNAP_GROUP_CONTAINER,
	  .description = "memory.stat item, its slot unproven, bytes" },
};

#define NR_FAKE	(sizeof(fake_metrics) / sizeof(fake_metrics[0]))

static char dev_mem[4096];
static unsigned long last_req;
static int ioctl_err;		/* fail every ioctl with this */

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	struct ksnap_metric_info *info = arg;
	unsigned int i;

	last_req = req;
	if (ioctl_err)
		return ioctl_err;
	if (fd != FAKE_DEV_FD || req != KSNAP_IOC_METRIC)
		return -ENOTTY;
	if (info->refresh_ns)
		return -EINVAL;
	for (i = 0; i < sizeof(info->reserved) / sizeof(info->reserved[0]); i++)
		if (info->reserved[i])
			return -EINVAL;
	if (info->index >= NR_FAKE)
		return -EINVAL;
	i = info->index;
	*info = fake_metrics[i];
	info->index = i;
	return 0;
}

static int setup(void **state)
{
	fake_sys_reset();
	fake_sys.mem = dev_mem;
	fake_sys.mem_len = sizeof(dev_mem);
	fake_sys.ioctl_hook = fake_ioctl;
	ioctl_err = 0;
	return 0;
}

static int teardown(void **state)
{
	fake_sys_reset();
	return 0;
}

/* What f printed, NUL-terminated (f is rewound and closed). */
static char *printed(FILE *f)
{
	static char buf[4096];
	size_t n;

	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void the_catalogue_is_read_by_index_on_a_read_only_open(void **state)
{
	struct catalogue c;

	assert_int_equal(catalogue_read("/dev/ksnap", &c), 0);
	assert_int_equal(c.n, NR_FAKE);
	assert_string_equal(c.m[0].name, "pgfault");
	assert_string_equal(c.m[4].name, "memory.stat.anon");
	assert_int_equal(fake_sys.ioctl_calls, NR_FAKE + 1);
	assert_int_equal(last_req, KSNAP_IOC_METRIC);
	assert_int_equal(fake_sys.opened_flags[0] & O_ACCMODE, O_RDONLY);
	assert_int_equal(fake_sys.close_calls, 1);
	catalogue_free(&c);
}

static void a_module_without_the_ioctl_is_enotty(void **state)
{
	struct catalogue c;

	ioctl_err = -ENOTTY;
	assert_int_equal(catalogue_read("/dev/ksnap", &c), -ENOTTY);
	assert_null(c.m);
	assert_int_equal(fake_sys.close_calls, 1);
}

static void no_device_is_the_open_error(void **state)
{
	struct catalogue c;

	fake_sys.open_err = -ENOENT;
	assert_int_equal(catalogue_read("/dev/ksnap", &c), -ENOENT);
	assert_int_equal(fake_sys.ioctl_calls, 0);
}

static void the_listing_has_the_six_columns(void **state)
{
	struct catalogue c;
	FILE *f = tmpfile();

	assert_non_null(f);
	assert_int_equal(catalogue_read("/dev/ksnap", &c), 0);
	assert_true(catalogue_print(&c, CATALOGUE_GROUP_ALL, false, f) > 0);
	assert_string_equal(printed(f),
		"pgfault\tcumulative\tcount\tlive\tcpu\tVM event counter, count\n"
		"nr_free_pages\tgauge\tpages\t1s\t-\tzone page state, pages\n"
		"cpu.user\tcumulative\tns\ttick\tcpu\tCPU time in user mode, ns\n"
		"memory.current\tgauge\tbytes\tlive\tcgroup\tmemory charged, bytes\n"
		"memory.stat.anon\tgauge\tbytes\t2s\tcgroup\t"
		"memory.stat item, its slot unproven, bytes\n");
	catalogue_free(&c);
}

static void a_group_filters_and_a_header_names_the_columns(void **state)
{
	struct catalogue c;
	FILE *f = tmpfile();

	assert_non_null(f);
	assert_int_equal(catalogue_read("/dev/ksnap", &c), 0);
	catalogue_print(&c, catalogue_group("container"), true, f);
	assert_string_equal(printed(f),
		"name\tkind\tunit\tfreshness\tfield\tdescription\n"
		"memory.current\tgauge\tbytes\tlive\tcgroup\tmemory charged, bytes\n"
		"memory.stat.anon\tgauge\tbytes\t2s\tcgroup\t"
		"memory.stat item, its slot unproven, bytes\n");
	f = tmpfile();
	assert_non_null(f);
	catalogue_print(&c, catalogue_group("vmstat"), false, f);
	assert_string_equal(printed(f),
		"pgfault\tcumulative\tcount\tlive\tcpu\tVM event counter, count\n"
		"nr_free_pages\tgauge\tpages\t1s\t-\tzone page state, pages\n");
	catalogue_free(&c);
}

static void groups_are_known_by_name(void **state)
{
	assert_int_equal(catalogue_group("all"), CATALOGUE_GROUP_ALL);
	assert_int_equal(catalogue_group("vmstat"), KSNAP_GROUP_VMSTAT);
	assert_int_equal(catalogue_group("cpu"), KSNAP_GROUP_CPU);
	assert_int_equal(catalogue_group("container"), KSNAP_GROUP_CONTAINER);
	assert_int_equal(catalogue_group("memory"), 0);
	assert_int_equal(catalogue_group(""), 0);
}

static void edit_distance(void **state)
{
	assert_int_equal(catalogue_distance("", ""), 0);
	assert_int_equal(catalogue_distance("pgfault", "pgfault"), 0);
	assert_int_equal(catalogue_distance("pgfalt", "pgfault"), 1);
	assert_int_equal(catalogue_distance("pgfualt", "pgfault"), 2);
	assert_int_equal(catalogue_distance("", "abc"), 3);
	assert_int_equal(catalogue_distance("kitten", "sitting"), 3);
	assert_int_equal(catalogue_distance("abc", ""), 3);
}

static void a_close_name_is_suggested_a_far_one_not(void **state)
{
	struct catalogue c;

	assert_int_equal(catalogue_read("/dev/ksnap", &c), 0);
	assert_string_equal(catalogue_suggest(&c, "pgfalt"), "pgfault");
	assert_string_equal(catalogue_suggest(&c, "memory.curent"),
			    "memory.current");
	assert_string_equal(catalogue_suggest(&c, "cpu.usr"), "cpu.user");
	assert_string_equal(catalogue_suggest(&c, "vmstats"), "vmstat");
	assert_null(catalogue_suggest(&c, "bogus"));
	assert_null(catalogue_suggest(&c, "x"));
	catalogue_free(&c);
}

static void a_list_is_checked_name_by_name(void **state)
{
	struct catalogue c;
	FILE *f = tmpfile();

	assert_non_null(f);
	assert_int_equal(catalogue_read("/dev/ksnap", &c), 0);
	assert_int_equal(catalogue_check_list(&c, "pgfault[cpu], vmstat,"
					      "memory.current,all\n",
					      "--metrics", f), 0);
	assert_int_equal(catalogue_check_list(&c, "pgfalt,cpu.user[1],bogus",
					      "--metrics", f), 2);
	assert_string_equal(printed(f),
		"ksnapd: --metrics: unknown metric 'pgfalt': did you mean "
		"pgfault? (ksnapd --list-metrics lists them)\n"
		"ksnapd: --metrics: unknown metric 'bogus' (ksnapd "
		"--list-metrics lists them)\n");
	catalogue_free(&c);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(the_catalogue_is_read_by_index_on_a_read_only_open),
		T(a_module_without_the_ioctl_is_enotty),
		T(no_device_is_the_open_error),
		T(the_listing_has_the_six_columns),
		T(a_group_filters_and_a_header_names_the_columns),
		T(groups_are_known_by_name),
		T(edit_distance),
		T(a_close_name_is_suggested_a_far_one_not),
		T(a_list_is_checked_name_by_name),
	};

	return cmocka_run_group_tests_name("catalogue", tests, NULL, NULL);
}

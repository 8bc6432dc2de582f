// SPDX-License-Identifier: MIT
/*
 * --history with --load: ring_kb= from a span.  The ring the module lays
 * out from it (every record that fits in ring_kb rounded up to pages,
 * kmod/ring.c) holds the span, and ring_kb is no larger than it needs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ksnap_abi.h"
#include "ringsize.h"

#define PAGE	4096ULL

/* nr_records as the module lays it out for ring_kb and ncols columns. */
static uint64_t module_records(long kb, uint64_t ncols)
{
	uint64_t pages = ((uint64_t)kb * 1024 + PAGE - 1) / PAGE;

	return pages * PAGE / KSNAP_RECORD_SIZE(ncols);
}

static void check_span(uint64_t span_ns, const char *params,
		       uint64_t period_ns, uint64_t ncols)
{
	long kb = ringsize_kb(span_ns, params);
	uint64_t need = span_ns / period_ns + 2;

	assert_true(kb >= RINGSIZE_KB_MIN);
	assert_true(ringsize_span_ns(module_records(kb, ncols), period_ns) >=
		    span_ns);
	/* Not a power of two of records: at most one KiB more than needed,
	 * or the minimum. */
	if (kb > RINGSIZE_KB_MIN)
		assert_true((uint64_t)(kb - 1) * 1024 <
			    need * KSNAP_RECORD_SIZE(ncols));
}

static void history_is_held_without_rounding_to_a_power_of_two(void **s)
{
	(void)s;
	/* 10 s at 1 kHz, 3 default metrics: 10002 records of 64 bytes. */
	assert_int_equal(ringsize_kb(10000000000ULL, NULL), 626);
	check_span(10000000000ULL, NULL, 1000000, 3);
	check_span(30000000000ULL, "period_us=100 metrics=a,b cgroups=/x,/y",
		   100000, 4);
	check_span(60000000000ULL, "period_us=250 cgroups=/a", 250000, 4);
	check_span(3000000000ULL, "period_us=1000 metrics=a,b,c,d,e", 1000000,
		   5);
	check_span(123456789000ULL, "period_us=37", 37000, 3);
}

static void small_spans_get_the_minimum(void **s)
{
	(void)s;
	assert_int_equal(ringsize_kb(1000000, NULL), RINGSIZE_KB_MIN);
	assert_int_equal(ringsize_kb(0, "period_us=10"), RINGSIZE_KB_MIN);
}

static void given_ring_kb_is_kept_and_errors_are_told(void **s)
{
	(void)s;
	assert_int_equal(ringsize_kb(10000000000ULL, "ring_kb=128"), 0);
	assert_int_equal(ringsize_kb(10000000000ULL, "period_us=x"), -EINVAL);
	assert_int_equal(ringsize_kb(10000000000ULL, "period_us=0"), -EINVAL);
	/* A day at 10 us with 3 columns: far above 256 MiB. */
	assert_int_equal(ringsize_kb(86400000000000ULL, "period_us=10"),
			 -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(history_is_held_without_rounding_to_a_power_of_two),
		cmocka_unit_test(small_spans_get_the_minimum),
		cmocka_unit_test(given_ring_kb_is_kept_and_errors_are_told),
	};

	return cmocka_run_group_tests_name("ringsize", tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * The window ring (window.h): it slides sub-window by sub-window, a query
 * sees every sample of the last window whatever its phase, never resets
 * anything (two readers see the same), its maximum and minimum are exact
 * over the sub-windows it covers, a series without a sample in the window
 * is gone, and a counter's rate is taken over its interval, not over one
 * sampling period.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "window.h"

#define S	1000000000ULL
#define MS	1000000ULL

/* 60 s in 6 sub-windows of 10 s. */
static void setup_window(struct window *w, unsigned int n)
{
	assert_int_equal(window_init(w, n, 6, 60 * S), 0);
	assert_int_equal(w->width_ns, 10 * S);
}

static void test_init_bad(void **state)
{
	struct window w;

	assert_int_equal(window_init(&w, 1, 0, 60 * S), -EINVAL);
	assert_int_equal(window_init(&w, 1, 6, 5), -EINVAL);
	assert_int_equal(window_init(&w, 0, 6, 60 * S), 0);
	window_fini(&w);
}

static void test_max_min_exact(void **state)
{
	struct window w;
	double max, min;
	bool have;
	uint64_t t;
	double v, want_max = -1, want_min = 1e18;

	setup_window(&w, 1);
	/* A sample every 10 ms for 50 s, a 10 ms spike at 23.45 s. */
	for (t = 100 * S; t < 150 * S; t += 10 * MS) {
		v = (double)((t / MS) % 997);
		if (t == 123 * S + 450 * MS)
			v = 1e9;
		if (t == 131 * S + 10 * MS)
			v = -5;
		window_sample(&w, 0, t, v);
		if (v > want_max)
			want_max = v;
		if (v < want_min)
			want_min = v;
	}
	assert_true(window_query(&w, 0, 150 * S, &max, &min, &have));
	assert_true(have);
	assert_true(max == want_max);
	assert_true(min == want_min);
	assert_true(max == 1e9);
	assert_true(min == -5);
	window_fini(&w);
}

static void test_read_never_resets(void **state)
{
	struct window w;
	double max1, min1, max2, min2;
	bool have;

	setup_window(&w, 1);
	window_sample(&w, 0, 100 * S, 7);
	window_sample(&w, 0, 101 * S, 70);
	window_sample(&w, 0, 102 * S, 3);
	assert_true(window_query(&w, 0, 103 * S, &max1, &min1, &have));
	/* Another scraper, later, and the first again. */
	assert_true(window_query(&w, 0, 125 * S, &max2, &min2, &have));
	assert_true(max1 == 70 && min1 == 3);
	assert_true(max2 == 70 && min2 == 3);
	assert_true(window_query(&w, 0, 103 * S, &max1, &min1, &have));
	assert_true(max1 == 70 && min1 == 3);
	window_fini(&w);
}

static void test_slides(void **state)
{
	struct window w;
	double max, min;
	bool have;
	uint64_t t;

	setup_window(&w, 1);
	window_sample(&w, 0, 100 * S, 1000);	/* sub-window 10 */
	for (t = 101 * S; t <= 155 * S; t += S)
		window_sample(&w, 0, t, 5);
	/* At 160 s: sub-windows 10..16, the spike (60 s old) still in, and
	 * at 169 s too, 69 s old: at most a sub-window more than the
	 * window. */
	window_sample(&w, 0, 160 * S, 5);
	assert_true(window_query(&w, 0, 160 * S, &max, &min, &have));
	assert_true(max == 1000 && min == 5);
	assert_true(window_query(&w, 0, 169 * S, &max, &min, &have));
	assert_true(max == 1000 && min == 5);
	/* Sub-window 17 begins: 10 falls out. */
	window_sample(&w, 0, 170 * S, 6);
	assert_true(window_query(&w, 0, 170 * S, &max, &min, &have));
	assert_true(max == 6 && min == 5);
	/* The ring reuses sub-window 10's slot for 17, and keeps 11..16. */
	assert_true(window_query(&w, 0, 179 * S, &max, &min, &have));
	assert_true(max == 6 && min == 5);
	window_fini(&w);
}

static void test_gone_after_window(void **state)
{
	struct window w;
	double max, min;
	bool have;

	setup_window(&w, 2);
	window_sample(&w, 0, 100 * S, 1);
	window_sample(&w, 1, 100 * S, 1);
	window_sample(&w, 1, 130 * S, 2);
	assert_true(window_query(&w, 0, 169 * S, &max, &min, &have));
	assert_false(window_query(&w, 0, 170 * S, &max, &min, &have));
	assert_true(window_query(&w, 1, 170 * S, &max, &min, &have));
	assert_true(max == 2 && min == 2);
	assert_false(window_query(&w, 1, 200 * S, &max, &min, &have));
	/* No sample ever. */
	window_fini(&w);
	setup_window(&w, 1);
	assert_false(window_query(&w, 0, 10 * S, &max, &min, &have));
	window_fini(&w);
}

/* A spike 55 s before the query, at 60 s of window: in sub-window 10 of a
 * query in sub-window 16, older than the last five sub-windows. */
static void test_spike_55s_ago_seen(void **state)
{
	struct window w;
	double max, min;
	bool have;
	uint64_t t;

	setup_window(&w, 1);
	for (t = 100 * S; t <= 160 * S; t += 10 * MS)
		window_sample(&w, 0, t, t == 105 * S ? 1e9 : 1);
	assert_true(window_query(&w, 0, 160 * S, &max, &min, &have));
	if (max != 1e9)
		fail_msg("a spike 55 s before the query, 60 s window: "
			 "expected max 1e9, got %g", max);
	window_fini(&w);
}

/*
 * Every sample of the last window_ns is seen, whatever the phase of the
 * spike and of the query against the sub-windows: a spike at every
 * 250 ms of age from 0 to the window, queried at every 250 ms of a
 * sub-window, and a window that is not a multiple of the sub-windows.
 */
static void test_every_sample_of_the_window(void **state)
{
	static const uint64_t windows[] = { 60 * S, 61 * S + 7, 7 * S };
	unsigned int wi;

	for (wi = 0; wi < sizeof(windows) / sizeof(windows[0]); wi++) {
		uint64_t win = windows[wi], q, age;

		for (q = 300 * S; q < 300 * S + 11 * S; q += 250 * MS) {
			for (age = 0; age <= win; age += 250 * MS) {
				struct window w;
				double max, min;
				bool have;

				assert_int_equal(window_init(&w, 1, 6, win), 0);
				window_sample(&w, 0, q - win, 1);
				window_sample(&w, 0, q - age, 1e9);
				window_sample(&w, 0, q, 1);
				assert_true(window_query(&w, 0, q, &max, &min,
							 &have));
				if (max != 1e9)
					fail_msg("window %llu ns, query at "
						 "%llu ns: a spike %llu ns "
						 "old: expected max 1e9, "
						 "got %g",
						 (unsigned long long)win,
						 (unsigned long long)q,
						 (unsigned long long)age, max);
				window_fini(&w);
			}
		}
	}
}

/* A counter refreshed every 2 s, read every 10 ms: 1000/s, not 200 times
 * that. */
static void test_counter_interval(void **state)
{
	struct window w;
	double max, min;
	bool have;
	uint64_t t, v = 0;

	setup_window(&w, 1);
	for (t = 100 * S; t <= 130 * S; t += 10 * MS) {
		if (t % (2 * S) == 0)
			v = (t / S) * 1000;	/* +2000 every 2 s */
		window_counter(&w, 0, t, v, 2 * S);
	}
	assert_true(window_query(&w, 0, 130 * S, &max, &min, &have));
	assert_true(have);
	assert_true(max == 1000.0);
	/* Over one sampling period it would have been 2000 / 10 ms. */
	window_fini(&w);
}

/* A deterministic generator for the irregular flushes (LCG, glibc's). */
static uint32_t next_rand(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

/*
 * A counter that grows 1000/s, steadily, but whose value the kernel
 * publishes only at irregular flushes: at most 2 s apart, and often far
 * sooner (a reader such as the kubelet forcing one).  Read every 10 ms
 * and rated over ten refreshes (20 s, as ksnapd's web part takes), every
 * peak and trough is within 10% of the truth: a delta over the interval
 * holds at most one flush gap more or less than the interval's own.
 * Rated over one refresh (2 s) the same flushes put a peak more than 10%
 * high: the interval is what bounds the error.
 */
static void test_counter_irregular_flushes_within_10pct(void **state)
{
	const uint64_t gap_max = 2 * S;
	struct window w, one;
	double max, min, max1, min1;
	bool have;
	uint32_t seed = 42;
	uint64_t t, flush = 100 * S, published = 0;

	setup_window(&w, 1);
	setup_window(&one, 1);
	for (t = 100 * S; t <= 400 * S; t += 10 * MS) {
		if (t >= flush) {
			published = t / MS;	/* 1000/s since 0 */
			/* The next flush: 2 s on, or a forced one sooner. */
			flush = t + (next_rand(&seed) % 4 ?
				     gap_max : (uint64_t)(next_rand(&seed) % 200 + 1) * 10 * MS);
		}
		window_counter(&w, 0, t, published, 10 * gap_max);
		window_counter(&one, 0, t, published, gap_max);
	}
	assert_true(window_query(&w, 0, 400 * S, &max, &min, &have));
	assert_true(have);
	if (max > 1100.0 || min < 900.0)
		fail_msg("expected the rates over 20 s within 10%% of 1000/s; "
			 "got max %.1f, min %.1f", max, min);
	assert_true(window_query(&one, 0, 400 * S, &max1, &min1, &have));
	if (max1 <= 1100.0)
		fail_msg("expected a rate over one 2 s refresh to read more "
			 "than 10%% high (the error the interval bounds); got "
			 "max %.1f", max1);
	window_fini(&w);
	window_fini(&one);
}

static void test_counter_peak_and_reset(void **state)
{
	struct window w;
	double max, min;
	bool have;

	setup_window(&w, 1);
	window_counter(&w, 0, 100 * S, 10, S);
	assert_true(window_query(&w, 0, 100 * S, &max, &min, &have));
	assert_false(have);			/* alive, no rate yet */
	window_counter(&w, 0, 101 * S, 20, S);	/* 10/s */
	window_counter(&w, 0, 102 * S, 520, S);	/* 500/s */
	window_counter(&w, 0, 103 * S, 5, S);	/* went back: restart */
	window_counter(&w, 0, 104 * S, 15, S);	/* 10/s */
	assert_true(window_query(&w, 0, 104 * S, &max, &min, &have));
	assert_true(have);
	assert_true(max == 500);
	assert_true(min == 10);
	window_fini(&w);
}

/*
 * When the maximum was taken: the time of its sample, the first one at
 * it where several sub-windows reach it (whatever their places in the
 * ring), and gone with its sub-window.
 */
static void test_peak_time_is_the_first_sample_at_the_max(void **state)
{
	struct window w;
	double max, min;
	bool have;
	uint64_t t, at;

	setup_window(&w, 1);
	for (t = 100 * S; t < 160 * S; t += 10 * MS)
		window_sample(&w, 0, t, t == 123 * S + 450 * MS ||
				     t == 147 * S ? 9 : t == 135 * S ? 2 : 1);
	assert_true(window_query_peak(&w, 0, 160 * S, &max, &min, &have, &at));
	assert_true(have && max == 9);
	if (at != 123 * S + 450 * MS)
		fail_msg("expected the peak at %llu ns (the first of two); "
			 "got %llu", 123 * S + 450 * MS,
			 (unsigned long long)at);
	/* Sub-window 12 gone (t < 130 s): the later one is the peak. */
	assert_true(window_query_peak(&w, 0, 190 * S, &max, &min, &have, &at));
	if (max != 9 || at != 147 * S)
		fail_msg("expected the peak 9 at %llu ns; got %g at %llu",
			 147 * S, max, (unsigned long long)at);
	/* Within one sub-window too: the first at the maximum. */
	window_sample(&w, 0, 191 * S, 20);
	window_sample(&w, 0, 192 * S, 20);
	assert_true(window_query_peak(&w, 0, 193 * S, &max, &min, &have, &at));
	if (max != 20 || at != 191 * S)
		fail_msg("expected the peak 20 at %llu ns; got %g at %llu",
			 191 * S, max, (unsigned long long)at);
	window_fini(&w);
}

/* A counter's peak rate is dated at the end of its interval. */
static void test_peak_rate_time_is_its_interval_end(void **state)
{
	struct window w;
	double max, min;
	bool have;
	uint64_t at;

	setup_window(&w, 1);
	window_counter(&w, 0, 100 * S, 10, S);
	window_counter(&w, 0, 101 * S, 20, S);	/* 10/s */
	window_counter(&w, 0, 102 * S, 520, S);	/* 500/s, ends at 102 s */
	window_counter(&w, 0, 103 * S, 530, S);	/* 10/s */
	assert_true(window_query_peak(&w, 0, 104 * S, &max, &min, &have, &at));
	if (max != 500 || at != 102 * S)
		fail_msg("expected the peak rate 500/s at %llu ns; got %g at "
			 "%llu", 102 * S, max, (unsigned long long)at);
	window_fini(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_bad),
		cmocka_unit_test(test_max_min_exact),
		cmocka_unit_test(test_read_never_resets),
		cmocka_unit_test(test_slides),
		cmocka_unit_test(test_gone_after_window),
		cmocka_unit_test(test_spike_55s_ago_seen),
		cmocka_unit_test(test_every_sample_of_the_window),
		cmocka_unit_test(test_counter_interval),
		cmocka_unit_test(test_counter_peak_and_reset),
		cmocka_unit_test(test_counter_irregular_flushes_within_10pct),
		cmocka_unit_test(test_peak_time_is_the_first_sample_at_the_max),
		cmocka_unit_test(test_peak_rate_time_is_its_interval_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

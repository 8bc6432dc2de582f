// SPDX-License-Identifier: GPL-2.0
/*
 * Print the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 200 ms.
 *
 * Why: under qemu's software emulation (TCG) the guest's TSC is the host's
 * TSC.  The tiny debug kernel has no ACPI, hence no HPET or PM timer to
 * calibrate the TSC against; when its PIT calibration fails (it is timing
 * sensitive and TCG is slow), it marks the TSC unstable, falls back to the
 * jiffies clocksource and runs without high-resolution timers.  scripts/guest
 * passes this value as tsc_early_khz= so that never happens.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

int main(void)
{
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	uint64_t t0, t1, c0, c1;

	t0 = ns();
	c0 = __rdtsc();
	nanosleep(&nap, NULL);
	c1 = __rdtsc();
	t1 = ns();
	printf("%llu\n", (unsigned long long)((c1 - c0) * 1000000 / (t1 - t0)));
	return 0;
}

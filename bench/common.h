/* SPDX-License-Identifier: MIT */
/*
 * Shared by the guest halves of the bench (ringstat.c, poller.c): clocks,
 * CPU pinning, percentiles, and the idle spinner that measures how much of
 * one CPU something else takes.
 *
 * CPU cost.  A child pinned to the measured CPU runs at SCHED_IDLE and
 * counts loop iterations: it only runs when nothing else wants that CPU
 * (a normal task preempts it at once on wake-up), so the iterations it
 * loses against a run on an otherwise idle CPU are the CPU time taken by
 * everything else there: interrupts (the hrtimer, with its entry, exit and
 * reprogramming), softirqs, the poller's wake-ups, system calls and
 * parsing.  cost% = 100 * (1 - rate / baseline rate).
 */
#ifndef KSNAP_BENCH_COMMON_H
#define KSNAP_BENCH_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static inline void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v in place. */
struct dist {
	uint64_t n;
	double mean;
	uint32_t p50, p99, max;
};

static inline struct dist dist_of(uint32_t *v, uint64_t n)
{
	struct dist d = { 0 };
	uint64_t i;
	double sum = 0;

	if (!n)
		return d;
	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 0; i < n; i++)
		sum += v[i];
	d.n = n;
	d.mean = sum / (double)n;
	d.p50 = v[(n - 1) / 2];
	d.p99 = v[(uint64_t)((double)(n - 1) * 0.99)];
	d.max = v[n - 1];
	return d;
}

static inline uint64_t rusage_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
		       1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

/* The idle spinner. */
struct spin {
	pid_t pid;
	volatile struct spin_shared {
		volatile int stop;
		volatile int ready;
		uint64_t iters;
		uint64_t ns;
	} *sh;
};

static inline void spin_start(struct spin *s, int cpu)
{
	s->sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->sh == MAP_FAILED)
		die("mmap");
	memset((void *)s->sh, 0, sizeof(*s->sh));
	s->pid = fork();
	if (s->pid < 0)
		die("fork");
	if (!s->pid) {
		struct sched_param sp = { 0 };
		uint64_t n = 0, t0;

		pin_to(cpu);
		sched_setscheduler(0, SCHED_IDLE, &sp);
		s->sh->ready = 1;
		t0 = now_ns(CLOCK_MONOTONIC);
		while (!s->sh->stop)
			n++;
		s->sh->ns = now_ns(CLOCK_MONOTONIC) - t0;
		s->sh->iters = n;
		_exit(0);
	}
	while (!s->sh->ready)
		usleep(1000);
}

/* Iterations per second of the spinner. */
static inline double spin_stop(struct spin *s)
{
	double rate;

	s->sh->stop = 1;
	waitpid(s->pid, NULL, 0);
	rate = s->sh->ns ? (double)s->sh->iters * 1e9 / (double)s->sh->ns : 0;
	munmap((void *)s->sh, 4096);
	return rate;
}

#endif /* KSNAP_BENCH_COMMON_H */

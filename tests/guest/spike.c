// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder test's workloads (tests/guest/flight.sh):
 *
 *   spike MIB MS       allocate MIB MiB, touch every page (charged to our
 *                      memory cgroup), hold it MS ms, free it, exit;
 *                      prints the CLOCK_MONOTONIC ns of the peak's start
 *                      and end
 *   faults MIB SECONDS for SECONDS, map MIB MiB, touch it, unmap it,
 *                      again: page faults at a high rate
 *   burn MS            run on a CPU until this process has had MS ms more
 *                      CPU time than when it began, exit (the exit
 *                      records test, exits.sh)
 *
 * Part of the guest test kit: scripts/guest builds it statically into
 * build/guest/bin/ and puts it on the guest's PATH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static char *touch(size_t len)
{
	size_t off, page = (size_t)sysconf(_SC_PAGESIZE);
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("spike: mmap");
		exit(1);
	}
	for (off = 0; off < len; off += page)
		p[off] = 0x5a;
	return p;
}

static int spike(size_t len, long ms)
{
	struct timespec hold = { .tv_sec = ms / 1000,
				 .tv_nsec = (ms % 1000) * 1000000L };
	unsigned long long start, end;
	char *p;

	p = touch(len);
	start = now_ns();
	nanosleep(&hold, NULL);
	end = now_ns();
	munmap(p, len);
	printf("spike: %zu MiB held from %llu to %llu ns (monotonic)\n",
	       len >> 20, start, end);
	return 0;
}

static int faults(size_t len, long seconds)
{
	unsigned long long end = now_ns() + seconds * 1000000000ULL;
	unsigned long rounds = 0;

	while (now_ns() < end) {
		munmap(touch(len), len);
		rounds++;
	}
	printf("faults: %lu rounds of %zu MiB\n", rounds, len >> 20);
	return 0;
}

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int burn(long ms)
{
	unsigned long long from = cpu_ns();
	unsigned long long until = from + (unsigned long long)ms * 1000000ULL;

	while (cpu_ns() < until)
		;
	printf("burn: %llu ns of CPU time\n", cpu_ns() - from);
	return 0;
}

int main(int argc, char **argv)
{
	size_t len;

	if (argc == 3 && !strcmp(argv[1], "burn"))
		return burn(strtol(argv[2], NULL, 0));
	if (argc != 4 || (strcmp(argv[1], "spike") && strcmp(argv[1], "faults"))) {
		fprintf(stderr, "usage: spike spike MIB MS | spike faults MIB "
			"SECONDS | spike burn MS\n");
		return 2;
	}
	len = strtoul(argv[2], NULL, 0) << 20;
	if (!strcmp(argv[1], "spike"))
		return spike(len, strtol(argv[3], NULL, 0));
	return faults(len, strtol(argv[3], NULL, 0));
}

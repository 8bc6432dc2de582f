// SPDX-License-Identifier: GPL-2.0
/*
 * churn: the cgroup churn of tests/guest/churn.sh.
 *
 *   churn DIR RATE SECONDS
 *
 * For SECONDS, makes a cgroup DIR/cN every 1/RATE s (N from 1; behind
 * schedule it makes the next at once, never a burst to catch up), and
 * removes each when its life is over: every other one lives 2.2 to 3.4 s,
 * the others 0.2 to 1.4 s (spread by N).  Then it removes the rest as their
 * lives end.  DIR is a path under /sys/fs/cgroup, made beforehand.
 *
 * Prints a line per cgroup, "cN BORN_NS GONE_NS RESCANS_BORN RESCANS_GONE"
 * (CLOCK_MONOTONIC, and ksnap's stats/rescans: read after its mkdir
 * returned, and before its rmdir began), then "made N in MS ms".  A
 * cgroup whose RESCANS_GONE is RESCANS_BORN + 2 or more lived through a
 * whole rescan of the patterns, however slow the machine was.
 * Exits 1 at the first mkdir or rmdir that fails, naming it.
 *
 * Part of the guest test kit: scripts/guest builds it statically into
 * build/guest/bin/ and puts it on the guest's PATH.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct cg {
	unsigned long n;
	unsigned long long born, die_at;
	unsigned long long rescans;	/* stats/rescans after the mkdir */
};

#define RESCANS "/sys/class/misc/ksnap/stats/rescans"

/* ksnap's stats/rescans, or ~0ULL if it cannot be read. */
static unsigned long long rescans(void)
{
	unsigned long long v = ~0ULL;
	FILE *f = fopen(RESCANS, "r");

	if (!f)
		return v;
	if (fscanf(f, "%llu", &v) != 1)
		v = ~0ULL;
	fclose(f);
	return v;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until(unsigned long long t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ULL,
			       .tv_nsec = t % 1000000000ULL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* A cgroup's life, ns: every other one at least 2.2 s, the others under 1.5 s. */
static unsigned long long life_ns(unsigned long n)
{
	unsigned long long spread = (n * 7919ULL) % 1200 * 1000000ULL;

	return (n % 2 ? 2200000000ULL : 200000000ULL) + spread;
}

static int remove_cg(const char *dir, struct cg *c)
{
	char path[4096];
	unsigned long long r = rescans();
	unsigned long long gone = now_ns();

	snprintf(path, sizeof(path), "%s/c%lu", dir, c->n);
	if (rmdir(path)) {
		fprintf(stderr, "churn: rmdir %s: %s\n", path, strerror(errno));
		return -1;
	}
	printf("c%lu %llu %llu %llu %llu\n", c->n, c->born, gone, c->rescans, r);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long t0, end, next, step, t;
	unsigned long rate, secs, made = 0, i, live = 0, cap;
	struct cg *cgs;
	char path[4096];
	const char *dir;

	if (argc != 4 || !(rate = strtoul(argv[2], NULL, 10)) ||
	    !(secs = strtoul(argv[3], NULL, 10))) {
		fprintf(stderr, "usage: churn DIR RATE SECONDS\n");
		return 2;
	}
	dir = argv[1];
	/* At most 3.4 s of makes are alive at once. */
	cap = rate * 4 + 16;
	cgs = calloc(cap, sizeof(*cgs));
	if (!cgs)
		return 1;
	step = 1000000000ULL / rate;
	t0 = now_ns();
	end = t0 + secs * 1000000000ULL;
	next = t0;
	for (;;) {
		t = now_ns();
		/* The lives that ended. */
		for (i = 0; i < live;) {
			if (cgs[i].die_at > t) {
				i++;
				continue;
			}
			if (remove_cg(dir, &cgs[i]))
				return 1;
			cgs[i] = cgs[--live];
		}
		if (t >= end && !live)
			break;
		if (t >= end) {
			unsigned long long first = cgs[0].die_at;

			for (i = 1; i < live; i++)
				if (cgs[i].die_at < first)
					first = cgs[i].die_at;
			sleep_until(first);
			continue;
		}
		if (t < next) {
			sleep_until(next);
			continue;
		}
		if (live == cap) {
			fprintf(stderr, "churn: more than %lu alive\n", cap);
			return 1;
		}
		made++;
		snprintf(path, sizeof(path), "%s/c%lu", dir, made);
		if (mkdir(path, 0755)) {
			fprintf(stderr, "churn: mkdir %s: %s\n", path, strerror(errno));
			return 1;
		}
		cgs[live].n = made;
		cgs[live].born = now_ns();
		cgs[live].rescans = rescans();
		cgs[live].die_at = cgs[live].born + life_ns(made);
		live++;
		/* Late: the next one now, the schedule moved on, no burst. */
		next = next + step > t ? next + step : t;
	}
	printf("made %lu in %llu ms\n", made, (end - t0) / 1000000ULL);
	free(cgs);
	return 0;
}

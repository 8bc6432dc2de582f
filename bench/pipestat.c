// SPDX-License-Identifier: MIT
/*
 * pipestat: the guest half of the pipeline bench.  While a collection runs
 * and ksnapd (PID) writes it, measures for the given time, from the same
 * two instants:
 *
 *   ksnapd_cpu_ns   ksnapd's CPU time (/proc/PID/schedstat, ns; ksnapd has
 *                   one thread)
 *   ksnapd_ticks    its utime + stime (/proc/PID/stat, clock ticks of
 *                   clk_tck: what getrusage() reports, coarser)
 *   ksnapd_vcsw     its voluntary context switches (/proc/PID/status):
 *                   each is one sleep in poll(), so one wake-up of ksnapd
 *   ksnapd_nvcsw    its involuntary ones (preempted)
 *   taken missed lost wakeups read_sum_ns lateness_sum_ns
 *                   the module's counts (its stats/ directory);
 *                   wakeups: the kernel's wake-ups of the reader
 *   spin_rate       the idle spinner on the sampler's CPU (common.h)
 *
 * and prints them as differences, with the wall time, on one line.
 *
 *   pipestat --pid PID --seconds S [--cpu 0] [--tag TEXT]
 */
#include "common.h"

#include "ksnap_abi.h"

struct snap {
	uint64_t wall, cpu_ns, ticks, vcsw, nvcsw;
	uint64_t taken, missed, lost, wakeups, read_sum, late_sum;
};

static FILE *open_or_die(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		die(path);
	return f;
}

/* The number after "KEY" + separator in a key-value file. */
static uint64_t keyed(const char *path, const char *key)
{
	char line[512];
	size_t kl = strlen(key);
	uint64_t v = 0;
	FILE *f = open_or_die(path);

	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) &&
		    (line[kl] == ' ' || line[kl] == ':' || line[kl] == '\t')) {
			v = strtoull(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* The number in the module's stats/KEY. */
static uint64_t stat_value(const char *key)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats/%s", KSNAP_SYSFS_DIR, key);
	f = open_or_die(path);
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static void take(struct snap *s, int pid)
{
	char path[64], line[1024], *p;
	unsigned long long ut = 0, st = 0, rt = 0;
	FILE *f;
	int i;

	s->wall = now_ns(CLOCK_MONOTONIC);
	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = open_or_die(path);
	if (fscanf(f, "%llu", &rt) != 1)
		die(path);
	fclose(f);
	s->cpu_ns = rt;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = open_or_die(path);
	if (!fgets(line, sizeof(line), f))
		die(path);
	fclose(f);
	/* After "(comm)": state is field 3, utime 14, stime 15. */
	p = strrchr(line, ')');
	if (!p)
		die(path);
	p += 2;
	for (i = 3; i < 14 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu %llu", &ut, &st) != 2)
		die(path);
	s->ticks = ut + st;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	s->vcsw = keyed(path, "voluntary_ctxt_switches");
	s->nvcsw = keyed(path, "nonvoluntary_ctxt_switches");
	s->taken = stat_value("taken");
	s->missed = stat_value("missed");
	s->lost = stat_value("lost");
	s->wakeups = stat_value("wakeups");
	s->read_sum = stat_value("read_sum_ns");
	s->late_sum = stat_value("lateness_sum_ns");
}

int main(int argc, char **argv)
{
	double seconds = 5, rate;
	int pid = 0, cpu = 0, i;
	const char *tag = "";
	struct spin sp = { 0 };
	struct snap a, b;
	struct timespec ts;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pid") && i + 1 < argc)
			pid = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
			tag = argv[++i];
		else {
			fprintf(stderr, "pipestat: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (pid <= 0) {
		fprintf(stderr, "pipestat: --pid PID is needed\n");
		return 2;
	}
	spin_start(&sp, cpu);
	pin_to(cpu ? 0 : 1);
	take(&a, pid);
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	take(&b, pid);
	rate = spin_stop(&sp);
	printf("kind=pipe %s wall_ns=%llu ksnapd_cpu_ns=%llu ksnapd_ticks=%llu "
	       "clk_tck=%ld ksnapd_vcsw=%llu ksnapd_nvcsw=%llu taken=%llu "
	       "missed=%llu lost=%llu wakeups=%llu read_sum_ns=%llu "
	       "lateness_sum_ns=%llu spin_rate=%.0f\n", tag,
	       (unsigned long long)(b.wall - a.wall),
	       (unsigned long long)(b.cpu_ns - a.cpu_ns),
	       (unsigned long long)(b.ticks - a.ticks), sysconf(_SC_CLK_TCK),
	       (unsigned long long)(b.vcsw - a.vcsw),
	       (unsigned long long)(b.nvcsw - a.nvcsw),
	       (unsigned long long)(b.taken - a.taken),
	       (unsigned long long)(b.missed - a.missed),
	       (unsigned long long)(b.lost - a.lost),
	       (unsigned long long)(b.wakeups - a.wakeups),
	       (unsigned long long)(b.read_sum - a.read_sum),
	       (unsigned long long)(b.late_sum - a.late_sum), rate);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * floorstat: the guest half of the floor (bench/floor/ksnap_floor.c, an
 * empty pinned hard-irq hrtimer).  With the module loaded, starts a run,
 * lets it go for the given time while the idle spinner (common.h) runs on
 * the timer's CPU, stops, reads the per-expiry lateness the module kept,
 * and prints one line of key=value figures with ringstat's names where
 * they mean the same:
 *
 *   capture    expiries / periods elapsed (start to stop)
 *   late_*     lateness per expiry (callback start - expiry), ns
 *   missed     periods skipped by hrtimer_forward (overruns)
 *   spin_rate  the spinner's iterations/s on the timer's CPU (its loss
 *              against a baseline is the floor's CPU)
 *
 *   floorstat --seconds S [--cpu 0] [--tag TEXT] [--no-spin]
 */
#include "common.h"

#include <fcntl.h>

#define FLOOR_SYS	"/sys/kernel/ksnap_floor"
#define FLOOR_PARAM	"/sys/module/ksnap_floor/parameters"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -errno;
}

/* The number after "KEY " in a key value file, or after nothing ("" key). */
static uint64_t value_of(const char *path, const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	uint64_t v = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		if (!kl) {
			v = strtoull(line, NULL, 10);
			break;
		}
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			v = strtoull(line + kl + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	double seconds = 2, rate = 0;
	int cpu = 0, spin = 1, fd, i, ret;
	const char *tag = "";
	struct spin sp = { 0 };
	struct timespec ts;
	uint64_t period_ns, t0, t1, taken, missed, expected, n = 0, cap;
	uint32_t *late;
	ssize_t got;
	struct dist dl;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
			tag = argv[++i];
		else if (!strcmp(argv[i], "--no-spin"))
			spin = 0;
		else {
			fprintf(stderr, "floorstat: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	period_ns = value_of(FLOOR_PARAM "/period_us", "") * 1000;
	if (!period_ns || value_of(FLOOR_PARAM "/cpu", "") != (uint64_t)cpu) {
		fprintf(stderr, "floorstat: ksnap_floor not loaded with cpu=%d\n",
			cpu);
		return 1;
	}
	cap = value_of(FLOOR_PARAM "/max_records", "");
	late = malloc(cap * sizeof(*late));
	if (!late)
		die("malloc");

	if (spin)
		spin_start(&sp, cpu);
	/* Out of the spinner's way: the module arms its timer on cpu. */
	pin_to(cpu ? 0 : 1);
	t0 = now_ns(CLOCK_MONOTONIC);
	ret = write_file(FLOOR_SYS "/enable", "1\n");
	if (ret) {
		fprintf(stderr, "floorstat: enable: %s\n", strerror(-ret));
		return 1;
	}
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	write_file(FLOOR_SYS "/enable", "0\n");
	t1 = now_ns(CLOCK_MONOTONIC);
	if (spin)
		rate = spin_stop(&sp);

	taken = value_of(FLOOR_SYS "/stats", "taken");
	missed = value_of(FLOOR_SYS "/stats", "missed");
	fd = open(FLOOR_SYS "/lateness", O_RDONLY);
	if (fd < 0)
		die(FLOOR_SYS "/lateness");
	while (n < cap &&
	       (got = read(fd, (char *)late + n * sizeof(*late),
			   (cap - n) * sizeof(*late))) > 0)
		n += (uint64_t)got / sizeof(*late);
	close(fd);

	expected = (t1 - t0) / period_ns;
	dl = dist_of(late, n);
	printf("kind=floor %s period_us=%llu cpu=%d elapsed_s=%.3f expected=%llu "
	       "captured=%llu capture_pct=%.2f taken=%llu missed=%llu "
	       "late_p50=%u late_p99=%u late_max=%u late_mean=%.0f "
	       "spin_rate=%.0f\n",
	       tag, (unsigned long long)(period_ns / 1000), cpu,
	       (double)(t1 - t0) / 1e9, (unsigned long long)expected,
	       (unsigned long long)n,
	       expected ? 100.0 * (double)taken / (double)expected : 0,
	       (unsigned long long)taken, (unsigned long long)missed,
	       dl.p50, dl.p99, dl.max, dl.mean, rate);
	return 0;
}

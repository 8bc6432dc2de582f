// SPDX-License-Identifier: MIT
/*
 * cgpoll: what a cAdvisor-style collector pays for the counters ksnap's
 * width bench reads, from cgroupfs.  One sweep opens, reads and parses
 * memory.current and cpu.stat (usage_usec) of every cgroup DIR/PREFIXi,
 * i < N, closing each file again; --sweeps sweeps, back to back.  Prints
 * one key=value line: wall and CPU (this process) per sweep, their
 * median and 99th percentile; figures only.  --pod reads, instead, the
 * files of ksnap's pod group (memory.current, memory.max,
 * memory.swap.current, memory.events, memory.stat, cpu.stat,
 * cpu.pressure, memory.pressure, io.pressure: 9 files for its 13
 * counters, the working set from memory.current and memory.stat's
 * inactive_file), each parsed for the counters the group takes.
 *
 *   cgpoll --dir DIR --prefix P --count N [--sweeps S] [--cpu C]
 *          [--tag TEXT] [--pod]
 */
#include "common.h"

#include <fcntl.h>

/* The file's first number after key (or at its start, key ""). */
static int read_u64(const char *path, const char *key, uint64_t *v)
{
	char buf[4096], *p;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*v = 0;
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	p = buf;
	if (*key) {
		p = strstr(buf, key);
		if (!p)
			return -ENOENT;
		p += strlen(key);
	}
	*v = strtoull(p, NULL, 10);
	return 0;
}

/*
 * A file of the pod group and the keys read from it, in the file's order,
 * each looked for after the last ("" is the file's number).
 */
static const struct {
	const char *file;
	const char *keys[3];
} pod_files[] = {
	{ "memory.current", { "" } },
	{ "memory.max", { "" } },	/* "max" reads as 0: parsed all the same */
	{ "memory.swap.current", { "" } },
	{ "memory.events", { "high ", "oom_kill " } },
	{ "memory.stat", { "anon ", "file ", "inactive_file " } },
	{ "cpu.stat", { "usage_usec " } },
	{ "cpu.pressure", { "total=" } },
	{ "memory.pressure", { "total=", "total=" } },	/* some, full */
	{ "io.pressure", { "total=" } },
};

/* One cgroup's pod-group counters, each file opened and read once. */
static int read_pod(const char *cg, uint64_t *sum)
{
	char path[4200], buf[8192], *p, *from;
	unsigned int f, k;
	int errs = 0, fd;
	ssize_t n;

	for (f = 0; f < sizeof(pod_files) / sizeof(pod_files[0]); f++) {
		snprintf(path, sizeof(path), "%s/%s", cg, pod_files[f].file);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			errs++;
			continue;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n < 0) {
			errs++;
			continue;
		}
		buf[n] = '\0';
		from = buf;
		for (k = 0; k < 3 && pod_files[f].keys[k]; k++) {
			const char *key = pod_files[f].keys[k];

			p = *key ? strstr(from, key) : from;
			if (!p) {
				errs++;
				break;
			}
			from = p + strlen(key);
			*sum += strtoull(from, NULL, 10);
		}
	}
	return errs;
}

static uint64_t cpu_ns(void)
{
	return now_ns(CLOCK_PROCESS_CPUTIME_ID);
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *prefix = "w", *tag = "";
	int count = 0, sweeps = 20, cpu = -1, i, s, errs = 0, pod = 0, files;
	uint32_t *wall, *cpus;
	uint64_t sum = 0, v, w0, c0;
	char path[4096];
	struct dist dw, dc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
			prefix = argv[++i];
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sweeps") && i + 1 < argc)
			sweeps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
			tag = argv[++i];
		else if (!strcmp(argv[i], "--pod"))
			pod = 1;
		else {
			fprintf(stderr, "cgpoll: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!dir || count < 1 || sweeps < 1) {
		fprintf(stderr, "cgpoll: --dir DIR --count N [--sweeps S]\n");
		return 2;
	}
	if (cpu >= 0 && pin_to(cpu))
		die("sched_setaffinity");
	wall = calloc((size_t)sweeps, sizeof(*wall));
	cpus = calloc((size_t)sweeps, sizeof(*cpus));
	if (!wall || !cpus)
		die("calloc");
	for (s = 0; s < sweeps; s++) {
		w0 = now_ns(CLOCK_MONOTONIC);
		c0 = cpu_ns();
		for (i = 0; pod && i < count; i++) {
			snprintf(path, sizeof(path), "%s/%s%d", dir, prefix, i);
			errs += read_pod(path, &sum);
		}
		for (i = 0; !pod && i < count; i++) {
			snprintf(path, sizeof(path), "%s/%s%d/memory.current",
				 dir, prefix, i);
			if (read_u64(path, "", &v))
				errs++;
			sum += v;
			snprintf(path, sizeof(path), "%s/%s%d/cpu.stat",
				 dir, prefix, i);
			if (read_u64(path, "usage_usec ", &v))
				errs++;
			sum += v;
		}
		cpus[s] = (uint32_t)((cpu_ns() - c0) / 1000);
		wall[s] = (uint32_t)((now_ns(CLOCK_MONOTONIC) - w0) / 1000);
	}
	files = pod ? count * (int)(sizeof(pod_files) / sizeof(pod_files[0])) :
		      2 * count;
	dw = dist_of(wall, (uint64_t)sweeps);
	dc = dist_of(cpus, (uint64_t)sweeps);
	printf("kind=cgpoll %s cgroups=%d files=%d sweeps=%d errors=%d "
	       "wall_p50_us=%u wall_p99_us=%u wall_mean_us=%.0f "
	       "cpu_p50_us=%u cpu_p99_us=%u cpu_mean_us=%.0f checksum=%llu\n",
	       tag, count, files, sweeps, errs, dw.p50, dw.p99, dw.mean,
	       dc.p50, dc.p99, dc.mean, (unsigned long long)(sum & 0xffff));
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * A sample exposition for the linters (tests/openmetrics/lint): one
 * collection's worth of columns of every kind ksnap has (vmstat counters
 * and gauges, a KiB one, CPU and guest times, softirqs, load, threads,
 * pressure, cgroups of a container and a pod, a path that needs escaping,
 * one not valid UTF-8), ksnapd's own series with process_* and the rate
 * intervals, rendered by the real code in both formats.
 *
 *   sample PROM_FILE OM_FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openmetrics.h"

#define CUM	KSNAP_COL_CUMULATIVE
#define NS	(KSNAP_COL_CUMULATIVE | KSNAP_COL_NANOSECONDS)

#define POD	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-" \
		"pod1b2c3d4e_5f60_7182_93a4_b5c6d7e8f901.slice/cri-containerd-" \
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab" \
		"cdef.scope"
#define LIBPOD	"/machine.slice/libpod-fedcba9876543210fedcba9876543210" \
		"fedcba9876543210fedcba9876543210.scope"

struct col {
	const char *metric, *desc;
	unsigned int flags;
	bool per_cgroup;
};

static const struct col metrics[] = {
	{ "pgfault", "vm event counter of /proc/vmstat, count", CUM, false },
	{ "pgmajfault", "vm event counter of /proc/vmstat, count", CUM, false },
	{ "nr_free_pages", "zone state of /proc/vmstat, all zones, pages", 0,
	  false },
	{ "cpu.user", "user, /proc/stat cpu line, all CPUs, ns", NS, false },
	{ "cpu.system", "system, /proc/stat cpu line, all CPUs, ns", NS,
	  false },
	{ "cpu.iowait", "iowait, /proc/stat cpu line, all CPUs, ns", NS,
	  false },
	{ "cpu.guest", "CPU time running guests, /proc/stat cpu line, all "
	  "CPUs, ns", NS, false },
	{ "cpu.guest_nice", "CPU time running niced guests, /proc/stat cpu "
	  "line, all CPUs, ns", NS, false },
	{ "nr_kernel_stack", "node state of /proc/vmstat, all nodes, KiB", 0,
	  false },
	{ "loadavg.threads", "PIDs in use in the initial PID namespace "
	  "(~threads), count", 0, false },
	{ "softirqs.NET_RX", "softirqs of this type run (/proc/softirqs), "
	  "count", CUM, false },
	{ "softirqs.TIMER", "softirqs of this type run (/proc/softirqs), "
	  "count", CUM, false },
	{ "loadavg.1", "load average of /proc/loadavg x1000 (5 s updates), "
	  "load/1000", 0, false },
	{ "pressure.memory.some", "system stall total of /proc/pressure/ "
	  "(total=, in us there), ns", NS, false },
	{ "pressure.memory.full", "system stall total of /proc/pressure/ "
	  "(total=, in us there), ns", NS, false },
	{ "memory.current", "memory.current of the cgroup, \"usage\", bytes",
	  0, true },
	{ "memory.peak", "memory.peak of the cgroup, bytes", 0, true },
	{ "memory.max", "hard limit, U64_MAX for max, bytes", 0, true },
	{ "memory.events.oom_kill", "memory event of the cgroup and its "
	  "descendants, count", CUM, true },
	{ "memory.stat.anon", "memory.stat item, subtree, bytes", 0, true },
	{ "cpu.stat.usage", "cpu.stat usage of the cgroup, ns", NS, true },
	{ "memory.pressure.some", "stall total of the cgroup's *.pressure "
	  "(total=, in us there), ns", NS, true },
};

static const char *const cgroups[] = {
	"/", "/system.slice/ssh.service", LIBPOD, POD,
	"/odd \"quoted\" \\back\\slash\nnewline", "/not-utf8-\xff\xfe",
	"/caf\xc3\xa9",
};

#define NR_M	(sizeof(metrics) / sizeof(metrics[0]))
#define NR_CG	(sizeof(cgroups) / sizeof(cgroups[0]))

static int write_file(const char *path, const struct om_buf *b)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ksnap_column *cols = calloc(NR_M * NR_CG, sizeof(*cols));
	const struct om_self self = {
		.version = "sample \"1\"", .abi = KSNAP_ABI_VERSION,
		.running = true, .window_seconds = 60, .period_seconds = 0.001,
		.taken = 123456, .lost = 7, .missed = 3, .thinned = 1, .cgroups_skipped = 2,
		.skipped_utf8 = 6,
		.scrapes = 5, .read_sum_ns = 123456789, .read_max_ns = 4321,
		.lateness_sum_ns = 987654321, .lateness_max_ns = 54321,
		.flight = true, .flight_triggers = 4, .flight_dumps = 2,
		.textfile = true, .textfile_writes = 9, .textfile_errors = 1,
		.process = true, .process_cpu_s = 1.25,
		.process_start_s = 1795000000.5, .process_rss = 12345678,
		.process_vsize = 98765432, .process_open_fds = 11,
		.process_max_fds = 1024,
	};
	struct om_layout l;
	struct om_value *v;
	struct om_hist *hist;
	struct om_buf prom = { 0 }, om = { 0 };
	unsigned int i, j, n = 0;

	if (argc != 3 || !cols) {
		fprintf(stderr, "usage: sample PROM_FILE OM_FILE\n");
		return 2;
	}
	for (i = 0; i < NR_M; i++) {
		for (j = 0; j < (metrics[i].per_cgroup ? NR_CG : 1); j++) {
			struct ksnap_column *c = &cols[n++];

			snprintf(c->metric, sizeof(c->metric), "%s",
				 metrics[i].metric);
			snprintf(c->description, sizeof(c->description), "%s",
				 metrics[i].desc);
			c->flags = metrics[i].flags;
			if (metrics[i].per_cgroup) {
				snprintf(c->field, sizeof(c->field), "cgroup");
				snprintf(c->value, sizeof(c->value), "%s",
					 cgroups[j]);
			}
		}
	}
	if (om_layout_build(&l, cols, n, NULL))
		return 1;
	/* The counters' peak rates over 40 ms (ksnapd's, webrows.c). */
	for (i = 0; i < l.nr_fam; i++)
		if (l.fam[i].counter)
			l.fam[i].rate_interval_ns = 40000000;
	/* Histograms of the memory gauges, bytes: 1 KiB to 1 GiB by 4. */
	om_layout_histograms(&l, "ksnap_cgroup_memory_*",
			     &(struct om_hist_spec){ 1024, 4, 11 });
	/* And when each maximum was taken (--web.peak-times). */
	l.peak_times = true;
	v = calloc(l.nr_series + 1, sizeof(*v));
	hist = calloc(l.nr_series + 1, sizeof(*hist));
	if (!v || !hist)
		return 1;
	for (i = 0; i < l.nr_series; i++) {
		for (j = 0; j < 50 * (i + 1); j++)
			om_hist_observe(&l.hspec, &hist[i], 1000.0 * j * j);
		v[i].hist = &hist[i];
		v[i].alive = true;
		/* some without a window (by column: the same whatever
		 * the families) */
		v[i].have_window = l.series[i].column % 5 != 4;
		v[i].last = 1000000ULL * (i + 1);
		v[i].wmax = 2.5e6 * (i + 1);
		v[i].wmin = 0.5 * i;
		v[i].wmax_time = 1.8e9 + 0.001 * i;
		/* A limit of "max" in some: +Inf. */
		if (!strcmp(cols[l.series[i].column].metric, "memory.max") &&
		    i % 2) {
			v[i].last = UINT64_MAX;
			v[i].wmax = om_gauge_value(UINT64_MAX, 1);
		}
	}
	if (om_render(&prom, OM_PROMETHEUS, &l, v, &self) ||
	    om_render(&om, OM_OPENMETRICS, &l, v, &self))
		return 1;
	if (write_file(argv[1], &prom) || write_file(argv[2], &om))
		return 1;
	printf("sample: %u families, %u series, %llu skipped (not UTF-8)\n",
	       l.nr_fam, l.nr_series, (unsigned long long)l.skipped_utf8);
	om_buf_free(&prom);
	om_buf_free(&om);
	om_layout_free(&l);
	free(v);
	free(hist);
	free(cols);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * poller: the userspace side of the comparison.  Reads the same counters
 * that ksnap samples, from /proc/vmstat, /proc/stat and cgroup files, every
 * period, waking with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), and
 * prints the same figures as ringstat:
 *
 *   late_*    wake-up time - the period's deadline, ns
 *   read_*    time to read and parse all files of one snapshot, ns
 *   capture   snapshots taken / periods elapsed; a snapshot that ends past
 *             the next deadline skips the deadlines already gone (missed),
 *             as the hrtimer's forward does
 *   cpu_pct   share of its CPU taken (idle spinner, common.h)
 *
 * Timer slack is set to 1 ns (PR_SET_TIMERSLACK; the default is 50 us
 * for a normal task), so the poller wakes as close to its deadline as a
 * SCHED_OTHER task can.
 *
 * The files are opened once and re-read with pread() at offset 0, which is
 * the cheapest a poller can do (seq_file regenerates them).
 *
 *   poller --period-us P --seconds S [--cpu 0] [--vmstat k1,k2,...]
 *          [--stat k1,...] [--cgroup-file PATH]... [--tag TEXT] [--no-spin]
 *   poller --baseline S [--cpu 0]     spinner alone: iterations/s
 *
 * --stat keys: user nice system idle iowait irq softirq steal guest
 * guest_nice (the "cpu" line of /proc/stat).
 */
#include "common.h"

#include <fcntl.h>
#include <sys/prctl.h>

#define MAXKEYS	128
#define MAXCG	128
#define BUFSZ	(256 * 1024)

static char buf[BUFSZ];

static const char *stat_names[] = { "user", "nice", "system", "idle",
	"iowait", "irq", "softirq", "steal", "guest", "guest_nice" };

struct src {
	int vmstat_fd, stat_fd;
	int nvm, nst, ncg;
	char *vmkeys[MAXKEYS];
	size_t vmlen[MAXKEYS];
	int stidx[MAXKEYS];
	int cgfd[MAXCG];
	uint64_t v[MAXKEYS * 2 + MAXCG];
};

static ssize_t slurp(int fd)
{
	ssize_t n = pread(fd, buf, BUFSZ - 1, 0);

	if (n < 0)
		die("pread");
	buf[n] = 0;
	return n;
}

/* One snapshot: read and parse every file. */
static void snapshot(struct src *s)
{
	int k = 0, i;

	if (s->nvm) {
		char *p = buf, *end;

		end = buf + slurp(s->vmstat_fd);
		/* /proc/vmstat: "key value\n" lines; keys in file order. */
		while (p < end) {
			char *sp = memchr(p, ' ', (size_t)(end - p));
			char *nl;

			if (!sp)
				break;
			for (i = 0; i < s->nvm; i++)
				if ((size_t)(sp - p) == s->vmlen[i] &&
				    !memcmp(p, s->vmkeys[i], s->vmlen[i]))
					s->v[k + i] = strtoull(sp + 1, NULL, 10);
			nl = memchr(sp, '\n', (size_t)(end - sp));
			if (!nl)
				break;
			p = nl + 1;
		}
		k += s->nvm;
	}
	if (s->nst) {
		uint64_t f[10] = { 0 };
		char *p;

		slurp(s->stat_fd);
		p = buf + 3;	/* "cpu  user nice ..." */
		for (i = 0; i < 10; i++)
			f[i] = strtoull(p, &p, 10);
		for (i = 0; i < s->nst; i++)
			s->v[k + i] = f[s->stidx[i]];
		k += s->nst;
	}
	for (i = 0; i < s->ncg; i++) {
		slurp(s->cgfd[i]);
		s->v[k + i] = strtoull(buf, NULL, 10);
	}
}

static void split(char *list, char **out, int *n)
{
	char *save = NULL, *t;

	for (t = strtok_r(list, ",", &save); t && *n < MAXKEYS;
	     t = strtok_r(NULL, ",", &save))
		out[(*n)++] = t;
}

int main(int argc, char **argv)
{
	struct src s = { .vmstat_fd = -1, .stat_fd = -1 };
	double seconds = 2, baseline = 0;
	uint64_t period = 1000000, t0, t1, next, expected, n = 0, missed = 0;
	uint64_t cap, cpu0;
	int cpu = 0, spin = 1, i, j;
	const char *tag = "";
	char *stkeys[MAXKEYS];
	int nstk = 0;
	uint32_t *late, *rd;
	struct dist dl, dr;
	struct spin sp = { 0 };
	double rate = 0, read_sum = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--period-us") && i + 1 < argc)
			period = strtoull(argv[++i], NULL, 10) * 1000;
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--baseline") && i + 1 < argc)
			baseline = atof(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--vmstat") && i + 1 < argc)
			split(argv[++i], s.vmkeys, &s.nvm);
		else if (!strcmp(argv[i], "--stat") && i + 1 < argc)
			split(argv[++i], stkeys, &nstk);
		else if (!strcmp(argv[i], "--cgroup-file") && i + 1 < argc &&
			 s.ncg < MAXCG) {
			s.cgfd[s.ncg] = open(argv[++i], O_RDONLY);
			if (s.cgfd[s.ncg++] < 0)
				die(argv[i]);
		} else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
			tag = argv[++i];
		else if (!strcmp(argv[i], "--no-spin"))
			spin = 0;
		else {
			fprintf(stderr, "poller: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}

	if (baseline > 0) {
		spin_start(&sp, cpu);
		usleep((useconds_t)(baseline * 1e6));
		printf("kind=baseline cpu=%d spin_rate=%.0f\n", cpu,
		       spin_stop(&sp));
		return 0;
	}

	for (i = 0; i < s.nvm; i++)
		s.vmlen[i] = strlen(s.vmkeys[i]);
	for (i = 0; i < nstk; i++) {
		for (j = 0; j < 10 && strcmp(stkeys[i], stat_names[j]); j++)
			;
		if (j == 10) {
			fprintf(stderr, "poller: unknown --stat key %s\n",
				stkeys[i]);
			return 2;
		}
		s.stidx[s.nst++] = j;
	}
	if (s.nvm && (s.vmstat_fd = open("/proc/vmstat", O_RDONLY)) < 0)
		die("/proc/vmstat");
	if (s.nst && (s.stat_fd = open("/proc/stat", O_RDONLY)) < 0)
		die("/proc/stat");

	cap = (uint64_t)(seconds * 1e9 / (double)period) + 16;
	late = malloc(cap * sizeof(*late));
	rd = malloc(cap * sizeof(*rd));
	if (!late || !rd)
		die("malloc");
	/* Touch the arrays: no page faults in the loop. */
	memset(late, 0, cap * sizeof(*late));
	memset(rd, 0, cap * sizeof(*rd));

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (spin)
		spin_start(&sp, cpu);
	if (pin_to(cpu))
		die("sched_setaffinity");
	snapshot(&s);	/* warm up */
	cpu0 = rusage_cpu_ns();
	t0 = now_ns(CLOCK_MONOTONIC);
	next = t0 + period;
	t1 = t0 + (uint64_t)(seconds * 1e9);
	while (next <= t1) {
		struct timespec ts = { .tv_sec = (time_t)(next / 1000000000ull),
				       .tv_nsec = (long)(next % 1000000000ull) };
		uint64_t w, d;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		w = now_ns(CLOCK_MONOTONIC);
		snapshot(&s);
		d = now_ns(CLOCK_MONOTONIC);
		if (n < cap) {
			uint64_t l = w - next;

			late[n] = l > UINT32_MAX ? UINT32_MAX : (uint32_t)l;
			rd[n] = d - w > UINT32_MAX ? UINT32_MAX : (uint32_t)(d - w);
			read_sum += (double)(d - w);
			n++;
		}
		next += period;
		/* Deadlines already gone are skipped, as hrtimer_forward. */
		if (d >= next) {
			uint64_t skip = (d - next) / period + 1;

			missed += skip;
			next += skip * period;
		}
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	cpu0 = rusage_cpu_ns() - cpu0;
	if (spin)
		rate = spin_stop(&sp);
	expected = (t1 - t0) / period;
	dl = dist_of(late, n);
	dr = dist_of(rd, n);
	printf("kind=poller %s period_us=%llu cols=%d elapsed_s=%.3f expected=%llu "
	       "captured=%llu capture_pct=%.2f taken=%llu lost=0 missed=%llu "
	       "late_p50=%u late_p99=%u late_max=%u late_mean=%.0f "
	       "read_mean=%.0f read_p50=%u read_p99=%u read_max=%u "
	       "readsum_pct=%.3f self_pct=%.3f spin_rate=%.0f\n",
	       tag, (unsigned long long)(period / 1000), s.nvm + s.nst + s.ncg,
	       (double)(t1 - t0) / 1e9, (unsigned long long)expected,
	       (unsigned long long)n,
	       expected ? 100.0 * (double)n / (double)expected : 0,
	       (unsigned long long)n, (unsigned long long)missed,
	       dl.p50, dl.p99, dl.max, dl.mean, dr.mean, dr.p50, dr.p99, dr.max,
	       100.0 * read_sum / (double)(t1 - t0),
	       100.0 * (double)cpu0 / (double)(t1 - t0), rate);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * ksnapd: write the samples of ksnap.ko as a gVisor profiling-metrics
 * stream.  Options and set-up here; the work is in daemon.c and the
 * files it puts together.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "daemon.h"
#include "devwait.h"
#include "kmodload.h"
#include "output.h"
#include "ring.h"
#include "sys.h"

#ifndef KSNAP_VERSION
#define KSNAP_VERSION "0.1"
#endif

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

static const char usage_text[] =
"Usage: ksnapd [-o FILE] [--device PATH] [--lossy] [--once] [--no-wait]\n"
"              [--load[=PARAMS]] [--start] [--stop-on-exit]\n"
"       ksnapd -h | --help\n"
"       ksnapd -V | --version\n"
"\n"
"Write the samples of the ksnap kernel module as a gVisor profiling-metrics\n"
"stream.  Runs in the foreground (see ksnapd(8)).\n"
"\n"
"DESCRIPTION\n"
"  ksnapd maps the sample ring of ksnap.ko from the device, sleeps in poll()\n"
"  and writes each collection as a tab-separated stream in gVisor's\n"
"  profiling-metrics format: one META line per metric, START_TIME, the\n"
"  column header \"Time (ns)<TAB>metric<TAB>metric[value]...\", one row per\n"
"  sample (time in ns since the collection started, then unsigned 64-bit\n"
"  values) and a final STATS line.\n"
"\n"
"  A collection is started and stopped through sysfs:\n"
"    echo 1 > /sys/kernel/ksnap/enable    start\n"
"    echo 0 > /sys/kernel/ksnap/enable    stop\n"
"  If no collection is running, ksnapd waits for one; if one is running, it\n"
"  writes the header and the rows not yet read (as it does with one that\n"
"  was started and stopped again before ksnapd noticed).  When the\n"
"  collection stops and every row is written, ksnapd writes STATS, logs a\n"
"  summary on stderr and waits for the next collection (with --once:\n"
"  exits).  While ksnapd holds the device, a new start is refused (EBUSY)\n"
"  until it has written out the previous collection, so no collection is\n"
"  lost.\n"
"\n"
"  Output files.  The file of a collection is created (or truncated) when\n"
"  the collection starts, as gVisor does.  The first collection of a run\n"
"  goes to FILE, the next ones to FILE.2, FILE.3, ... so that none\n"
"  overwrites another.  If FILE holds \"%g\", it is replaced by the\n"
"  kernel's collection number for every collection instead (\"%%\" is a\n"
"  \"%\"), e.g. -o /var/log/ksnap/ksnap-%g.tsv.  On standard output the\n"
"  streams follow one another (ksnap-verify tells them apart).\n"
"  A collection an earlier reader had begun (a killed or restarted\n"
"  ksnapd: the ring's tail is not 0) is never truncated, since its file\n"
"  may hold that reader's part: ksnapd writes the rest to NAME.resumed.N\n"
"  (NAME as above, N = 1, 2, ... the first that does not exist), and\n"
"  STATS ksnapd_first_position says how many snapshots came before.\n"
"\n"
"  Output full (ENOSPC): ksnapd says so once, keeps the ring drained and\n"
"  drops rows, counted in STATS ksnapd_rows_dropped, until there is room\n"
"  again; no partial line is left in a file.\n"
"\n"
"  At the end of each collection a summary goes to stderr: capture rate,\n"
"  average lateness and read time against the period, snapshots lost and\n"
"  periods missed, with warnings at gVisor's thresholds (capture below\n"
"  99%, lateness or read time above 10% of the period).\n"
"\n"
"OPTIONS\n"
"  -o, --output FILE  Write the streams to FILE (mode 0644; naming above).\n"
"                     Default, or \"-\": standard output.  A directory of\n"
"                     FILE that files cannot be created in is an error at\n"
"                     startup.\n"
"      --device PATH  Ring device (default " KSNAP_DEVICE_PATH ").  A regular\n"
"                     file laid out like the device also works (tests,\n"
"                     benchmarks); it is checked every millisecond.\n"
"      --lossy        Lossy-sink format, for logs that may drop or cut\n"
"                     lines: every line prefixed with \"GVISOR_METRICS<TAB>\"\n"
"                     and ended by its Adler-32, a \"Checksum\" column, a\n"
"                     final ADLER32 line over the whole stream; each flush is\n"
"                     one write framed by empty lines, fsync'ed on a file.\n"
"                     Lines of ksnapd never interleave with partial lines\n"
"                     of its own: stream lines are only written whole, in\n"
"                     one write per flush, and messages go to stderr.\n"
"      --once         Exit after the first collection.\n"
"      --no-wait      Fail at once if the device does not exist, instead of\n"
"                     waiting for it (1 s, then 1.3 times longer each try,\n"
"                     at most 30 s between tries, each said on stderr).\n"
"      --load[=PARAMS]\n"
"                     Load ksnap.ko first (libkmod, as modprobe: with its\n"
"                     dependencies and the options of modprobe.d), with the\n"
"                     module parameters PARAMS (\"period_us=1000 ...\").\n"
"                     Already loaded is fine; PARAMS then cannot be applied\n"
"                     and ksnapd warns, naming them.\n"
"      --start        Start a collection (write 1 to " KSNAP_SYSFS_DIR "/enable)\n"
"                     once the device is open.\n"
"      --stop-on-exit Stop the collection (write 0 to enable) when ksnapd\n"
"                     exits.  On SIGINT/SIGTERM it is stopped first, then\n"
"                     written out up to the module's last snapshot.\n"
"  -h, --help         Show this help and exit.\n"
"  -V, --version      Show the version and exit.\n"
"\n"
"SIGNALS\n"
"  SIGINT, SIGTERM    Write the rows already in the ring, then STATS (and\n"
"                     ADLER32), and exit 0.  Without --stop-on-exit the\n"
"                     collection keeps running in the kernel; with it, the\n"
"                     collection is stopped first and its last snapshot\n"
"                     is the last row.\n"
"  SIGHUP             Reopen the output file by its name, appending (log\n"
"                     rotation).  The file being written ends (lossy: with\n"
"                     its ADLER32 line) and the new one begins with META,\n"
"                     START_TIME and the header, so that each file stands\n"
"                     alone.  Only the last file of a collection has STATS:\n"
"                     total_snapshots counts the rows of all its files,\n"
"                     ksnapd_rows_in_earlier_files those before it.  A\n"
"                     SIGHUP when the file was not moved does nothing.\n"
"\n"
"EXIT STATUS\n"
"  0  the collection(s) were written out, or a signal arrived\n"
"  1  runtime error: device incompatible, module load or start failed,\n"
"     write error\n"
"  2  usage error\n"
"\n"
"FILES\n"
"  " KSNAP_DEVICE_PATH "                 the ring (ksnap.ko)\n"
"  " KSNAP_SYSFS_DIR "/enable   start (1) and stop (0) a collection\n"
"\n"
"EXAMPLE\n"
"  ksnapd --load --start --stop-on-exit --once -o /tmp/ksnap.tsv &\n"
"  sleep 10; kill %1; wait\n"
"  ksnap-verify /tmp/ksnap.tsv\n";

struct options {
	const char *output;		/* NULL: stdout */
	const char *device;
	bool lossy;
	bool once;
	bool no_wait;
	bool load;
	const char *load_params;	/* NULL: none */
	bool start;
	bool stop_on_exit;
};

static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "ksnapd: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'ksnapd --help' for more information.\n");
	exit(EXIT_USAGE);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_DEVICE = 256, OPT_LOSSY, OPT_ONCE, OPT_NO_WAIT, OPT_LOAD,
	       OPT_START, OPT_STOP_ON_EXIT };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "lossy", no_argument, NULL, OPT_LOSSY },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
		{ "load", optional_argument, NULL, OPT_LOAD },
		{ "start", no_argument, NULL, OPT_START },
		{ "stop-on-exit", no_argument, NULL, OPT_STOP_ON_EXIT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->device = KSNAP_DEVICE_PATH;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				usage_error("-o: empty file name", "");
			o->output = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case OPT_DEVICE:
			if (!*optarg)
				usage_error("--device: empty path", "");
			o->device = optarg;
			break;
		case OPT_LOSSY:
			o->lossy = true;
			break;
		case OPT_ONCE:
			o->once = true;
			break;
		case OPT_NO_WAIT:
			o->no_wait = true;
			break;
		case OPT_LOAD:
			o->load = true;
			o->load_params = optarg && *optarg ? optarg : NULL;
			break;
		case OPT_START:
			o->start = true;
			break;
		case OPT_STOP_ON_EXIT:
			o->stop_on_exit = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("ksnapd %s (ring ABI %d)\n", KSNAP_VERSION,
			       KSNAP_ABI_VERSION);
			exit(0);
		case ':':
			usage_error("option '%s' needs an argument",
				    argv[optind - 1]);
			break;
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
}

static void ring_error(const struct ksnap_ring *r, const char *dev, int ret)
{
	bool dflt = !strcmp(dev, KSNAP_DEVICE_PATH);

	switch (ret) {
	case -ENOENT:
		fprintf(stderr, "ksnapd: %s: %s: %s\n", dev, strerror(-ret),
			dflt ? "is the module loaded? (modprobe ksnap)" :
			       "check the --device path");
		break;
	case -EACCES:
	case -EPERM:
		fprintf(stderr, "ksnapd: %s: %s%s%s: run as root or give this "
			"user read-write access to %s\n", dev,
			r->op ? r->op : "", r->op ? ": " : "",
			strerror(-ret), dev);
		break;
	case -EPROTO:
		fprintf(stderr, "ksnapd: %s: not a ksnap ring (magic 0x%llx, "
			"expected 0x%llx): check the --device path\n", dev,
			(unsigned long long)r->found_magic,
			(unsigned long long)KSNAP_MAGIC);
		break;
	case -EPROTONOSUPPORT:
		fprintf(stderr, "ksnapd: %s: ring ABI version %u (readable "
			"from version %u on), this ksnapd reads version %d: "
			"use the ksnapd built with this ksnap.ko\n", dev,
			r->found_version, r->found_version >= 2 ?
			r->found_compat : r->found_version,
			KSNAP_ABI_VERSION);
		break;
	case -EBUSY:
		fprintf(stderr, "ksnapd: %s: %s: is another ksnapd running?\n",
			dev, strerror(-ret));
		break;
	default:
		if (ret == -EINVAL && r->why)
			fprintf(stderr, "ksnapd: %s: bad ring layout: %s: %s\n",
				dev, r->why, r->regular_file ?
				"not a ring file for this ksnapd" :
				"ksnapd and ksnap.ko do not match");
		else if (ret == -ENODEV)
			fprintf(stderr, "ksnapd: %s: %s%s%s: is this the ksnap "
				"device (" KSNAP_DEVICE_PATH ")?\n", dev,
				r->op ? r->op : "", r->op ? ": " : "",
				strerror(-ret));
		else
			fprintf(stderr, "ksnapd: %s: %s%s%s\n", dev,
				r->op ? r->op : "", r->op ? ": " : "",
				strerror(-ret));
	}
}

/* Write "1" or "0" to the enable knob. */
static int set_enable(bool on)
{
	const char *path = KSNAP_SYSFS_DIR "/enable";
	int fd, ret;

	fd = ksnap_sys_open(path, O_WRONLY | O_CLOEXEC, 0);
	if (fd < 0) {
		ret = fd;
	} else {
		ret = ksnap_out_write_full(fd, on ? "1\n" : "0\n", 2);
		ksnap_sys_close(fd);
	}
	if (ret)
		fprintf(stderr, "ksnapd: %s: writing %d: %s\n", path, on,
			strerror(-ret));
	return ret;
}

/* --stop-on-exit, on SIGINT/SIGTERM: stop before the drain (collect.c). */
static int stop_collection(void *arg)
{
	(void)arg;
	return set_enable(false);
}

/* Block SIGINT/SIGTERM/SIGHUP and receive them through a descriptor. */
static int signals_setup(void)
{
	sigset_t set;
	int fd;

	signal(SIGPIPE, SIG_IGN);	/* EPIPE from write() instead */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/* --load: returns 0, or -errno when ksnapd cannot go on. */
static int load_module(const struct options *o)
{
	char err[256];
	int ret;

	ret = ksnapd_load_module("ksnap", o->load_params, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "ksnapd: --load: %s\n", err);
	else if (ret > 0)
		fprintf(stderr, "ksnapd: --load: warning: %s\n", err);
	return ret < 0 ? ret : 0;
}

/*
 * ksnapd on the open ring, until done.  *stop_ret: what --stop-on-exit's
 * stop returned if the run called it.  Returns the exit status.
 */
static int run(const struct options *o, struct ksnap_ring *ring, int sigfd,
	       int *stop_ret)
{
	const struct ksnapd_config cfg = {
		.out_path = o->output,
		.lossy = o->lossy,
		.once = o->once,
		.log = stderr,
		.stop_collection = o->stop_on_exit ? stop_collection : NULL,
	};
	struct ksnapd d;
	int ret, status = EXIT_RUNTIME;

	ret = ksnapd_init(&d, ring, &cfg);
	if (ret) {
		fprintf(stderr, "ksnapd: %s\n", d.err);
		return status;
	}
	if (o->start && set_enable(true))
		goto out;
	ret = ksnapd_run(&d, sigfd);
	*stop_ret = d.col.stop_ret;
	if (ret) {
		fprintf(stderr, "ksnapd: %s\n", d.err);
		if (ret == -ENOSPC || ret == -EDQUOT)
			fprintf(stderr, "ksnapd: free some space or write "
				"elsewhere with -o\n");
	} else {
		status = 0;
	}
out:
	ksnapd_fini(&d);
	return status;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct ksnap_ring ring;
	char err[320];
	int sigfd, ret, status = EXIT_RUNTIME;
	int stop_ret = KSNAPD_STOP_NOT_CALLED;

	parse_options(argc, argv, &opt);
	/* Now, not when the first collection starts. */
	if (opt.output && ksnapd_check_output_dir(opt.output, err,
						  sizeof(err))) {
		fprintf(stderr, "ksnapd: -o %s: %s\n", opt.output, err);
		return EXIT_RUNTIME;
	}
	sigfd = signals_setup();
	if (sigfd < 0) {
		fprintf(stderr, "ksnapd: signalfd: %s\n", strerror(-sigfd));
		return EXIT_RUNTIME;
	}
	if (opt.load && load_module(&opt))
		goto out_sigfd;
	ret = ksnapd_open_ring(&ring, opt.device, !opt.no_wait, sigfd, stderr);
	if (ret == -EINTR) {
		status = 0;		/* stopped while waiting */
		goto out_sigfd;
	}
	if (ret) {
		ring_error(&ring, opt.device, ret);
		goto out_sigfd;
	}

	status = run(&opt, &ring, sigfd, &stop_ret);
	if (opt.stop_on_exit) {
		/* Not stopped yet (no signal, or no collection then): now. */
		if (stop_ret == KSNAPD_STOP_NOT_CALLED)
			stop_ret = set_enable(false);
		if (stop_ret && !status)
			status = EXIT_RUNTIME;
	}
	ksnap_ring_close(&ring);
out_sigfd:
	close(sigfd);
	return status;
}

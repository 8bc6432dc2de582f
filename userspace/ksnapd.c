// SPDX-License-Identifier: MIT
/*
 * ksnapd: write the samples of ksnap.ko as a gVisor profiling-metrics
 * stream.  Options and set-up here; the work is in daemon.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "output.h"
#include "ring.h"
#include "stream.h"
#include "sys.h"

#ifndef KSNAP_VERSION
#define KSNAP_VERSION "0.1"
#endif

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

static const char usage_text[] =
"Usage: ksnapd [-o FILE] [--device PATH] [--lossy]\n"
"       ksnapd -h | --help\n"
"       ksnapd -V | --version\n"
"\n"
"Write the samples of the ksnap kernel module as a gVisor profiling-metrics\n"
"stream.\n"
"\n"
"DESCRIPTION\n"
"  ksnapd maps the sample ring of ksnap.ko from the device, sleeps in poll()\n"
"  and writes one collection as a tab-separated stream in gVisor's\n"
"  profiling-metrics format: one META line per metric, START_TIME, the\n"
"  column header \"Time (ns)<TAB>metric<TAB>metric[value]...\", one row per\n"
"  sample (time in ns since the collection started, then unsigned 64-bit\n"
"  values) and a final STATS line.\n"
"\n"
"  A collection is started and stopped through sysfs:\n"
"    echo 1 > /sys/kernel/ksnap/enable    start\n"
"    echo 0 > /sys/kernel/ksnap/enable    stop\n"
"  If no collection is running, ksnapd waits for one; if one is running, it\n"
"  writes the header and the rows not yet read.  When the collection stops\n"
"  and every row is written, ksnapd writes STATS and exits.  While ksnapd\n"
"  holds the device, a new start is refused (EBUSY) until it has written\n"
"  out the previous collection.\n"
"\n"
"OPTIONS\n"
"  -o, --output FILE  Write the stream to FILE (created or truncated, mode\n"
"                     0644).  Default, or \"-\": standard output.\n"
"      --device PATH  Ring device (default " KSNAP_DEVICE_PATH ").  A regular\n"
"                     file laid out like the device also works (tests,\n"
"                     benchmarks); it is checked every millisecond.\n"
"      --lossy        Lossy-sink format, for logs that may drop or cut\n"
"                     lines: every line prefixed with \"GVISOR_METRICS<TAB>\"\n"
"                     and ended by its Adler-32, a \"Checksum\" column, a\n"
"                     final ADLER32 line over the whole stream; each flush is\n"
"                     one write framed by empty lines, fsync'ed on a file.\n"
"  -h, --help         Show this help and exit.\n"
"  -V, --version      Show the version and exit.\n"
"\n"
"SIGNALS\n"
"  SIGINT, SIGTERM    Write the rows already in the ring, then STATS, and\n"
"                     exit 0 (the collection keeps running in the kernel).\n"
"\n"
"EXIT STATUS\n"
"  0  the collection was written out (or a signal arrived)\n"
"  1  runtime error: device missing or incompatible, write error\n"
"  2  usage error\n"
"\n"
"FILES\n"
"  " KSNAP_DEVICE_PATH "                 the ring (ksnap.ko)\n"
"  " KSNAP_SYSFS_DIR "/enable   start (1) and stop (0) a collection\n"
"\n"
"EXAMPLE\n"
"  modprobe ksnap\n"
"  ksnapd -o /tmp/ksnap.tsv &\n"
"  echo 1 > " KSNAP_SYSFS_DIR "/enable; sleep 10\n"
"  echo 0 > " KSNAP_SYSFS_DIR "/enable; wait\n";

struct options {
	const char *output;		/* NULL: stdout */
	const char *device;
	bool lossy;
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
	enum { OPT_DEVICE = 256, OPT_LOSSY };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "lossy", no_argument, NULL, OPT_LOSSY },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->output = NULL;
	o->device = KSNAP_DEVICE_PATH;
	o->lossy = false;
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
		fprintf(stderr, "ksnapd: %s: ring ABI version %u, this ksnapd "
			"reads version %d: use the ksnapd built with this "
			"ksnap.ko\n", dev, r->found_version,
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

/* Block SIGINT/SIGTERM and receive them through a descriptor. */
static int signals_setup(void)
{
	sigset_t set;
	int fd;

	signal(SIGPIPE, SIG_IGN);	/* EPIPE from write() instead */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct ksnap_ring ring;
	struct ksnap_out out;
	struct ksnap_stream stream;
	struct ksnapd d;
	const char *out_name;
	struct stat st;
	int out_fd, sigfd, ret, status = EXIT_RUNTIME;

	parse_options(argc, argv, &opt);
	out_name = opt.output ? opt.output : "<stdout>";

	sigfd = signals_setup();
	if (sigfd < 0) {
		fprintf(stderr, "ksnapd: signalfd: %s\n", strerror(-sigfd));
		return EXIT_RUNTIME;
	}

	ret = ksnap_ring_open(&ring, opt.device);
	if (ret) {
		ring_error(&ring, opt.device, ret);
		goto err_sigfd;
	}

	if (opt.output) {
		out_fd = ksnap_sys_open(opt.output, O_WRONLY | O_CREAT |
					O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			fprintf(stderr, "ksnapd: %s: %s: check the -o path\n",
				opt.output, strerror(-out_fd));
			goto err_ring;
		}
	} else {
		out_fd = STDOUT_FILENO;
	}
	ret = ksnap_sys_fstat(out_fd, &st);
	if (ret) {
		fprintf(stderr, "ksnapd: %s: fstat: %s\n", out_name,
			strerror(-ret));
		goto err_out_fd;
	}

	ret = ksnap_out_init(&out, out_fd, S_ISREG(st.st_mode), opt.lossy,
			     KSNAP_OUT_DEFAULT_SIZE);
	if (ret) {
		fprintf(stderr, "ksnapd: %s\n", strerror(-ret));
		goto err_out_fd;
	}
	ksnap_stream_init(&stream, &out, opt.lossy);
	ret = ksnapd_init(&d, &ring, &stream, out_name);
	if (ret) {
		fprintf(stderr, "ksnapd: %s\n", strerror(-ret));
		goto err_out;
	}

	ret = ksnapd_run(&d, sigfd);
	if (ret) {
		fprintf(stderr, "ksnapd: %s\n", d.err);
		if (ret == -ENOSPC || ret == -EDQUOT)
			fprintf(stderr, "ksnapd: free some space or write "
				"elsewhere with -o\n");
	} else {
		status = 0;
	}

	ksnapd_fini(&d);
err_out:
	ksnap_out_fini(&out);
err_out_fd:
	if (opt.output) {
		ret = ksnap_sys_close(out_fd);
		if (ret && !status) {
			fprintf(stderr, "ksnapd: %s: close: %s\n", out_name,
				strerror(-ret));
			status = EXIT_RUNTIME;
		}
	}
err_ring:
	ksnap_ring_close(&ring);
err_sigfd:
	close(sigfd);
	return status;
}

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

#include "msg.h"
#include "catalogue.h"
#include "ctlsock.h"
#include "daemon.h"
#include "devwait.h"
#include "flightopt.h"
#include "identity.h"
#include "kmodload.h"
#include "output.h"
#include "ring.h"
#include "ringsize.h"
#include "rules.h"
#include "slice.h"
#include "sys.h"
#include "web.h"

#ifndef KSNAP_VERSION
#define KSNAP_VERSION "0.1"
#endif

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

/* usage_text: ksnapd.8 as --help prints it (gen-usage). */
#include "ksnapd-usage.h"

struct options {
	const char *output;		/* NULL: stdout */
	bool output_given;		/* -o, even "-o -" */
	struct ksnapd_retain_limits retain;	/* --output-max-size, -age */
	bool retain_given;
	const char *device;
	bool lossy;
	bool once;
	bool no_wait;
	bool load;
	const char *load_params;	/* NULL: none */
	bool start;
	bool started;		/* --start done before the ring was opened */
	bool stop_on_exit;

	/* The flight recorder (flight.h). */
	struct rules rules;		/* --trigger, --rules, in order */
	const char *dump_dir;
	bool check_rules;
	unsigned int max_dumps;
	int64_t history_ns;		/* --history */
	bool history_set;
	const char *slice;		/* --slice BEGIN[,END] */
	int64_t slice_begin, slice_end;
	const char *control;		/* NULL: none */
	bool list_metrics;		/* --list-metrics[=GROUP] */
	unsigned int list_groups;	/* its groups (catalogue_group()) */
	bool header;			/* --header */
	const char *metrics;		/* --metrics LIST, or NULL */
	char load_buf[512];		/* PARAMS with ring_kb= (--history) */

	/* The OpenMetrics endpoint (web.h). */
	const char *web_listen;		/* NULL: none; "": the default */
	int64_t web_window_ns;
	unsigned int web_max_requests;	/* 0: the default */
	const char *web_telemetry_path;	/* NULL: /metrics */
	const char *web_metrics;	/* NULL: all */
	const char *web_histograms;	/* --web.histogram, or NULL */
	bool web_peak_times;		/* --web.peak-times */
	struct om_hist_spec web_hist_spec;
	const char *textfile;		/* --textfile DIR, or NULL */
	int64_t textfile_interval_ns;
	const char *web_config;		/* --web.config.file, or NULL */
	bool web_systemd;		/* --web.systemd-socket */
	/* --web.identity-root: where the node's files are (identity.h);
	 * NULL: no lookups. */
	const char *identity_root;
	bool identity_root_set;
};

/* --history's default: Sentry's 30 s. */
#define DEFAULT_HISTORY_NS	(30LL * 1000000000LL)

#define usage_error(fmt, arg) \
	ksnap_usage_error("ksnapd", EXIT_USAGE, fmt, arg)

enum { OPT_DEVICE = 256, OPT_LOSSY, OPT_ONCE, OPT_NO_WAIT, OPT_LOAD,
       OPT_START, OPT_STOP_ON_EXIT, OPT_TRIGGER, OPT_RULES, OPT_DUMP_DIR,
       OPT_CHECK_RULES, OPT_MAX_DUMPS, OPT_HISTORY, OPT_SLICE, OPT_CONTROL,
       OPT_LIST_METRICS, OPT_HEADER, OPT_METRICS, OPT_WEB_LISTEN,
       OPT_WEB_WINDOW, OPT_WEB_METRICS, OPT_TEXTFILE,
       OPT_TEXTFILE_INTERVAL, OPT_WEB_HISTOGRAM, OPT_WEB_HIST_BUCKETS,
       OPT_WEB_PEAK_TIMES,
       OPT_WEB_CONFIG, OPT_WEB_SYSTEMD, OPT_WEB_MAX_REQUESTS,
       OPT_OUTPUT_MAX_SIZE, OPT_OUTPUT_MAX_AGE, OPT_WEB_IDENTITY_ROOT,
       OPT_WEB_TELEMETRY_PATH };

/* The flight recorder's options (set_option() has the others). */
static bool set_flight_option(int c, struct options *o)
{
	char from[32];
	char *end;

	switch (c) {
	case OPT_TRIGGER:
		snprintf(from, sizeof(from), "--trigger %u", o->rules.n + 1);
		if (rules_add(&o->rules, optarg, from, stderr))
			exit(EXIT_USAGE);
		return true;
	case OPT_RULES:
		if (rules_load(&o->rules, optarg, stderr))
			exit(EXIT_USAGE);
		return true;
	case OPT_DUMP_DIR:
		if (!*optarg)
			usage_error("--dump-dir: empty path", "");
		o->dump_dir = optarg;
		return true;
	case OPT_CHECK_RULES:
		o->check_rules = true;
		return true;
	case OPT_MAX_DUMPS:
		o->max_dumps = (unsigned int)strtoul(optarg, &end, 10);
		if (!*optarg || *end || *optarg == '-')
			usage_error("--max-dumps: '%s' is not a number", optarg);
		return true;
	case OPT_HISTORY:
		if (slice_duration(optarg, &o->history_ns) ||
		    o->history_ns < 0)
			usage_error("--history: '%s' is not a duration (30s, "
				    "2m, 0 for none)", optarg);
		o->history_set = true;
		return true;
	case OPT_SLICE:
		if (slice_parse(optarg, &o->slice_begin, &o->slice_end))
			usage_error("--slice: '%s': expected BEGIN[,END], "
				    "durations around now (-30s, -10s,+5s)",
				    optarg);
		o->slice = optarg;
		return true;
	case OPT_CONTROL:
		o->control = strcmp(optarg, "none") ? optarg : NULL;
		return true;
	}
	return false;
}

/* The OpenMetrics endpoint's options. */
static bool set_web_option(int c, char **argv, struct options *o)
{
	char addr[64];
	unsigned int port;

	switch (c) {
	case OPT_WEB_LISTEN:
		o->web_listen = web_listen_arg(optarg, argv, &optind);
		if (web_parse_listen(o->web_listen, addr, sizeof(addr), &port))
			usage_error("--web.listen-address: '%s': expected "
				    "ADDR:PORT, [ADDR6]:PORT or :PORT",
				    o->web_listen);
		return true;
	case OPT_WEB_WINDOW:
		if (slice_duration(optarg, &o->web_window_ns) ||
		    o->web_window_ns < 1000000000LL)
			usage_error("--web.window: '%s' is not a duration of "
				    "1s or more (60s, 5m)", optarg);
		return true;
	case OPT_WEB_MAX_REQUESTS: {
		unsigned long n;
		char *end;

		errno = 0;
		n = strtoul(optarg, &end, 10);
		if (!*optarg || *end || errno || optarg[0] == '-' ||
		    n >= WEB_NO_MAX_REQUESTS)
			usage_error("--web.max-requests: '%s' is not a number "
				    "(0: no bound)", optarg);
		o->web_max_requests = n ? (unsigned int)n :
				      WEB_NO_MAX_REQUESTS;
		return true;
	}
	case OPT_WEB_METRICS:
		if (!*optarg)
			usage_error("--web.metrics: empty list", "");
		o->web_metrics = optarg;
		return true;
	case OPT_WEB_HISTOGRAM:
		if (!*optarg)
			usage_error("--web.histogram: empty list", "");
		o->web_histograms = optarg;
		return true;
	case OPT_WEB_PEAK_TIMES:
		o->web_peak_times = true;
		return true;
	case OPT_WEB_HIST_BUCKETS: {
		struct om_hist_spec *h = &o->web_hist_spec;
		char end;

		if (sscanf(optarg, "%lf,%lf,%u%c", &h->start, &h->factor,
			   &h->count, &end) != 3 || !(h->start > 0) ||
		    !(h->factor > 1) || h->count < 1 ||
		    h->count > OM_HIST_MAX)
			usage_error("--web.histogram-buckets: '%s': expected "
				    "START,FACTOR,COUNT (START > 0, FACTOR > 1,"
				    " COUNT 1 to 64)", optarg);
		return true;
	}
	case OPT_TEXTFILE:
		if (!*optarg)
			usage_error("--textfile: empty directory", "");
		o->textfile = optarg;
		return true;
	case OPT_TEXTFILE_INTERVAL:
		if (slice_duration(optarg, &o->textfile_interval_ns) ||
		    o->textfile_interval_ns < 1000000000LL)
			usage_error("--textfile.interval: '%s' is not a "
				    "duration of 1s or more (5s, 1m)", optarg);
		return true;
	case OPT_WEB_CONFIG:
		o->web_config = optarg;
		return true;
	case OPT_WEB_SYSTEMD:
		o->web_systemd = true;
		return true;
	case OPT_WEB_TELEMETRY_PATH:
		if (!web_telemetry_path_ok(optarg))
			usage_error("--web.telemetry-path: '%s': expected / "
				    "then letters, digits and /._-~ (not / "
				    "alone: the landing page)", optarg);
		o->web_telemetry_path = optarg;
		return true;
	case OPT_WEB_IDENTITY_ROOT:
		if (!*optarg)
			usage_error("--web.identity-root: empty path", "");
		if (strcmp(optarg, "none") && *optarg != '/')
			usage_error("--web.identity-root: '%s': expected an "
				    "absolute path or none", optarg);
		o->identity_root = strcmp(optarg, "none") ? optarg : NULL;
		o->identity_root_set = true;
		return true;
	}
	return false;
}

/* --web.config.file read and checked now, before ksnapd waits for the
 * device: a wrong one is an error at once (the endpoint reads it again). */
static void check_web_config(const char *path)
{
	struct webconf c;
	char err[512];

	if (webconf_load(path, &c, err, sizeof(err))) {
		fprintf(stderr, "ksnapd: %s\n", err);
		exit(EXIT_USAGE);
	}
	webconf_free(&c);
}

/* One option (getopt_long()'s c, with optarg) into o; exits on -h, -V. */
static void set_option(int c, char **argv, struct options *o)
{
	if (set_flight_option(c, o) || set_web_option(c, argv, o))
		return;
	switch (c) {
	case 'o':
		if (!*optarg)
			usage_error("-o: empty file name", "");
		o->output = strcmp(optarg, "-") ? optarg : NULL;
		o->output_given = true;
		break;
	case OPT_OUTPUT_MAX_SIZE:
		if (ksnapd_parse_size(optarg, &o->retain.max_size))
			usage_error("--output-max-size: '%s' is not a size "
				    "(4G, 512M, 100k, bytes; 0 for no limit)",
				    optarg);
		o->retain_given = true;
		break;
	case OPT_OUTPUT_MAX_AGE:
		if (ksnapd_parse_age(optarg, &o->retain.max_age_ns))
			usage_error("--output-max-age: '%s' is not an age (7d, "
				    "12h, 30m, 90s; 0 for no limit)", optarg);
		o->retain_given = true;
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
	case OPT_LIST_METRICS:
		o->list_metrics = true;
		o->list_groups = optarg ? catalogue_group(optarg) :
					  CATALOGUE_GROUP_ALL;
		if (!o->list_groups)
			usage_error("--list-metrics: no group '%s' (all, "
				    "vmstat, cpu, container, pod)", optarg);
		break;
	case OPT_HEADER:
		o->header = true;
		break;
	case OPT_METRICS:
		if (!*optarg)
			usage_error("--metrics: empty list", "");
		o->metrics = optarg;
		break;
	case 'h':
		fputs(usage_text, stdout);
		exit(0);
	case 'V':
		printf("ksnapd %s (ring ABI %d)\n", KSNAP_VERSION,
		       KSNAP_ABI_VERSION);
		exit(0);
	case ':':
		usage_error("option '%s' needs an argument", argv[optind - 1]);
		break;
	default:
		usage_error("unknown option '%s'", argv[optind - 1]);
	}
}

/* --history with --load: ring_kb= for it, added to PARAMS. */
static void history_ring_kb(struct options *o)
{
	long kb = ringsize_kb((uint64_t)o->history_ns, o->load_params);

	if (kb == -ERANGE)
		usage_error("--history %s: the module's ring would need more "
			    "than 262144 KiB at this period and column count",
			    "");
	if (kb < 0)
		usage_error("--load: bad period_us= in '%s'", o->load_params);
	if (!kb) {
		fprintf(stderr, "ksnapd: --history: ring_kb= given in --load: "
			"kept as it is\n");
		return;
	}
	snprintf(o->load_buf, sizeof(o->load_buf), "%s%sring_kb=%ld",
		 o->load_params ? o->load_params : "",
		 o->load_params ? " " : "", kb);
	o->load_params = o->load_buf;
}

/* What goes with what. */
static void check_options(struct options *o)
{
	if (o->slice && (o->rules.n || o->check_rules || o->load ||
			 o->start || o->once))
		usage_error("--slice: %s", "it goes with -o, --lossy, --device "
			    "and --control only");
	if (o->list_metrics && (o->slice || o->rules.n || o->load ||
				o->start || o->once || o->metrics))
		usage_error("--list-metrics: %s", "it goes with --device and "
			    "--header only");
	if (o->retain_given && !o->output)
		usage_error("--output-max-size, --output-max-age: %s", "they "
			    "go with -o FILE");
	if (o->retain_given && o->output && strchr(o->output, '/') &&
	    memchr(o->output, '%', (size_t)(strrchr(o->output, '/') -
					     o->output)))
		usage_error("--output-max-size, --output-max-age: '%s': not "
			    "with %%g in the directory (one directory a "
			    "collection)", o->output);
	if (o->header && !o->list_metrics)
		usage_error("--header: %s", "it goes with --list-metrics");
	if (o->metrics && o->slice)
		usage_error("--metrics: %s", "not with --slice");
	if (o->web_listen && o->web_systemd)
		usage_error("--web.systemd-socket: %s", "not with "
			    "--web.listen-address (systemd's socket is the "
			    "address)");
	if (o->web_systemd)
		o->web_listen = "";
	if ((o->web_window_ns || o->web_metrics || o->web_histograms ||
	     o->web_peak_times) && !o->web_listen && !o->textfile)
		usage_error("--web.window, --web.metrics, --web.histogram, "
			    "--web.peak-times: %s",
			    "they go with --web.listen-address, "
			    "--web.systemd-socket or --textfile");
	if (o->web_max_requests && !o->web_listen)
		usage_error("--web.max-requests: %s", "it goes with "
			    "--web.listen-address or --web.systemd-socket");
	if (o->web_telemetry_path && !o->web_listen)
		usage_error("--web.telemetry-path: %s", "it goes with "
			    "--web.listen-address or --web.systemd-socket");
	if (o->web_config && !o->web_listen)
		usage_error("--web.config.file: %s", "it goes with "
			    "--web.listen-address or --web.systemd-socket");
	if (o->web_config)
		check_web_config(o->web_config);
	if (o->web_hist_spec.count && !o->web_histograms)
		usage_error("--web.histogram-buckets: %s", "it goes with "
			    "--web.histogram");
	if (o->textfile_interval_ns && !o->textfile)
		usage_error("--textfile.interval: %s", "it goes with "
			    "--textfile");
	if ((o->web_listen || o->textfile) &&
	    (o->slice || o->list_metrics || o->check_rules))
		usage_error("--web.listen-address, --textfile: %s", "not with "
			    "--slice, --list-metrics or --check-rules");
	if (o->check_rules && !o->rules.n)
		usage_error("--check-rules: no rules (--trigger, --rules)", "");
	if (o->rules.n && !o->dump_dir && !o->check_rules)
		usage_error("--trigger, --rules: the dumps need --dump-dir DIR",
			    "");
	if (o->history_set && o->load && o->history_ns)
		history_ring_kb(o);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "output-max-size", required_argument, NULL,
		  OPT_OUTPUT_MAX_SIZE },
		{ "output-max-age", required_argument, NULL,
		  OPT_OUTPUT_MAX_AGE },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "lossy", no_argument, NULL, OPT_LOSSY },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
		{ "load", optional_argument, NULL, OPT_LOAD },
		{ "start", no_argument, NULL, OPT_START },
		{ "stop-on-exit", no_argument, NULL, OPT_STOP_ON_EXIT },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "dump-dir", required_argument, NULL, OPT_DUMP_DIR },
		{ "check-rules", no_argument, NULL, OPT_CHECK_RULES },
		{ "max-dumps", required_argument, NULL, OPT_MAX_DUMPS },
		{ "history", required_argument, NULL, OPT_HISTORY },
		{ "slice", required_argument, NULL, OPT_SLICE },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "list-metrics", optional_argument, NULL, OPT_LIST_METRICS },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "web.listen-address", optional_argument, NULL,
		  OPT_WEB_LISTEN },
		{ "web.window", required_argument, NULL, OPT_WEB_WINDOW },
		{ "web.max-requests", required_argument, NULL,
		  OPT_WEB_MAX_REQUESTS },
		{ "web.metrics", required_argument, NULL, OPT_WEB_METRICS },
		{ "web.histogram", required_argument, NULL,
		  OPT_WEB_HISTOGRAM },
		{ "web.peak-times", no_argument, NULL, OPT_WEB_PEAK_TIMES },
		{ "web.histogram-buckets", required_argument, NULL,
		  OPT_WEB_HIST_BUCKETS },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "textfile.interval", required_argument, NULL,
		  OPT_TEXTFILE_INTERVAL },
		{ "web.config.file", required_argument, NULL,
		  OPT_WEB_CONFIG },
		{ "web.systemd-socket", no_argument, NULL, OPT_WEB_SYSTEMD },
		{ "web.telemetry-path", required_argument, NULL,
		  OPT_WEB_TELEMETRY_PATH },
		{ "web.identity-root", required_argument, NULL,
		  OPT_WEB_IDENTITY_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->device = KSNAP_DEVICE_PATH;
	o->control = KSNAPD_CONTROL_PATH;
	o->history_ns = DEFAULT_HISTORY_NS;
	o->retain.max_size = KSNAPD_RETAIN_MAX_SIZE;
	o->retain.max_age_ns = KSNAPD_RETAIN_MAX_AGE_NS;
	o->identity_root = "/";
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:hV", longopts, NULL)) != -1)
		set_option(c, argv, o);
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	check_options(o);
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
			"from version %u on), this ksnapd reads versions %d "
			"to %d: use the ksnapd built with this ksnap.ko\n",
			dev, r->found_version, r->found_version >= 2 ?
			r->found_compat : r->found_version,
			KSNAP_ABI_READS_FROM, KSNAP_ABI_VERSION);
		break;
	case -EBUSY:
		fprintf(stderr, "ksnapd: %s: %s: another reader holds it (the "
			"packaged service ksnapd.service, or another "
			"ksnapd); without --no-wait ksnapd waits for it\n",
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

/*
 * Whether the cgroups attribute holds a pattern ('*').  The module expands
 * patterns again at each start, and while a reader holds the device it
 * keeps the record size the reader mapped: a start that finds more
 * matches than those records hold is refused.  So with patterns, --start
 * starts before the ring is opened, and ksnapd reads the collection from
 * its first record as it does for one already running; once the device is
 * free (start_when_free()), not to start another reader's collection.
 */
static bool cgroups_have_patterns(void)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = ksnap_sys_open(KSNAP_SYSFS_DIR "/cgroups", O_RDONLY | O_CLOEXEC,
			    0);
	if (fd < 0)
		return false;
	n = ksnap_sys_read(fd, buf, sizeof(buf) - 1);
	ksnap_sys_close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strchr(buf, '*') != NULL;
}

/*
 * --start with patterns: wait until no other reader holds the device (as
 * ksnapd_open_ring() waits), let it go, and start.  Another reader may
 * take the device between the two: the open after this waits for it
 * again.  Returns 0, -EINTR when stopped while waiting, or -errno (said).
 */
static int start_when_free(const struct options *opt, int sigfd)
{
	struct ksnap_ring ring;
	int ret;

	ret = ksnapd_open_ring(&ring, opt->device, !opt->no_wait, sigfd,
			       stderr);
	if (ret == -EINTR)
		return ret;
	if (ret) {
		ring_error(&ring, opt->device, ret);
		return ret;
	}
	ksnap_ring_close(&ring);
	return set_enable(true);
}

/*
 * Start or stop through the open device (KSNAP_IOC_ENABLE), so that no
 * writable /sys is needed; with stop_on_close (--stop-on-exit), the
 * module stops what this starts when ksnapd's session ends, even if it
 * is killed.  A module without the ioctl: the enable attribute.
 */
static int ring_enable(struct ksnap_ring *ring, bool on, bool stop_on_close)
{
	int ret = ksnap_ring_enable(ring, on, stop_on_close);

	if (ret == -EOPNOTSUPP)
		return set_enable(on);
	if (ret)
		fprintf(stderr, "ksnapd: %s the collection: %s\n",
			on ? "starting" : "stopping", strerror(-ret));
	return ret;
}

/* --stop-on-exit, on SIGINT/SIGTERM: stop before the drain (collect.c). */
static int stop_collection(void *arg)
{
	return ring_enable(arg, false, false);
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

/* The catalogue, or an error said on stderr. */
static int read_catalogue(const char *dev, struct catalogue *c)
{
	int ret = catalogue_read(dev, c);

	if (ret == -ENOTTY)
		fprintf(stderr, "ksnapd: %s: this ksnap.ko has no catalogue "
			"ioctl: use the ksnapd built with it\n", dev);
	else if (ret == -ENOENT)
		fprintf(stderr, "ksnapd: %s: %s: is the module loaded? "
			"(modprobe ksnap)\n", dev, strerror(-ret));
	else if (ret)
		fprintf(stderr, "ksnapd: %s: reading the catalogue: %s\n",
			dev, strerror(-ret));
	return ret;
}

/* --list-metrics: the exit status. */
static int list_metrics(const struct options *o)
{
	struct catalogue c;

	if (read_catalogue(o->device, &c))
		return EXIT_RUNTIME;
	if (catalogue_print(&c, o->list_groups, o->header, stdout) < 0 ||
	    fflush(stdout)) {
		fprintf(stderr, "ksnapd: --list-metrics: writing: %s\n",
			strerror(errno));
		catalogue_free(&c);
		return EXIT_RUNTIME;
	}
	catalogue_free(&c);
	return 0;
}

/*
 * --metrics: each name checked against the catalogue (a close one
 * suggested), then the list written to the metrics knob.  Returns 0, or
 * the exit status.
 */
static int set_metrics(const struct options *o)
{
	const char *path = KSNAP_SYSFS_DIR "/metrics";
	struct catalogue c;
	unsigned int bad;
	int fd, ret;

	if (read_catalogue(o->device, &c))
		return EXIT_RUNTIME;
	bad = catalogue_check_list(&c, o->metrics, "--metrics", stderr);
	catalogue_free(&c);
	if (bad)
		return EXIT_USAGE;
	fd = ksnap_sys_open(path, O_WRONLY | O_CLOEXEC, 0);
	if (fd < 0) {
		ret = fd;
	} else {
		ret = ksnap_out_write_full(fd, o->metrics, strlen(o->metrics));
		ksnap_sys_close(fd);
	}
	if (!ret)
		return 0;
	if (ret == -EBUSY)
		fprintf(stderr, "ksnapd: --metrics: %s: %s: stop sampling "
			"first (echo 0 > %s/enable)\n", path, strerror(-ret),
			KSNAP_SYSFS_DIR);
	else if (ret == -EINVAL)
		fprintf(stderr, "ksnapd: --metrics: the module refused '%s': "
			"its reason is in the kernel log (dmesg)\n",
			o->metrics);
	else
		fprintf(stderr, "ksnapd: --metrics: %s: %s\n", path,
			strerror(-ret));
	return EXIT_RUNTIME;
}

/* --load: returns 0, or -errno when ksnapd cannot go on. */
static int load_module(const struct options *o)
{
	char err[256];
	int ret;

	ret = ksnapd_load_module("ksnap", o->load_params, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "ksnapd: --load: %s\n", err);
	if (ret == -EINVAL)
		fprintf(stderr, "ksnapd: --load: the module's reason is in the "
			"kernel log (dmesg); once it is loaded, ksnapd "
			"--list-metrics lists the metrics and --metrics "
			"checks a list\n");
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
		.out_retain = o->retain,
		.log = stderr,
		.stop_collection = o->stop_on_exit ? stop_collection : NULL,
		.stop_arg = ring,
		/* With rules, the stream is written only when -o says so. */
		.no_output = o->rules.n && !o->output_given,
		.rules = o->rules.rule,
		.nr_rules = o->rules.n,
		.dump_dir = o->dump_dir,
		.history_ns = (uint64_t)o->history_ns,
		.max_dumps = o->max_dumps,
		.control_path = o->control,
		.web = o->web_listen != NULL,
		.web_listen = o->web_listen,
		.web_window_ns = (uint64_t)o->web_window_ns,
		.web_max_requests = o->web_max_requests,
		.web_telemetry_path = o->web_telemetry_path,
		.web_metrics = o->web_metrics,
		.web_histograms = o->web_histograms,
		.web_peak_times = o->web_peak_times,
		.web_hist_spec = o->web_hist_spec,
		.web_config = o->web_config,
		.web_systemd = o->web_systemd,
		.version = KSNAP_VERSION,
		.textfile_dir = o->textfile,
		.textfile_interval_ns = (uint64_t)o->textfile_interval_ns,
	};
	struct ksnapd d;
	int ret, status = EXIT_RUNTIME;

	ret = ksnapd_init(&d, ring, &cfg);
	if (ret) {
		fprintf(stderr, "ksnapd: %s\n", d.err);
		return status;
	}
	/*
	 * Started before the open (patterns): a start while running changes
	 * nothing but asks, for --stop-on-exit, that the stop come when this
	 * session ends (a SIGKILLed pod's).
	 */
	if (o->start && (!o->started || o->stop_on_exit) &&
	    ring_enable(ring, true, o->stop_on_exit))
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

/* --slice: its own command. */
static int run_slice(const struct options *o)
{
	const struct slice_opts so = {
		.begin_ns = o->slice_begin,
		.end_ns = o->slice_end,
		.lossy = o->lossy,
		.out_path = o->output,
		.device = o->device,
		.control = o->control ? o->control : KSNAPD_CONTROL_PATH,
		.log = stderr,
	};

	return slice_run(&so);
}

static int check_dump_dir(const char *dir)
{
	int ret = ksnap_sys_access(dir, W_OK | X_OK);

	if (ret)
		fprintf(stderr, "ksnapd: --dump-dir %s: cannot create the dumps "
			"there: %s\n", dir, strerror(-ret));
	return ret;
}

/*
 * The rules against the module's columns, and what is kept.  Returns -1
 * to go on, or the exit status: 2 for a bad rule, 0 after --check-rules.
 */
static int check_flight(const struct options *o, struct ksnap_ring *r)
{
	uint64_t hist = o->control ? (uint64_t)o->history_ns : 0;
	struct rules *rs = (struct rules *)&o->rules;
	int ret;

	flightopt_ring_history(r, o->history_set ? hist : 0, stderr);
	if (!rs->n)
		return -1;
	ret = flightopt_check(r, rs, hist, o->check_rules, stderr);
	if (ret == -EINVAL)
		return EXIT_USAGE;
	if (ret)
		return EXIT_RUNTIME;
	return o->check_rules ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct ksnap_ring ring;
	char err[320];
	int sigfd, ret, status = EXIT_RUNTIME;
	int stop_ret = KSNAPD_STOP_NOT_CALLED;

	parse_options(argc, argv, &opt);
	if (opt.slice)
		return run_slice(&opt);
	if (opt.list_metrics)
		return list_metrics(&opt);
	/* Now, not when the first collection starts. */
	if (opt.output && ksnapd_check_output_dir(opt.output, err,
						  sizeof(err))) {
		fprintf(stderr, "ksnapd: -o %s: %s\n", opt.output, err);
		return EXIT_RUNTIME;
	}
	if (opt.dump_dir && check_dump_dir(opt.dump_dir))
		return EXIT_RUNTIME;
	/* The endpoint's series and every stream's exit records. */
	if (ksnap_identity_root(opt.identity_root)) {
		fprintf(stderr, "ksnapd: --web.identity-root: %s\n",
			strerror(ENAMETOOLONG));
		return EXIT_USAGE;
	}
	sigfd = signals_setup();
	if (sigfd < 0) {
		fprintf(stderr, "ksnapd: signalfd: %s\n", strerror(-sigfd));
		return EXIT_RUNTIME;
	}
	if (opt.load && load_module(&opt))
		goto out_sigfd;
	if (opt.metrics) {
		status = set_metrics(&opt);
		if (status)
			goto out_sigfd;
		status = EXIT_RUNTIME;
	}
	if (opt.start && !strcmp(opt.device, KSNAP_DEVICE_PATH) &&
	    cgroups_have_patterns()) {
		ret = start_when_free(&opt, sigfd);
		if (ret == -EINTR) {
			status = 0;	/* stopped while waiting */
			goto out_sigfd;
		}
		if (ret)
			goto out_sigfd;
		opt.started = true;
	}
	ret = ksnapd_open_ring(&ring, opt.device, !opt.no_wait, sigfd, stderr);
	if (ret == -EINTR) {
		status = 0;		/* stopped while waiting */
		goto out_sigfd;
	}
	if (ret) {
		ring_error(&ring, opt.device, ret);
		goto out_sigfd;
	}

	status = check_flight(&opt, &ring);
	if (status >= 0) {
		ksnap_ring_close(&ring);
		goto out_sigfd;
	}
	status = run(&opt, &ring, sigfd, &stop_ret);
	if (opt.stop_on_exit) {
		/* Not stopped yet (no signal, or no collection then): now. */
		if (stop_ret == KSNAPD_STOP_NOT_CALLED)
			stop_ret = ring_enable(&ring, false, false);
		if (stop_ret && !status)
			status = EXIT_RUNTIME;
	}
	ksnap_ring_close(&ring);
out_sigfd:
	close(sigfd);
	rules_free(&opt.rules);
	return status;
}

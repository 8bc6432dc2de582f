// SPDX-License-Identifier: MIT
/*
 * ksnap-verify: check a profiling-metrics stream (plain or lossy) read
 * from a file or stdin, report what is missing, cut, damaged or duplicated,
 * and optionally write the intact rows as a plain stream.  The work is in
 * ksnap_verify() (verify_report.h), over the stream parser of
 * verify_check.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "ksnap_abi.h"
#include "verify_report.h"
#include "verify_run.h"
/* usage_text: ksnap-verify.1 as --help prints it (gen-usage). */
#include "ksnap-verify-usage.h"

#ifndef KSNAP_VERSION
#define KSNAP_VERSION "0.1"
#endif

struct options {
	const char *input;	/* NULL: stdin */
	const char *tsv;	/* NULL: none; "-": stdout */
	unsigned int stream;
	bool quiet;
};

#define usage_error(fmt, arg) \
	ksnap_usage_error("ksnap-verify", KSNAP_VERIFY_UNUSABLE, fmt, arg)

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_TSV = 256, OPT_STREAM };
	static const struct option longopts[] = {
		{ "tsv", required_argument, NULL, OPT_TSV },
		{ "stream", required_argument, NULL, OPT_STREAM },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long n;
	int c;

	memset(o, 0, sizeof(*o));
	o->stream = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qhV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_TSV:
			if (!*optarg)
				usage_error("--tsv: empty file name", "");
			o->tsv = optarg;
			break;
		case OPT_STREAM:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || n < 1 || n > 1000000)
				usage_error("--stream: '%s' is not a stream "
					    "number (1, 2, ...)", optarg);
			o->stream = (unsigned int)n;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("ksnap-verify %s\n", KSNAP_VERSION);
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
		o->input = argv[optind++];
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (o->input && !strcmp(o->input, "-"))
		o->input = NULL;
}

/* All of fd into a malloc'ed buffer. */
static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap), *nbuf;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			cap *= 2;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

/* The input, whole: FILE or stdin.  Says why not. */
static int read_input(const char *input, const char *in_name, char **buf,
		      size_t *len)
{
	int fd = STDIN_FILENO, ret;

	if (input) {
		fd = open(input, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			fprintf(stderr, "ksnap-verify: %s: %s\n", in_name,
				strerror(-ret));
			return ret;
		}
	}
	ret = read_all(fd, buf, len);
	if (input)
		close(fd);
	if (ret)
		fprintf(stderr, "ksnap-verify: %s: read: %s\n", in_name,
			strerror(-ret));
	return ret;
}

/* --tsv FILE, or "-": stdout, the report then going to stderr. */
static int open_tsv(const char *name, FILE **tsv, FILE **rep)
{
	if (!strcmp(name, "-")) {
		*tsv = stdout;
		*rep = stderr;
		return 0;
	}
	*tsv = fopen(name, "we");
	if (!*tsv) {
		int ret = -errno;

		fprintf(stderr, "ksnap-verify: %s: %s\n", name,
			strerror(-ret));
		return ret;
	}
	return 0;
}

/* Write errors of the TSV show when it is closed or flushed. */
static int close_tsv(const char *name, FILE *tsv)
{
	if (tsv && tsv != stdout && fclose(tsv)) {
		fprintf(stderr, "ksnap-verify: %s: %s\n", name,
			strerror(errno));
		return -EIO;
	}
	if (tsv == stdout && fflush(stdout)) {
		fprintf(stderr, "ksnap-verify: <stdout>: %s\n",
			strerror(errno));
		return -EIO;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ksnap_verify_opts vo = { 0 };
	struct ksnap_verify_result res;
	struct options opt;
	const char *in_name;
	FILE *tsv = NULL, *rep = stdout;
	char *buf = NULL;
	size_t len = 0;
	int status;

	parse_options(argc, argv, &opt);
	in_name = opt.input ? opt.input : "<stdin>";
	if (read_input(opt.input, in_name, &buf, &len))
		return KSNAP_VERIFY_UNUSABLE;
	if (opt.tsv) {
		if (open_tsv(opt.tsv, &tsv, &rep)) {
			free(buf);
			return KSNAP_VERIFY_UNUSABLE;
		}
		vo.tsv_stream = opt.stream;
	}
	vo.quiet = opt.quiet;

	status = ksnap_verify(buf, len, &vo, rep, tsv, &res);
	ksnap_report_summary(rep, in_name, status, &res);
	free(buf);
	if (close_tsv(opt.tsv, tsv))
		return KSNAP_VERIFY_UNUSABLE;
	return status;
}

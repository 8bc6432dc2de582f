// SPDX-License-Identifier: MIT
/*
 * ksnap-verify: check a profiling-metrics stream (plain or lossy) read
 * from a file or stdin, report what is missing, cut, damaged or duplicated,
 * and optionally write the intact rows as a plain stream.  The work is in
 * ksnap_verify() (verify_report.h), over the stream parser of
 * verify_check.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
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

#define MAX_INPUTS	4096

struct options {
	const char **input;	/* FILEs; "-" or none: stdin */
	unsigned int nr_inputs;
	const char *tsv;	/* NULL: none; "-": stdout */
	unsigned int stream;
	bool quiet;
	bool single;		/* no FILE.2, FILE.3, ... looked for */
};

#define usage_error(fmt, arg) \
	ksnap_usage_error("ksnap-verify", KSNAP_VERIFY_UNUSABLE, fmt, arg)

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_TSV = 256, OPT_STREAM, OPT_SINGLE };
	static const struct option longopts[] = {
		{ "single", no_argument, NULL, OPT_SINGLE },
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
		case OPT_SINGLE:
			o->single = true;
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
	if (argc - optind > MAX_INPUTS)
		usage_error("more than 4096 files", "");
	o->input = (const char **)argv + optind;
	o->nr_inputs = (unsigned int)(argc - optind);
	if (o->nr_inputs > 1)
		o->single = true;	/* the sequence is the one given */
	for (c = 0; c < (int)o->nr_inputs; c++)
		if (!strcmp(o->input[c], "-") && o->nr_inputs > 1)
			usage_error("'-' (standard input) only as the one "
				    "input", "");
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

/* N of "base.N" (N from 2, no leading zero), or 0. */
static unsigned long later_number(const char *entry, const char *base)
{
	size_t n = strlen(base);
	unsigned long v;
	char *end;

	if (strncmp(entry, base, n) || entry[n] != '.' ||
	    entry[n + 1] < '1' || entry[n + 1] > '9')
		return 0;
	errno = 0;
	v = strtoul(entry + n + 1, &end, 10);
	return errno || *end || v < 2 || v > MAX_INPUTS ? 0 : v;
}

/*
 * The first START_TIME of the file @name (within its first 64 KiB, where
 * a stream's header is), or 0.
 */
static unsigned long long start_time_of(const char *name)
{
	unsigned long long t = 0;
	char line[256];
	unsigned int n = 0;
	FILE *f = fopen(name, "r");

	if (!f)
		return 0;
	while (n < 64 * 1024 && fgets(line, sizeof(line), f)) {
		n += strlen(line);
		if (!strncmp(line, "START_TIME\t", 11)) {
			t = strtoull(line + 11, NULL, 10);
			break;
		}
	}
	fclose(f);
	return t;
}

/*
 * FILE, then FILE.2, FILE.3, ... as they exist (ksnapd's later streams
 * and collections, docs/format.md "Sequences"), into names[] (each
 * malloc'ed); a number missing below the highest found is said and
 * counted in *holes.  A FILE.N that starts before FILE does (its
 * START_TIME) is from another run: said, and not part of the sequence.
 * When FILE is not there but FILE.N are, the first of them begins the
 * sequence (ksnapd's retention removes the oldest files first): said, and
 * no hole.  Returns how many, or -errno.
 */
static int find_sequence(const char *file, char **names, unsigned int max,
			 unsigned int *holes)
{
	const char *slash = strrchr(file, '/'), *base = slash ? slash + 1 : file;
	unsigned long v, top = 1, first;
	unsigned long long t, t0;
	unsigned char *have;
	struct dirent *e;
	char dir[4096], head[4096];
	unsigned int n = 0;
	DIR *d;

	*holes = 0;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file) + 1 : 1,
		 slash ? file : ".");
	have = calloc(max + 1, 1);
	if (!have)
		return -ENOMEM;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		v = later_number(e->d_name, base);
		if (v && v <= max) {
			have[v] = 1;
			if (v > top)
				top = v;
		}
	}
	if (d)
		closedir(d);
	first = 1;
	if (access(file, F_OK) && errno == ENOENT) {
		for (v = 2; v <= max && !have[v]; v++)
			;
		if (v <= max) {
			first = v;
			fprintf(stderr, "ksnap-verify: %s: not there: checking "
				"from %s.%lu, the first file of the sequence "
				"there (earlier ones removed, as ksnapd's "
				"--output-max-size and --output-max-age "
				"do)\n", file, file, first);
		}
	}
	if (first > 1)
		snprintf(head, sizeof(head), "%s.%lu", file, first);
	else
		snprintf(head, sizeof(head), "%s", file);
	t0 = start_time_of(head);
	top = 1;
	for (v = first + 1; v <= max && t0; v++) {
		if (!have[v])
			continue;
		snprintf(dir, sizeof(dir), "%s.%lu", file, v);
		t = start_time_of(dir);
		if (t && t < t0) {
			fprintf(stderr, "ksnap-verify: %s: starts before %s "
				"(START_TIME %llu < %llu): left by an earlier "
				"run, not checked\n", dir, head, t, t0);
			have[v] = 0;
		}
	}
	for (v = first + 1; v <= max; v++)
		if (have[v])
			top = v;
	names[n++] = strdup(head);
	for (v = first + 1; v <= top; v++) {
		if (!have[v]) {
			fprintf(stderr, "ksnap-verify: %s.%lu: missing "
				"(%s.%lu exists)\n", file, v, file, top);
			(*holes)++;
			continue;
		}
		names[n] = malloc(strlen(file) + 24);
		if (names[n])
			sprintf(names[n++], "%s.%lu", file, v);
	}
	free(have);
	return (int)n;
}

/*
 * One input, checked: its report (and, of one of several, its summary
 * line) into *res; returns its status, -1 when --tsv cannot be opened,
 * -2 when the input cannot be read (said).
 * The first opens --tsv (after its read: the output may replace the
 * input) and writes its stream there.
 */
static int verify_one(const struct options *opt, const char *input,
		      bool first, bool summary, FILE **rep, FILE **tsv,
		      struct ksv_seq *seq, struct ksnap_verify_result *res)
{
	struct ksnap_verify_opts vo = { .quiet = opt->quiet };
	const char *in_name = input ? input : "<stdin>";
	char *buf = NULL;
	size_t len = 0;
	int status;

	memset(res, 0, sizeof(*res));
	if (read_input(input, in_name, &buf, &len))
		return -2;
	if (first && opt->tsv) {
		if (open_tsv(opt->tsv, tsv, rep)) {
			free(buf);
			return -1;
		}
		vo.tsv_stream = opt->stream;
	}
	status = ksnap_verify_seq(buf, len, &vo, *rep, first ? *tsv : NULL,
				  res, seq, in_name);
	if (summary)
		ksnap_report_summary(*rep, in_name, status, res);
	free(buf);
	return status;
}

/* The counts of several inputs, for the last line. */
static void add_up(struct ksnap_verify_result *t,
		   const struct ksnap_verify_result *r)
{
	t->streams += r->streams;
	t->lines += r->lines;
	t->foreign += r->foreign;
	t->rows += r->rows;
	t->rows_bad += r->rows_bad;
	t->rows_missing += r->rows_missing;
	t->dup_lines += r->dup_lines;
	t->bad_lines += r->bad_lines;
	t->missing_lines += r->missing_lines;
}

/* The sequence's checks and verdict line; returns its problems. */
static unsigned int check_sequence(FILE *rep, const struct ksv_seq *seq,
				   unsigned int files, unsigned int holes)
{
	struct ksv_seq_result sr;

	ksnap_say(rep, false, "\n");
	ksv_seq_check(seq, rep, &sr);
	sr.problems += holes;
	fprintf(rep, "sequence: %s: %u file%s, %u collection%s of several "
		"streams, %u boundar%s checked, %u problem%s\n",
		sr.problems ? "broken" : "intact", files, files == 1 ? "" : "s",
		sr.collections, sr.collections == 1 ? "" : "s", sr.boundaries,
		sr.boundaries == 1 ? "y" : "ies", sr.problems,
		sr.problems == 1 ? "" : "s");
	return sr.problems;
}

static void free_names(char **names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int main(int argc, char **argv)
{
	struct ksnap_verify_result res, total = { 0 };
	struct options opt;
	FILE *tsv = NULL, *rep = stdout;
	unsigned int i, n, holes = 0;
	struct ksv_seq seq;
	char **names, label[2 * PATH_MAX + 32];
	int status = 0, st;
	bool unread = false;

	parse_options(argc, argv, &opt);
	names = calloc(MAX_INPUTS + 1, sizeof(*names));
	if (!names) {
		fprintf(stderr, "ksnap-verify: %s\n", strerror(ENOMEM));
		return KSNAP_VERIFY_UNUSABLE;
	}
	n = opt.nr_inputs;
	if (!n || !strcmp(opt.input[0], "-")) {
		n = 1;	/* stdin: names[0] NULL */
	} else if (!opt.single) {
		st = find_sequence(opt.input[0], names, MAX_INPUTS, &holes);
		if (st < 0) {
			fprintf(stderr, "ksnap-verify: %s\n", strerror(-st));
			free(names);
			return KSNAP_VERIFY_UNUSABLE;
		}
		n = (unsigned int)st;
	} else {
		for (i = 0; i < n; i++)
			names[i] = strdup(opt.input[i]);
	}
	ksv_seq_init(&seq);
	for (i = 0; i < n; i++) {
		if (i)
			ksnap_say(rep, false, "\n");
		st = verify_one(&opt, names[i], !i, n > 1, &rep, &tsv, &seq,
				&res);
		if (st == -1) {
			/* --tsv could not be opened: said. */
			free_names(names, n);
			ksv_seq_fini(&seq);
			return KSNAP_VERIFY_UNUSABLE;
		}
		if (st == -2) {
			unread = true;
			st = KSNAP_VERIFY_UNUSABLE;
		}
		if (st > status)
			status = st;
		add_up(&total, &res);
	}
	/* The last line sums up every input, as with one. */
	if ((seq.n > 1 || holes) && check_sequence(rep, &seq, n, holes) &&
	    status < KSNAP_VERIFY_DAMAGED)
		status = KSNAP_VERIFY_DAMAGED;
	if (n == 1 && !unread) {
		ksnap_report_summary(rep, names[0] ? names[0] : "<stdin>",
				     status, &res);
	} else if (n > 1) {
		snprintf(label, sizeof(label), "%.*s to %.*s (%u files)",
			 PATH_MAX, names[0], PATH_MAX, names[n - 1], n);
		ksnap_report_summary(rep, label, status, &total);
	}
	free_names(names, n);
	ksv_seq_fini(&seq);
	if (close_tsv(opt.tsv, tsv))
		return KSNAP_VERIFY_UNUSABLE;
	return status;
}

// SPDX-License-Identifier: MIT
/*
 * ksnap-plot: one self-contained HTML page of charts from any stream
 * ksnap-verify reads (ksnap-plot(1)).  Each input is mapped (standard
 * input or a pipe first spooled to an unlinked temporary file), walked
 * once by the shared parser in streaming mode (plot_read.c), its rows
 * reduced as they come (plot_reduce.c); then the reduced data is fitted
 * to the page's size cap and the page written (plot_page.c) with the
 * chart library inlined from where its package installed it.
 */
#define _GNU_SOURCE	/* O_TMPFILE, strcasestr */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "plot_events.h"
#include "plot_model.h"
#include "plot_names.h"
#include "plot_page.h"
#include "plot_read.h"
/* usage_text: ksnap-plot.1 as --help prints it (gen-usage). */
#include "ksnap-plot-usage.h"

#ifndef KSNAP_VERSION
#define KSNAP_VERSION "0.1"
#endif

#define EXIT_NOPAGE	2
#define DYGRAPHS_DIR	"/usr/share/javascript/dygraphs"
#define DYGRAPHS_PKG	"libjs-dygraphs"

#define usage_error(fmt, arg) \
	ksnap_usage_error("ksnap-plot", EXIT_NOPAGE, fmt, arg)

/* "10M", "512k", "1048576": bytes. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		usage_error("--max-size: '%s' is not a size", s);
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (*end == 'g' || *end == 'G')
		v <<= 30, end++;
	if (*end || v < (1 << 20))
		usage_error("--max-size: '%s' is not a size of 1M or more", s);
	return v;
}

static uint32_t parse_buckets(const char *s)
{
	char *end;
	long n;
	uint32_t p = 64;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n < 64 || n > 65536)
		usage_error("--buckets: '%s' is not a number from 64 to 65536",
			    s);
	while (p * 2 <= (uint32_t)n)
		p *= 2;
	return p;
}

static int parse_options(int argc, char **argv, struct plot_opts *o,
			 const char **events)
{
	enum { OPT_EVENTS = 256, OPT_DYGRAPHS, OPT_TITLE, OPT_MAX_SIZE,
	       OPT_BUCKETS };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "events", required_argument, NULL, OPT_EVENTS },
		{ "dygraphs", required_argument, NULL, OPT_DYGRAPHS },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "buckets", required_argument, NULL, OPT_BUCKETS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->dygraphs = DYGRAPHS_DIR;
	o->max_size = 10 << 20;
	o->buckets = 4096;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				usage_error("-o: empty file name%s", "");
			o->out = optarg;
			break;
		case OPT_EVENTS:
			*events = optarg;
			break;
		case OPT_DYGRAPHS:
			o->dygraphs = optarg;
			break;
		case OPT_TITLE:
			o->title = optarg;
			break;
		case OPT_MAX_SIZE:
			o->max_size = parse_size(optarg);
			break;
		case OPT_BUCKETS:
			o->buckets = parse_buckets(optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("ksnap-plot %s\n", KSNAP_VERSION);
			exit(0);
		case ':':
			usage_error("option '%s' needs an argument",
				    argv[optind - 1]);
			break;
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!o->out)
		usage_error("no output file: give -o FILE (e.g. -o "
			    "report.html)%s", "");
	return optind;
}

/* --- the library ----------------------------------------------------- */

struct text {
	char *p;
	size_t len;
};

static int read_text(const char *path, struct text *t)
{
	FILE *f = fopen(path, "re");
	size_t cap = 1 << 16, len = 0, n;
	char *buf, *nbuf;
	int ret = 0;

	t->len = 0;
	t->p = NULL;
	if (!f)
		return -errno;
	buf = malloc(cap + 1);
	while (buf) {
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len < cap)
			break;
		cap *= 2;
		nbuf = realloc(buf, cap + 1);
		if (!nbuf)
			free(buf);
		buf = nbuf;
	}
	if (!buf) {
		ret = -ENOMEM;
	} else if (ferror(f)) {
		free(buf);
		ret = -EIO;
	} else {
		buf[len] = '\0';
		t->p = buf;
		t->len = len;
	}
	fclose(f);
	return ret;
}

/* No source-map comment: it names a file beside the page, which a
 * browser's developer tools would then ask for. */
static void drop_map(struct text *t, const char *map)
{
	char *m = strstr(t->p, map);

	if (m) {
		*m = '\0';
		t->len = (size_t)(m - t->p);
	}
}

static int load_library(const char *dir, struct text *js, struct text *css)
{
	static const char *const files[] = { "dygraph.min.js",
					     "dygraph.min.css" };
	struct text *to[] = { js, css };
	char path[4096];
	unsigned int k;

	for (k = 0; k < 2; k++) {
		int ret;

		snprintf(path, sizeof(path), "%s/%s", dir, files[k]);
		ret = read_text(path, to[k]);
		if (!ret && !to[k]->p)	/* read_text() says so; for -fanalyzer */
			ret = -ENOMEM;
		if (ret) {
			fprintf(stderr, "ksnap-plot: %s: %s: the chart library "
				"is needed (install Debian's package %s, or "
				"give --dygraphs DIR)\n", path, strerror(-ret),
				DYGRAPHS_PKG);
			return ret;
		}
	}
	drop_map(js, "//# sourceMappingURL=");
	drop_map(css, "/*# sourceMappingURL=");
	/* Inlined, such text would end its element early. */
	if (strcasestr(js->p, "</script") || strcasestr(css->p, "</style")) {
		fprintf(stderr, "ksnap-plot: %s: the library's text would end "
			"its element in the page\n", dir);
		return -EINVAL;
	}
	return 0;
}

/* --- inputs ---------------------------------------------------------- */

struct input {
	const char *name;
	char *buf;
	size_t len;
};

/* Standard input or a pipe into an unlinked temporary file, to map it. */
static int spool(int in, const char *name)
{
	const char *dir = getenv("TMPDIR");
	char buf[1 << 16];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "ksnap-plot: %s: a temporary file in %s: %s\n",
			name, dir, strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "ksnap-plot: %s: read: %s\n", name,
				strerror(errno));
			close(fd);
			return -1;
		}
		if (!n)
			return fd;
		while (w < n) {
			ssize_t k = write(fd, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				fprintf(stderr, "ksnap-plot: %s: spooling to "
					"%s: %s\n", name, dir, strerror(errno));
				close(fd);
				return -1;
			}
			w += k;
		}
	}
}

/* The input, mapped; -1 (said why) if it cannot be read or is empty. */
static int map_input(struct input *in)
{
	bool std = !strcmp(in->name, "-");
	int fd = std ? STDIN_FILENO : open(in->name, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (std)
		in->name = "<stdin>";
	if (fd < 0) {
		fprintf(stderr, "ksnap-plot: %s: %s\n", in->name,
			strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		int t = spool(fd, in->name);

		if (!std)
			close(fd);
		if (t < 0)
			return -1;
		fd = t;
		std = false;
		if (fstat(fd, &st)) {
			close(fd);
			return -1;
		}
	}
	in->len = (size_t)st.st_size;
	if (!in->len) {
		fprintf(stderr, "ksnap-plot: %s: empty: no stream to plot\n",
			in->name);
		if (!std)
			close(fd);
		return -1;
	}
	in->buf = mmap(NULL, in->len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (!std)
		close(fd);
	if (in->buf == MAP_FAILED) {
		fprintf(stderr, "ksnap-plot: %s: mmap: %s\n", in->name,
			strerror(errno));
		return -1;
	}
	madvise(in->buf, in->len, MADV_SEQUENTIAL);
	return 0;
}

/* --- the page's size ------------------------------------------------- */

/* Halve the buckets of the stream whose data is largest until all of it
 * fits the budget (or no stream can give more). */
static void fit(struct plot *p, uint64_t budget)
{
	uint64_t *size = calloc(p->nstreams + 1, sizeof(*size)), total = 0;
	size_t i;

	if (!size)
		return;
	for (i = 0; i < p->nstreams; i++) {
		size[i] = plot_data_size(p->streams[i]) +
			  48 * (p->streams[i]->gaps.len +
				p->streams[i]->damage.len);
		total += size[i];
	}
	while (total > budget) {
		size_t big = SIZE_MAX;

		for (i = 0; i < p->nstreams; i++)
			if (p->streams[i]->b.nb > 16 &&
			    (big == SIZE_MAX || size[i] > size[big]))
				big = i;
		if (big == SIZE_MAX)
			break;
		pr_buckets_coarsen(&p->streams[big]->b);
		total -= size[big];
		size[big] = plot_data_size(p->streams[big]) +
			    48 * (p->streams[big]->gaps.len +
				  p->streams[big]->damage.len);
		total += size[big];
	}
	free(size);
}

static int write_out(const struct plot *p, const struct text *js,
		     const struct text *css, long *size)
{
	const char *out = p->o->out;
	char tmp[4096];
	FILE *f;
	int ret;

	if (!strcmp(out, "-")) {
		ret = plot_write_page(p, stdout, js->p, js->len, css->p,
				      css->len);
		*size = ftell(stdout);
		return fflush(stdout) || ret ? -EIO : 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	f = fopen(tmp, "we");
	if (!f) {
		fprintf(stderr, "ksnap-plot: %s: %s\n", tmp, strerror(errno));
		return -errno;
	}
	ret = plot_write_page(p, f, js->p, js->len, css->p, css->len);
	*size = ftell(f);
	if (fclose(f) || ret || rename(tmp, out)) {
		fprintf(stderr, "ksnap-plot: %s: %s\n", out, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

static void summary(const struct plot *p, long size)
{
	unsigned int charts = 0;
	size_t i;

	for (i = 0; i < p->nstreams; i++)
		if (p->streams[i]->b.rows)
			charts += p->streams[i]->ncharts;
	fprintf(stderr, "ksnap-plot: %s: %u chart%s of %zu stream%s, %" PRIu64
		" rows, %.1f KiB%s\n", p->o->out, charts, charts == 1 ? "" : "s",
		p->nstreams, p->nstreams == 1 ? "" : "s", p->rows,
		(double)size / 1024, p->status ? "; damage found, named in "
		"the page" : "");
}

static void free_plot(struct plot *p)
{
	size_t i;
	uint32_t c, k;

	for (i = 0; i < p->nstreams; i++) {
		struct plot_stream *s = p->streams[i];

		for (c = 0; c < s->ncharts; c++) {
			for (k = 0; k < s->charts[c].nseries; k++)
				free(s->charts[c].labels[k]);
			free(s->charts[c].labels);
			free(s->charts[c].cols);
			free(s->charts[c].metric);
			free(s->charts[c].desc);
		}
		free(s->charts);
		free(s->col_chart);
		free(s->rates);
		free(s->v);
		free(s->has);
		free(s->stats_kv);
		pr_buckets_free(&s->b);
		pr_spans_free(&s->gaps);
		pr_spans_free(&s->damage);
		free(s);
	}
	free(p->streams);
	free(p->report);
	plot_free_events(&p->ev);
	plot_names_free(p);
}

int main(int argc, char **argv)
{
	static const char *std_in[] = { "-" };
	struct text js = { 0 }, css = { 0 };
	const char *events = NULL;
	struct plot_opts o;
	struct plot p = { .o = &o };
	char title[256];
	long size = 0;
	int first, ret = 0;
	size_t i;

	first = parse_options(argc, argv, &o, &events);
	p.inputs = first < argc ? (const char **)argv + first : std_in;
	p.ninputs = first < argc ? (size_t)(argc - first) : 1;
	if (!o.title) {
		snprintf(title, sizeof(title), "ksnap-plot: %s%s",
			 strcmp(p.inputs[0], "-") ? p.inputs[0] : "<stdin>",
			 p.ninputs > 1 ? " ..." : "");
		o.title = title;
	}
	if (load_library(o.dygraphs, &js, &css))
		return EXIT_NOPAGE;
	if (events && plot_read_events(&p.ev, events))
		return EXIT_NOPAGE;
	for (i = 0; i < p.ninputs && !ret; i++) {
		struct input in = { .name = p.inputs[i] };

		if (map_input(&in)) {
			ret = -EINVAL;
			break;
		}
		p.inputs[i] = in.name;
		ret = plot_read(&p, in.name, in.buf, in.len, true);
		if (ret == -ENOMEM)
			fprintf(stderr, "ksnap-plot: %s: out of memory\n",
				in.name);
		munmap(in.buf, in.len);
	}
	/* Series by their cgroups' names, before the charts are merged. */
	if (!ret && plot_names_apply(&p)) {
		fprintf(stderr, "ksnap-plot: out of memory\n");
		ret = -ENOMEM;
	}
	if (!ret) {
		/* The library, the page's script and style, the text. */
		uint64_t fixed = js.len + css.len + PLOT_REPORT_MAX +
				 (256 << 10);

		fit(&p, o.max_size > fixed ? o.max_size - fixed : 0);
		ret = write_out(&p, &js, &css, &size);
	}
	if (!ret && !o.quiet)
		summary(&p, size);
	free_plot(&p);
	free(js.p);
	free(css.p);
	if (ret)
		return EXIT_NOPAGE;
	return p.status == 0 ? 0 : 1;
}

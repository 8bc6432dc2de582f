// SPDX-License-Identifier: MIT
/* The module's catalogue of metrics: see catalogue.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "sys.h"

static const struct {
	const char *name;
	unsigned int groups;
} groups[] = {
	{ "all", CATALOGUE_GROUP_ALL },
	{ "vmstat", KSNAP_GROUP_VMSTAT },
	{ "cpu", KSNAP_GROUP_CPU },
	{ "container", KSNAP_GROUP_CONTAINER },
	{ "pod", KSNAP_GROUP_POD },
};

#define NR_GROUPS	(sizeof(groups) / sizeof(groups[0]))

static const char *const freshness[] = {
	[KSNAP_FRESH_LIVE] = "live",
	[KSNAP_FRESH_TICK] = "tick",
	[KSNAP_FRESH_1S] = "1s",
	[KSNAP_FRESH_2S] = "2s",
};

/* Never more metrics than this: a bound on a misbehaving device. */
#define CATALOGUE_MAX	4096

int catalogue_read(const char *dev, struct catalogue *c)
{
	struct ksnap_metric_info info, *m;
	unsigned int cap = 0;
	int fd, ret;

	c->m = NULL;
	c->n = 0;
	fd = ksnap_sys_open(dev, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	for (;;) {
		memset(&info, 0, sizeof(info));
		info.index = c->n;
		ret = ksnap_sys_ioctl(fd, KSNAP_IOC_METRIC, &info);
		if (ret == -EINVAL && c->n) {
			ret = 0;	/* past the last one */
			break;
		}
		if (ret < 0)
			break;
		if (c->n == CATALOGUE_MAX) {
			ret = -EOVERFLOW;
			break;
		}
		if (c->n == cap) {
			cap = cap ? 2 * cap : 256;
			m = realloc(c->m, cap * sizeof(*m));
			if (!m) {
				ret = -ENOMEM;
				break;
			}
			c->m = m;
		}
		/* The kernel's strings are terminated; make sure of it. */
		info.name[sizeof(info.name) - 1] = '\0';
		info.unit[sizeof(info.unit) - 1] = '\0';
		info.field[sizeof(info.field) - 1] = '\0';
		info.description[sizeof(info.description) - 1] = '\0';
		c->m[c->n++] = info;
	}
	ksnap_sys_close(fd);
	if (ret)
		catalogue_free(c);
	return ret;
}

void catalogue_free(struct catalogue *c)
{
	free(c->m);
	c->m = NULL;
	c->n = 0;
}

unsigned int catalogue_group(const char *name)
{
	size_t i;

	for (i = 0; i < NR_GROUPS; i++)
		if (!strcmp(groups[i].name, name))
			return groups[i].groups;
	return 0;
}

int catalogue_print(const struct catalogue *c, unsigned int groups,
		    bool header, FILE *out)
{
	int ret = 0;
	unsigned int i;

	if (header)
		ret = fprintf(out, "name\tkind\tunit\tfreshness\tfield\t"
			      "description\n");
	for (i = 0; i < c->n && ret >= 0; i++) {
		const struct ksnap_metric_info *m = &c->m[i];

		if (groups != CATALOGUE_GROUP_ALL && !(m->groups & groups))
			continue;
		ret = fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\n", m->name,
			      m->flags & KSNAP_COL_CUMULATIVE ? "cumulative" :
			      "gauge", m->unit,
			      m->freshness < sizeof(freshness) /
			      sizeof(freshness[0]) ? freshness[m->freshness] :
			      "?", m->field[0] ? m->field : "-",
			      m->description);
	}
	return ret;
}

#define DIST_MAX	256

unsigned int catalogue_distance(const char *a, const char *b)
{
	unsigned int row[DIST_MAX + 1];
	size_t la = strnlen(a, DIST_MAX - 1), lb = strnlen(b, DIST_MAX - 1);
	size_t i, j;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		unsigned int diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int up = row[j], best;

			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* Close: within a third of the name's length, at least 1, at most 3. */
static unsigned int close_enough(const char *name)
{
	size_t len = strlen(name);
	unsigned int d = len / 3;

	return d < 1 ? 1 : d > 3 ? 3 : d;
}

const char *catalogue_suggest(const struct catalogue *c, const char *name)
{
	unsigned int best = close_enough(name) + 1, d, i;
	const char *found = NULL;

	for (i = 0; i < c->n; i++) {
		d = catalogue_distance(name, c->m[i].name);
		if (d < best) {
			best = d;
			found = c->m[i].name;
		}
	}
	for (i = 0; i < NR_GROUPS; i++) {
		d = catalogue_distance(name, groups[i].name);
		if (d < best) {
			best = d;
			found = groups[i].name;
		}
	}
	return found;
}

static bool known(const struct catalogue *c, const char *name)
{
	unsigned int i;

	if (catalogue_group(name))
		return true;
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->m[i].name, name))
			return true;
	return false;
}

unsigned int catalogue_check_list(const struct catalogue *c,
				  const char *list, const char *what,
				  FILE *log)
{
	char name[KSNAP_METRIC_NAME_MAX];
	const char *p = list, *end, *s;
	unsigned int bad = 0;
	size_t len;

	while (*p) {
		end = p + strcspn(p, ",\n");
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		s = memchr(p, '[', end - p);
		len = (s ? s : end) - p;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len && len < sizeof(name)) {
			const char *hint;

			memcpy(name, p, len);
			name[len] = '\0';
			if (!known(c, name)) {
				bad++;
				hint = catalogue_suggest(c, name);
				fprintf(log, "ksnapd: %s: unknown metric '%s'",
					what, name);
				if (hint)
					fprintf(log, ": did you mean %s?", hint);
				fprintf(log, " (ksnapd --list-metrics lists "
					"them)\n");
			}
		}
		p = *end ? end + 1 : end;
	}
	return bad;
}

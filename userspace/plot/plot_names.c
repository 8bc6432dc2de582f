// SPDX-License-Identifier: MIT
/* ksnap-plot: the names of the cgroups its streams list (plot_names.h). */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "plot_names.h"
#include "stream.h"

/* A string member of the flat object [o, o + n), or NULL. */
static char *member(const char *o, size_t n, const char *key)
{
	const char *v;
	size_t len;
	char *s;

	if (!json_get(o, n, key, &v, &len))
		return NULL;
	s = json_string(v, len);
	if (s && !*s) {
		free(s);
		return NULL;
	}
	return s;
}

/*
 * The label of one listed cgroup: "namespace/pod/container", "namespace/
 * pod (sandbox)", "namespace/pod", or a container's name alone; NULL
 * when it has none of these (ids alone say no more than the path).
 */
static char *label_of(const char *o, size_t n)
{
	char *ns = member(o, n, "namespace"), *pod = member(o, n, "pod");
	char *ctr = member(o, n, "container");
	char *role = member(o, n, "container_role");
	char *l = NULL;
	int r = -1;

	if (ns && pod && ctr)
		r = asprintf(&l, "%s/%s/%s", ns, pod, ctr);
	else if (ns && pod)
		r = asprintf(&l, "%s/%s%s", ns, pod,
			     role && !strcmp(role, "sandbox") ? " (sandbox)" :
			     "");
	else if (ctr)
		r = asprintf(&l, "%s", ctr);
	if (r < 0)
		l = NULL;
	free(ns);
	free(pod);
	free(ctr);
	free(role);
	return l;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct plot_name *)a)->path,
		      ((const struct plot_name *)b)->path);
}

static struct plot_name *find(const struct plot *p, const char *path)
{
	struct plot_name key = { .path = (char *)path };

	if (!p->nnames)
		return NULL;
	return bsearch(&key, p->names, p->nnames, sizeof(key), by_path);
}

/* Add or replace path's label; takes both strings. */
static int put_name(struct plot *p, char *path, char *label)
{
	struct plot_name *e = find(p, path), *nn;

	if (e) {
		free(path);
		free(e->label);
		e->label = label;
		return 0;
	}
	nn = realloc(p->names, (p->nnames + 1) * sizeof(*nn));
	if (!nn) {
		free(path);
		free(label);
		return -ENOMEM;
	}
	p->names = nn;
	nn[p->nnames].path = path;
	nn[p->nnames].label = label;
	p->nnames++;
	qsort(p->names, p->nnames, sizeof(*nn), by_path);
	return 0;
}

int plot_names_add(struct plot *p, const char *json, size_t n)
{
	const char *arr, *q, *end, *e;
	size_t len;

	if (!json || !json_get(json, n, "ksnap_cgroups", &arr, &len) ||
	    !len || arr[0] != '[')
		return 0;
	end = arr + len;
	for (q = arr + 1; q < end; q = e) {
		char *esc, *path, *label;
		size_t el;

		q = json_skip_ws(q, end);
		if (q < end && *q == ',')
			q = json_skip_ws(q + 1, end);
		if (q >= end || *q != '{')
			break;
		e = json_value_end(q, end, true);
		if (!e)
			break;
		label = label_of(q, (size_t)(e - q));
		esc = label ? member(q, (size_t)(e - q), "cgroup") : NULL;
		if (!esc) {
			free(label);
			continue;
		}
		/* The cgroup as the header escapes it: as the series are. */
		el = strlen(esc);
		path = malloc(el + 1);
		if (!path) {
			free(esc);
			free(label);
			return -ENOMEM;
		}
		ksnap_unescape_value(path, el + 1, esc, el);
		free(esc);
		if (put_name(p, path, label))
			return -ENOMEM;
	}
	return 0;
}

/* The end of a path, to tell two cgroups of one name apart. */
static const char *tail_of(const char *path)
{
	const char *t = strrchr(path, '/');
	size_t l;

	t = t ? t + 1 : path;
	l = strlen(t);
	return l > 12 ? t + l - 12 : t;
}

/* The label a named path's series get: its name, unless another path
 * has it too. */
static char *series_label(const struct plot *p, const struct plot_name *e)
{
	char *l;
	size_t i;

	for (i = 0; i < p->nnames; i++)
		if (&p->names[i] != e && !strcmp(p->names[i].label, e->label))
			break;
	if (i == p->nnames)
		return strdup(e->label);
	if (asprintf(&l, "%s (%s)", e->label, tail_of(e->path)) < 0)
		return NULL;
	return l;
}

int plot_names_apply(struct plot *p)
{
	size_t i;
	uint32_t c, k;

	for (i = 0; i < p->nstreams; i++) {
		struct plot_stream *s = p->streams[i];

		for (c = 0; c < s->ncharts; c++) {
			struct plot_chart *ch = &s->charts[c];

			for (k = 0; k < ch->nseries; k++) {
				const struct plot_name *e;
				char *l;

				if (!ch->labels[k])
					continue;
				e = find(p, ch->labels[k]);
				if (!e)
					continue;
				l = series_label(p, e);
				if (!l)
					return -ENOMEM;
				free(ch->labels[k]);
				ch->labels[k] = l;
			}
		}
	}
	return 0;
}

void plot_names_free(struct plot *p)
{
	size_t i;

	for (i = 0; i < p->nnames; i++) {
		free(p->names[i].path);
		free(p->names[i].label);
	}
	free(p->names);
	p->names = NULL;
	p->nnames = 0;
}

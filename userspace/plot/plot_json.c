// SPDX-License-Identifier: MIT
/*
 * ksnap-plot's JSON: the members of the flat objects it reads (a META
 * line's metadata, an events line), whitespace anywhere JSON allows it
 * (gVisor's protojson varies it), nested values skipped whole; and the
 * events file of --events (ksnap-plot(1), "EVENTS").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "plot_json.h"

/* The end of the value at p: a string, an object or array (nesting and
 * strings in it skipped), or a scalar token; NULL if none. */
static const char *value_end(const char *p, const char *end)
{
	int depth = 0;

	if (p >= end)
		return NULL;
	if (*p == '"')
		return json_string_end(p, end);
	if (*p != '{' && *p != '[') {
		const char *q = p;

		while (q < end && *q != ',' && *q != '}' && *q != ']' &&
		       *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
			q++;
		return q > p ? q : NULL;
	}
	for (; p < end; p++) {
		if (*p == '"') {
			p = json_string_end(p, end);
			if (!p)
				return NULL;
			p--;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && !--depth) {
			return p + 1;
		}
	}
	return NULL;
}

bool plot_json_get(const char *p, size_t n, const char *key,
		   const char **val, size_t *len)
{
	const char *end = p + n, *k, *ke, *v, *ve;
	size_t kl = strlen(key);

	p = json_skip_ws(p, end);
	if (p >= end || *p++ != '{')
		return false;
	for (;;) {
		k = json_skip_ws(p, end);
		if (k >= end || *k != '"')
			return false;
		ke = json_string_end(k, end);
		if (!ke)
			return false;
		v = json_skip_ws(ke, end);
		if (v >= end || *v != ':')
			return false;
		v = json_skip_ws(v + 1, end);
		ve = value_end(v, end);
		if (!ve)
			return false;
		if ((size_t)(ke - k) == kl + 2 && !memcmp(k + 1, key, kl)) {
			*val = v;
			*len = (size_t)(ve - v);
			return true;
		}
		p = json_skip_ws(ve, end);
		if (p >= end || *p != ',')
			return false;
		p++;
	}
}

char *plot_json_string(const char *val, size_t len)
{
	char *out, *o;
	size_t i;

	if (len < 2 || val[0] != '"' || val[len - 1] != '"')
		return NULL;
	out = malloc(len);
	if (!out)
		return NULL;
	o = out;
	for (i = 1; i + 1 < len; i++) {
		char c = val[i];

		if (c != '\\' || i + 2 >= len) {
			*o++ = c;
			continue;
		}
		c = val[++i];
		switch (c) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'u': {
			unsigned int u = 0, d;

			for (d = 0; d < 4 && i + 1 + d + 1 < len; d++) {
				char h = val[i + 1 + d];

				u = u * 16 + (unsigned int)(h >= 'a' ? h - 'a' + 10 :
					      h >= 'A' ? h - 'A' + 10 : h - '0');
			}
			i += d;
			*o++ = u >= 0x20 && u < 0x7f ? (char)u : '?';
			break;
		}
		default:	/* \" \\ \/ */
			*o++ = c;
		}
	}
	*o = '\0';
	return out;
}

/* A number member as an unsigned integer. */
static bool json_u64(const char *p, size_t n, const char *key, uint64_t *v)
{
	const char *val;
	size_t len, i;
	uint64_t x = 0;

	if (!plot_json_get(p, n, key, &val, &len) || !len || len > 20)
		return false;
	for (i = 0; i < len; i++) {
		if (val[i] < '0' || val[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(val[i] - '0');
	}
	*v = x;
	return true;
}

/* The label: the first of these members that is a string. */
static char *event_label(const char *p, size_t n)
{
	static const char *const keys[] = { "name", "rule", "event",
					    "message", "what" };
	const char *val;
	size_t len, k;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (plot_json_get(p, n, keys[k], &val, &len) &&
		    len && *val == '"')
			return plot_json_string(val, len);
	return strdup("event");
}

/* One line of the events file; false if it says no event. */
static bool event_line(const char *p, size_t n, struct plot_event *e)
{
	uint64_t stream = 0;

	memset(e, 0, sizeof(*e));
	if (json_u64(p, n, "t_ns", &e->t) || json_u64(p, n, "time_ns", &e->t))
		e->wall = false;
	else if (json_u64(p, n, "wall_ns", &e->t))
		e->wall = true;
	else
		return false;
	if (json_u64(p, n, "stream", &stream))
		e->stream = stream > 1000000 ? 0 : (unsigned int)stream;
	e->label = event_label(p, n);
	return e->label != NULL;
}

int plot_read_events(struct plot_events *ev, const char *file)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	memset(ev, 0, sizeof(*ev));
	ev->file = file;
	if (!f) {
		int ret = -errno;

		fprintf(stderr, "ksnap-plot: %s: %s\n", file, strerror(-ret));
		return ret;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		struct plot_event e;
		const char *p = json_skip_ws(line, line + n);

		if (p == line + n)
			continue;		/* an empty line */
		if (!event_line(line, (size_t)n, &e)) {
			ev->skipped++;
			continue;
		}
		if (ev->n == PLOT_MAX_EVENTS) {
			free(e.label);
			ev->over++;
			continue;
		}
		if (ev->n == ev->cap) {
			size_t c = ev->cap ? 2 * ev->cap : 64;
			struct plot_event *ne = realloc(ev->e, c * sizeof(*ne));

			if (!ne) {
				free(e.label);
				free(line);
				fclose(f);
				return -ENOMEM;
			}
			ev->e = ne;
			ev->cap = c;
		}
		ev->e[ev->n++] = e;
	}
	free(line);
	fclose(f);
	return 0;
}

void plot_free_events(struct plot_events *ev)
{
	size_t i;

	for (i = 0; i < ev->n; i++)
		free(ev->e[i].label);
	free(ev->e);
	memset(ev, 0, sizeof(*ev));
}

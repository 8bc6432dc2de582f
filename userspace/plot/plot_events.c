// SPDX-License-Identifier: MIT
/*
 * ksnap-plot's events file of --events (ksnap-plot(1), "EVENTS"), one
 * JSON object a line, read with the checker's JSON reader (json.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "plot_events.h"


/* The label: the first of these members that is a string. */
static char *event_label(const char *p, size_t n)
{
	static const char *const keys[] = { "name", "rule", "event",
					    "message", "what" };
	const char *val;
	size_t len, k;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (json_get(p, n, keys[k], &val, &len) &&
		    len && *val == '"')
			return json_string(val, len);
	return strdup("event");
}

/* One line of the events file; false if it says no event. */
static bool event_line(const char *p, size_t n, struct plot_event *e)
{
	uint64_t stream = 0;

	memset(e, 0, sizeof(*e));
	if (json_get_u64(p, n, "t_ns", &e->t) || json_get_u64(p, n, "time_ns", &e->t))
		e->wall = false;
	else if (json_get_u64(p, n, "wall_ns", &e->t))
		e->wall = true;
	else
		return false;
	if (json_get_u64(p, n, "stream", &stream))
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

/* SPDX-License-Identifier: MIT */
/*
 * ksnap-plot's JSON (plot_json.c): a flat object's members, a string
 * value unescaped, and the events file of --events.
 */
#ifndef KSNAP_PLOT_JSON_H
#define KSNAP_PLOT_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "plot_model.h"

/* A flat JSON object's member `key`, its value as written
 * (strings with their quotes); false if absent. */
bool plot_json_get(const char *p, size_t n, const char *key,
		   const char **val, size_t *len);
/* A JSON string value (with its quotes) unescaped to a new C string;
 * \u escapes of non-ASCII become '?'.  NULL: not a string, or ENOMEM. */
char *plot_json_string(const char *val, size_t len);
/* --events FILE: read every line; 0, or -errno (said on stderr). */
int plot_read_events(struct plot_events *ev, const char *file);
void plot_free_events(struct plot_events *ev);

#endif /* KSNAP_PLOT_JSON_H */

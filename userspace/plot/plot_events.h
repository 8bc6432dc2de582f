/* SPDX-License-Identifier: MIT */
/*
 * ksnap-plot's events file of --events (plot_events.c).
 */
#ifndef KSNAP_PLOT_EVENTS_H
#define KSNAP_PLOT_EVENTS_H

#include "plot_model.h"

/* --events FILE: read every line; 0, or -errno (said on stderr). */
int plot_read_events(struct plot_events *ev, const char *file);
void plot_free_events(struct plot_events *ev);

#endif /* KSNAP_PLOT_EVENTS_H */

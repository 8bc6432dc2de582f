/* SPDX-License-Identifier: MIT */
/*
 * Who the cgroups of ksnap-plot's inputs are: the names a stream's STATS
 * lists ("ksnap_cgroups", docs/format.md "Names"), put on the series in
 * place of the paths, "namespace/pod/container", and the paths kept for
 * the page's table of names.
 */
#ifndef KSNAP_PLOT_NAMES_H
#define KSNAP_PLOT_NAMES_H

#include <stddef.h>

#include "plot_model.h"

/*
 * The names in one STATS object (n bytes at json): each cgroup listed
 * with a namespace and pod, or a container name, is added to p's, a
 * later stream's replacing an earlier's.  Returns 0 or -ENOMEM; what is
 * not understood is left out.
 */
int plot_names_add(struct plot *p, const char *json, size_t n);

/*
 * Every series of a named cgroup labelled by its name; two cgroups of one
 * name (a container restarted under another id) told apart by the end
 * of their paths.  Returns 0 or -ENOMEM.
 */
int plot_names_apply(struct plot *p);

void plot_names_free(struct plot *p);

#endif /* KSNAP_PLOT_NAMES_H */

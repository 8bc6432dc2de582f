/* SPDX-License-Identifier: MIT */
/*
 * ksnap-plot's reader (plot_read.c): one input, walked by the shared
 * parser in streaming mode, into the model of plot_model.h.
 */
#ifndef KSNAP_PLOT_READ_H
#define KSNAP_PLOT_READ_H

#include "plot_model.h"

/*
 * Read the log buf[0, len) named name (mapped: buf is an mmap of it,
 * whose pages may be dropped as the walk goes).  0; -ENOENT: no stream
 * in it, -ENODATA: no stream with a column header (both said on
 * stderr); -ENOMEM.
 */
int plot_read(struct plot *p, const char *name, const char *buf, size_t len,
	      bool mapped);

#endif /* KSNAP_PLOT_READ_H */

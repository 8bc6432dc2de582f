/* SPDX-License-Identifier: MIT */
/*
 * ksnap-plot's page (plot_page.c): one HTML file with the charts' data,
 * the library, its script and style inline.
 */
#ifndef KSNAP_PLOT_PAGE_H
#define KSNAP_PLOT_PAGE_H

#include <stdint.h>
#include <stdio.h>

#include "plot_model.h"

/* The bytes the charts' data of s take in the page. */
uint64_t plot_data_size(const struct plot_stream *s);
/* Write the page to f; 0 or -errno.  lib: dygraph.min.js and its CSS. */
int plot_write_page(const struct plot *p, FILE *f, const char *lib_js,
		    size_t lib_js_len, const char *lib_css, size_t lib_css_len);

#endif /* KSNAP_PLOT_PAGE_H */

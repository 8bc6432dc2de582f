/* SPDX-License-Identifier: MIT */
#ifndef KSNAP_KMODLOAD_H
#define KSNAP_KMODLOAD_H

#include <stddef.h>

/*
 * Load module name with options params (NULL: none) and its dependencies
 * through libkmod.  Already loaded is success: returns 0, or 1 when
 * params were given, with err saying they were not applied.  Returns
 * -errno with err set on failure.
 */
int ksnapd_load_module(const char *name, const char *params, char *err,
		       size_t errlen);

#endif /* KSNAP_KMODLOAD_H */

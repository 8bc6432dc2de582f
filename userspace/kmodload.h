/* SPDX-License-Identifier: MIT */
#ifndef KSNAP_KMODLOAD_H
#define KSNAP_KMODLOAD_H

#include <stddef.h>

/*
 * Load module name with options params (NULL: none) and its dependencies
 * through libkmod.  Already loaded is success.  Returns 0 or -errno with
 * err set.
 */
int ksnapd_load_module(const char *name, const char *params, char *err,
		       size_t errlen);

#endif /* KSNAP_KMODLOAD_H */

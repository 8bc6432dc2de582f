/* SPDX-License-Identifier: MIT */
/*
 * cgroup patterns, as the module's cgroups list takes them
 * (docs/interface.md, "cgroup patterns"): the module's own header,
 * kmod/cgpattern.h, whose functions lib/cgpattern.c compiles from the
 * module's source.  The flight recorder's rules name columns by pattern
 * with them.
 */
#ifndef KSNAP_LIB_CGPATTERN_H
#define KSNAP_LIB_CGPATTERN_H

#include <stdbool.h>

#include "../../kmod/cgpattern.h"

#endif /* KSNAP_LIB_CGPATTERN_H */

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * cgroup patterns in the cgroups list.  An entry holding '*' is a pattern:
 * '*' matches within one path component ("*.service", "libpod-*.scope"),
 * and "**" as a whole component matches any number of components, zero
 * included.  A trailing "**" (/system.slice then "**") matches at most
 * cgroup_depth components; one followed by more components (as in
 * /kubepods.slice, "**", "*.scope") is bounded by what follows.
 *
 * cgpattern.c holds the pure functions (the KUnit suite ksnap_cgpattern
 * tests them); cgexpand.c the walk of the cgroup2 tree that expands a
 * pattern into the cgroups it matches.  ksnapd compiles cgpattern.c and
 * this header too (userspace/lib/cgpattern.c, through the kernel headers
 * of userspace/lib/kshim/): both include only <linux/errno.h>,
 * <linux/limits.h>, <linux/string.h> and <linux/types.h>, and use of them
 * only what kshim provides.
 */
#ifndef KSNAP_CGPATTERN_H
#define KSNAP_CGPATTERN_H

#include <linux/types.h>

/* A pattern is shorter than this, in bytes. */
#define KSNAP_CGPATTERN_LEN_MAX		128
/* At most this many wildcards ('*' and "**") in one pattern. */
#define KSNAP_CGPATTERN_WILD_MAX	8
/* cgroup_depth: components a trailing "**" matches, by default, at most. */
#define KSNAP_CGPATTERN_DEPTH_DEFAULT	2
#define KSNAP_CGPATTERN_DEPTH_MAX	32

bool ksnap_cgpattern_is_pattern(const char *entry);
int ksnap_cgpattern_check(const char *pattern, const char **why);
bool ksnap_cgpattern_match(const char *pattern, const char *path,
			   unsigned int depth);
unsigned int ksnap_cgpattern_max_level(const char *pattern,
				       unsigned int depth);
int ksnap_cgpattern_owner(const char *const *entries, unsigned int nr,
			  const char *path, unsigned int depth);

#endif /* KSNAP_CGPATTERN_H */

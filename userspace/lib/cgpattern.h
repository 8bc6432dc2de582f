/* SPDX-License-Identifier: MIT */
/*
 * cgroup patterns, as the module's cgroups list takes them
 * (docs/interface.md, "cgroup patterns"): an entry holding '*' is a
 * pattern; '*' matches within one path component ("*.service"), and "**"
 * as a whole component matches any number of components, zero included.
 * A trailing "**" matches at most depth components below what precedes
 * it (the module's cgroup_depth); one followed by more components is
 * bounded by what follows.  The same syntax check and matcher as the
 * module's kmod/cgpattern.c, for userspace: the flight recorder's rules
 * name columns by pattern with it.
 */
#ifndef KSNAP_CGPATTERN_H
#define KSNAP_CGPATTERN_H

#include <stdbool.h>

/* A pattern is shorter than this, in bytes. */
#define KSNAP_CGPATTERN_LEN_MAX		128
/* At most this many wildcards ('*' and "**") in one pattern. */
#define KSNAP_CGPATTERN_WILD_MAX	8
#define KSNAP_CGPATTERN_DEPTH_DEFAULT	2
#define KSNAP_CGPATTERN_DEPTH_MAX	32

/* Does entry hold a '*'? */
bool ksnap_cgpattern_is_pattern(const char *entry);
/* 0, or -EINVAL with *why saying what is wrong. */
int ksnap_cgpattern_check(const char *pattern, const char **why);
/* Does path ("/a/b", "/" the root) match a pattern check() accepts? */
bool ksnap_cgpattern_match(const char *pattern, const char *path,
			   unsigned int depth);
/* The most components a match has; UINT_MAX when unbounded. */
unsigned int ksnap_cgpattern_max_level(const char *pattern,
				       unsigned int depth);

#endif /* KSNAP_CGPATTERN_H */

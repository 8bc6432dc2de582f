// SPDX-License-Identifier: GPL-2.0 OR MIT
/* cgroup patterns: syntax check and matching, pure (see cgpattern.h). */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "cgpattern.h"

/* Is @entry of the cgroups list a pattern rather than a path? */
bool ksnap_cgpattern_is_pattern(const char *entry)
{
	return strchr(entry, '*');
}

/* The length of the component at @c (up to '/' or the end). */
static size_t ksnap_comp_len(const char *c)
{
	return strchrnul(c, '/') - c;
}

/* The component after the one at @c; at the end, "". */
static const char *ksnap_comp_next(const char *c)
{
	c += ksnap_comp_len(c);
	return *c ? c + 1 : c;
}

static bool ksnap_comp_is(const char *c, const char *what)
{
	size_t len = strlen(what);

	return ksnap_comp_len(c) == len && !strncmp(c, what, len);
}

/* Is the component at @c "**"? */
static bool ksnap_comp_globstar(const char *c)
{
	return ksnap_comp_is(c, "**");
}

/**
 * ksnap_cgpattern_check() - is @pattern a valid pattern?
 * @pattern: an entry of the cgroups list, NUL-terminated
 * @why: on failure, what is wrong (for a log line that names the entry)
 *
 * A pattern starts with '/', is shorter than KSNAP_CGPATTERN_LEN_MAX, and
 * has non-empty components, none "." or "..", "**" only as a whole
 * component, no "***", and at most KSNAP_CGPATTERN_WILD_MAX wildcards.
 *
 * Return: 0 or -EINVAL.
 */
int ksnap_cgpattern_check(const char *pattern, const char **why)
{
	unsigned int wild = 0;
	const char *c;

	if (strnlen(pattern, KSNAP_CGPATTERN_LEN_MAX) ==
	    KSNAP_CGPATTERN_LEN_MAX) {
		*why = "pattern too long (at most 127 bytes)";
		return -EINVAL;
	}
	if (pattern[0] != '/') {
		*why = "pattern must start with '/' (relative to the cgroup2 root)";
		return -EINVAL;
	}
	for (c = pattern + 1; ; c = ksnap_comp_next(c)) {
		size_t len = ksnap_comp_len(c);
		const char *star = strnstr(c, "**", len);

		if (!len) {
			*why = "empty component (doubled, leading or trailing '/') in pattern";
			return -EINVAL;
		}
		if (ksnap_comp_is(c, ".") || ksnap_comp_is(c, "..")) {
			*why = "'.' or '..' component in pattern";
			return -EINVAL;
		}
		if (strnstr(c, "***", len)) {
			*why = "'***' in pattern (use '*' or a whole '**')";
			return -EINVAL;
		}
		if (star && len != 2) {
			*why = "'**' must be a whole component (as in /a/**/b.scope)";
			return -EINVAL;
		}
		if (star) {
			wild++;
		} else {
			size_t i;

			for (i = 0; i < len; i++)
				wild += c[i] == '*';
		}
		if (wild > KSNAP_CGPATTERN_WILD_MAX) {
			*why = "more than 8 wildcards in pattern";
			return -EINVAL;
		}
		if (!c[len])
			break;
	}
	return 0;
}

/*
 * One component @p (with '*' matching any run of characters) against one
 * path component @s; @plen and @slen are their lengths.  Greedy, with a
 * return to the last '*' on a mismatch: linear for one '*', and never
 * worse than @plen times @slen.
 */
static bool ksnap_comp_match(const char *p, size_t plen, const char *s,
			     size_t slen)
{
	size_t pi = 0, si = 0, star_p = SIZE_MAX, star_s = 0;

	while (si < slen) {
		if (pi < plen && p[pi] == '*') {
			star_p = ++pi;
			star_s = si;
		} else if (pi < plen && p[pi] == s[si]) {
			pi++;
			si++;
		} else if (star_p != SIZE_MAX) {
			pi = star_p;
			si = ++star_s;
		} else {
			return false;
		}
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

/* Components from @s to the end. */
static unsigned int ksnap_comp_count(const char *s)
{
	unsigned int n = 0;

	for (; *s; s = ksnap_comp_next(s))
		n++;
	return n;
}

/**
 * ksnap_cgpattern_match() - does @path match @pattern?
 * @pattern: a pattern that ksnap_cgpattern_check() accepts
 * @path: a cgroup's path relative to the cgroup2 root, such as
 *	  "/system.slice/a.service"; "/" is the root
 * @depth: the most components a trailing "**" matches (cgroup_depth)
 *
 * The same algorithm as ksnap_comp_match(), by components: "**" takes as
 * few components as it can, and one more each time what follows it fails.
 *
 * Return: true on a match.
 */
bool ksnap_cgpattern_match(const char *pattern, const char *path,
			   unsigned int depth)
{
	const char *p = pattern + (*pattern == '/');
	const char *s = path + (*path == '/');
	const char *star_p = NULL, *star_s = NULL;

	for (;;) {
		if (*p && ksnap_comp_globstar(p) && !*ksnap_comp_next(p)) {
			/* A trailing "**": what is left of the path, bounded. */
			if (ksnap_comp_count(s) <= depth)
				return true;
		} else if (*p && ksnap_comp_globstar(p)) {
			p = ksnap_comp_next(p);
			star_p = p;
			star_s = s;
			continue;
		} else if (!*s && !*p) {
			return true;
		} else if (*s && *p &&
			   ksnap_comp_match(p, ksnap_comp_len(p), s,
					    ksnap_comp_len(s))) {
			p = ksnap_comp_next(p);
			s = ksnap_comp_next(s);
			continue;
		}
		/* A mismatch: the last "**" takes one more component. */
		if (!star_p || !*star_s)
			return false;
		star_s = ksnap_comp_next(star_s);
		p = star_p;
		s = star_s;
	}
}

/**
 * ksnap_cgpattern_max_level() - the deepest a match of @pattern can be
 * @pattern: a pattern that ksnap_cgpattern_check() accepts
 * @depth: as for ksnap_cgpattern_match()
 *
 * Return: the most components a matching path has, or UINT_MAX when a
 * "**" followed by more components leaves it unbounded.
 */
unsigned int ksnap_cgpattern_max_level(const char *pattern,
				       unsigned int depth)
{
	const char *p = pattern + (*pattern == '/');
	unsigned int n = 0;

	for (; *p; p = ksnap_comp_next(p)) {
		if (!ksnap_comp_globstar(p)) {
			n++;
			continue;
		}
		if (*ksnap_comp_next(p))
			return UINT_MAX;
		n += depth;
	}
	return n;
}

/**
 * ksnap_cgpattern_owner() - the entry a cgroup's columns come from
 * @entries: the cgroups list, paths and patterns that
 *	     ksnap_cgpattern_check() accepts
 * @nr: how many entries
 * @path: a cgroup's path, as for ksnap_cgpattern_match()
 * @depth: as for ksnap_cgpattern_match()
 *
 * A cgroup that several patterns match is sampled once, as a match of
 * the first of them: the others' expansions pass it by, and do not count
 * it either.  Paths are left out: a path names its cgroup by identity
 * (the cgroup's id), not by its text.
 *
 * Return: the index of the first pattern in @entries that @path matches,
 * or -1 when none does.
 */
int ksnap_cgpattern_owner(const char *const *entries, unsigned int nr,
			  const char *path, unsigned int depth)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (ksnap_cgpattern_is_pattern(entries[i]) &&
		    ksnap_cgpattern_match(entries[i], path, depth))
			return i;
	return -1;
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The cases of the cgroup pattern functions (kmod/cgpattern.c), one table
 * for both builds of them: the KUnit suite ksnap_cgpattern
 * (tests/kunit/cgpattern_test.c) and the userspace one's cmocka test
 * (tests/unit/lib/cgpattern_test.c).  The includer provides bool, NULL
 * and size_t.
 */
#ifndef KSNAP_CGPATTERN_CASES_H
#define KSNAP_CGPATTERN_CASES_H

struct ksnap_match_case {
	const char *pattern, *path;
	unsigned int depth;
	bool match;
};

static const struct ksnap_match_case ksnap_match_cases[] = {
	/* '*' within one component */
	{ "/system.slice/*.service", "/system.slice/a.service", 2, true },
	{ "/system.slice/*.service", "/system.slice/.service", 2, true },
	{ "/system.slice/*.service", "/system.slice/a.scope", 2, false },
	{ "/system.slice/*.service", "/system.slice/b.service/sub", 2, false },
	{ "/system.slice/*.service", "/system.slice", 2, false },
	{ "/system.slice/*.service", "/other.slice/a.service", 2, false },
	{ "/machine.slice/libpod-*.scope", "/machine.slice/libpod-0123abc.scope", 2, true },
	{ "/machine.slice/libpod-*.scope", "/machine.slice/libpod-conmon-1.scope", 2, true },
	{ "/machine.slice/libpod-*.scope", "/machine.slice/libpod.scope", 2, false },
	{ "/*", "/a", 2, true },
	{ "/*", "/", 2, false },
	{ "/*", "/a/b", 2, false },
	{ "/*/*", "/a/b", 2, true },
	{ "/a*b*c", "/abc", 2, true },
	{ "/a*b*c", "/aXbYc", 2, true },
	{ "/a*b*c", "/aXbYcZ", 2, false },
	{ "/a*b*c", "/abcbc", 2, true },
	{ "/*.*", "/x.y", 2, true },
	/* "**" followed by more: any number of components, zero included */
	{ "/kubepods.slice/**/*.scope",
	  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podX.slice/cri-containerd-ID.scope",
	  2, true },
	{ "/kubepods.slice/**/*.scope", "/kubepods.slice/x.scope", 0, true },
	{ "/kubepods.slice/**/*.scope", "/kubepods.slice/a/b/c/d/e/f.scope", 0, true },
	{ "/kubepods.slice/**/*.scope", "/kubepods.slice/a/b.scope/c", 2, false },
	{ "/kubepods.slice/**/*.scope", "/kubepods.slice", 2, false },
	{ "/kubepods.slice/**/*.scope", "/x.scope", 2, false },
	{ "/**/*.scope", "/a.scope", 2, true },
	{ "/**/*.scope", "/a/b/c.scope", 2, true },
	{ "/a/**/b/**/c", "/a/b/c", 2, true },
	{ "/a/**/b/**/c", "/a/x/b/y/z/c", 2, true },
	{ "/a/**/b/**/c", "/a/x/b/y/z/d", 2, false },
	{ "/a/**/b/c", "/a/b/b/c", 2, true },
	{ "/a/**/b/c", "/a/b/c/b/c", 2, true },
	{ "/a/**/b/c", "/a/b/c/b/d", 2, false },
	/* a trailing "**": the prefix itself and up to depth levels below */
	{ "/system.slice/**", "/system.slice", 1, true },
	{ "/system.slice/**", "/system.slice/a.service", 1, true },
	{ "/system.slice/**", "/system.slice/b.service/sub", 1, false },
	{ "/system.slice/**", "/system.slice/b.service/sub", 2, true },
	{ "/system.slice/**", "/system.slice/b/c/d", 2, false },
	{ "/system.slice/**", "/system.slice/a.service", 0, false },
	{ "/system.slice/**", "/system.slice", 0, true },
	{ "/system.slice/**", "/other.slice/a", 2, false },
	{ "/system.slice/**", "/", 2, false },
	{ "/**", "/", 0, true },
	{ "/**", "/a/b", 2, true },
	{ "/**", "/a/b/c", 2, false },
	{ "/a/**/**", "/a/b/c/d", 2, true },
	{ "/a/**/b/**", "/a/x/y/b/c/d", 2, true },
	{ "/a/**/b/**", "/a/x/y/b/c/d/e", 2, false },
	/* no wildcard: equality, by components */
	{ "/a/b", "/a/b", 2, true },
	{ "/a/b", "/a/bc", 2, false },
	{ "/a/b", "/a", 2, false },
};

struct ksnap_check_case {
	const char *name, *pattern;
	const char *why;	/* NULL: valid; else a word of the reason */
};

static const struct ksnap_check_case ksnap_check_cases[] = {
	{ "one star", "/system.slice/*.service", NULL },
	{ "globstar then more", "/kubepods.slice/**/*.scope", NULL },
	{ "trailing globstar", "/system.slice/**", NULL },
	{ "star inside", "/machine.slice/libpod-*.scope", NULL },
	{ "eight wildcards", "/*/*/*/*/**/*/*/*", NULL },
	{ "empty component", "/a//*", "empty" },
	{ "trailing slash", "/a/*/", "empty" },
	{ "only a slash and a star", "/*/", "empty" },
	{ "triple star", "/a/***", "'***'" },
	{ "triple star inside", "/a/x***y", "'***'" },
	{ "globstar inside a component", "/a/a**b", "whole" },
	{ "globstar at a component's end", "/a/b**", "whole" },
	{ "globstar at a component's start", "/**b", "whole" },
	{ "dot", "/a/./*", "'.'" },
	{ "dot dot", "/a/../*", "'.'" },
	{ "dot dot last", "/*/..", "'.'" },
	{ "nine wildcards", "/*/*/*/*/*/*/*/*/*", "wildcards" },
	{ "nine in one component", "/*a*b*c*d*e*f*g*h*", "wildcards" },
	{ "relative", "a/*", "start" },
};

struct ksnap_owner_case {
	const char *name;
	const char *entries[4];
	unsigned int nr;
	const char *path;
	unsigned int depth;
	int owner;		/* the index of the first matching pattern, or -1 */
};

/*
 * The entry a cgroup's columns come from: the first pattern it matches,
 * however many do; a plain path is never the owner (it names its cgroup
 * by identity, and comes first in the columns anyway).
 */
static const struct ksnap_owner_case ksnap_owner_cases[] = {
	{ "a path, then a pattern", { "/a/b", "/a/*" }, 2, "/a/b", 2, 1 },
	{ "a pattern, then a path", { "/a/*", "/a/b" }, 2, "/a/b", 2, 0 },
	{ "subtree first", { "/system.slice/**", "/system.slice/*.service" }, 2,
	  "/system.slice/a.service", 2, 0 },
	{ "service first", { "/system.slice/*.service", "/system.slice/**" }, 2,
	  "/system.slice/a.service", 2, 0 },
	{ "the subtree's own", { "/system.slice/*.service", "/system.slice/**" },
	  2, "/system.slice", 2, 1 },
	{ "too deep for both", { "/system.slice/*.service", "/system.slice/**" },
	  2, "/system.slice/a/b/c", 2, -1 },
	{ "the depth decides", { "/**", "/a/**" }, 2, "/a/b/c", 2, 1 },
	{ "the same pattern twice", { "/a/*", "/a/*" }, 2, "/a/b", 2, 0 },
	{ "three, the last", { "/x/*", "/a/*.scope", "/a/**/*" }, 3,
	  "/a/b/c.service", 2, 2 },
	{ "none matches", { "/a/*", "/b/*" }, 2, "/c/d", 2, -1 },
	{ "only paths", { "/a/b", "/a" }, 2, "/a/b", 2, -1 },
	{ "no entries", { NULL }, 0, "/a", 2, -1 },
};

#endif /* KSNAP_CGPATTERN_CASES_H */

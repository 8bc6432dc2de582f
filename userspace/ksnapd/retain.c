// SPDX-License-Identifier: MIT
/* ksnapd's output files: moved aside at a run's start (retain.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "retain.h"
#include "sys.h"

/* ".N", ".resumed.N", and with old ".old.K" components, then the end. */
static bool suffix_ok(const char *s, bool old)
{
	const char *d;

	while (*s) {
		if (!strncmp(s, ".resumed.", 9))
			d = s + 9;
		else if (old && !strncmp(s, ".old.", 5))
			d = s + 5;
		else if (*s == '.')
			d = s + 1;
		else
			return false;
		if (!isdigit((unsigned char)*d))
			return false;
		while (isdigit((unsigned char)*d))
			d++;
		s = d;
	}
	return true;
}

/* name is p ("%g": digits, "%%": "%") and a suffix (old: any .old.K). */
static bool match(const char *p, const char *s, bool old)
{
	for (; *p; p++, s++) {
		if (p[0] == '%' && p[1] == 'g') {
			while (isdigit((unsigned char)*s))
				if (match(p + 2, ++s, old))
					return true;
			return false;
		}
		if (p[0] == '%' && p[1] == '%')
			p++;
		if (*s != *p)
			return false;
	}
	return suffix_ok(s, old);
}

bool ksnapd_retain_match(const char *stem, const char *name)
{
	return match(stem, name, true);
}

/* Directory and file name of path, into dir (PATH_MAX) and *file. */
static void split_path(const char *path, char *dir, const char **file)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, PATH_MAX, ".");
	else if (slash == path)
		snprintf(dir, PATH_MAX, "/");
	else
		snprintf(dir, PATH_MAX, "%.*s", (int)(slash - path), path);
	*file = slash ? slash + 1 : path;
}

static void free_names(char **names, int n)
{
	while (n-- > 0)
		free(names[n]);
	free(names);
}

/* The K of "stem.old.K..." (from 1), or 0. */
static unsigned long old_number(const char *stem, const char *name)
{
	size_t len = strlen(stem);
	unsigned long k;
	char *end;

	if (strncmp(name, stem, len) || strncmp(name + len, ".old.", 5) ||
	    !isdigit((unsigned char)name[len + 5]))
		return 0;
	errno = 0;
	k = strtoul(name + len + 5, &end, 10);
	return errno || !suffix_ok(end, false) ? 0 : k;
}

int ksnapd_move_aside(const char *base, FILE *log, char *err, size_t errlen)
{
	char dir[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
	size_t len;
	unsigned long k = 0, v;
	const char *stem;
	char **names;
	int n, i, moved = 0, ret = 0, w;

	split_path(base, dir, &stem);
	len = strlen(stem);
	n = ksnap_sys_list_dir(dir, &names);
	if (n < 0) {
		snprintf(err, errlen, "%.200s: listing the earlier files: %s",
			 dir, strerror(-n));
		return n;
	}
	for (i = 0; i < n; i++) {
		v = old_number(stem, names[i]);
		if (v > k)
			k = v;
	}
	k++;
	for (i = 0; i < n && !ret; i++) {
		const char *name = names[i];

		if (strncmp(name, stem, len) || !suffix_ok(name + len, false))
			continue;
		w = snprintf(from, sizeof(from), "%s/%s", dir, name);
		if (w < 0 || (size_t)w >= sizeof(from) ||
		    snprintf(to, sizeof(to), "%s/%s.old.%lu%s", dir, stem, k,
			     name + len) >= (int)sizeof(to)) {
			ret = -ENAMETOOLONG;
			snprintf(err, errlen, "%.200s: moving it aside: %s",
				 name, strerror(-ret));
			break;
		}
		ret = ksnap_sys_rename(from, to);
		if (ret)
			snprintf(err, errlen, "%.200s: moving it aside to "
				 "%.200s: %s", from, to, strerror(-ret));
		else
			moved++;
	}
	free_names(names, n);
	if (moved && log)
		fprintf(log, "ksnapd: %s: an earlier run's %d file%s moved "
			"aside to %s.old.%lu*\n", base, moved,
			moved == 1 ? "" : "s", base, k);
	return ret ? ret : moved;
}

// SPDX-License-Identifier: MIT
/* ksnapd's output files: moved aside at a run's start, retention (retain.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int oldest_first(const void *a, const void *b)
{
	const struct ksnapd_retain_file *x = a, *y = b;

	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns < y->mtime_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

unsigned int ksnapd_retain_pick(struct ksnapd_retain_file *f, unsigned int n,
				const struct ksnapd_retain_limits *lim,
				int64_t now_ns, uint64_t *bytes)
{
	uint64_t total = 0;
	unsigned int i, picked = 0;
	bool old;

	*bytes = 0;
	if (n)
		qsort(f, n, sizeof(*f), oldest_first);
	for (i = 0; i < n; i++) {
		f[i].remove = false;
		total += f[i].size;
	}
	for (i = 0; i < n; i++) {
		if (f[i].open)
			continue;
		old = lim->max_age_ns && now_ns > f[i].mtime_ns &&
		      (uint64_t)(now_ns - f[i].mtime_ns) > lim->max_age_ns;
		if (!old && !(lim->max_size && total > lim->max_size))
			continue;
		f[i].remove = true;
		total -= f[i].size;
		*bytes += f[i].size;
		picked++;
	}
	return picked;
}

/* The output's regular files in dir, into *files (malloc'ed). */
static int list_files(const char *dir, const char *stem, const char *open,
		      char **names, int n, struct ksnapd_retain_file *files)
{
	char p[PATH_MAX];
	struct stat st;
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (!match(stem, names[i], true))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, names[i]) >=
		    (int)sizeof(p) ||
		    ksnap_sys_stat(p, &st) || !S_ISREG(st.st_mode))
			continue;	/* gone meanwhile, or not a file */
		files[k] = (struct ksnapd_retain_file){
			.name = names[i],
			.size = (uint64_t)st.st_size,
			.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL +
				    st.st_mtim.tv_nsec,
			.open = open && !strcmp(open, names[i]),
		};
		k++;
	}
	return k;
}

int ksnapd_retain(const char *path, const char *open_path,
		  const struct ksnapd_retain_limits *lim, int64_t now_ns,
		  uint64_t *files, uint64_t *bytes, FILE *log, char *err,
		  size_t errlen)
{
	char dir[PATH_MAX], p[PATH_MAX], odir[PATH_MAX];
	struct ksnapd_retain_file *f;
	const char *stem, *open = NULL;
	uint64_t removed_bytes = 0, want;
	unsigned int picked, removed = 0;
	char **names;
	int n, k, i, ret = 0;

	if (!lim->max_size && !lim->max_age_ns)
		return 0;
	split_path(path, dir, &stem);
	if (open_path)
		split_path(open_path, odir, &open);
	n = ksnap_sys_list_dir(dir, &names);
	if (n < 0) {
		snprintf(err, errlen, "%.200s: listing the output files: %s",
			 dir, strerror(-n));
		return n;
	}
	f = calloc((size_t)(n ? n : 1), sizeof(*f));
	if (!f) {
		free_names(names, n);
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	k = list_files(dir, stem, open, names, n, f);
	picked = ksnapd_retain_pick(f, (unsigned int)k, lim, now_ns, &want);
	for (i = 0; i < k && picked; i++) {
		int r;

		if (!f[i].remove)
			continue;
		r = snprintf(p, sizeof(p), "%s/%s", dir, f[i].name) >=
		    (int)sizeof(p) ? -ENAMETOOLONG : ksnap_sys_unlink(p);
		if (r == -ENOENT)
			continue;
		if (r) {
			if (!ret)
				snprintf(err, errlen, "%.200s: removing it: "
					 "%s", p, strerror(-r));
			ret = ret ? ret : r;
			continue;
		}
		removed++;
		removed_bytes += f[i].size;
	}
	if (removed && log)
		fprintf(log, "ksnapd: %s: removed the %u oldest closed file%s "
			"(%llu bytes) to keep the output within "
			"--output-max-size %llu and --output-max-age %llu s "
			"(0: none)\n", path, removed, removed == 1 ? "" : "s",
			(unsigned long long)removed_bytes,
			(unsigned long long)lim->max_size,
			(unsigned long long)(lim->max_age_ns / 1000000000ULL));
	*files += removed;
	*bytes += removed_bytes;
	free(f);
	free_names(names, n);
	return ret;
}

int ksnapd_parse_size(const char *s, uint64_t *bytes)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1])
		return -EINVAL;
	if (shift && v > (ULLONG_MAX >> shift))
		return -EINVAL;
	*bytes = (uint64_t)v << shift;
	return 0;
}

int ksnapd_parse_age(const char *s, uint64_t *ns)
{
	unsigned long long v, unit;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 's':
		unit = 1;
		break;
	case 'm':
		unit = 60;
		break;
	case 'h':
		unit = 3600;
		break;
	case 'd':
		unit = 86400;
		break;
	case '\0':
		if (v)
			return -EINVAL;	/* a unit, but for 0 */
		unit = 1;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1])
		return -EINVAL;
	if (v > ULLONG_MAX / 1000000000ULL / unit)
		return -EINVAL;
	*ns = (uint64_t)(v * unit * 1000000000ULL);
	return 0;
}

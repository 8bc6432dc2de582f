// SPDX-License-Identifier: MIT
/* --history with --load: ring_kb from a time span (ringsize.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksnap_abi.h"
#include "ringsize.h"

#define DEFAULT_PERIOD_US	1000
#define DEFAULT_METRICS		3
/* The module's column limit: what a group (all, vmstat...) may give. */
#define MAX_COLUMNS		256

/* The value of "key=" among the blank-separated PARAMS, its length. */
static const char *param(const char *params, const char *key, size_t *len)
{
	size_t k = strlen(key);
	const char *p = params;

	while (p && *p) {
		while (*p == ' ' || *p == '\t')
			p++;
		*len = strcspn(p, " \t");
		if (*len > k && !strncmp(p, key, k) && p[k] == '=') {
			*len -= k + 1;
			return p + k + 1;
		}
		p += *len;
	}
	return NULL;
}

/*
 * Items of a comma-separated list of len bytes.  A cgroup pattern is one
 * item: what it matches is the module's to find (ksnapd.8 says to give
 * ring_kb= then).
 */
static unsigned int items(const char *v, size_t len)
{
	unsigned int n = len ? 1 : 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += v[i] == ',';
	return n;
}

/* Does the list of len bytes name a group (whose size only the module knows)? */
static int has_group(const char *v, size_t len)
{
	static const char *const groups[] = { "all", "vmstat", "cpu",
					      "container", "pod" };
	size_t i, n, g;

	for (i = 0; i < len; i += n + 1) {
		n = strcspn(v + i, ",");
		if (i + n > len)
			n = len - i;
		for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
			if (n == strlen(groups[g]) &&
			    !strncmp(v + i, groups[g], n))
				return 1;
	}
	return 0;
}

static unsigned int columns(const char *params)
{
	const char *m, *c;
	size_t ml = 0, cl = 0;
	unsigned int nm, nc;

	m = param(params, "metrics", &ml);
	c = param(params, "cgroups", &cl);
	nc = c ? items(c, cl) : 0;
	if (!m)
		return DEFAULT_METRICS + nc;
	if (has_group(m, ml))
		return MAX_COLUMNS;
	nm = items(m, ml);
	return nm * (nc ? nc : 1);
}

long ringsize_kb(uint64_t span_ns, const char *params)
{
	const char *v;
	size_t len = 0;
	uint64_t period_ns = DEFAULT_PERIOD_US * 1000ULL, recs, bytes;
	char *end;

	if (param(params, "ring_kb", &len))
		return 0;
	v = param(params, "period_us", &len);
	if (v) {
		period_ns = strtoull(v, &end, 10) * 1000ULL;
		if (end != v + len || !period_ns)
			return -EINVAL;
	}
	/* The module keeps every record that fits: no power of two. */
	recs = span_ns / period_ns + 2;
	if (recs > RINGSIZE_KB_MAX * 1024ULL)
		return -ERANGE;
	bytes = recs * KSNAP_RECORD_SIZE((uint64_t)columns(params));
	bytes = (bytes + 1023) / 1024;
	if (bytes > RINGSIZE_KB_MAX)
		return -ERANGE;
	return bytes < RINGSIZE_KB_MIN ? RINGSIZE_KB_MIN : (long)bytes;
}

// SPDX-License-Identifier: MIT
/*
 * The one JSON reader of the checker and its users (json.h): the members
 * of flat objects (STATS, a META line's metadata, an events line).
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"

const char *json_skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
			   *p == '\r'))
		p++;
	return p;
}

const char *json_string_end(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* A scalar of a flat object: up to what ends it; NULL if none. */
static const char *flat_end(const char *p, const char *end)
{
	const char *q = p;

	if (p < end && *p == '"')
		return json_string_end(p, end);
	while (q < end && *q != ',' && *q != '}' && *q != ' ' &&
	       *q != '\t' && *q != '{' && *q != '[' && *q != '"')
		q++;
	return q > p ? q : NULL;
}

static const char *nested_end(const char *p, const char *end)
{
	int depth = 0;

	if (p >= end)
		return NULL;
	if (*p == '"')
		return json_string_end(p, end);
	if (*p != '{' && *p != '[') {
		const char *q = p;

		while (q < end && *q != ',' && *q != '}' && *q != ']' &&
		       *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
			q++;
		return q > p ? q : NULL;
	}
	for (; p < end; p++) {
		if (*p == '"') {
			p = json_string_end(p, end);
			if (!p)
				return NULL;
			p--;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && !--depth) {
			return p + 1;
		}
	}
	return NULL;
}

const char *json_value_end(const char *p, const char *end, bool nested)
{
	return nested ? nested_end(p, end) : flat_end(p, end);
}

int json_member(const char **pp, const char *end, bool nested,
		const char **key, size_t *key_len, const char **val,
		size_t *val_len)
{
	const char *k = json_skip_ws(*pp, end), *ke, *v, *ve;

	if (k >= end || *k != '"')
		return -1;
	ke = json_string_end(k, end);
	if (!ke)
		return -1;
	v = json_skip_ws(ke, end);
	if (v >= end || *v != ':')
		return -1;
	v = json_skip_ws(v + 1, end);
	ve = json_value_end(v, end, nested);
	if (!ve)
		return -1;
	*pp = json_skip_ws(ve, end);
	*key = k + 1;
	*key_len = (size_t)(ke - 1 - (k + 1));
	*val = v;
	*val_len = (size_t)(ve - v);
	return 0;
}

bool json_get(const char *p, size_t n, const char *key,
		   const char **val, size_t *len)
{
	const char *end = p + n, *k;
	size_t kl = strlen(key), klen;

	p = json_skip_ws(p, end);
	if (p >= end || *p++ != '{')
		return false;
	for (;;) {
		if (json_member(&p, end, true, &k, &klen, val, len))
			return false;
		if (klen == kl && !memcmp(k, key, kl))
			return true;
		if (p >= end || *p != ',')
			return false;
		p++;
	}
}

char *json_string(const char *val, size_t len)
{
	char *out, *o;
	size_t i;

	if (len < 2 || val[0] != '"' || val[len - 1] != '"')
		return NULL;
	out = malloc(len);
	if (!out)
		return NULL;
	o = out;
	for (i = 1; i + 1 < len; i++) {
		char c = val[i];

		if (c != '\\' || i + 2 >= len) {
			*o++ = c;
			continue;
		}
		c = val[++i];
		switch (c) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'u': {
			unsigned int u = 0, d;

			for (d = 0; d < 4 && i + 1 + d + 1 < len; d++) {
				char h = val[i + 1 + d];

				u = u * 16 + (unsigned int)(h >= 'a' ? h - 'a' + 10 :
					      h >= 'A' ? h - 'A' + 10 : h - '0');
			}
			i += d;
			*o++ = u >= 0x20 && u < 0x7f ? (char)u : '?';
			break;
		}
		default:	/* \" \\ \/ */
			*o++ = c;
		}
	}
	*o = '\0';
	return out;
}


bool json_get_u64(const char *p, size_t n, const char *key, uint64_t *v)
{
	const char *val;
	size_t len, i;
	uint64_t x = 0;

	if (!json_get(p, n, key, &val, &len) || !len || len > 20)
		return false;
	for (i = 0; i < len; i++) {
		if (val[i] < '0' || val[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(val[i] - '0');
	}
	*v = x;
	return true;
}

bool json_find_digits(const char *p, size_t n, const char *key,
		      const char **num, size_t *len)
{
	const char *end = p + n;
	size_t kl = strlen(key);

	while (p < end) {
		const char *q = memchr(p, '"', (size_t)(end - p));

		if (!q)
			return false;
		if ((size_t)(end - q) > kl + 2 && !memcmp(q + 1, key, kl) &&
		    q[kl + 1] == '"' && q[kl + 2] == ':') {
			const char *e = q + kl + 3;

			*num = e;
			while (e < end && *e >= '0' && *e <= '9')
				e++;
			*len = (size_t)(e - *num);
			return true;
		}
		p = q + 1;
	}
	return false;
}

/* SPDX-License-Identifier: MIT */
/*
 * The two steps every flat-JSON scanner here takes (STATS in verify_stream.c,
 * META and events in plot_json.c): over white space, and over a string.
 * No allocation, no unescaping; p..end is the text, not NUL-terminated.
 */
#ifndef KSNAP_JSON_SCAN_H
#define KSNAP_JSON_SCAN_H

/* The first byte at p that is not JSON white space, or end. */
static inline const char *json_skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
			   *p == '\r'))
		p++;
	return p;
}

/* A JSON string at p (its opening quote), escapes skipped: its end (past
 * the closing quote), or NULL when it is not closed before end. */
static inline const char *json_string_end(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

#endif /* KSNAP_JSON_SCAN_H */

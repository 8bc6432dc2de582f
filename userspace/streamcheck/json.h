/* SPDX-License-Identifier: MIT */
/*
 * The one JSON reader here (json.c), for flat objects: STATS in
 * verify_stream.c and verify_stats.c, a META line's metadata and an
 * events line in ksnap-plot.  No allocation but json_string()'s, no unescaping but its;
 * p..end is the text, not NUL-terminated.
 */
#ifndef KSNAP_JSON_H
#define KSNAP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first byte at p that is not JSON white space, or end. */
const char *json_skip_ws(const char *p, const char *end);
/* A JSON string at p (its opening quote), escapes skipped: its end (past
 * the closing quote), or NULL when it is not closed before end. */
const char *json_string_end(const char *p, const char *end);
/*
 * The end of the value at p, or NULL if none: a string, or a scalar up to
 * what ends it.  nested: an object or array is a value too, skipped
 * whole (nesting and strings in it); else it is none (a flat object).
 */
const char *json_value_end(const char *p, const char *end, bool nested);
/*
 * One "key": value member at *pp (white space around it skipped): its key
 * (without the quotes) and its value as written; *pp then points past the
 * white space after it (at "," or "}").  -1 if it is not one.
 */
int json_member(const char **pp, const char *end, bool nested,
		const char **key, size_t *key_len, const char **val,
		size_t *val_len);
/* A flat JSON object's member `key` (nested values skipped whole), its
 * value as written (strings with their quotes); false if absent. */
bool json_get(const char *p, size_t n, const char *key, const char **val,
	      size_t *len);
/* A JSON string value (with its quotes) unescaped to a new C string;
 * \u escapes of non-ASCII become '?'.  NULL: not a string, or ENOMEM. */
char *json_string(const char *val, size_t len);

/* A member of digits only (at most 20) as a number; false if absent or
 * not one.  Nested values skipped as json_get() does. */
bool json_get_u64(const char *p, size_t n, const char *key, uint64_t *v);
/*
 * The checks' lookup (verify_stats.c, through ksv_json_u64()): the first
 * "key": written compactly, anywhere in p[0, n), and the decimal digits
 * right after its colon (*len 0: none); false if there is no such key.
 */
bool json_find_digits(const char *p, size_t n, const char *key,
		      const char **num, size_t *len);

#endif /* KSNAP_JSON_H */

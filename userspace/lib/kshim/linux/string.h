/* SPDX-License-Identifier: MIT */
/*
 * kshim (README): <linux/string.h>, the C library's <string.h> and the
 * kernel's strchrnul() and strnstr(), as kshim_ functions (the C library
 * has the one only with _GNU_SOURCE, the other not at all).
 */
#ifndef KSHIM_LINUX_STRING_H
#define KSHIM_LINUX_STRING_H

#include_next <linux/string.h>
#include <string.h>

/* The first c in s, or the NUL at its end. */
static inline char *kshim_strchrnul(const char *s, int c)
{
	while (*s && *s != (char)c)
		s++;
	return (char *)s;
}

/* The first s2 within the first len bytes of s1, or NULL. */
static inline char *kshim_strnstr(const char *s1, const char *s2, size_t len)
{
	size_t l2 = strlen(s2);

	if (!l2)
		return (char *)s1;
	for (; len >= l2; len--, s1++)
		if (!memcmp(s1, s2, l2))
			return (char *)s1;
	return NULL;
}

#define strchrnul kshim_strchrnul
#define strnstr kshim_strnstr

#endif /* KSHIM_LINUX_STRING_H */

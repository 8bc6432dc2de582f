/* SPDX-License-Identifier: MIT */
/*
 * The messages every program here writes: a notice on a log that may be
 * absent, and a command-line error with the pointer to --help.
 */
#ifndef KSNAP_MSG_H
#define KSNAP_MSG_H

#include <stdbool.h>
#include <stdio.h>

/* fmt on f, unless f is NULL; out at once when flush (the log may be a
 * file another process reads). */
void ksnap_say(FILE *f, bool flush, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "prog: " fmt (with arg) and "Try 'prog --help' ..." on stderr, then
 * exit(status). */
void ksnap_usage_error(const char *prog, int status, const char *fmt,
		       const char *arg) __attribute__((noreturn));

#endif /* KSNAP_MSG_H */

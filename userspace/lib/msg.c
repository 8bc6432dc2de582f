// SPDX-License-Identifier: MIT
/* The messages every program here writes (msg.h). */
#include <stdarg.h>
#include <stdlib.h>

#include "msg.h"

void ksnap_say(FILE *f, bool flush, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (flush)
		fflush(f);
}

void ksnap_usage_error(const char *prog, int status, const char *fmt,
		       const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	exit(status);
}

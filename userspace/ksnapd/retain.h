/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's output files over time: an earlier run's files moved aside
 * before a run writes its own.
 *
 * The files of an output -o FILE are named FILE followed by any of the
 * components ".N", ".resumed.N" and ".old.K" (N, K decimal; outfile.h);
 * when FILE's name holds "%g", that stands for a collection number (one
 * or more digits) and "%%" for "%".  Nothing else in the directory is
 * ksnapd's, and nothing else is moved or removed.
 *
 * Moved aside.  A run never truncates a file and never writes among an
 * earlier run's: before its first collection's file is created (unless
 * it resumes a collection an earlier run began: outfile.h), the files
 * named BASE (that file's name), BASE.N, BASE.resumed.N and
 * BASE.N.resumed.M are renamed to BASE.old.K, BASE.old.K.N, ..., their
 * suffix kept, K one past the highest BASE.old.K there (1 when none): the
 * runs moved aside are numbered in the order they were written.
 */
#ifndef KSNAPD_RETAIN_H
#define KSNAPD_RETAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Is name (a directory entry) one of the files of the output whose file
 * name (no directory) is stem, "%g" standing for any collection number?
 */
bool ksnapd_retain_match(const char *stem, const char *name);

/*
 * Move the files of an earlier run named base (a path, no "%g") aside, as
 * above, said on log (may be NULL).  Returns how many were moved, or -errno with
 * err set.
 */
int ksnapd_move_aside(const char *base, FILE *log, char *err, size_t errlen);

#endif /* KSNAPD_RETAIN_H */

/* SPDX-License-Identifier: MIT */
/*
 * ksnapd's output files over time: an earlier run's files moved aside
 * before a run writes its own, and the files kept within the limits the
 * user sets (--output-max-size, --output-max-age).
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
 *
 * Retention.  The files are taken oldest first (by modification time,
 * then name); a closed file is removed while the files together are
 * larger than max_size, and when it was last written more than max_age
 * ago.  The open file is never removed, nor counted as removable.  0 is no
 * limit.
 */
#ifndef KSNAPD_RETAIN_H
#define KSNAPD_RETAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The defaults of --output-max-size and --output-max-age. */
#define KSNAPD_RETAIN_MAX_SIZE	(4ULL << 30)		/* 4 GiB */
#define KSNAPD_RETAIN_MAX_AGE_NS (7ULL * 86400 * 1000000000ULL)	/* 7 days */
/* How often a collection's output is checked against them, at most. */
#define KSNAPD_RETAIN_INTERVAL_NS (10ULL * 1000000000ULL)

struct ksnapd_retain_limits {
	uint64_t max_size;	/* bytes, 0: none */
	uint64_t max_age_ns;	/* 0: none */
};

/* One file of the output, for ksnapd_retain_pick(). */
struct ksnapd_retain_file {
	const char *name;
	uint64_t size;
	int64_t mtime_ns;	/* CLOCK_REALTIME */
	bool open;		/* being written: never removed */
	bool remove;		/* set by ksnapd_retain_pick() */
};

/*
 * The retention policy alone: sorts f[0, n) oldest first and sets
 * .remove on the files to remove for lim at now_ns (CLOCK_REALTIME).
 * Returns how many, their bytes in *bytes.
 */
unsigned int ksnapd_retain_pick(struct ksnapd_retain_file *f, unsigned int n,
				const struct ksnapd_retain_limits *lim,
				int64_t now_ns, uint64_t *bytes);

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

/*
 * Apply lim to the files of output path (as given to -o; its directory
 * has no "%g") at now_ns, never removing open_path (the file being
 * written, or NULL).  Adds what it removed to *files and *bytes, and says
 * it on log.  Returns 0 or -errno with err set; a file that went away
 * meanwhile is not an error.
 */
int ksnapd_retain(const char *path, const char *open_path,
		  const struct ksnapd_retain_limits *lim, int64_t now_ns,
		  uint64_t *files, uint64_t *bytes, FILE *log, char *err,
		  size_t errlen);

/* "4G", "512M", "100k", "1000" (bytes; binary units): 0 or -EINVAL. */
int ksnapd_parse_size(const char *s, uint64_t *bytes);
/* "7d", "12h", "30m", "90s", "0": 0 or -EINVAL. */
int ksnapd_parse_age(const char *s, uint64_t *ns);

#endif /* KSNAPD_RETAIN_H */

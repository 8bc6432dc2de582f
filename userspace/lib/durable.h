/* SPDX-License-Identifier: MIT */
/*
 * Durability off the draining path.  The thread that drains the ring only
 * writes (write(2), into the page cache); a thread of its own calls
 * fsync() on the file, one call after another while there are bytes
 * written since the last one began, and never while holding anything the
 * drain takes for longer than a few loads and stores.  A slow disk then
 * slows the fsyncs, not the drain.
 *
 * The bound.  The bytes written but not yet made durable by an fsync that
 * has returned (the backlog, ksnap_durable_backlog()) may not exceed
 * bound (KSNAP_DURABLE_BOUND, 64 MiB): that is what ksnapd holds in the
 * page cache on behalf of a slow disk.  A writer checks before it adds a
 * row (ksnap_durable_room()); when there is no room the row is not
 * written and counted as lost (STATS ksnapd_rows_dropped), and writing
 * resumes when an fsync returns.  The drain never waits for one.  (The
 * kernel may still throttle write(2) itself when the machine's dirty
 * memory passes vm.dirty_ratio; the bound keeps ksnapd's own share of it
 * to 64 MiB.)
 *
 * Files.  A file the writer is done with is handed over
 * (ksnap_durable_close()): the thread makes it durable, then closes it.
 * ksnap_durable_fini() makes everything durable, then stops the thread:
 * it waits for the disk.
 *
 * The thread starts at the first write it is told about.
 */
#ifndef KSNAP_DURABLE_H
#define KSNAP_DURABLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KSNAP_DURABLE_BOUND	(64ULL * 1024 * 1024)
/* Files handed over and not yet closed by the thread, at most. */
#define KSNAP_DURABLE_CLOSING	8

struct ksnap_durable {
	uint64_t bound;			/* bytes; tests may lower it */
	bool started;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* work for the thread, or done */
	/* Under lock (written and synced also read without it). */
	bool quit;
	int fd;				/* the file being written, or -1 */
	uint64_t written;		/* bytes written, every file */
	uint64_t synced;		/* of them, durable */
	int closing[KSNAP_DURABLE_CLOSING];	/* handed over, in order */
	uint64_t closing_at[KSNAP_DURABLE_CLOSING];	/* written then */
	unsigned int nr_closing;
	int err;			/* an fsync's error, not yet said */
	/* The thread's figures. */
	uint64_t fsyncs;		/* calls that returned */
	uint64_t max_backlog;		/* the largest backlog seen */
};

/* Set up; the thread is started by the first ksnap_durable_written(). */
void ksnap_durable_init(struct ksnap_durable *d);
/* Make everything durable, stop the thread.  Returns an fsync's error. */
int ksnap_durable_fini(struct ksnap_durable *d);

/*
 * n bytes were written to fd (a regular file): the thread will make them
 * durable.  Never waits.  Returns 0, the error of an earlier fsync (once),
 * or -errno when the thread cannot be started.
 */
int ksnap_durable_written(struct ksnap_durable *d, int fd, size_t n);

/* Bytes written and not yet durable. */
uint64_t ksnap_durable_backlog(const struct ksnap_durable *d);

/* May n more bytes be written without exceeding the bound? */
static inline bool ksnap_durable_room(const struct ksnap_durable *d,
				      uint64_t n)
{
	return ksnap_durable_backlog(d) + n <= d->bound;
}

/*
 * The writer is done with fd: the thread makes it durable and closes it.
 * Never waits; closes fd at once (not made durable) only when
 * KSNAP_DURABLE_CLOSING files are already waiting.  Returns 0 or what
 * that close returned.
 */
int ksnap_durable_close(struct ksnap_durable *d, int fd);

/* Wait until what was written before is durable (tests, exit). */
void ksnap_durable_wait(struct ksnap_durable *d);

#endif /* KSNAP_DURABLE_H */

// SPDX-License-Identifier: MIT
/* fsync on a thread of its own, behind the writer (durable.h). */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "durable.h"
#include "sys.h"

void ksnap_durable_init(struct ksnap_durable *d)
{
	memset(d, 0, sizeof(*d));
	d->bound = KSNAP_DURABLE_BOUND;
	d->fd = -1;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
}

uint64_t ksnap_durable_backlog(const struct ksnap_durable *d)
{
	return __atomic_load_n(&d->written, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&d->synced, __ATOMIC_ACQUIRE);
}

/*
 * The next fsync, under lock: a file handed over first (every byte of it
 * was written before the current file's), else the current file when
 * bytes were written since the last fsync began.  Returns false when
 * there is nothing to do.
 */
static bool next_job(struct ksnap_durable *d, int *fd, uint64_t *at,
		     bool *closing)
{
	if (d->nr_closing) {
		*fd = d->closing[0];
		*at = d->closing_at[0];
		*closing = true;
		return true;
	}
	if (d->fd >= 0 && d->written > d->synced) {
		*fd = d->fd;
		*at = d->written;
		*closing = false;
		return true;
	}
	return false;
}

static void *durable_main(void *arg)
{
	struct ksnap_durable *d = arg;
	bool closing;
	uint64_t at;
	int fd, ret;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		if (!next_job(d, &fd, &at, &closing)) {
			if (d->quit)
				break;
			pthread_cond_wait(&d->cond, &d->lock);
			continue;
		}
		/* The fsync itself holds nothing the writer takes. */
		pthread_mutex_unlock(&d->lock);
		do
			ret = ksnap_sys_fsync(fd);
		while (ret == -EINTR);
		if (closing)
			ksnap_sys_close(fd);
		pthread_mutex_lock(&d->lock);
		if (closing) {
			d->nr_closing--;
			memmove(d->closing, d->closing + 1,
				d->nr_closing * sizeof(d->closing[0]));
			memmove(d->closing_at, d->closing_at + 1,
				d->nr_closing * sizeof(d->closing_at[0]));
		}
		if (ret && !d->err)
			d->err = ret;
		if (at > d->synced)
			__atomic_store_n(&d->synced, at, __ATOMIC_RELEASE);
		d->fsyncs++;
		pthread_cond_broadcast(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* The thread, with every signal blocked: they are the main loop's. */
static int start(struct ksnap_durable *d)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&d->thread, NULL, durable_main, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	d->started = true;
	return 0;
}

int ksnap_durable_written(struct ksnap_durable *d, int fd, size_t n)
{
	uint64_t backlog;
	int ret;

	if (!d->started) {
		ret = start(d);
		if (ret)
			return ret;
	}
	pthread_mutex_lock(&d->lock);
	d->fd = fd;
	__atomic_store_n(&d->written, d->written + n, __ATOMIC_RELEASE);
	backlog = d->written - d->synced;
	if (backlog > d->max_backlog)
		d->max_backlog = backlog;
	ret = d->err;
	d->err = 0;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	return ret;
}

int ksnap_durable_close(struct ksnap_durable *d, int fd)
{
	if (!d->started)
		return ksnap_sys_close(fd);
	pthread_mutex_lock(&d->lock);
	if (d->fd == fd)
		d->fd = -1;
	if (d->nr_closing == KSNAP_DURABLE_CLOSING) {
		pthread_mutex_unlock(&d->lock);
		return ksnap_sys_close(fd);
	}
	d->closing[d->nr_closing] = fd;
	d->closing_at[d->nr_closing] = d->written;
	d->nr_closing++;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

void ksnap_durable_wait(struct ksnap_durable *d)
{
	if (!d->started)
		return;
	pthread_mutex_lock(&d->lock);
	while (d->nr_closing || (d->fd >= 0 && d->synced < d->written))
		pthread_cond_wait(&d->cond, &d->lock);
	pthread_mutex_unlock(&d->lock);
}

int ksnap_durable_fini(struct ksnap_durable *d)
{
	int ret = 0;

	if (d->started) {
		pthread_mutex_lock(&d->lock);
		d->quit = true;
		pthread_cond_broadcast(&d->cond);
		pthread_mutex_unlock(&d->lock);
		pthread_join(d->thread, NULL);
		d->started = false;
		ret = d->err;
	}
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
	return ret;
}

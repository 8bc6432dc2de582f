// SPDX-License-Identifier: MIT
/* ksnapd --textfile: node_exporter's textfile collector (textfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"
#include "textfile.h"

/* All of buf to fd, short writes and EINTR retried. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = ksnap_sys_write(fd, buf, len);

		if (n == -EINTR)
			continue;
		if (n < 0)
			return (int)n;
		if (!n)
			return -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int textfile_write(const char *dir, const char *buf, size_t len, char *err,
		   size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	const char *what = "open";
	int fd = -1, ret, n;

	n = snprintf(path, sizeof(path), "%s/%s", dir, TEXTFILE_NAME);
	if (n < 0 || (size_t)n >= sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp.%ld", dir, TEXTFILE_NAME,
		     (long)getpid()) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "textfile: %s: path too long", dir);
		return -ENAMETOOLONG;
	}
	/*
	 * A new file, never one found there: a link planted at tmp would have
	 * an O_TRUNC open (as root) truncate what it points at.  A stale one,
	 * left by a crash of a process with this pid, is unlinked (the link,
	 * not its target) and the open tried once more.
	 */
	fd = ksnap_sys_open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
			    O_NOFOLLOW, TEXTFILE_MODE);
	if (fd == -EEXIST) {
		what = "unlink";
		ret = ksnap_sys_unlink(tmp);
		if (ret && ret != -ENOENT)
			goto fail;
		what = "open";
		fd = ksnap_sys_open(tmp, O_WRONLY | O_CREAT | O_EXCL |
				    O_CLOEXEC | O_NOFOLLOW, TEXTFILE_MODE);
	}
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	what = "fchmod";
	ret = ksnap_sys_fchmod(fd, TEXTFILE_MODE);
	if (!ret) {
		what = "write";
		ret = write_all(fd, buf, len);
	}
	if (!ret) {
		what = "fsync";
		ret = ksnap_sys_fsync(fd);
	}
	if (!ret) {
		what = "close";
		ret = ksnap_sys_close(fd);
		fd = -1;
	}
	if (!ret) {
		what = "rename";
		ret = ksnap_sys_rename(tmp, path);
	}
	if (!ret)
		return 0;
	if (fd >= 0)
		ksnap_sys_close(fd);
	ksnap_sys_unlink(tmp);
fail:
	snprintf(err, errlen, "textfile: %s %s (for %s): %s", what, tmp, path,
		 strerror(-ret));
	return ret;
}

int textfile_once(struct textfile *t)
{
	struct web *w = t->cfg.web;
	struct om_buf b = { 0 };
	char err[sizeof(t->err)];
	int ret;

	/* One write at a time: the thread's and a caller's share a name. */
	pthread_mutex_lock(&t->lock);
	ret = web_render_file(w, &b);
	if (ret)
		snprintf(err, sizeof(err), "textfile: rendering: %s",
			 strerror(-ret));
	else
		ret = textfile_write(t->cfg.dir, b.p, b.len, err, sizeof(err));
	om_buf_free(&b);
	pthread_mutex_lock(&w->lock);
	if (ret)
		w->self.textfile_errors++;
	else
		w->self.textfile_writes++;
	pthread_mutex_unlock(&w->lock);
	if (ret && (ret != t->last_err || strcmp(err, t->err)) && t->cfg.log)
		fprintf(t->cfg.log, "ksnapd: %s; the collection goes on, the "
			"file is retried every interval\n", err);
	if (!ret && t->last_err && t->cfg.log)
		fprintf(t->cfg.log, "ksnapd: textfile: %s/%s written again\n",
			t->cfg.dir, TEXTFILE_NAME);
	t->last_err = ret;
	if (ret)
		snprintf(t->err, sizeof(t->err), "%s", err);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

static void *writer(void *arg)
{
	struct textfile *t = arg;
	struct timespec at;

	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		pthread_mutex_unlock(&t->lock);
		textfile_once(t);
		/* The next write an interval after this one ended. */
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += (time_t)(t->cfg.interval_ns / 1000000000ULL);
		at.tv_nsec += (long)(t->cfg.interval_ns % 1000000000ULL);
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&t->lock);
		while (!t->stop &&
		       pthread_cond_timedwait(&t->cond, &t->lock, &at) !=
		       ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int textfile_init(struct textfile *t, const struct textfile_config *cfg,
		  char *err, size_t errlen)
{
	pthread_condattr_t ca;
	int ret;

	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	if (!t->cfg.interval_ns)
		t->cfg.interval_ns = TEXTFILE_DEFAULT_INTERVAL_NS;
	pthread_mutex_lock(&cfg->web->lock);
	cfg->web->self.textfile = true;
	pthread_mutex_unlock(&cfg->web->lock);
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = -pthread_create(&t->thread, NULL, writer, t);
	if (ret) {
		snprintf(err, errlen, "textfile: thread: %s", strerror(-ret));
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		return ret;
	}
	t->running = true;
	if (cfg->log)
		fprintf(cfg->log, "ksnapd: writing %s/%s every %.3g s\n",
			cfg->dir, TEXTFILE_NAME,
			(double)t->cfg.interval_ns * 1e-9);
	return 0;
}

void textfile_fini(struct textfile *t)
{
	if (!t->running)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	textfile_once(t);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	t->running = false;
}

// SPDX-License-Identifier: MIT
/* Removed cgroups through inotify (cgwatch.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cgwatch.h"
#include "sys.h"

int cgwatch_init(struct cgwatch *w, const char *root)
{
	memset(w, 0, sizeof(*w));
	w->root = strdup(root);
	if (!w->root)
		return -ENOMEM;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		w->blind = true;
	return 0;
}

void cgwatch_fini(struct cgwatch *w)
{
	unsigned int i;

	if (w->fd >= 0)
		close(w->fd);
	for (i = 0; i < w->nr_dir; i++)
		free(w->dir[i]);
	free(w->dir);
	free(w->root);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

/* Remember watch wd as the directory of cgroup path p (len bytes). */
static int remember(struct cgwatch *w, int wd, const char *p, size_t len)
{
	unsigned int n = (unsigned int)wd + 1;
	char **more;

	if (wd < 0)
		return -EINVAL;
	if (n > w->nr_dir) {
		more = realloc(w->dir, n * sizeof(*more));
		if (!more)
			return -ENOMEM;
		memset(more + w->nr_dir, 0, (n - w->nr_dir) * sizeof(*more));
		w->dir = more;
		w->nr_dir = n;
	}
	if (w->dir[wd])
		return 0;
	w->dir[wd] = strndup(p, len);
	return w->dir[wd] ? 0 : -ENOMEM;
}

bool cgwatch_exists(const struct cgwatch *w, const char *cgroup)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", w->root, cgroup);
	return ksnap_sys_access(path, F_OK) != -ENOENT;
}

int cgwatch_add(struct cgwatch *w, const char *cgroup)
{
	const char *slash = strrchr(cgroup, '/');
	char path[PATH_MAX];
	size_t plen;
	int wd;

	if (!slash || !slash[1])
		return 0;		/* the root: never removed */
	if (w->fd < 0) {
		w->blind = true;
		return -EBADF;
	}
	plen = (size_t)(slash - cgroup);
	snprintf(path, sizeof(path), "%s%.*s", w->root, (int)plen, cgroup);
	wd = inotify_add_watch(w->fd, path, IN_DELETE | IN_ONLYDIR);
	if (wd < 0 && errno == ENOENT)
		return -ENOENT;		/* its parent is gone: so is it */
	if (wd < 0 || remember(w, wd, cgroup, plen)) {
		w->blind = true;
		return wd < 0 ? -errno : -ENOMEM;
	}
	return 0;
}

int cgwatch_read(struct cgwatch *w, void (*gone)(void *arg, const char *path),
		 void *arg)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	char path[PATH_MAX];
	const struct inotify_event *e;
	int n = 0;
	ssize_t len;
	char *p;

	if (w->fd < 0)
		return 0;
	for (;;) {
		len = read(w->fd, buf, sizeof(buf));
		if (len < 0)
			return errno == EAGAIN ? n : -errno;
		for (p = buf; p < buf + len; p += sizeof(*e) + e->len) {
			e = (const struct inotify_event *)p;
			if (e->mask & IN_Q_OVERFLOW) {
				w->blind = true;
				continue;
			}
			if (e->wd < 0 || (unsigned int)e->wd >= w->nr_dir ||
			    !w->dir[e->wd])
				continue;
			if (e->mask & IN_IGNORED) {
				free(w->dir[e->wd]);
				w->dir[e->wd] = NULL;
				continue;
			}
			if (!(e->mask & IN_DELETE) || !(e->mask & IN_ISDIR) ||
			    !e->len)
				continue;
			snprintf(path, sizeof(path), "%s/%s", w->dir[e->wd],
				 e->name);
			gone(arg, path);
			n++;
		}
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * Removed cgroups, as the kernel tells of them: an inotify watch on the
 * parent directory of each cgroup (IN_DELETE of a directory), so that
 * finding a removal costs one event, not a look at every cgroup.  A
 * cgroup's directory gives no IN_DELETE_SELF on its own removal (cgroupfs
 * keeps its link count), its parent's IN_DELETE comes at the rmdir.
 *
 * The watches see removals made through a mount of the same cgroup
 * namespace root (the host's, for a daemon that sees the host's
 * cgroups); one made through a nested cgroup namespace's own mount is
 * not seen.  Where inotify's limits refuse a watch, or its queue
 * overflows, the watcher says it is blind: the caller looks at the
 * directories then (cgwatch_exists()).
 *
 * Paths are a cgroup's path from the root ("/a/b"); the watcher keeps
 * its own copies.  Not thread-safe: one thread (ksnapd's drain) uses it.
 */
#ifndef KSNAPD_CGWATCH_H
#define KSNAPD_CGWATCH_H

#include <stdbool.h>

struct cgwatch {
	int fd;				/* inotify, or -1 */
	char *root;			/* "/sys/fs/cgroup" */
	char **dir;			/* by watch descriptor: its path, or NULL */
	unsigned int nr_dir;
	/* A watch was refused (inotify's limits), or the events overflowed:
	 * a removal may have gone unseen, cgwatch_poll() is needed. */
	bool blind;
};

/* The watcher of the cgroups under root (copied).  Returns 0 or -errno;
 * without inotify (its limits), 0 with w->blind set. */
int cgwatch_init(struct cgwatch *w, const char *root);
void cgwatch_fini(struct cgwatch *w);

/*
 * Watch cgroup (its parent directory) for its removal; it is not looked
 * for (cgwatch_exists()).  Returns 0, -ENOENT when its parent is gone
 * (so is it), or -errno when it cannot be watched (w->blind is then
 * set).
 */
int cgwatch_add(struct cgwatch *w, const char *cgroup);

/*
 * The removals since the last call, each cgroup's path passed to
 * gone(arg, path) (the path valid during the call).  Never blocks.
 * Returns how many, or -errno.
 */
int cgwatch_read(struct cgwatch *w, void (*gone)(void *arg, const char *path),
		 void *arg);

/* Whether cgroup's directory is still there: a look at it (through
 * ksnap_sys_access()). */
bool cgwatch_exists(const struct cgwatch *w, const char *cgroup);

#endif /* KSNAPD_CGWATCH_H */

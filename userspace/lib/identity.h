/* SPDX-License-Identifier: MIT */
/*
 * Who a followed cgroup is: the container id and pod uid its path
 * carries, and the namespace, pod name, container name, image and role
 * that the node's own files say.  ksnapd's endpoint labels its series with
 * them (openmetrics.c), and the exit records in a stream's STATS carry
 * them (stream.c).
 *
 * The path (ksnap_id_parse()), in every shape the common runtimes and
 * cgroup drivers give it:
 *   systemd driver   .../cri-containerd-<id>.scope, crio-<id>.scope,
 *                    docker-<id>.scope, libpod-<id>.scope (and a
 *                    "container" cgroup below one);
 *                    kubepods-<qos>-pod<uid with _ for ->.slice
 *   cgroupfs driver  /kubepods[/<qos>]/pod<uid>/<id> (containerd),
 *                    .../pod<uid>/crio-<id> (CRI-O), /docker/<id>
 *   conmon           libpod-conmon-<id>.scope and crio-conmon-<id>[.scope]:
 *                    the runtime's monitor, not the container: role conmon
 *                    and no container id
 * An id is 12 to 64 lower-case hexadecimal digits, a uid 32 to 36 of
 * hexadecimal digits and dashes: nothing else is taken from a path, so a
 * cgroup's name never leads the lookup out of its directories.
 *
 * The files (ksnap_id_lookup()), safest first, under a root directory
 * ("/" on a node, the host's mount point in a container):
 *   var/log/pods/<namespace>_<pod>_<uid>/   the kubelet's: namespace and
 *                                           pod of a pod uid
 *   var/log/containers/<pod>_<namespace>_<container>-<id>.log
 *                                           the kubelet's: the container's
 *                                           name (and that it is one)
 *   run/containerd/io.containerd.runtime.v2.task/k8s.io/<id>/config.json
 *   run/containers/storage/overlay-containers/<id>/userdata/config.json
 *                                           containerd's and CRI-O's OCI
 *                                           bundles: only their
 *                                           "annotations" are read (the
 *                                           CRI's names, the image, the
 *                                           sandbox marker); the rest of
 *                                           the file, environment and all,
 *                                           is dropped unread and the
 *                                           buffer wiped
 * A later source fills only what the earlier left empty.  No runtime's
 * socket is ever connected to.  A value that is not printable ASCII, or
 * is too long, is dropped.
 */
#ifndef KSNAP_IDENTITY_H
#define KSNAP_IDENTITY_H

#include <stdint.h>

#include "column.h"
#include "idpath.h"

/*
 * The rest of parsed id from the files under root (no trailing slash
 * needed): fills what is empty.  Returns 0 when it has all the files can
 * give (a pod's namespace and name, and for a container its role, and its
 * name unless a sandbox), -EAGAIN when some of it is still missing (the
 * kubelet or the runtime may not have written it yet), -ENOENT when there
 * is nothing to look for (no pod uid, no container id).
 */
int ksnap_id_lookup(const char *root, struct ksnap_identity *id);

/*
 * The cache the endpoint's layout uses: one lookup when a cgroup first
 * appears, and when that is incomplete (-EAGAIN) again at each later pass,
 * KSNAP_ID_TRIES in all; a cgroup left out of a pass is forgotten.  Safe
 * from any thread.
 *
 * ksnap_identity_root(): the root the files are looked for under; NULL
 * turns the lookups off (the default: paths are still parsed).  Empties
 * the cache.  Returns 0 or -ENAMETOOLONG.
 */
#define KSNAP_ID_TRIES	5
int ksnap_identity_root(const char *root);
/* A pass: begin, ksnap_identity_of() for each series, end. */
void ksnap_identity_begin(void);
/* The identity of cgroup path p (parsed, and looked up when on). */
void ksnap_identity_of(const char *p, struct ksnap_identity *id);
void ksnap_identity_end(void);
/*
 * The identity of cgroup path p outside a pass (an exit record's, whose
 * cgroup has gone): what the cache holds for it, completed by a lookup
 * of the files when that is incomplete or there is none; nothing is added
 * to the cache.  The path's ids alone when lookups are off.  Safe from
 * any thread.
 */
void ksnap_identity_peek(const char *p, struct ksnap_identity *id);
/*
 * The distinct cgroups of the n columns cols (those whose field is
 * "cgroup"), sorted, and who each is (ksnap_identity_peek()): *paths
 * point into cols, *ids in the same order; the caller frees both arrays.
 * Returns how many, or -ENOMEM.
 */
int ksnap_identity_columns(const struct ksnap_column *cols, uint32_t n,
			   const char ***paths, struct ksnap_identity **ids);
/* How many cgroups the cache holds (for the tests). */
size_t ksnap_identity_cached(void);

#endif /* KSNAP_IDENTITY_H */

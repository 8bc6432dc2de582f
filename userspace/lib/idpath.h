/* SPDX-License-Identifier: MIT */
/*
 * A followed cgroup's identity (identity.h says where each part comes
 * from): its record, and what its path alone gives, with no file read:
 * the container id, the pod uid and a conmon scope's role (idpath.c).
 */
#ifndef KSNAP_IDPATH_H
#define KSNAP_IDPATH_H

#include <stdbool.h>
#include <stddef.h>

#define KSNAP_ID_CID_MAX	65	/* 64 hex digits */
#define KSNAP_ID_UID_MAX	37	/* 36 characters */
#define KSNAP_ID_NAME_MAX	254	/* a DNS subdomain: a pod's name */
#define KSNAP_ID_IMAGE_MAX	512

enum ksnap_id_role {
	KSNAP_ROLE_UNKNOWN,
	KSNAP_ROLE_CONTAINER,	/* an application container */
	KSNAP_ROLE_SANDBOX,	/* a pod's sandbox (pause) */
	KSNAP_ROLE_CONMON,	/* podman's or CRI-O's container monitor */
};

struct ksnap_identity {
	char container_id[KSNAP_ID_CID_MAX];
	char pod_uid[KSNAP_ID_UID_MAX];
	char namespace[KSNAP_ID_NAME_MAX];
	char pod[KSNAP_ID_NAME_MAX];
	char container[KSNAP_ID_NAME_MAX];
	char image[KSNAP_ID_IMAGE_MAX];
	enum ksnap_id_role role;
};

/* Whether the len bytes of s are all of set (no NUL among them). */
bool ksnap_id_chars(const char *s, size_t len, const char *set);

/* Whether id says anything of its cgroup: an id, a name or a role. */
bool ksnap_id_known(const struct ksnap_identity *id);

/* The role's label value: "container", "sandbox", "conmon", or NULL. */
const char *ksnap_id_role_name(enum ksnap_id_role role);

/* id cleared, then its container id, pod uid and (conmon) role from
 * cgroup path p. */
void ksnap_id_parse(const char *p, struct ksnap_identity *id);

#endif /* KSNAP_IDPATH_H */

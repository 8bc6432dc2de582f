// SPDX-License-Identifier: MIT
/*
 * A followed cgroup's identity from its path alone, and the role names
 * (idpath.h): no file is read, so that what writes a stream's exit
 * records need not link the lookups.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "idpath.h"

const char *ksnap_id_role_name(enum ksnap_id_role role)
{
	switch (role) {
	case KSNAP_ROLE_CONTAINER:
		return "container";
	case KSNAP_ROLE_SANDBOX:
		return "sandbox";
	case KSNAP_ROLE_CONMON:
		return "conmon";
	default:
		return NULL;
	}
}

bool ksnap_id_known(const struct ksnap_identity *id)
{
	return id->container_id[0] || id->pod_uid[0] || id->namespace[0] ||
	       id->pod[0] || id->container[0] || id->image[0] ||
	       id->role != KSNAP_ROLE_UNKNOWN;
}

/* --- the path ----------------------------------------------------------- */

bool ksnap_id_chars(const char *s, size_t len, const char *set)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return true;
}

static bool is_cid(const char *s, size_t len)
{
	return len >= 12 && len < KSNAP_ID_CID_MAX &&
	       ksnap_id_chars(s, len, "0123456789abcdef");
}

/* c[0, len) starts with prefix and ends with suffix, a container id
 * between them: into id->container_id. */
static bool cid_between(const char *c, size_t len, const char *prefix,
			const char *suffix, struct ksnap_identity *id)
{
	size_t pl = strlen(prefix), sl = strlen(suffix);

	if (len <= pl + sl || strncmp(c, prefix, pl) ||
	    strncmp(c + len - sl, suffix, sl) ||
	    !is_cid(c + pl, len - pl - sl))
		return false;
	memcpy(id->container_id, c + pl, len - pl - sl);
	id->container_id[len - pl - sl] = '\0';
	return true;
}

/* "pod<uid>" or "...-pod<uid with _>.slice" under kubepods. */
static void pod_uid(const char *c, size_t len, struct ksnap_identity *id)
{
	const char *pu = NULL;
	size_t i, ul;

	if (len > 3 && !strncmp(c, "pod", 3))
		pu = c;
	for (i = 1; i + 3 < len; i++)
		if (c[i - 1] == '-' && !strncmp(c + i, "pod", 3))
			pu = c + i;
	if (!pu)
		return;
	pu += 3;
	ul = (size_t)(c + len - pu);
	if (ul > 6 && !strncmp(pu + ul - 6, ".slice", 6))
		ul -= 6;
	if (ul < 32 || ul >= KSNAP_ID_UID_MAX ||
	    !ksnap_id_chars(pu, ul, "0123456789abcdefABCDEF-_"))
		return;
	for (i = 0; i < ul; i++)
		id->pod_uid[i] = pu[i] == '_' ? '-' : pu[i];
	id->pod_uid[ul] = '\0';
}

void ksnap_id_parse(const char *p, struct ksnap_identity *id)
{
	static const char *const scopes[] = {
		"cri-containerd-", "crio-", "docker-", "libpod-",
	};
	bool kube = strstr(p, "kubepods") != NULL;
	const char *c = p, *prev = "";
	size_t prev_len = 0;

	memset(id, 0, sizeof(*id));
	while (*c) {
		size_t len, i;

		while (*c == '/')
			c++;
		len = strcspn(c, "/");
		if (!len)
			break;
		if ((len > 14 && !strncmp(c, "libpod-conmon-", 14)) ||
		    (len > 12 && !strncmp(c, "crio-conmon-", 12))) {
			id->role = KSNAP_ROLE_CONMON;
			id->container_id[0] = '\0';
		} else {
			for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
				if (cid_between(c, len, scopes[i], ".scope",
						id))
					break;
			/* CRI-O's cgroupfs driver: .../crio-<id> */
			cid_between(c, len, "crio-", "", id);
			/* Docker's cgroupfs driver: /docker/<id>; the
			 * kubelet's: .../pod<uid>/<id> */
			if (((prev_len == 6 && !strncmp(prev, "docker", 6)) ||
			     (kube && id->pod_uid[0])) && is_cid(c, len)) {
				memcpy(id->container_id, c, len);
				id->container_id[len] = '\0';
			}
		}
		if (kube)
			pod_uid(c, len, id);
		prev = c;
		prev_len = len;
		c += len;
	}
}

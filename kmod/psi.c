// SPDX-License-Identifier: GPL-2.0
/*
 * Pressure stall information groups: the system's (psi_system is not
 * exported) and a cgroup's, found in process context for the readers.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/psi_types.h>
#include <linux/rculist.h>

#include "compat.h"
#include "ksnap.h"

#ifdef CONFIG_PSI
/* Found once, through a cgroup; static in the kernel, never freed. */
static struct psi_group *ksnap_psi_system;

/* The system's group, or NULL before ksnap_psi_resolve() found it. */
struct psi_group *ksnap_psi_system_group(void)
{
	return READ_ONCE(ksnap_psi_system);
}

#if KSNAP_HAVE_PSI_SYSTEM
static struct psi_group *ksnap_psi_root_of(struct psi_group *psi)
{
	while (psi && ksnap_psi_parent(psi))
		psi = ksnap_psi_parent(psi);
	return psi;
}

/*
 * The system's psi_group: the root of the parent chain of any cgroup's
 * psi_group (the root cgroup itself has none of its own).  Process context.
 */
static struct psi_group *ksnap_psi_find(struct cgroup *cgrp)
{
	struct cgroup_subsys_state *css;
	struct psi_group *psi = NULL;

	if (cgroup_parent(cgrp))
		return ksnap_psi_root_of(ksnap_cgroup_psi_group(cgrp));
	/*
	 * A child's psi_group is freed an RCU grace period after the child
	 * is removed: walk up to the system's (static) group before leaving
	 * the read-side section.
	 */
	rcu_read_lock();
	list_for_each_entry_rcu(css, &cgrp->self.children, sibling) {
		psi = ksnap_cgroup_psi_group(css->cgroup);
		if (psi)
			break;
	}
	psi = ksnap_psi_root_of(psi);
	rcu_read_unlock();
	return psi;
}

/* 0 once the system's PSI is known, else -ENOENT.  Process context. */
int ksnap_psi_resolve(void)
{
	struct cgroup *root;

	if (READ_ONCE(ksnap_psi_system))
		return 0;
	root = cgroup_get_from_path("/");
	if (IS_ERR(root))
		return -ENOENT;
	WRITE_ONCE(ksnap_psi_system, ksnap_psi_find(root));
	cgroup_put(root);
	return READ_ONCE(ksnap_psi_system) ? 0 : -ENOENT;
}
#else
/* No way from a cgroup to the system's group on this kernel (compat.h). */
int ksnap_psi_resolve(void)
{
	return -ENOENT;
}
#endif
#else
struct psi_group *ksnap_psi_system_group(void)
{
	return NULL;
}

int ksnap_psi_resolve(void)
{
	return -ENOENT;
}
#endif

/* The cgroup's PSI group, or NULL (PSI off).  Process context. */
struct psi_group *ksnap_cgroup_psi(struct cgroup *cgrp)
{
#ifdef CONFIG_PSI
	if (!cgroup_parent(cgrp))
		return ksnap_psi_resolve() ? NULL : ksnap_psi_system;
	return ksnap_cgroup_psi_group(cgrp);
#else
	return NULL;
#endif
}


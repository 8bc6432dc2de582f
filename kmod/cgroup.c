// SPDX-License-Identifier: GPL-2.0
/* Configured cgroups: path resolution, references, liveness. */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/memcontrol.h>
#include <linux/string.h>

#include "ksnap.h"

/**
 * ksnap_cgroup_get() - resolve a cgroup v2 path and hold it
 * @cg: filled on success; release with ksnap_cgroup_put()
 * @path: relative to the cgroup2 root of the caller's namespace
 *
 * Process context only.  Logs one line on failure.
 *
 * Return: 0, -ENOENT when there is no such cgroup, -EINVAL when the memory
 * controller is not enabled for it.
 */
int ksnap_cgroup_get(struct ksnap_cgroup *cg, const char *path)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp;

	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp)) {
		pr_err("cgroups: no cgroup '%s' (error %ld): paths are relative to the cgroup2 mount, e.g. /system.slice/foo.service\n",
		       path, PTR_ERR(cgrp));
		return -ENOENT;
	}

	/* The effective css is an ancestor's when memory is not enabled. */
	css = cgroup_get_e_css(cgrp, &memory_cgrp_subsys);
	if (!css || css->cgroup != cgrp) {
		pr_err("cgroups: '%s' has no memory controller: add +memory to its parent's cgroup.subtree_control\n",
		       path);
		if (css)
			css_put(css);
		cgroup_put(cgrp);
		return -EINVAL;
	}

	cg->cgrp = cgrp;
	cg->memory = css;
	cg->memcg = mem_cgroup_from_css(css);
	strscpy(cg->path, path, sizeof(cg->path));
	return 0;
}

void ksnap_cgroup_put(struct ksnap_cgroup *cg)
{
	css_put(cg->memory);
	cgroup_put(cg->cgrp);
	cg->memory = NULL;
	cg->memcg = NULL;
	cg->cgrp = NULL;
}

/* The cgroup was removed: its counters no longer change.  Timer-safe. */
bool ksnap_cgroup_dying(const struct ksnap_cgroup *cg)
{
	return css_is_dying(cg->memory);
}

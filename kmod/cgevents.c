// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup events as a trigger for a running collection's rescan (follow.c).
 *
 * The cgroup_mkdir and cgroup_rmdir tracepoints are found by name (no
 * __tracepoint_cgroup_* symbol is exported) and a probe is attached to each
 * at load.  (cgroup_rename fires on v1 hierarchies only: v2 refuses
 * rename(2), so a followed cgroup keeps its path.)  The kernel calls a
 * probe under cgroup_mutex, with interrupts off but on PREEMPT_RT (its
 * trace_cgroup_path_lock): it reads which hierarchy the cgroup is on and
 * whether a collection runs, and queues the follow worker; for a cgroup a
 * running collection's patterns match, it notes a mkdir's time and
 * queues a removal's exit record (exits.c).
 * With the probes attached, the kernel builds the path of every cgroup
 * made or removed, under that lock, whether or not a collection runs:
 * the cost of a string copy per mkdir and rmdir.  A rescan never uses the
 * event's path: the worker expands the patterns again in the
 * configuration's cgroup namespace, so an event in another namespace can
 * start a rescan but not direct it.  An exit record names its cgroup by
 * it, once the cgroup's ancestry has put it below that namespace's root
 * (exits.c).
 *
 * The rescans the events start are coalesced (ksnap_follow_event()): one
 * runs settle_ms after the first event; after KSNAP_FOLLOW_KICK_BURST back
 * to back, one every KSNAP_FOLLOW_KICK_GAP_MS.  The periodic rescan
 * (discover_ms) stays, for a kernel without the tracepoints and for what a
 * rescan skipped.
 */
#include <linux/cgroup.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "ksnap.h"

static const char * const ksnap_cgevent_names[KSNAP_NR_CGEVENTS] = {
	"cgroup_mkdir", "cgroup_rmdir",
};

/* The probes: the prototype of the cgroup event class, 5.10 to 7.3. */
static void ksnap_cgevent_mkdir(void *data, struct cgroup *cgrp,
				const char *path)
{
	struct ksnap *ks = data;

	/* Patterns are on the unified hierarchy: v1 events do not change them. */
	if (cgrp->root != &cgrp_dfl_root)
		return;
	ksnap_exits_mkdir(ks, cgrp, path);
	ksnap_follow_event(ks);
}

static void ksnap_cgevent_rmdir(void *data, struct cgroup *cgrp,
				const char *path)
{
	struct ksnap *ks = data;

	if (cgrp->root != &cgrp_dfl_root)
		return;
	ksnap_exits_rmdir(ks, cgrp, path);
	ksnap_follow_event(ks);
}

static void (* const ksnap_cgevent_probes[KSNAP_NR_CGEVENTS])(void *,
							      struct cgroup *,
							      const char *) = {
	ksnap_cgevent_mkdir, ksnap_cgevent_rmdir,
};

struct ksnap_cgevent_find {
	struct tracepoint *tp[KSNAP_NR_CGEVENTS];
};

static void ksnap_cgevent_match(struct tracepoint *tp, void *priv)
{
	struct ksnap_cgevent_find *f = priv;
	unsigned int i;

	for (i = 0; i < KSNAP_NR_CGEVENTS; i++)
		if (!strcmp(tp->name, ksnap_cgevent_names[i]))
			f->tp[i] = tp;
}

/**
 * ksnap_cgevents_init() - attach the probes
 * @ks: the device, its follow worker initialised
 *
 * A kernel without the tracepoints, or one that refuses a probe, leaves the
 * periodic rescan alone: logged, never an error for the load.
 */
void ksnap_cgevents_init(struct ksnap *ks)
{
	struct ksnap_cgevent_find f = {};
	unsigned int i;
	int ret = 0;

	for_each_kernel_tracepoint(ksnap_cgevent_match, &f);
	for (i = 0; i < KSNAP_NR_CGEVENTS; i++) {
		if (!f.tp[i]) {
			ret = -ENOENT;
			break;
		}
		ret = tracepoint_probe_register(f.tp[i],
						ksnap_cgevent_probes[i], ks);
		if (ret)
			break;
		ks->cgevent_tp[i] = f.tp[i];
	}
	if (!ret)
		return;
	pr_info("cgroups: no probe on the tracepoint %s (%d): patterns are expanded again every discover_ms only\n",
		ksnap_cgevent_names[i], ret);
	ksnap_cgevents_uninit(ks);
}

/* Detach the probes, and wait until none runs: then ks may go. */
void ksnap_cgevents_uninit(struct ksnap *ks)
{
	bool any = false;
	unsigned int i;

	for (i = 0; i < KSNAP_NR_CGEVENTS; i++) {
		if (!ks->cgevent_tp[i])
			continue;
		tracepoint_probe_unregister(ks->cgevent_tp[i],
					    ksnap_cgevent_probes[i], ks);
		ks->cgevent_tp[i] = NULL;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The metric registry.  Every reader runs in the hrtimer callback (hardirq,
 * interrupts off): it may only read memory, never sleep or take a lock.
 * all_vm_events() and si_meminfo() are not usable here (they lock).
 */
#include <linux/cpumask.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/page_counter.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/vmstat.h>

#include "ksnap.h"

/* A VM event (/proc/vmstat): sum of the per-CPU counts, live. */
static u64 ksnap_read_vm_event(const struct ksnap_metric *m,
			       const struct ksnap_cgroup *cg)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(vm_event_states, cpu).event[m->item]);
	return sum;
}

/* A zone page state counter, folded about every second. */
static u64 ksnap_read_zone_state(const struct ksnap_metric *m,
				 const struct ksnap_cgroup *cg)
{
	return global_zone_page_state(m->item);
}

/* memory.current of a cgroup v2. */
static u64 ksnap_read_memcg_current(const struct ksnap_metric *m,
				    const struct ksnap_cgroup *cg)
{
	return (u64)page_counter_read(&cg->memcg->memory) * PAGE_SIZE;
}

#define KSNAP_VM_EVENT(_name, _item, _desc, _default) {			\
	.name = _name, .desc = _desc, .item = _item,			\
	.flags = KSNAP_COL_CUMULATIVE, .freshness = KSNAP_FRESH_LIVE,	\
	.by_default = _default, .read = ksnap_read_vm_event,		\
}

#define KSNAP_ZONE_STATE(_name, _item, _desc, _default) {		\
	.name = _name, .desc = _desc, .item = _item,			\
	.freshness = KSNAP_FRESH_1S, .by_default = _default,		\
	.read = ksnap_read_zone_state,					\
}

#define KSNAP_MEMCG(_name, _read, _desc, _flags, _default) {		\
	.name = _name, .desc = _desc, .flags = _flags,			\
	.freshness = KSNAP_FRESH_LIVE, .per_cgroup = true,		\
	.by_default = _default, .read = _read,				\
}

const struct ksnap_metric ksnap_metrics[] = {
	KSNAP_VM_EVENT("pgfault", PGFAULT,
		       "page faults, count since boot", true),
	KSNAP_VM_EVENT("pgmajfault", PGMAJFAULT,
		       "major page faults (needing I/O), count since boot",
		       true),
	KSNAP_ZONE_STATE("nr_free_pages", NR_FREE_PAGES,
			 "free memory, pages", true),
	KSNAP_MEMCG("memory.current", ksnap_read_memcg_current,
		    "memory charged to the cgroup and its descendants, bytes",
		    0, true),
};

const unsigned int ksnap_nr_metrics = ARRAY_SIZE(ksnap_metrics);

/* Index of the metric called @name, or -ENOENT. */
int ksnap_metric_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ksnap_metrics); i++)
		if (!strcmp(ksnap_metrics[i].name, name))
			return i;
	return -ENOENT;
}

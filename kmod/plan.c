// SPDX-License-Identifier: GPL-2.0
/*
 * The read plan of a configuration (see struct ksnap_plan): which columns
 * are summed over CPUs, grouped by how a CPU's share is read, and which
 * are read once.  Built in process context with the configuration, never
 * changed afterwards.
 */
#include <linux/bitops.h>
#include <linux/cache.h>
#include <linux/minmax.h>
#include <linux/kernel_stat.h>
#include <linux/mm.h>
#include <linux/stddef.h>
#include <linux/vmstat.h>

#include "ksnap.h"
#include "readers.h"

/* Is @src a sum over CPUs, read CPU by CPU? */
static bool ksnap_plan_summed(const struct ksnap_source *src)
{
	return src->metric->read_cpu && src->cpu == KSNAP_CPU_SUM;
}

/* Read straight from kernel_cpustat: every CPU time but the NOHZ ones. */
static bool ksnap_plan_cpustat(const struct ksnap_metric *m)
{
	return m->read_cpu == ksnap_read_cpu_time &&
	       m->item.cpu != CPUTIME_IDLE && m->item.cpu != CPUTIME_IOWAIT;
}

/* Enough cache lines for struct vm_event_state and kernel_cpustat. */
#define KSNAP_PLAN_MAX_LINES	64

/* Count the cache line of byte @offset in @seen, once. */
static unsigned int ksnap_plan_line(unsigned long *seen, size_t offset)
{
	size_t line = min_t(size_t, offset / SMP_CACHE_BYTES,
			    KSNAP_PLAN_MAX_LINES - 1);

	return !__test_and_set_bit(line, seen);
}

/*
 * Cache lines one CPU's share of the summed columns touches: the VM
 * events' and CPU times' per-CPU arrays, as laid out, and one line for
 * each column read through read_cpu() (an estimate: one counter each).
 */
static unsigned int ksnap_plan_count_lines(const struct ksnap_plan *p)
{
	DECLARE_BITMAP(vm, KSNAP_PLAN_MAX_LINES) = { 0 };
	DECLARE_BITMAP(cs, KSNAP_PLAN_MAX_LINES) = { 0 };
	unsigned int i, lines = p->nr_percpu;

	for (i = 0; i < p->nr_vm; i++)
		lines += ksnap_plan_line(vm, offsetof(struct vm_event_state,
						      event) +
					     p->vm[i].item *
					     sizeof(unsigned long));
	for (i = 0; i < p->nr_cpustat; i++)
		lines += ksnap_plan_line(cs, offsetof(struct kernel_cpustat,
						      cpustat) +
					     p->cpustat[i].item * sizeof(u64));
	return lines;
}

/**
 * ksnap_plan_build() - group a configuration's columns for reading
 * @cfg: its columns laid out (config.c); cfg->plan is filled
 */
void ksnap_plan_build(struct ksnap_config *cfg)
{
	struct ksnap_plan *p = &cfg->plan;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < cfg->nr_columns; i++) {
		const struct ksnap_source *src = &cfg->col[i];
		const struct ksnap_metric *m = src->metric;

		if (!ksnap_plan_summed(src) &&
		    m->read_cpu == ksnap_read_vm_event && src->cpu >= 0) {
			p->vm_cpu[p->nr_vm_cpu].col = i;
			p->vm_cpu[p->nr_vm_cpu++].item = m->item.vm;
		} else if (!ksnap_plan_summed(src)) {
			p->single[p->nr_single++] = i;
		} else if (m->read_cpu == ksnap_read_vm_event) {
			p->vm[p->nr_vm].col = i;
			p->vm[p->nr_vm++].item = m->item.vm;
		} else if (ksnap_plan_cpustat(m)) {
			p->cpustat[p->nr_cpustat].col = i;
			p->cpustat[p->nr_cpustat++].item = m->item.cpu;
		} else {
			p->percpu[p->nr_percpu++] = i;
		}
	}
	p->lines_per_cpu = ksnap_plan_count_lines(p);
}

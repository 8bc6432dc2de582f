// SPDX-License-Identifier: GPL-2.0
/*
 * The proof of memory.stat's slots on the kernels where ksnap finds them
 * through a copy of a table private to mm/memcontrol.c (compat.h,
 * KSNAP_MEMCG_STAT_TABLE: 6.12, 7.2, 7.3).  Nothing there can be checked
 * at build time, and no exported function reads a memcg's statistics, so
 * the copy is checked on the running kernel, once, at load (process
 * context).
 *
 * The root memcg's hierarchical per-node statistics count what the node
 * counters of /proc/vmstat count, for every item that is always charged to
 * a memcg (the root's, when no other): the LRU lists, the page cache,
 * anonymous memory, the workingset events.  For the items of which only a
 * part is charged (slab, kernel stacks, page tables) the root's can only
 * be at most the node counter.  The root's are as of the last rstat flush
 * (at most ~2 s old) and both sides batch per CPU: the comparison has a
 * tolerance, and is read again, for a few seconds, while a slot disagrees.
 *
 * A slot is proven when both sides agree and are beyond the tolerance
 * (not as good as 0); a slot that reads (about) 0, or whose item only has
 * a bound, proves nothing and is offered marked unproven in the
 * catalogue (KSNAP_METRIC_UNPROVEN); a slot that disagrees is not
 * offered, nor any unproven slot after it in the table (a changed table
 * shifts every slot after the change).  The LRU slots are the anchor: if
 * one disagrees, or none is proven, no memory.stat.* metric is offered.
 * docs/kernels.md has the rule.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/vmstat.h>

#include "compat.h"
#include "ksnap.h"
#include "readers.h"

/* How the root memcg's value of an item relates to the node counter. */
enum ksnap_memcg_rel {
	KSNAP_MEMCG_EQUAL,	/* always charged: equal */
	KSNAP_MEMCG_LRU,	/* an LRU list: equal, and the table's anchor */
	KSNAP_MEMCG_BOUND,	/* partly charged: at most the node counter */
};

static enum ksnap_memcg_rel ksnap_memcg_rel(enum node_stat_item item)
{
	switch (item) {
	case NR_INACTIVE_ANON:
	case NR_ACTIVE_ANON:
	case NR_INACTIVE_FILE:
	case NR_ACTIVE_FILE:
	case NR_UNEVICTABLE:
		return KSNAP_MEMCG_LRU;
	case NR_SLAB_RECLAIMABLE_B:
	case NR_SLAB_UNRECLAIMABLE_B:
	case NR_KERNEL_STACK_KB:
	case WORKINGSET_NODERECLAIM:
#if KSNAP_SINCE(5, 11)
	case NR_PAGETABLE:
#endif
#if KSNAP_SINCE(6, 0)
	case NR_SECONDARY_PAGETABLE:
#endif
		return KSNAP_MEMCG_BOUND;
	default:
		return KSNAP_MEMCG_EQUAL;
	}
}

/**
 * ksnap_memcg_compare() - one slot against the node counter
 * @item: the item the slot is believed to hold
 * @memcg: the root memcg's value in the slot, in the node counter's unit
 * @node: the node counter of @item, summed over nodes
 * @slack: the absolute tolerance (per-CPU batches), in the same unit
 *
 * Pure: no kernel state is read.  The tolerance is @slack plus an eighth
 * of the larger value; a value within the tolerance of 0 is as good as 0.
 *
 * Return: KSNAP_SLOT_PROVEN (both beyond the tolerance, agreeing),
 * KSNAP_SLOT_UNPROVEN (agreeing as far as can be told: a value as good as
 * 0, or a bound only) or KSNAP_SLOT_DROPPED (disagreeing).
 */
enum ksnap_slot ksnap_memcg_compare(enum node_stat_item item, long memcg,
				    long node, long slack)
{
	long tol;

	memcg = max(memcg, 0L);
	node = max(node, 0L);
	tol = slack + max(memcg, node) / 8;
	if (ksnap_memcg_rel(item) == KSNAP_MEMCG_BOUND)
		return memcg <= node + tol ? KSNAP_SLOT_UNPROVEN :
		       KSNAP_SLOT_DROPPED;
	if (abs(memcg - node) > tol)
		return KSNAP_SLOT_DROPPED;
	return min(memcg, node) > tol ? KSNAP_SLOT_PROVEN : KSNAP_SLOT_UNPROVEN;
}

/**
 * ksnap_memcg_decide() - what is offered, from the slots' comparisons
 * @item: the items of the slots read, in the order of the private table
 * @state: in: each slot's comparison (ksnap_memcg_compare()); out: what
 *	is offered (KSNAP_SLOT_PROVEN, _UNPROVEN) and what not (_DROPPED)
 * @n: the number of slots
 *
 * Pure.  An unproven slot after a dropped one is dropped; if an LRU slot
 * is dropped, or none is proven, every slot is.
 *
 * Return: whether the table is trusted (some slot may still be dropped).
 */
bool ksnap_memcg_decide(const enum node_stat_item *item, u8 *state,
			unsigned int n)
{
	bool anchored = false, shifted = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ksnap_memcg_rel(item[i]) != KSNAP_MEMCG_LRU)
			continue;
		if (state[i] == KSNAP_SLOT_DROPPED)
			break;
		anchored |= state[i] == KSNAP_SLOT_PROVEN;
	}
	if (i < n || !anchored) {
		for (i = 0; i < n; i++)
			state[i] = KSNAP_SLOT_DROPPED;
		return false;
	}
	for (i = 0; i < n; i++) {
		if (state[i] == KSNAP_SLOT_DROPPED)
			shifted = true;
		else if (shifted && state[i] == KSNAP_SLOT_UNPROVEN)
			state[i] = KSNAP_SLOT_DROPPED;
	}
	return true;
}

#ifdef KSNAP_MEMCG_STAT_TABLE
#ifdef KSNAP_TEST_HOOKS
unsigned int ksnap_memcg_table_skew;
module_param_named(memcg_table_skew, ksnap_memcg_table_skew, uint, 0444);
MODULE_PARM_DESC(memcg_table_skew,
		 "test hook, leave at 0: read memory.stat's slot i + N instead of slot i, as a changed kernel table would (the load-time check must then refuse what disagrees)");
#endif

#define KSNAP_MEMCG_SLOTS	ARRAY_SIZE(ksnap_memcg_node_items)

/* Each slot's verdict, by its index in ksnap_memcg_node_items[]. */
static u8 ksnap_memcg_slot_state[KSNAP_MEMCG_SLOTS];

/*
 * Reads of one comparison round, at most this many; 0.5 s apart: 5.5 s,
 * past two of memcg's periodic flushes (2 s, deferrable work, late on a
 * loaded host: 7.3 in a TCG guest beside other guests missed one).
 */
#define KSNAP_MEMCG_ROUNDS	12
#define KSNAP_MEMCG_ROUND_MS	500

/* The memory.stat metric reading slot @slot, or NULL. */
static const struct ksnap_metric *ksnap_memcg_slot_metric(unsigned int slot)
{
	unsigned int i;

	for (i = 0; i < ksnap_nr_metrics; i++)
		if (ksnap_metrics[i].read == ksnap_read_memcg_stat &&
		    ksnap_metrics[i].item.node == ksnap_memcg_node_items[slot])
			return &ksnap_metrics[i];
	return NULL;
}

static enum ksnap_slot ksnap_memcg_slot(const struct ksnap_metric *m)
{
	int i;

	/* The working set reads inactive_file's slot. */
	if (m->read != ksnap_read_memcg_stat &&
	    m->read != ksnap_read_memcg_working_set)
		return KSNAP_SLOT_UNCHECKED;
	i = ksnap_memcg_node_index(m->item.node);
	return i < 0 ? KSNAP_SLOT_DROPPED : ksnap_memcg_slot_state[i];
}

/* A slot of the root memcg, summed over nodes, in the node's unit. */
static long ksnap_memcg_root_value(struct mem_cgroup *root,
				   enum node_stat_item item)
{
	long sum = 0;
	int nid;

	for_each_node(nid)
		sum += ksnap_memcg_node_stat(root, nid, item);
	/* The node counters keep the *_B items in pages, memcg in bytes. */
	return vmstat_item_in_bytes(item) ? sum / PAGE_SIZE : sum;
}

/* What the check read and found, slot by slot (the slots read only). */
struct ksnap_memcg_proof {
	unsigned int n;
	u8 slot[KSNAP_MEMCG_SLOTS];	/* index in ksnap_memcg_node_items[] */
	enum node_stat_item item[KSNAP_MEMCG_SLOTS];
	u8 cmp[KSNAP_MEMCG_SLOTS];	/* the best comparison of the rounds */
	u8 state[KSNAP_MEMCG_SLOTS];	/* what is offered */
	long memcg[KSNAP_MEMCG_SLOTS];	/* the last round's values */
	long node[KSNAP_MEMCG_SLOTS];
	char why[512];		/* the slots that disagreed, for the log */
};

static struct ksnap_memcg_proof ksnap_memcg_proof __initdata;

/* One round: each slot read and compared, keeping each slot's best. */
static bool __init ksnap_memcg_round(struct mem_cgroup *root,
				     struct ksnap_memcg_proof *p)
{
	long slack = 128L * num_online_cpus();
	bool disagree = false;
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		p->memcg[i] = ksnap_memcg_root_value(root, p->item[i]);
		p->node[i] = global_node_page_state_pages(p->item[i]);
		p->cmp[i] = max_t(u8, p->cmp[i],
				  ksnap_memcg_compare(p->item[i], p->memcg[i],
						      p->node[i], slack));
		disagree |= p->cmp[i] == KSNAP_SLOT_DROPPED;
	}
	return disagree;
}

static const char *const ksnap_slot_name[] __initconst = {
	[KSNAP_SLOT_UNCHECKED] = "unchecked",
	[KSNAP_SLOT_DROPPED] = "disagrees",
	[KSNAP_SLOT_UNPROVEN] = "unproven",
	[KSNAP_SLOT_PROVEN] = "proven",
};

/* Add "name memcg, node node" to p->why if it fits whole. */
static bool __init ksnap_memcg_why(struct ksnap_memcg_proof *p, size_t *len,
				   unsigned int i, const char *name)
{
	int n = snprintf(p->why + *len, sizeof(p->why) - *len,
			 "%s%s %ld, node %ld", *len ? "; " : "", name,
			 p->memcg[i], p->node[i]);

	if ((size_t)n >= sizeof(p->why) - *len) {
		p->why[*len] = '\0';
		return false;
	}
	*len += n;
	return true;
}

/* Log the verdict: one line, and one more per slot dropped alone. */
static void __init ksnap_memcg_log(struct ksnap_memcg_proof *p, bool trusted)
{
	unsigned int i, more = 0, nr[KSNAP_SLOT_PROVEN + 1] = { 0 };
	size_t len = 0;

	for (i = 0; i < p->n; i++) {
		const char *name = ksnap_memcg_slot_metric(p->slot[i])->name;

		pr_debug("%s: slot %u reads %ld, the node counter %ld: %s\n",
			 name, (unsigned int)((p->slot[i] +
					       ksnap_memcg_table_skew) %
					      KSNAP_MEMCG_SLOTS),
			 p->memcg[i], p->node[i], ksnap_slot_name[p->cmp[i]]);
		nr[p->state[i]]++;
		if (p->cmp[i] != KSNAP_SLOT_DROPPED)
			continue;
		if (trusted)
			pr_warn("%s not offered: its slot reads %ld, the node counter %ld, beyond the tolerance (docs/kernels.md)\n",
				name, p->memcg[i], p->node[i]);
		else if (more || !ksnap_memcg_why(p, &len, i, name))
			more++;
	}
	if (!trusted && more) {
		pr_warn("memory.stat.* not offered: this kernel's memcg statistics table is not the one ksnap knows (%s; and %u more slots) (docs/kernels.md)\n",
			p->why, more);
		return;
	}
	if (!trusted) {
		pr_warn("memory.stat.* not offered: this kernel's memcg statistics table is not the one ksnap knows (%s) (docs/kernels.md)\n",
			len ? p->why : "no LRU slot large enough to prove it");
		return;
	}
	pr_info("memory.stat.*: %u slots proven against the node counters, %u unproven (marked in the catalogue), %u not offered\n",
		nr[KSNAP_SLOT_PROVEN], nr[KSNAP_SLOT_UNPROVEN],
		nr[KSNAP_SLOT_DROPPED]);
}

/**
 * ksnap_memcg_prove() - check the slot table on the running kernel
 *
 * Process context, at load, before anything is offered; may sleep a few
 * seconds while a slot disagrees (a flush may be due).  Logs the verdict.
 */
void __init ksnap_memcg_prove(void)
{
	struct ksnap_memcg_proof *p = &ksnap_memcg_proof;
	struct mem_cgroup *root;
	unsigned int i, round;
	bool trusted;

	if (mem_cgroup_disabled())
		return;
	/* The root memcg: init_task's (it never leaves the root cgroup). */
	rcu_read_lock();
	root = mem_cgroup_from_task(&init_task);
	rcu_read_unlock();
	if (!root)
		return;
	for (i = 0; i < KSNAP_MEMCG_SLOTS; i++) {
		if (!ksnap_memcg_slot_metric(i))
			continue;
		p->slot[p->n] = i;
		p->item[p->n++] = ksnap_memcg_node_items[i];
	}

	for (round = 1; ; round++) {
		if (!ksnap_memcg_round(root, p) || round == KSNAP_MEMCG_ROUNDS)
			break;
		msleep(KSNAP_MEMCG_ROUND_MS);
	}
	memcpy(p->state, p->cmp, sizeof(p->state));
	trusted = ksnap_memcg_decide(p->item, p->state, p->n);
	ksnap_memcg_log(p, trusted);
	for (i = 0; i < p->n; i++)
		ksnap_memcg_slot_state[p->slot[i]] = p->state[i];
}
#else
static enum ksnap_slot ksnap_memcg_slot(const struct ksnap_metric *m)
{
	return KSNAP_SLOT_UNCHECKED;
}

void __init ksnap_memcg_prove(void)
{
}
#endif /* KSNAP_MEMCG_STAT_TABLE */

/*
 * Is @m offered on this kernel?  Every metric but a memory.stat.* one
 * whose slot disagreed.  Until ksnap_memcg_prove() has run (KUnit), all.
 */
bool ksnap_metric_offered(const struct ksnap_metric *m)
{
	return ksnap_memcg_slot(m) != KSNAP_SLOT_DROPPED;
}

/* Is @m a memory.stat.* value whose slot could not be proven? */
bool ksnap_metric_unproven(const struct ksnap_metric *m)
{
	return ksnap_memcg_slot(m) == KSNAP_SLOT_UNPROVEN;
}

/* @m's description: an unproven memory.stat.* slot's says so. */
const char *ksnap_metric_desc(const struct ksnap_metric *m)
{
	if (m->desc_unproven && ksnap_memcg_slot(m) == KSNAP_SLOT_UNPROVEN)
		return m->desc_unproven;
	return m->desc;
}

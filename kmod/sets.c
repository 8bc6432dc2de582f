// SPDX-License-Identifier: GPL-2.0
/*
 * The last KSNAP_OLD_SETS column sets swapped out of a running collection
 * (install.c): their columns' names, for KSNAP_IOC_COLUMN, so that a
 * reader behind by a few set changes can name their records.  All with
 * ks->lock held.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "ksnap.h"
#include "ring.h"

/* An old set's slot emptied. */
static void ksnap_sets_free_one(struct ksnap_old_set *o)
{
	kvfree(o->col);
	kvfree(o->path_at);
	kvfree(o->paths);
	memset(o, 0, sizeof(*o));
}

/*
 * @cfg's columns' names kept as set @set_id, whose first record is at
 * @first_pos, in the oldest slot.
 */
void ksnap_sets_keep(struct ksnap *ks, const struct ksnap_config *cfg,
		     u32 set_id, u64 first_pos)
{
	struct ksnap_old_set *o = &ks->old_sets[ks->old_next];
	size_t bytes = 0, len;
	unsigned int i;

	ksnap_sets_free_one(o);
	/* The paths packed: a set of 2048 cgroups keeps their names, not 8 MiB. */
	for (i = 0; i < cfg->nr_cgroups; i++)
		bytes += strlen(cfg->cgroups[i].path) + 1;
	o->col = kvcalloc(cfg->nr_columns ?: 1, sizeof(*o->col), GFP_KERNEL);
	o->path_at = kvcalloc(cfg->nr_cgroups ?: 1, sizeof(*o->path_at),
			      GFP_KERNEL);
	o->paths = kvmalloc(bytes ?: 1, GFP_KERNEL);
	if (!o->col || !o->path_at || !o->paths) {
		/* Its records then read as ESTALE: a reader skips them. */
		ksnap_sets_free_one(o);
		return;
	}
	for (i = 0, bytes = 0; i < cfg->nr_cgroups; i++) {
		len = strlen(cfg->cgroups[i].path) + 1;
		memcpy(o->paths + bytes, cfg->cgroups[i].path, len);
		o->path_at[i] = bytes;
		bytes += len;
	}
	for (i = 0; i < cfg->nr_columns; i++) {
		o->col[i].metric = cfg->col[i].metric;
		o->col[i].cpu = cfg->col[i].cpu;
		o->col[i].cg = cfg->col[i].cg ? cfg->col[i].cg_idx : -1;
	}
	o->nr_columns = cfg->nr_columns;
	o->set_id = set_id;
	o->first_pos = first_pos;
	ks->old_next = (ks->old_next + 1) % KSNAP_OLD_SETS;
}

/**
 * ksnap_sets_unnamed() - would the next set kept take the names of a set
 *	the reader has still to meet?
 * @ks: running, with ks->lock held
 *
 * The next set kept takes the oldest slot.  The reader names a set when it
 * meets its first record; until then it needs the set's names here.  True
 * when the oldest slot's set has a record the attached reader has not
 * read, and the reader has lost nothing yet (ksnap_ring_yet_to_read()): a
 * set change now would make it lose that set's records, though it could
 * still read them all.  Never with overflow=overwrite.
 */
bool ksnap_sets_unnamed(const struct ksnap *ks)
{
	const struct ksnap_old_set *o = &ks->old_sets[ks->old_next];
	u64 tail;

	lockdep_assert_held(&ks->lock);
	/* overflow=overwrite: the tail is never read (ksnap_abi.h). */
	if (ks->overwrite || !o->set_id || !ksnap_reader_attached(ks))
		return false;
	/* Only compared: no slot is read after it, so no ordering. */
	tail = READ_ONCE(ks->consumer->tail);
	return ksnap_ring_yet_to_read(READ_ONCE(ks->ctrl->head), tail,
				      ks->run.start_position,
				      ks->cfg->nr_records, o->first_pos);
}

/**
 * ksnap_sets_fill() - describe one column, of the current set or an old one
 * @col: in: set_id, index; the rest is filled
 * @nr_columns: its set's
 * @m: its metric
 * @cpu: its CPU, or a negative value
 * @path: its cgroup's path, or NULL
 */
void ksnap_sets_fill(struct ksnap_column_info *col, u32 nr_columns,
		     const struct ksnap_metric *m, int cpu, const char *path)
{
	u32 set_id = col->set_id, index = col->index;

	memset(col, 0, sizeof(*col));
	col->set_id = set_id;
	col->index = index;
	col->nr_columns = nr_columns;
	strscpy(col->metric, m->name, sizeof(col->metric));
	strscpy(col->description, ksnap_metric_desc(m),
		sizeof(col->description));
	col->flags = m->flags;
	col->freshness = m->freshness;
	col->refresh_ns = ksnap_metric_refresh_ns(m);
	if (path) {
		strscpy(col->field, "cgroup", sizeof(col->field));
		strscpy(col->value, path, sizeof(col->value));
	} else if (cpu >= 0) {
		strscpy(col->field, "cpu", sizeof(col->field));
		snprintf(col->value, sizeof(col->value), "%d", cpu);
	}
}

/**
 * ksnap_sets_column() - column @col->index of a set swapped out
 * @ks: with ks->lock held
 * @col: as for ksnap_ctrl_column()
 *
 * Return: 0, -ESTALE when the set is none of the last KSNAP_OLD_SETS
 * swapped out, -ENOENT past its last column.
 */
int ksnap_sets_column(const struct ksnap *ks, struct ksnap_column_info *col)
{
	const struct ksnap_old_set *o = NULL;
	const struct ksnap_old_col *c;
	u32 set_id = col->set_id, index = col->index;
	unsigned int i;

	lockdep_assert_held(&ks->lock);
	for (i = 0; i < KSNAP_OLD_SETS; i++)
		if (set_id && ks->old_sets[i].set_id == set_id)
			o = &ks->old_sets[i];
	if (!o)
		return -ESTALE;
	if (index >= o->nr_columns)
		return -ENOENT;
	c = &o->col[index];
	ksnap_sets_fill(col, o->nr_columns, c->metric, c->cpu,
			c->cg >= 0 ? o->paths + o->path_at[c->cg] : NULL);
	return 0;
}

/* Every slot emptied (unload). */
void ksnap_sets_free(struct ksnap *ks)
{
	unsigned int i;

	for (i = 0; i < KSNAP_OLD_SETS; i++)
		ksnap_sets_free_one(&ks->old_sets[i]);
}

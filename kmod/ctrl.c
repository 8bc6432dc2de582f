// SPDX-License-Identifier: GPL-2.0
/*
 * The control region: fixed fields at load, collection fields under the
 * ctrl->seq seqcount (odd while being written; readers retry).  Writers
 * hold ks->lock, so there is one writer at a time.
 */
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "ksnap.h"

void ksnap_ctrl_init(struct ksnap *ks)
{
	const struct ksnap_layout *l = &ks->layout;
	struct ksnap_ctrl *ctrl = ks->ctrl;

	ctrl->magic = KSNAP_MAGIC;
	ctrl->abi_version = KSNAP_ABI_VERSION;
	ctrl->abi_compat = KSNAP_ABI_COMPAT;
	ctrl->features = KSNAP_FEAT_OVERWRITE | KSNAP_FEAT_WAKEUPS |
			 KSNAP_FEAT_READ_BOUND | KSNAP_FEAT_METRIC_IOCTL |
			 KSNAP_FEAT_READER_IOCTL | KSNAP_FEAT_CGROUPS_SKIPPED |
			 KSNAP_FEAT_ENABLE_IOCTL | KSNAP_FEAT_REFRESH_NS |
			 KSNAP_FEAT_EXITS | KSNAP_FEAT_THINNED;
	ctrl->page_size = l->page_size;
	ctrl->ctrl_pages = l->ctrl_pages;
	ctrl->consumer_pgoff = l->consumer_pgoff;
	ctrl->data_pgoff = l->data_pgoff;
	ctrl->data_pages = l->data_pages;
	ctrl->total_pages = l->total_pages;
	ctrl->max_columns = l->max_columns;
}

static void ksnap_ctrl_write_begin(struct ksnap_ctrl *ctrl)
{
	WRITE_ONCE(ctrl->seq, ctrl->seq + 1);
	/* Odd seq before the fields: pairs with the reader's second seq load. */
	smp_wmb();
}

static void ksnap_ctrl_write_end(struct ksnap_ctrl *ctrl)
{
	/* Fields before even seq: pairs with the reader's first seq load. */
	smp_wmb();
	WRITE_ONCE(ctrl->seq, ctrl->seq + 1);
}

/**
 * ksnap_ctrl_column() - column @index of the current set, for KSNAP_IOC_COLUMN
 * @ks: with ks->lock held
 * @col: in: set_id, index; filled on success
 *
 * Return: 0, -ESTALE when @col->set_id is neither the current set nor one
 * a running collection swapped out lately (sets.c), -ENOENT past its
 * last column.
 */
int ksnap_ctrl_column(const struct ksnap *ks, struct ksnap_column_info *col)
{
	const struct ksnap_config *cfg = ks->cfg;
	const struct ksnap_source *src;
	u32 set_id = col->set_id, index = col->index;

	lockdep_assert_held(&ks->lock);
	if (set_id != ks->set_id)
		return ksnap_sets_column(ks, col);
	if (index >= cfg->nr_columns)
		return -ENOENT;
	src = &cfg->col[index];
	ksnap_sets_fill(col, cfg->nr_columns, src->metric, src->cpu,
			src->cg ? src->cg->path : NULL);
	return 0;
}

/*
 * The geometry and column set of ks->cfg, inside a write.  A start writes
 * them too: cgroup patterns expanded again may make a new set (never new
 * geometry while a reader is open, ksnap_follow_refresh()).
 */
static void ksnap_ctrl_columns(struct ksnap_ctrl *ctrl, const struct ksnap *ks)
{
	const struct ksnap_config *cfg = ks->cfg;

	ctrl->record_size = cfg->record_size;
	ctrl->nr_records = cfg->nr_records;
	ctrl->nr_columns = cfg->nr_columns;
	ctrl->set_id = ks->set_id;
}

/*
 * Publish ks->cfg and ks->period_ns as a new column set (ksnap_abi.h
 * "Column sets"): its columns are read through KSNAP_IOC_COLUMN, which
 * answers for ks->set_id only, under ks->lock as this is.  Only while
 * stopped; the record geometry only while no reader has the device open.
 *
 * The columns, geometry and period describe the records of the collection
 * published with them.  So after a collection, new ones come as a new,
 * empty and stopped collection (generation + 1, no record, statistics at
 * zero): the finished collection's records are never read under columns
 * or a period they were not taken with.
 */
void ksnap_ctrl_publish_config(struct ksnap *ks)
{
	struct ksnap_ctrl *ctrl = ks->ctrl;

	lockdep_assert_held(&ks->lock);
	/* Never 0, never reused while loaded (2^32 reconfigurations). */
	ks->set_id++;
	ksnap_ctrl_write_begin(ctrl);
	if (ctrl->generation) {
		ctrl->generation++;
		ctrl->state = KSNAP_STATE_STOPPED;
		ctrl->start_mono_ns = 0;
		ctrl->start_real_ns = 0;
		/* Stopped: no sampler writes head; ks->lock orders us. */
		ctrl->start_position = ctrl->head;
		ctrl->stop_reason = KSNAP_STOP_NONE;
		memset(&ctrl->stats, 0, sizeof(ctrl->stats));
	}
	ctrl->period_ns = ks->period_ns;
	ksnap_ctrl_columns(ctrl, ks);
	ksnap_ctrl_write_end(ctrl);
}

/*
 * A new collection, from ks->run: generation + 1, statistics reset but
 * for its read's estimate and bound (sampler.c).
 */
void ksnap_ctrl_publish_start(struct ksnap *ks, u64 read_estimate_ns,
			      u64 read_bound_ns)
{
	struct ksnap_ctrl *ctrl = ks->ctrl;

	ksnap_ctrl_write_begin(ctrl);
	ctrl->generation++;
	ctrl->state = KSNAP_STATE_RUNNING;
	ctrl->period_ns = ks->period_ns;
	ksnap_ctrl_columns(ctrl, ks);
	ctrl->start_mono_ns = ks->run.start_mono_ns;
	ctrl->start_real_ns = ktime_get_real_ns();
	ctrl->start_position = ks->run.start_position;
	ctrl->flags = ks->overwrite ? KSNAP_CTRL_OVERWRITE : 0;
	ctrl->stop_reason = KSNAP_STOP_NONE;
	memset(&ctrl->stats, 0, sizeof(ctrl->stats));
	ctrl->stats.read_estimate_ns = read_estimate_ns;
	ctrl->stats.read_bound_ns = read_bound_ns;
	ctrl->stats.cgroups_skipped = ks->cfg->nr_skipped;
	ksnap_ctrl_write_end(ctrl);
}

/*
 * After the last snapshot: its head store comes before this (sampler.c).
 * @reason: KSNAP_STOP_*.
 */
void ksnap_ctrl_publish_stop(struct ksnap *ks, u32 reason)
{
	ksnap_ctrl_write_begin(ks->ctrl);
	ks->ctrl->state = KSNAP_STATE_STOPPED;
	ks->ctrl->stop_reason = reason;
	ksnap_ctrl_write_end(ks->ctrl);
}

/*
 * A running collection's new set (install.c), with the timer cancelled:
 * under seq before head covers the set's first record (ksnap_abi.h
 * "Column sets"); the geometry stays.
 */
void ksnap_ctrl_publish_set(struct ksnap *ks)
{
	struct ksnap_ctrl *ctrl = ks->ctrl;

	lockdep_assert_held(&ks->lock);
	ksnap_ctrl_write_begin(ctrl);
	ctrl->nr_columns = ks->cfg->nr_columns;
	ctrl->set_id = ks->set_id;
	ksnap_ctrl_write_end(ctrl);
}

/*
 * A reader session begins (open()).  No barrier: the only reader of these
 * fields is the task that opened the device, after its open() returned.
 */
void ksnap_ctrl_publish_reader(struct ksnap *ks)
{
	WRITE_ONCE(ks->ctrl->reader_done_base, ks->reader_done_base);
}

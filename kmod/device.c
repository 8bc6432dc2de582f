// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ksnap: one reader at a time maps the ring (see ksnap_abi.h) and
 * polls for records and for starts and stops.  The kernel reads the
 * reader's tail in its consumer page, nothing else there, and never
 * writes it; the reader's session (its open file) reports done and seen
 * by ioctl.  Opened read-only, it is a query handle instead: any number
 * beside the reader, the asking ioctls only.
 */
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "ksnap.h"

static struct ksnap *ksnap_from_file(struct file *file)
{
	/* misc_open() points private_data at our struct miscdevice. */
	return container_of(file->private_data, struct ksnap, misc);
}

/* The reader opens for writing (its consumer page); a query handle not. */
static bool ksnap_is_reader(const struct file *file)
{
	return file->f_mode & FMODE_WRITE;
}

static int ksnap_open(struct inode *inode, struct file *file)
{
	struct ksnap *ks = ksnap_from_file(file);
	struct ksnap_ctrl *ctrl = ks->ctrl;
	int ret = 0;

	if (!ksnap_is_reader(file))
		return nonseekable_open(inode, file);
	mutex_lock(&ks->lock);
	if (ks->open) {
		ret = -EBUSY;
		goto out;
	}
	ks->open = true;
	/*
	 * A new session: the reader is not blamed for collections it did not
	 * see, and has seen nothing yet.
	 */
	ks->reader_done_base = ctrl->generation -
			       (ctrl->state == KSNAP_STATE_RUNNING);
	ks->reader_done = ks->reader_done_base;
	WRITE_ONCE(ks->reader_seen, 0);
	WRITE_ONCE(ks->reader_seen_set, false);
	ksnap_ctrl_publish_reader(ks);
out:
	mutex_unlock(&ks->lock);
	return ret ?: nonseekable_open(inode, file);
}

/* The enable attribute changed: whoever polls it is woken. */
static void ksnap_notify_enable(struct ksnap *ks)
{
	sysfs_notify(&ks->misc.this_device->kobj, NULL, "enable");
}

/*
 * Called when the last file reference goes, mappings included: a reader
 * that closed, exited or was killed.  A collection it started with
 * KSNAP_ENABLE_STOP_ON_CLOSE stops here.
 */
static int ksnap_release(struct inode *inode, struct file *file)
{
	struct ksnap *ks = ksnap_from_file(file);
	bool stop;

	if (!ksnap_is_reader(file))
		return 0;
	mutex_lock(&ks->lock);
	stop = ks->stop_on_close && ks->running;
	if (stop)
		ksnap_sampler_stop(ks);
	ks->stop_on_close = false;
	ks->open = false;
	WRITE_ONCE(ks->reader_seen_set, false);
	mutex_unlock(&ks->lock);
	if (stop)
		ksnap_notify_enable(ks);
	return 0;
}

/*
 * A mapping starts at a region boundary and ends within the device.  Only
 * the consumer page, mapped alone and shared, may be writable; elsewhere
 * VM_WRITE is refused and VM_MAYWRITE cleared so mprotect() cannot add it.
 */
static int ksnap_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ksnap *ks = ksnap_from_file(file);
	const struct ksnap_layout *l = &ks->layout;
	unsigned long pgoff = vma->vm_pgoff, pages = vma_pages(vma);

	if (!ksnap_is_reader(file))
		return -EACCES;
	if (pgoff >= l->total_pages || pages > l->total_pages - pgoff)
		return -EINVAL;
	if (pgoff != 0 && pgoff != l->consumer_pgoff && pgoff != l->data_pgoff)
		return -EINVAL;

	if (pgoff == l->consumer_pgoff && pages == 1) {
		if (!(vma->vm_flags & VM_SHARED)) {
			if (vma->vm_flags & VM_WRITE)
				return -EINVAL;
			vm_flags_clear(vma, VM_MAYWRITE);
		}
	} else {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND);
	return remap_vmalloc_range(vma, ks->ring, pgoff);
}

/*
 * Readable until the reader reports what it has seen, while records are
 * unread (a tail below the collection's start counts as the start), or
 * while the collection's state differs from what the reader acted on.
 * The seen values are the kernel's own (KSNAP_IOC_SEEN), read as hints.
 */
static __poll_t ksnap_poll(struct file *file, poll_table *wait)
{
	struct ksnap *ks = ksnap_from_file(file);
	const struct ksnap_ctrl *ctrl = ks->ctrl;
	const struct ksnap_consumer *cons = ks->consumer;
	u64 tail;
	u32 gen_state;

	if (!ksnap_is_reader(file))
		return 0;
	poll_wait(file, &ks->wait, wait);
	if (!ksnap_reader_attached(ks))
		return EPOLLIN | EPOLLRDNORM;
	gen_state = KSNAP_GEN_STATE(READ_ONCE(ctrl->generation),
				    READ_ONCE(ctrl->state));
	tail = max(READ_ONCE(cons->tail), READ_ONCE(ctrl->start_position));
	if (READ_ONCE(ctrl->head) != tail ||
	    gen_state != READ_ONCE(ks->reader_seen))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static long ksnap_ioctl_metric(void __user *arg)
{
	struct ksnap_metric_info info;
	int ret;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	ret = ksnap_catalogue_info(&info);
	if (ret)
		return ret;
	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/* KSNAP_IOC_COLUMN: one column of the current set (ksnap_abi.h). */
static long ksnap_ioctl_column(struct ksnap *ks, void __user *arg)
{
	struct ksnap_column_info *col;
	long ret;

	/* 4464 bytes: not on the stack. */
	col = kmalloc(sizeof(*col), GFP_KERNEL);
	if (!col)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(col, arg, sizeof(*col)))
		goto out;
	ret = -EINVAL;
	if (col->nr_columns || col->flags || col->freshness ||
	    col->reserved0 || col->refresh_ns || memchr_inv(col->reserved, 0,
					 sizeof(col->reserved)))
		goto out;
	mutex_lock(&ks->lock);
	ret = ksnap_ctrl_column(ks, col);
	mutex_unlock(&ks->lock);
	if (!ret && copy_to_user(arg, col, sizeof(*col)))
		ret = -EFAULT;
out:
	kfree(col);
	return ret;
}

/*
 * KSNAP_IOC_DONE's check and effect: @gen is a finished collection (not
 * the running one, not one to come).  Returns 0 or -EINVAL, the session's
 * done generation unchanged.
 */
static int ksnap_reader_set_done(struct ksnap *ks, u32 gen)
{
	const struct ksnap_ctrl *ctrl = ks->ctrl;
	u32 finished = ctrl->generation;

	lockdep_assert_held(&ks->lock);
	if (ctrl->state == KSNAP_STATE_RUNNING)
		finished--;
	if (gen > finished)
		return -EINVAL;
	ks->reader_done = gen;
	return 0;
}

/*
 * KSNAP_IOC_SEEN's check and effect: @state is a state, and @gen and
 * @state are the collection's now or before (a running collection is not
 * yet stopped).  Returns 0 or -EINVAL, the session's seen value unchanged.
 */
static int ksnap_reader_set_seen(struct ksnap *ks, u32 gen, u32 state)
{
	const struct ksnap_ctrl *ctrl = ks->ctrl;

	lockdep_assert_held(&ks->lock);
	if (state != KSNAP_STATE_STOPPED && state != KSNAP_STATE_RUNNING)
		return -EINVAL;
	if (gen > ctrl->generation ||
	    (gen == ctrl->generation && state == KSNAP_STATE_STOPPED &&
	     ctrl->state == KSNAP_STATE_RUNNING))
		return -EINVAL;
	WRITE_ONCE(ks->reader_seen, KSNAP_GEN_STATE(gen, state));
	WRITE_ONCE(ks->reader_seen_set, true);
	return 0;
}

/* KSNAP_IOC_DONE: the reader's session only. */
static long ksnap_ioctl_done(struct ksnap *ks, struct file *file,
			     void __user *arg)
{
	struct ksnap_done done;
	int ret;

	if (!ksnap_is_reader(file))
		return -EBADF;
	if (copy_from_user(&done, arg, sizeof(done)))
		return -EFAULT;
	if (done.reserved)
		return -EINVAL;
	mutex_lock(&ks->lock);
	ret = ksnap_reader_set_done(ks, done.generation);
	mutex_unlock(&ks->lock);
	return ret;
}

/* KSNAP_IOC_SEEN: the reader's session only. */
static long ksnap_ioctl_seen(struct ksnap *ks, struct file *file,
			     void __user *arg)
{
	struct ksnap_seen seen;
	int ret;

	if (!ksnap_is_reader(file))
		return -EBADF;
	if (copy_from_user(&seen, arg, sizeof(seen)))
		return -EFAULT;
	mutex_lock(&ks->lock);
	ret = ksnap_reader_set_seen(ks, seen.generation, seen.state);
	mutex_unlock(&ks->lock);
	return ret;
}

/*
 * KSNAP_IOC_ENABLE: the reader's session only.  As the enable attribute,
 * and the session's stop-on-close request with a start.
 */
static long ksnap_ioctl_enable(struct ksnap *ks, struct file *file,
			       void __user *arg)
{
	struct ksnap_enable en;
	bool changed;
	int ret = 0;

	if (!ksnap_is_reader(file))
		return -EBADF;
	if (copy_from_user(&en, arg, sizeof(en)))
		return -EFAULT;
	if (en.on > 1 || (en.flags & ~KSNAP_ENABLE_STOP_ON_CLOSE) ||
	    en.reserved)
		return -EINVAL;
	mutex_lock(&ks->lock);
	changed = en.on != ks->running;
	if (en.on)
		ret = ksnap_sampler_start(ks);
	else
		ksnap_sampler_stop(ks);
	if (!ret && en.on)
		ks->stop_on_close = en.flags & KSNAP_ENABLE_STOP_ON_CLOSE;
	mutex_unlock(&ks->lock);
	if (ret)
		return ret;
	if (changed)
		ksnap_notify_enable(ks);
	return 0;
}

/* Reader and query handle alike, but for the reader's own. */
static long ksnap_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	struct ksnap *ks = ksnap_from_file(file);
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case KSNAP_IOC_METRIC:
		return ksnap_ioctl_metric(uarg);
	case KSNAP_IOC_COLUMN:
		return ksnap_ioctl_column(ks, uarg);
	case KSNAP_IOC_DONE:
		return ksnap_ioctl_done(ks, file, uarg);
	case KSNAP_IOC_SEEN:
		return ksnap_ioctl_seen(ks, file, uarg);
	case KSNAP_IOC_ENABLE:
		return ksnap_ioctl_enable(ks, file, uarg);
	case KSNAP_IOC_EXIT:
		/* Taken off the queue: the reader's alone. */
		return ksnap_is_reader(file) ? ksnap_exits_ioctl(ks, uarg) :
		       -EBADF;
	default:
		return -ENOTTY;
	}
}

static const struct file_operations ksnap_fops = {
	.owner = THIS_MODULE,
	.open = ksnap_open,
	.release = ksnap_release,
	.mmap = ksnap_mmap,
	.poll = ksnap_poll,
	.unlocked_ioctl = ksnap_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	/* No .llseek: nonseekable_open() makes lseek() fail with ESPIPE. */
};

/*
 * misc.groups (ksnap_sysfs_init()) come with the device, before its
 * uevent: whoever the uevent wakes finds the files there.
 */
int ksnap_device_init(struct ksnap *ks)
{
	ks->misc.minor = MISC_DYNAMIC_MINOR;
	ks->misc.name = "ksnap";
	ks->misc.fops = &ksnap_fops;
	ks->misc.mode = 0600;
	return misc_register(&ks->misc);
}

void ksnap_device_uninit(struct ksnap *ks)
{
	misc_deregister(&ks->misc);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ksnap: one reader at a time maps the ring (see ksnap_abi.h) and
 * polls for records and for starts and stops.  The kernel reads the
 * reader's consumer page and never writes it.  Opened read-only, it is a
 * query handle instead: any number beside the reader, ioctl only.
 */
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
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
	 * A new session: until the reader claims the consumer page, it is
	 * not blamed for collections it did not see.
	 */
	WRITE_ONCE(ks->reader_session, ks->reader_session + 1);
	ks->reader_done_base = ctrl->generation -
			       (ctrl->state == KSNAP_STATE_RUNNING);
	ksnap_ctrl_publish_reader(ks);
out:
	mutex_unlock(&ks->lock);
	return ret ?: nonseekable_open(inode, file);
}

/* Called when the last file reference goes, mappings included. */
static int ksnap_release(struct inode *inode, struct file *file)
{
	struct ksnap *ks = ksnap_from_file(file);

	if (!ksnap_is_reader(file))
		return 0;
	mutex_lock(&ks->lock);
	ks->open = false;
	mutex_unlock(&ks->lock);
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
 * Readable while the session is not claimed, while records are unread
 * (a tail below the collection's start counts as the start), or while
 * the collection's state differs from what the reader acted on.
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
	if (!ksnap_reader_claimed(ks))
		return EPOLLIN | EPOLLRDNORM;
	gen_state = KSNAP_GEN_STATE(READ_ONCE(ctrl->generation),
				    READ_ONCE(ctrl->state));
	tail = max(READ_ONCE(cons->tail), READ_ONCE(ctrl->start_position));
	if (READ_ONCE(ctrl->head) != tail ||
	    gen_state != READ_ONCE(cons->seen_state))
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

/* Reader and query handle alike; none needs ks->lock. */
static long ksnap_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case KSNAP_IOC_METRIC:
		return ksnap_ioctl_metric(uarg);
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

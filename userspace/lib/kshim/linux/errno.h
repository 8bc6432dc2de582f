/* SPDX-License-Identifier: MIT */
/* kshim (README): <linux/errno.h>, the system's (EINVAL and the rest). */
#ifndef KSHIM_LINUX_ERRNO_H
#define KSHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif /* KSHIM_LINUX_ERRNO_H */

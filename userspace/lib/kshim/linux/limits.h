/* SPDX-License-Identifier: MIT */
/* kshim (README): <linux/limits.h>, with UINT_MAX and SIZE_MAX. */
#ifndef KSHIM_LINUX_LIMITS_H
#define KSHIM_LINUX_LIMITS_H

#include_next <linux/limits.h>
#include <limits.h>
#include <stdint.h>

#endif /* KSHIM_LINUX_LIMITS_H */

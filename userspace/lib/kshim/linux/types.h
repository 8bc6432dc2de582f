/* SPDX-License-Identifier: MIT */
/* kshim (README): <linux/types.h>, with bool, size_t and the fixed widths. */
#ifndef KSHIM_LINUX_TYPES_H
#define KSHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#endif /* KSHIM_LINUX_TYPES_H */

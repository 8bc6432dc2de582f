// SPDX-License-Identifier: MIT
/*
 * cgroup patterns in userspace (cgpattern.h): the module's own syntax
 * check and matcher, kmod/cgpattern.c, compiled here through the kernel
 * headers of kshim/ (on this file's include path, userspace/Makefile):
 * one source, so that a pattern means here what it means to the module.
 */
#include "../../kmod/cgpattern.c"

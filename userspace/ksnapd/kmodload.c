// SPDX-License-Identifier: MIT
/* ksnapd --load: insert ksnap.ko through libkmod, as modprobe would. */
#include <errno.h>
#include <libkmod.h>
#include <stdio.h>
#include <string.h>

#include "kmodload.h"

int ksnapd_load_module(const char *name, const char *params, char *err,
		       size_t errlen)
{
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	int ret;

	ctx = kmod_new(NULL, NULL);
	if (!ctx) {
		snprintf(err, errlen, "libkmod: cannot create a context");
		return -ENOMEM;
	}
	ret = kmod_module_new_from_name(ctx, name, &mod);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", name, strerror(-ret));
		goto out;
	}
	/* Already loaded is fine, but with parameters it must be said:
	 * they are not applied (FAIL_ON_LOADED tells, with -EEXIST). */
	ret = kmod_module_probe_insert_module(mod, params ?
					      KMOD_PROBE_FAIL_ON_LOADED : 0,
					      params, NULL, NULL, NULL);
	if (ret == -EEXIST && params) {
		snprintf(err, errlen, "%s is already loaded: its parameters "
			 "stay as they are, %s not applied (rmmod %s first to "
			 "load it with them)", name, params, name);
		ret = 1;
		goto out_mod;
	}
	if (ret < 0)
		snprintf(err, errlen, "modprobe %s%s%s: %s", name,
			 params ? " " : "", params ? params : "",
			 strerror(-ret));
	else if (ret > 0)
		snprintf(err, errlen, "modprobe %s: blacklisted or refused",
			 name);
	if (ret > 0)
		ret = -EPERM;
out_mod:
	kmod_module_unref(mod);
out:
	kmod_unref(ctx);
	return ret;
}

// SPDX-License-Identifier: MIT
/* ksnapd --load: libkmod replaced with -Wl,--wrap, the module "loaded"
 * or not as each test says. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <libkmod.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kmodload.h"

static struct {
	bool loaded;
	int probe_ret;		/* when not refused as loaded */
	unsigned int flags;
	char params[128];
	int probe_calls, refs;
} kmod;

/* Any non-NULL pointer will do: nothing looks inside. */
static char ctx_obj, mod_obj;

struct kmod_ctx *__wrap_kmod_new(const char *dir, const char *const *cfg)
{
	kmod.refs++;
	return (struct kmod_ctx *)&ctx_obj;
}

struct kmod_ctx *__wrap_kmod_unref(struct kmod_ctx *ctx)
{
	kmod.refs--;
	return NULL;
}

int __wrap_kmod_module_new_from_name(struct kmod_ctx *ctx, const char *name,
				     struct kmod_module **mod)
{
	kmod.refs++;
	*mod = (struct kmod_module *)&mod_obj;
	return 0;
}

struct kmod_module *__wrap_kmod_module_unref(struct kmod_module *mod)
{
	kmod.refs--;
	return NULL;
}

/* As libkmod: FAIL_ON_LOADED makes an already loaded module -EEXIST,
 * otherwise already loaded is success (and the options unused). */
int __wrap_kmod_module_probe_insert_module(struct kmod_module *mod,
	unsigned int flags, const char *extra_options,
	int (*run_install)(struct kmod_module *m, const char *cmdline,
			   void *data),
	const void *data,
	void (*print_action)(struct kmod_module *m, bool install,
			     const char *options))
{
	kmod.probe_calls++;
	kmod.flags = flags;
	snprintf(kmod.params, sizeof(kmod.params), "%s",
		 extra_options ? extra_options : "");
	if (kmod.loaded)
		return flags & KMOD_PROBE_FAIL_ON_LOADED ? -EEXIST : 0;
	return kmod.probe_ret;
}

static int setup(void **state)
{
	memset(&kmod, 0, sizeof(kmod));
	return 0;
}

static void loads_the_module_with_its_parameters(void **s)
{
	char err[256] = "";

	assert_int_equal(ksnapd_load_module("ksnap", "period_us=500", err,
					    sizeof(err)), 0);
	assert_int_equal(kmod.probe_calls, 1);
	assert_string_equal(kmod.params, "period_us=500");
	assert_string_equal(err, "");
	assert_int_equal(kmod.refs, 0);
}

static void already_loaded_without_parameters_is_fine(void **s)
{
	char err[256] = "";

	kmod.loaded = true;
	assert_int_equal(ksnapd_load_module("ksnap", NULL, err, sizeof(err)),
			 0);
	assert_string_equal(err, "");
	assert_int_equal(kmod.refs, 0);
}

/* The parameters cannot be applied: said, naming them, not silent. */
static void already_loaded_with_parameters_warns_naming_them(void **s)
{
	char err[256] = "";
	int ret;

	kmod.loaded = true;
	ret = ksnapd_load_module("ksnap", "period_us=500 ring_kb=64", err,
				 sizeof(err));
	if (ret != 1)
		fail_msg("expected 1 (loaded already, parameters not "
			 "applied), got %d", ret);
	assert_string_equal(err, "ksnap is already loaded: its parameters "
			    "stay as they are, period_us=500 ring_kb=64 not "
			    "applied (rmmod ksnap first to load it with them)");
	assert_int_equal(kmod.refs, 0);
}

static void a_refused_load_is_an_error(void **s)
{
	char err[256] = "";

	kmod.probe_ret = -ENOENT;
	assert_int_equal(ksnapd_load_module("ksnap", "x=1", err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "modprobe ksnap x=1: No such file or "
			    "directory");
	kmod.probe_ret = 1;		/* blacklisted */
	assert_int_equal(ksnapd_load_module("ksnap", NULL, err, sizeof(err)),
			 -EPERM);
	assert_string_equal(err, "modprobe ksnap: blacklisted or refused");
	assert_int_equal(kmod.refs, 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
	const struct CMUnitTest tests[] = {
		T(loads_the_module_with_its_parameters),
		T(already_loaded_without_parameters_is_fine),
		T(already_loaded_with_parameters_warns_naming_them),
		T(a_refused_load_is_an_error),
	};

	return cmocka_run_group_tests_name("kmodload", tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * A followed cgroup's identity (identity.h): ids from every runtime's and
 * cgroup driver's path, names from the kubelet's log directories and the
 * runtimes' bundle annotations in a fake node under a temporary root, the
 * per-cgroup cache and its bounded retries, and the endpoint's labels.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "identity.h"
#include "openmetrics.h"

#define CID	"0123456789abcdef0123456789abcdef" \
		"0123456789abcdef0123456789abcdef"
#define CID2	"fedcba9876543210fedcba9876543210" \
		"fedcba9876543210fedcba9876543210"
#define CID3	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define UID3	"22222222-3333-4444-5555-666666666666"
#define UID	"1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901"
#define UID_	"1b2c3d4e_5f60_7182_93a4_b5c6d7e8f901"
#define KPOD	"/kubepods.slice/kubepods-burstable.slice/" \
		"kubepods-burstable-pod" UID_ ".slice"

/* A string field against what it should be: both in the message. */
#define expect_str(what, got, want)					\
	do {								\
		if (strcmp((got), (want)))				\
			fail_msg("%s: expected \"%s\", got \"%s\"", (what), \
				 (want), (got));			\
	} while (0)

static void expect_role(const struct ksnap_identity *id,
			enum ksnap_id_role want)
{
	const char *g = ksnap_id_role_name(id->role);
	const char *w = ksnap_id_role_name(want);

	if (id->role != want)
		fail_msg("role: expected %s, got %s", w ? w : "(none)",
			 g ? g : "(none)");
}

/* --- the path ----------------------------------------------------------- */

static void parsed(const char *path, const char *cid, const char *uid,
		   enum ksnap_id_role role)
{
	struct ksnap_identity id;
	char what[600];

	ksnap_id_parse(path, &id);
	snprintf(what, sizeof(what), "container_id of %s", path);
	expect_str(what, id.container_id, cid);
	snprintf(what, sizeof(what), "pod_uid of %s", path);
	expect_str(what, id.pod_uid, uid);
	expect_role(&id, role);
}

static void systemd_scopes_of_every_runtime_give_the_container_id(void **s)
{
	parsed(KPOD "/cri-containerd-" CID ".scope", CID, UID, 0);
	parsed(KPOD "/crio-" CID ".scope", CID, UID, 0);
	parsed("/system.slice/docker-" CID ".scope", CID, "", 0);
	parsed("/machine.slice/libpod-" CID ".scope/container", CID, "", 0);
}

static void cgroupfs_driver_paths_give_the_container_id(void **s)
{
	parsed("/kubepods/besteffort/pod" UID "/" CID, CID, UID, 0);
	parsed("/kubepods/pod" UID "/" CID, CID, UID, 0);
	parsed("/kubepods/burstable/pod" UID "/crio-" CID, CID, UID, 0);
	parsed("/docker/" CID, CID, "", 0);
}

static void pod_slices_give_the_pod_uid_with_dashes(void **s)
{
	parsed(KPOD, "", UID, 0);
	parsed("/kubepods/burstable/pod" UID, "", UID, 0);
}

static void conmon_scopes_are_conmon_without_a_container_id(void **s)
{
	parsed("/machine.slice/libpod-conmon-" CID ".scope", "", "",
	       KSNAP_ROLE_CONMON);
	parsed(KPOD "/crio-conmon-" CID ".scope", "", UID, KSNAP_ROLE_CONMON);
	parsed("/kubepods/burstable/pod" UID "/crio-conmon-" CID, "", UID,
	       KSNAP_ROLE_CONMON);
}

static void names_that_are_not_ids_are_not_taken(void **s)
{
	parsed(KPOD "/cri-containerd-..%2f..%2fetc.scope", "", UID, 0);
	parsed("/docker/buildkit", "", "", 0);
	parsed("/kubepods/burstable/pod../" CID, "", "", 0);
	parsed("/system.slice/ssh.service", "", "", 0);
	parsed("/user.slice/docker-" CID ".scope/pod" UID, CID, "", 0);
}

/* --- a fake node -------------------------------------------------------- */

static char root[64];

static void mkdirs(const char *fmt, ...)
{
	char path[1024], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void put(const char *text, const char *fmt, ...)
{
	char path[1024];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The kubelet's log directory of pod payments/api-7d9f and the link of its
 * container server (id CID). */
static void kubelet_logs(void)
{
	mkdirs("%s/var/log/pods/payments_api-7d9f_" UID "/server", root);
	mkdirs("%s/var/log/pods/other_web-1_00000000-0000-0000-0000-"
	       "000000000000/nginx", root);
	mkdirs("%s/var/log/containers", root);
	put("", "%s/var/log/containers/api-7d9f_payments_server-" CID ".log",
	    root);
	put("", "%s/var/log/containers/web-1_other_nginx-" CID2 ".log", root);
}

#define SECRET	"hunter2-do-not-keep"

/* containerd's bundle of id with these annotations (a JSON fragment),
 * and an environment that must not be kept. */
static void containerd_bundle(const char *id, const char *annotations)
{
	char text[4096];

	mkdirs("%s/run/containerd/io.containerd.runtime.v2.task/k8s.io/%s",
	       root, id);
	snprintf(text, sizeof(text),
		 "{\"ociVersion\":\"1.0.2\",\"process\":{\"env\":["
		 "\"PATH=/usr/bin\",\"DB_PASSWORD=" SECRET "\"],"
		 "\"args\":[\"/server\"]},\"annotations\":{%s},"
		 "\"linux\":{\"cgroupsPath\":\"x\"}}", annotations);
	put(text, "%s/run/containerd/io.containerd.runtime.v2.task/k8s.io/%s/"
	    "config.json", root, id);
}

static void crio_bundle(const char *id, const char *annotations)
{
	char text[4096];

	mkdirs("%s/run/containers/storage/overlay-containers/%s/userdata",
	       root, id);
	snprintf(text, sizeof(text),
		 "{\"process\":{\"env\":[\"TOKEN=" SECRET "\"]},"
		 "\"annotations\":{%s}}", annotations);
	put(text, "%s/run/containers/storage/overlay-containers/%s/userdata/"
	    "config.json", root, id);
}

#define CONTAINERD_SERVER \
	"\"io.kubernetes.cri.container-type\":\"container\"," \
	"\"io.kubernetes.cri.container-name\":\"server\"," \
	"\"io.kubernetes.cri.sandbox-name\":\"api-7d9f\"," \
	"\"io.kubernetes.cri.sandbox-namespace\":\"payments\"," \
	"\"io.kubernetes.cri.image-name\":\"registry.example/api:1.4\""

static int fake_node(void **s)
{
	snprintf(root, sizeof(root), "/tmp/ksnap-identity-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int remove_node(void **s)
{
	char cmd[128];

	ksnap_identity_root(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static const char *ret_name(int ret)
{
	switch (ret) {
	case 0:
		return "0 (complete)";
	case -EAGAIN:
		return "-EAGAIN (to be retried)";
	case -ENOENT:
		return "-ENOENT (nothing to look for)";
	default:
		return strerror(-ret);
	}
}

static void expect_cached(size_t want)
{
	if (ksnap_identity_cached() != want)
		fail_msg("cached cgroups: expected %zu, got %zu", want,
			 ksnap_identity_cached());
}

static void looked_up(const char *path, struct ksnap_identity *id,
		      int want_ret)
{
	int ret;

	ksnap_id_parse(path, id);
	ret = ksnap_id_lookup(root, id);
	if (ret != want_ret)
		fail_msg("lookup of %s: expected %s, got %s", path,
			 ret_name(want_ret), ret_name(ret));
}

static void kubelet_logs_name_namespace_pod_and_container(void **s)
{
	struct ksnap_identity id;

	kubelet_logs();
	looked_up(KPOD "/cri-containerd-" CID ".scope", &id, 0);
	expect_str("namespace", id.namespace, "payments");
	expect_str("pod", id.pod, "api-7d9f");
	expect_str("container", id.container, "server");
	expect_str("image", id.image, "");
	expect_role(&id, KSNAP_ROLE_CONTAINER);

	looked_up(KPOD, &id, 0);
	expect_str("namespace", id.namespace, "payments");
	expect_str("pod", id.pod, "api-7d9f");
	expect_str("container", id.container, "");
}

static void containerd_annotations_name_the_container_and_image(void **s)
{
	struct ksnap_identity id;

	containerd_bundle(CID, CONTAINERD_SERVER);
	looked_up("/kubepods/burstable/pod" UID "/" CID, &id, 0);
	expect_str("namespace", id.namespace, "payments");
	expect_str("pod", id.pod, "api-7d9f");
	expect_str("container", id.container, "server");
	expect_str("image", id.image, "registry.example/api:1.4");
	expect_role(&id, KSNAP_ROLE_CONTAINER);
}

static void containerd_annotations_mark_the_sandbox(void **s)
{
	struct ksnap_identity id;

	containerd_bundle(CID2,
		"\"io.kubernetes.cri.container-type\":\"sandbox\","
		"\"io.kubernetes.cri.sandbox-name\":\"api-7d9f\","
		"\"io.kubernetes.cri.sandbox-namespace\":\"payments\"");
	looked_up(KPOD "/cri-containerd-" CID2 ".scope", &id, 0);
	expect_role(&id, KSNAP_ROLE_SANDBOX);
	expect_str("namespace", id.namespace, "payments");
	expect_str("pod", id.pod, "api-7d9f");
	expect_str("container", id.container, "");
}

static void crio_annotations_name_the_container_and_mark_the_sandbox(void **s)
{
	struct ksnap_identity id;

	crio_bundle(CID,
		"\"io.kubernetes.cri-o.ContainerType\":\"container\","
		"\"io.kubernetes.container.name\":\"server\","
		"\"io.kubernetes.pod.name\":\"api-7d9f\","
		"\"io.kubernetes.pod.namespace\":\"payments\","
		"\"io.kubernetes.cri-o.ImageName\":\"quay.example/api:2\"");
	crio_bundle(CID2,
		"\"io.kubernetes.cri-o.ContainerType\":\"sandbox\","
		"\"io.kubernetes.container.name\":\"POD\","
		"\"io.kubernetes.pod.name\":\"api-7d9f\","
		"\"io.kubernetes.pod.namespace\":\"payments\"");
	looked_up(KPOD "/crio-" CID ".scope", &id, 0);
	expect_str("container", id.container, "server");
	expect_str("pod", id.pod, "api-7d9f");
	expect_str("namespace", id.namespace, "payments");
	expect_str("image", id.image, "quay.example/api:2");
	expect_role(&id, KSNAP_ROLE_CONTAINER);

	looked_up("/kubepods/burstable/pod" UID "/crio-" CID2, &id, 0);
	expect_role(&id, KSNAP_ROLE_SANDBOX);
	expect_str("container", id.container, "");
	expect_str("pod", id.pod, "api-7d9f");
}

static void nothing_but_the_annotations_is_kept(void **s)
{
	struct ksnap_identity id;
	const char *bytes = (const char *)&id;
	size_t i;

	containerd_bundle(CID, CONTAINERD_SERVER
		",\"io.kubernetes.cri.extra\":\"" SECRET "\"");
	looked_up(KPOD "/cri-containerd-" CID ".scope", &id, 0);
	for (i = 0; i + strlen(SECRET) <= sizeof(id); i++)
		if (!memcmp(bytes + i, SECRET, strlen(SECRET)))
			fail_msg("the environment's secret is in the "
				 "identity at byte %zu", i);
	expect_str("container", id.container, "server");
}

static void kubelet_logs_win_over_annotations(void **s)
{
	struct ksnap_identity id;

	kubelet_logs();
	containerd_bundle(CID,
		"\"io.kubernetes.cri.container-type\":\"container\","
		"\"io.kubernetes.cri.container-name\":\"other\","
		"\"io.kubernetes.cri.sandbox-name\":\"other-pod\","
		"\"io.kubernetes.cri.sandbox-namespace\":\"other-ns\","
		"\"io.kubernetes.cri.image-name\":\"registry.example/api:1.4\"");
	looked_up(KPOD "/cri-containerd-" CID ".scope", &id, 0);
	expect_str("container", id.container, "server");
	expect_str("pod", id.pod, "api-7d9f");
	expect_str("namespace", id.namespace, "payments");
	expect_str("image", id.image, "registry.example/api:1.4");
}

static void values_unfit_for_a_label_are_dropped(void **s)
{
	struct ksnap_identity id;

	containerd_bundle(CID,
		"\"io.kubernetes.cri.container-type\":\"container\","
		"\"io.kubernetes.cri.container-name\":\"a\\\"b\\nc\","
		"\"io.kubernetes.cri.sandbox-name\":\"api-7d9f\","
		"\"io.kubernetes.cri.sandbox-namespace\":\"payments\","
		"\"io.kubernetes.cri.image-name\":\"caf\xc3\xa9\"");
	looked_up(KPOD "/cri-containerd-" CID ".scope", &id, -EAGAIN);
	expect_str("container", id.container, "");
	expect_str("image", id.image, "");
	expect_str("pod", id.pod, "api-7d9f");
}

static void a_pod_without_files_yet_is_to_be_retried(void **s)
{
	struct ksnap_identity id;

	looked_up(KPOD "/cri-containerd-" CID ".scope", &id, -EAGAIN);
	expect_str("pod", id.pod, "");
	looked_up("/system.slice/docker-" CID ".scope", &id, -ENOENT);
	looked_up("/system.slice/ssh.service", &id, -ENOENT);
}

/* --- the cache ---------------------------------------------------------- */

static void of(const char *path, struct ksnap_identity *id)
{
	ksnap_identity_begin();
	ksnap_identity_of(path, id);
	ksnap_identity_end();
}

static void lookups_are_off_until_a_root_is_given(void **s)
{
	struct ksnap_identity id;

	kubelet_logs();
	of(KPOD "/cri-containerd-" CID ".scope", &id);
	expect_str("container_id", id.container_id, CID);
	expect_str("pod", id.pod, "");
	expect_cached(0);
}

static void a_cgroup_is_looked_up_once_not_per_pass(void **s)
{
	struct ksnap_identity id;
	char cmd[160];

	kubelet_logs();
	assert_int_equal(ksnap_identity_root(root), 0);
	of(KPOD "/cri-containerd-" CID ".scope", &id);
	expect_str("pod", id.pod, "api-7d9f");
	/* The files gone: the cached names stay. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/var'", root);
	assert_int_equal(system(cmd), 0);
	of(KPOD "/cri-containerd-" CID ".scope", &id);
	expect_str("pod", id.pod, "api-7d9f");
	expect_str("container", id.container, "server");
}

/*
 * An exit record's cgroup, gone: its names from the cache when a pass
 * looked it up (its files may be gone too), from the files when not; and
 * nothing is added to the cache.
 */
static void an_exit_is_named_from_the_cache_or_the_files(void **s)
{
	struct ksnap_identity id, want;
	char cmd[160];

	kubelet_logs();
	ksnap_identity_peek(KPOD "/cri-containerd-" CID ".scope", &id);
	expect_str("with lookups off: container_id", id.container_id, CID);
	expect_str("with lookups off: pod", id.pod, "");
	assert_int_equal(ksnap_identity_root(root), 0);
	ksnap_identity_peek(KPOD "/cri-containerd-" CID ".scope", &id);
	expect_str("from the files: pod", id.pod, "api-7d9f");
	expect_str("from the files: container", id.container, "server");
	expect_cached(0);
	of(KPOD "/cri-containerd-" CID2 ".scope", &want);
	expect_str("a pass's lookup: pod", want.pod, "api-7d9f");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/var'", root);
	assert_int_equal(system(cmd), 0);
	ksnap_identity_peek(KPOD "/cri-containerd-" CID2 ".scope", &id);
	expect_str("from the cache, the files gone: pod", id.pod, want.pod);
	expect_str("from the cache, the files gone: container", id.container,
		   want.container);
	expect_cached(1);
	ksnap_identity_peek(KPOD "/cri-containerd-" CID ".scope", &id);
	expect_str("neither cached nor in the files: pod", id.pod, "");
	expect_str("neither cached nor in the files: container_id",
		   id.container_id, CID);
}

/*
 * A stream's cgroups: each of its cgroup columns' values once, sorted,
 * named from the files; a column of another field is not a cgroup.
 */
static void a_streams_cgroups_are_named_once_each(void **s)
{
	static struct ksnap_column cols[5];
	static const char *const v[5][2] = {
		{ "cgroup", KPOD "/cri-containerd-" CID ".scope" },
		{ "cgroup", "/k/plain" },
		{ "cpu", "0" },
		{ "cgroup", KPOD "/cri-containerd-" CID ".scope" },
		{ "cgroup", "/k/plain" },
	};
	struct ksnap_identity *ids = NULL;
	const char **paths = NULL;
	int i, n;

	for (i = 0; i < 5; i++) {
		snprintf(cols[i].field, sizeof(cols[i].field), "%s", v[i][0]);
		snprintf(cols[i].value, sizeof(cols[i].value), "%s", v[i][1]);
	}
	kubelet_logs();
	assert_int_equal(ksnap_identity_root(root), 0);
	n = ksnap_identity_columns(cols, 5, &paths, &ids);
	if (n != 2)
		fail_msg("expected 2 distinct cgroups, got %d", n);
	expect_str("first, sorted", paths[0], "/k/plain");
	expect_str("second, sorted", paths[1], KPOD "/cri-containerd-" CID ".scope");
	expect_str("its pod", ids[1].pod, "api-7d9f");
	expect_str("its container", ids[1].container, "server");
	if (ksnap_id_known(&ids[0]))
		fail_msg("expected nothing known of /k/plain, got pod '%s', "
			 "container_id '%s'", ids[0].pod, ids[0].container_id);
	free(paths);
	free(ids);
}

static void missing_names_are_retried_a_bounded_number_of_times(void **s)
{
	static const char late[] = KPOD "/cri-containerd-" CID ".scope";
	static const char never[] = "/kubepods/burstable/pod" UID3 "/" CID3;
	struct ksnap_identity id;
	unsigned int pass;

	assert_int_equal(ksnap_identity_root(root), 0);
	for (pass = 1; pass < KSNAP_ID_TRIES; pass++) {
		ksnap_identity_begin();
		ksnap_identity_of(late, &id);
		expect_str("pod before the files", id.pod, "");
		ksnap_identity_of(never, &id);
		ksnap_identity_end();
	}
	/* Written before the last try: found. */
	kubelet_logs();
	ksnap_identity_begin();
	ksnap_identity_of(late, &id);
	expect_str("pod at the last try", id.pod, "api-7d9f");
	ksnap_identity_of(never, &id);
	ksnap_identity_end();
	/* never had its tries: a bundle written now is not read. */
	containerd_bundle(CID3, CONTAINERD_SERVER);
	of(never, &id);
	expect_str("container after the tries", id.container, "");
}

static void a_cgroup_left_out_of_a_pass_is_forgotten(void **s)
{
	struct ksnap_identity id;

	assert_int_equal(ksnap_identity_root(root), 0);
	ksnap_identity_begin();
	ksnap_identity_of(KPOD "/cri-containerd-" CID ".scope", &id);
	ksnap_identity_of(KPOD "/cri-containerd-" CID2 ".scope", &id);
	ksnap_identity_of("/system.slice/ssh.service", &id);
	ksnap_identity_end();
	expect_cached(2);
	of(KPOD "/cri-containerd-" CID2 ".scope", &id);
	expect_cached(1);
}

/* --- the endpoint ------------------------------------------------------- */

static void column(struct ksnap_column *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->metric, sizeof(c->metric), "memory.current");
	snprintf(c->field, sizeof(c->field), "cgroup");
	snprintf(c->value, sizeof(c->value), "%s", path);
	snprintf(c->description, sizeof(c->description), "memory.current, "
		 "bytes");
}

static void endpoint_labels_have_cadvisors_names(void **s)
{
	struct ksnap_column cols[4];
	struct om_layout l;
	unsigned int i;
	static const char *const want[] = {
		"cgroup=\"" KPOD "\",pod_uid=\"" UID "\",namespace=\"payments\""
		",pod=\"api-7d9f\"",
		"cgroup=\"" KPOD "/cri-containerd-" CID ".scope\",container_id="
		"\"" CID "\",pod_uid=\"" UID "\",namespace=\"payments\",pod="
		"\"api-7d9f\",container=\"server\",image=\"registry.example/"
		"api:1.4\",container_role=\"container\"",
		"cgroup=\"" KPOD "/crio-conmon-" CID ".scope\",pod_uid=\"" UID
		"\",namespace=\"payments\",pod=\"api-7d9f\",container_role="
		"\"conmon\"",
		"cgroup=\"/system.slice/ssh.service\"",
	};

	kubelet_logs();
	containerd_bundle(CID, CONTAINERD_SERVER);
	assert_int_equal(ksnap_identity_root(root), 0);
	column(&cols[0], KPOD);
	column(&cols[1], KPOD "/cri-containerd-" CID ".scope");
	column(&cols[2], KPOD "/crio-conmon-" CID ".scope");
	column(&cols[3], "/system.slice/ssh.service");
	assert_int_equal(om_layout_build(&l, cols, 4, NULL), 0);
	assert_int_equal(l.nr_series, 4);
	for (i = 0; i < 4; i++)
		expect_str(cols[l.series[i].column].value,
			   l.series[i].labels,
			   want[l.series[i].column]);
	om_layout_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			systemd_scopes_of_every_runtime_give_the_container_id),
		cmocka_unit_test(cgroupfs_driver_paths_give_the_container_id),
		cmocka_unit_test(pod_slices_give_the_pod_uid_with_dashes),
		cmocka_unit_test(
			conmon_scopes_are_conmon_without_a_container_id),
		cmocka_unit_test(names_that_are_not_ids_are_not_taken),
#define NODE(t) cmocka_unit_test_setup_teardown(t, fake_node, remove_node)
		NODE(kubelet_logs_name_namespace_pod_and_container),
		NODE(containerd_annotations_name_the_container_and_image),
		NODE(containerd_annotations_mark_the_sandbox),
		NODE(crio_annotations_name_the_container_and_mark_the_sandbox),
		NODE(nothing_but_the_annotations_is_kept),
		NODE(kubelet_logs_win_over_annotations),
		NODE(values_unfit_for_a_label_are_dropped),
		NODE(a_pod_without_files_yet_is_to_be_retried),
		NODE(lookups_are_off_until_a_root_is_given),
		NODE(a_cgroup_is_looked_up_once_not_per_pass),
		NODE(an_exit_is_named_from_the_cache_or_the_files),
		NODE(a_streams_cgroups_are_named_once_each),
		NODE(missing_names_are_retried_a_bounded_number_of_times),
		NODE(a_cgroup_left_out_of_a_pass_is_forgotten),
		NODE(endpoint_labels_have_cadvisors_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

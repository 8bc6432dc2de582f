// SPDX-License-Identifier: MIT
/*
 * A followed cgroup's identity: the kubelet's log directories and the
 * runtimes' bundle annotations read, and their cache (identity.h); the
 * path is parsed in idpath.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "identity.h"
#include "sys.h"

/* A bundle's config.json larger than this is not read. */
#define BUNDLE_MAX	(4u << 20)

/* --- the files ---------------------------------------------------------- */

/* A value fit for a label: printable ASCII, not too long.  Into out. */
static void take(char *out, size_t outlen, const char *v, size_t len)
{
	if (out[0] || !len || len >= outlen || !ksnap_id_chars(v, len,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-_.:/@+"))
		return;
	memcpy(out, v, len);
	out[len] = '\0';
}

static int __attribute__((format(printf, 3, 4)))
path_of(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void free_names(char **names, int n)
{
	while (n-- > 0)
		free(names[n]);
	free(names);
}

/* var/log/pods/<namespace>_<pod>_<uid>: the pod of id->pod_uid. */
static int pod_from_logs(const char *root, struct ksnap_identity *id)
{
	char dir[PATH_MAX], **names = NULL;
	size_t ul = strlen(id->pod_uid);
	int n, i, ret;

	ret = path_of(dir, sizeof(dir), "%s/var/log/pods", root);
	if (ret)
		return ret;
	n = ksnap_sys_list_dir(dir, &names);
	if (n < 0)
		return n;
	ret = -ENOENT;
	for (i = 0; i < n && ret; i++) {
		const char *s = names[i], *us;
		size_t len = strlen(s), nl;

		if (len < ul + 4)
			continue;
		us = s + len - ul - 1;
		if (*us != '_' || strcmp(us + 1, id->pod_uid))
			continue;
		nl = strcspn(s, "_");
		if (!nl || s + nl >= us || memchr(s + nl + 1, '_',
						  (size_t)(us - s - nl - 1)))
			continue;
		take(id->namespace, sizeof(id->namespace), s, nl);
		take(id->pod, sizeof(id->pod), s + nl + 1,
		     (size_t)(us - s - nl - 1));
		ret = 0;
	}
	free_names(names, n);
	return ret;
}

/* var/log/containers/<pod>_<namespace>_<container>-<id>.log: the
 * container id->container_id. */
static int container_from_logs(const char *root, struct ksnap_identity *id)
{
	char dir[PATH_MAX], tail[KSNAP_ID_CID_MAX + 8], **names = NULL;
	size_t tl;
	int n, i, ret;

	ret = path_of(dir, sizeof(dir), "%s/var/log/containers", root);
	if (ret)
		return ret;
	snprintf(tail, sizeof(tail), "-%s.log", id->container_id);
	tl = strlen(tail);
	n = ksnap_sys_list_dir(dir, &names);
	if (n < 0)
		return n;
	ret = -ENOENT;
	for (i = 0; i < n && ret; i++) {
		const char *s = names[i];
		size_t len = strlen(s), pl, nl, cl;

		if (len <= tl || strcmp(s + len - tl, tail))
			continue;
		len -= tl;
		pl = strcspn(s, "_");
		if (pl >= len)
			continue;
		nl = strcspn(s + pl + 1, "_");
		if (pl + 1 + nl >= len)
			continue;
		cl = len - pl - nl - 2;
		if (!pl || !nl || !cl)
			continue;
		take(id->pod, sizeof(id->pod), s, pl);
		take(id->namespace, sizeof(id->namespace), s + pl + 1, nl);
		take(id->container, sizeof(id->container), s + pl + nl + 2,
		     cl);
		if (id->role == KSNAP_ROLE_UNKNOWN)
			id->role = KSNAP_ROLE_CONTAINER;
		ret = 0;
	}
	free_names(names, n);
	return ret;
}

/* The whole of regular file path, at most BUNDLE_MAX bytes, into a new
 * NUL-terminated *buf of *size bytes (to be wiped: it may hold secrets). */
static int read_small(const char *path, char **buf, size_t *size)
{
	struct stat st;
	size_t got = 0, cap;
	char *b = NULL;
	int fd, ret;

	fd = ksnap_sys_open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd;
	ret = ksnap_sys_fstat(fd, &st);
	if (!ret && (!S_ISREG(st.st_mode) || st.st_size < 0 ||
		     (uint64_t)st.st_size > BUNDLE_MAX))
		ret = -EFBIG;
	if (ret)
		goto out;
	cap = (size_t)st.st_size + 1;
	b = malloc(cap);
	if (!b) {
		ret = -ENOMEM;
		goto out;
	}
	while (got + 1 < cap) {
		ssize_t r = ksnap_sys_read(fd, b + got, cap - 1 - got);

		if (r < 0) {
			ret = (int)r;
			goto out;
		}
		if (!r)
			break;
		got += (size_t)r;
	}
	b[got] = '\0';
	*buf = b;
	*size = cap;
	b = NULL;
out:
	if (b) {
		explicit_bzero(b, cap);
		free(b);
	}
	ksnap_sys_close(fd);
	return ret;
}

/* The string annotation key of object a, or NULL. */
static const char *annotation(struct json_object *a, const char *key,
			      size_t *len)
{
	struct json_object *v;

	if (!json_object_object_get_ex(a, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	*len = (size_t)json_object_get_string_len(v);
	return json_object_get_string(v);
}

/* The annotations of one runtime: their keys. */
struct bundle_keys {
	const char *type, *container, *pod, *namespace, *image;
};

static const struct bundle_keys containerd_keys = {
	"io.kubernetes.cri.container-type",
	"io.kubernetes.cri.container-name",
	"io.kubernetes.cri.sandbox-name",
	"io.kubernetes.cri.sandbox-namespace",
	"io.kubernetes.cri.image-name",
};

static const struct bundle_keys crio_keys = {
	"io.kubernetes.cri-o.ContainerType",
	"io.kubernetes.container.name",
	"io.kubernetes.pod.name",
	"io.kubernetes.pod.namespace",
	"io.kubernetes.cri-o.ImageName",
};

/* The annotations of the bundle at path, as k names them. */
static int from_bundle(const char *path, const struct bundle_keys *k,
		       struct ksnap_identity *id)
{
	struct json_tokener *tok = NULL;
	struct json_object *doc = NULL, *a;
	const char *v;
	char *buf = NULL;
	size_t size = 0, len;
	int ret;

	ret = read_small(path, &buf, &size);
	if (ret)
		return ret;
	tok = json_tokener_new();
	if (!tok) {
		ret = -ENOMEM;
		goto out;
	}
	doc = json_tokener_parse_ex(tok, buf, (int)strlen(buf));
	if (!doc || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_object_get_ex(doc, "annotations", &a) ||
	    !json_object_is_type(a, json_type_object)) {
		ret = -ENODATA;
		goto out;
	}
	v = annotation(a, k->type, &len);
	if (v && len == 7 && !strncmp(v, "sandbox", 7))
		id->role = KSNAP_ROLE_SANDBOX;
	else if (v && len == 9 && !strncmp(v, "container", 9) &&
		 id->role == KSNAP_ROLE_UNKNOWN)
		id->role = KSNAP_ROLE_CONTAINER;
	v = annotation(a, k->container, &len);
	if (v && id->role != KSNAP_ROLE_SANDBOX)
		take(id->container, sizeof(id->container), v, len);
	v = annotation(a, k->pod, &len);
	if (v)
		take(id->pod, sizeof(id->pod), v, len);
	v = annotation(a, k->namespace, &len);
	if (v)
		take(id->namespace, sizeof(id->namespace), v, len);
	v = annotation(a, k->image, &len);
	if (v)
		take(id->image, sizeof(id->image), v, len);
out:
	json_object_put(doc);
	if (tok)
		json_tokener_free(tok);
	explicit_bzero(buf, size);
	free(buf);
	return ret;
}

/* Whether id has all the files can give. */
static bool complete(const struct ksnap_identity *id)
{
	if (id->pod_uid[0] && (!id->namespace[0] || !id->pod[0]))
		return false;
	if (!id->container_id[0])
		return true;
	return id->role == KSNAP_ROLE_SANDBOX ||
	       (id->role == KSNAP_ROLE_CONTAINER && id->container[0]);
}

int ksnap_id_lookup(const char *root, struct ksnap_identity *id)
{
	char path[PATH_MAX];
	bool found = false;

	if (!id->pod_uid[0] && !id->container_id[0])
		return -ENOENT;
	if (id->pod_uid[0])
		found |= !pod_from_logs(root, id);
	if (id->container_id[0]) {
		found |= !container_from_logs(root, id);
		if (!path_of(path, sizeof(path), "%s/run/containerd/"
			     "io.containerd.runtime.v2.task/k8s.io/%s/"
			     "config.json", root, id->container_id))
			found |= !from_bundle(path, &containerd_keys, id);
		if (!complete(id) &&
		    !path_of(path, sizeof(path), "%s/run/containers/storage/"
			     "overlay-containers/%s/userdata/config.json", root,
			     id->container_id))
			found |= !from_bundle(path, &crio_keys, id);
	}
	if (complete(id))
		return 0;
	if (id->pod_uid[0])
		return -EAGAIN;
	return found ? 0 : -ENOENT;
}

/* --- the cache ---------------------------------------------------------- */

struct id_entry {
	char *path;
	struct ksnap_identity id;
	unsigned int tries;
	bool done;			/* complete, or out of tries */
	uint64_t tried, seen;		/* the passes it was tried, seen in */
};

static struct {
	pthread_mutex_t lock;
	bool on;
	char root[PATH_MAX];
	struct id_entry *e;		/* sorted by path */
	size_t n, cap;
	uint64_t pass;
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void cache_clear(void)
{
	size_t i;

	for (i = 0; i < cache.n; i++)
		free(cache.e[i].path);
	free(cache.e);
	cache.e = NULL;
	cache.n = cache.cap = 0;
}

int ksnap_identity_root(const char *root)
{
	size_t len;
	int ret = 0;

	pthread_mutex_lock(&cache.lock);
	cache_clear();
	cache.on = false;
	if (root) {
		len = strlen(root);
		while (len && root[len - 1] == '/')
			len--;
		if (len >= sizeof(cache.root)) {
			ret = -ENAMETOOLONG;
		} else {
			memcpy(cache.root, root, len);
			cache.root[len] = '\0';
			cache.on = true;
		}
	}
	pthread_mutex_unlock(&cache.lock);
	return ret;
}

void ksnap_identity_begin(void)
{
	pthread_mutex_lock(&cache.lock);
	cache.pass++;
	pthread_mutex_unlock(&cache.lock);
}

/* The entry of path p, or where it goes (*at). */
static struct id_entry *find(const char *p, size_t *at)
{
	size_t lo = 0, hi = cache.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(p, cache.e[mid].path);

		if (!d)
			return &cache.e[mid];
		if (d < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*at = lo;
	return NULL;
}

static struct id_entry *insert(const char *p, size_t at,
			       const struct ksnap_identity *id)
{
	struct id_entry *e;
	char *path;

	if (cache.n == cache.cap) {
		size_t cap = cache.cap ? 2 * cache.cap : 16;

		e = realloc(cache.e, cap * sizeof(*e));
		if (!e)
			return NULL;
		cache.e = e;
		cache.cap = cap;
	}
	path = strdup(p);
	if (!path)
		return NULL;
	memmove(&cache.e[at + 1], &cache.e[at],
		(cache.n - at) * sizeof(*cache.e));
	cache.n++;
	e = &cache.e[at];
	memset(e, 0, sizeof(*e));
	e->path = path;
	e->id = *id;
	return e;
}

/*
 * Path p parsed into id; when it has ids to look up and lookups are on,
 * the cache locked, with *e the path's entry (or NULL) and *at where one
 * goes: true, and the caller unlocks.
 */
static bool cache_lock_find(const char *p, struct ksnap_identity *id,
			    struct id_entry **e, size_t *at)
{
	ksnap_id_parse(p, id);
	if (!id->container_id[0] && !id->pod_uid[0])
		return false;
	pthread_mutex_lock(&cache.lock);
	if (!cache.on) {
		pthread_mutex_unlock(&cache.lock);
		return false;
	}
	*e = find(p, at);
	return true;
}

void ksnap_identity_of(const char *p, struct ksnap_identity *id)
{
	struct id_entry *e;
	size_t at = 0;

	if (!cache_lock_find(p, id, &e, &at))
		return;
	if (!e)
		e = insert(p, at, id);
	if (!e)
		goto out;	/* no memory: the path's ids only */
	e->seen = cache.pass;
	if (!e->done && e->tried != cache.pass) {
		struct ksnap_identity got = e->id;
		int ret = ksnap_id_lookup(cache.root, &got);

		e->id = got;
		e->tried = cache.pass;
		e->done = ret != -EAGAIN || ++e->tries >= KSNAP_ID_TRIES;
	}
	*id = e->id;
out:
	pthread_mutex_unlock(&cache.lock);
}

void ksnap_identity_peek(const char *p, struct ksnap_identity *id)
{
	struct id_entry *e;
	size_t at = 0;

	if (!cache_lock_find(p, id, &e, &at))
		return;
	if (e)
		*id = e->id;
	/* A lookup now fills what a pass's lookup could not yet. */
	if (!e || !e->done)
		ksnap_id_lookup(cache.root, id);
	pthread_mutex_unlock(&cache.lock);
}

void ksnap_identity_end(void)
{
	size_t i, n = 0;

	pthread_mutex_lock(&cache.lock);
	for (i = 0; i < cache.n; i++) {
		if (cache.e[i].seen != cache.pass) {
			free(cache.e[i].path);
			continue;
		}
		cache.e[n++] = cache.e[i];
	}
	cache.n = n;
	pthread_mutex_unlock(&cache.lock);
}

size_t ksnap_identity_cached(void)
{
	size_t n;

	pthread_mutex_lock(&cache.lock);
	n = cache.n;
	pthread_mutex_unlock(&cache.lock);
	return n;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ksnap_identity_columns(const struct ksnap_column *cols, uint32_t n,
			   const char ***paths, struct ksnap_identity **ids)
{
	const char **p = calloc(n + 1, sizeof(*p));
	struct ksnap_identity *id = NULL;
	uint32_t i, m = 0, k = 0;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (!strcmp(cols[i].field, "cgroup"))
			p[m++] = cols[i].value;
	qsort(p, m, sizeof(*p), path_cmp);
	for (i = 0; i < m; i++)
		if (!k || strcmp(p[k - 1], p[i]))
			p[k++] = p[i];
	if (k) {
		id = calloc(k, sizeof(*id));
		if (!id) {
			free(p);
			return -ENOMEM;
		}
	}
	for (i = 0; i < k; i++)
		ksnap_identity_peek(p[i], &id[i]);
	*paths = p;
	*ids = id;
	return (int)k;
}

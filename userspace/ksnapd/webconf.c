// SPDX-License-Identifier: MIT
/* --web.config.file (webconf.h). */
#include <errno.h>
#include <gnutls/gnutls.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "webconf.h"

/* A section given empty would turn TLS or authentication off unseen. */
#define EMPTY	"empty (remove the key to go without it)"

/* Files larger than this are not a certificate, a key or a config. */
#define WEBCONF_FILE_MAX	(1 << 20)

struct ctx {
	const char *path;
	yaml_document_t *doc;
	struct webconf *c;
	char *err;
	size_t errlen;
};

static int fail(struct ctx *x, const yaml_node_t *n, const char *key,
		int ret, const char *fmt, const char *arg)
{
	char what[256];

	snprintf(what, sizeof(what), fmt, arg);
	if (n)
		snprintf(x->err, x->errlen, "--web.config.file: %s:%zu: %s: %s",
			 x->path, n->start_mark.line + 1, key, what);
	else
		snprintf(x->err, x->errlen, "--web.config.file: %s: %s: %s",
			 x->path, key, what);
	return ret;
}

/*
 * The whole of FILE, NUL-terminated, in *out (a buffer of its size); *len
 * its length.  The buffer read into is zeroed before it is freed: FILE may
 * be a private key.
 */
static int read_file(const char *file, char **out, size_t *len)
{
	FILE *f = fopen(file, "re");
	size_t n = 0, got;
	char *p, *q;
	int ret = 0;

	if (!f)
		return -errno;
	p = malloc(WEBCONF_FILE_MAX + 1);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	while ((got = fread(p + n, 1, WEBCONF_FILE_MAX + 1 - n, f)) > 0)
		n += got;
	if (ferror(f))
		ret = -EIO;
	else if (n > WEBCONF_FILE_MAX)
		ret = -EFBIG;
	q = ret ? NULL : malloc(n + 1);
	if (!ret && !q)
		ret = -ENOMEM;
	if (!ret) {
		memcpy(q, p, n);
		q[n] = '\0';
		*out = q;
		*len = n;
	}
	explicit_bzero(p, n);
	free(p);
out:
	fclose(f);
	return ret;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
		(const char *)n->data.scalar.value : NULL;
}

/* A null value (a key with nothing after it): "", "~", "null". */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null"));
}

/* FILE as the config names it: relative to the config's directory. */
static int read_named(struct ctx *x, const yaml_node_t *n, const char *key,
		      char **out)
{
	const char *file = scalar(n), *slash = strrchr(x->path, '/');
	char path[4096];
	size_t len;
	int ret;

	if (!file || !*file)
		return fail(x, n, key, -EINVAL, "%sa file name", "expected ");
	if (*file != '/' && slash)
		snprintf(path, sizeof(path), "%.*s/%s",
			 (int)(slash - x->path), x->path, file);
	else
		snprintf(path, sizeof(path), "%s", file);
	ret = read_file(path, out, &len);
	if (ret) {
		char what[4200];

		snprintf(what, sizeof(what), "%s: %s", path, strerror(-ret));
		return fail(x, n, key, ret, "%s", what);
	}
	return 0;
}

/* Keys of the exporter toolkit's web configuration that ksnapd does not
 * serve: named as such, not as unknown. */
static bool toolkit_key(const char *section, const char *key)
{
	static const char *const tls[] = {
		"cert", "key", "client_auth_type", "client_ca_file",
		"client_ca", "client_allowed_sans", "cipher_suites",
		"curve_preferences", "min_version", "max_version",
		"prefer_server_cipher_suites", NULL,
	};
	static const char *const top[] = { "http_server_config",
					   "rate_limit", NULL };
	const char *const *k = section ? tls : top;

	for (; *k; k++)
		if (!strcmp(*k, key))
			return true;
	return false;
}

static int unknown(struct ctx *x, const yaml_node_t *n, const char *section,
		   const char *key)
{
	char name[256];

	snprintf(name, sizeof(name), "%s%s%s", section ? section : "",
		 section ? "." : "", key);
	if (toolkit_key(section, key))
		return fail(x, n, name, -EOPNOTSUPP, "%s",
			    "not supported by ksnapd");
	return fail(x, n, name, -EINVAL, "%s", "unknown key");
}

/* The certificate and key load together (GnuTLS, as the server will). */
static int check_pair(struct ctx *x, const yaml_node_t *n)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert = {
		.data = (unsigned char *)x->c->cert_pem,
		.size = (unsigned int)strlen(x->c->cert_pem),
	};
	gnutls_datum_t key = {
		.data = (unsigned char *)x->c->key_pem,
		.size = (unsigned int)strlen(x->c->key_pem),
	};
	int r;

	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return fail(x, n, "tls_server_config", -ENOMEM, "%s",
			    "out of memory");
	r = gnutls_certificate_set_x509_key_mem(cred, &cert, &key,
						GNUTLS_X509_FMT_PEM);
	gnutls_certificate_free_credentials(cred);
	if (r < 0)
		return fail(x, n, "tls_server_config.cert_file, key_file",
			    -EINVAL, "they do not load: %s",
			    gnutls_strerror(r));
	return 0;
}

static int tls_section(struct ctx *x, const yaml_node_t *m)
{
	const yaml_node_pair_t *p;
	const yaml_node_t *cert = NULL, *key = NULL;
	int ret;

	if (is_null(m))
		return fail(x, m, "tls_server_config", -EINVAL, "%s", EMPTY);
	if (m->type != YAML_MAPPING_NODE)
		return fail(x, m, "tls_server_config", -EINVAL, "%s",
			    "expected a mapping");
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		const yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *name = scalar(k);

		if (!name)
			return fail(x, k, "tls_server_config", -EINVAL, "%s",
				    "a key that is not a string");
		if (!strcmp(name, "cert_file"))
			cert = v;
		else if (!strcmp(name, "key_file"))
			key = v;
		else
			return unknown(x, k, "tls_server_config", name);
	}
	if (!cert && !key)
		return fail(x, m, "tls_server_config", -EINVAL, "%s", EMPTY);
	if (!cert || !key)
		return fail(x, m, cert ? "tls_server_config.key_file" :
			    "tls_server_config.cert_file", -EINVAL, "%s",
			    "missing (cert_file and key_file go together)");
	ret = read_named(x, cert, "tls_server_config.cert_file",
			 &x->c->cert_pem);
	if (!ret)
		ret = read_named(x, key, "tls_server_config.key_file",
				 &x->c->key_pem);
	return ret ? ret : check_pair(x, m);
}

int webconf_bcrypt_ok(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' ||
	    !strchr("aby", h[2]) || h[3] != '$' || h[6] != '$' ||
	    h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9')
		return 0;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (cost < 4 || cost > 31)
		return 0;
	return strspn(h + 7, b64) == 53;
}

static int users_section(struct ctx *x, const yaml_node_t *m)
{
	const yaml_node_pair_t *p;
	size_t n;

	if (is_null(m))
		return fail(x, m, "basic_auth_users", -EINVAL, "%s", EMPTY);
	if (m->type != YAML_MAPPING_NODE)
		return fail(x, m, "basic_auth_users", -EINVAL, "%s",
			    "expected a mapping of user: bcrypt hash");
	n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	if (!n)
		return fail(x, m, "basic_auth_users", -EINVAL, "%s", EMPTY);
	x->c->users = calloc(n + 1, sizeof(*x->c->users));
	if (!x->c->users)
		return -ENOMEM;
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		const yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *name = scalar(k), *hash = scalar(v);
		struct webconf_user *u = &x->c->users[x->c->nr_users];
		char key[300];
		unsigned int i;

		if (!name || !*name || strchr(name, ':'))
			return fail(x, k, "basic_auth_users", -EINVAL, "%s",
				    "a user name is a string without ':'");
		snprintf(key, sizeof(key), "basic_auth_users.%s", name);
		for (i = 0; i < x->c->nr_users; i++)
			if (!strcmp(x->c->users[i].name, name))
				return fail(x, k, key, -EINVAL, "%s",
					    "given twice");
		if (!hash || !webconf_bcrypt_ok(hash))
			return fail(x, v, key, -EINVAL, "%s", "not a bcrypt "
				    "hash ($2y$, $2b$ or $2a$, cost 04-31, "
				    "60 characters)");
		u->name = strdup(name);
		u->hash = strdup(hash);
		x->c->nr_users++;
		if (!u->name || !u->hash)
			return -ENOMEM;
	}
	return 0;
}

static int walk(struct ctx *x)
{
	const yaml_node_t *root = yaml_document_get_root_node(x->doc);
	const yaml_node_pair_t *p;
	bool tls = false, users = false;
	int ret;

	if (!root || is_null(root))
		return 0;		/* an empty file */
	if (root->type != YAML_MAPPING_NODE)
		return fail(x, root, "the document", -EINVAL, "%s",
			    "expected a mapping");
	for (p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *name = scalar(k);

		if (!name)
			return fail(x, k, "the document", -EINVAL, "%s",
				    "a key that is not a string");
		if (!strcmp(name, "tls_server_config") && !tls) {
			tls = true;
			ret = tls_section(x, v);
		} else if (!strcmp(name, "basic_auth_users") && !users) {
			users = true;
			ret = users_section(x, v);
		} else if (!strcmp(name, "tls_server_config") ||
			   !strcmp(name, "basic_auth_users")) {
			ret = fail(x, k, name, -EINVAL, "%s", "given twice");
		} else {
			ret = unknown(x, k, NULL, name);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int webconf_parse(const char *path, const char *text, size_t len,
		  struct webconf *c, char *err, size_t errlen)
{
	struct ctx x = { .path = path, .c = c, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_document_t doc;
	int ret;

	memset(c, 0, sizeof(*c));
	*err = '\0';
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
				     len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "--web.config.file: %s:%zu: %s",
			 path, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	x.doc = &doc;
	ret = walk(&x);
	yaml_document_delete(&doc);
	/* One document: a second (after ---) would be ignored unseen. */
	if (!ret && !yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "--web.config.file: %s:%zu: %s",
			 path, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML");
		ret = -EINVAL;
	} else if (!ret) {
		const yaml_node_t *n = yaml_document_get_root_node(&doc);

		if (n)
			ret = fail(&x, n, "a second document", -EINVAL, "%s",
				   "only one is read");
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	if (ret) {
		if (ret == -ENOMEM && !*err)
			snprintf(err, errlen, "--web.config.file: %s: out of "
				 "memory", path);
		webconf_free(c);
	}
	return ret;
}

int webconf_load(const char *path, struct webconf *c, char *err,
		 size_t errlen)
{
	char *text;
	size_t len;
	int ret;

	memset(c, 0, sizeof(*c));
	*err = '\0';
	ret = read_file(path, &text, &len);
	if (ret) {
		snprintf(err, errlen, "--web.config.file: %s: %s", path,
			 strerror(-ret));
		return ret;
	}
	ret = webconf_parse(path, text, len, c, err, errlen);
	free(text);
	return ret;
}

void webconf_free(struct webconf *c)
{
	unsigned int i;

	if (c->key_pem) {
		explicit_bzero(c->key_pem, strlen(c->key_pem));
		free(c->key_pem);
	}
	free(c->cert_pem);
	for (i = 0; i < c->nr_users; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	memset(c, 0, sizeof(*c));
}

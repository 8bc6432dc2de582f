/* SPDX-License-Identifier: MIT */
/*
 * --web.config.file: the web configuration of Prometheus' exporter
 * toolkit (docs/prometheus.md), the part ksnapd serves:
 *
 *   tls_server_config:
 *     cert_file: FILE     PEM certificate (chain), relative to the file
 *     key_file: FILE      its PEM private key
 *   basic_auth_users:
 *     USER: HASH          bcrypt ($2y$, $2b$, $2a$)
 *
 * Any other key, a section given empty, a second YAML document, a file
 * that cannot be read, a certificate and key that do not load, a hash that
 * is not bcrypt: an error naming the file, the key and its line, and
 * ksnapd does not start.  An empty file is no TLS and no authentication.
 * The certificate and key are kept in buffers of their size, the key's
 * zeroed when freed.
 */
#ifndef KSNAPD_WEBCONF_H
#define KSNAPD_WEBCONF_H

#include <stddef.h>

struct webconf_user {
	char *name;
	char *hash;
};

struct webconf {
	char *cert_pem;			/* NULL: plain HTTP */
	char *key_pem;
	struct webconf_user *users;	/* none: no authentication */
	unsigned int nr_users;
};

/* Read and check PATH into c.  Returns 0 or -errno with err set. */
int webconf_load(const char *path, struct webconf *c, char *err,
		 size_t errlen);

/* The same from text (len bytes), PATH naming it and the directory the
 * files are relative to. */
int webconf_parse(const char *path, const char *text, size_t len,
		  struct webconf *c, char *err, size_t errlen);

void webconf_free(struct webconf *c);

/* HASH is a bcrypt hash crypt(3) can check: $2a$, $2b$ or $2y$, a cost
 * of 04 to 31, 53 characters of salt and hash. */
int webconf_bcrypt_ok(const char *hash);

#endif /* KSNAPD_WEBCONF_H */

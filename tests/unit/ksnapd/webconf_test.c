// SPDX-License-Identifier: MIT
/*
 * --web.config.file (webconf.h): what it reads, and that every mistake (an
 * empty section, a second document among them) is an error naming the
 * file, the key and its line; the certificate and key in buffers of their
 * size.
 */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "web_tls.h"
#include "webconf.h"

static char dir[64];
static char path[128];
static char err[512];
static struct webconf c;

static void put(const char *name, const char *text)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/webconf_test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	put("server.crt", TEST_CERT);
	put("server.key", TEST_KEY);
	put("bad.key", "-----BEGIN PRIVATE KEY-----\nbm9wZQ==\n"
	    "-----END PRIVATE KEY-----\n");
	memset(&c, 0, sizeof(c));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	webconf_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* The config TEXT loaded: its return value. */
static int load(const char *text)
{
	put("web.yml", text);
	return webconf_load(path, &c, err, sizeof(err));
}

/* err names the file, and has each of the strings given. */
static void err_has(const char *a, const char *b)
{
	assert_non_null(strstr(err, path));
	if (!strstr(err, a) || (b && !strstr(err, b)))
		fail_msg("'%s' lacks '%s' or '%s'", err, a, b ? b : "");
}

static void an_empty_file_is_plain_http_without_users(void **state)
{
	assert_int_equal(load(""), 0);
	assert_null(c.cert_pem);
	assert_int_equal(c.nr_users, 0);
	assert_int_equal(load("# nothing\n"), 0);
	assert_int_equal(c.nr_users, 0);
}

static void an_empty_section_is_refused_not_dropped(void **state)
{
	assert_int_equal(load("basic_auth_users:\n"), -EINVAL);
	err_has(":1: basic_auth_users: ", "empty");
	assert_int_equal(load("basic_auth_users: {}\n"), -EINVAL);
	err_has(":1: basic_auth_users: ", "empty");
	assert_int_equal(load("basic_auth_users: ~\n"), -EINVAL);
	err_has("basic_auth_users: ", "empty");
	assert_int_equal(load("basic_auth_users:\n  u: " TEST_HASH "\n"
			      "tls_server_config: {}\n"), -EINVAL);
	err_has(":3: tls_server_config: ", "empty");
	assert_int_equal(load("tls_server_config:\n"), -EINVAL);
	err_has(":1: tls_server_config: ", "empty");
	assert_null(c.users);
	assert_int_equal(c.nr_users, 0);
}

static void a_second_document_is_refused(void **state)
{
	assert_int_equal(load("basic_auth_users:\n  u: " TEST_HASH "\n"
			      "---\n"
			      "tls_server_config:\n  cert_file: server.crt\n"
			      "  key_file: server.key\n"), -EINVAL);
	err_has(":4: a second document", "only one");
	assert_int_equal(c.nr_users, 0);
	/* One document, marked as such, is fine. */
	assert_int_equal(load("---\nbasic_auth_users:\n  u: " TEST_HASH "\n"
			      "...\n"), 0);
	assert_int_equal(c.nr_users, 1);
}

static void cert_and_key_are_kept_in_buffers_of_their_size(void **state)
{
	assert_int_equal(load("tls_server_config:\n"
			      "  cert_file: server.crt\n"
			      "  key_file: server.key\n"), 0);
	assert_true(malloc_usable_size(c.cert_pem) < 2 * sizeof(TEST_CERT) +
		    64);
	assert_true(malloc_usable_size(c.key_pem) < 2 * sizeof(TEST_KEY) +
		    64);
}

static void cert_key_and_users_are_read_relative_to_the_file(void **state)
{
	assert_int_equal(load("tls_server_config:\n"
			      "  cert_file: server.crt\n"
			      "  key_file: server.key\n"
			      "basic_auth_users:\n"
			      "  prometheus: " TEST_HASH "\n"
			      "  'other': \"" TEST_HASH "\"\n"), 0);
	assert_string_equal(c.cert_pem, TEST_CERT);
	assert_string_equal(c.key_pem, TEST_KEY);
	assert_int_equal(c.nr_users, 2);
	assert_string_equal(c.users[0].name, "prometheus");
	assert_string_equal(c.users[0].hash, TEST_HASH);
	assert_string_equal(c.users[1].name, "other");
}

static void users_without_tls_are_read(void **state)
{
	assert_int_equal(load("basic_auth_users:\n  u: " TEST_HASH "\n"), 0);
	assert_null(c.cert_pem);
	assert_int_equal(c.nr_users, 1);
}

static void an_unknown_key_is_refused_with_its_name_and_line(void **state)
{
	assert_int_equal(load("basic_auth_users:\n  u: " TEST_HASH "\n"
			      "tls_server_confg:\n  cert_file: x\n"),
			 -EINVAL);
	err_has(":3: tls_server_confg: unknown key", NULL);
	assert_null(c.users);
	assert_int_equal(load("tls_server_config:\n  cert_file: server.crt\n"
			      "  key_file: server.key\n  keyfile: x\n"),
			 -EINVAL);
	err_has(":4: tls_server_config.keyfile: unknown key", NULL);
}

static void a_toolkit_key_ksnapd_does_not_serve_is_refused(void **state)
{
	assert_int_equal(load("tls_server_config:\n  cert_file: server.crt\n"
			      "  key_file: server.key\n"
			      "  client_ca_file: ca.crt\n"), -EOPNOTSUPP);
	err_has("tls_server_config.client_ca_file", "not supported");
	assert_int_equal(load("http_server_config:\n  http2: false\n"),
			 -EOPNOTSUPP);
	err_has(":1: http_server_config", "not supported");
}

static void a_missing_cert_file_names_the_key_and_the_file(void **state)
{
	assert_int_equal(load("tls_server_config:\n  cert_file: nope.crt\n"
			      "  key_file: server.key\n"), -ENOENT);
	err_has(":2: tls_server_config.cert_file", "nope.crt: No such file");
}

static void a_cert_without_its_key_is_refused(void **state)
{
	assert_int_equal(load("tls_server_config:\n  cert_file: server.crt\n"),
			 -EINVAL);
	err_has("tls_server_config.key_file: missing", NULL);
}

static void a_key_that_does_not_load_is_refused(void **state)
{
	assert_int_equal(load("tls_server_config:\n  cert_file: server.crt\n"
			      "  key_file: bad.key\n"), -EINVAL);
	err_has("cert_file, key_file: they do not load", NULL);
	assert_int_equal(load("tls_server_config:\n  cert_file: server.key\n"
			      "  key_file: server.key\n"), -EINVAL);
	err_has("they do not load", NULL);
}

static void a_malformed_hash_names_its_user(void **state)
{
	assert_int_equal(load("basic_auth_users:\n  alice: secret\n"),
			 -EINVAL);
	err_has(":2: basic_auth_users.alice: not a bcrypt hash", NULL);
	/* SHA-512 crypt is not bcrypt. */
	assert_int_equal(load("basic_auth_users:\n  bob: $6$abc$def\n"),
			 -EINVAL);
	err_has("basic_auth_users.bob", NULL);
	assert_int_equal(load("basic_auth_users:\n  - " TEST_HASH "\n"),
			 -EINVAL);
	err_has("basic_auth_users: expected a mapping", NULL);
}

static void a_user_given_twice_is_refused(void **state)
{
	assert_int_equal(load("basic_auth_users:\n  u: " TEST_HASH "\n"
			      "  u: " TEST_HASH "\n"), -EINVAL);
	err_has(":3: basic_auth_users.u: given twice", NULL);
}

static void yaml_that_does_not_parse_names_its_line(void **state)
{
	assert_int_equal(load("basic_auth_users:\n  u: [\n"), -EINVAL);
	assert_non_null(strstr(err, path));
	assert_int_equal(load("- a\n- b\n"), -EINVAL);
	err_has("expected a mapping", NULL);
}

static void a_missing_file_is_an_error(void **state)
{
	snprintf(path, sizeof(path), "%s/none.yml", dir);
	assert_int_equal(webconf_load(path, &c, err, sizeof(err)), -ENOENT);
	err_has("No such file", NULL);
}

static void bcrypt_hashes_are_told_from_others(void **state)
{
	char h[64];

	assert_true(webconf_bcrypt_ok(TEST_HASH));
	snprintf(h, sizeof(h), "%s", TEST_HASH);
	h[2] = 'b';
	assert_true(webconf_bcrypt_ok(h));
	h[2] = 'x';
	assert_false(webconf_bcrypt_ok(h));
	h[2] = 'y';
	h[4] = '0';
	h[5] = '3';			/* cost 3 */
	assert_false(webconf_bcrypt_ok(h));
	h[5] = '4';
	h[20] = '!';
	assert_false(webconf_bcrypt_ok(h));
	assert_false(webconf_bcrypt_ok(""));
	assert_false(webconf_bcrypt_ok(TEST_HASH "x"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(an_empty_file_is_plain_http_without_users),
		T(an_empty_section_is_refused_not_dropped),
		T(a_second_document_is_refused),
		T(cert_and_key_are_kept_in_buffers_of_their_size),
		T(cert_key_and_users_are_read_relative_to_the_file),
		T(users_without_tls_are_read),
		T(an_unknown_key_is_refused_with_its_name_and_line),
		T(a_toolkit_key_ksnapd_does_not_serve_is_refused),
		T(a_missing_cert_file_names_the_key_and_the_file),
		T(a_cert_without_its_key_is_refused),
		T(a_key_that_does_not_load_is_refused),
		T(a_malformed_hash_names_its_user),
		T(a_user_given_twice_is_refused),
		T(yaml_that_does_not_parse_names_its_line),
		T(a_missing_file_is_an_error),
		T(bcrypt_hashes_are_told_from_others),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}

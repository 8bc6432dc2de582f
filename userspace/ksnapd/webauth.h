/* SPDX-License-Identifier: MIT */
/*
 * The endpoint's basic authentication (webconf.h's basic_auth_users):
 * a user's password checked against its bcrypt hash with crypt_r(3).
 *
 * bcrypt is slow on purpose, so
 *   - a credential that passed is remembered (a keyed SHA-256 of user and
 *     password, the key random per process; WEB_AUTH_CACHE of them, the
 *     oldest forgotten first): bcrypt runs once per distinct credential,
 *     not once per scrape;
 *   - a credential not remembered costs a token from the client address's
 *     bucket (WEB_AUTH_BURST, refilled at WEB_AUTH_RATE a second; the
 *     WEB_AUTH_CLIENTS last addresses, an IPv6 one by its /64) and, unless
 *     a credential from that address passed before, from a bucket of all
 *     clients (WEB_AUTH_GLOBAL_BURST, WEB_AUTH_GLOBAL_RATE a second); one
 *     that passes gives its tokens back.  Without a token:
 *     WEB_AUTH_LIMITED, and bcrypt does not run.  Wrong passwords cannot
 *     burn the CPU, nor lock out an address known good.
 *   - bcrypt runs without the lock: while it runs, a remembered credential
 *     is answered, and other checks go on (the server gives each
 *     connection a thread of its own).
 * An unknown user runs bcrypt on the first user's hash, as a known one
 * would, so the time of the answer does not tell which users exist; hashes
 * and MACs are compared in constant time.
 */
#ifndef KSNAPD_WEBAUTH_H
#define KSNAPD_WEBAUTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <crypt.h>

#include "webconf.h"

#define WEB_AUTH_CACHE		64
#define WEB_AUTH_CLIENTS	64
#define WEB_AUTH_BURST		5
#define WEB_AUTH_RATE		1
#define WEB_AUTH_GLOBAL_BURST	10
#define WEB_AUTH_GLOBAL_RATE	2
#define WEB_AUTH_MAC_LEN	32
#define WEB_AUTH_ADDR_LEN	16

enum web_auth_result {
	WEB_AUTH_OK,
	WEB_AUTH_DENIED,		/* 401 */
	WEB_AUTH_LIMITED,		/* 429: too many failures */
};

struct web_auth_bucket {
	double tokens;
	uint64_t at_ns;			/* last refill */
};

struct web_auth {
	const struct webconf_user *users;
	unsigned int nr_users;
	pthread_mutex_t lock;
	/* Under lock: */
	unsigned char key[32];
	unsigned char cache[WEB_AUTH_CACHE][WEB_AUTH_MAC_LEN];
	unsigned int nr_cached, next_cached;
	struct web_auth_client {
		unsigned char addr[WEB_AUTH_ADDR_LEN];	/* client_key() */
		struct web_auth_bucket b;
		bool passed;		/* a credential from it passed */
	} client[WEB_AUTH_CLIENTS];
	unsigned int nr_clients;
	struct web_auth_bucket global;
	uint64_t bcrypt_runs;		/* crypt calls, for the tests */
	/* crypt_r(3); a test's may wait. Called without lock. */
	char *(*crypt)(const char *pass, const char *hash,
		       struct crypt_data *cd);
};

/* Users (nr of them, to outlive a) are checked by a. Returns 0 or -errno. */
int web_auth_init(struct web_auth *a, const struct webconf_user *users,
		  unsigned int nr);
void web_auth_fini(struct web_auth *a);

/*
 * USER with PASS from the client ADDR (an IPv4 or IPv6 address's bytes,
 * len of them, at most WEB_AUTH_ADDR_LEN) at NOW_NS (CLOCK_MONOTONIC).
 */
enum web_auth_result web_auth_check(struct web_auth *a, const char *user,
				    const char *pass, const void *addr,
				    size_t len, uint64_t now_ns);

#endif /* KSNAPD_WEBAUTH_H */

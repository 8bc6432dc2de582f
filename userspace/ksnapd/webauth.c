// SPDX-License-Identifier: MIT
/* The endpoint's basic authentication (webauth.h). */
#include <crypt.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "webauth.h"

int web_auth_init(struct web_auth *a, const struct webconf_user *users,
		  unsigned int nr)
{
	size_t got = 0;
	ssize_t n;

	memset(a, 0, sizeof(*a));
	a->users = users;
	a->nr_users = nr;
	while (got < sizeof(a->key)) {
		n = getrandom(a->key + got, sizeof(a->key) - got, 0);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			got += (size_t)n;
	}
	a->cd = calloc(1, sizeof(*a->cd));
	if (!a->cd)
		return -ENOMEM;
	a->global.tokens = WEB_AUTH_GLOBAL_BURST;
	pthread_mutex_init(&a->lock, NULL);
	return 0;
}

void web_auth_fini(struct web_auth *a)
{
	if (!a->cd)
		return;
	pthread_mutex_destroy(&a->lock);
	memset(a->cd, 0, sizeof(*a->cd));
	free(a->cd);
	memset(a, 0, sizeof(*a));
}

/* Refill b (burst, rate a second) to now; then take one token if any. */
static bool take(struct web_auth_bucket *b, double burst, double rate,
		 uint64_t now_ns)
{
	if (now_ns > b->at_ns) {
		b->tokens += (double)(now_ns - b->at_ns) * 1e-9 * rate;
		if (b->tokens > burst)
			b->tokens = burst;
	}
	b->at_ns = now_ns;
	if (b->tokens < 1.0)
		return false;
	b->tokens -= 1.0;
	return true;
}

/* The bucket of client addr: an old one, or a new one in the place of the
 * one refilled longest ago. */
static struct web_auth_bucket *client_bucket(struct web_auth *a,
					     const void *addr, size_t len,
					     uint64_t now_ns)
{
	unsigned char key[WEB_AUTH_ADDR_LEN] = { 0 };
	unsigned int i, old = 0;

	memcpy(key, addr, len < sizeof(key) ? len : sizeof(key));
	for (i = 0; i < a->nr_clients; i++) {
		if (!memcmp(a->client[i].addr, key, sizeof(key)))
			return &a->client[i].b;
		if (a->client[i].b.at_ns < a->client[old].b.at_ns)
			old = i;
	}
	if (a->nr_clients < WEB_AUTH_CLIENTS)
		old = a->nr_clients++;
	memcpy(a->client[old].addr, key, sizeof(key));
	a->client[old].b.tokens = WEB_AUTH_BURST;
	a->client[old].b.at_ns = now_ns;
	return &a->client[old].b;
}

static bool cached(const struct web_auth *a, const unsigned char *mac)
{
	unsigned int i;

	for (i = 0; i < a->nr_cached; i++)
		if (!memcmp(a->cache[i], mac, WEB_AUTH_MAC_LEN))
			return true;
	return false;
}

static void remember(struct web_auth *a, const unsigned char *mac)
{
	memcpy(a->cache[a->next_cached], mac, WEB_AUTH_MAC_LEN);
	a->next_cached = (a->next_cached + 1) % WEB_AUTH_CACHE;
	if (a->nr_cached < WEB_AUTH_CACHE)
		a->nr_cached++;
}

/* crypt_r's answer is the hash itself when the password is right. */
static bool bcrypt_ok(struct web_auth *a, const char *pass, const char *hash)
{
	const char *h;

	a->bcrypt_runs++;
	h = crypt_r(pass, hash, a->cd);
	return h && h[0] != '*' && strlen(h) == strlen(hash) &&
	       !memcmp(h, hash, strlen(hash));
}

enum web_auth_result web_auth_check(struct web_auth *a, const char *user,
				    const char *pass, const void *addr,
				    size_t len, uint64_t now_ns)
{
	unsigned char mac[WEB_AUTH_MAC_LEN];
	struct web_auth_bucket *b;
	enum web_auth_result r = WEB_AUTH_DENIED;
	const char *hash = NULL;
	size_t ul = strlen(user), pl = strlen(pass);
	unsigned int i;
	char *msg;

	if (!a->nr_users)
		return WEB_AUTH_DENIED;
	for (i = 0; i < a->nr_users; i++)
		if (!strcmp(a->users[i].name, user))
			hash = a->users[i].hash;
	/* user, NUL, password: one credential, one MAC. */
	msg = malloc(ul + pl + 2);
	if (!msg)
		return WEB_AUTH_DENIED;
	memcpy(msg, user, ul + 1);
	memcpy(msg + ul + 1, pass, pl + 1);
	if (gnutls_hmac_fast(GNUTLS_MAC_SHA256, a->key, sizeof(a->key), msg,
			     ul + pl + 1, mac) < 0) {
		free(msg);
		return WEB_AUTH_DENIED;
	}
	memset(msg, 0, ul + pl + 2);
	free(msg);
	pthread_mutex_lock(&a->lock);
	if (hash && cached(a, mac)) {
		r = WEB_AUTH_OK;
		goto out;
	}
	b = client_bucket(a, addr, len, now_ns);
	if (!take(b, WEB_AUTH_BURST, WEB_AUTH_RATE, now_ns)) {
		r = WEB_AUTH_LIMITED;
		goto out;
	}
	if (!take(&a->global, WEB_AUTH_GLOBAL_BURST, WEB_AUTH_GLOBAL_RATE,
		  now_ns)) {
		b->tokens += 1.0;
		r = WEB_AUTH_LIMITED;
		goto out;
	}
	if (bcrypt_ok(a, pass, hash ? hash : a->users[0].hash) && hash) {
		remember(a, mac);
		b->tokens += 1.0;
		a->global.tokens += 1.0;
		r = WEB_AUTH_OK;
	}
out:
	pthread_mutex_unlock(&a->lock);
	return r;
}

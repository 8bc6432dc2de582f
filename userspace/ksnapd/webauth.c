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
	a->crypt = crypt_r;
	a->global.tokens = WEB_AUTH_GLOBAL_BURST;
	pthread_mutex_init(&a->lock, NULL);
	return 0;
}

void web_auth_fini(struct web_auth *a)
{
	if (!a->crypt)
		return;
	pthread_mutex_destroy(&a->lock);
	explicit_bzero(a, sizeof(*a));
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

/*
 * The key of a client address: an IPv4 address (also one mapped into IPv6)
 * as its 4 bytes, an IPv6 address as its /64, which one host is commonly
 * given whole.
 */
static void client_key(unsigned char *key, const unsigned char *addr,
		       size_t len)
{
	static const unsigned char v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	memset(key, 0, WEB_AUTH_ADDR_LEN);
	if (len == 16 && !memcmp(addr, v4mapped, sizeof(v4mapped)))
		memcpy(key, addr + 12, 4);
	else if (len == 16) {
		memcpy(key, addr, 8);
		key[WEB_AUTH_ADDR_LEN - 1] = 6;	/* not an IPv4 key */
	} else {
		memcpy(key, addr, len < 4 ? len : 4);
	}
}

/*
 * The client of key: an old one, or a new one in the place of the one
 * refilled longest ago among those that never passed (among all, if all
 * did): an attacker's many addresses do not push out the ones known good.
 */
static struct web_auth_client *client_of(struct web_auth *a,
					 const unsigned char *key,
					 uint64_t now_ns)
{
	struct web_auth_client *c;
	unsigned int i, old = 0;
	bool old_passed = true;

	for (i = 0; i < a->nr_clients; i++) {
		c = &a->client[i];
		if (!memcmp(c->addr, key, WEB_AUTH_ADDR_LEN))
			return c;
		if ((old_passed && !c->passed) ||
		    (old_passed == c->passed &&
		     c->b.at_ns < a->client[old].b.at_ns)) {
			old = i;
			old_passed = c->passed;
		}
	}
	if (a->nr_clients < WEB_AUTH_CLIENTS)
		old = a->nr_clients++;
	c = &a->client[old];
	memcpy(c->addr, key, WEB_AUTH_ADDR_LEN);
	c->b.tokens = WEB_AUTH_BURST;
	c->b.at_ns = now_ns;
	c->passed = false;
	return c;
}

static bool cached(const struct web_auth *a, const unsigned char *mac)
{
	unsigned int i;
	bool hit = false;

	for (i = 0; i < a->nr_cached; i++)
		hit |= !gnutls_memcmp(a->cache[i], mac, WEB_AUTH_MAC_LEN);
	return hit;
}

static void remember(struct web_auth *a, const unsigned char *mac)
{
	memcpy(a->cache[a->next_cached], mac, WEB_AUTH_MAC_LEN);
	a->next_cached = (a->next_cached + 1) % WEB_AUTH_CACHE;
	if (a->nr_cached < WEB_AUTH_CACHE)
		a->nr_cached++;
}

/*
 * crypt's answer is the hash itself when the password is right.  Called
 * without the lock: bcrypt takes long on purpose, and a scrape with a
 * remembered credential, or another bcrypt, does not wait for it.  Its
 * work area (about 32 KiB) is this call's own, zeroed after.
 */
static bool bcrypt_ok(struct web_auth *a, const char *pass, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	size_t hl = strlen(hash), i;
	unsigned char diff = 0;
	const char *h;
	bool ok = false;

	if (!cd)
		return false;
	h = a->crypt(pass, hash, cd);
	if (h && h[0] != '*' && strlen(h) == hl) {
		for (i = 0; i < hl; i++)
			diff |= (unsigned char)(h[i] ^ hash[i]);
		ok = !diff;
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

enum web_auth_result web_auth_check(struct web_auth *a, const char *user,
				    const char *pass, const void *addr,
				    size_t len, uint64_t now_ns)
{
	unsigned char mac[WEB_AUTH_MAC_LEN], key[WEB_AUTH_ADDR_LEN];
	struct web_auth_client *c;
	enum web_auth_result r = WEB_AUTH_DENIED;
	bool ok, global;
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
	client_key(key, addr, len);
	pthread_mutex_lock(&a->lock);
	if (hash && cached(a, mac)) {
		r = WEB_AUTH_OK;
		goto out;
	}
	c = client_of(a, key, now_ns);
	if (!take(&c->b, WEB_AUTH_BURST, WEB_AUTH_RATE, now_ns)) {
		r = WEB_AUTH_LIMITED;
		goto out;
	}
	/* An address that passed before is not starved by the others. */
	if (!c->passed && !take(&a->global, WEB_AUTH_GLOBAL_BURST,
				WEB_AUTH_GLOBAL_RATE, now_ns)) {
		c->b.tokens += 1.0;
		r = WEB_AUTH_LIMITED;
		goto out;
	}
	global = !c->passed;
	a->bcrypt_runs++;
	pthread_mutex_unlock(&a->lock);
	ok = bcrypt_ok(a, pass, hash ? hash : a->users[0].hash) && hash;
	pthread_mutex_lock(&a->lock);
	if (ok) {
		remember(a, mac);
		/* c may hold another address by now: find this one's. */
		c = client_of(a, key, now_ns);
		c->b.tokens += 1.0;
		if (c->b.tokens > WEB_AUTH_BURST)
			c->b.tokens = WEB_AUTH_BURST;
		c->passed = true;
		if (global)
			a->global.tokens += 1.0;
		if (a->global.tokens > WEB_AUTH_GLOBAL_BURST)
			a->global.tokens = WEB_AUTH_GLOBAL_BURST;
		r = WEB_AUTH_OK;
	}
out:
	pthread_mutex_unlock(&a->lock);
	explicit_bzero(mac, sizeof(mac));
	return r;
}

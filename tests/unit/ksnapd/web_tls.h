/* SPDX-License-Identifier: MIT */
/*
 * A self-signed certificate for localhost (P-256, valid to 2126) and its
 * key, and a bcrypt hash (cost 4) of "secret": the web configuration
 * tests' files.
 */
#ifndef KSNAP_TEST_WEB_TLS_H
#define KSNAP_TEST_WEB_TLS_H

#define TEST_CERT \
	"-----BEGIN CERTIFICATE-----\n" \
	"MIIBfzCCASWgAwIBAgIUeskAQbygngWmEBeAKvfZuhEQqAIwCgYIKoZIzj0EAwIw\n" \
	"FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNjEwMDYzM1oYDzIxMjYxMTAy\n" \
	"MTAwNjMzWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO\n" \
	"PQMBBwNCAAT1XqivRUe2+lpJvSiBOQ787Awkaz8eIq6HGdPyk0lGnDHkU/spay0E\n" \
	"FNr6NE1yK+9DmuZrO2ZgSsKQF1iZHclWo1MwUTAdBgNVHQ4EFgQU8tM87ex9VWpW\n" \
	"6eZas5rqPnsSZHMwHwYDVR0jBBgwFoAU8tM87ex9VWpW6eZas5rqPnsSZHMwDwYD\n" \
	"VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiAbx2lUaN2cmz8OpYNziAi4\n" \
	"eXHI1lP7eQjHnnYHnL0XtwIhAOKgvlKEel6NFJinEAirzSnvFuaymX/9tr7Nc4Ga\n" \
	"5gYY\n" \
	"-----END CERTIFICATE-----\n"

#define TEST_KEY \
	"-----BEGIN PRIVATE KEY-----\n" \
	"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWVHexp8VtpJ6kHzK\n" \
	"NiC27X0/jrLPJn00vj6Yldv9YlihRANCAAT1XqivRUe2+lpJvSiBOQ787Awkaz8e\n" \
	"Iq6HGdPyk0lGnDHkU/spay0EFNr6NE1yK+9DmuZrO2ZgSsKQF1iZHclW\n" \
	"-----END PRIVATE KEY-----\n"

/* "secret" */
#define TEST_HASH "$2y$04$nQJW.f1mBkZKBxV260IBt.mphVM/hmLG7i7xFPrk8AHxeoQL2xznG"

#endif /* KSNAP_TEST_WEB_TLS_H */

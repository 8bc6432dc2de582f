/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder's events log, DIR/events.jsonl: one JSON object a
 * line, one line for every state change of a rule, each written with one
 * write(2) to a file opened O_APPEND.  Every line begins
 *
 *   {"event":E,"rule":NAME,"text":RULE,"collection":G,"time_ns":T,
 *    "wall_ns":W, ...
 *
 * T is the row's time (ns since the collection started, as in the
 * stream), W the wall clock of that row (START_TIME + T); the members
 * after them are the event's own (flight.h lists them).  A failed write
 * is said once on the log and does not stop ksnapd.
 */
#ifndef KSNAPD_EVENTS_H
#define KSNAPD_EVENTS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ring.h"
#include "rule.h"

#define EVENTS_FILE	"events.jsonl"
#define EVENTS_LINE_MAX	4096

struct events {
	int fd;
	char path[PATH_MAX];
	FILE *log;
	bool failed;		/* a write failed: said once */
	uint64_t lines;
};

/* Open (create, append) DIR/events.jsonl.  Returns 0 or -errno. */
int events_open(struct events *ev, const char *dir, FILE *log);
void events_close(struct events *ev);

/*
 * One line: the common members for rule r at row time t of collection c,
 * then "event" and the members fmt formats (",\"k\":v,..." with its
 * leading comma, or "").
 */
void events_write(struct events *ev, const struct rule *r,
		  const struct ksnap_coll *c, uint64_t t, const char *event,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* A JSON string of s, quoted, into buf (at most size bytes). */
void events_json_string(char *buf, size_t size, const char *s);

#endif /* KSNAPD_EVENTS_H */

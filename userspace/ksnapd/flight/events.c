// SPDX-License-Identifier: MIT
/* The flight recorder's events log (events.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>

#include "events.h"
#include "output.h"
#include "stream.h"
#include "sys.h"

int events_open(struct events *ev, const char *dir, FILE *log)
{
	int w;

	memset(ev, 0, sizeof(*ev));
	ev->fd = -1;
	ev->log = log;
	w = snprintf(ev->path, sizeof(ev->path), "%s/%s", dir, EVENTS_FILE);
	if (w < 0 || (size_t)w >= sizeof(ev->path))
		return -ENAMETOOLONG;
	ev->fd = ksnap_sys_open(ev->path, O_WRONLY | O_CREAT | O_APPEND |
				O_CLOEXEC, 0644);
	return ev->fd < 0 ? ev->fd : 0;
}

void events_close(struct events *ev)
{
	if (ev->fd >= 0)
		ksnap_sys_close(ev->fd);
	ev->fd = -1;
}

void events_json_string(char *buf, size_t size, const char *s)
{
	size_t len = strlen(s);

	if (size < KSNAP_JSON_MAX(len) + 1) {
		len = size > 8 ? (size - 8) / 6 : 0;
	}
	*ksnap_json_string(buf, s, len) = '\0';
}

void events_write(struct events *ev, const struct rule *r,
		  const struct ksnap_coll *c, uint64_t t, const char *event,
		  const char *fmt, ...)
{
	char line[EVENTS_LINE_MAX], text[KSNAP_JSON_MAX(RULE_TEXT_MAX) + 1];
	size_t o;
	va_list ap;
	int w, ret;

	if (ev->fd < 0)
		return;
	events_json_string(text, sizeof(text), r->text);
	w = snprintf(line, sizeof(line), "{\"event\":\"%s\",\"rule\":\"%s\","
		     "\"text\":%s,\"collection\":%u,\"time_ns\":%llu,"
		     "\"wall_ns\":%llu", event, r->name, text, c->generation,
		     (unsigned long long)t,
		     (unsigned long long)(c->start_real_ns + t));
	o = w < 0 ? 0 : (size_t)w;
	if (r->cgroup && o < sizeof(line)) {
		char cg[KSNAP_JSON_MAX(KSNAP_FIELD_VALUE_MAX) + 1];

		events_json_string(cg, sizeof(cg), r->cgroup);
		w = snprintf(line + o, sizeof(line) - o, ",\"cgroup\":%s", cg);
		o += w < 0 ? 0 : (size_t)w;
	}
	va_start(ap, fmt);
	if (o < sizeof(line))
		w = vsnprintf(line + o, sizeof(line) - o, fmt, ap);
	va_end(ap);
	o += w < 0 ? 0 : (size_t)w;
	if (o + 3 > sizeof(line))
		o = sizeof(line) - 3;	/* cut: still one line */
	line[o++] = '}';
	line[o++] = '\n';
	ret = ksnap_out_write_full(ev->fd, line, o);
	if (!ret) {
		ev->lines++;
	} else if (!ev->failed && ev->log) {
		ev->failed = true;
		fprintf(ev->log, "ksnapd: %s: write: %s: events are lost "
			"until it works again\n", ev->path, strerror(-ret));
	}
}

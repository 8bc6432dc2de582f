// SPDX-License-Identifier: MIT
/* ksnapd --slice, with or without a daemon (slice.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctlsock.h"
#include "dump.h"
#include "ring.h"
#include "rule_lex.h"
#include "slice.h"
#include "sys.h"

#define WAIT_STEP_NS	(10ULL * 1000000ULL)
#define WAIT_SLACK_NS	(10ULL * 1000000000ULL)
#define NEWEST_TRIES	100

/* One signed duration at s; *end is where it stops. */
static int signed_duration(const char *s, int64_t *ns, const char **end)
{
	struct rule_token t;
	unsigned long long unit;
	int sign = 1;

	if (*s == '-' || *s == '+')
		sign = *s++ == '-' ? -1 : 1;
	rule_lex(s, 0, &t);
	unit = rule_duration_unit(s, &t);
	if (t.kind != TOK_NUM || t.pos != 0 ||
	    (!unit && !(t.num == 0 && !t.suffix_len)))
		return -EINVAL;
	if (t.num * (double)unit > 86400e9)
		return -EINVAL;
	*ns = sign * (int64_t)(t.num * (double)unit);
	*end = s + t.len;
	return 0;
}

int slice_duration(const char *s, int64_t *ns)
{
	const char *end;

	return signed_duration(s, ns, &end) || *end ? -EINVAL : 0;
}

int slice_parse(const char *arg, int64_t *begin_ns, int64_t *end_ns)
{
	const char *p;

	*end_ns = 0;
	if (signed_duration(arg, begin_ns, &p))
		return -EINVAL;
	if (*p == ',' && signed_duration(p + 1, end_ns, &p))
		return -EINVAL;
	return *p || *begin_ns > *end_ns ? -EINVAL : 0;
}

/* --- through the daemon ------------------------------------------------- */

static int via_daemon(const struct slice_opts *o, int out_fd)
{
	int64_t wait_ms = o->end_ns > 0 ? o->end_ns / 1000000 : 0;
	char reply[512];
	int ret;

	ret = ctl_slice(o->control, o->begin_ns, o->end_ns, o->lossy, out_fd,
			(int)(wait_ms + WAIT_SLACK_NS / 1000000), reply,
			sizeof(reply));
	if (ret) {
		fprintf(o->log, "ksnapd: --slice: %s holds the device (a ksnapd "
			"daemon?), and its control socket %s: %s\n",
			o->device, o->control, strerror(-ret));
		return 1;
	}
	if (strncmp(reply, "ok ", 3)) {
		fprintf(o->log, "ksnapd: --slice: the daemon says: %s\n", reply);
		return 1;
	}
	fprintf(o->log, "ksnapd: slice from the daemon: %s\n", reply + 3);
	return 0;
}

/* --- from the ring ---------------------------------------------------- */

struct peek {
	struct ksnap_ring *r;
	struct ksnap_coll c;
	struct ksnap_record *rec;
	struct ksnap_record *norm;	/* values moved to values[] */
};

/* The newest record's time, into *t.  Returns 0 or -ENODATA. */
static int newest(struct peek *p, uint64_t *t)
{
	uint64_t head;
	int i;

	for (i = 0; i < NEWEST_TRIES; i++) {
		head = ksnap_ring_head(p->r);
		if (head <= p->c.start_position)
			return -ENODATA;
		if (ksnap_ring_copy_record(p->r, head - 1, p->rec, false)) {
			*t = p->rec->time_ns;
			return 0;
		}
	}
	return -ENODATA;
}

/* Wait for the rows up to t (or for the collection to stop). */
static void wait_until(struct peek *p, uint64_t now, uint64_t t)
{
	uint64_t waited = 0, newest_t = now;
	struct ksnap_coll c = { 0 };

	while (newest_t < t && waited < t - now + WAIT_SLACK_NS) {
		ksnap_sys_nanosleep(WAIT_STEP_NS);
		waited += WAIT_STEP_NS;
		if (ksnap_ring_read_coll(p->r, &c) ||
		    c.generation != p->c.generation ||
		    c.state != KSNAP_STATE_RUNNING)
			return;
		newest(p, &newest_t);
	}
}

/* The records in [b, e] into d; *oldest: the oldest row the ring had. */
static int copy_window(struct peek *p, struct dump *d, uint64_t b,
		       uint64_t e, uint64_t *oldest)
{
	struct ksnap_ring *r = p->r;
	uint64_t head = ksnap_ring_head(r), pos = p->c.start_position;
	bool stopped = p->c.state == KSNAP_STATE_STOPPED;
	int ret = 0;

	if (head - pos > r->nr_records)
		pos = head - r->nr_records;
	*oldest = UINT64_MAX;
	for (; pos < head && !ret; pos++) {
		const struct ksnap_record *rec;

		if (!ksnap_ring_copy_record(r, pos, p->rec, stopped))
			continue;	/* overwritten meanwhile */
		/* Not of the collection's column set: not its row. */
		rec = ksnap_ring_values(r, p->rec, p->c.set_id,
					p->c.nr_columns, p->norm);
		if (!rec)
			continue;
		if (*oldest == UINT64_MAX)
			*oldest = rec->time_ns;
		if (rec->time_ns > e)
			break;
		if (rec->time_ns >= b)
			ret = dump_row(d, rec);
	}
	return ret;
}

static uint64_t around(uint64_t now, int64_t rel)
{
	if (rel < 0)
		return (uint64_t)-rel > now ? 0 : now - (uint64_t)-rel;
	return now + (uint64_t)rel;
}

static int ring_error(const struct slice_opts *o, const struct peek *p)
{
	if (!p->c.generation)
		fprintf(o->log, "ksnapd: --slice: %s: no collection has run "
			"yet\n", o->device);
	else if (!(p->c.flags & KSNAP_CTRL_OVERWRITE))
		fprintf(o->log, "ksnapd: --slice: collection %u runs with "
			"overflow=drop: with no reader, the ring keeps its "
			"oldest records and drops the new ones, so it has no "
			"recent window to cut; load ksnap with "
			"overflow=overwrite, or run ksnapd and slice through "
			"it\n", p->c.generation);
	else
		return 0;
	return 1;
}

static int write_slice(const struct slice_opts *o, struct peek *p,
		       int out_fd)
{
	uint64_t now = 0, b, e, oldest;
	struct dump d;
	int ret;

	if (newest(p, &now)) {
		fprintf(o->log, "ksnapd: --slice: collection %u has no rows\n",
			p->c.generation);
		return 1;
	}
	b = around(now, o->begin_ns);
	e = around(now, o->end_ns);
	if (e > now && p->c.state == KSNAP_STATE_RUNNING)
		wait_until(p, now, e);
	ret = dump_open_fd(&d, out_fd, o->lossy, &p->c);
	if (!ret)
		ret = copy_window(p, &d, b, e, &oldest);
	if (!ret) {
		const struct ksnap_stats_extra extra[] = {
			{ "ksnapd_slice_collection", p->c.generation },
			{ "ksnapd_slice_begin_nanos", b },
			{ "ksnapd_slice_end_nanos", e },
		};

		fprintf(o->log, "ksnapd: slice from the ring: rows=%llu "
			"first_ns=%llu last_ns=%llu collection=%u begin_ns=%llu "
			"end_ns=%llu ring_from_ns=%llu\n",
			(unsigned long long)d.rows,
			(unsigned long long)d.first_t,
			(unsigned long long)d.last_t, p->c.generation,
			(unsigned long long)b, (unsigned long long)e,
			(unsigned long long)oldest);
		ret = dump_close(&d, extra, 3);
	}
	if (d.open)
		dump_abort(&d);
	if (ret)
		fprintf(o->log, "ksnapd: --slice: writing: %s\n",
			strerror(-ret));
	return ret ? 1 : 0;
}

static int from_ring(const struct slice_opts *o, struct ksnap_ring *r,
		     int out_fd)
{
	struct peek p = { .r = r };
	int status = 1;

	p.rec = malloc(r->record_size);
	p.norm = malloc(r->record_size);
	if (!p.rec || !p.norm) {
		fprintf(o->log, "ksnapd: --slice: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (ksnap_ring_read_coll_columns(r, &p.c)) {
		fprintf(o->log, "ksnapd: --slice: %s: cannot read the "
			"collection fields and columns\n", o->device);
		goto out;
	}
	status = ring_error(o, &p);
	if (!status)
		status = write_slice(o, &p, out_fd);
out:
	free(p.c.columns);
	free(p.rec);
	free(p.norm);
	return status;
}

int slice_run(const struct slice_opts *o)
{
	struct ksnap_ring r;
	int out_fd = STDOUT_FILENO, status, ret;

	if (o->out_path) {
		out_fd = ksnap_sys_open(o->out_path, O_WRONLY | O_CREAT |
					O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			fprintf(o->log, "ksnapd: --slice: %s: %s\n",
				o->out_path, strerror(-out_fd));
			return 1;
		}
	}
	ret = ksnap_ring_peek(&r, o->device);
	if (ret == -EBUSY) {
		status = via_daemon(o, out_fd);
	} else if (ret) {
		fprintf(o->log, "ksnapd: --slice: %s: %s\n", o->device,
			strerror(-ret));
		status = 1;
	} else {
		status = from_ring(o, &r, out_fd);
		ksnap_ring_close(&r);
	}
	if (o->out_path)
		ksnap_sys_close(out_fd);
	return status;
}

// SPDX-License-Identifier: MIT
/* Prometheus' names and renderings of ksnap's metrics (openmetrics.h). */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "identity.h"
#include "openmetrics.h"

/* --- names -------------------------------------------------------------- */

const char *om_desc_unit(const char *description)
{
	const char *u = strrchr(description, ',');

	if (!u)
		return "";
	u++;
	while (*u == ' ')
		u++;
	return u;
}

/* Append src to dst (a family name): lower case, [a-z0-9_] only. */
static void name_cat(char *dst, size_t len, const char *src)
{
	size_t n = strlen(dst);

	for (; *src && n + 1 < len; src++, n++) {
		char ch = *src;

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		else if (!((ch >= 'a' && ch <= 'z') ||
			   (ch >= '0' && ch <= '9') || ch == '_'))
			ch = '_';
		dst[n] = ch;
	}
	dst[n] = '\0';
}

/* "some" and "full" as node_exporter's pressure stems. */
static const char *pressure_kind(const char *k)
{
	if (!strcmp(k, "some"))
		return "waiting";
	if (!strcmp(k, "full"))
		return "stalled";
	return NULL;
}

/* "pressure.RES.KIND" (system) or "RES.pressure.KIND" (cgroup). */
static bool map_pressure(const char *metric, bool cgroup, struct om_name *n)
{
	char res[32], kind[16];
	const char *k;

	if (cgroup ? sscanf(metric, "%31[a-z].pressure.%15s", res, kind) != 2 :
		     sscanf(metric, "pressure.%31[a-z].%15s", res, kind) != 2)
		return false;
	k = pressure_kind(kind);
	if (!k)
		return false;
	snprintf(n->family, sizeof(n->family), "ksnap_%spressure_%s_%s_seconds",
		 cgroup ? "cgroup_" : "", res, k);
	return true;
}

/* A raw unit, as a description states it, and the exposition's. */
struct unit_conv {
	const char *raw;
	const char *unit;	/* the base unit, NULL for a plain number */
	double scale;		/* raw value * scale: the exported one */
	const char *scale_words; /* a description's words for the scale */
};

static const struct unit_conv unit_convs[] = {
	{ "ns", "seconds", 1e-9, NULL },
	{ "us", "seconds", 1e-6, NULL },
	{ "usec", "seconds", 1e-6, NULL },
	{ "KiB", "bytes", 1024, NULL },
	{ "bytes", "bytes", 1, NULL },
	{ "load/1000", NULL, 1e-3, " x1000" },
};

/* The conversion of a column's unit, NULL for a value exported as is. */
static const struct unit_conv *unit_conv(const char *unit, uint32_t flags)
{
	size_t i;

	if (flags & KSNAP_COL_NANOSECONDS)
		return &unit_convs[0];
	for (i = 0; i < sizeof(unit_convs) / sizeof(unit_convs[0]); i++)
		if (!strcmp(unit, unit_convs[i].raw))
			return &unit_convs[i];
	return NULL;
}

/* The unit of a raw unit: the base unit's name and the scale to it. */
static void base_unit(const char *unit, uint32_t flags, struct om_name *n)
{
	const struct unit_conv *u = unit_conv(unit, flags);

	n->unit = u ? u->unit : NULL;
	n->scale = u ? u->scale : 1;
}

int om_map_name(const char *metric, const char *field, uint32_t flags,
		const char *unit, struct om_name *n)
{
	bool cgroup = !strcmp(field, "cgroup");
	const char *dot = strchr(metric, '.');

	memset(n, 0, sizeof(*n));
	if (!*metric)
		return -EINVAL;
	n->counter = flags & KSNAP_COL_CUMULATIVE;
	base_unit(unit, flags, n);
	if (map_pressure(metric, cgroup, n)) {
		/* the unit is in the name already */
	} else if (cgroup && (!strcmp(metric, "cpu.stat.usage") ||
			      !strcmp(metric, "cpu.stat.usage_usec"))) {
		/* cAdvisor's container_cpu_usage_seconds_total */
		snprintf(n->family, sizeof(n->family),
			 "ksnap_cgroup_cpu_usage_seconds");
	} else if (cgroup && (!strcmp(metric, "cpu.stat.user") ||
			      !strcmp(metric, "cpu.stat.system"))) {
		/* cAdvisor's container_cpu_{user,system}_seconds_total */
		snprintf(n->family, sizeof(n->family),
			 "ksnap_cgroup_cpu_%s_seconds", metric + 9);
	} else if (cgroup) {
		snprintf(n->family, sizeof(n->family), "ksnap_cgroup_");
		name_cat(n->family, sizeof(n->family), metric);
		goto unit;
	} else if (!strcmp(metric, "cpu.guest") ||
		   !strcmp(metric, "cpu.guest_nice")) {
		/*
		 * node_exporter's node_cpu_guest_seconds_total{mode=}: user
		 * and nice count guest time already, so that the modes of
		 * ksnap_cpu_seconds_total sum to the time spent.
		 */
		snprintf(n->family, sizeof(n->family),
			 "ksnap_cpu_guest_seconds");
		snprintf(n->label, sizeof(n->label), "mode");
		snprintf(n->label_value, sizeof(n->label_value), "%s",
			 metric[9] ? "nice" : "user");
	} else if (!strncmp(metric, "cpu.", 4)) {
		/* node_exporter's node_cpu_seconds_total{mode=} */
		snprintf(n->family, sizeof(n->family), "ksnap_cpu_seconds");
		snprintf(n->label, sizeof(n->label), "mode");
		snprintf(n->label_value, sizeof(n->label_value), "%s",
			 metric + 4);
	} else if (!strncmp(metric, "softirqs.", 9)) {
		snprintf(n->family, sizeof(n->family), "ksnap_softirqs");
		snprintf(n->label, sizeof(n->label), "vector");
		snprintf(n->label_value, sizeof(n->label_value), "%s",
			 metric + 9);
	} else if (!strcmp(metric, "loadavg.threads")) {
		/* the PIDs in use: node_exporter's node_processes_threads */
		snprintf(n->family, sizeof(n->family),
			 "ksnap_processes_threads");
	} else if (!strncmp(metric, "loadavg.", 8)) {
		/* node_exporter's node_load1 */
		snprintf(n->family, sizeof(n->family), "ksnap_load");
		name_cat(n->family, sizeof(n->family), metric + 8);
	} else {
		/* /proc/vmstat: node_exporter's node_vmstat_<name> */
		snprintf(n->family, sizeof(n->family), "ksnap_%s",
			 dot ? "" : "vmstat_");
		name_cat(n->family, sizeof(n->family), metric);
		goto unit;
	}
	return 0;
unit:
	if (n->unit) {
		size_t fl = strlen(n->family), ul = strlen(n->unit);

		/* memory.swap.current: no _bytes_bytes either way */
		if (fl <= ul + 1 || strcmp(n->family + fl - ul, n->unit) ||
		    n->family[fl - ul - 1] != '_') {
			strncat(n->family, "_", sizeof(n->family) - fl - 1);
			strncat(n->family, n->unit,
				sizeof(n->family) - fl - 2);
		}
	}
	return 0;
}

/* --- labels ------------------------------------------------------------- */

bool om_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned int c = *p, need, cp, i;

		if (c < 0x80) {
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		for (i = 1; i <= need; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		if ((need == 2 && (cp < 0x800 || (cp >= 0xd800 &&
						  cp <= 0xdfff))) ||
		    (need == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		p += need + 1;
	}
	return true;
}

int om_escape(const char *v, char *out, size_t outlen)
{
	size_t n = 0;

	for (; *v; v++) {
		const char *e = NULL;
		char one[2] = { *v, 0 };

		if (*v == '\\')
			e = "\\\\";
		else if (*v == '"')
			e = "\\\"";
		else if (*v == '\n')
			e = "\\n";
		else
			e = one;
		if (n + strlen(e) + 1 > outlen) {
			if (outlen)
				out[0] = '\0';
			return -ENOSPC;
		}
		memcpy(out + n, e, strlen(e));
		n += strlen(e);
	}
	if (!outlen)
		return -ENOSPC;
	out[n] = '\0';
	return (int)n;
}

void om_cgroup_ids(const char *p, char *cid, size_t cidlen, char *pod,
		   size_t podlen)
{
	struct ksnap_identity id;

	ksnap_id_parse(p, &id);
	snprintf(cid, cidlen, "%s", id.container_id);
	snprintf(pod, podlen, "%s", id.pod_uid);
}

/* --- the layout --------------------------------------------------------- */

bool om_match(const char *patterns, const char *name)
{
	const char *p = patterns;

	if (!patterns)
		return true;
	while (*p) {
		char pat[OM_NAME_MAX];
		size_t len = strcspn(p, ",");

		if (len && len < sizeof(pat)) {
			memcpy(pat, p, len);
			pat[len] = '\0';
			if (!fnmatch(pat, name, 0))
				return true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

struct col_ref {
	unsigned int column;
	struct om_name name;
};

static int by_family(const void *a, const void *b)
{
	const struct col_ref *x = a, *y = b;
	int d = strcmp(x->name.family, y->name.family);

	if (d)
		return d;
	return x->column < y->column ? -1 : x->column > y->column;
}

/* One label, escaped, after the others in buf. */
static int label_cat(char *buf, size_t len, const char *name, const char *v)
{
	char esc[2 * KSNAP_FIELD_VALUE_MAX + 2];
	size_t n = strlen(buf);
	int ret;

	if (!om_utf8_valid(v))
		return -EILSEQ;
	ret = om_escape(v, esc, sizeof(esc));
	if (ret < 0)
		return ret;
	ret = snprintf(buf + n, len - n, "%s%s=\"%s\"", n ? "," : "", name,
		       esc);
	return ret < 0 || (size_t)ret >= len - n ? -ENOSPC : 0;
}

/* The labels a cgroup's identity gives it (identity.h), those it has. */
static int identity_labels(const char *cgroup, char *buf, size_t len)
{
	struct ksnap_identity id;
	const char *role;
	int ret = 0;

	ksnap_identity_of(cgroup, &id);
	role = ksnap_id_role_name(id.role);
	if (id.container_id[0])
		ret = label_cat(buf, len, "container_id", id.container_id);
	if (!ret && id.pod_uid[0])
		ret = label_cat(buf, len, "pod_uid", id.pod_uid);
	if (!ret && id.namespace[0])
		ret = label_cat(buf, len, "namespace", id.namespace);
	if (!ret && id.pod[0])
		ret = label_cat(buf, len, "pod", id.pod);
	if (!ret && id.container[0])
		ret = label_cat(buf, len, "container", id.container);
	if (!ret && id.image[0])
		ret = label_cat(buf, len, "image", id.image);
	if (!ret && role)
		ret = label_cat(buf, len, "container_role", role);
	return ret;
}

/* The labels of column c with name n, into buf. */
static int series_labels(const struct ksnap_column *c,
			 const struct om_name *n, char *buf, size_t len)
{
	int ret = 0;

	buf[0] = '\0';
	if (c->field[0])
		ret = label_cat(buf, len, c->field, c->value);
	if (!ret && !strcmp(c->field, "cgroup"))
		ret = identity_labels(c->value, buf, len);
	if (!ret && n->label[0])
		ret = label_cat(buf, len, n->label, n->label_value);
	return ret;
}

/* The name a pattern sees: a counter's with _total. */
static void sample_name(const struct om_name *n, char *out, size_t len)
{
	snprintf(out, len, "%s%s", n->family, n->counter ? "_total" : "");
}

/* A gauge's description says "U64_MAX for max" (the ring's value): the
 * exposition's is +Inf (shorter: it fits). */
static void help_inf(char *help)
{
	static const char raw[] = "U64_MAX for max", inf[] = "+Inf for max";
	char *at = strstr(help, raw), *rest;

	if (!at)
		return;
	rest = at + sizeof(raw) - 1;
	memmove(at + sizeof(inf) - 1, rest, strlen(rest) + 1);
	memcpy(at, inf, sizeof(inf) - 1);
}

/*
 * help (a description) with its raw unit as the exported value's: the
 * last ", RAW" (ending the text or a clause) as ", UNIT", or gone for a
 * plain number, and the words of its scale (" x1000") gone.
 */
static void help_unit(char *help, size_t len, const struct unit_conv *u)
{
	char out[OM_HELP_MAX];
	const char *at = NULL, *p;
	char *w;
	size_t rl;

	if (!u || (u->unit && !strcmp(u->raw, u->unit)))
		return;
	rl = strlen(u->raw);
	for (p = help; (p = strstr(p, ", ")); p++)
		if (!strncmp(p + 2, u->raw, rl) &&
		    (!p[2 + rl] || strchr(":;,) ", p[2 + rl])))
			at = p;
	if (at) {
		snprintf(out, sizeof(out), "%.*s%s%s%s", (int)(at - help), help,
			 u->unit ? ", " : "", u->unit ? u->unit : "",
			 at + 2 + rl);
		snprintf(help, len, "%s", out);
	}
	if (u->scale_words && (w = strstr(help, u->scale_words)))
		memmove(w, w + strlen(u->scale_words),
			strlen(w + strlen(u->scale_words)) + 1);
}

/* What the series of a family with a label share: the description from
 * its source on (", /proc/..."), else its unit. */
static const char *shared_part(const char *d)
{
	const char *t = strstr(d, ", /proc/");

	if (!t)
		t = strrchr(d, ',');
	return t ? t : "";
}

/* The HELP of the family of column c, named n. */
static void family_help(const struct ksnap_column *c, const struct om_name *n,
			char *help, size_t len)
{
	if (!strcmp(n->family, "ksnap_cpu_seconds"))
		snprintf(help, len, "CPU time by mode (user and nice include "
			 "the guest time of ksnap_cpu_guest_seconds_total)%s",
			 shared_part(c->description));
	else if (!strcmp(n->family, "ksnap_cpu_guest_seconds"))
		snprintf(help, len, "CPU time running guests, by the mode of "
			 "ksnap_cpu_seconds_total that counts it too (user: "
			 "guest, nice: guest_nice)%s",
			 shared_part(c->description));
	else
		snprintf(help, len, "%s", c->description);
	help_unit(help, len, unit_conv(om_desc_unit(c->description),
				       c->flags));
	if (!n->counter)
		help_inf(help);
}

int om_layout_build(struct om_layout *l, const struct ksnap_column *cols,
		    unsigned int n, const char *patterns)
{
	struct col_ref *refs;
	char labels[3 * KSNAP_FIELD_VALUE_MAX + 4 * OM_LABEL_MAX +
		    4 * KSNAP_ID_NAME_MAX + 2 * KSNAP_ID_IMAGE_MAX];
	unsigned int i, nr = 0;
	int ret = 0;

	memset(l, 0, sizeof(*l));
	ksnap_identity_begin();
	refs = calloc(n ? n : 1, sizeof(*refs));
	l->fam = calloc(n ? n : 1, sizeof(*l->fam));
	l->series = calloc(n ? n : 1, sizeof(*l->series));
	l->skipped_col = calloc(n ? n : 1, sizeof(*l->skipped_col));
	if (!refs || !l->fam || !l->series || !l->skipped_col) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		char sname[OM_NAME_MAX + 8];

		if (om_map_name(cols[i].metric, cols[i].field, cols[i].flags,
				om_desc_unit(cols[i].description),
				&refs[nr].name))
			continue;
		sample_name(&refs[nr].name, sname, sizeof(sname));
		if (!om_match(patterns, sname)) {
			l->filtered++;
			continue;
		}
		refs[nr++].column = i;
	}
	qsort(refs, nr, sizeof(*refs), by_family);
	for (i = 0; i < nr; i++) {
		const struct ksnap_column *c = &cols[refs[i].column];
		const struct om_name *nm = &refs[i].name;
		struct om_family *f;

		ret = series_labels(c, nm, labels, sizeof(labels));
		if (ret == -EILSEQ) {
			l->skipped_col[l->skipped_utf8++] = refs[i].column;
			ret = 0;
			continue;
		}
		if (ret)
			goto out;
		f = l->nr_fam ? &l->fam[l->nr_fam - 1] : NULL;
		if (!f || strcmp(f->name, nm->family)) {
			f = &l->fam[l->nr_fam++];
			snprintf(f->name, sizeof(f->name), "%s", nm->family);
			family_help(c, nm, f->help, sizeof(f->help));
			f->unit = nm->unit;
			f->scale = nm->scale;
			f->counter = nm->counter;
			f->first = l->nr_series;
		}
		l->series[l->nr_series].column = refs[i].column;
		l->series[l->nr_series].labels = strdup(labels);
		if (!l->series[l->nr_series].labels) {
			ret = -ENOMEM;
			goto out;
		}
		l->nr_series++;
		f->nr++;
	}
out:
	ksnap_identity_end();
	free(refs);
	if (ret)
		om_layout_free(l);
	return ret;
}

unsigned int om_layout_histograms(struct om_layout *l, const char *patterns,
				  const struct om_hist_spec *s)
{
	unsigned int i, n = 0;

	l->hspec = *s;
	if (l->hspec.count > OM_HIST_MAX)
		l->hspec.count = OM_HIST_MAX;
	for (i = 0; patterns && i < l->nr_fam; i++) {
		struct om_family *f = &l->fam[i];

		f->hist = !f->counter && om_match(patterns, f->name);
		n += f->hist;
	}
	return n;
}

void om_hist_observe(const struct om_hist_spec *s, struct om_hist *h,
		     double v)
{
	double b = s->start;
	unsigned int i;

	for (i = 0; i < s->count && v > b; i++)
		b *= s->factor;
	h->bucket[i]++;
	h->sum += v;
	h->count++;
}

void om_layout_free(struct om_layout *l)
{
	unsigned int i;

	if (l->series)
		for (i = 0; i < l->nr_series; i++)
			free(l->series[i].labels);
	free(l->series);
	free(l->fam);
	free(l->skipped_col);
	memset(l, 0, sizeof(*l));
}

/* --- rendering ---------------------------------------------------------- */

double om_gauge_value(uint64_t raw, double scale)
{
	return raw == UINT64_MAX ? INFINITY : (double)raw * scale;
}

void om_buf_free(struct om_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void __attribute__((format(printf, 2, 3)))
bprintf(struct om_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t cap = b->cap ? b->cap * 2 : 16384;
			char *p;

			while (cap < b->len + (size_t)n + 1)
				cap *= 2;
			p = realloc(b->p, cap);
			if (!p) {
				b->failed = true;
				return;
			}
			b->p = p;
			b->cap = cap;
		}
	}
}

/* HELP text: \ and newline escaped (and " in OpenMetrics). */
static void help_text(struct om_buf *b, enum om_format f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			bprintf(b, "\\\\");
		else if (*s == '\n')
			bprintf(b, "\\n");
		else if (*s == '"' && f == OM_OPENMETRICS)
			bprintf(b, "\\\"");
		else
			bprintf(b, "%c", *s);
	}
}

/*
 * The metadata of family name (a counter's without _total): type is
 * "counter", "gauge" or "info"; unit NULL for none.
 */
static void meta(struct om_buf *b, enum om_format f, const char *name,
		 const char *type, const char *unit, const char *help)
{
	const char *suffix = "";

	if (f == OM_PROMETHEUS) {
		if (!strcmp(type, "counter"))
			suffix = "_total";
		else if (!strcmp(type, "info")) {
			suffix = "_info";
			type = "gauge";
		}
	}
	bprintf(b, "# HELP %s%s ", name, suffix);
	help_text(b, f, help);
	bprintf(b, "\n# TYPE %s%s %s\n", name, suffix, type);
	if (f == OM_OPENMETRICS && unit)
		bprintf(b, "# UNIT %s %s\n", name, unit);
}

/* A sample's value: +Inf, -Inf and NaN as both formats spell them. */
static void number(double v, char *out, size_t len)
{
	if (isnan(v))
		snprintf(out, len, "NaN");
	else if (isinf(v))
		snprintf(out, len, "%cInf", v > 0 ? '+' : '-');
	else
		snprintf(out, len, "%.15g", v);
}

/*
 * v as Prometheus writes a bucket bound (Go's strconv.FormatFloat(v, 'g',
 * -1, 64), an integer with ".0": 1024.0, 1.048576e+06, 0.5), so that an
 * le label is the one Prometheus normalises to.
 */
static void canonical(double v, char *out, size_t len)
{
	char e[32];
	int p, exp;

	if (isnan(v) || isinf(v)) {
		number(v, out, len);
		return;
	}
	if (v == 0) {
		snprintf(out, len, "0.0");
		return;
	}
	/* The fewest digits that read back as v. */
	for (p = 0; p < 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p, v);
		if (strtod(e, NULL) == v)
			break;
	}
	exp = atoi(strchr(e, 'e') + 1);
	if (exp < -4 || exp >= 6) {
		snprintf(out, len, "%s", e);
		return;
	}
	snprintf(out, len, "%.*f", p > exp ? p - exp : 0, v);
	if (!strchr(out, '.') && strlen(out) + 3 <= len)
		strcat(out, ".0");
}

static void sample(struct om_buf *b, const char *name, const char *suffix,
		   const char *labels, double v)
{
	char num[32];

	number(v, num, sizeof(num));
	if (labels && *labels)
		bprintf(b, "%s%s{%s} %s\n", name, suffix, labels, num);
	else
		bprintf(b, "%s%s %s\n", name, suffix, num);
}

static void sample_u64(struct om_buf *b, const char *name, const char *suffix,
		       const char *labels, uint64_t v)
{
	if (labels && *labels)
		bprintf(b, "%s%s{%s} %llu\n", name, suffix, labels,
			(unsigned long long)v);
	else
		bprintf(b, "%s%s %llu\n", name, suffix,
			(unsigned long long)v);
}

/* The name of a window family of f: "max" or "min", the unit last. */
static void window_name(const struct om_family *f, const char *which,
			char *out, size_t len)
{
	size_t fl = strlen(f->name);

	if (f->counter) {
		snprintf(out, len, "%s_window_%s_rate", f->name, which);
		return;
	}
	if (f->unit && fl > strlen(f->unit) + 1)
		snprintf(out, len, "%.*s_window_%s_%s",
			 (int)(fl - strlen(f->unit) - 1), f->name, which,
			 f->unit);
	else
		snprintf(out, len, "%s_window_%s", f->name, which);
}

/* NAME_distribution_UNIT: a histogram of gauge f's samples. */
static void histogram(struct om_buf *b, enum om_format fmt,
		      const struct om_layout *l, const struct om_family *f,
		      const struct om_value *v)
{
	char hname[OM_NAME_MAX + 32], help[OM_HELP_MAX + 128];
	unsigned int i, k;

	size_t fl = strlen(f->name), ul = f->unit ? strlen(f->unit) : 0;
	unsigned int alive = 0;

	for (i = f->first; i < f->first + f->nr; i++)
		alive += v[i].alive && v[i].hist;
	if (!alive)
		return;
	if (f->unit && fl > ul + 1)
		snprintf(hname, sizeof(hname), "%.*s_distribution_%s",
			 (int)(fl - ul - 1), f->name, f->unit);
	else
		snprintf(hname, sizeof(hname), "%s_distribution", f->name);
	snprintf(help, sizeof(help), "every sample since the collection "
		 "began (--web.histogram): %s", f->help);
	meta(b, fmt, hname, "histogram", f->unit, help);
	for (i = f->first; i < f->first + f->nr; i++) {
		const char *lb = l->series[i].labels;
		const struct om_hist *h = v[i].hist;
		const char *sep = lb && *lb ? "," : "";
		double bound = l->hspec.start;
		uint64_t cum = 0;

		if (!v[i].alive || !h)
			continue;
		for (k = 0; k <= l->hspec.count; k++) {
			char le[32];

			cum += h->bucket[k];
			canonical(k < l->hspec.count ? bound : INFINITY, le,
				  sizeof(le));
			bprintf(b, "%s_bucket{%s%sle=\"%s\"} %llu\n", hname, lb,
				sep, le, (unsigned long long)cum);
			bound *= l->hspec.factor;
		}
		sample(b, hname, "_sum", lb, h->sum);
		sample_u64(b, hname, "_count", lb, h->count);
	}
}

/*
 * When each window maximum of f was taken: NAME_window_max_timestamp_seconds
 * (a counter's NAME_window_max_rate_timestamp_seconds, the end of the
 * interval of its peak rate), the first sample at the maximum.
 */
static void peak_times(struct om_buf *b, enum om_format fmt,
		       const struct om_layout *l, const struct om_family *f,
		       const struct om_value *v)
{
	char wname[OM_NAME_MAX + 32], tname[OM_NAME_MAX + 64];
	char help[OM_HELP_MAX + 160];
	size_t wl, ul = f->unit && !f->counter ? strlen(f->unit) : 0;
	unsigned int i;

	window_name(f, "max", wname, sizeof(wname));
	wl = strlen(wname);
	/* NAME_window_max_UNIT: the unit gives way to the timestamp's. */
	if (ul && wl > ul + 1)
		wl -= ul + 1;
	snprintf(tname, sizeof(tname), "%.*s_timestamp_seconds", (int)wl,
		 wname);
	snprintf(help, sizeof(help), f->counter ?
		 "when the peak rate over the window was taken (the end of "
		 "its interval), seconds since the Unix epoch: %s" :
		 "when the maximum over the window was first taken, seconds "
		 "since the Unix epoch: %s", f->help);
	meta(b, fmt, tname, "gauge", "seconds", help);
	for (i = f->first; i < f->first + f->nr; i++)
		if (v[i].alive && v[i].have_window)
			sample(b, tname, "", l->series[i].labels,
			       v[i].wmax_time);
}

static void family_and_window(struct om_buf *b, enum om_format fmt,
			      const struct om_layout *l,
			      const struct om_family *f,
			      const struct om_value *v)
{
	char wname[OM_NAME_MAX + 32], help[OM_HELP_MAX + 128];
	unsigned int i, alive = 0, win = 0;

	for (i = f->first; i < f->first + f->nr; i++) {
		alive += v[i].alive && !v[i].removed;
		win += v[i].alive && v[i].have_window;
	}
	if (alive)
		meta(b, fmt, f->name, f->counter ? "counter" : "gauge",
		     f->unit, f->help);
	for (i = f->first; alive && i < f->first + f->nr; i++) {
		const struct om_series *s = &l->series[i];

		if (!v[i].alive || v[i].removed)
			continue;
		if (f->counter && f->scale != 1)
			sample(b, f->name, "_total", s->labels,
			       (double)v[i].last * f->scale);
		else if (f->counter)
			sample_u64(b, f->name, "_total", s->labels, v[i].last);
		else if (f->scale == 1 && v[i].last != UINT64_MAX)
			sample_u64(b, f->name, "", s->labels, v[i].last);
		else if (f->scale > 1 && f->scale == floor(f->scale) &&
			 v[i].last <= UINT64_MAX / (uint64_t)f->scale)
			/* KiB as bytes: exact, not %.15g's */
			sample_u64(b, f->name, "", s->labels,
				   v[i].last * (uint64_t)f->scale);
		else	/* "max": +Inf */
			sample(b, f->name, "", s->labels,
			       om_gauge_value(v[i].last, f->scale));
	}
	if (!win)
		return;
	window_name(f, "max", wname, sizeof(wname));
	snprintf(help, sizeof(help), f->counter ?
		 "peak rate per second over the window (--web.window), "
		 "each rate over ksnap_web_window_rate_interval_seconds: %s" :
		 "maximum over the window (--web.window): %s", f->help);
	meta(b, fmt, wname, "gauge", f->counter ? NULL : f->unit, help);
	/* A counter's rate is in its column's units a second: scaled as
	 * its total is (ns: seconds a second). */
	for (i = f->first; i < f->first + f->nr; i++)
		if (v[i].alive && v[i].have_window)
			sample(b, wname, "", l->series[i].labels,
			       f->counter ? v[i].wmax * f->scale : v[i].wmax);
	if (l->peak_times)
		peak_times(b, fmt, l, f, v);
	if (f->counter)
		return;
	window_name(f, "min", wname, sizeof(wname));
	snprintf(help, sizeof(help), "minimum over the window "
		 "(--web.window): %s", f->help);
	meta(b, fmt, wname, "gauge", f->unit, help);
	for (i = f->first; i < f->first + f->nr; i++)
		if (v[i].alive && v[i].have_window)
			sample(b, wname, "", l->series[i].labels, v[i].wmin);
}

/* process_*, as Prometheus's client libraries name them. */
static void process_metrics(struct om_buf *b, enum om_format f,
			    const struct om_self *s)
{
	meta(b, f, "process_cpu_seconds", "counter", "seconds",
	     "user and system CPU time ksnapd has spent");
	sample(b, "process_cpu_seconds", "_total", NULL, s->process_cpu_s);
	meta(b, f, "process_start_time_seconds", "gauge", "seconds",
	     "start time of ksnapd since the Unix epoch");
	sample(b, "process_start_time_seconds", "", NULL, s->process_start_s);
	if (s->process_rss >= 0) {
		meta(b, f, "process_resident_memory_bytes", "gauge", "bytes",
		     "resident memory of ksnapd (the mapped ring's pages it "
		     "has read included)");
		sample_u64(b, "process_resident_memory_bytes", "", NULL,
			   (uint64_t)s->process_rss);
	}
	if (s->process_vsize >= 0) {
		meta(b, f, "process_virtual_memory_bytes", "gauge", "bytes",
		     "virtual memory of ksnapd");
		sample_u64(b, "process_virtual_memory_bytes", "", NULL,
			   (uint64_t)s->process_vsize);
	}
	if (s->process_open_fds >= 0) {
		meta(b, f, "process_open_fds", "gauge", NULL,
		     "open file descriptors of ksnapd");
		sample_u64(b, "process_open_fds", "", NULL,
			   (uint64_t)s->process_open_fds);
	}
	if (s->process_max_fds >= 0) {
		meta(b, f, "process_max_fds", "gauge", NULL,
		     "ksnapd's limit of open file descriptors");
		sample_u64(b, "process_max_fds", "", NULL,
			   (uint64_t)s->process_max_fds);
	}
}

static void self_metrics(struct om_buf *b, enum om_format f,
			 const struct om_self *s)
{
	char labels[160], esc[96];

	om_escape(s->version ? s->version : "", esc, sizeof(esc));
	snprintf(labels, sizeof(labels), "version=\"%s\",abi=\"%u\"", esc,
		 s->abi);
	meta(b, f, "ksnap_build", "info", NULL,
	     "ksnapd's version and ring ABI");
	sample(b, "ksnap_build", "_info", labels, 1);
	meta(b, f, "ksnap_collection_running", "gauge", NULL,
	     "1 while ksnapd reads a collection, 0 while it waits for one");
	sample(b, "ksnap_collection_running", "", NULL, s->running);
	meta(b, f, "ksnap_collection_period_seconds", "gauge", "seconds",
	     "sampling period of the collection read last, 0 when none");
	sample(b, "ksnap_collection_period_seconds", "", NULL,
	       s->period_seconds);
	meta(b, f, "ksnap_web_window_seconds", "gauge", "seconds",
	     "length of the window of the window_max and window_min series");
	sample(b, "ksnap_web_window_seconds", "", NULL, s->window_seconds);
	meta(b, f, "ksnap_snapshots_taken", "counter", NULL,
	     "snapshots the module took in the collection");
	sample_u64(b, "ksnap_snapshots_taken", "_total", NULL, s->taken);
	meta(b, f, "ksnap_snapshots_lost", "counter", NULL,
	     "snapshots lost to a full ring in the collection");
	sample_u64(b, "ksnap_snapshots_lost", "_total", NULL, s->lost);
	meta(b, f, "ksnap_snapshots_missed", "counter", NULL,
	     "sampling periods the module's timer missed in the collection");
	sample_u64(b, "ksnap_snapshots_missed", "_total", NULL, s->missed);
	meta(b, f, "ksnap_snapshots_thinned", "counter", NULL,
	     "of the periods missed, those the module skipped on purpose: "
	     "its reads took longer than their bound, with no cgroup left "
	     "to shed");
	sample_u64(b, "ksnap_snapshots_thinned", "_total", NULL, s->thinned);
	meta(b, f, "ksnap_cgroups_skipped", "gauge", NULL,
	     "cgroups a pattern matched that the collection's column set has "
	     "no room for, at its last rescan");
	sample_u64(b, "ksnap_cgroups_skipped", "", NULL, s->cgroups_skipped);
	meta(b, f, "ksnap_snapshot_read_seconds", "counter", "seconds",
	     "time the module spent reading the counters, summed over the "
	     "collection's snapshots");
	sample(b, "ksnap_snapshot_read_seconds", "_total", NULL,
	       (double)s->read_sum_ns * 1e-9);
	meta(b, f, "ksnap_snapshot_read_max_seconds", "gauge", "seconds",
	     "longest read of one snapshot in the collection");
	sample(b, "ksnap_snapshot_read_max_seconds", "", NULL,
	       (double)s->read_max_ns * 1e-9);
	meta(b, f, "ksnap_snapshot_lateness_seconds", "counter", "seconds",
	     "time from each timer expiry to its snapshot, summed over the "
	     "collection's snapshots");
	sample(b, "ksnap_snapshot_lateness_seconds", "_total", NULL,
	       (double)s->lateness_sum_ns * 1e-9);
	meta(b, f, "ksnap_snapshot_lateness_max_seconds", "gauge", "seconds",
	     "longest time from a timer expiry to its snapshot in the "
	     "collection");
	sample(b, "ksnap_snapshot_lateness_max_seconds", "", NULL,
	       (double)s->lateness_max_ns * 1e-9);
	meta(b, f, "ksnap_web_series_skipped", "counter", NULL,
	     "series left out: a label value (a cgroup path) not valid "
	     "UTF-8");
	sample_u64(b, "ksnap_web_series_skipped", "_total", NULL,
		   s->skipped_utf8);
	meta(b, f, "ksnap_web_scrapes", "counter", NULL,
	     "GET requests for /metrics answered");
	sample_u64(b, "ksnap_web_scrapes", "_total", NULL, s->scrapes);
	meta(b, f, "ksnap_web_requests_refused", "counter", NULL,
	     "requests answered 503: more than --web.max-requests at once");
	sample_u64(b, "ksnap_web_requests_refused", "_total", NULL,
		   s->refused);
	if (s->flight) {
		meta(b, f, "ksnap_flight_triggers", "counter", NULL,
		     "times a trigger rule fired, a fire that extends an open "
		     "dump included");
		sample_u64(b, "ksnap_flight_triggers", "_total", NULL,
			   s->flight_triggers);
		meta(b, f, "ksnap_flight_dumps", "counter", NULL,
		     "dumps the flight recorder opened");
		sample_u64(b, "ksnap_flight_dumps", "_total", NULL,
			   s->flight_dumps);
	}
	if (s->process)
		process_metrics(b, f, s);
	if (s->textfile) {
		meta(b, f, "ksnap_textfile_writes", "counter", NULL,
		     "times --textfile's file was replaced");
		sample_u64(b, "ksnap_textfile_writes", "_total", NULL,
			   s->textfile_writes);
		meta(b, f, "ksnap_textfile_write_errors", "counter", NULL,
		     "writes of --textfile's file that failed (the old file "
		     "stays)");
		sample_u64(b, "ksnap_textfile_write_errors", "_total", NULL,
			   s->textfile_errors);
	}
}

static void family(struct om_buf *b, enum om_format fmt,
		   const struct om_layout *l, const struct om_family *f,
		   const struct om_value *v)
{
	family_and_window(b, fmt, l, f, v);
	if (f->hist)
		histogram(b, fmt, l, f, v);
}

/*
 * The interval each counter family's peak rates were taken over, one
 * sample a family whose _window_max_rate has a sample.
 */
static void rate_intervals(struct om_buf *b, enum om_format fmt,
			   const struct om_layout *l, const struct om_value *v)
{
	char wname[OM_NAME_MAX + 32], labels[OM_NAME_MAX + 48];
	unsigned int i, j;
	bool said = false;

	for (i = 0; i < l->nr_fam; i++) {
		const struct om_family *f = &l->fam[i];

		if (!f->counter || !f->rate_interval_ns)
			continue;
		for (j = f->first; j < f->first + f->nr; j++)
			if (v[j].alive && v[j].have_window)
				break;
		if (j == f->first + f->nr)
			continue;
		if (!said)
			meta(b, fmt, "ksnap_web_window_rate_interval_seconds",
			     "gauge", "seconds",
			     "interval each peak rate of a _window_max_rate "
			     "family is taken over: ten of its counter's "
			     "updates (the kernel's tick for CPU times), at "
			     "least the sampling period");
		said = true;
		window_name(f, "max", wname, sizeof(wname));
		snprintf(labels, sizeof(labels), "family=\"%s\"", wname);
		sample(b, "ksnap_web_window_rate_interval_seconds", "", labels,
		       (double)f->rate_interval_ns * 1e-9);
	}
}

int om_render(struct om_buf *b, enum om_format f, const struct om_layout *l,
	      const struct om_value *v, const struct om_self *self)
{
	unsigned int i;

	self_metrics(b, f, self);
	for (i = 0; l && i < l->nr_fam; i++)
		family(b, f, l, &l->fam[i], v);
	if (l)
		rate_intervals(b, f, l, v);
	if (f == OM_OPENMETRICS)
		bprintf(b, "# EOF\n");
	return b->failed ? -ENOMEM : 0;
}

/* --- negotiation -------------------------------------------------------- */

/* Whether list (a comma-separated header) names token with q > 0. */
static bool accepts(const char *list, const char *token)
{
	const char *p = list;
	size_t tl = strlen(token);

	if (!list)
		return false;
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *e = p + len, *q;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(e - p) >= tl && !strncasecmp(p, token, tl) &&
		    (p + tl == e || p[tl] == ';' || p[tl] == ' ')) {
			bool zero = false;

			for (q = p + tl; q < e; q++)
				if (!strncmp(q, "q=", 2)) {
					zero = strtod(q + 2, NULL) <= 0;
					break;
				}
			if (!zero)
				return true;
		}
		p = *e ? e + 1 : e;
	}
	return false;
}

/* The q of the element of an Accept header at p..e (its parameters'
 * q=, 1 without one). */
static double element_q(const char *p, const char *e)
{
	const char *semi;

	while ((semi = memchr(p, ';', (size_t)(e - p)))) {
		p = semi + 1;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p < e && (*p == 'q' || *p == 'Q')) {
			const char *eq = p + 1;

			while (eq < e && (*eq == ' ' || *eq == '\t'))
				eq++;
			if (eq < e && *eq == '=')
				return strtod(eq + 1, NULL);
		}
	}
	return 1;
}

/* The highest q with which an Accept header names type (a media type or
 * a range such as text/x or x/x with stars), -1 when it does not. */
static double accept_q(const char *list, const char *type)
{
	size_t tl = strlen(type);
	double best = -1;
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, ",");
		const char *e = p + len, *t;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		t = p + tl;
		while (t < e && (*t == ' ' || *t == '\t'))
			t++;
		if ((size_t)(e - p) >= tl && !strncasecmp(p, type, tl) &&
		    (t == e || *t == ';')) {
			double q = element_q(p, e);

			if (q > best)
				best = q;
		}
		p = *e ? e + 1 : e;
	}
	return best;
}

/*
 * OpenMetrics when the header names it with a q above 0 and at least the
 * text format's (its most specific range's: text/plain, text/x, x/x);
 * the text format otherwise, the fallback.
 */
enum om_format om_negotiate(const char *accept)
{
	double om = accept_q(accept, "application/openmetrics-text");
	double text = accept_q(accept, "text/plain");

	if (text < 0)
		text = accept_q(accept, "text/*");
	if (text < 0)
		text = accept_q(accept, "*/*");
	return om > 0 && om >= text ? OM_OPENMETRICS : OM_PROMETHEUS;
}

bool om_wants_gzip(const char *accept_encoding)
{
	return accepts(accept_encoding, "gzip");
}

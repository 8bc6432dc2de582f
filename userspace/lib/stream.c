// SPDX-License-Identifier: MIT
/*
 * Line formatting for the profiling-metrics stream, plain and lossy.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "stream.h"

#define PREFIX_LEN	(sizeof(KSNAP_LOSSY_PREFIX) - 1)
/* "\t0x" + 8 hex digits + "\n" */
#define SUFFIX_MAX	12
#define U64_MAX_DIGITS	20
#define TIME_COLUMN	"Time (ns)"

#define FIELD_LEN(col, f)	strnlen((col)->f, sizeof((col)->f))

void ksnap_stream_init(struct ksnap_stream *s, struct ksnap_out *out,
		       bool lossy)
{
	s->out = out;
	s->lossy = lossy;
	s->adler = adler32(0L, Z_NULL, 0);
	s->adler_queued = false;
}

void ksnap_stream_reset(struct ksnap_stream *s)
{
	s->adler = adler32(0L, Z_NULL, 0);
	s->adler_queued = false;
}

/* "00" "01" ... "99": two digits per division. */
static const char two_digits[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Two digits of d (< 100) at p. */
static inline void put_2(char *p, uint32_t d)
{
	memcpy(p, two_digits + 2 * d, 2);
}

/* Exactly 8 digits of v (< 10^8) at p, leading zeros included. */
static inline void put_8(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	put_2(p, hi / 100);
	put_2(p + 2, hi % 100);
	put_2(p + 4, lo / 100);
	put_2(p + 6, lo % 100);
}

/* v (< 10^8) without leading zeros; returns the end. */
static inline char *put_small(char *p, uint32_t v)
{
	unsigned int n;
	char *end;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	n = v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 :
	    v < 1000000 ? 6 : v < 10000000 ? 7 : 8;
	end = p + n;
	p = end;
	while (v >= 100) {
		p -= 2;
		put_2(p, v % 100);
		v /= 100;
	}
	if (v >= 10)
		put_2(p - 2, v);
	else
		p[-1] = (char)('0' + v);
	return end;
}

/*
 * Decimal, in pieces of 8 digits that 32-bit arithmetic formats: a row is
 * mostly this (bench/README.md, "Writer").
 */
char *ksnap_put_u64(char *p, uint64_t v)
{
	uint64_t hi;

	if (v < 100000000)
		return put_small(p, (uint32_t)v);
	hi = v / 100000000;
	if (hi < 100000000) {
		p = put_small(p, (uint32_t)hi);
	} else {
		p = put_small(p, (uint32_t)(hi / 100000000));
		put_8(p, (uint32_t)(hi % 100000000));
		p += 8;
	}
	put_8(p, (uint32_t)(v % 100000000));
	return p + 8;
}

char *ksnap_put_hex(char *p, uint32_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[8];
	int i = 8;

	do {
		tmp[--i] = digits[v & 0xf];
		v >>= 4;
	} while (v);
	memcpy(p, tmp + i, 8 - i);
	return p + (8 - i);
}

static char *put_str(char *p, const char *str, size_t len)
{
	memcpy(p, str, len);
	return p + len;
}

#define PUT_LIT(p, lit)	put_str(p, lit, sizeof(lit) - 1)

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

char *ksnap_json_string(char *p, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	len = strnlen(str, len);
	*p++ = '"';
	while (i < len) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
			i++;
		} else if (c < 0x20) {
			p = PUT_LIT(p, "\\u00");
			*p++ = hex[c >> 4];
			*p++ = hex[c & 0xf];
			i++;
		} else if (c < 0x80) {
			*p++ = (char)c;
			i++;
		} else if ((n = utf8_seq(s + i, len - i))) {
			p = put_str(p, str + i, n);
			i += n;
		} else {
			/* protojson rejects invalid UTF-8 */
			p = PUT_LIT(p, "\\ufffd");
			i++;
		}
	}
	*p++ = '"';
	return p;
}

/* Does a column's value byte c need escaping (ksnap_put_value())? */
static bool value_special(unsigned char c)
{
	return c == '\\' || c == ',' || c == '[' || c == ']' || c == '\t' ||
	       c == '\n' || c == '\r';
}

char *ksnap_put_value(char *p, const char *v, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	len = strnlen(v, len);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c == '\\') {
			*p++ = '\\';
			*p++ = '\\';
		} else if (value_special(c)) {
			p = PUT_LIT(p, "\\x");
			*p++ = hex[c >> 4];
			*p++ = hex[c & 0xf];
		} else {
			*p++ = (char)c;
		}
	}
	return p;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t ksnap_unescape_value(char *out, size_t size, const char *in,
			    size_t len)
{
	size_t i, o = 0;

	if (!size)
		return 0;
	for (i = 0; i < len && o + 1 < size; i++) {
		char c = in[i];

		if (c == '\\' && i + 1 < len && in[i + 1] == '\\') {
			i++;
		} else if (c == '\\' && i + 3 < len && in[i + 1] == 'x' &&
			   hex_digit(in[i + 2]) >= 0 &&
			   hex_digit(in[i + 3]) >= 0) {
			c = (char)(hex_digit(in[i + 2]) * 16 +
				   hex_digit(in[i + 3]));
			i += 3;
		}
		out[o++] = c;
	}
	out[o] = '\0';
	return o;
}

/* Room for a line of at most max bytes of content; returns its start. */
static char *line_begin(struct ksnap_stream *s, size_t max, int *err)
{
	size_t extra = s->lossy ? PREFIX_LEN + SUFFIX_MAX : 1;
	char *p = ksnap_out_reserve(s->out, max + extra, err);

	if (p && s->lossy)
		p = PUT_LIT(p, KSNAP_LOSSY_PREFIX);
	return p;
}

/* Terminate the line [start, end): checksum suffix in lossy mode, "\n". */
static void line_end(struct ksnap_stream *s, char *start, char *end)
{
	if (s->lossy) {
		size_t len = (size_t)(end - start);
		uLong sum = adler32(1L, (const Bytef *)start, (uInt)len);
		char *suffix = end;

		end = PUT_LIT(end, "\t0x");
		end = ksnap_put_hex(end, (uint32_t)sum);
		*end++ = '\n';
		/*
		 * The whole-stream sum covers content, suffix and "\n": the
		 * content's sum is folded in, not computed again, then the
		 * few bytes of the suffix are added.
		 */
		s->adler = adler32_combine(s->adler, sum, (z_off_t)len);
		s->adler = adler32(s->adler, (const Bytef *)suffix,
				   (uInt)(end - suffix));
	} else {
		*end++ = '\n';
	}
	ksnap_out_commit(s->out, end);
}

static bool same_metric(const struct ksnap_column *a,
			const struct ksnap_column *b)
{
	return !strncmp(a->metric, b->metric, sizeof(a->metric));
}

static bool same_value(const struct ksnap_column *a,
		       const struct ksnap_column *b)
{
	return !strncmp(a->value, b->value, sizeof(a->value));
}

/* Is cols[k]'s value already listed for its metric (from first on)? */
static bool value_seen(const struct ksnap_column *cols, uint32_t first,
		       uint32_t k)
{
	uint32_t j;

	for (j = first; j < k; j++)
		if (same_metric(&cols[j], &cols[k]) &&
		    same_value(&cols[j], &cols[k]))
			return true;
	return false;
}

static int meta_line(struct ksnap_stream *s, const struct ksnap_column *cols,
		     uint32_t n, uint32_t first)
{
	const struct ksnap_column *c = &cols[first];
	size_t name_len = FIELD_LEN(c, metric);
	size_t desc_len = FIELD_LEN(c, description);
	bool has_field = c->field[0] != '\0';
	size_t max;
	char val[KSNAP_VALUE_MAX(KSNAP_FIELD_VALUE_MAX)];
	char *start, *p;
	bool comma = false;
	size_t vlen;
	uint32_t k;
	int err = 0;

	max = 256 + name_len + KSNAP_JSON_MAX(name_len) +
	      KSNAP_JSON_MAX(desc_len) + KSNAP_JSON_MAX(sizeof(c->field));
	for (k = first; k < n; k++)
		if (same_metric(c, &cols[k]))
			max += KSNAP_JSON_MAX(KSNAP_VALUE_MAX(
					FIELD_LEN(&cols[k], value))) + 1;

	start = line_begin(s, max, &err);
	if (!start)
		return err;
	p = PUT_LIT(start, "META\t");
	p = put_str(p, c->metric, name_len);
	p = PUT_LIT(p, "\t{\"name\":");
	p = ksnap_json_string(p, c->metric, name_len);
	if (desc_len) {
		p = PUT_LIT(p, ",\"description\":");
		p = ksnap_json_string(p, c->description, desc_len);
	}
	if (c->flags & KSNAP_COL_CUMULATIVE)
		p = PUT_LIT(p, ",\"cumulative\":true");
	p = PUT_LIT(p, ",\"type\":\"TYPE_UINT64\"");
	if (c->flags & KSNAP_COL_NANOSECONDS)
		p = PUT_LIT(p, ",\"units\":\"UNITS_NANOSECONDS\"");
	if (has_field) {
		p = PUT_LIT(p, ",\"fields\":[{\"fieldName\":");
		p = ksnap_json_string(p, c->field, sizeof(c->field));
		p = PUT_LIT(p, ",\"allowedValues\":[");
		for (k = first; k < n; k++) {
			if (!same_metric(c, &cols[k]) ||
			    value_seen(cols, first, k))
				continue;
			if (comma)
				*p++ = ',';
			/* As the header names the column. */
			vlen = (size_t)(ksnap_put_value(val, cols[k].value,
							sizeof(cols[k].value)) -
					val);
			p = ksnap_json_string(p, val, vlen);
			comma = true;
		}
		p = PUT_LIT(p, "]}]");
	}
	*p++ = '}';
	line_end(s, start, p);
	return 0;
}

int ksnap_stream_meta(struct ksnap_stream *s, const struct ksnap_column *cols,
		      uint32_t n)
{
	uint32_t i, j;
	int ret;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (same_metric(&cols[i], &cols[j]))
				break;
		if (j < i)
			continue;	/* metric already described */
		ret = meta_line(s, cols, n, i);
		if (ret)
			return ret;
	}
	return 0;
}

int ksnap_stream_start_time(struct ksnap_stream *s, uint64_t real_ns)
{
	char *start, *p;
	int err = 0;

	start = line_begin(s, 16 + U64_MAX_DIGITS, &err);
	if (!start)
		return err;
	p = PUT_LIT(start, "START_TIME\t");
	p = ksnap_put_u64(p, real_ns);
	line_end(s, start, p);
	return 0;
}

int ksnap_stream_header(struct ksnap_stream *s,
			const struct ksnap_column *cols, uint32_t n)
{
	size_t max = 32;
	char *start, *p;
	uint32_t i;
	int err = 0;

	for (i = 0; i < n; i++)
		max += FIELD_LEN(&cols[i], metric) +
		       KSNAP_VALUE_MAX(FIELD_LEN(&cols[i], value)) + 3;
	start = line_begin(s, max, &err);
	if (!start)
		return err;
	p = PUT_LIT(start, TIME_COLUMN);
	for (i = 0; i < n; i++) {
		const struct ksnap_column *c = &cols[i];

		*p++ = '\t';
		p = put_str(p, c->metric, FIELD_LEN(c, metric));
		if (c->field[0]) {
			*p++ = '[';
			p = ksnap_put_value(p, c->value, FIELD_LEN(c, value));
			*p++ = ']';
		}
	}
	if (s->lossy)
		p = PUT_LIT(p, "\tChecksum");
	line_end(s, start, p);
	return 0;
}

int ksnap_stream_row(struct ksnap_stream *s, uint64_t time_ns,
		     const __u64 *values, uint32_t n)
{
	char *start, *p;
	uint32_t i;
	int err = 0;

	start = line_begin(s, (size_t)(n + 1) * (U64_MAX_DIGITS + 1), &err);
	if (!start)
		return err;
	p = ksnap_put_u64(start, time_ns);
	for (i = 0; i < n; i++) {
		*p++ = '\t';
		p = ksnap_put_u64(p, values[i]);
	}
	line_end(s, start, p);
	return 0;
}

struct stats_key {
	const char *name;
	size_t offset;
};

#define KEY(json, field) { json, offsetof(struct ksnap_stream_stats, field) }

/*
 * gVisor's CollectionStats JSON tags (profiling_metric.go) are
 * collection_rate, total_sleep_timing_error, total_collection_timing_error
 * and total_backoff_sleep; its reader (encoding/json) matches on those and
 * ignores the rest.  The "_nanos" spellings of the same four are written
 * too, for readers that go by the field names.
 */
static const struct stats_key stats_keys[] = {
	KEY("collection_rate", collection_rate_nanos),
	KEY("collection_rate_nanos", collection_rate_nanos),
	KEY("cheap_start_nanos", cheap_start_nanos),
	KEY("cheap_last_collection_nanos", cheap_last_collection_nanos),
	KEY("total_snapshots", total_snapshots),
	KEY("total_sleep_timing_error", total_sleep_timing_error_nanos),
	KEY("total_sleep_timing_error_nanos", total_sleep_timing_error_nanos),
	KEY("total_collection_timing_error",
	    total_collection_timing_error_nanos),
	KEY("total_collection_timing_error_nanos",
	    total_collection_timing_error_nanos),
	KEY("num_backoff_sleeps", num_backoff_sleeps),
	KEY("total_backoff_sleep", total_backoff_sleep_nanos),
	KEY("total_backoff_sleep_nanos", total_backoff_sleep_nanos),
	KEY("ksnap_snapshots_taken", ksnap_snapshots_taken),
	KEY("ksnap_snapshots_lost", ksnap_snapshots_lost),
	KEY("ksnap_periods_missed", ksnap_periods_missed),
	KEY("ksnap_periods_thinned", ksnap_periods_thinned),
	KEY("ksnap_max_lateness_nanos", ksnap_max_lateness_nanos),
	KEY("ksnap_max_read_nanos", ksnap_max_read_nanos),
	KEY("ksnap_lateness_sum_nanos", ksnap_lateness_sum_nanos),
	KEY("ksnap_read_sum_nanos", ksnap_read_sum_nanos),
	KEY("ksnap_bad_tail", ksnap_bad_tail),
	KEY("ksnap_cgroups_skipped", ksnap_cgroups_skipped),
	KEY("ksnapd_rows_dropped", ksnapd_rows_dropped),
	KEY("ksnapd_snapshots_overwritten", ksnapd_snapshots_overwritten),
	KEY("ksnapd_snapshots_skipped", ksnapd_snapshots_skipped),
	KEY("ksnapd_first_position", ksnapd_first_position),
	KEY("ksnapd_rows_in_earlier_files", ksnapd_rows_in_earlier_files),
	KEY("ksnapd_files_removed", ksnapd_files_removed),
	KEY("ksnapd_bytes_removed", ksnapd_bytes_removed),
	KEY("ksnap_exits_lost", ksnap_exits_lost),
	KEY("ksnapd_exits_unlisted", ksnapd_exits_unlisted),
	KEY("ksnapd_cgroups_unnamed", ksnapd_cgroups_unnamed),
};

/* An exit record's members, as "key":value after a comma. */
static char *put_member(char *p, const char *key, uint64_t v)
{
	*p++ = ',';
	*p++ = '"';
	p = put_str(p, key, strlen(key));
	p = PUT_LIT(p, "\":");
	return ksnap_put_u64(p, v);
}

/*
 * The most one exit record takes in STATS: its path, each byte of which
 * ksnap_put_value() makes at most 4 and ksnap_json_string() at most 6 of
 * (a control byte or one not UTF-8: "\\u0001", "\\ufffd"; "\\x2c" is 5),
 * and its members.
 */
#define EXIT_JSON_MAX	(32 + 6 * KSNAP_EXIT_PATH_MAX + 12 * (32 + U64_MAX_DIGITS) + \
			 EXIT_ID_JSON_MAX)
/*
 * Its identity's members: printable ASCII (identity.h drops the rest),
 * each byte at most 2 escaped ("\\"), and their names.
 */
#define EXIT_ID_JSON_MAX	(2 * (KSNAP_ID_CID_MAX + KSNAP_ID_UID_MAX + \
				      3 * KSNAP_ID_NAME_MAX + \
				      KSNAP_ID_IMAGE_MAX + 16) + 7 * 24)
/*
 * The exit records of one STATS line take at most this (those past it are
 * counted in ksnapd_exits_unlisted): the line stays within what log
 * shippers and journald take (Fluent Bit 32 KiB, journald's LineMax 48 KiB).
 */
#define EXITS_JSON_BUDGET	(24 * 1024)

/* A string member, when it has a value. */
static char *put_str_member(char *p, const char *key, const char *v)
{
	if (!v || !*v)
		return p;
	*p++ = ',';
	*p++ = '"';
	p = put_str(p, key, strlen(key));
	p = PUT_LIT(p, "\":");
	return ksnap_json_string(p, v, strlen(v));
}

/* Who the cgroup was: the labels /metrics gives it, those it has. */
static char *put_identity(char *p, const struct ksnap_identity *id)
{
	p = put_str_member(p, "namespace", id->namespace);
	p = put_str_member(p, "pod", id->pod);
	p = put_str_member(p, "container", id->container);
	p = put_str_member(p, "image", id->image);
	p = put_str_member(p, "container_id", id->container_id);
	p = put_str_member(p, "pod_uid", id->pod_uid);
	return put_str_member(p, "container_role", ksnap_id_role_name(id->role));
}

/*
 * One exit record as a JSON object: its cgroup named as a column's field
 * value is (escaped as the header escapes it), then its figures, then who
 * it was (id, or none).
 */
static char *put_exit(char *p, const struct ksnap_exit *x,
		      const struct ksnap_identity *id)
{
	char val[4 * KSNAP_EXIT_PATH_MAX];
	size_t vlen;

	vlen = (size_t)(ksnap_put_value(val, x->path, sizeof(x->path)) - val);
	p = PUT_LIT(p, "{\"cgroup\":");
	p = ksnap_json_string(p, val, vlen);
	p = put_member(p, "cgroup_id", x->cgroup_id);
	p = put_member(p, "exit_nanos", x->time_ns);
	if (x->flags & KSNAP_EXIT_BORN) {
		p = put_member(p, "born_nanos", x->born_ns);
		p = put_member(p, "lifetime_nanos", x->time_ns - x->born_ns);
	}
	p = put_member(p, "cpu_usage_nanos", x->cpu_usage_ns);
	p = put_member(p, "cpu_user_nanos", x->cpu_user_ns);
	p = put_member(p, "cpu_system_nanos", x->cpu_system_ns);
	if (x->flags & KSNAP_EXIT_MEMORY) {
		p = put_member(p, "memory_peak_bytes", x->memory_peak);
		p = put_member(p, "memory_oom", x->memory_oom);
		p = put_member(p, "memory_oom_kill", x->memory_oom_kill);
	}
	if (x->flags & KSNAP_EXIT_PATH_CUT)
		p = PUT_LIT(p, ",\"cgroup_cut\":true");
	if (x->flags & KSNAP_EXIT_CPU_FLUSHED)
		p = PUT_LIT(p, ",\"cpu_flushed\":true");
	if (id)
		p = put_identity(p, id);
	*p++ = '}';
	return p;
}

#define NR_STATS_KEYS	(sizeof(stats_keys) / sizeof(stats_keys[0]))

/* The most one name of ksnap_cgroups takes: as an exit record's path. */
static size_t name_json_max(const char *path)
{
	return 16 + 6 * strnlen(path, KSNAP_FIELD_VALUE_MAX) + EXIT_ID_JSON_MAX;
}

/*
 * Those of st's exit records that fit EXITS_JSON_BUDGET, in order, each
 * encoded once, comma-separated, from ex; a record is encoded in full
 * before it is known not to fit, so ex needs EXITS_JSON_BUDGET +
 * EXIT_JSON_MAX.  Returns the end; *listed says how many.
 */
static char *put_exits(char *ex, const struct ksnap_stream_stats *st,
		       size_t *listed)
{
	char *q = ex, *q0;
	size_t i;

	for (i = 0; i < st->nr_exits; i++) {
		q0 = q;
		if (i)
			*q++ = ',';
		q = put_exit(q, &st->exits[i],
			     st->exit_ids ? &st->exit_ids[i] : NULL);
		/* Each record with its separator, as a reader counts them. */
		if ((size_t)(q - ex) + 1 > EXITS_JSON_BUDGET) {
			q = q0;
			break;
		}
	}
	*listed = i;
	return q;
}

/*
 * One name: the cgroup as a column's field value names it (escaped as
 * the header escapes it), and who it is.
 */
static char *put_name(char *p, const char *path,
		      const struct ksnap_identity *id)
{
	size_t len = strnlen(path, KSNAP_FIELD_VALUE_MAX - 1);
	char *val = malloc(4 * len + 1);
	size_t vlen;

	if (!val)
		return NULL;
	vlen = (size_t)(ksnap_put_value(val, path, len + 1) - val);
	p = PUT_LIT(p, "{\"cgroup\":");
	p = ksnap_json_string(p, val, vlen);
	free(val);
	p = put_identity(p, id);
	*p++ = '}';
	return p;
}

/*
 * The names of st's cgroups that have any, from nm, comma-separated;
 * within budget bytes (those past it are counted in *unnamed).  Returns
 * the end, or NULL (-ENOMEM); *listed says how many.
 */
static char *put_names(char *nm, const struct ksnap_stream_stats *st,
		       size_t budget, size_t *listed, uint64_t *unnamed)
{
	char *q = nm, *q0;
	size_t i;

	*listed = 0;
	for (i = 0; i < st->nr_names; i++) {
		if (!ksnap_id_known(&st->name_ids[i]))
			continue;
		q0 = q;
		if (*listed)
			*q++ = ',';
		q = put_name(q, st->name_paths[i], &st->name_ids[i]);
		if (!q)
			return NULL;
		if ((size_t)(q - nm) + 1 > budget) {
			q = q0;
			(*unnamed)++;
			continue;
		}
		(*listed)++;
	}
	return q;
}

int ksnap_stream_stats(struct ksnap_stream *s,
		       const struct ksnap_stream_stats *st)
{
	/* The most the keys take; the exits and names are encoded past it
	 * first. */
	size_t keys_max = 64 + (NR_STATS_KEYS + st->nr_extra) *
			  (48 + U64_MAX_DIGITS);
	size_t names_max = 0, names_budget = SIZE_MAX;
	char *start, *p, *ex, *ex_end, *nm_end;
	size_t i, listed, named;
	uint64_t unnamed = 0;
	int err = 0;

	for (i = 0; i < st->nr_names; i++)
		names_max += name_json_max(st->name_paths[i]) + 1;
	start = line_begin(s, keys_max + EXITS_JSON_BUDGET + EXIT_JSON_MAX +
			   names_max, &err);
	if (!start)
		return err;
	/* The counts of those left out are keys, written before them. */
	ex = start + keys_max;
	ex_end = put_exits(ex, st, &listed);
	/* A log pipeline's line: the names share the exits' budget. */
	if (s->lossy)
		names_budget = EXITS_JSON_BUDGET - (size_t)(ex_end - ex);
	nm_end = put_names(ex_end, st, names_budget, &named, &unnamed);
	if (!nm_end)
		return -ENOMEM;
	p = PUT_LIT(start, "STATS\t{");
	for (i = 0; i < NR_STATS_KEYS; i++) {
		size_t off = stats_keys[i].offset;
		uint64_t v;

		memcpy(&v, (const char *)st + off, sizeof(v));
		if (off == offsetof(struct ksnap_stream_stats,
				    ksnapd_exits_unlisted))
			v += st->nr_exits - listed;
		if (off == offsetof(struct ksnap_stream_stats,
				    ksnapd_cgroups_unnamed))
			v += unnamed;
		if (i)
			*p++ = ',';
		*p++ = '"';
		p = put_str(p, stats_keys[i].name, strlen(stats_keys[i].name));
		p = PUT_LIT(p, "\":");
		p = ksnap_put_u64(p, v);
	}
	for (i = 0; i < st->nr_extra; i++) {
		const char *k = st->extra[i].name;

		*p++ = ',';
		*p++ = '"';
		p = put_str(p, k, strnlen(k, 40));
		p = PUT_LIT(p, "\":");
		p = ksnap_put_u64(p, st->extra[i].value);
	}
	/* keys_max leaves room for the members' openings before ex: each
	 * part is moved down, never over what is still to move. */
	if (listed) {
		p = PUT_LIT(p, ",\"ksnap_exits\":[");
		memmove(p, ex, (size_t)(ex_end - ex));
		p += ex_end - ex;
		*p++ = ']';
	}
	if (named) {
		p = PUT_LIT(p, ",\"ksnap_cgroups\":[");
		memmove(p, ex_end, (size_t)(nm_end - ex_end));
		p += nm_end - ex_end;
		*p++ = ']';
	}
	*p++ = '}';
	line_end(s, start, p);
	return 0;
}

int ksnap_stream_finish(struct ksnap_stream *s)
{
	char *p;
	int err;

	if (s->adler_queued)
		return ksnap_out_flush_last(s->out);
	err = ksnap_out_flush(s->out);
	if (err || !s->lossy)
		return err;
	/* Not a checksummed line: the last one, outside the whole sum. */
	p = ksnap_out_reserve(s->out, PREFIX_LEN + 16 + SUFFIX_MAX, &err);
	if (!p)
		return err;
	p = PUT_LIT(p, KSNAP_LOSSY_PREFIX "ADLER32\t0x");
	p = ksnap_put_hex(p, (uint32_t)s->adler);
	*p++ = '\n';
	ksnap_out_commit(s->out, p);
	s->adler_queued = true;
	return ksnap_out_flush_last(s->out);
}

int ksnap_stream_begin(struct ksnap_stream *s, const struct ksnap_column *cols,
		       uint32_t n, uint64_t real_ns)
{
	int ret = ksnap_stream_meta(s, cols, n);

	if (!ret)
		ret = ksnap_stream_start_time(s, real_ns);
	if (!ret)
		ret = ksnap_stream_header(s, cols, n);
	return ret;
}

void ksnap_stream_stats_rows(struct ksnap_stream_stats *st,
			     uint64_t start_mono_ns, uint64_t last_t,
			     uint64_t rows, uint64_t lateness_sum,
			     uint64_t read_sum)
{
	st->cheap_last_collection_nanos = start_mono_ns + last_t;
	st->total_snapshots = rows;
	st->total_sleep_timing_error_nanos = lateness_sum;
	st->total_collection_timing_error_nanos = read_sum;
}

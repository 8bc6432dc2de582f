/* SPDX-License-Identifier: MIT */
/*
 * The gVisor profiling-metrics stream (docs/format.md): META, START_TIME,
 * the column header, rows, STATS and, in lossy mode, per-line checksums, a
 * "GVISOR_METRICS\t" prefix and the final ADLER32 line.  Lines are
 * formatted in place into a struct ksnap_out; the row path allocates
 * nothing.
 */
#ifndef KSNAP_STREAM_H
#define KSNAP_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "column.h"
#include "idpath.h"
#include "ksnap_abi.h"
#include "output.h"

#define KSNAP_LOSSY_PREFIX	"GVISOR_METRICS\t"

struct ksnap_stream {
	struct ksnap_out *out;
	bool lossy;
	unsigned long adler;	/* whole-stream Adler-32 (lossy) */
	bool adler_queued;	/* ksnap_stream_finish() formatted ADLER32 */
};

/* The STATS line: gVisor's CollectionStats plus ksnap's own figures. */
struct ksnap_stream_stats {
	uint64_t collection_rate_nanos;
	uint64_t cheap_start_nanos;
	uint64_t cheap_last_collection_nanos;
	uint64_t total_snapshots;
	uint64_t total_sleep_timing_error_nanos;
	uint64_t total_collection_timing_error_nanos;
	uint64_t num_backoff_sleeps;
	uint64_t total_backoff_sleep_nanos;
	uint64_t ksnap_snapshots_taken;
	uint64_t ksnap_snapshots_lost;
	uint64_t ksnap_periods_missed;
	/* Of those, skipped on purpose: the reads over their bound with no
	 * cgroup left to shed (the module's stats/thinned). */
	uint64_t ksnap_periods_thinned;
	uint64_t ksnap_max_lateness_nanos;
	uint64_t ksnap_max_read_nanos;
	/* The module's sums over every snapshot taken, lost ones included
	 * (the total_*_timing_error keys sum the rows written, which is
	 * what gVisor's reader divides by total_snapshots). */
	uint64_t ksnap_lateness_sum_nanos;
	uint64_t ksnap_read_sum_nanos;
	uint64_t ksnap_bad_tail;
	/* Pattern matches the module's column set had no room for, as of
	 * its last expansion (a start or a rescan). */
	uint64_t ksnap_cgroups_skipped;
	uint64_t ksnapd_rows_dropped;	/* read, not written: output full */
	uint64_t ksnapd_snapshots_overwritten;	/* overwrite mode */
	/* Records read past without a row: of a column set the module no
	 * longer names (ksnapd fell behind its set changes), or not of the
	 * stream's set. */
	uint64_t ksnapd_snapshots_skipped;
	/* Position ksnapd began at: snapshots an earlier reader read (a
	 * killed or restarted ksnapd), in another file.  Then taken =
	 * first_position + rows + lost + overwritten + dropped + skipped. */
	uint64_t ksnapd_first_position;
	/* Rows written to files before the last reopen (SIGHUP): this
	 * file holds total_snapshots - ksnapd_rows_in_earlier_files. */
	uint64_t ksnapd_rows_in_earlier_files;
	/* Closed files of the output ksnapd removed while this stream was
	 * written, and their bytes: --output-max-size, --output-max-age. */
	uint64_t ksnapd_files_removed;
	uint64_t ksnapd_bytes_removed;
	/* Exit records (docs/format.md "Exits"): dropped by the module, its
	 * queue full; taken from it but past what one STATS lists. */
	uint64_t ksnap_exits_lost;
	uint64_t ksnapd_exits_unlisted;
	/* The exit records this STATS lists ("ksnap_exits"), or none; and
	 * who each one's cgroup was (identity.h), in the same order, or
	 * none. */
	const struct ksnap_exit *exits;
	const struct ksnap_identity *exit_ids;
	uint32_t nr_exits;
	/* Who the cgroups of the stream's columns are ("ksnap_cgroups",
	 * docs/format.md "Names"): each a column's field value (the raw
	 * path) and its identity, those that have one, or none; those past
	 * a lossy line's budget are counted in ksnapd_cgroups_unnamed. */
	const char *const *name_paths;
	const struct ksnap_identity *name_ids;
	uint32_t nr_names;
	uint64_t ksnapd_cgroups_unnamed;
	/* Keys of the writer's own, after these (a flight recorder dump's
	 * window, flight.h), or none. */
	const struct ksnap_stats_extra *extra;
	uint32_t nr_extra;
};

struct ksnap_stats_extra {
	const char *name;	/* a JSON key: no character to escape */
	uint64_t value;
};

void ksnap_stream_init(struct ksnap_stream *s, struct ksnap_out *out,
		       bool lossy);
/* A new stream on the same output: restart the whole-stream checksum. */
void ksnap_stream_reset(struct ksnap_stream *s);

/* All functions return 0 or -errno (from flushing the output). */

/* One META line per metric, in order of first appearance in cols. */
int ksnap_stream_meta(struct ksnap_stream *s, const struct ksnap_column *cols,
		      uint32_t n);
int ksnap_stream_start_time(struct ksnap_stream *s, uint64_t real_ns);
int ksnap_stream_header(struct ksnap_stream *s,
			const struct ksnap_column *cols, uint32_t n);
/* What comes before the rows: META lines, START_TIME, the header. */
int ksnap_stream_begin(struct ksnap_stream *s, const struct ksnap_column *cols,
		       uint32_t n, uint64_t real_ns);
int ksnap_stream_row(struct ksnap_stream *s, uint64_t time_ns,
		     const __u64 *values, uint32_t n);
int ksnap_stream_stats(struct ksnap_stream *s,
		       const struct ksnap_stream_stats *st);
/*
 * The STATS figures of the rows a stream holds: the last one's time (ns
 * since start_mono_ns, the collection's start), their number, and the
 * sums of their lateness and read times (gVisor's reader divides them by
 * the rows' number).
 */
void ksnap_stream_stats_rows(struct ksnap_stream_stats *st,
			     uint64_t start_mono_ns, uint64_t last_t,
			     uint64_t rows, uint64_t lateness_sum,
			     uint64_t read_sum);
/*
 * Flush; in lossy mode also write the ADLER32 line as the last write.
 * After a failure it may be called again: the ADLER32 line is formatted
 * once, and the retry writes what is still buffered.
 */
int ksnap_stream_finish(struct ksnap_stream *s);

/*
 * Helpers, exposed for tests.  ksnap_json_string() writes a quoted JSON
 * string for the first len bytes of str (stopping at NUL): '"' '\\' and
 * control characters escaped, invalid UTF-8 replaced by U+FFFD.  It
 * writes at most KSNAP_JSON_MAX(len) bytes and returns the end.
 */
#define KSNAP_JSON_MAX(len)	(6 * (size_t)(len) + 2)
char *ksnap_json_string(char *p, const char *str, size_t len);
char *ksnap_put_u64(char *p, uint64_t v);

/*
 * A column's field value (a cgroup path) as the header names it,
 * name[value] (docs/format.md, "Columns"): a backslash doubled, and ','
 * '[' ']' tab, CR and newline as a backslash, 'x' and two hex digits, so
 * that a path the module matched by pattern cannot end the column's name
 * or split the header.
 * ksnap_put_value() writes at most KSNAP_VALUE_MAX(len) bytes and returns
 * the end; ksnap_unescape_value() undoes it into out (NUL-terminated, at
 * most size bytes with the NUL), leaving what is no escape as it is, and
 * returns the length.
 */
#define KSNAP_VALUE_MAX(len)	(4 * (size_t)(len))
char *ksnap_put_value(char *p, const char *v, size_t len);
size_t ksnap_unescape_value(char *out, size_t size, const char *in,
			    size_t len);
char *ksnap_put_hex(char *p, uint32_t v);

#endif /* KSNAP_STREAM_H */

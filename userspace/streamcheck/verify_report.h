/* SPDX-License-Identifier: MIT */
/*
 * The checker's report, ksnap-verify's and ksnap-plot's: from the
 * callbacks of a walk of the stream parser (verify_check.h), the
 * human-readable report of every finding and of each stream's STATS with
 * gVisor's warnings, and the counts of every stream.  ksnap-verify's run
 * over a whole buffer, with its TSV output, is verify/verify_run.h.
 */
#ifndef KSNAP_VERIFY_REPORT_H
#define KSNAP_VERIFY_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "verify_check.h"

struct ksnap_verify_opts {
	unsigned int tsv_stream;	/* ksnap-verify --tsv's stream (1-based;
					 * 0: none), verify_run.h */
	bool quiet;			/* only the summary, no per-line list */
};

struct ksnap_verify_result {
	int status;			/* KSNAP_VERIFY_* */
	bool lossy;
	unsigned int streams;
	uint64_t lines;			/* input lines */
	uint64_t foreign;		/* lines skipped as not ours */
	uint64_t rows;			/* intact rows, all streams */
	uint64_t rows_bad;		/* cut or damaged rows */
	uint64_t rows_missing;		/* by STATS' count */
	uint64_t dup_lines;		/* duplicate lines dropped */
	uint64_t bad_lines;		/* cut or damaged lines, rows included */
	uint64_t missing_lines;		/* non-row lines missing */
	bool sum_ok;			/* every lossy stream's ADLER32 matched */
};

/*
 * The report of a walk: init, then ksnap_report_begin, _finding and _end
 * called from the walker's own ksv_ops callbacks with the report as priv
 * (or set as them), then done with ksv_walk()'s return: the last words,
 * and the status.  The report keeps nothing per row.
 */
struct ksv_report {
	const struct ksnap_verify_opts *o;
	FILE *rep;			/* may be NULL */
	struct ksnap_verify_result *res;
	unsigned int gaps;		/* gaps listed in this stream */
};

void ksnap_report_init(struct ksv_report *r,
		       const struct ksnap_verify_opts *o, FILE *rep,
		       struct ksnap_verify_result *res);
int ksnap_report_begin(void *priv, const struct ksv_stream *s);
void ksnap_report_finding(void *priv, const struct ksv_stream *s,
			  const struct ksv_finding *f);
int ksnap_report_end(void *priv, const struct ksv_stream *s);
int ksnap_report_done(struct ksv_report *r, int ret,
		      const struct ksv_log *log);
/* The closing line of ksnap-verify's report: in_name, the verdict, the
 * counts of every stream. */
void ksnap_report_summary(FILE *rep, const char *in_name, int status,
			  const struct ksnap_verify_result *res);

#endif /* KSNAP_VERIFY_REPORT_H */

/* SPDX-License-Identifier: MIT */
/*
 * ksnap-verify's run: walk a whole log with the stream parser, write the
 * checker's report (verify_report.h), and optionally write one stream's
 * intact lines back out as a plain stream (verify_tsv.h).  Pure: reads a
 * buffer, writes to two FILEs, so the fuzz target calls it directly.
 */
#ifndef KSNAP_VERIFY_RUN_H
#define KSNAP_VERIFY_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "verify_report.h"
#include "verify_seq.h"

/*
 * Check the log in buf[0, len).  The report goes to rep (may be NULL);
 * when o->tsv_stream names a stream and tsv is not NULL, its intact lines
 * are written to tsv as a plain stream.  Returns res->status.
 */
int ksnap_verify(const char *buf, size_t len,
		 const struct ksnap_verify_opts *o, FILE *rep, FILE *tsv,
		 struct ksnap_verify_result *res);
/*
 * The same, and each stream checked added to seq (verify_seq.h) under
 * name, for the checks across the streams of several files.
 */
int ksnap_verify_seq(const char *buf, size_t len,
		     const struct ksnap_verify_opts *o, FILE *rep, FILE *tsv,
		     struct ksnap_verify_result *res, struct ksv_seq *seq,
		     const char *name);

#endif /* KSNAP_VERIFY_RUN_H */

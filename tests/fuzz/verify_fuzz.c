// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for ksnap-verify's parser: any bytes, both with and
 * without a TSV sink.  The parser must not crash, leak or trip ASan/UBSan,
 * and its result must be consistent with its status.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "verify_report.h"

static FILE *null_out;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksnap_verify_opts o = { .tsv_stream = 1 };
	struct ksnap_verify_result r;
	int status;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	status = ksnap_verify((const char *)data, size, &o, null_out,
			      null_out, &r);
	if (status != r.status || status < KSNAP_VERIFY_INTACT ||
	    status > KSNAP_VERIFY_UNUSABLE)
		abort();
	/* Intact means nothing was found wrong. */
	if (status == KSNAP_VERIFY_INTACT &&
	    (r.bad_lines || r.dup_lines || r.rows_missing ||
	     r.missing_lines || !r.sum_ok || !r.streams))
		abort();
	o.quiet = true;
	o.tsv_stream = 2;
	ksnap_verify((const char *)data, size, &o, NULL, NULL, &r);
	return 0;
}

// SPDX-License-Identifier: MIT
/* ksnap-verify's run over a whole log (verify_run.h). */
#include "msg.h"
#include "verify_check.h"
#include "verify_report.h"
#include "verify_run.h"
#include "verify_tsv.h"

struct run {
	struct ksv_report rep;
	FILE *tsv;
	struct ksv_seq *seq;	/* or NULL */
	const char *name;
};

/* The report's end of a stream, then its lines as TSV if it is the one. */
static int end(void *priv, const struct ksv_stream *s)
{
	const struct ksv_info *i = ksv_stream_info(s);
	struct run *r = priv;
	int ret = ksnap_report_end(&r->rep, s);

	if (!ret && r->tsv && r->rep.o->tsv_stream == i->no && i->has_header)
		ret = ksv_write_tsv(s, r->tsv);
	if (!ret && r->seq)
		ret = ksv_seq_add(r->seq, r->name, s);
	return ret;
}

int ksnap_verify(const char *buf, size_t len,
		 const struct ksnap_verify_opts *o, FILE *rep, FILE *tsv,
		 struct ksnap_verify_result *res)
{
	return ksnap_verify_seq(buf, len, o, rep, tsv, res, NULL, NULL);
}

int ksnap_verify_seq(const char *buf, size_t len,
		     const struct ksnap_verify_opts *o, FILE *rep, FILE *tsv,
		     struct ksnap_verify_result *res, struct ksv_seq *seq,
		     const char *name)
{
	struct run r = { .tsv = tsv, .seq = seq, .name = name };
	const struct ksv_ops ops = {
		.priv = &r, .begin = ksnap_report_begin,
		.finding = ksnap_report_finding, .end = end,
	};
	struct ksv_log log;
	int ret, status;

	ksnap_report_init(&r.rep, o, rep, res);
	ret = ksv_walk(buf, len, &ops, &log);
	if (!ret && o->tsv_stream > res->streams && tsv)
		ksnap_say(rep, false, "no stream %u to write as TSV (%u "
			  "found)\n", o->tsv_stream, res->streams);
	status = ksnap_report_done(&r.rep, ret, &log);
	return status;
}

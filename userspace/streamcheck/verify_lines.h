/* SPDX-License-Identifier: MIT */
/*
 * The checks of one stream line at a time: its type, its place, a
 * duplicate, a row's time order; findings through ksv_emit().
 */
#ifndef KSNAP_VERIFY_LINES_H
#define KSNAP_VERIFY_LINES_H

#include "verify_lex.h"
#include "verify_stream.h"

/* One stream line; -ENOMEM. */
int ksv_check_line(struct ksv_stream *s, struct ksv_line *l);
/* Report the run of duplicates collected so far, if any. */
void ksv_flush_dups(struct ksv_stream *s);

#endif /* KSNAP_VERIFY_LINES_H */

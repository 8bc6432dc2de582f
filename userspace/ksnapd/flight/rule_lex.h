/* SPDX-License-Identifier: MIT */
/*
 * The tokens of a trigger rule (rule.h has the grammar).  A number keeps
 * the letters that follow it with no space ("100MiB", "200ms", "5m") as
 * its suffix, for the parser to read as a multiple or a duration by
 * where it stands.  A column name is letters, digits, '_' and '.', then
 * maybe "[...]" (a field value, which may hold anything but ']').
 */
#ifndef KSNAPD_RULE_LEX_H
#define KSNAPD_RULE_LEX_H

#include <stdbool.h>

enum rule_tok {
	TOK_END, TOK_NUM, TOK_IDENT, TOK_LP, TOK_RP, TOK_COMMA, TOK_PLUS,
	TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_PCT, TOK_LT, TOK_LE, TOK_GT,
	TOK_GE, TOK_EQ, TOK_NE, TOK_COLON, TOK_BAD,
};

struct rule_token {
	enum rule_tok kind;
	unsigned int pos, len;	/* in the text, suffix included */
	double num;		/* TOK_NUM */
	unsigned int suffix;	/* TOK_NUM: offset of the suffix in text */
	unsigned int suffix_len;
};

/* The token at text + pos (blanks skipped). */
void rule_lex(const char *text, unsigned int pos, struct rule_token *t);

/* Is the token the identifier word? */
bool rule_tok_is(const char *text, const struct rule_token *t,
		 const char *word);

/* Is the token's suffix exactly s? */
bool rule_suffix_is(const char *text, const struct rule_token *t,
		    const char *s);

/* ns in one unit of the duration suffix ("us" ... "h"), or 0. */
unsigned long long rule_duration_unit(const char *text,
				      const struct rule_token *t);

#endif /* KSNAPD_RULE_LEX_H */

// SPDX-License-Identifier: MIT
/* The tokens of a trigger rule (rule_lex.h). */
#include <ctype.h>
#include <string.h>

#include "rule_lex.h"

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* digits [. digits], then the letters of a suffix. */
static void lex_number(const char *s, unsigned int pos, struct rule_token *t)
{
	unsigned int i = pos;
	double v = 0, scale = 1;

	while (isdigit((unsigned char)s[i]))
		v = v * 10 + (s[i++] - '0');
	if (s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
		i++;
		while (isdigit((unsigned char)s[i])) {
			scale /= 10;
			v += (s[i++] - '0') * scale;
		}
	}
	t->kind = TOK_NUM;
	t->num = v;
	t->suffix = i;
	while (isalpha((unsigned char)s[i]))
		i++;
	t->suffix_len = i - t->suffix;
	t->len = i - pos;
}

/* name, then maybe [value] */
static void lex_ident(const char *s, unsigned int pos, struct rule_token *t)
{
	unsigned int i = pos;
	const char *close;

	while (ident_char(s[i]))
		i++;
	if (s[i] == '[') {
		close = strchr(s + i, ']');
		if (!close) {
			t->kind = TOK_BAD;
			t->len = (unsigned int)strlen(s + pos);
			return;
		}
		i = (unsigned int)(close - s) + 1;
	}
	t->kind = TOK_IDENT;
	t->len = i - pos;
}

/* One or two characters: operators and punctuation. */
static enum rule_tok lex_op(const char *s, unsigned int *len)
{
	static const struct { const char *op; enum rule_tok k; } ops[] = {
		{ "<=", TOK_LE }, { ">=", TOK_GE }, { "==", TOK_EQ },
		{ "!=", TOK_NE }, { "<", TOK_LT }, { ">", TOK_GT },
		{ "(", TOK_LP }, { ")", TOK_RP }, { ",", TOK_COMMA },
		{ "+", TOK_PLUS }, { "-", TOK_MINUS }, { "*", TOK_STAR },
		{ "/", TOK_SLASH }, { "%", TOK_PCT }, { ":", TOK_COLON },
	};
	size_t i, n;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		n = strlen(ops[i].op);
		if (!strncmp(s, ops[i].op, n)) {
			*len = (unsigned int)n;
			return ops[i].k;
		}
	}
	*len = 1;
	return TOK_BAD;
}

void rule_lex(const char *text, unsigned int pos, struct rule_token *t)
{
	memset(t, 0, sizeof(*t));
	while (text[pos] == ' ' || text[pos] == '\t')
		pos++;
	t->pos = pos;
	if (!text[pos])
		t->kind = TOK_END;
	else if (isdigit((unsigned char)text[pos]) ||
		 (text[pos] == '.' && isdigit((unsigned char)text[pos + 1])))
		lex_number(text, pos, t);
	else if (ident_start(text[pos]))
		lex_ident(text, pos, t);
	else
		t->kind = lex_op(text + pos, &t->len);
}

bool rule_tok_is(const char *text, const struct rule_token *t,
		 const char *word)
{
	return t->kind == TOK_IDENT && strlen(word) == t->len &&
	       !strncmp(text + t->pos, word, t->len);
}

bool rule_suffix_is(const char *text, const struct rule_token *t,
		    const char *s)
{
	return strlen(s) == t->suffix_len &&
	       !strncmp(text + t->suffix, s, t->suffix_len);
}

unsigned long long rule_duration_unit(const char *text,
				      const struct rule_token *t)
{
	static const struct { const char *s; unsigned long long ns; } u[] = {
		{ "us", 1000ULL }, { "ms", 1000000ULL },
		{ "s", 1000000000ULL }, { "m", 60000000000ULL },
		{ "h", 3600000000000ULL },
	};
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (rule_suffix_is(text, t, u[i].s))
			return u[i].ns;
	return 0;
}

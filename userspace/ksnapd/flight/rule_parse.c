// SPDX-License-Identifier: MIT
/* Trigger rules: the text to nodes (rule.h has the grammar). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rule.h"
#include "rule_lex.h"

#define VALUE_EXPECTED	"a value (a number, a column, rate(), avg() or '(')"

struct parser {
	struct rule *r;
	const char *s;		/* r->text */
	struct rule_token tok;	/* the current token */
	struct rule_error *e;
	bool failed;
};

static void next(struct parser *p)
{
	rule_lex(p->s, p->tok.pos + p->tok.len, &p->tok);
}

static int error_at(struct parser *p, unsigned int pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The first error is the one said; returns -1 (no node). */
static int error_at(struct parser *p, unsigned int pos, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = true;
	p->e->pos = pos;
	va_start(ap, fmt);
	vsnprintf(p->e->msg, sizeof(p->e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* "expected WHAT, found 'token'" at the current token. */
static int expected(struct parser *p, const char *what)
{
	if (p->tok.kind == TOK_END)
		return error_at(p, p->tok.pos, "expected %s, found the end of "
				"the rule", what);
	return error_at(p, p->tok.pos, "expected %s, found '%.*s'", what,
			(int)p->tok.len, p->s + p->tok.pos);
}

static int node(struct parser *p, enum rule_op op, int a, int b,
		unsigned int pos, unsigned int end)
{
	struct rule *r = p->r;
	struct rule_node *n;

	if (p->failed)
		return -1;
	if (r->nr_nodes == RULE_MAX_NODES)
		return error_at(p, pos, "the condition is too long: at most "
				"%d terms", RULE_MAX_NODES);
	n = &r->node[r->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->a = (int16_t)a;
	n->b = (int16_t)b;
	n->pos = (uint16_t)pos;
	n->len = (uint16_t)(end - pos);
	n->win = -1;
	return r->nr_nodes++;
}

static unsigned int end_of(const struct parser *p, int i)
{
	return p->r->node[i].pos + p->r->node[i].len;
}

static bool is_bool(const struct parser *p, int i)
{
	enum rule_op op = p->r->node[i].op;

	return op >= RULE_LT && op <= RULE_OR;
}

static bool is_keyword(const struct parser *p)
{
	static const char *const words[] = {
		"and", "or", "for", "cooldown", "pre", "post",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (rule_tok_is(p->s, &p->tok, words[i]))
			return true;
	return false;
}

/* A value's operands must be values; and/or's, conditions. */
static int want_value(struct parser *p, int i)
{
	if (i >= 0 && is_bool(p, i))
		return error_at(p, p->r->node[i].pos, "expected a value, found "
				"the condition '%.*s'", (int)p->r->node[i].len,
				p->s + p->r->node[i].pos);
	return i;
}

static int want_cond(struct parser *p, int i)
{
	if (i >= 0 && !is_bool(p, i))
		return error_at(p, p->r->node[i].pos, "expected a comparison "
				"(<, <=, >, >=, ==, !=), found the value "
				"'%.*s'", (int)p->r->node[i].len,
				p->s + p->r->node[i].pos);
	return i;
}

/* A duration at the current token, into *ns (0 allowed when zero_ok). */
static int duration(struct parser *p, uint64_t *ns, bool zero_ok)
{
	unsigned long long unit = rule_duration_unit(p->s, &p->tok);
	double v = p->tok.num * (double)unit;

	if (p->tok.kind != TOK_NUM ||
	    (!unit && !(p->tok.suffix_len == 0 && p->tok.num == 0)))
		return expected(p, "a duration (a number with us, ms, s, m "
				"or h)");
	if ((!zero_ok && v < 1) || v > (double)RULE_MAX_WINDOW_NS)
		return error_at(p, p->tok.pos, "expected a duration %s 1h, "
				"found '%.*s'", zero_ok ? "of at most" :
				"above 0 and at most", (int)p->tok.len,
				p->s + p->tok.pos);
	*ns = (uint64_t)v;
	next(p);
	return 0;
}

static int parse_or(struct parser *p);
static int parse_sum(struct parser *p);
static int parse_primary(struct parser *p);

/* A number's multiple: k M G (1000s), KiB MiB GiB (1024s), or none. */
static int number_value(struct parser *p, double *v)
{
	static const struct { const char *s; double m; } mult[] = {
		{ "", 1 }, { "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 },
		{ "KiB", 1024.0 }, { "MiB", 1048576.0 },
		{ "GiB", 1073741824.0 },
	};
	size_t i;

	for (i = 0; i < sizeof(mult) / sizeof(mult[0]); i++)
		if (rule_suffix_is(p->s, &p->tok, mult[i].s)) {
			*v = p->tok.num * mult[i].m;
			return 0;
		}
	return error_at(p, p->tok.suffix, "expected a number with k, M, G, "
			"KiB, MiB or GiB, found '%.*s'", (int)p->tok.len,
			p->s + p->tok.pos);
}

/* Can the current token begin a value ("90% memory.max")? */
static bool starts_value(struct parser *p)
{
	return p->tok.kind == TOK_NUM || p->tok.kind == TOK_LP ||
	       (p->tok.kind == TOK_IDENT && !is_keyword(p));
}

/* After "N/": a time unit makes N a rate per second ("5000/s"). */
static bool per_time(struct parser *p, double *v)
{
	struct rule_token unit;
	unsigned long long ns;

	if (p->tok.kind != TOK_SLASH)
		return false;
	rule_lex(p->s, p->tok.pos + p->tok.len, &unit);
	if (unit.kind != TOK_IDENT)
		return false;
	unit.suffix = unit.pos;
	unit.suffix_len = unit.len;
	ns = rule_duration_unit(p->s, &unit);
	if (!ns)
		return false;
	*v = *v * 1e9 / (double)ns;
	p->tok = unit;
	next(p);
	return true;
}

/* NUMBER, "N%", "N% value", "N/s". */
static int parse_number(struct parser *p)
{
	unsigned int pos = p->tok.pos, end = pos + p->tok.len;
	double v = 0;
	int k, x;

	if (number_value(p, &v))
		return -1;
	next(p);
	if (per_time(p, &v)) {
		end = p->tok.pos;
	} else if (p->tok.kind == TOK_PCT) {
		v /= 100;
		end = p->tok.pos + 1;
		next(p);
		if (starts_value(p)) {
			k = node(p, RULE_CONST, -1, -1, pos, end);
			if (k >= 0)
				p->r->node[k].k = v;
			x = want_value(p, parse_primary(p));
			return x < 0 ? -1 : node(p, RULE_MUL, k, x, pos,
						 end_of(p, x));
		}
	}
	k = node(p, RULE_CONST, -1, -1, pos, end);
	if (k >= 0)
		p->r->node[k].k = v;
	return k;
}

/* rate(X[, D]) and avg(X, D); the current token is '('. */
static int parse_window(struct parser *p, enum rule_op op, unsigned int pos)
{
	uint64_t w = RULE_DEFAULT_RATE_NS;
	int x, n;

	next(p);
	x = want_value(p, parse_sum(p));
	if (x < 0)
		return -1;
	if (p->tok.kind == TOK_COMMA) {
		next(p);
		if (duration(p, &w, false))
			return -1;
	} else if (op == RULE_AVG) {
		return expected(p, "',' and the window of avg() (a duration)");
	}
	if (p->tok.kind != TOK_RP)
		return expected(p, op == RULE_AVG ? "')'" :
				"',' and a window, or ')'");
	if (p->r->nr_windows == RULE_MAX_WINDOWS)
		return error_at(p, pos, "too many rate() and avg(): at most %d",
				RULE_MAX_WINDOWS);
	n = node(p, op, x, -1, pos, p->tok.pos + 1);
	next(p);
	if (n >= 0) {
		p->r->node[n].window_ns = w;
		p->r->node[n].win = (int8_t)p->r->nr_windows++;
	}
	return n;
}

/* A column, rate(...), avg(...) */
static int parse_ident(struct parser *p)
{
	unsigned int pos = p->tok.pos, end = pos + p->tok.len;
	bool rate = rule_tok_is(p->s, &p->tok, "rate");
	bool avg = rule_tok_is(p->s, &p->tok, "avg");

	if (is_keyword(p))
		return expected(p, VALUE_EXPECTED);
	next(p);
	if ((rate || avg) && p->tok.kind == TOK_LP)
		return parse_window(p, rate ? RULE_RATE : RULE_AVG, pos);
	return node(p, RULE_COL, -1, -1, pos, end);
}

static int parse_primary(struct parser *p)
{
	unsigned int pos = p->tok.pos;
	int x;

	switch (p->tok.kind) {
	case TOK_NUM:
		return parse_number(p);
	case TOK_IDENT:
		return parse_ident(p);
	case TOK_LP:
		next(p);
		x = parse_or(p);
		if (x < 0)
			return -1;
		if (p->tok.kind != TOK_RP)
			return expected(p, "')'");
		next(p);
		/* The parentheses belong to the node's text. */
		p->r->node[x].len = (uint16_t)(p->tok.pos - pos);
		p->r->node[x].pos = (uint16_t)pos;
		return x;
	case TOK_BAD:
		/* lex_ident(): a '[' with no ']' after it. */
		if (p->tok.len > 1)
			return error_at(p, pos, "expected ']' to close the "
					"column's field value");
		break;
	default:
		break;
	}
	return expected(p, VALUE_EXPECTED);
}

static int parse_unary(struct parser *p)
{
	unsigned int pos = p->tok.pos;
	int x;

	if (p->tok.kind != TOK_MINUS)
		return parse_primary(p);
	next(p);
	x = want_value(p, parse_unary(p));
	return x < 0 ? -1 : node(p, RULE_NEG, x, -1, pos, end_of(p, x));
}

/* Left-associative binary operators of one level. */
static int binary(struct parser *p, int (*sub)(struct parser *),
		  const enum rule_tok *toks, const enum rule_op *ops,
		  int n, bool cond)
{
	int a = sub(p), b, i;

	while (a >= 0) {
		for (i = 0; i < n && p->tok.kind != toks[i]; i++)
			;
		if (i == n)
			break;
		next(p);
		b = sub(p);
		a = cond ? want_cond(p, a) : want_value(p, a);
		b = cond ? want_cond(p, b) : want_value(p, b);
		if (a < 0 || b < 0)
			return -1;
		a = node(p, ops[i], a, b, p->r->node[a].pos, end_of(p, b));
	}
	return a;
}

static int parse_term(struct parser *p)
{
	static const enum rule_tok t[] = { TOK_STAR, TOK_SLASH };
	static const enum rule_op o[] = { RULE_MUL, RULE_DIV };

	return binary(p, parse_unary, t, o, 2, false);
}

static int parse_sum(struct parser *p)
{
	static const enum rule_tok t[] = { TOK_PLUS, TOK_MINUS };
	static const enum rule_op o[] = { RULE_ADD, RULE_SUB };

	return binary(p, parse_term, t, o, 2, false);
}

static int parse_cmp(struct parser *p)
{
	static const enum rule_tok t[] = { TOK_LT, TOK_LE, TOK_GT, TOK_GE,
					   TOK_EQ, TOK_NE };
	static const enum rule_op o[] = { RULE_LT, RULE_LE, RULE_GT, RULE_GE,
					  RULE_EQ, RULE_NE };
	int a = parse_sum(p), b, i;

	for (i = 0; i < 6 && a >= 0 && p->tok.kind != t[i]; i++)
		;
	if (a < 0 || i == 6)
		return a;
	next(p);
	b = want_value(p, parse_sum(p));
	a = want_value(p, a);
	if (a < 0 || b < 0)
		return -1;
	return node(p, o[i], a, b, p->r->node[a].pos, end_of(p, b));
}

/* "and" and "or" are words: binary() matches token kinds. */
static int parse_words(struct parser *p, const char *word,
		       int (*sub)(struct parser *), enum rule_op op)
{
	int a = sub(p), b;

	while (a >= 0 && rule_tok_is(p->s, &p->tok, word)) {
		next(p);
		b = want_cond(p, sub(p));
		a = want_cond(p, a);
		if (a < 0 || b < 0)
			return -1;
		a = node(p, op, a, b, p->r->node[a].pos, end_of(p, b));
	}
	return a;
}

static int parse_and(struct parser *p)
{
	return parse_words(p, "and", parse_cmp, RULE_AND);
}

static int parse_or(struct parser *p)
{
	return parse_words(p, "or", parse_and, RULE_OR);
}

/* "NAME:" at the start, if there is one. */
static int parse_name(struct parser *p, unsigned int index)
{
	struct rule_token colon;
	unsigned int i;

	snprintf(p->r->name, sizeof(p->r->name), "rule%u", index);
	if (p->tok.kind != TOK_IDENT)
		return 0;
	rule_lex(p->s, p->tok.pos + p->tok.len, &colon);
	if (colon.kind != TOK_COLON)
		return 0;
	for (i = 0; i < p->tok.len; i++) {
		char c = p->s[p->tok.pos + i];

		if (!(c == '_' || c == '-' || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			return error_at(p, p->tok.pos + i, "expected a rule name "
					"of letters, digits, '_' and '-'");
	}
	if (p->tok.len >= RULE_NAME_MAX)
		return error_at(p, p->tok.pos, "expected a rule name of at "
				"most %d characters", RULE_NAME_MAX - 1);
	memcpy(p->r->name, p->s + p->tok.pos, p->tok.len);
	p->r->name[p->tok.len] = '\0';
	p->tok = colon;
	next(p);
	return 0;
}

/* for / cooldown / pre / post, each at most once, in any order. */
static int parse_clauses(struct parser *p)
{
	static const char *const words[] = { "for", "cooldown", "pre", "post" };
	uint64_t *field[] = { &p->r->for_ns, &p->r->cooldown_ns,
			      &p->r->pre_ns, &p->r->post_ns };
	bool seen[4] = { false };
	size_t i;

	while (!p->failed && p->tok.kind != TOK_END) {
		for (i = 0; i < 4 && !rule_tok_is(p->s, &p->tok, words[i]); i++)
			;
		if (i == 4)
			return expected(p, "'and', 'or', an operator, 'for', "
					"'cooldown', 'pre', 'post' or the end "
					"of the rule");
		if (seen[i])
			return error_at(p, p->tok.pos, "'%s' given twice",
					words[i]);
		seen[i] = true;
		next(p);
		if (duration(p, field[i], true))
			return -1;
	}
	return p->failed ? -1 : 0;
}

int rule_parse(struct rule *r, const char *text, unsigned int index,
	       struct rule_error *e)
{
	struct parser p = { .r = r, .s = r->text, .e = e };

	memset(r, 0, sizeof(*r));
	memset(e, 0, sizeof(*e));
	snprintf(r->name, sizeof(r->name), "rule%u", index);
	if (strlen(text) >= sizeof(r->text)) {
		snprintf(e->msg, sizeof(e->msg), "the rule is longer than %zu "
			 "characters", sizeof(r->text) - 1);
		return -EINVAL;
	}
	strcpy(r->text, text);
	r->cooldown_ns = RULE_DEFAULT_COOLDOWN_NS;
	r->pre_ns = RULE_DEFAULT_PRE_NS;
	r->post_ns = RULE_DEFAULT_POST_NS;
	rule_lex(r->text, 0, &p.tok);
	if (parse_name(&p, index))
		return -EINVAL;
	r->root = want_cond(&p, parse_or(&p));
	if (r->root < 0 || parse_clauses(&p))
		return -EINVAL;
	return 0;
}

void rule_format_error(char *buf, size_t size, const struct rule *r,
		       const char *text, const struct rule_error *e)
{
	snprintf(buf, size, "rule %s: position %u: %s\n  %s\n  %*s^\n",
		 r->name, e->pos + 1, e->msg, text, (int)e->pos, "");
}

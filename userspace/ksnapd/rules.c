// SPDX-License-Identifier: MIT
/* ksnapd's rules as given: --trigger and --rules FILE (rules.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define MESSAGE_MAX	(3 * RULE_TEXT_MAX + 512)

static int grow(struct rules *rs)
{
	struct rule *r;
	char (*from)[64];

	r = realloc(rs->rule, (rs->n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	rs->rule = r;
	from = realloc(rs->from, (rs->n + 1) * sizeof(*from));
	if (!from)
		return -ENOMEM;
	rs->from = from;
	return 0;
}

int rules_add(struct rules *rs, const char *text, const char *from,
	      FILE *log)
{
	struct rule_error e;
	char msg[MESSAGE_MAX];
	int ret;

	if (rs->n == RULES_MAX) {
		fprintf(log, "ksnapd: %s: more than %d rules\n", from,
			RULES_MAX);
		return -E2BIG;
	}
	ret = grow(rs);
	if (ret) {
		fprintf(log, "ksnapd: %s: %s\n", from, strerror(-ret));
		return ret;
	}
	snprintf(rs->from[rs->n], sizeof(rs->from[rs->n]), "%s", from);
	ret = rule_parse(&rs->rule[rs->n], text, rs->n + 1, &e);
	if (ret) {
		rule_format_error(msg, sizeof(msg), &rs->rule[rs->n], text, &e);
		fprintf(log, "ksnapd: %s: %s", from, msg);
		return ret;
	}
	rs->n++;
	return 0;
}

/* A line of the file without its comment and trailing blanks. */
static char *strip(char *line)
{
	char *p = line, *hash;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '#')
		return p + strlen(p);
	hash = strstr(p, " #");
	if (!hash)
		hash = strstr(p, "\t#");
	if (hash)
		*hash = '\0';
	n = strlen(p);
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' ||
		     p[n - 1] == ' ' || p[n - 1] == '\t'))
		p[--n] = '\0';
	return p;
}

int rules_load(struct rules *rs, const char *path, FILE *log)
{
	char line[RULE_TEXT_MAX + 64], from[64], *text;
	unsigned int no = 0;
	FILE *f;
	int ret = 0;

	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		fprintf(log, "ksnapd: --rules %s: %s\n", path, strerror(-ret));
		return ret;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		no++;
		text = strip(line);
		if (!*text)
			continue;
		snprintf(from, sizeof(from), "%.48s:%u", path, no);
		ret = rules_add(rs, text, from, log);
	}
	fclose(f);
	return ret;
}

int rules_check(struct rules *rs, const struct ksnap_column *cols,
		uint32_t n, FILE *log)
{
	struct rule_error e;
	char msg[MESSAGE_MAX];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < rs->n; i++) {
		/* A rule on exits has no column of the rows to bind to. */
		int err = rule_is_exit(&rs->rule[i]) ?
			  rule_exit_check(&rs->rule[i], &e) :
			  rule_bind(&rs->rule[i], cols, n, &e);

		if (!err)
			continue;
		/* cgroups come and go: a pattern may match later. */
		if (err == -ENOENT && rule_has_pattern(&rs->rule[i])) {
			fprintf(log, "ksnapd: %s: rule %s: %s: it fires for "
				"the cgroups that match from the collection "
				"that has them\n", rs->from[i],
				rs->rule[i].name, e.msg);
			continue;
		}
		rule_format_error(msg, sizeof(msg), &rs->rule[i],
				  rs->rule[i].text, &e);
		fprintf(log, "ksnapd: %s: %s", rs->from[i], msg);
		ret = -EINVAL;
	}
	return ret;
}

void rules_free(struct rules *rs)
{
	free(rs->rule);
	free(rs->from);
	memset(rs, 0, sizeof(*rs));
}

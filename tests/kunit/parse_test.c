// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ksnap_parse: metric-list and cgroup-list parsing, compiled
 * into this module from kmod/parse.c.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../kmod/parse.c"

/* A buffer the parser may modify, freed with the test. */
static char *ksnap_test_buf(struct kunit *test, const char *s)
{
	char *buf = kunit_kzalloc(test, strlen(s) + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	strcpy(buf, s);
	return buf;
}

struct ksnap_list_case {
	const char *name;
	const char *in;
	int ret;
	unsigned int nr;
	const char *item[3];	/* expected items, or the bad one */
};

static const struct ksnap_list_case ksnap_list_cases[] = {
	{ "one", "pgfault", 0, 1, { "pgfault" } },
	{ "three", "a,b,c", 0, 3, { "a", "b", "c" } },
	{ "blanks around entries", " a ,\tb\t,  c ", 0, 3, { "a", "b", "c" } },
	{ "trailing newline", "a,b\n", 0, 2, { "a", "b" } },
	{ "empty", "", 0, 0 },
	{ "only a newline", "\n", 0, 0 },
	{ "only blanks", " \t ", 0, 0 },
	{ "leading comma", ",a", -EINVAL },
	{ "doubled comma", "a,,b", -EINVAL },
	{ "blank entry", "a, ,b", -EINVAL },
	{ "trailing comma", "a,b,", -EINVAL },
	{ "trailing comma and newline", "a,\n", -EINVAL },
	{ "lone comma", ",", -EINVAL },
	{ "duplicate", "a,b,a", -EINVAL, 0, { "a" } },
	{ "duplicate after trimming", "a, a", -EINVAL, 0, { "a" } },
	{ "blank inside", "a b", -EINVAL, 0, { "a b" } },
	{ "non-ASCII", "caf\xc3\xa9", -EINVAL, 0, { "caf\xc3\xa9" } },
	{ "control character", "a\x01", -EINVAL, 0, { "a\x01" } },
	{ "DEL", "b\x7f", -EINVAL, 0, { "b\x7f" } },
	{ "two newlines", "a\n\n", -EINVAL, 0, { "a\n" } },
	{ "63 characters", "123456789012345678901234567890123456789012345678901234567890123",
	  0, 1, { "123456789012345678901234567890123456789012345678901234567890123" } },
	{ "64 characters", "1234567890123456789012345678901234567890123456789012345678901234",
	  -EINVAL, 0, { "1234567890123456789012345678901234567890123456789012345678901234" } },
};

static void ksnap_list_case_desc(const struct ksnap_list_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_list, ksnap_list_cases, ksnap_list_case_desc);

static void ksnap_parse_list_cases(struct kunit *test)
{
	const struct ksnap_list_case *c = test->param_value;
	struct ksnap_parse_err err = {};
	struct ksnap_list *list;
	unsigned int i;
	int ret;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	ret = ksnap_parse_list(ksnap_test_buf(test, c->in),
			       KSNAP_METRIC_NAME_MAX, list, &err);
	KUNIT_ASSERT_EQ_MSG(test, ret, c->ret, "parsing '%*pE'",
			    (int)strlen(c->in), c->in);
	if (ret) {
		KUNIT_EXPECT_NOT_NULL_MSG(test, err.why, "no reason given");
		if (c->item[0])
			KUNIT_EXPECT_TRUE_MSG(test,
					      err.bad_len == strlen(c->item[0]) &&
					      !memcmp(err.bad, c->item[0],
						      err.bad_len),
					      "bad entry: expected '%*pE', got '%*pE'",
					      (int)strlen(c->item[0]),
					      c->item[0], err.bad_len,
					      err.bad);
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test, list->nr, c->nr, "entries in '%*pE'",
			    (int)strlen(c->in), c->in);
	for (i = 0; i < list->nr; i++)
		KUNIT_EXPECT_STREQ_MSG(test, list->item[i], c->item[i],
				       "entry %u", i);
}

/* "m0,m1,...": @n distinct entries. */
static char *ksnap_test_many(struct kunit *test, unsigned int n)
{
	char *buf = kunit_kzalloc(test, n * 6 + 1, GFP_KERNEL);
	unsigned int i, len = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	for (i = 0; i < n; i++)
		len += sprintf(buf + len, "%sm%u", i ? "," : "", i);
	return buf;
}

static void ksnap_parse_list_count(struct kunit *test)
{
	struct ksnap_parse_err err = {};
	struct ksnap_list *list;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	KUNIT_EXPECT_EQ_MSG(test,
			    ksnap_parse_list(ksnap_test_many(test,
							     KSNAP_LIST_MAX),
					     16, list, &err), 0,
			    "%u entries are allowed", KSNAP_LIST_MAX);
	KUNIT_EXPECT_EQ(test, list->nr, KSNAP_LIST_MAX);
	KUNIT_EXPECT_EQ_MSG(test,
			    ksnap_parse_list(ksnap_test_many(test,
							     KSNAP_LIST_MAX + 1),
					     16, list, &err), -EINVAL,
			    "%u entries are too many", KSNAP_LIST_MAX + 1);
}

static const char *const ksnap_test_names[] = {
	"pgfault", "pgmajfault", "nr_free_pages", "memory.current",
};

static int ksnap_test_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ksnap_test_names); i++)
		if (!strcmp(ksnap_test_names[i], name))
			return i;
	return -ENOENT;
}

/*
 * Groups: "even" has the even metrics, "mem" 3 (two columns), "big" all
 * (a hundred columns each), "one" all (one column each).
 */
static const char *const ksnap_test_groups[] = { "even", "mem", "big", "one" };

static int ksnap_test_group(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ksnap_test_groups); i++)
		if (!strcmp(ksnap_test_groups[i], name))
			return i;
	return -ENOENT;
}

static unsigned int ksnap_test_member(void *ctx, unsigned int group,
				      unsigned int idx)
{
	switch (group) {
	case 0:
		return idx % 2 == 0;
	case 1:
		return idx == 3 ? 2 : 0;
	case 2:
		return 100;
	default:
		return 1;
	}
}

static void ksnap_parse_metrics_known(struct kunit *test)
{
	struct ksnap_parse_err err = {};
	struct ksnap_list *list;
	u16 *idx = kunit_kcalloc(test, KSNAP_LIST_MAX, sizeof(*idx),
				 GFP_KERNEL);
	s16 *sel = kunit_kcalloc(test, KSNAP_LIST_MAX, sizeof(*sel),
				 GFP_KERNEL);
	char *buf;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, idx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sel);
	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	KUNIT_ASSERT_EQ(test,
			ksnap_parse_metrics(ksnap_test_buf(test, "memory.current, pgfault\n"),
					    ksnap_test_lookup, ksnap_test_group,
					    list, idx, sel, &err), 0);
	KUNIT_ASSERT_EQ(test, list->nr, 2U);
	KUNIT_EXPECT_EQ_MSG(test, idx[0], 3, "index of memory.current");
	KUNIT_EXPECT_EQ_MSG(test, idx[1], 0, "index of pgfault");
	KUNIT_EXPECT_EQ(test, sel[0], KSNAP_SEL_NONE);
	KUNIT_EXPECT_EQ(test, sel[1], KSNAP_SEL_NONE);

	buf = ksnap_test_buf(test, "pgfault[cpu],pgmajfault[3],pgmajfault[0]");
	KUNIT_ASSERT_EQ(test, ksnap_parse_metrics(buf, ksnap_test_lookup,
						  ksnap_test_group, list,
						  idx, sel, &err), 0);
	KUNIT_ASSERT_EQ(test, list->nr, 3U);
	KUNIT_EXPECT_EQ(test, idx[0], 0);
	KUNIT_EXPECT_EQ(test, sel[0], KSNAP_SEL_EACH_CPU);
	KUNIT_EXPECT_EQ_MSG(test, idx[1], 1, "two CPUs of one metric");
	KUNIT_EXPECT_EQ(test, sel[1], 3);
	KUNIT_EXPECT_EQ(test, idx[2], 1);
	KUNIT_EXPECT_EQ(test, sel[2], 0);
	KUNIT_EXPECT_STREQ_MSG(test, list->item[0], "pgfault[cpu]",
			       "the entry keeps its selector");

	KUNIT_EXPECT_EQ(test,
			ksnap_parse_metrics(ksnap_test_buf(test, ""),
					    ksnap_test_lookup, ksnap_test_group,
					    list, idx, sel, &err), 0);
	KUNIT_EXPECT_EQ_MSG(test, list->nr, 0U, "empty: the default list");
}

struct ksnap_metrics_case {
	const char *name;
	const char *in;
	const char *bad;
	int ret;	/* 0: -EINVAL */
};

static const struct ksnap_metrics_case ksnap_metrics_bad_cases[] = {
	{ "unknown", "pgfault,bogus", "bogus", -ENOENT },
	{ "wrong case", "PGFAULT", "PGFAULT", -ENOENT },
	{ "prefix", "pgfaul", "pgfaul", -ENOENT },
	{ "duplicate", "pgfault,pgfault", "pgfault" },
	{ "empty entry", "pgfault,,pgmajfault", NULL },
	{ "overlong", "pgfault_and_then_some_more_characters_to_go_past_the_limit_of_64",
	  "pgfault_and_then_some_more_characters_to_go_past_the_limit_of_64" },
	{ "unknown with selector", "bogus[cpu]", "bogus", -ENOENT },
	{ "bad selector", "pgfault[x]", "pgfault[x]" },
	{ "same selection twice", "pgfault[1],pgfault[1]", "pgfault[1]" },
	{ "sum, then per CPU", "pgfault,pgfault[cpu]", "pgfault[cpu]" },
	{ "per CPU, then sum", "pgfault[cpu],pgfault", "pgfault" },
	{ "every CPU, then one", "pgfault[cpu],pgfault[0]", "pgfault[0]" },
	{ "one CPU, then every", "pgfault[1],pgmajfault,pgfault[cpu]",
	  "pgfault[cpu]" },
	{ "one CPU, then sum", "pgfault[2],pgfault", "pgfault" },
	{ "group with a selector", "even[cpu]", "even[cpu]" },
	{ "group named twice", "even,pgfault,even", "even" },
	{ "unknown group", "odd", "odd", -ENOENT },
};

static void ksnap_metrics_case_desc(const struct ksnap_metrics_case *c,
				    char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_metrics_bad, ksnap_metrics_bad_cases,
		  ksnap_metrics_case_desc);

static void ksnap_parse_metrics_bad(struct kunit *test)
{
	const struct ksnap_metrics_case *c = test->param_value;
	struct ksnap_parse_err err = {};
	struct ksnap_list *list;
	u16 *idx = kunit_kcalloc(test, KSNAP_LIST_MAX, sizeof(*idx),
				 GFP_KERNEL);
	s16 *sel = kunit_kcalloc(test, KSNAP_LIST_MAX, sizeof(*sel),
				 GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, idx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sel);
	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	ret = ksnap_parse_metrics(ksnap_test_buf(test, c->in),
				  ksnap_test_lookup, ksnap_test_group, list,
				  idx, sel, &err);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->ret ?: -EINVAL, "parsing '%s'", c->in);
	if (c->bad)
		KUNIT_EXPECT_TRUE_MSG(test,
				      err.bad_len == strlen(c->bad) &&
				      !memcmp(err.bad, c->bad, err.bad_len),
				      "bad entry: expected '%s', got '%.*s'",
				      c->bad, err.bad_len, err.bad);
}

struct ksnap_expand_case {
	const char *name;
	const char *in;
	int ret;
	unsigned int nr;
	u16 idx[4];
	s16 sel[4];
	const char *bad;	/* the group named on -E2BIG */
	unsigned int count;	/* its columns */
	unsigned int max;	/* columns a group may give; 0: 1000 */
};

static const struct ksnap_expand_case ksnap_expand_cases[] = {
	{ "names only", "memory.current,pgfault", 0, 2, { 3, 0 },
	  { KSNAP_SEL_NONE, KSNAP_SEL_NONE } },
	{ "a group, in table order", "even", 0, 2, { 0, 2 },
	  { KSNAP_SEL_NONE, KSNAP_SEL_NONE } },
	{ "group and name in its place", "pgmajfault,even,memory.current", 0,
	  4, { 1, 0, 2, 3 }, { KSNAP_SEL_NONE, KSNAP_SEL_NONE,
				KSNAP_SEL_NONE, KSNAP_SEL_NONE } },
	{ "a name in the group, after it, wins", "even,pgfault[cpu]", 0, 2,
	  { 2, 0 }, { KSNAP_SEL_NONE, KSNAP_SEL_EACH_CPU } },
	{ "a name in the group, before it", "nr_free_pages,even", 0, 2,
	  { 2, 0 }, { KSNAP_SEL_NONE, KSNAP_SEL_NONE } },
	{ "groups overlapping collapse", "even,big", 0, 4, { 0, 2, 1, 3 },
	  { KSNAP_SEL_NONE, KSNAP_SEL_NONE, KSNAP_SEL_NONE, KSNAP_SEL_NONE } },
	{ "two CPUs of a group's metric", "pgfault[0],pgfault[1],even", 0, 3,
	  { 0, 0, 2 }, { 0, 1, KSNAP_SEL_NONE } },
	{ "a group's columns at the limit", "mem", 0, 1, { 3 },
	  { KSNAP_SEL_NONE }, .max = 2 },
	{ "a group's columns over the limit", "pgfault,big", -E2BIG,
	  .bad = "big", .count = 300, .max = 299 },
};

static void ksnap_expand_case_desc(const struct ksnap_expand_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_expand, ksnap_expand_cases, ksnap_expand_case_desc);

/* Groups expanded, of the four metrics. */
static void ksnap_parse_expand_cases(struct kunit *test)
{
	const struct ksnap_expand_case *c = test->param_value;
	struct ksnap_parse_err err = {};
	struct ksnap_selection *out;
	struct ksnap_list *list;
	u16 *idx = kunit_kcalloc(test, KSNAP_LIST_MAX, sizeof(*idx),
				 GFP_KERNEL);
	s16 *sel = kunit_kcalloc(test, KSNAP_LIST_MAX, sizeof(*sel),
				 GFP_KERNEL);
	unsigned long seen = 0;
	unsigned int i, max = c->max ?: 1000;
	int ret;

	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, idx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sel);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	KUNIT_ASSERT_EQ(test,
			ksnap_parse_metrics(ksnap_test_buf(test, c->in),
					    ksnap_test_lookup, ksnap_test_group,
					    list, idx, sel, &err), 0);
	ret = ksnap_expand_groups(list, idx, sel,
				  ARRAY_SIZE(ksnap_test_names),
				  ksnap_test_member, NULL, max, &seen, out,
				  &err);
	KUNIT_ASSERT_EQ_MSG(test, ret, c->ret, "expanding '%s'", c->in);
	if (ret) {
		KUNIT_EXPECT_TRUE_MSG(test, err.bad_len == strlen(c->bad) &&
				      !memcmp(err.bad, c->bad, err.bad_len),
				      "the group named: expected '%s', got '%.*s'",
				      c->bad, err.bad_len, err.bad);
		KUNIT_EXPECT_EQ(test, err.count, c->count);
		return;
	}
	KUNIT_ASSERT_EQ(test, out->nr, c->nr);
	for (i = 0; i < c->nr; i++) {
		KUNIT_EXPECT_EQ_MSG(test, out->idx[i], c->idx[i], "metric %u", i);
		KUNIT_EXPECT_EQ_MSG(test, out->sel[i], c->sel[i],
				    "selector %u", i);
	}
}

/* More metrics than a list holds: refused, counted. */
static void ksnap_parse_expand_too_many(struct kunit *test)
{
	struct ksnap_parse_err err = {};
	struct ksnap_selection *out;
	struct ksnap_list *list;
	u16 *idx = kunit_kcalloc(test, KSNAP_LIST_MAX, sizeof(*idx),
				 GFP_KERNEL);
	s16 *sel = kunit_kcalloc(test, KSNAP_LIST_MAX, sizeof(*sel),
				 GFP_KERNEL);
	unsigned long *seen = bitmap_zalloc(KSNAP_LIST_MAX + 8, GFP_KERNEL);

	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, idx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sel);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, seen);
	KUNIT_ASSERT_EQ(test,
			ksnap_parse_metrics(ksnap_test_buf(test, "pgfault,one"),
					    ksnap_test_lookup, ksnap_test_group,
					    list, idx, sel, &err), 0);
	KUNIT_EXPECT_EQ(test,
			ksnap_expand_groups(list, idx, sel, KSNAP_LIST_MAX,
					    ksnap_test_member, NULL,
					    2 * KSNAP_LIST_MAX, seen, out, &err),
			0);
	KUNIT_EXPECT_EQ(test, out->nr, KSNAP_LIST_MAX);
	bitmap_zero(seen, KSNAP_LIST_MAX + 8);
	KUNIT_EXPECT_EQ(test,
			ksnap_expand_groups(list, idx, sel, KSNAP_LIST_MAX + 8,
					    ksnap_test_member, NULL,
					    2 * KSNAP_LIST_MAX, seen, out,
					    &err), -E2BIG);
	KUNIT_EXPECT_EQ(test, err.bad_len, 0);
	KUNIT_EXPECT_EQ(test, err.count, KSNAP_LIST_MAX + 8);
	bitmap_free(seen);
}

struct ksnap_cgroups_case {
	const char *name;
	const char *in;
	int ret;
	unsigned int nr;
};

static const struct ksnap_cgroups_case ksnap_cgroups_cases[] = {
	{ "root", "/", 0, 1 },
	{ "two", "/system.slice/foo.service,/user.slice", 0, 2 },
	{ "newline", "/a\n", 0, 1 },
	{ "none", "", 0, 0 },
	{ "relative", "system.slice", -EINVAL },
	{ "second relative", "/a,b", -EINVAL },
	{ "sysfs path is still absolute", "/sys/fs/cgroup/a", 0, 1 },
	{ "blank inside", "/a b", -EINVAL },
	{ "duplicate", "/a,/a", -EINVAL },
	{ "trailing comma", "/a,", -EINVAL },
	{ "non-ASCII", "/\xe2\x82\xac", -EINVAL },
	{ "opening bracket", "/a[1", -EINVAL },
	{ "closing bracket", "/a,/b]", -EINVAL },
	{ "doubled slash is the same path", "/a//b,/a/b", -EINVAL },
	{ "trailing slash is the same path", "/a/b/,/a/b", -EINVAL },
	{ "tidied paths that differ", "/a//b,/a/c/", 0, 2 },
	{ "root spelled twice", "/,//", -EINVAL },
};

static void ksnap_cgroups_case_desc(const struct ksnap_cgroups_case *c,
				    char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_cgroups, ksnap_cgroups_cases,
		  ksnap_cgroups_case_desc);

static void ksnap_parse_cgroups_cases(struct kunit *test)
{
	const struct ksnap_cgroups_case *c = test->param_value;
	struct ksnap_parse_err err = {};
	struct ksnap_list *list;
	int ret;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	ret = ksnap_parse_cgroups(ksnap_test_buf(test, c->in), list, &err);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "parsing '%*pE'",
			    (int)strlen(c->in), c->in);
	if (!ret)
		KUNIT_EXPECT_EQ_MSG(test, list->nr, c->nr, "paths in '%s'",
				    c->in);
}

/* A path is kept as the kernel reads it: no doubled or trailing '/'. */
static void ksnap_parse_cgroups_tidy(struct kunit *test)
{
	struct ksnap_parse_err err = {};
	struct ksnap_list *list;
	char *buf;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	buf = ksnap_test_buf(test, "//a///b/,/,/c/");

	KUNIT_ASSERT_EQ(test, ksnap_parse_cgroups(buf, list, &err), 0);
	KUNIT_ASSERT_EQ(test, list->nr, 3U);
	KUNIT_EXPECT_STREQ(test, list->item[0], "/a/b");
	KUNIT_EXPECT_STREQ(test, list->item[1], "/");
	KUNIT_EXPECT_STREQ(test, list->item[2], "/c");
}

static void ksnap_parse_cgroups_length(struct kunit *test)
{
	struct ksnap_parse_err err = {};
	struct ksnap_list *list;
	char *path;

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	path = kunit_kzalloc(test, KSNAP_FIELD_VALUE_MAX + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, path);

	memset(path, 'a', KSNAP_FIELD_VALUE_MAX - 1);
	path[0] = '/';
	KUNIT_EXPECT_EQ_MSG(test, ksnap_parse_cgroups(path, list, &err), 0,
			    "a path of %u characters fits",
			    KSNAP_FIELD_VALUE_MAX - 1);

	memset(path, 'a', KSNAP_FIELD_VALUE_MAX);
	path[0] = '/';
	KUNIT_EXPECT_EQ_MSG(test, ksnap_parse_cgroups(path, list, &err),
			    -EINVAL, "a path of %u characters is too long",
			    KSNAP_FIELD_VALUE_MAX);
}

/* "/c0,/c1,...": @n cgroup paths. */
static char *ksnap_test_paths(struct kunit *test, unsigned int n)
{
	char *buf = kunit_kzalloc(test, n * 8 + 1, GFP_KERNEL);
	unsigned int i, len = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	for (i = 0; i < n; i++)
		len += sprintf(buf + len, "%s/c%u", i ? "," : "", i);
	return buf;
}

/* KSNAP_MAX_CGROUPS paths fit; one more is refused, naming the limit. */
static void ksnap_parse_cgroups_count(struct kunit *test)
{
	struct ksnap_parse_err err = {};
	struct ksnap_list *list;
	char *fit = ksnap_test_paths(test, KSNAP_MAX_CGROUPS);
	char *over = ksnap_test_paths(test, KSNAP_MAX_CGROUPS + 1);

	list = kunit_kzalloc(test, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, list);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_parse_cgroups(fit, list, &err), 0,
			    "%u cgroups are allowed", KSNAP_MAX_CGROUPS);
	KUNIT_EXPECT_EQ(test, list->nr, KSNAP_MAX_CGROUPS);
	KUNIT_EXPECT_EQ_MSG(test, ksnap_parse_cgroups(over, list, &err),
			    -EINVAL, "%u cgroups are too many",
			    KSNAP_MAX_CGROUPS + 1);
	KUNIT_ASSERT_NOT_NULL(test, err.why);
	KUNIT_EXPECT_STREQ(test, err.why, "more than 2048 cgroups, from");
	KUNIT_EXPECT_EQ(test, err.bad_len, 6);
	KUNIT_EXPECT_EQ(test, strncmp(err.bad, "/c2048", 6), 0);
}

struct ksnap_sel_case {
	const char *in;
	int ret;
	const char *name;
	int sel;
};

static const struct ksnap_sel_case ksnap_sel_cases[] = {
	{ "pgfault", 0, "pgfault", KSNAP_SEL_NONE },
	{ "pgfault[cpu]", 0, "pgfault", KSNAP_SEL_EACH_CPU },
	{ "pgfault[0]", 0, "pgfault", 0 },
	{ "cpu.idle[17]", 0, "cpu.idle", 17 },
	{ "x[32767]", 0, "x", 32767 },
	{ "x[32768]", -EINVAL },
	{ "x[99999999999999999999]", -EINVAL },
	{ "x[]", -EINVAL },
	{ "x[", -EINVAL },
	{ "x[1", -EINVAL },
	{ "x[cpu", -EINVAL },
	{ "x[CPU]", -EINVAL },
	{ "x[-1]", -EINVAL },
	{ "x[+1]", -EINVAL },
	{ "x[01]", -EINVAL },
	{ "x[1]y", -EINVAL },
	{ "x[1][2]", -EINVAL },
	{ "[1]", -EINVAL },
	{ "x[cpus]", -EINVAL },
	{ "memory.current[/a]", -EINVAL },
};

static void ksnap_sel_case_desc(const struct ksnap_sel_case *c, char *desc)
{
	strscpy(desc, c->in, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ksnap_sel, ksnap_sel_cases, ksnap_sel_case_desc);

/* The per-CPU selector syntax: name, name[N], name[cpu]. */
static void ksnap_parse_sel_cases(struct kunit *test)
{
	const struct ksnap_sel_case *c = test->param_value;
	char name[KSNAP_METRIC_NAME_MAX];
	int sel = 12345, ret;

	ret = ksnap_parse_metric_sel(c->in, name, sizeof(name), &sel);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "parsing '%s'", c->in);
	if (ret || c->ret)
		return;
	KUNIT_EXPECT_STREQ(test, name, c->name);
	KUNIT_EXPECT_EQ(test, sel, c->sel);
}

static void ksnap_parse_sel_name_room(struct kunit *test)
{
	char name[8];
	int sel;

	KUNIT_EXPECT_EQ(test, ksnap_parse_metric_sel("1234567[1]", name,
						     sizeof(name), &sel), 0);
	KUNIT_EXPECT_STREQ(test, name, "1234567");
	KUNIT_EXPECT_EQ(test, ksnap_parse_metric_sel("12345678[1]", name,
						     sizeof(name), &sel),
			-EINVAL);
}

struct ksnap_uint_case {
	const char *in;
	int ret;
	unsigned int val;
};

static const struct ksnap_uint_case ksnap_uint_cases[] = {
	{ "1000", 0, 1000 },
	{ "1000\n", 0, 1000 },
	{ "0", 0, 0 },
	{ "4294967295", 0, 4294967295U },
	{ "4294967296", -ERANGE },
	{ "99999999999999999999999", -ERANGE },
	{ "", -EINVAL },
	{ "\n", -EINVAL },
	{ " 10", -EINVAL },
	{ "10 ", -EINVAL },
	{ "+10", -EINVAL },
	{ "-1", -EINVAL },
	{ "0010", -EINVAL },
	{ "0x10", -EINVAL },
	{ "10\n\n", -EINVAL },
	{ "1e3", -EINVAL },
	{ "\xc2\xb2", -EINVAL },
};

static void ksnap_uint_case_desc(const struct ksnap_uint_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "'%*pE'", (int)strlen(c->in),
		 c->in);
}

KUNIT_ARRAY_PARAM(ksnap_uint, ksnap_uint_cases, ksnap_uint_case_desc);

static void ksnap_parse_uint_cases(struct kunit *test)
{
	const struct ksnap_uint_case *c = test->param_value;
	unsigned int val = 12345;
	int ret = ksnap_parse_uint(c->in, &val);

	KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "parsing '%*pE'",
			    (int)strlen(c->in), c->in);
	KUNIT_EXPECT_EQ_MSG(test, val, ret ? 12345U : c->val,
			    "value of '%*pE' (untouched on failure)",
			    (int)strlen(c->in), c->in);
}

static void ksnap_parse_overflow_words(struct kunit *test)
{
	bool ow = true;

	KUNIT_EXPECT_EQ(test, ksnap_parse_overflow("drop\n", &ow), 0);
	KUNIT_EXPECT_FALSE(test, ow);
	KUNIT_EXPECT_EQ(test, ksnap_parse_overflow("overwrite", &ow), 0);
	KUNIT_EXPECT_TRUE(test, ow);
	KUNIT_EXPECT_EQ(test, ksnap_parse_overflow("Drop", &ow), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksnap_parse_overflow("", &ow), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksnap_parse_overflow("drop overwrite", &ow),
			-EINVAL);
	KUNIT_EXPECT_TRUE_MSG(test, ow, "unchanged by refused words");
}

static struct kunit_case ksnap_parse_cases[] = {
	KUNIT_CASE_PARAM(ksnap_parse_list_cases, ksnap_list_gen_params),
	KUNIT_CASE(ksnap_parse_list_count),
	KUNIT_CASE(ksnap_parse_metrics_known),
	KUNIT_CASE_PARAM(ksnap_parse_metrics_bad, ksnap_metrics_bad_gen_params),
	KUNIT_CASE_PARAM(ksnap_parse_expand_cases, ksnap_expand_gen_params),
	KUNIT_CASE(ksnap_parse_expand_too_many),
	KUNIT_CASE_PARAM(ksnap_parse_cgroups_cases, ksnap_cgroups_gen_params),
	KUNIT_CASE(ksnap_parse_cgroups_length),
	KUNIT_CASE(ksnap_parse_cgroups_tidy),
	KUNIT_CASE(ksnap_parse_cgroups_count),
	KUNIT_CASE_PARAM(ksnap_parse_sel_cases, ksnap_sel_gen_params),
	KUNIT_CASE(ksnap_parse_sel_name_room),
	KUNIT_CASE_PARAM(ksnap_parse_uint_cases, ksnap_uint_gen_params),
	KUNIT_CASE(ksnap_parse_overflow_words),
	{}
};

static struct kunit_suite ksnap_parse_suite = {
	.name = "ksnap_parse",
	.test_cases = ksnap_parse_cases,
};

kunit_test_suite(ksnap_parse_suite);

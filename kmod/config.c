// SPDX-License-Identifier: GPL-2.0
/*
 * Building a configuration: parse the metric and cgroup lists, resolve and
 * hold the cgroups, lay out the columns.  A configuration is built whole
 * and then swapped in, so a failed change leaves the previous one intact.
 */
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cgpattern.h"
#include "ksnap.h"
#include "parse.h"

static void ksnap_log_parse_err(const char *what, const char *hint,
				const struct ksnap_parse_err *err)
{
	/* Escaped, and no more than 64 bytes of a long entry. */
	if (err->bad_len)
		pr_err_ratelimited("%s: %s '%*pE': %s\n", what, err->why,
				   min(err->bad_len, 64), err->bad, hint);
	else
		pr_err_ratelimited("%s: %s: %s\n", what, err->why, hint);
}

/* "a,b,c" from a parsed list: never longer than what was parsed. */
static char *ksnap_join(const struct ksnap_list *list, size_t max)
{
	char *s = kzalloc(max + 1, GFP_KERNEL);
	unsigned int i;

	if (!s)
		return NULL;
	for (i = 0; i < list->nr; i++) {
		if (i)
			strlcat(s, ",", max + 1);
		strlcat(s, list->item[i], max + 1);
	}
	return s;
}

/* Check each pattern of @list; count them in cfg->nr_patterns. */
static int ksnap_config_patterns(struct ksnap_config *cfg,
				 const struct ksnap_list *list)
{
	const char *why;
	unsigned int i;

	for (i = 0; i < list->nr; i++) {
		if (!ksnap_cgpattern_is_pattern(list->item[i]))
			continue;
		if (ksnap_cgpattern_check(list->item[i], &why)) {
			pr_err_ratelimited("cgroups: %s: '%*pE'\n", why,
					   (int)min_t(size_t, strlen(list->item[i]), 160),
					   list->item[i]);
			return -EINVAL;
		}
		cfg->nr_patterns++;
	}
	return 0;
}

/* Is the cgroup of id @id configured in @cfg already? */
static bool ksnap_config_has_cgroup(const struct ksnap_config *cfg, u64 id)
{
	unsigned int i;

	for (i = 0; i < cfg->nr_cgroups; i++)
		if (cfg->cgroups[i].id == id)
			return true;
	return false;
}

/*
 * The cgroups: those of @prev when the list is the same (held once more,
 * not resolved again; a removed one is released, ksnap_cgroup_dup()),
 * else each path resolved, then each pattern expanded.  @cur: a start's
 * expansion of the current configuration, whose paths are kept and whose
 * namespace the patterns are expanded in again; else NULL.
 */
static int ksnap_config_cgroups(struct ksnap_config *cfg, const char *arg,
				struct ksnap_list *list,
				const struct ksnap_config *prev,
				const struct ksnap_config *cur)
{
	struct ksnap_parse_err err;
	unsigned int i;
	char *buf;
	int ret;

	buf = kstrdup(arg, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = ksnap_parse_cgroups(buf, list, &err);
	if (ret) {
		ksnap_log_parse_err("cgroups",
				    "give comma-separated cgroup v2 paths such as /a/b.service, or patterns such as /system.slice/*.service",
				    &err);
		goto out;
	}
	ret = ksnap_config_patterns(cfg, list);
	if (ret)
		goto out;
	ret = -ENOMEM;
	cfg->cgroups_arg = ksnap_join(list, strlen(arg));
	if (!cfg->cgroups_arg)
		goto out;
	/* Up to KSNAP_MAX_CGROUPS of a path's length each: kvcalloc(). */
	cfg->cgroups = kvcalloc(cfg->nr_patterns ? KSNAP_MAX_CGROUPS :
				list->nr ?: 1, sizeof(*cfg->cgroups),
				GFP_KERNEL);
	if (!cfg->cgroups)
		goto out;
	if (cfg->nr_patterns)
		cfg->cgns = ksnap_cgpattern_ns_get(cur ?: prev);
	/* Not when matches were left out: other metrics may read them. */
	if (prev && prev->nr_patterns == cfg->nr_patterns &&
	    !prev->nr_unreadable &&
	    !strcmp(prev->cgroups_arg, cfg->cgroups_arg)) {
		for (i = 0; i < prev->nr_cgroups; i++) {
			ret = ksnap_cgroup_dup(&cfg->cgroups[i],
					       &prev->cgroups[i]);
			if (ret)
				goto out;
			cfg->nr_cgroups++;
		}
		bitmap_copy(cfg->matched, prev->matched, KSNAP_MAX_CGROUPS);
		ret = 0;
		goto out;
	}
	/*
	 * Paths first: a pattern does not add a cgroup a path configures,
	 * and a cgroup two paths name (/a/b, /a//b) is the first's.
	 */
	for (i = 0; i < list->nr; i++) {
		struct ksnap_cgroup *cg = &cfg->cgroups[cfg->nr_cgroups];

		if (ksnap_cgpattern_is_pattern(list->item[i]))
			continue;
		if (cur)
			ret = ksnap_cgpattern_keep_path(cur, cg, list->item[i]);
		else
			ret = ksnap_cgroup_get(cg, list->item[i]);
		if (ret)
			goto out;
		if (ksnap_config_has_cgroup(cfg, cg->id)) {
			ksnap_cgroup_put(cg);
			continue;
		}
		cfg->nr_cgroups++;
	}
	ret = cfg->nr_patterns ?
	      ksnap_cgpattern_expand(cfg, list->item, list->nr, !!cur) : 0;
out:
	kfree(buf);
	return ret;
}

/*
 * Is cgroup @j one that a metric needing @needs leaves out rather than
 * refuses?  A pattern's match without the memory controller (a threaded
 * cgroup, memory being a domain controller; or one whose parent does not
 * enable +memory): the pattern reaches further than what can be read,
 * and the other matches are still sampled and followed.  A path names
 * its cgroup on purpose, and a metric it cannot give is refused.
 */
static bool ksnap_config_left_out(const struct ksnap_config *cfg,
				  unsigned int j, int needs)
{
	return needs == KSNAP_NEEDS_MEMCG && test_bit(j, cfg->matched) &&
	       !ksnap_cgroup_has(&cfg->cgroups[j], needs);
}

/* Does @cfg select a per-cgroup metric that needs the memory controller? */
static bool ksnap_config_memory_metrics(const struct ksnap_config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[cfg->metric[i]];

		if (m->per_cgroup && m->needs == KSNAP_NEEDS_MEMCG)
			return true;
	}
	return false;
}

/*
 * Drop the matches ksnap_config_left_out() leaves out for the selected
 * metrics, keeping the others' order; counted in nr_unreadable, and
 * logged unless @quiet (a running collection's rescan, every discover_ms).
 */
static void ksnap_config_leave_out(struct ksnap_config *cfg, bool quiet)
{
	unsigned int j, n = 0;

	if (!ksnap_config_memory_metrics(cfg))
		return;
	for (j = 0; j < cfg->nr_cgroups; j++) {
		struct ksnap_cgroup *cg = &cfg->cgroups[j];

		if (ksnap_config_left_out(cfg, j, KSNAP_NEEDS_MEMCG)) {
			if (!quiet)
				pr_info_ratelimited("cgroups: '%s' has no memory controller of its own (%s): the memory metrics leave it out (stats/cgroups_unreadable)\n",
						    cg->path,
						    ksnap_cgroup_no_memory_why(cg));
			ksnap_cgroup_put(cg);
			cfg->nr_unreadable++;
			continue;
		}
		if (n != j) {
			cfg->cgroups[n] = *cg;
			__assign_bit(n, cfg->matched, test_bit(j, cfg->matched));
		}
		n++;
	}
	bitmap_clear(cfg->matched, n, cfg->nr_cgroups - n);
	cfg->nr_cgroups = n;
}

/*
 * The columns metric @i gives as a member of group @group: 0 when it is
 * not one, is not offered, or cannot be sampled with the configured
 * cgroups (or without PSI): a group names what it has that applies.  With
 * patterns that match nothing yet, a per-cgroup member counts as one
 * column: it is selected, gives its columns as cgroups are found
 * (follow.c), and the records get room for them.
 */
static unsigned int ksnap_group_columns(void *ctx, unsigned int group,
					unsigned int i)
{
	const struct ksnap_config *cfg = ctx;
	const struct ksnap_metric *m = &ksnap_metrics[i];
	unsigned int j, n = 0;

	if (!ksnap_metric_in_group(m, group) || !ksnap_metric_offered(m))
		return 0;
	if (!m->per_cgroup)
		return m->needs == KSNAP_NEEDS_PSI && ksnap_psi_resolve() ? 0 : 1;
	for (j = 0; j < cfg->nr_cgroups; j++) {
		if (ksnap_cgroup_has(&cfg->cgroups[j], m->needs))
			n++;
		else if (!ksnap_config_left_out(cfg, j, m->needs))
			return 0;
	}
	/*
	 * Matches, none readable: the member is dropped, so that they keep
	 * the group's other metrics.  None yet: a column to come.
	 */
	if (!n)
		return cfg->nr_cgroups ? 0 : !!cfg->nr_patterns;
	return n;
}

/* The parser's selectors are the configuration's CPU selections. */
static_assert(KSNAP_SEL_NONE == KSNAP_CPU_SUM);
static_assert(KSNAP_SEL_EACH_CPU == KSNAP_CPU_EACH);

/*
 * The metrics of @arg into @cfg: names where they are, groups expanded
 * (ksnap_expand_groups()).  cfg->cgroups are resolved already.
 */
static int ksnap_config_metrics(struct ksnap_config *cfg, const char *arg,
				struct ksnap_list *list,
				const struct ksnap_layout *l)
{
	struct ksnap_selection *out;
	struct ksnap_parse_err err;
	unsigned long *seen;
	unsigned int i;
	char *buf;
	int ret = -ENOMEM;

	buf = kstrdup(arg, GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	seen = bitmap_zalloc(ksnap_nr_metrics, GFP_KERNEL);
	if (!buf || !out || !seen)
		goto out;
	ret = ksnap_parse_metrics(buf, ksnap_metric_lookup, ksnap_group_lookup,
				  list, cfg->metric, cfg->metric_cpu, &err);
	if (ret == -ENOENT) {
		pr_err_ratelimited("metrics: unknown metric or group '%.*s': ksnapd --list-metrics lists the metrics (groups: all, vmstat, cpu, container, pod)\n",
				   min(err.bad_len, 64), err.bad);
		ret = -EINVAL;
		goto out;
	}
	if (ret) {
		ksnap_log_parse_err("metrics",
				    "ksnapd --list-metrics lists the metrics",
				    &err);
		goto out;
	}
	ret = ksnap_expand_groups(list, cfg->metric, cfg->metric_cpu,
				  ksnap_nr_metrics, ksnap_group_columns, cfg,
				  l->max_columns, seen, out, &err);
	if (ret == -E2BIG && err.bad_len) {
		pr_err_ratelimited("metrics: group '%.*s' gives %u columns (metrics times cgroups), more than the %u the ring has room for: name fewer, or configure fewer cgroups\n",
				   min(err.bad_len, 64), err.bad, err.count,
				   l->max_columns);
		ret = -EINVAL;
		goto out;
	}
	if (ret) {
		pr_err_ratelimited("metrics: the list selects %u metrics, more than %u: name fewer\n",
				   err.count, KSNAP_LIST_MAX);
		ret = -EINVAL;
		goto out;
	}
	if (list->nr && !out->nr) {
		pr_err_ratelimited("metrics: '%.64s' selects no metric that can be sampled with these cgroups (the container group needs some)\n",
				   arg);
		ret = -EINVAL;
		goto out;
	}
	memcpy(cfg->metric, out->idx, out->nr * sizeof(*cfg->metric));
	memcpy(cfg->metric_cpu, out->sel, out->nr * sizeof(*cfg->metric_cpu));
	cfg->nr_metrics = out->nr;
	ret = -ENOMEM;
	cfg->metrics_arg = ksnap_join(list, strlen(arg));
	if (!cfg->metrics_arg)
		goto out;
	ret = 0;
	if (list->nr)
		goto out;

	/* Empty: the defaults, per-cgroup ones only when there are cgroups. */
	for (i = 0; i < ksnap_nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[i];

		if (m->by_default && (!m->per_cgroup || cfg->nr_cgroups) &&
		    ksnap_metric_offered(m)) {
			cfg->metric_cpu[cfg->nr_metrics] = KSNAP_CPU_SUM;
			cfg->metric[cfg->nr_metrics++] = i;
		}
	}
out:
	bitmap_free(seen);
	kfree(out);
	kfree(buf);
	return ret;
}

/*
 * Can @m be read for @cg?  Logs why not.  Process context.  A released
 * cgroup answers as it did at its release (ksnap_cgroup_has()).
 */
static int ksnap_config_check_cgroup(const struct ksnap_metric *m,
				     const struct ksnap_cgroup *cg)
{
	if (ksnap_cgroup_has(cg, m->needs))
		return 0;
	if (ksnap_cgroup_released(cg)) {
		pr_err_ratelimited("metrics: %s: '%s' was removed, and it had no such value then: write cgroups without it\n",
				   m->name, cg->path);
		return -EINVAL;
	}
	switch (m->needs) {
	case KSNAP_NEEDS_MEMCG:
		if (ksnap_cgroup_is_threaded(cg))
			pr_err_ratelimited("cgroups: '%s' has no memory controller of its own (%s), needed by %s: name its domain cgroup instead, or leave the memory metrics out\n",
					   cg->path,
					   ksnap_cgroup_no_memory_why(cg),
					   m->name);
		else
			pr_err_ratelimited("cgroups: '%s' has no memory controller of its own (%s), needed by %s: add +memory to its parent's cgroup.subtree_control\n",
					   cg->path,
					   ksnap_cgroup_no_memory_why(cg),
					   m->name);
		return -EINVAL;
	case KSNAP_NEEDS_NONROOT:
		pr_err_ratelimited("metrics: %s is not kept for the root cgroup '%s': use the cpu.* metrics for the whole system\n",
				   m->name, cg->path);
		return -EINVAL;
	case KSNAP_NEEDS_PSI:
		pr_err_ratelimited("metrics: %s: no pressure stall information for '%s' (PSI disabled: boot with psi=1)\n",
				   m->name, cg->path);
		return -EINVAL;
	}
	return 0;
}

/*
 * A pattern set's records are laid out as wide as the ring allows while it
 * keeps this many of them: with the default ring_kb, a set's most columns.
 */
#define KSNAP_CONFIG_MIN_RECORDS	128

/**
 * ksnap_config_cap_columns() - the columns a pattern set's records hold
 * @cfg: being built, with patterns; nr_columns is the set's now
 * @l: the ring layout
 *
 * As many as records the ring keeps KSNAP_CONFIG_MIN_RECORDS of hold, at
 * most l->max_columns, and at least the set's own: a collection that
 * starts before its containers grows to what its read's bound admits
 * (follow.c, ksnap_follow_admit_columns()), not to what it matched at start.
 */
unsigned int ksnap_config_cap_columns(const struct ksnap_config *cfg,
				      const struct ksnap_layout *l)
{
	u64 bytes = div_u64((u64)l->data_pages * l->page_size,
			    KSNAP_CONFIG_MIN_RECORDS);
	u64 room = bytes > KSNAP_RECORD_SIZE(0) ?
		   div_u64(bytes - KSNAP_RECORD_SIZE(0), sizeof(__u64)) : 0;

	return clamp_t(u64, room, max(cfg->nr_columns, 1U), l->max_columns);
}

/* Check one selected metric; *n grows by its number of columns. */
static int ksnap_config_check_metric(struct ksnap_config *cfg,
				     unsigned int i, unsigned int *n)
{
	const struct ksnap_metric *m = &ksnap_metrics[cfg->metric[i]];
	int sel = cfg->metric_cpu[i];
	unsigned int j;
	int ret;

	if (sel != KSNAP_CPU_SUM && (!m->read_cpu || m->per_cgroup)) {
		pr_err_ratelimited("metrics: %s has no per-CPU values: drop the [%s] selector\n",
				   m->name, sel == KSNAP_CPU_EACH ? "cpu" : "N");
		return -EINVAL;
	}
	if (sel >= 0 && (sel >= nr_cpu_ids || !cpu_possible(sel))) {
		pr_err_ratelimited("metrics: %s[%d]: no such CPU (possible: %*pbl)\n",
				   m->name, sel, cpumask_pr_args(cpu_possible_mask));
		return -EINVAL;
	}
	if (!m->per_cgroup) {
		if (m->needs == KSNAP_NEEDS_PSI && ksnap_psi_resolve()) {
			pr_err_ratelimited("metrics: %s: system pressure not reachable (PSI disabled, or no cgroup below the root to find it through)\n",
					   m->name);
			return -EINVAL;
		}
		*n += sel == KSNAP_CPU_EACH ? num_possible_cpus() : 1;
		return 0;
	}
	/* Patterns that match nothing now: none of their columns yet. */
	if (!cfg->nr_cgroups && cfg->nr_patterns)
		return 0;
	if (!cfg->nr_cgroups) {
		pr_err_ratelimited("metrics: %s is per cgroup and no cgroups are configured: set cgroups first\n",
				   m->name);
		return -EINVAL;
	}
	for (j = 0; j < cfg->nr_cgroups; j++) {
		ret = ksnap_config_check_cgroup(m, &cfg->cgroups[j]);
		if (ret)
			return ret;
	}
	*n += cfg->nr_cgroups;
	return 0;
}

static int ksnap_config_columns(struct ksnap_config *cfg,
				const struct ksnap_layout *l)
{
	unsigned int i, j, n = 0;
	int cpu, ret;

	for (i = 0; i < cfg->nr_metrics; i++) {
		ret = ksnap_config_check_metric(cfg, i, &n);
		if (ret)
			return ret;
	}
	if (n > l->max_columns) {
		pr_err_ratelimited("metrics: %u columns (metrics times cgroups or CPUs) is more than the %u a column set may have: sample fewer\n",
				   n, l->max_columns);
		return -EINVAL;
	}
	/* No column yet but from patterns: the records have room for one. */
	if (!n && !cfg->nr_patterns) {
		pr_err_ratelimited("metrics: no column to sample: name at least one metric\n");
		return -EINVAL;
	}
	/* Patterns: room for the cgroups a running collection finds. */
	cfg->nr_columns = n;
	cfg->cap_columns = cfg->nr_patterns ?
			   ksnap_config_cap_columns(cfg, l) : n ?: 1;
	cfg->nr_columns = 0;
	if (cfg->cap_columns > n &&
	    ksnap_layout_records(l, cfg->cap_columns, &cfg->record_size,
				 &cfg->nr_records))
		cfg->cap_columns = n ?: 1;
	if (cfg->cap_columns <= n &&
	    ksnap_layout_records(l, n ?: 1, &cfg->record_size,
				 &cfg->nr_records)) {
		pr_err_ratelimited("metrics: %u columns make records of %zu bytes: the ring (ring_kb=) holds fewer than 2 of them: load ksnap with a larger ring_kb\n",
				   n, KSNAP_RECORD_SIZE((size_t)n));
		return -EINVAL;
	}

	for (i = 0; i < cfg->nr_metrics; i++) {
		const struct ksnap_metric *m = &ksnap_metrics[cfg->metric[i]];
		struct ksnap_source *src;

		if (m->per_cgroup) {
			for (j = 0; j < cfg->nr_cgroups; j++) {
				src = &cfg->col[cfg->nr_columns++];
				src->metric = m;
				src->cg = &cfg->cgroups[j];
				src->cg_idx = j;
				src->cpu = KSNAP_CPU_SUM;
			}
		} else if (cfg->metric_cpu[i] == KSNAP_CPU_EACH) {
			for_each_possible_cpu(cpu) {
				src = &cfg->col[cfg->nr_columns++];
				src->metric = m;
				src->cpu = cpu;
			}
		} else {
			src = &cfg->col[cfg->nr_columns++];
			src->metric = m;
			src->cpu = cfg->metric_cpu[i];
		}
	}
	return 0;
}

/* ksnap_config_build(), and with @cur ksnap_config_rebuild(). */
static struct ksnap_config *__ksnap_config_build(const char *metrics,
						 const char *cgroups,
						 const struct ksnap_layout *l,
						 const struct ksnap_config *prev,
						 const struct ksnap_config *cur,
						 unsigned int cg_limit)
{
	struct ksnap_config *cfg;
	struct ksnap_list *list;
	int ret = -ENOMEM;

	/* Sized for KSNAP_MAX_COLUMNS: some hundred KiB, kvzalloc(). */
	cfg = kvzalloc(sizeof(*cfg), GFP_KERNEL);
	list = kvzalloc(sizeof(*list), GFP_KERNEL);
	if (!cfg || !list)
		goto err;
	cfg->cg_limit = cg_limit;
	/* A rebuild has cur's metrics: the walk leaves those matches out. */
	cfg->leave_memoryless = cur && ksnap_config_memory_metrics(cur);

	ret = ksnap_config_cgroups(cfg, cgroups ?: "", list, prev, cur);
	if (ret)
		goto err;
	ret = ksnap_config_metrics(cfg, metrics ?: "", list, l);
	if (ret)
		goto err;
	ksnap_config_leave_out(cfg, !!cur);
	ret = ksnap_config_columns(cfg, l);
	if (ret)
		goto err;
	ksnap_plan_build(cfg);
	kvfree(list);
	return cfg;

err:
	kvfree(list);
	ksnap_config_free(cfg);
	return ERR_PTR(ret);
}

/**
 * ksnap_config_build() - a complete configuration, or nothing
 * @metrics: comma-separated metric and group names; empty for the
 *	     default list
 * @cgroups: comma-separated cgroup v2 paths and patterns; may be empty
 * @l: the ring layout (for the column limit and record geometry)
 * @prev: the current configuration, whose cgroups are kept (not resolved
 *	  again) when @cgroups lists the same entries; NULL to resolve them
 *
 * Process context.  Logs one line naming the bad value on failure.
 *
 * Return: the configuration, or an ERR_PTR (-EINVAL, -ENOENT, -ENOMEM).
 */
struct ksnap_config *ksnap_config_build(const char *metrics,
					const char *cgroups,
					const struct ksnap_layout *l,
					const struct ksnap_config *prev)
{
	return __ksnap_config_build(metrics, cgroups, l, prev, NULL,
				    KSNAP_CG_NO_LIMIT);
}

/**
 * ksnap_config_offered() - is every metric of @cfg offered now?
 * @cfg: a configuration
 *
 * A configuration built before ksnap_memcg_prove() (every metric offered
 * then) may hold a memory.stat.* metric whose slot the proof dropped.
 */
bool ksnap_config_offered(const struct ksnap_config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->nr_metrics; i++)
		if (!ksnap_metric_offered(&ksnap_metrics[cfg->metric[i]]))
			return false;
	return true;
}

/**
 * ksnap_config_rebuild() - @cur with its cgroup patterns expanded again
 * @cur: the current configuration, with patterns
 * @l: as for ksnap_config_build()
 * @cg_limit: KSNAP_CG_NO_LIMIT (a start: more matches than
 *	      KSNAP_MAX_CGROUPS are an error), or the most cgroups, those
 *	      past it skipped and counted in nr_skipped (a running
 *	      collection's rescan, follow.c)
 *
 * Its paths keep their cgroups (frozen ones too); its patterns are
 * expanded in the namespace @cur was configured in.  Process context.
 *
 * Return: the configuration, or an ERR_PTR, with one log line.
 */
struct ksnap_config *ksnap_config_rebuild(const struct ksnap_config *cur,
					  const struct ksnap_layout *l,
					  unsigned int cg_limit)
{
	return __ksnap_config_build(cur->metrics_arg, cur->cgroups_arg, l,
				    NULL, cur, cg_limit);
}

void ksnap_config_free(const struct ksnap_config *cfg)
{
	unsigned int i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nr_cgroups; i++)
		ksnap_cgroup_put(&cfg->cgroups[i]);
	kvfree(cfg->cgroups);
	if (cfg->cgns)
		ksnap_cgpattern_ns_put(cfg->cgns);
	kfree(cfg->cgroups_arg);
	kfree(cfg->metrics_arg);
	kvfree(cfg);
}

/* 0, or -EINVAL with one log line. */
int ksnap_config_check_period(unsigned int period_us)
{
	if (period_us >= KSNAP_PERIOD_US_MIN &&
	    period_us <= KSNAP_PERIOD_US_MAX)
		return 0;
	pr_err_ratelimited("period_us: %u is out of range: use %u..%u microseconds\n",
			   period_us, KSNAP_PERIOD_US_MIN, KSNAP_PERIOD_US_MAX);
	return -EINVAL;
}

/* 0, or -EINVAL with one log line. */
int ksnap_config_check_wake_ms(unsigned int wake_ms)
{
	if (wake_ms >= KSNAP_WAKE_MS_MIN && wake_ms <= KSNAP_WAKE_MS_MAX)
		return 0;
	pr_err_ratelimited("wake_ms: %u is out of range: use %u..%u milliseconds\n",
			   wake_ms, KSNAP_WAKE_MS_MIN, KSNAP_WAKE_MS_MAX);
	return -EINVAL;
}

/* Decimal digits (and a newline) in @min..@max, or -EINVAL and a log line. */
int ksnap_param_set_range(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max, const char *unit)
{
	unsigned int n;

	if (kstrtouint(val, 10, &n) || n < min || n > max) {
		pr_err("%s: '%*pE' is not a %s in %u..%u\n", kp->name,
		       (int)min_t(size_t, strcspn(val, "\n"), 64), val, unit,
		       min, max);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, n);
	return 0;
}

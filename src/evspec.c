/* SPDX-License-Identifier: MIT */
#include "evspec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "formats/util.h"
#include "tracefs.h"

#define HWC_ID(c, op, res)                                                             \
	(PERF_COUNT_HW_CACHE_##c | (uint64_t)PERF_COUNT_HW_CACHE_OP_##op << 8 |          \
	 (uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16)
/* one cache operation: its accesses ("L1-dcache-loads") and its misses ("...-load-misses") */
#define HWC(cache, c, ops, op_one, op)                                                 \
	{ cache "-" ops, PERF_TYPE_HW_CACHE, HWC_ID(c, op, ACCESS), NULL },               \
	{ cache "-" op_one "-misses", PERF_TYPE_HW_CACHE, HWC_ID(c, op, MISS), NULL }

static const struct kp_evspec_name event_names[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, NULL },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, NULL },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, NULL },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  "branch-instructions" },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, NULL },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, NULL },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, NULL },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, NULL },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, NULL },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "faults" },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, NULL },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, NULL },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "cs" },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "migrations" },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, NULL },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, NULL },
	/* perf's names, and the combinations perf accepts (its evsel__hw_cache_stat[]) */
	HWC("L1-dcache", L1D, "loads", "load", READ),
	HWC("L1-dcache", L1D, "stores", "store", WRITE),
	HWC("L1-dcache", L1D, "prefetches", "prefetch", PREFETCH),
	HWC("L1-icache", L1I, "loads", "load", READ),
	HWC("L1-icache", L1I, "prefetches", "prefetch", PREFETCH),
	HWC("LLC", LL, "loads", "load", READ),
	HWC("LLC", LL, "stores", "store", WRITE),
	HWC("LLC", LL, "prefetches", "prefetch", PREFETCH),
	HWC("dTLB", DTLB, "loads", "load", READ),
	HWC("dTLB", DTLB, "stores", "store", WRITE),
	HWC("dTLB", DTLB, "prefetches", "prefetch", PREFETCH),
	HWC("iTLB", ITLB, "loads", "load", READ),
	HWC("branch", BPU, "loads", "load", READ),
	HWC("node", NODE, "loads", "load", READ),
	HWC("node", NODE, "stores", "store", WRITE),
	HWC("node", NODE, "prefetches", "prefetch", PREFETCH),
};

static const char *const type_names[] = {
	[PERF_TYPE_HARDWARE] = "hardware event",
	[PERF_TYPE_SOFTWARE] = "software event",
	[PERF_TYPE_TRACEPOINT] = "tracepoint",
	[PERF_TYPE_HW_CACHE] = "hardware cache event",
	[PERF_TYPE_RAW] = "raw event",
	[PERF_TYPE_BREAKPOINT] = "breakpoint",
};

const struct kp_evspec_name *kp_evspec_names(size_t *nr)
{
	*nr = ARRAY_SIZE(event_names);
	return event_names;
}

const char *kp_evspec_type_name(uint32_t type)
{
	return type < ARRAY_SIZE(type_names) && type_names[type] ? type_names[type] : "event";
}

/* Levenshtein distance, for suggesting the names closest to a misspelt one. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], prev, tmp;

	if (lb >= ARRAY_SIZE(row))
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

static void suggest(const char *name)
{
	size_t best = (size_t)-1;

	for (size_t i = 0; i < ARRAY_SIZE(event_names); i++) {
		size_t d = edit_distance(name, event_names[i].name);
		best = d < best ? d : best;
	}
	if (best > 3 && best > strlen(name) / 2) {
		kp_hint("'kprof list' lists the events kprof knows");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(event_names); i++)
		if (edit_distance(name, event_names[i].name) == best)
			kp_hint("did you mean '%s'?", event_names[i].name);
}

static const struct kp_evspec_name *lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(event_names); i++) {
		const struct kp_evspec_name *e = &event_names[i];
		if (!strcmp(name, e->name) || (e->alias && !strcmp(name, e->alias)))
			return e;
	}
	return NULL;
}

/* ":u" counts user space only, ":k" the kernel only; both together count both. */
static int apply_modifiers(struct kp_evspec *e, const char *mods)
{
	bool u = false, k = false;

	for (const char *m = mods; *m; m++) {
		if (*m == 'u')
			u = true;
		else if (*m == 'k')
			k = true;
		else
			return -EINVAL;
	}
	if (u || k) {
		e->modifiers = true;
		e->attr.exclude_user = !u;
		e->attr.exclude_kernel = !k;
		e->attr.exclude_hv = 1;
	}
	return 0;
}

/* "r" and 1 to 16 hex digits: a raw event code. */
static bool parse_raw(const char *text, uint64_t *config)
{
	size_t n = strspn(text + 1, "0123456789abcdefABCDEF");

	if (text[0] != 'r' || n == 0 || n > 16 || text[1 + n])
		return false;
	*config = strtoull(text + 1, NULL, 16);
	return true;
}

/* What one kp_evspec_parse() call works with: tracefs is opened on the first tracepoint. */
struct parse_ctx {
	struct kp_evspec **specs;
	size_t *nr;
	unsigned token;
	struct kp_tracefs tfs;
	int tfs_err; /* 1: not opened yet */
};

static struct kp_evspec *new_spec(struct parse_ctx *c, const char *spec)
{
	struct kp_evspec *e;

	*c->specs = kp_xrealloc(*c->specs, (*c->nr + 1) * sizeof(**c->specs));
	e = &(*c->specs)[(*c->nr)++];
	memset(e, 0, sizeof(*e));
	e->spec = kp_xstrdup(spec);
	e->attr.size = sizeof(e->attr);
	e->token = c->token;
	return e;
}

static void no_tracepoint(struct parse_ctx *c, const char *text, const char *sys,
			  const char *name)
{
	kp_error("no tracepoint matches '%s'", text);
	if (kp_tracefs_has_system(&c->tfs, sys))
		kp_hint("kprof list '%s:*' lists the tracepoints of '%s'", sys, sys);
	else
		kp_hint("there is no tracepoint system '%s'; kprof list '*:%s' looks for '%s' in "
			"every system", sys, name, name);
}

static int add_tracepoints(struct parse_ctx *c, const char *text, const char *sys,
			   const char *name)
{
	struct kp_tracepoint *tps = NULL;
	size_t n = 0;
	int err;

	if (c->tfs_err == 1)
		c->tfs_err = kp_tracefs_open(&c->tfs);
	if (c->tfs_err) {
		kp_tracefs_explain(&c->tfs, c->tfs_err);
		return c->tfs_err;
	}
	err = kp_tracefs_events(&c->tfs, sys, name, true, &tps, &n);
	if (err)
		kp_error("cannot read the tracepoints for '%s' in '%s': %s", text, c->tfs.dir,
			 err == -EINVAL ? "malformed id file" : strerror(-err));
	else if (!n)
		no_tracepoint(c, text, sys, name);
	for (size_t i = 0; i < n && !err; i++) {
		size_t len = strlen(tps[i].system) + strlen(tps[i].name) + 2;
		char *full = kp_xmalloc(len);
		struct kp_evspec *e;
		snprintf(full, len, "%s:%s", tps[i].system, tps[i].name);
		e = new_spec(c, full);
		e->name = e->name_buf = full;
		e->attr.type = PERF_TYPE_TRACEPOINT;
		e->attr.config = tps[i].id;
	}
	kp_tracefs_free(tps, n);
	/* a malformed id file is tracefs's fault, not a bad spec */
	return err == -EINVAL ? -EIO : err ? err : n ? 0 : -EINVAL;
}

/* SYS:NAME, each part a glob; no third part, no slashes (they are directory names). */
static int parse_tracepoint(struct parse_ctx *c, const char *text, const char *colon)
{
	char *sys = kp_xstrdup(text);
	const char *name = colon + 1;
	int err;

	sys[colon - text] = '\0';
	if (!*sys || !*name || strchr(name, ':') || strchr(text, '/')) {
		kp_error("bad event '%s': a tracepoint is SYS:NAME, and modifiers are only u "
			 "and k", text);
		err = -EINVAL;
	} else {
		err = add_tracepoints(c, text, sys, name);
	}
	free(sys);
	return err;
}

static int parse_named(struct parse_ctx *c, char *text, char *colon)
{
	const struct kp_evspec_name *n;
	struct kp_evspec *e;
	uint64_t raw;

	if (colon)
		*colon = '\0';
	n = lookup(text);
	if (!n && !parse_raw(text, &raw)) {
		kp_error("unknown event '%s'", text);
		suggest(text);
		return -EINVAL;
	}
	if (colon)
		*colon = ':';
	e = new_spec(c, text);
	if (colon)
		*colon = '\0';
	if (n) {
		e->name = n->name;
		e->attr.type = n->type;
		e->attr.config = n->config;
	} else {
		e->name = e->name_buf = kp_xstrdup(text);
		e->attr.type = PERF_TYPE_RAW;
		e->attr.config = raw;
	}
	if (colon && apply_modifiers(e, colon + 1)) {
		kp_error("bad modifier ':%s' in event '%s': only 'u' and 'k' are known",
			 colon + 1, e->spec);
		return -EINVAL;
	}
	return 0;
}

static int parse_token(struct parse_ctx *c, char *text)
{
	char *colon = strchr(text, ':');
	bool known;
	uint64_t raw;

	if (!colon)
		return parse_named(c, text, NULL);
	*colon = '\0';
	known = lookup(text) || parse_raw(text, &raw);
	*colon = ':';
	/* "cpu-clok:u" is a misspelt event with modifiers, not a tracepoint */
	if (known || colon[1 + strspn(colon + 1, "uk")] == '\0')
		return parse_named(c, text, colon);
	return parse_tracepoint(c, text, colon);
}

int kp_evspec_parse(const char *list, struct kp_evspec **specs, size_t *nr)
{
	char *copy = kp_xstrdup(list), *save = NULL, *tok;
	struct parse_ctx c = { specs, nr, *nr ? (*specs)[*nr - 1].token : 0, { 0 }, 1 };
	size_t first = *nr;
	int err = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		c.token++;
		err = parse_token(&c, tok);
	}
	if (!err && *nr == first) {
		kp_error("no event in '%s'", list);
		err = -EINVAL;
	}
	free(copy);
	return err;
}

static char *join_filters(const char *old, const char *add)
{
	size_t len = strlen(old) + strlen(add) + 11;
	char *s = kp_xmalloc(len);

	snprintf(s, len, "(%s) && (%s)", old, add);
	return s;
}

int kp_evspec_filter(struct kp_evspec *specs, size_t nr, const char *filter)
{
	const struct kp_evspec *last = nr ? &specs[nr - 1] : NULL;

	if (!last) {
		kp_error("--filter '%s' must follow the -e tracepoint it applies to", filter);
		return -EINVAL;
	}
	if (last->attr.type != PERF_TYPE_TRACEPOINT) {
		kp_error("--filter '%s' applies to tracepoints, and '%s' before it is not one",
			 filter, last->spec);
		return -EINVAL;
	}
	if (!filter[strspn(filter, " \t")]) {
		kp_error("--filter for '%s' is empty", last->spec);
		return -EINVAL;
	}
	for (size_t i = nr; i-- > 0 && specs[i].token == last->token;) {
		char *s = specs[i].filter ? join_filters(specs[i].filter, filter)
					  : kp_xstrdup(filter);
		free(specs[i].filter);
		specs[i].filter = s;
	}
	return 0;
}

bool kp_evspec_fallback(struct kp_evspec *e)
{
	if (e->attr.type != PERF_TYPE_HARDWARE || e->fallback)
		return false;
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	e->name = "cpu-clock";
	e->fallback = true;
	return true;
}

bool kp_evspec_user_only(struct kp_evspec *e)
{
	if (e->modifiers || e->attr.exclude_kernel || e->attr.type == PERF_TYPE_TRACEPOINT)
		return false;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	return true;
}

void kp_evspec_free(struct kp_evspec *specs, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(specs[i].spec);
		free(specs[i].filter);
		free(specs[i].name_buf);
	}
	free(specs);
}

void kp_evspec_list(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(event_names); i++) {
		const struct kp_evspec_name *e = &event_names[i];
		printf("%-26s [%s]%s%s\n", e->name, kp_evspec_type_name(e->type),
		       e->alias ? " or " : "", e->alias ? e->alias : "");
	}
}

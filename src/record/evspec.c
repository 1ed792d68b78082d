/* SPDX-License-Identifier: MIT */
#include "evspec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "formats/util.h"
#include "perf.h"
#include "pmu.h"
#include "probe.h"
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

static void suggest(const char *name)
{
	const char *names[ARRAY_SIZE(event_names)];

	for (size_t i = 0; i < ARRAY_SIZE(event_names); i++)
		names[i] = event_names[i].name;
	if (!kp_hint_nearest(name, names, ARRAY_SIZE(names)))
		kp_hint("'kprof list' lists the events kprof knows");
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

static char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (!d)
		kp_die("out of memory");
	return d;
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
	e->group_leader = -1;
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
		e->kind = KP_EVSPEC_TRACEPOINT;
		e->attr.type = PERF_TYPE_TRACEPOINT;
		e->attr.config = tps[i].id;
		/* the kernel samples the function tracer only without user call chains */
		if (!strcmp(full, "ftrace:function"))
			e->attr.exclude_callchain_user = 1;
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
		e->kind = KP_EVSPEC_RAW;
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

/* A probe: the text after its prefix goes to probe.c. */
static int parse_probe(struct parse_ctx *c, const char *text, enum kp_evspec_kind kind,
		       const char *arg, bool ret)
{
	struct kp_evspec *e = new_spec(c, text);
	struct kp_probe_event ev = { NULL, NULL, NULL };
	int err;

	e->kind = kind;
	e->name = e->name_buf = kp_xstrdup(text);
	if (kind == KP_EVSPEC_UPROBE || kind == KP_EVSPEC_USDT) {
		err = kind == KP_EVSPEC_USDT
			      ? kp_probe_usdt(text, arg, &e->attr, &ev)
			      : kp_probe_uprobe(text, arg, ret, &e->attr, &e->probe_arg, &ev);
		if (ev.name) { /* a tracepoint of tracefs: named as perf names it */
			free(e->name_buf);
			e->name = e->name_buf = ev.name;
			e->tp_sys = ev.tp_sys;
			e->tp_event = ev.tp_event;
		}
		e->kind = KP_EVSPEC_UPROBE;
		return err;
	}
	if (kind == KP_EVSPEC_KPROBE)
		return kp_probe_kprobe(text, arg, ret, &e->attr, &e->probe_arg);
	return kp_probe_breakpoint(text, arg, &e->attr);
}

/* PMU/TERMS/ with optional modifiers after the last slash: "msr/tsc/", "cpu/event=1/u". */
static int parse_pmu(struct parse_ctx *c, char *text, size_t name_len)
{
	char *close = strchr(text + name_len + 1, '/'), *mods;
	struct kp_evspec *e;
	int err;

	if (!close) {
		kp_error("bad event '%s': a PMU event is PMU/TERM=VALUE,.../ (no closing '/')", text);
		return -EINVAL;
	}
	mods = close + 1 + (close[1] == ':');
	if (mods[strspn(mods, "uk")]) {
		kp_error("bad modifier '%s' after event '%.*s': only 'u' and 'k' are known", close + 1,
			 (int)(close + 1 - text), text);
		return -EINVAL;
	}
	e = new_spec(c, text);
	e->kind = KP_EVSPEC_PMU;
	e->name = e->name_buf = xstrndup(text, (size_t)(close + 1 - text));
	text[name_len] = *close = '\0';
	err = kp_pmu_parse(text, text + name_len + 1, e->spec, &e->attr);
	if (!err)
		apply_modifiers(e, mods);
	return err;
}

static const struct {
	const char *prefix;
	enum kp_evspec_kind kind;
	bool ret;
} probe_prefixes[] = {
	{ "uprobe:", KP_EVSPEC_UPROBE, false },	   { "uretprobe:", KP_EVSPEC_UPROBE, true },
	{ "usdt:", KP_EVSPEC_USDT, false },
	{ "kprobe:", KP_EVSPEC_KPROBE, false },	   { "kretprobe:", KP_EVSPEC_KPROBE, true },
	{ "mem:", KP_EVSPEC_BREAKPOINT, false },
};

static int parse_token(struct parse_ctx *c, char *text)
{
	char *colon = strchr(text, ':');
	size_t pmu_len = strspn(text, KP_PMU_NAME_CHARS);
	bool known;
	uint64_t raw;

	for (size_t i = 0; i < ARRAY_SIZE(probe_prefixes); i++) {
		size_t n = strlen(probe_prefixes[i].prefix);
		if (!strncmp(text, probe_prefixes[i].prefix, n))
			return parse_probe(c, text, probe_prefixes[i].kind, text + n,
					   probe_prefixes[i].ret);
	}
	if (pmu_len && text[pmu_len] == '/')
		return parse_pmu(c, text, pmu_len);
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

/*
 * The length of the event at @s: up to the next ',', '{' or '}', except inside a PMU
 * event's /TERMS/, whose commas separate terms.
 */
static size_t event_len(const char *s)
{
	size_t n = strspn(s, KP_PMU_NAME_CHARS);

	if (n && s[n] == '/') {
		const char *close = strchr(s + n + 1, '/');
		if (!close)
			return strlen(s);
		n = (size_t)(close + 1 - s);
	}
	return n + strcspn(s + n, ",{}");
}

/* What the group syntax allows at @p, given whether a group is open; 0, or -EINVAL. */
static int group_syntax(const char *list, const char *p, bool open)
{
	if (*p == '{' && open)
		kp_error("bad event list '%s': groups do not nest", list);
	else if (*p == '{' && p != list && p[-1] != ',')
		kp_error("bad event list '%s': a group starts the list or follows a comma", list);
	else if (*p == '}' && !open)
		kp_error("bad event list '%s': '}' without '{'", list);
	else if (*p == '}' && p[1] && p[1] != ',')
		kp_error("bad event list '%s': a group ends with '}' and takes no modifiers",
			 list);
	else if (!*p && open)
		kp_error("bad event list '%s': '{' without '}'", list);
	else
		return 0;
	return -EINVAL;
}

/* Make entries [@first, *@nr) one group; an empty group is an error. */
static int close_group(struct parse_ctx *c, const char *list, size_t first)
{
	if (*c->nr == first) {
		kp_error("bad event list '%s': an empty group", list);
		return -EINVAL;
	}
	for (size_t i = first; i < *c->nr; i++)
		(*c->specs)[i].group_leader = (int)first;
	return 0;
}

int kp_evspec_parse(const char *list, struct kp_evspec **specs, size_t *nr)
{
	struct parse_ctx c = { specs, nr, *nr ? (*specs)[*nr - 1].token : 0, { 0 }, 1 };
	size_t first = *nr, group = 0;
	bool open = false;
	const char *p = list;
	int err = 0;

	while (!err && (*p || open)) {
		size_t len;
		err = group_syntax(list, p, open);
		if (err)
			break;
		if (*p == '{' || *p == '}') {
			if (*p == '}')
				err = close_group(&c, list, group);
			open = *p == '{';
			group = *nr;
			p++;
			continue;
		}
		len = event_len(p);
		if (len) {
			char *tok = xstrndup(p, len);
			c.token++;
			err = parse_token(&c, tok);
			free(tok);
		}
		p += len;
		p += *p == ',';
	}
	if (!err && *nr == first) {
		kp_error("no event in '%s'", list);
		err = -EINVAL;
	}
	return err;
}

int kp_evspec_tp_format(const struct kp_evspec *e, const struct kp_tracefs *t, char **fmt)
{
	const char *colon = strchr(e->name, ':');
	char *sys;
	int err;

	*fmt = NULL;
	if (e->attr.type != PERF_TYPE_TRACEPOINT || (!e->tp_sys && !colon))
		return -EINVAL;
	if (e->tp_sys)
		return kp_tracefs_format(t, e->tp_sys, e->tp_event, fmt);
	sys = xstrndup(e->name, (size_t)(colon - e->name));
	err = kp_tracefs_format(t, sys, colon + 1, fmt);
	free(sys);
	return err;
}

int kp_evspec_parse_arg(const char *list, struct kp_evspec **specs, size_t *nr)
{
	int err = kp_evspec_parse(list, specs, nr);

	return err == -EINVAL ? 2 : err ? 1 : 0;
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
	if (e->modifiers || e->attr.exclude_kernel || e->kind == KP_EVSPEC_TRACEPOINT ||
	    e->kind == KP_EVSPEC_UPROBE || e->kind == KP_EVSPEC_KPROBE)
		return false;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	return true;
}

bool kp_evspec_every_hit(const struct kp_evspec *e)
{
	return e->kind == KP_EVSPEC_TRACEPOINT || e->kind == KP_EVSPEC_UPROBE ||
	       e->kind == KP_EVSPEC_KPROBE || e->kind == KP_EVSPEC_BREAKPOINT;
}

void kp_evspec_free(struct kp_evspec *specs, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(specs[i].spec);
		free(specs[i].filter);
		free(specs[i].name_buf);
		free(specs[i].probe_arg);
		free(specs[i].tp_sys);
		free(specs[i].tp_event);
	}
	free(specs);
}

/* The syntaxes beyond the named events: kp_evspec_list() and `kprof list` show them. */
static const struct {
	const char *syntax, *what;
} syntaxes[] = {
	{ "rNNNN", "raw PMU event NNNN (hex), as the CPU manual numbers it" },
	{ "SYS:NAME", "tracepoint (globs allowed), e.g. sched:sched_switch, ftrace:function" },
	{ "uprobe:PATH:SYMBOL[+OFF]", "user-space probe on function SYMBOL of binary PATH" },
	{ "uretprobe:PATH:SYMBOL[+OFF]", "user-space probe on the returns of SYMBOL" },
	{ "uprobe:PATH:FUNC[:RLN|%return] ARG...",
	  "user-space probe that fetches values: perf probe's ARGs (var, p->f, $retval, %di:s32)" },
	{ "usdt:PATH:[PROVIDER:]NAME [ARG...]",
	  "SDT probe of binary PATH (kprof list --sdt PATH), its arguments arg1..argN" },
	{ "kprobe:FUNC[+OFF]", "kernel probe on FUNC (needs the kprobe PMU)" },
	{ "kretprobe:FUNC", "kernel probe on the returns of FUNC" },
	{ "mem:ADDR[:rwx]", "hardware breakpoint on ADDR (hex): read, write, execute" },
	{ "PMU/TERM=VAL,.../", "event of a sysfs PMU from its format terms" },
	{ "PMU/EVENT/", "named event of a sysfs PMU, e.g. msr/tsc/" },
	{ "{EVENT,EVENT,...}", "group: counted together, the first event leads" },
};

const char *kp_evspec_syntax(size_t i, const char **what)
{
	if (i >= ARRAY_SIZE(syntaxes))
		return NULL;
	*what = syntaxes[i].what;
	return syntaxes[i].syntax;
}

void kp_evspec_list(void)
{
	const char *what;

	for (size_t i = 0; i < ARRAY_SIZE(event_names); i++) {
		const struct kp_evspec_name *e = &event_names[i];
		printf("%-26s [%s]%s%s\n", e->name, kp_evspec_type_name(e->type),
		       e->alias ? " or " : "", e->alias ? e->alias : "");
	}
	for (size_t i = 0; kp_evspec_syntax(i, &what); i++)
		printf("%-26s %s\n", syntaxes[i].syntax, what);
}

/*
 * The hint for a probe, or an event kprof knows more about than kp_perf_explain() does;
 * false (and nothing printed) when there is none. With @print false, only whether.
 */
static bool explain_kind(const struct kp_evspec *e, int err, bool print)
{
	bool perm = err == -EACCES || err == -EPERM;

	switch (e->kind) {
	case KP_EVSPEC_UPROBE:
		if (!perm && (err != -EINVAL || e->tp_sys)) /* one of tracefs: as a tracepoint */
			return false;
		if (print && perm)
			kp_hint("uprobes need CAP_SYS_ADMIN (CAP_PERFMON and "
				"kernel.perf_event_paranoid do not suffice): run kprof as root");
		else if (print)
			kp_hint("the kernel refused a probe at offset %#llx of '%s': not the start "
				"of an instruction?", (unsigned long long)e->attr.probe_offset,
				e->probe_arg);
		return true;
	case KP_EVSPEC_KPROBE:
		if (!perm && err != -ENOENT && err != -EINVAL)
			return false;
		if (print && perm)
			kp_hint("kprobes need CAP_PERFMON or CAP_SYS_ADMIN");
		else if (print)
			kp_hint("'%s' is not a kernel function that can be probed there (see "
				"/proc/kallsyms; notrace functions cannot be)", e->probe_arg);
		return true;
	case KP_EVSPEC_BREAKPOINT:
		if (err != -ENOSPC && err != -EINVAL)
			return false;
		if (print && err == -ENOSPC)
			kp_hint("the CPU has only a few breakpoint registers (4 on x86), shared by "
				"the events of one task");
		else if (print)
			kp_hint("a data breakpoint's address must be aligned to its 8 bytes");
		return true;
	case KP_EVSPEC_PMU:
		if (err != -EINVAL)
			return false;
		if (print && (e->attr.freq || e->attr.sample_period))
			kp_hint("some PMUs can only count, not sample (msr, for one): 'kprof stat -e "
				"%s' counts it", e->spec);
		else if (print)
			kp_hint("the PMU refuses this configuration (config %#llx, config1 %#llx, "
				"config2 %#llx)", (unsigned long long)e->attr.config,
				(unsigned long long)e->attr.config1, (unsigned long long)e->attr.config2);
		return true;
	case KP_EVSPEC_TRACEPOINT:
		if (!perm || strcmp(e->name, "ftrace:function"))
			return false;
		if (print)
			kp_hint("the kernel lets perf use the function tracer only for root, and "
				"some kernels refuse it even to root");
		return true;
	default:
		return false;
	}
}

void kp_evspec_explain(const struct kp_evspec *e, int err)
{
	if (!explain_kind(e, err, false)) {
		kp_perf_explain(e->spec, &e->attr, err);
		return;
	}
	kp_error("cannot open event '%s': %s", e->spec, strerror(-err));
	explain_kind(e, err, true);
}

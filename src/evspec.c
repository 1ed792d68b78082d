/* SPDX-License-Identifier: MIT */
#include "evspec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "formats/util.h"

struct event_name {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *alias;
};

static const struct event_name event_names[] = {
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
};

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
		kp_hint("'kprof record --help' lists the events kprof knows");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(event_names); i++)
		if (edit_distance(name, event_names[i].name) == best)
			kp_hint("did you mean '%s'?", event_names[i].name);
}

static const struct event_name *lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(event_names); i++) {
		const struct event_name *e = &event_names[i];
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

static int parse_one(char *text, struct kp_evspec *e)
{
	char *colon = strchr(text, ':');
	const struct event_name *n;

	memset(e, 0, sizeof(*e));
	e->spec = kp_xstrdup(text);
	if (colon)
		*colon = '\0';
	n = lookup(text);
	if (!n) {
		kp_error("unknown event '%s'", text);
		suggest(text);
		return -EINVAL;
	}
	e->name = n->name;
	e->attr.size = sizeof(e->attr);
	e->attr.type = n->type;
	e->attr.config = n->config;
	if (colon && apply_modifiers(e, colon + 1)) {
		kp_error("bad modifier ':%s' in event '%s': only 'u' and 'k' are known",
			 colon + 1, e->spec);
		return -EINVAL;
	}
	return 0;
}

int kp_evspec_parse(const char *list, struct kp_evspec **specs, size_t *nr)
{
	char *copy = kp_xstrdup(list), *save = NULL, *tok;
	int err = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		*specs = kp_xrealloc(*specs, (*nr + 1) * sizeof(**specs));
		err = parse_one(tok, &(*specs)[*nr]);
		(*nr)++;
		if (err)
			break;
	}
	if (!err && !*nr) {
		kp_error("no event in '%s'", list);
		err = -EINVAL;
	}
	free(copy);
	return err;
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
	if (e->modifiers || e->attr.exclude_kernel)
		return false;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	return true;
}

void kp_evspec_free(struct kp_evspec *specs, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(specs[i].spec);
	free(specs);
}

void kp_evspec_list(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(event_names); i++) {
		const struct event_name *e = &event_names[i];
		printf("%-20s %s%s%s\n", e->name,
		       e->type == PERF_TYPE_HARDWARE ? "[hardware event]" : "[software event]",
		       e->alias ? " or " : "", e->alias ? e->alias : "");
	}
}

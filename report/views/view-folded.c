/* SPDX-License-Identifier: MIT */
/*
 * view-folded.c - FlameGraph's folded stacks: one line per distinct stack, "comm;caller;...;
 * leaf count", sorted, as flamegraph.pl, inferno and speedscope read them. The count is the
 * stack's weight (kp_view_weight(): its period, or with --weight samples its samples), for a
 * time profile in ns, or in µs or ms with --folded-unit (thousandths kept). Names
 * have ';' (the separator) replaced by ':', and their control characters escaped as every text
 * output escapes them (kp_text_put()), so that every line stays one stack.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/text.h"
#include "svg.h"
#include "view.h"

struct folded {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	double base_t, new_t;	/* diff: the totals of BASE and NEW */
	char *buf;		/* the current path */
	size_t len, cap;
	char **lines;
	size_t nr, lines_cap;
};

static void push_name(struct folded *f, uint32_t node)
{
	const struct kp_profile *p = f->p;
	const struct kp_loc *l = &p->locs[p->nodes[node].loc];
	const char *name = kp_strtab_get(p->strs, p->funcs[l->func].name);
	const char *suffix = f->o->annotate ? kp_view_annotation(l->flags) : "";
	size_t n = kp_text_len(name);

	KP_GROW(f->buf, f->cap, f->len + n + 8);
	if (f->len)
		f->buf[f->len++] = ';';
	kp_text_escape(name, f->buf + f->len, n + 1); /* no line break, as every text output */
	for (char *c = f->buf + f->len; *c; c++)
		if (*c == ';') /* the separator */
			*c = ':';
	f->len += n;
	memcpy(f->buf + f->len, suffix, strlen(suffix));
	f->len += strlen(suffix);
}

/* --folded-unit: ns, us (µs) or ms, the divisor of a time profile's ns */
static const struct { const char *name; double div; } folded_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 },
};

static int parse_unit(struct kp_view_opts *o, const char *arg, char *why, size_t size)
{
	for (size_t i = 0; i < ARRAY_SIZE(folded_units); i++)
		if (!strcmp(arg, folded_units[i].name)) {
			o->folded_unit = folded_units[i].div > 1 ? folded_units[i].name : NULL;
			return 0;
		}
	snprintf(why, size, "bad --folded-unit '%s' (known: ns, us, ms)", arg);
	return -EINVAL;
}

const struct kp_view_option kp_folded_options[] = {
	{ "folded-unit", "UNIT", "a time profile's counts in ns (default), us or ms", parse_unit },
	{ NULL, NULL, NULL, NULL },
};

static double unit_div(const struct kp_view_opts *o)
{
	for (size_t i = 0; o->folded_unit && i < ARRAY_SIZE(folded_units); i++)
		if (!strcmp(o->folded_unit, folded_units[i].name))
			return folded_units[i].div;
	return 1;
}

/* A folded value: thousandths kept when they are not zero. */
static int put_value(char *buf, size_t n, double v)
{
	if (v == (double)(uint64_t)v)
		return snprintf(buf, n, "%llu", (unsigned long long)v);
	return snprintf(buf, n, "%.3f", v);
}

static void add_line(struct folded *f, const char *counts)
{
	size_t n = f->len + strlen(counts) + 2;
	char *line = kp_xmalloc(n);

	snprintf(line, n, "%.*s %s", (int)f->len, f->buf, counts);
	KP_GROW(f->lines, f->lines_cap, f->nr + 1);
	f->lines[f->nr++] = line;
}

/* Does @node carry weight for this output: the event, or either side of a diff? */
static bool has_weight(const struct folded *f, uint32_t node, bool self)
{
	const struct kp_weight *(*get)(const struct kp_profile *, uint32_t, size_t) =
		self ? kp_profile_self : kp_profile_total;

	if (f->o->svg.diff)
		return get(f->p, node, 0)->period || get(f->p, node, 1)->period;
	return kp_view_weight(f->o, get(f->p, node, f->o->event));
}

static void walk(struct folded *f, uint32_t node)
{
	const struct kp_profile *p = f->p;
	size_t len = f->len;
	char counts[96];

	push_name(f, node);
	if (has_weight(f, node, true)) {
		if (f->o->svg.diff) { /* "BASE NEW", BASE normalised as difffolded.pl -n does */
			int n = put_value(counts, sizeof(counts),
					  kp_svg_diff_base(&f->o->svg,
							   kp_profile_self(p, node, 0)->period / 1000.0,
							   f->base_t, f->new_t));
			counts[n++] = ' ';
			put_value(counts + n, sizeof(counts) - n,
				  kp_profile_self(p, node, 1)->period / 1000.0);
		} else if (f->o->folded_unit) {
			put_value(counts, sizeof(counts),
				  (double)kp_view_weight(f->o, kp_profile_self(p, node, f->o->event)) /
					  unit_div(f->o));
		} else {
			snprintf(counts, sizeof(counts), "%llu",
				 (unsigned long long)kp_view_weight(
					 f->o, kp_profile_self(p, node, f->o->event)));
		}
		add_line(f, counts);
	}
	for (uint32_t c = p->first_child[node]; c; c = p->next_sibling[c])
		if (has_weight(f, c, false))
			walk(f, c);
	f->len = len;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kp_view_folded(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	struct folded f = { p, o, 0, 0, NULL, 0, 0, NULL, 0, 0 };

	if (o->svg.diff) {
		f.base_t = kp_profile_total(p, 0, 0)->period / 1000.0;
		f.new_t = kp_profile_total(p, 0, 1)->period / 1000.0;
	}
	for (uint32_t c = p->first_child[0]; c; c = p->next_sibling[c])
		if (has_weight(&f, c, false))
			walk(&f, c);
	if (f.nr > 1)
		qsort(f.lines, f.nr, sizeof(*f.lines), cmp_line);
	for (size_t i = 0; i < f.nr; i++) {
		fputs(f.lines[i], out);
		fputc('\n', out);
		free(f.lines[i]);
	}
	free(f.lines);
	free(f.buf);
	return 0;
}

/* SPDX-License-Identifier: MIT */
#include "view.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

const struct kp_view kp_views[] = {
	{ "tree", kp_view_tree, "caller-based call tree with total and self percentages",
	  .text = true, .inverted = KP_INVERTED_CALLEES, .diff = true },
	{ "flat", kp_view_flat, "functions by self time", .text = true },
	{ "folded", kp_view_folded, "FlameGraph's folded stacks: comm;frame;...;leaf count",
	  .one_event = true },
	{ "svg", kp_view_svg, "an interactive flame graph", .one_event = true,
	  .inverted = KP_INVERTED_ICICLE, .seq = true },
	{ "pprof", kp_view_pprof, "pprof's profile.proto, gzipped: go tool pprof, Pyroscope, Parca",
	  .one_event = true, .timeline = true, .addrs = true, .binary = true,
	  .options = kp_pprof_options },
};
const size_t kp_nr_views = ARRAY_SIZE(kp_views);

const struct kp_view *kp_view_find(const char *name)
{
	for (size_t i = 0; i < kp_nr_views; i++)
		if (!strcmp(kp_views[i].name, name))
			return &kp_views[i];
	return NULL;
}

double kp_view_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

double kp_view_pct_d(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

void kp_svg_opts_init(struct kp_svg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->frame_height = 16;
	o->minwidth = 0.1;
	o->fontsize = 12;
	o->normalize = true;
}

void kp_view_print_pct(FILE *out, double pct, bool color)
{
	const char *c = !color ? NULL : pct >= 5.0 ? "\033[31m" : pct >= 0.5 ? "\033[32m" : NULL;

	if (c)
		fprintf(out, "%s%6.2f%%\033[0m", c, pct);
	else
		fprintf(out, "%6.2f%%", pct);
}

struct child_sort {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
};

/* Larger totals first; equal ones by name, so the output is deterministic. */
static int cmp_child(const void *a, const void *b, void *ctx)
{
	const struct child_sort *cs = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t tx = kp_view_weight(cs->o, kp_profile_total(cs->p, x, cs->o->event));
	uint64_t ty = kp_view_weight(cs->o, kp_profile_total(cs->p, y, cs->o->event));

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(kp_profile_name(cs->p, x), kp_profile_name(cs->p, y));
}

size_t kp_view_children(const struct kp_profile *p, const struct kp_view_opts *o, uint32_t node,
			uint32_t **out)
{
	struct child_sort cs = { p, o };
	size_t n = 0, cap = 0;
	uint32_t *v = NULL;

	for (uint32_t c = p->first_child[node]; c; c = p->next_sibling[c]) {
		if (!kp_profile_total(p, c, o->event)->count &&
		    !(o->diff && kp_profile_total(p, c, 0)->count))
			continue; /* another event's branch; in a diff, BASE's are shown: vanished */
		KP_GROW(v, cap, n + 1);
		v[n++] = c;
	}
	if (n > 1)
		qsort_r(v, n, sizeof(*v), cmp_child, &cs);
	*out = v;
	return n;
}

/* SPDX-License-Identifier: MIT */
/*
 * view-tree.c - the call tree as indented text, like perf's graph mode: each line has the
 * node's total and self share of the event's period, then the function, under its caller
 * (or, for an inverted profile, under its callee). Children go largest first.
 */
#include <stdlib.h>
#include <string.h>

#include "report/base/text.h"
#include "view.h"

struct tree {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	FILE *out;
	uint64_t whole;
	uint64_t base_whole;	/* diff: BASE's total */
	char prefix[1024];	/* "|  " or "   " per level above */
};

static void print_name(struct tree *t, uint32_t node)
{
	const struct kp_profile *p = t->p;
	const struct kp_loc *l = &p->locs[p->nodes[node].loc];

	kp_text_put(t->out, 0, kp_strtab_get(p->strs, p->funcs[l->func].name));
	if (l->flags & KP_LOC_KERNEL)
		fputs(" [k]", t->out);
	if (l->flags & KP_LOC_INLINED)
		fputs(" (inlined)", t->out);
	if (t->o->srcline && l->file) { /* the file's last component, as perf shows it */
		const char *file = kp_strtab_get(p->strs, l->file), *slash = strrchr(file, '/');
		fputc(' ', t->out);
		kp_text_put(t->out, 0, slash ? slash + 1 : file);
		fprintf(t->out, ":%u", l->line);
	}
	fputc('\n', t->out);
}

static void print_node(struct tree *t, uint32_t node, size_t depth, bool last)
{
	const struct kp_weight *tot = kp_profile_total(t->p, node, t->o->event);
	const struct kp_weight *self = kp_profile_self(t->p, node, t->o->event);
	size_t len = strlen(t->prefix);
	uint32_t *kids;
	size_t n;

	fputc(' ', t->out);
	kp_view_print_pct(t->out, kp_pct(kp_view_weight(t->o, tot), t->whole), t->o->color);
	fputs("  ", t->out);
	kp_view_print_pct(t->out, kp_pct(kp_view_weight(t->o, self), t->whole), t->o->color);
	if (kp_view_durations(t->p, t->o)) {
		fputs("  ", t->out);
		kp_view_print_time(t->out, tot->period);
	}
	if (t->o->diff) { /* NEW's share minus BASE's share, each of its own total */
		double d = kp_pct(kp_view_weight(t->o, tot), t->whole) -
			   kp_pct(kp_view_weight(t->o, kp_profile_total(t->p, node, 0)), t->base_whole);
		fprintf(t->out, "  %+7.2f%%", d);
	}
	fprintf(t->out, "  %s%s", t->prefix, depth ? (last ? "`- " : "|- ") : "");
	print_name(t, node);

	n = kp_view_children(t->p, t->o, node, &kids);
	if (depth && len + 4 < sizeof(t->prefix))
		strcat(t->prefix, last ? "   " : "|  ");
	for (size_t i = 0; i < n; i++) {
		double pct = kp_pct(
			kp_view_weight(t->o, kp_profile_total(t->p, kids[i], t->o->event)), t->whole);
		if (pct < t->o->percent_limit)
			continue;
		/* "last" must account for siblings hidden by the limit: they are sorted after */
		bool is_last = i + 1 == n ||
			       kp_pct(kp_view_weight(t->o, kp_profile_total(t->p, kids[i + 1],
										  t->o->event)),
					   t->whole) < t->o->percent_limit;
		print_node(t, kids[i], depth + 1, is_last);
	}
	t->prefix[len] = '\0';
	free(kids);
}

int kp_view_tree(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	struct tree t = { p, o, out, kp_view_weight(o, kp_profile_total(p, 0, o->event)),
			  kp_view_weight(o, kp_profile_total(p, 0, 0)), "" };
	uint32_t *tops;
	size_t n = kp_view_children(p, o, 0, &tops);

	fprintf(out, "#   total     self  %s%s%s\n#\n",
		kp_view_durations(p, o) ? "  total time  " : "", o->diff ? "   change  " : "",
		o->inverted ? "callee tree: each function above the ones that called it"
			    : "call tree: each function above the ones it called");
	for (size_t i = 0; i < n; i++)
		if (kp_pct(kp_view_weight(o, kp_profile_total(p, tops[i], o->event)), t.whole) >=
		    o->percent_limit)
			print_node(&t, tops[i], 0, true);
	free(tops);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * view-folded.c - FlameGraph's folded stacks: one line per distinct stack, "comm;caller;...;
 * leaf count", sorted, as flamegraph.pl, inferno and speedscope read them. The count is the
 * number of samples. Names have ';' (the separator) and line breaks replaced so that every
 * line stays one stack.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "view.h"

struct folded {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
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
	const char *suffix = "";
	size_t n = strlen(name);

	if (f->o->annotate)
		suffix = l->flags & KP_LOC_KERNEL ? "_[k]"
			 : l->flags & KP_LOC_INLINED ? "_[i]"
			 : l->flags & KP_LOC_JIT ? "_[j]"
						 : "";
	KP_GROW(f->buf, f->cap, f->len + n + 8);
	if (f->len)
		f->buf[f->len++] = ';';
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		f->buf[f->len++] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
	}
	memcpy(f->buf + f->len, suffix, strlen(suffix));
	f->len += strlen(suffix);
}

static void walk(struct folded *f, uint32_t node)
{
	const struct kp_profile *p = f->p;
	size_t len = f->len;
	uint64_t self;

	push_name(f, node);
	self = kp_profile_self(p, node, f->o->event)->count;
	if (self) {
		char *line = kp_xmalloc(f->len + 24);
		snprintf(line, f->len + 24, "%.*s %llu", (int)f->len, f->buf,
			 (unsigned long long)self);
		KP_GROW(f->lines, f->lines_cap, f->nr + 1);
		f->lines[f->nr++] = line;
	}
	for (uint32_t c = p->first_child[node]; c; c = p->next_sibling[c])
		if (kp_profile_total(p, c, f->o->event)->count)
			walk(f, c);
	f->len = len;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kp_view_folded(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	struct folded f = { p, o, NULL, 0, 0, NULL, 0, 0 };

	for (uint32_t c = p->first_child[0]; c; c = p->next_sibling[c])
		if (kp_profile_total(p, c, o->event)->count)
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

/* SPDX-License-Identifier: MIT */
/*
 * view-flat.c - functions by self time: self %, total %, samples, and the grouping keys
 * (--sort cgroup,comm,dso,sym; default sym, which also keeps functions of different DSOs
 * apart). The cgroup key needs the stacks to carry it (kp_report_opts.cgroup_root).
 * A function's total counts each sample once, however often it recurs in the stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/hash.h"
#include "report/base/strtab.h"
#include "report/base/text.h"
#include "view.h"

struct flat {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	size_t event;
	unsigned keys;
	struct kp_flat_row *rows;
	size_t nr, cap;
	struct kp_hash ids;
	uint32_t *row_of;	/* node -> row + 1 (0: the root and comm nodes) */
	uint32_t *comm_of;	/* node -> strtab id of its comm */
	uint32_t *cgroup_of;	/* node -> strtab id of its cgroup */
};

/* --sort: some of comm,dso,sym, into kp_view_opts.sort (KP_SORT_*) */
static int parse_sort(struct kp_view_opts *o, const char *arg, char *why, size_t size)
{
	char *copy = kp_xstrdup(arg), *save = NULL, *tok;
	unsigned keys = 0;
	int rc = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "cgroup"))
			keys |= KP_SORT_CGROUP;
		else if (!strcmp(tok, "comm"))
			keys |= KP_SORT_COMM;
		else if (!strcmp(tok, "dso"))
			keys |= KP_SORT_DSO;
		else if (!strcmp(tok, "sym"))
			keys |= KP_SORT_SYM;
		else
			rc = -EINVAL;
	}
	free(copy);
	if (rc || !keys) {
		snprintf(why, size, "bad --sort keys '%s' (known: cgroup, comm, dso, sym)", arg);
		return -EINVAL;
	}
	o->sort = keys;
	return 0;
}

const struct kp_view_option kp_flat_options[] = {
	{ "sort", "KEYS", "group by some of cgroup,comm,dso,sym (default sym)", parse_sort },
	{ NULL, NULL, NULL, NULL },
};

struct want_row {
	const struct flat *f;
	uint32_t k[4];
};

static bool same_row(const void *ctx, uint64_t id)
{
	const struct want_row *w = ctx;
	const struct kp_flat_row *r = &w->f->rows[id];

	return r->comm == w->k[0] && r->dso == w->k[1] && r->sym == w->k[2] && r->cgroup == w->k[3];
}

static uint32_t row_for(struct flat *f, uint32_t node)
{
	const struct kp_profile *p = f->p;
	const struct kp_func *fn = &p->funcs[p->locs[p->nodes[node].loc].func];
	struct want_row want = { f, { f->keys & KP_SORT_COMM ? f->comm_of[node] : 0,
				      f->keys & KP_SORT_DSO ? fn->dso : 0,
				      f->keys & KP_SORT_SYM ? fn->name : 0,
				      f->keys & KP_SORT_CGROUP ? f->cgroup_of[node] : 0 } };
	const uint32_t *k = want.k;
	uint64_t key = kp_hash_bytes(k, sizeof(want.k), 3);
	uint64_t *id = kp_hash_find(&f->ids, &key, same_row, &want);

	if (id)
		return (uint32_t)*id;
	KP_GROW(f->rows, f->cap, f->nr + 1);
	memset(&f->rows[f->nr], 0, sizeof(f->rows[0]));
	f->rows[f->nr].comm = k[0];
	f->rows[f->nr].dso = k[1];
	f->rows[f->nr].sym = k[2];
	f->rows[f->nr].cgroup = k[3];
	kp_hash_put(&f->ids, key, f->nr);
	return (uint32_t)f->nr++;
}

/* Does an ancestor of @node (below the comm) fall in the same row? Then its total counts. */
static bool row_above(const struct flat *f, uint32_t node, uint32_t row)
{
	for (uint32_t a = f->p->nodes[node].parent; a; a = f->p->nodes[a].parent)
		if (f->row_of[a] == row + 1)
			return true;
	return false;
}

static void collect(struct flat *f)
{
	const struct kp_profile *p = f->p;

	/* parents come before children, so one forward pass sees every ancestor first */
	for (uint32_t n = 1; n < p->nr_nodes; n++) {
		const struct kp_loc *l = &p->locs[p->nodes[n].loc];
		const struct kp_weight *s = kp_profile_self(p, n, f->event);
		const struct kp_weight *t = kp_profile_total(p, n, f->event);
		uint32_t parent = p->nodes[n].parent, r;

		f->comm_of[n] = (l->flags & KP_LOC_COMM) ? p->funcs[l->func].name : f->comm_of[parent];
		f->cgroup_of[n] = (l->flags & KP_LOC_CGROUP) ? p->funcs[l->func].name
							      : f->cgroup_of[parent];
		if ((l->flags & (KP_LOC_COMM | KP_LOC_CGROUP)) || !t->count)
			continue;
		r = row_for(f, n);
		f->row_of[n] = r + 1;
		f->rows[r].self.count += s->count;
		f->rows[r].self.period += s->period;
		if (!row_above(f, n, r)) {
			f->rows[r].total.count += t->count;
			f->rows[r].total.period += t->period;
		}
	}
}

static int cmp_row(const void *a, const void *b, void *ctx)
{
	const struct flat *f = ctx;
	const struct kp_flat_row *x = a, *y = b;
	uint64_t xs = kp_view_weight(f->o, &x->self), ys = kp_view_weight(f->o, &y->self);
	uint64_t xt = kp_view_weight(f->o, &x->total), yt = kp_view_weight(f->o, &y->total);

	if (xs != ys)
		return xs > ys ? -1 : 1;
	if (xt != yt)
		return xt > yt ? -1 : 1;
	return strcmp(kp_strtab_get(f->p->strs, x->sym), kp_strtab_get(f->p->strs, y->sym));
}

/* A key of a row: two spaces, then the name escaped and padded as printf's "%*s". */
static void put_key(FILE *out, int width, const char *name)
{
	fputs("  ", out);
	kp_text_put(out, width, name);
}

static void print(const struct kp_profile *p, const struct kp_view_opts *o, unsigned keys,
		  const struct kp_flat_row *rows, size_t nr, FILE *out)
{
	uint64_t whole = kp_view_weight(o, kp_profile_total(p, 0, o->event));
	const struct kp_strtab *s = p->strs;

	bool time = kp_view_durations(p, o);

	fprintf(out, "#    self    total%s   samples%s%s%s%s\n#\n", time ? "     self time" : "",
		keys & KP_SORT_CGROUP ? "  cgroup" : "", keys & KP_SORT_COMM ? "  comm" : "",
		keys & KP_SORT_DSO ? "  dso" : "", keys & KP_SORT_SYM ? "  symbol" : "");
	for (size_t i = 0; i < nr; i++) {
		const struct kp_flat_row *r = &rows[i];
		fputs("  ", out);
		kp_view_print_pct(out, kp_pct(kp_view_weight(o, &r->self), whole), o->color);
		fputs("  ", out);
		kp_view_print_pct(out, kp_pct(kp_view_weight(o, &r->total), whole), o->color);
		if (time) {
			fputs("  ", out);
			kp_view_print_time(out, r->self.period);
		}
		fprintf(out, "  %8llu", (unsigned long long)r->self.count);
		if (keys & KP_SORT_CGROUP)
			put_key(out, -30, kp_strtab_get(s, r->cgroup));
		if (keys & KP_SORT_COMM)
			put_key(out, -15, kp_strtab_get(s, r->comm));
		if (keys & KP_SORT_DSO)
			put_key(out, -20, r->dso ? kp_strtab_get(s, r->dso) : "[unknown]");
		if (keys & KP_SORT_SYM)
			put_key(out, 0, kp_strtab_get(s, r->sym));
		fputc('\n', out);
	}
}

size_t kp_flat_rows(const struct kp_profile *p, const struct kp_view_opts *o,
		    struct kp_flat_row **rows)
{
	struct flat f = { .p = p, .o = o, .event = o->event };

	f.keys = o->sort ? o->sort : KP_SORT_SYM;
	kp_hash_init(&f.ids);
	f.row_of = kp_xcalloc(p->nr_nodes, sizeof(*f.row_of));
	f.comm_of = kp_xcalloc(p->nr_nodes, sizeof(*f.comm_of));
	f.cgroup_of = kp_xcalloc(p->nr_nodes, sizeof(*f.cgroup_of));
	collect(&f);
	if (f.nr > 1)
		qsort_r(f.rows, f.nr, sizeof(*f.rows), cmp_row, &f);
	free(f.row_of);
	free(f.comm_of);
	free(f.cgroup_of);
	kp_hash_release(&f.ids);
	*rows = f.rows;
	return f.nr;
}

int kp_view_flat(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	struct kp_flat_row *rows = NULL;
	size_t n = kp_flat_rows(p, o, &rows);

	print(p, o, o->sort ? o->sort : KP_SORT_SYM, rows, n, out);
	free(rows);
	return 0;
}

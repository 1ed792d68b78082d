/* SPDX-License-Identifier: MIT */
/*
 * view-firefox.c - the Gecko profile format, version 24, which the Firefox Profiler and
 * Perfetto UI open, gzip-compressed, as perf's gecko script writes it: "meta" (the interval,
 * the start time, categories for user, kernel and off-CPU frames), then per thread its
 * samples, stackTable, frameTable and stringTable, each a schema and rows, with frames named
 * "sym (in dso)".
 *
 * It streams: a thread's samples are written as they are read from the timeline, while its
 * stack, frame and string tables, which grow with the distinct stacks and not with the
 * samples, are built beside them and written after. What a thread's tables hold is found
 * through arrays indexed by the profile's nodes and functions, cleared after each thread by
 * the list of what it touched. Nothing grows with the sample count but the gzip output.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "view.h"

#include "formats/util.h"

enum { CAT_USER, CAT_KERNEL, CAT_OFFCPU };

/* A thread's tables: ids are index + 1 in the by-node, by-loc and by-func arrays, 0 none. */
struct gecko {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	struct kp_json *j;
	uint32_t *stack_of, *frame_of, *str_of;		/* by node, loc, func */
	uint32_t *stacks;	/* the stack table: node of each row (its prefix is its parent's) */
	uint32_t *frames;	/* the frame table: loc of each row */
	uint32_t *strs;		/* the string table: func of each row */
	size_t nr_stacks, cap_stacks, nr_frames, cap_frames, nr_strs, cap_strs;
	uint32_t *path;
	size_t cap_path;
	uint64_t t0;		/* the profile's start, ns */
};

static uint32_t str_id(struct gecko *g, uint32_t func)
{
	if (!g->str_of[func]) {
		KP_GROW(g->strs, g->cap_strs, g->nr_strs + 1);
		g->strs[g->nr_strs++] = func;
		g->str_of[func] = (uint32_t)g->nr_strs;
	}
	return g->str_of[func] - 1;
}

static uint32_t frame_id(struct gecko *g, uint32_t loc)
{
	if (!g->frame_of[loc]) {
		str_id(g, g->p->locs[loc].func);
		KP_GROW(g->frames, g->cap_frames, g->nr_frames + 1);
		g->frames[g->nr_frames++] = loc;
		g->frame_of[loc] = (uint32_t)g->nr_frames;
	}
	return g->frame_of[loc] - 1;
}

/* The stack row of @node, its prefixes added first (parents before their children). */
static int64_t stack_id(struct gecko *g, uint32_t node)
{
	size_t n = kp_view_stack(g->p, node, &g->path, &g->cap_path);

	for (size_t d = 0; d < n; d++) {
		uint32_t c = g->path[d];
		if (g->stack_of[c])
			continue;
		frame_id(g, g->p->nodes[c].loc);
		KP_GROW(g->stacks, g->cap_stacks, g->nr_stacks + 1);
		g->stacks[g->nr_stacks++] = c;
		g->stack_of[c] = (uint32_t)g->nr_stacks;
	}
	return n ? (int64_t)g->stack_of[g->path[n - 1]] - 1 : -1;
}

/* "@name": {"schema": {col: index, ...}, "data": [ ... the rows, then table_end() */
static void table(struct kp_json *j, const char *name, const char *const *cols, size_t n)
{
	kp_json_key(j, name);
	kp_json_obj(j);
	kp_json_key(j, "schema");
	kp_json_obj(j);
	for (size_t i = 0; i < n; i++) {
		kp_json_key(j, cols[i]);
		kp_json_u64(j, i);
	}
	kp_json_obj_end(j);
	kp_json_key(j, "data");
	kp_json_arr(j);
}

static void table_end(struct kp_json *j)
{
	kp_json_arr_end(j);
	kp_json_obj_end(j);
}

static void samples(struct gecko *g, const struct kp_view_thread *t, const uint32_t *order)
{
	static const char *const cols[] = { "stack", "time", "responsiveness" };
	const struct kp_seq_ent *ents = g->o->seq->ents;
	struct kp_json *j = g->j;

	table(j, "samples", cols, ARRAY_SIZE(cols));
	for (size_t i = t->first; i < t->first + t->nr; i++) {
		const struct kp_seq_ent *e = &ents[order[i]];
		const struct kp_seq_ent *next = i + 1 < t->first + t->nr ? &ents[order[i + 1]] : NULL;
		uint64_t span = kp_view_run_end(g->p, g->o, e, next) - e->time;
		int64_t stack = stack_id(g, e->node);
		uint32_t n = e->count ? e->count : 1;

		/* a run's samples, spread over its time: the timeline kept the first one's */
		for (uint32_t k = 0; k < n; k++) {
			uint64_t at = e->time + (uint64_t)((double)span * k / n);
			kp_json_arr(j);
			if (stack < 0)
				kp_json_null(j);
			else
				kp_json_u64(j, (uint64_t)stack);
			kp_json_fixed(j, at > g->t0 ? at - g->t0 : 0, 6);
			kp_json_u64(j, 0);
			kp_json_arr_end(j);
		}
	}
	table_end(j);
}

static void tables(struct gecko *g)
{
	static const char *const stack_cols[] = { "prefix", "frame" };
	static const char *const frame_cols[] = { "location", "relevantForJS", "innerWindowID",
		"implementation", "optimizations", "line", "column", "category", "subcategory" };
	const struct kp_profile *p = g->p;
	struct kp_json *j = g->j;

	table(j, "stackTable", stack_cols, ARRAY_SIZE(stack_cols));
	for (size_t i = 0; i < g->nr_stacks; i++) {
		uint32_t node = g->stacks[i], up = p->nodes[node].parent;
		while (up && !g->stack_of[up]) /* the command above the stack is no frame */
			up = p->nodes[up].parent;
		kp_json_arr(j);
		if (up)
			kp_json_u64(j, g->stack_of[up] - 1);
		else
			kp_json_null(j);
		kp_json_u64(j, g->frame_of[p->nodes[node].loc] - 1);
		kp_json_arr_end(j);
	}
	table_end(j);

	table(j, "frameTable", frame_cols, ARRAY_SIZE(frame_cols));
	for (size_t i = 0; i < g->nr_frames; i++) {
		const struct kp_loc *l = &p->locs[g->frames[i]];
		kp_json_arr(j);
		kp_json_u64(j, g->str_of[l->func] - 1);
		kp_json_bool(j, false);
		kp_json_u64(j, 0);
		kp_json_null(j);
		kp_json_null(j);
		if (l->line)
			kp_json_u64(j, l->line);
		else
			kp_json_null(j);
		kp_json_null(j);
		kp_json_u64(j, l->flags & KP_LOC_KERNEL ? CAT_KERNEL : CAT_USER);
		kp_json_u64(j, 0);
		kp_json_arr_end(j);
	}
	table_end(j);

	kp_json_key(j, "stringTable");
	kp_json_arr(j);
	for (size_t i = 0; i < g->nr_strs; i++) {
		const struct kp_func *f = &p->funcs[g->strs[i]];
		const char *dso = f->dso ? kp_strtab_get(p->strs, f->dso) : "";
		const char *base = strrchr(dso, '/');
		if (*dso)
			kp_json_strf(j, "%s (in %s)", kp_strtab_get(p->strs, f->name),
				     base ? base + 1 : dso);
		else
			kp_json_str(j, kp_strtab_get(p->strs, f->name));
	}
	kp_json_arr_end(j);
}

/* What the thread touched, cleared for the next one. */
static void reset(struct gecko *g)
{
	for (size_t i = 0; i < g->nr_stacks; i++)
		g->stack_of[g->stacks[i]] = 0;
	for (size_t i = 0; i < g->nr_frames; i++)
		g->frame_of[g->frames[i]] = 0;
	for (size_t i = 0; i < g->nr_strs; i++)
		g->str_of[g->strs[i]] = 0;
	g->nr_stacks = g->nr_frames = g->nr_strs = 0;
}

static void thread(struct gecko *g, const struct kp_view_thread *t, const uint32_t *order)
{
	static const char *const marker_cols[] = { "name", "startTime", "endTime", "phase",
						   "category", "data" };
	struct kp_json *j = g->j;
	const char *comm = kp_strtab_get(g->p->strs, t->comm);

	kp_json_obj(j);
	kp_json_key(j, "name");
	kp_json_str(j, *comm ? comm : "[unknown]");
	kp_json_key(j, "processName");
	kp_json_str(j, *comm ? comm : "[unknown]");
	kp_json_key(j, "processType");
	kp_json_str(j, "default");
	kp_json_key(j, "pid");
	kp_json_u64(j, t->pid);
	kp_json_key(j, "tid");
	kp_json_u64(j, t->tid);
	kp_json_key(j, "registerTime");
	kp_json_u64(j, 0);
	kp_json_key(j, "unregisterTime");
	kp_json_null(j);
	table(j, "markers", marker_cols, ARRAY_SIZE(marker_cols));
	table_end(j);
	samples(g, t, order);
	tables(g);
	kp_json_obj_end(j);
	reset(g);
}

static void category(struct kp_json *j, const char *name, const char *color)
{
	kp_json_obj(j);
	kp_json_key(j, "name");
	kp_json_str(j, name);
	kp_json_key(j, "color");
	kp_json_str(j, color);
	kp_json_key(j, "subcategories");
	kp_json_arr(j);
	kp_json_str(j, "Other");
	kp_json_arr_end(j);
	kp_json_obj_end(j);
}

static void meta(struct gecko *g)
{
	const struct kp_profile *p = g->p;
	const struct kp_prof_event *ev = g->o->event < p->nr_events ? &p->events[g->o->event] : NULL;
	bool ns = !strcmp(kp_view_unit(p, g->o), "ns") || (ev && ev->unit &&
		  !strcmp(kp_strtab_get(p->strs, ev->unit), "ns"));
	uint64_t interval = ev && ev->freq ? 1000000000 / ev->freq
			    : ev && ev->period && ns ? ev->period : 1000000;
	struct kp_json *j = g->j;

	kp_json_key(j, "meta");
	kp_json_obj(j);
	kp_json_key(j, "version");
	kp_json_u64(j, 24);
	kp_json_key(j, "interval");
	kp_json_fixed(j, interval ? interval : 1, 6);
	kp_json_key(j, "startTime");
	kp_json_fixed(j, g->t0, 6);
	kp_json_key(j, "shutdownTime");
	kp_json_null(j);
	kp_json_key(j, "processType");
	kp_json_u64(j, 0);
	kp_json_key(j, "product");
	kp_json_strf(j, "kprof (%s)", ev && ev->name ? kp_strtab_get(p->strs, ev->name) : "");
	kp_json_key(j, "platform");
	kp_json_str(j, "Linux");
	kp_json_key(j, "stackwalk");
	kp_json_u64(j, 1);
	kp_json_key(j, "debug");
	kp_json_u64(j, 0);
	kp_json_key(j, "gcpoison");
	kp_json_u64(j, 0);
	kp_json_key(j, "asyncstack");
	kp_json_u64(j, 0);
	kp_json_key(j, "presymbolicated");
	kp_json_bool(j, true);
	kp_json_key(j, "categories");
	kp_json_arr(j);
	category(j, "User", "yellow");	/* CAT_USER */
	category(j, "Kernel", "orange");	/* CAT_KERNEL */
	category(j, "Off-CPU", "grey");		/* CAT_OFFCPU */
	kp_json_arr_end(j);
	kp_json_key(j, "markerSchema");
	kp_json_arr(j);
	kp_json_arr_end(j);
	kp_json_obj_end(j);
}

int kp_view_firefox(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	struct kp_view_thread *threads;
	uint32_t *order;
	size_t nr = kp_view_threads(o, false, &threads, &order);
	struct kp_json j;
	struct gecko g = {
		.p = p, .o = o, .j = &j, .t0 = p->t_first,
		.stack_of = kp_xcalloc(p->nr_nodes + 1, sizeof(uint32_t)),
		.frame_of = kp_xcalloc(p->nr_locs + 1, sizeof(uint32_t)),
		.str_of = kp_xcalloc(p->nr_funcs + 1, sizeof(uint32_t)),
	};

	kp_json_init(&j, out, true);
	kp_json_obj(&j);
	meta(&g);
	kp_json_key(&j, "libs");
	kp_json_arr(&j);
	kp_json_arr_end(&j);
	kp_json_key(&j, "pausedRanges");
	kp_json_arr(&j);
	kp_json_arr_end(&j);
	kp_json_key(&j, "processes");
	kp_json_arr(&j);
	kp_json_arr_end(&j);
	kp_json_key(&j, "threads");
	kp_json_arr(&j);
	for (size_t t = 0; t < nr; t++)
		thread(&g, &threads[t], order);
	kp_json_arr_end(&j);
	kp_json_obj_end(&j);
	kp_json_finish(&j); /* a failed write is the stream's error, which the command checks */
	free(g.stack_of);
	free(g.frame_of);
	free(g.str_of);
	free(g.stacks);
	free(g.frames);
	free(g.strs);
	free(g.path);
	free(threads);
	free(order);
	return 0;
}

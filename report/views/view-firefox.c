/* SPDX-License-Identifier: MIT */
/*
 * view-firefox.c - the Gecko profile format, version 24, which the Firefox Profiler and
 * Perfetto UI open, gzip-compressed, as perf's gecko script writes it: "meta" (the interval,
 * the start time, categories for user, kernel and off-CPU frames and for CPUs, the schemas of
 * the markers' data), then per thread its markers, samples, stackTable, frameTable and
 * stringTable, each a schema and rows, with frames named "sym (in dso)".
 *
 * It streams: a thread's samples are written as they are read from the timeline, while its
 * stack, frame and string tables, which grow with the distinct stacks and not with the
 * samples, are built beside them and written after. What a thread's tables hold is found
 * through arrays indexed by the profile's nodes and functions, cleared after each thread by
 * the list of what it touched. Nothing grows with the sample count but the gzip output.
 *
 * Off-CPU intervals (record --off-cpu) are interval markers of their thread, "[blocked]" or
 * "[runnable]" in the Off-CPU category, whatever event the samples are of: the Firefox
 * Profiler shows markers beside the samples, so the CPU samples' profile shows where the
 * thread waited too. Their data ("OffCPU" in meta.markerSchema) is the wait in ns and the
 * innermost user function of the stack where the thread left the CPU. A thread with no
 * sample but intervals is there for them.
 *
 * With sched:sched_switch samples (record -a -e sched:sched_switch), each CPU is a thread of
 * its own, "CPU N" of a process "CPUs", with no samples and an interval marker (of type
 * "Task") per task's stretch on it, named by the task's command, as kernelshark draws a CPU
 * (kp_view_cpu_slices()). The process's pid is 4194304 (2^22), which no Linux task can have
 * (PID_MAX_LIMIT), the same as in the Chrome trace; CPU N's tid is that plus N. Where a
 * switch was not recorded, the stretch between two tasks is a marker "[switch not recorded]"
 * whose data give both: tid, then then_tid.
 *
 * Marker names are indices into the thread's string table, like frames' names: the markers
 * are written before the samples, so their names ("literals") take the table's first rows
 * and the functions' names follow.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "view.h"

#include "formats/util.h"

enum { CAT_USER, CAT_KERNEL, CAT_OFFCPU, CAT_CPU };

#define CPUS_PID	4194304u	/* the CPU threads' process: PID_MAX_LIMIT, no task's */

/* A string of the table that is no function's name: a marker's. */
struct lit {
	const char *s;		/* borrowed from the profile or static; not terminated */
	size_t len;
};

/* A thread's tables: ids are index + 1 in the by-node, by-loc and by-func arrays, 0 none. */
struct gecko {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	struct kp_json *j;
	uint32_t *stack_of, *frame_of, *str_of;		/* by node, loc, func */
	uint32_t *stacks;	/* the stack table: node of each row (its prefix is its parent's) */
	uint32_t *frames;	/* the frame table: loc of each row */
	uint32_t *strs;		/* the string table after the literals: func of each row */
	size_t nr_stacks, cap_stacks, nr_frames, cap_frames, nr_strs, cap_strs;
	struct lit *lits;	/* the string table's first rows: the markers' names */
	size_t nr_lits, cap_lits;
	struct kp_hash lit_of;	/* a literal's bytes' hash -> its row */
	uint32_t *path;
	size_t cap_path;
	uint64_t t0;		/* the profile's start, ns */
};

static uint32_t str_id(struct gecko *g, uint32_t func)
{
	if (!g->str_of[func]) {
		KP_GROW(g->strs, g->cap_strs, g->nr_strs + 1);
		g->strs[g->nr_strs++] = func;
		g->str_of[func] = (uint32_t)(g->nr_lits + g->nr_strs);
	}
	return g->str_of[func] - 1;
}

struct lit_key {
	const struct gecko *g;
	struct lit l;
};

static bool same_lit(const void *ctx, uint64_t row)
{
	const struct lit_key *k = ctx;
	const struct lit *l = &k->g->lits[row];

	return l->len == k->l.len && !memcmp(l->s, k->l.s, l->len);
}

/* The row of marker name @s (@len bytes), added if new. Only before the thread's first
 * function name: the functions' rows follow the literals' (the header comment). */
static uint32_t lit_id(struct gecko *g, const char *s, size_t len)
{
	struct lit_key k = { g, { s, len } };
	uint64_t key = kp_hash_bytes(s, len, 0), *row = kp_hash_find(&g->lit_of, &key, same_lit, &k);

	if (row)
		return (uint32_t)*row;
	KP_GROW(g->lits, g->cap_lits, g->nr_lits + 1);
	g->lits[g->nr_lits] = k.l;
	kp_hash_put(&g->lit_of, key, g->nr_lits);
	return (uint32_t)g->nr_lits++;
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

/* @ns of the recording's clock as ms since meta.startTime, as every time of the file */
static void json_ms(struct gecko *g, uint64_t ns)
{
	kp_json_fixed(g->j, ns > g->t0 ? ns - g->t0 : 0, 6);
}

/* The samples of run @e, @next being the thread's next run of the same event (or NULL). */
static void run(struct gecko *g, const struct kp_seq_ent *e, const struct kp_seq_ent *next)
{
	struct kp_json *j = g->j;
	uint64_t span = kp_view_run_end(g->p, g->o, e, next) - e->time;
	int64_t stack = stack_id(g, e->node);
	uint32_t n = e->count ? e->count : 1;

	/* a run's samples, spread over its time: the timeline kept the first one's */
	for (uint32_t k = 0; k < n; k++) {
		kp_json_arr(j);
		if (stack < 0)
			kp_json_null(j);
		else
			kp_json_u64(j, (uint64_t)stack);
		json_ms(g, e->time + (uint64_t)((double)span * k / n));
		kp_json_u64(j, 0);
		kp_json_arr_end(j);
	}
}

static const char *const sample_cols[] = { "stack", "time", "responsiveness" };

/* The thread's samples of the view's event; the other events' entries are markers or none. */
static void samples(struct gecko *g, const struct kp_view_thread *t, const uint32_t *order)
{
	const struct kp_seq_ent *ents = g->o->seq->ents, *prev = NULL;

	table(g->j, "samples", sample_cols, ARRAY_SIZE(sample_cols));
	for (size_t i = t->first; i < t->first + t->nr; i++) {
		const struct kp_seq_ent *e = &ents[order[i]];

		if (e->event != g->o->event)
			continue;
		if (prev)
			run(g, prev, e);
		prev = e;
	}
	if (prev)
		run(g, prev, NULL);
	table_end(g->j);
}

static const char *const marker_cols[] = { "name", "startTime", "endTime", "phase", "category",
					   "data" };

/* An interval marker's row up to its data, which the caller writes and ends with the row. */
static void marker(struct gecko *g, uint32_t name, uint64_t start, uint64_t end, unsigned cat)
{
	kp_json_arr(g->j);
	kp_json_u64(g->j, name);
	json_ms(g, start);
	json_ms(g, end);
	kp_json_u64(g->j, 1); /* an interval: phase Interval */
	kp_json_u64(g->j, cat);
	kp_json_obj(g->j);
	kp_json_key(g->j, "type");
}

/* The innermost user function of @node's stack: what the thread called that blocked, past the
 * kernel's frames and kprof's own ([runqueue], [off-CPU without a stack]: unnamed, no dso).
 * NULL when none (a kernel thread, a switch-out without a stack). */
static const char *user_function(const struct kp_profile *p, uint32_t node)
{
	for (uint32_t c = node; c && c < p->nr_nodes; c = p->nodes[c].parent) {
		const struct kp_loc *l = &p->locs[p->nodes[c].loc];

		if (!(l->flags & (KP_LOC_KERNEL | KP_LOC_COMM)) &&
		    !(l->flags & KP_LOC_UNNAMED && !p->funcs[l->func].dso))
			return kp_strtab_get(p->strs, p->funcs[l->func].name);
	}
	return NULL;
}

static void off_cpu_marker(struct gecko *g, const struct kp_seq_ent *e)
{
	const char *name = e->kind == KP_SEQ_BLOCKED ? "[blocked]" : "[runnable]";
	const char *func = user_function(g->p, e->node);

	marker(g, lit_id(g, name, strlen(name)), e->time, kp_view_run_end(g->p, g->o, e, NULL),
	       CAT_OFFCPU);
	kp_json_str(g->j, "OffCPU");
	kp_json_key(g->j, "wait");
	kp_json_u64(g->j, e->span);
	if (func) {
		kp_json_key(g->j, "function");
		kp_json_str(g->j, func);
	}
	kp_json_obj_end(g->j);
	kp_json_arr_end(g->j);
}

/* The thread's off-CPU intervals, of whichever event they are (the header comment). */
static void off_cpu_markers(struct gecko *g, const struct kp_view_thread *t,
			    const uint32_t *order)
{
	table(g->j, "markers", marker_cols, ARRAY_SIZE(marker_cols));
	for (size_t i = t->first; i < t->first + t->nr; i++)
		if (g->o->seq->ents[order[i]].kind != KP_SEQ_SAMPLES)
			off_cpu_marker(g, &g->o->seq->ents[order[i]]);
	table_end(g->j);
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
	for (size_t i = 0; i < g->nr_lits; i++)
		kp_json_str_len(j, g->lits[i].s, g->lits[i].len);
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
	g->nr_stacks = g->nr_frames = g->nr_strs = g->nr_lits = 0;
	kp_hash_release(&g->lit_of);
	kp_hash_init(&g->lit_of);
}

/* A thread's object up to its markers. */
static void thread_head(struct kp_json *j, const char *name, const char *process, uint32_t pid,
			uint32_t tid)
{
	kp_json_obj(j);
	kp_json_key(j, "name");
	kp_json_str(j, name);
	kp_json_key(j, "processName");
	kp_json_str(j, process);
	kp_json_key(j, "processType");
	kp_json_str(j, "default");
	kp_json_key(j, "pid");
	kp_json_u64(j, pid);
	kp_json_key(j, "tid");
	kp_json_u64(j, tid);
	kp_json_key(j, "registerTime");
	kp_json_u64(j, 0);
	kp_json_key(j, "unregisterTime");
	kp_json_null(j);
}

/* Whether @t has samples of the view's event or off-CPU intervals: the timeline's threads
 * are those of every event, which a thread of sched_switch samples alone is not shown for. */
static bool shown(const struct gecko *g, const struct kp_view_thread *t, const uint32_t *order)
{
	for (size_t i = t->first; i < t->first + t->nr; i++) {
		const struct kp_seq_ent *e = &g->o->seq->ents[order[i]];

		if (e->event == g->o->event || e->kind != KP_SEQ_SAMPLES)
			return true;
	}
	return false;
}

static void thread(struct gecko *g, const struct kp_view_thread *t, const uint32_t *order)
{
	const char *comm = kp_strtab_get(g->p->strs, t->comm);
	char name[64];

	if (!shown(g, t, order))
		return;
	thread_head(g->j, kp_view_thread_name(g->p, t, name, sizeof(name)),
		    *comm ? comm : "[unknown]", t->pid, t->tid);
	off_cpu_markers(g, t, order);
	samples(g, t, order);
	tables(g);
	kp_json_obj_end(g->j);
	reset(g);
}

static void task_marker(struct gecko *g, const struct kp_view_cpu_slice *s)
{
	static const char unknown[] = "[switch not recorded]";

	marker(g, s->unknown ? lit_id(g, unknown, sizeof(unknown) - 1)
			     : lit_id(g, s->comm, s->comm_len), s->start, s->end, CAT_CPU);
	kp_json_str(g->j, "Task");
	kp_json_key(g->j, "tid");
	kp_json_u64(g->j, s->pid);
	if (s->unknown) { /* the CPU ran tid, then then_tid: the switch between is missing */
		kp_json_key(g->j, "then_tid");
		kp_json_u64(g->j, s->then_pid);
	}
	kp_json_key(g->j, "cpu");
	kp_json_u64(g->j, s->cpu);
	kp_json_obj_end(g->j);
	kp_json_arr_end(g->j);
}

/* CPU @v->cpu's thread: its @n stretches as markers, and no samples. */
static void cpu_thread(struct gecko *g, const struct kp_view_cpu_slice *v, size_t n)
{
	char name[32];

	snprintf(name, sizeof(name), "CPU %u", v->cpu);
	thread_head(g->j, name, "CPUs", CPUS_PID, CPUS_PID + v->cpu);
	table(g->j, "markers", marker_cols, ARRAY_SIZE(marker_cols));
	for (size_t i = 0; i < n; i++)
		task_marker(g, &v[i]);
	table_end(g->j);
	table(g->j, "samples", sample_cols, ARRAY_SIZE(sample_cols));
	table_end(g->j);
	tables(g);
	kp_json_obj_end(g->j);
	reset(g);
}

/* A thread per CPU, when sched:sched_switch was recorded (the header comment). */
static void cpu_threads(struct gecko *g)
{
	struct kp_view_cpu_slice *v;
	size_t n = kp_view_cpu_slices(g->p, g->o, &v);

	for (size_t i = 0, k; i < n; i = k) {
		for (k = i + 1; k < n && v[k].cpu == v[i].cpu; k++)
			;
		cpu_thread(g, v + i, k - i);
	}
	free(v);
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

/* A field of a marker schema: its key in the data, its label and how to show it. */
static void schema_field(struct kp_json *j, const char *key, const char *label,
			 const char *format, bool searchable)
{
	kp_json_obj(j);
	kp_json_key(j, "key");
	kp_json_str(j, key);
	kp_json_key(j, "label");
	kp_json_str(j, label);
	kp_json_key(j, "format");
	kp_json_str(j, format);
	kp_json_key(j, "searchable");
	kp_json_bool(j, searchable);
	kp_json_obj_end(j);
}

/* A marker schema up to its fields, which the caller writes and ends with the schema:
 * version 24 names them "data" (later versions "fields", which the profiler upgrades to). */
static void schema_head(struct kp_json *j, const char *name, const char *label)
{
	static const char *const display[] = { "marker-chart", "marker-table",
					       "timeline-overview" };

	kp_json_obj(j);
	kp_json_key(j, "name");
	kp_json_str(j, name);
	kp_json_key(j, "chartLabel");
	kp_json_str(j, label);
	kp_json_key(j, "tableLabel");
	kp_json_str(j, label);
	kp_json_key(j, "display");
	kp_json_arr(j);
	for (size_t i = 0; i < ARRAY_SIZE(display); i++)
		kp_json_str(j, display[i]);
	kp_json_arr_end(j);
	kp_json_key(j, "data");
	kp_json_arr(j);
}

/* The types of kprof's markers' data: off-CPU intervals and the CPUs' tasks. */
static void marker_schemas(struct kp_json *j)
{
	schema_head(j, "OffCPU", "{marker.data.function}");
	schema_field(j, "wait", "Wait", "nanoseconds", false);
	schema_field(j, "function", "Left the CPU in", "string", true);
	kp_json_arr_end(j);
	kp_json_obj_end(j);
	schema_head(j, "Task", "{marker.name} ({marker.data.tid})");
	schema_field(j, "tid", "Thread", "integer", true);
	schema_field(j, "then_tid", "Then thread", "integer", true);
	schema_field(j, "cpu", "CPU", "integer", false);
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
	category(j, "CPU", "blue");		/* CAT_CPU */
	kp_json_arr_end(j);
	kp_json_key(j, "markerSchema");
	kp_json_arr(j);
	marker_schemas(j);
	kp_json_arr_end(j);
	kp_json_obj_end(j);
}

int kp_view_firefox(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	struct kp_view_thread *threads;
	uint32_t *order;
	size_t nr = kp_view_threads(o, KP_THREADS_ALL, &threads, &order);
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
	kp_hash_init(&g.lit_of);
	for (size_t t = 0; t < nr; t++)
		thread(&g, &threads[t], order);
	cpu_threads(&g);
	kp_json_arr_end(&j);
	kp_json_obj_end(&j);
	kp_json_finish(&j); /* a failed write is the stream's error, which the command checks */
	free(g.stack_of);
	free(g.frame_of);
	free(g.str_of);
	free(g.stacks);
	free(g.frames);
	free(g.strs);
	free(g.lits);
	kp_hash_release(&g.lit_of);
	free(g.path);
	free(threads);
	free(order);
	return 0;
}

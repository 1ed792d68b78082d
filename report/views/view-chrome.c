/* SPDX-License-Identifier: MIT */
/*
 * view-chrome.c - the Chrome trace event format's JSON object ({"traceEvents": [...]}), which
 * Perfetto UI, chrome://tracing and DevTools open: per thread a flame chart of nested complete
 * ("X") events built from the samples in time order, a frame's slice spanning the runs of
 * samples that have it at that depth, each sample covering its period (or, without one, up
 * to the next sample); tracepoint samples as instant ("i") events with their decoded fields
 * in args; process_name and thread_name metadata ("M"). Timestamps are the recording's clock,
 * in µs on a grid of ticks of 1/16 µs (62.5 ns): readers add ts and dur in floating point, and
 * a slice that ends where another does must do so exactly (with decimal fractions, 0.1 + 0.2 >
 * 0.3 reopens frames in speedscope's importer); binary fractions add exactly below 2^53 ticks,
 * and rounding both ends keeps the nesting.
 *
 * Where one run of samples follows another with less than a µs between them, the frames that
 * change end a tick before the next run's frames begin (the thread ran on: a gap of a µs or
 * more ends every frame). Readers that sort begins and ends by time then never meet an end
 * and a begin at the same time: speedscope's importer, meeting a same-named pair (a function
 * that moves depth between two samples, as under an interrupt), opens the new frame first
 * and mis-nests the rest of the thread.
 *
 * A thread's slices are kept until the thread ends, in the order they opened, which is time
 * order with parents before their children: readers that sort stably by time then nest them
 * as they were.
 *
 * An off-CPU interval (record --off-cpu: report --event offcpu, --wall) is a run of its own
 * whose stack is where the thread left the CPU; under that stack's innermost frame it gets one
 * more slice, "[blocked]" (category "offcpu") or "[runnable]" (category "runqueue"), spanning
 * the interval, with its length in ns in args, so that Perfetto tells waiting from running.
 *
 * With sched:sched_switch samples (record -a -e sched:sched_switch), each CPU is a track of
 * its own, as kernelshark draws it: an "X" slice (category "cpu") per task's stretch on it,
 * named by its command, with its tid in args (kp_view_cpu_slices(): the idle task left out).
 * The tracks are the threads "CPU N" of a process "CPUs" whose pid, 4194304 (2^22), no Linux
 * task can have (PID_MAX_LIMIT is 2^22, so pids and tids are below it); CPU N's tid is that
 * process it shows up (tid 1 is systemd's). A stretch that another follows ends a tick before
 * it, as runs do above. Where a switch was not recorded, the stretch between the two tasks is
 * a slice "[switch not recorded]" whose args give both: tid, then then_tid.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "view.h"

#include "formats/util.h"

struct slice {
	uint32_t node;
	uint32_t kind;		/* KP_SEQ_SAMPLES: a frame; else the off-CPU interval's leaf */
	uint64_t ts, end;	/* ticks */
	uint64_t span;		/* the interval's length, ns */
};

#define TICKS_PER_US	16
#define GAP_NS		1000	/* between two runs: the thread did not run in between */
#define CPUS_PID	4194304u	/* the CPU tracks' process: PID_MAX_LIMIT, no task's */
#define UNKNOWN_SLICE	"[switch not recorded]"	/* a CPU's stretch between two tasks */

struct chart {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	struct kp_json *j;
	const struct kp_view_thread *t;
	struct slice *slices;
	size_t nr_slices, cap_slices;
	uint32_t *open;		/* the open frames: indices into slices, root side first */
	size_t depth, cap_open;
	uint32_t *path;
	size_t cap_path;
	uint64_t end;		/* when the last run ended */
};

/* @name of @len bytes, as they come from a trace (a command): any byte, escaped by json.h */
static void event_head_len(struct kp_json *j, const char *ph, const char *name, size_t len,
			   uint32_t pid, uint32_t tid)
{
	kp_json_obj(j);
	kp_json_key(j, "ph");
	kp_json_str(j, ph);
	kp_json_key(j, "name");
	kp_json_str_len(j, name, len);
	kp_json_key(j, "pid");
	kp_json_u64(j, pid);
	kp_json_key(j, "tid");
	kp_json_u64(j, tid);
}

static void event_head(struct kp_json *j, const char *ph, const char *name, uint32_t pid,
		       uint32_t tid)
{
	event_head_len(j, ph, name, strlen(name), pid, tid);
}

static void metadata(struct kp_json *j, const char *what, const char *name, uint32_t pid,
		     uint32_t tid)
{
	event_head(j, "M", what, pid, tid);
	kp_json_key(j, "args");
	kp_json_obj(j);
	kp_json_key(j, "name");
	kp_json_str(j, name);
	kp_json_obj_end(j);
	kp_json_obj_end(j);
}

/* "prev_comm=bash prev_pid=1 ..." as args: a key is a C identifier before '=', and a value
 * runs up to the space before the next key (kp_view_field()). Anything else is one "fields"
 * string. */
static void fields_args(struct kp_json *j, const char *s)
{
	char key[256];

	kp_json_obj(j);
	if (!kp_view_key_len(s)) {
		kp_json_key(j, "fields");
		kp_json_str(j, s);
	}
	while (*s && kp_view_key_len(s)) {
		size_t k = kp_view_key_len(s), v = k + 1;
		while (s[v] && !(s[v] == ' ' && kp_view_key_len(s + v + 1)))
			v++;
		snprintf(key, sizeof(key), "%.*s", (int)(k < sizeof(key) - 1 ? k : sizeof(key) - 1), s);
		kp_json_key(j, key); /* an identifier: nothing to escape */
		kp_json_str_len(j, s + k + 1, v - k - 1);
		s += v + (s[v] == ' ');
	}
	kp_json_obj_end(j);
}

static uint64_t tick(uint64_t ns)
{
	return ns / 1000 * TICKS_PER_US + (ns % 1000 * TICKS_PER_US + 500) / 1000;
}

/* When the frames that change at a run that begins at tick @begin end, the last run having
 * ended at tick @end: then, or a tick before @begin, so that no end meets a begin. */
static uint64_t change_at(uint64_t begin, uint64_t end)
{
	return end < begin ? end : begin - (begin > 0);
}

/* @t ticks as µs, exactly (a tick is 0.0625 µs) */
static void json_ticks(struct kp_json *j, uint64_t t)
{
	kp_json_fixed(j, t * (10000 / TICKS_PER_US), 4);
}

static void instant(struct chart *c, const struct kp_seq_ent *e)
{
	const struct kp_profile *p = c->p;
	const struct kp_prof_event *ev = e->event < p->nr_events ? &p->events[e->event] : NULL;

	event_head(c->j, "i", ev && ev->name ? kp_strtab_get(p->strs, ev->name) : "tracepoint",
		   c->t->pid, c->t->tid);
	kp_json_key(c->j, "s");
	kp_json_str(c->j, "t");
	kp_json_key(c->j, "cat");
	kp_json_str(c->j, "tracepoint");
	kp_json_key(c->j, "ts");
	json_ticks(c->j, tick(e->time));
	kp_json_key(c->j, "args");
	fields_args(c->j, kp_strtab_get(p->strs, e->fields));
	kp_json_obj_end(c->j);
}

static void close_to(struct chart *c, size_t depth, uint64_t at)
{
	while (c->depth > depth)
		c->slices[c->open[--c->depth]].end = at;
}

/* The function name of @node: a slice goes on while the stacks keep it at its depth, though
 * the location change (another line, an inlined copy), as a reader that matches a slice's
 * end to its begin by name expects (speedscope opens a same-named slice before closing one
 * that ends at the same µs). */
static uint32_t frame_name(const struct kp_profile *p, uint32_t node)
{
	return p->funcs[p->locs[p->nodes[node].loc].func].name;
}

/* One run: the frames it shares with the open ones stay open, the others close, its own open. */
static void run(struct chart *c, const struct kp_seq_ent *e, const struct kp_seq_ent *next)
{
	size_t n = kp_view_stack(c->p, e->node, &c->path, &c->cap_path), d = 0;
	uint64_t begin = tick(e->time), end = tick(c->end);

	if (e->time >= c->end + GAP_NS)
		close_to(c, 0, end);
	while (d < c->depth && d < n && c->slices[c->open[d]].kind == KP_SEQ_SAMPLES &&
	       frame_name(c->p, c->slices[c->open[d]].node) == frame_name(c->p, c->path[d]))
		d++;
	close_to(c, d, change_at(begin, end));
	KP_GROW(c->open, c->cap_open, n + 1);
	for (; d <= n; d++) {
		if (d == n && e->kind == KP_SEQ_SAMPLES)
			break;
		KP_GROW(c->slices, c->cap_slices, c->nr_slices + 1);
		c->slices[c->nr_slices] = (struct slice){
			.node = d < n ? c->path[d] : e->node, .ts = begin, .end = begin,
			.kind = d < n ? KP_SEQ_SAMPLES : e->kind, .span = d < n ? 0 : e->span,
		};
		c->open[c->depth++] = (uint32_t)c->nr_slices++;
	}
	c->end = kp_view_run_end(c->p, c->o, e, next);
}

static const char *slice_name(const struct kp_profile *p, const struct slice *s,
			      const struct kp_loc *l)
{
	if (s->kind == KP_SEQ_BLOCKED)
		return "[blocked]";
	if (s->kind == KP_SEQ_RUNNABLE)
		return "[runnable]";
	return kp_strtab_get(p->strs, p->funcs[l->func].name);
}

static const char *slice_cat(const struct slice *s, const struct kp_loc *l)
{
	if (s->kind == KP_SEQ_BLOCKED)
		return "offcpu";
	if (s->kind == KP_SEQ_RUNNABLE)
		return "runqueue";
	return l->flags & KP_LOC_KERNEL ? "kernel" : "user";
}

static void write_slices(struct chart *c)
{
	const struct kp_profile *p = c->p;

	for (size_t i = 0; i < c->nr_slices; i++) {
		const struct slice *s = &c->slices[i];
		const struct kp_loc *l = &p->locs[p->nodes[s->node].loc];

		if (s->end <= s->ts)
			continue; /* under a tick: nothing to see, and readers misorder it at its ts */
		event_head(c->j, "X", slice_name(p, s, l), c->t->pid, c->t->tid);
		kp_json_key(c->j, "cat");
		kp_json_str(c->j, slice_cat(s, l));
		kp_json_key(c->j, "ts");
		json_ticks(c->j, s->ts);
		kp_json_key(c->j, "dur");
		json_ticks(c->j, s->end - s->ts);
		if (s->kind != KP_SEQ_SAMPLES) {
			kp_json_key(c->j, "args");
			kp_json_obj(c->j);
			kp_json_key(c->j, "wait_ns");
			kp_json_u64(c->j, s->span);
			kp_json_obj_end(c->j);
		} else if (l->file) {
			kp_json_key(c->j, "args");
			kp_json_obj(c->j);
			kp_json_key(c->j, "file");
			kp_json_str(c->j, kp_strtab_get(p->strs, l->file));
			kp_json_key(c->j, "line");
			kp_json_u64(c->j, l->line);
			kp_json_obj_end(c->j);
		}
		kp_json_obj_end(c->j);
	}
}

static void thread(struct chart *c, const struct kp_view_thread *t, const uint32_t *order)
{
	char name[64];
	const struct kp_seq_ent *ents = c->o->seq->ents, *prev = NULL;

	c->t = t;
	c->nr_slices = c->depth = 0;
	c->end = 0;
	metadata(c->j, "thread_name", kp_view_thread_name(c->p, t, name, sizeof(name)), t->pid,
		 t->tid);
	for (size_t i = t->first; i < t->first + t->nr; i++) {
		const struct kp_seq_ent *e = &ents[order[i]];
		if (e->fields) {
			instant(c, e);
			continue;
		}
		if (prev)
			run(c, prev, e);
		prev = e;
	}
	if (prev)
		run(c, prev, NULL);
	close_to(c, 0, tick(c->end));
	write_slices(c);
}

/* One process_name per process: the command of its main thread, else of its first one. */
static void processes(struct kp_json *j, const struct kp_profile *p,
		      const struct kp_view_thread *t, size_t nr)
{
	struct kp_hash name;
	uint64_t *v;

	kp_hash_init(&name);
	for (size_t i = 0; i < nr; i++)
		if (t[i].tid == t[i].pid || !kp_hash_get(&name, t[i].pid))
			kp_hash_put(&name, t[i].pid, t[i].comm);
	for (size_t i = 0; i < nr; i++)
		if ((v = kp_hash_get(&name, t[i].pid)) && *v != UINT64_MAX) {
			const char *comm = kp_strtab_get(p->strs, (uint32_t)*v);
			metadata(j, "process_name", *comm ? comm : "[unknown]", t[i].pid, t[i].pid);
			*v = UINT64_MAX;
		}
	kp_hash_release(&name);
}

/* CPU @cpu's track: its name, and its place among the others (by CPU number, not by name) */
static void cpu_track(struct kp_json *j, uint32_t cpu)
{
	char name[32];

	snprintf(name, sizeof(name), "CPU %u", cpu);
	metadata(j, "thread_name", name, CPUS_PID, CPUS_PID + cpu);
	event_head(j, "M", "thread_sort_index", CPUS_PID, CPUS_PID + cpu);
	kp_json_key(j, "args");
	kp_json_obj(j);
	kp_json_key(j, "sort_index");
	kp_json_u64(j, cpu);
	kp_json_obj_end(j);
	kp_json_obj_end(j);
}

/* Stretch @s on its CPU's track, ending at tick @end. */
static void cpu_slice(struct kp_json *j, const struct kp_view_cpu_slice *s, uint64_t end)
{
	uint64_t ts = tick(s->start);

	if (end <= ts)
		return; /* under a tick, as write_slices() */
	if (s->unknown)
		event_head(j, "X", UNKNOWN_SLICE, CPUS_PID, CPUS_PID + s->cpu);
	else
		event_head_len(j, "X", s->comm, s->comm_len, CPUS_PID, CPUS_PID + s->cpu);
	kp_json_key(j, "cat");
	kp_json_str(j, "cpu");
	kp_json_key(j, "ts");
	json_ticks(j, ts);
	kp_json_key(j, "dur");
	json_ticks(j, end - ts);
	kp_json_key(j, "args");
	kp_json_obj(j);
	kp_json_key(j, "tid");
	kp_json_u64(j, s->pid);
	if (s->unknown) {
		kp_json_key(j, "then_tid");
		kp_json_u64(j, s->then_pid);
	}
	kp_json_obj_end(j);
	kp_json_obj_end(j);
}

/* The per-CPU tracks, when sched:sched_switch was recorded (the header comment). */
static void cpus(struct kp_json *j, const struct kp_profile *p, const struct kp_view_opts *o)
{
	struct kp_view_cpu_slice *v;
	size_t n = kp_view_cpu_slices(p, o, &v);

	if (n)
		metadata(j, "process_name", "CPUs", CPUS_PID, CPUS_PID);
	for (size_t i = 0; i < n; i++) {
		bool next = i + 1 < n && v[i + 1].cpu == v[i].cpu;

		if (!i || v[i - 1].cpu != v[i].cpu)
			cpu_track(j, v[i].cpu);
		cpu_slice(j, &v[i], next ? change_at(tick(v[i + 1].start), tick(v[i].end))
					 : tick(v[i].end));
	}
	free(v);
}

int kp_view_chrome(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	struct kp_view_thread *threads;
	uint32_t *order;
	size_t nr = kp_view_threads(o, KP_THREADS_FIELDS, &threads, &order);
	const struct kp_prof_event *ev = o->event < p->nr_events ? &p->events[o->event] : NULL;
	struct kp_json j;
	struct chart c = { .p = p, .o = o, .j = &j };

	kp_json_init(&j, out, false);
	kp_json_obj(&j);
	kp_json_key(&j, "displayTimeUnit");
	kp_json_str(&j, "ns");
	kp_json_key(&j, "otherData");
	kp_json_obj(&j);
	kp_json_key(&j, "exporter");
	kp_json_str(&j, "kprof");
	kp_json_key(&j, "event");
	kp_json_str(&j, ev && ev->name ? kp_strtab_get(p->strs, ev->name) : "");
	kp_json_obj_end(&j);
	kp_json_key(&j, "traceEvents");
	kp_json_arr(&j);
	processes(&j, p, threads, nr);
	for (size_t t = 0; t < nr; t++)
		thread(&c, &threads[t], order);
	cpus(&j, p, o);
	kp_json_arr_end(&j);
	kp_json_obj_end(&j);
	kp_json_finish(&j); /* a failed write is the stream's error, which the command checks */
	free(c.slices);
	free(c.open);
	free(c.path);
	free(threads);
	free(order);
	return 0;
}

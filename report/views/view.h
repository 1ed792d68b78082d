/* SPDX-License-Identifier: MIT */
/*
 * view.h - what every view shares: its options (kp_view_opts, and a view's own, struct
 * kp_view_option), what each view-NAME.c implements for the table of views (views.h), and
 * the helpers they all call (view.c): the one weight rule, the children of a node in order,
 * the threads and CPUs of the timeline, the folded names' suffixes.
 */
#ifndef KP_VIEW_H
#define KP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/profile/profile.h"
#include "report/profile/report.h"

#include "svg.h"

struct kp_view_opts {
	size_t event;		/* which event's weights to show */
	bool by_samples;	/* --weight samples: a sample weighs 1, not its period */
	const char *event_name;
	double percent_limit;	/* tree: hide nodes below this share of the total */
	bool color;		/* ANSI colours on percentages */
	bool annotate;		/* folded: _[k] kernel, _[i] inlined, _[j] JIT suffixes */
	bool srcline;		/* tree: show file:line after names */
	bool inverted;		/* the profile was built leaf first (callee-based) */
	bool diff;		/* tree: event 0 is BASE, event 1 NEW; show the change */
	unsigned sort;		/* flat: the grouping, KP_SORT_* (0: by symbol) */
	unsigned no_labels;	/* pprof: KP_LABEL_* left out of each sample (0: all) */
	const char *folded_unit; /* folded: "us" or "ms" for a time profile's counts (NULL: ns);
				  * the command refuses it for a profile not in ns */
	const struct kp_seq *seq; /* the samples in time order, for a view whose seq trait asks */
	uint64_t t_start, t_end; /* --time's window, ns (0 and UINT64_MAX for none): the samples
				  * are in it, and what lasts beyond it is cut there (timeline) */
	struct kp_svg_opts svg;
	uint64_t timeline_max;	/* --timeline-max: the largest timeline it writes, bytes (0: the
				 * default, 50 MiB) */
	/* what a view must tell the user besides its output (the timeline's bound): the command
	 * says it (NULL: nothing is said) */
	void (*say)(void *ctx, enum kp_report_say kind, const char *msg);
	void *say_ctx;
};

/* What the flat view groups by (--sort). */
#define KP_SORT_COMM	0x1
#define KP_SORT_DSO	0x2
#define KP_SORT_SYM	0x4
#define KP_SORT_CGROUP	0x8	/* needs kp_report_opts.cgroup_root */

/* What a pprof sample may be labelled with (--pprof-labels). */
#define KP_LABEL_PID	0x1
#define KP_LABEL_TID	0x2
#define KP_LABEL_COMM	0x4
#define KP_LABEL_CPU	0x8
#define KP_LABEL_ALL	0xf

/*
 * An option of one view, which `kprof report` offers as --NAME ARG and lists in its usage:
 * @parse sets it in the view's options from @arg, and returns 0 or -EINVAL with @why (of
 * @size bytes) saying what is wrong.
 */
struct kp_view_option {
	const char *name, *arg, *help;
	int (*parse)(struct kp_view_opts *o, const char *arg, char *why, size_t size);
};

/* The views, each in its view-NAME.c: an emitter writes the view of @p to @out, and returns 0
 * or -EINVAL for bad options (after no output). */
int kp_view_tree(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
int kp_view_flat(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);

/* A row of the flat view: its keys (strtab ids, 0 when not one of @o->sort's) and weights. */
struct kp_flat_row {
	uint32_t cgroup, comm, dso, sym;
	struct kp_weight self, total;
};

/*
 * kp_flat_rows - the flat view's rows of @p for @o's event, grouped by @o->sort (0: by
 * symbol), by self then total weight, into *@rows (the caller frees it). Returns how many.
 */
size_t kp_flat_rows(const struct kp_profile *p, const struct kp_view_opts *o,
		    struct kp_flat_row **rows);
extern const struct kp_view_option kp_flat_options[];
int kp_view_folded(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
extern const struct kp_view_option kp_folded_options[];
int kp_view_svg(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
int kp_view_pprof(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
extern const struct kp_view_option kp_pprof_options[];
int kp_view_speedscope(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
int kp_view_chrome(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
int kp_view_firefox(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
int kp_view_timeline(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
extern const struct kp_view_option kp_timeline_options[];

/* --- helpers shared by the views --------------------------------------------------------- */

/*
 * kp_view_weight - what @w weighs in every view (the one weight rule): its period, the events
 * (or for cpu-clock, the nanoseconds) the samples stand for, as perf report weighs them; with
 * --weight samples, its samples. The two differ when the period varies (-F).
 */
static inline uint64_t kp_view_weight(const struct kp_view_opts *o, const struct kp_weight *w)
{
	return o->by_samples ? w->count : w->period;
}

/* kp_view_annotation - the folded suffix of a frame with @flags: "_[k]", "_[i]", "_[j]" or "". */
const char *kp_view_annotation(uint32_t flags);

/* kp_view_durations - whether @o's event weighs off-CPU or wall time, which tree and flat show
 * as time beside the shares (not with --weight samples). */
bool kp_view_durations(const struct kp_profile *p, const struct kp_view_opts *o);

/* kp_view_print_time - @ns as "%10.3f ms" or "%10.3f s " (10 + 3 characters), for those. */
void kp_view_print_time(FILE *out, uint64_t ns);

/* kp_view_print_pct - "%6.2f%%" coloured as perf does: red from 5%, green from 0.5%. */
void kp_view_print_pct(FILE *out, double pct, bool color);

/*
 * kp_view_children - the children of @node with samples of @o's event (or, in a diff, of
 * BASE, event 0: what vanished), sorted by their total weight (kp_view_weight(), largest
 * first, then by name). Returns the count; *@out is owned by the caller (free()).
 */
size_t kp_view_children(const struct kp_profile *p, const struct kp_view_opts *o, uint32_t node,
			uint32_t **out);

/* --- the timeline, for the views that show threads and time (seq trait KP_SEQ_ALWAYS) ---- */

/*
 * A thread of the timeline: its entries are @order[@first .. @first + @nr), in time order.
 * The idle task (pid 0) runs on every CPU at once: it is a thread per CPU, @cpu, whose @tid
 * is KP_VIEW_IDLE_TID + @cpu, so that the exports that key threads by tid keep them apart
 * (@cpu is UINT32_MAX for any other thread).
 */
#define KP_VIEW_IDLE_TID	8388608u	/* 2^23: above any tid, and the CPU tracks' 2^22 + N */

struct kp_view_thread {
	uint32_t pid, tid, cpu;
	uint32_t life;		/* which process of that pid (kp_seq_ent.life) */
	uint32_t comm;		/* strtab id: the command of its last sample (after an exec) */
	size_t first, nr;
};

/* What kp_view_threads() takes from the timeline besides the samples of the view's event. */
#define KP_THREADS_FIELDS	0x1	/* every entry with decoded fields (tracepoints) */
#define KP_THREADS_ALL		0x2	/* the entries of every event */

/*
 * kp_view_threads - the entries of o->seq that are samples of @o's event, and as @what asks
 * (KP_THREADS_*) others, grouped by thread (pid and tid; a process forked with a pid given
 * before is another, kp_seq_ent.life) in the order of each thread's first sample. *@threads
 * and *@order (indices into o->seq) are the caller's (free()). Returns the number of threads;
 * 0 without a timeline.
 */
size_t kp_view_threads(const struct kp_view_opts *o, unsigned what,
		       struct kp_view_thread **threads, uint32_t **order);

/*
 * kp_view_field - the value of @key in decoded tracepoint fields @fields ("prev_comm=sh
 * prev_pid=5 ... ==> next_comm=swapper/1 next_pid=0 ..."): a key is a C identifier before '=',
 * and its value runs up to the space before the next key (so it may hold spaces). Returns it
 * (not terminated) with its length in *@len, or NULL when @key is not there.
 */
const char *kp_view_field(const char *fields, const char *key, size_t *len);

/* kp_view_key_len - the length of the key that starts @s ("name=..."), 0 when none does. */
size_t kp_view_key_len(const char *s);

/*
 * A task's stretch on a CPU, from one sched:sched_switch sample there to the next (or to the
 * last sample of the recording), and before a CPU's first switch its task since the
 * profile's first sample: what kernelshark draws in its CPU plots. The idle task (pid 0) is
 * left out. Where the next switch on a CPU is not from the task the last one switched to, a
 * switch between them was not recorded (the kernel drops a tracepoint sample now and then;
 * --pid, --tid and --comm keep only the switches away from those tasks): the stretch between
 * is @unknown, the CPU having run @pid and then @then_pid, switching at a time not known.
 */
struct kp_view_cpu_slice {
	uint32_t cpu, pid;	/* pid: the task's, as sched_switch's next_pid gives it (a tid) */
	const char *comm;	/* next_comm, in the profile's strings, not terminated: */
	size_t comm_len;	/* its length */
	uint64_t start, end;	/* ns, the recording's clock */
	bool unknown;		/* @pid, then @then_pid (0 for idle on either side) */
	uint32_t then_pid;
	const char *then_comm;	/* the same for @then_pid (prev_comm of the switch that ends it) */
	size_t then_len;
};

/*
 * kp_view_cpu_slices - the task stretches of every CPU, from the sched:sched_switch samples of
 * o->seq whose fields were decoded (a view with the fields trait), CPU by CPU in time order.
 * Samples out of order across CPUs are sorted; a switch whose fields lack next_pid is skipped.
 * *@out is the caller's (free()). Returns how many; 0 when no sched_switch was recorded.
 */
size_t kp_view_cpu_slices(const struct kp_profile *p, const struct kp_view_opts *o,
			  struct kp_view_cpu_slice **out);

/* kp_view_thread_name - what @t is called: its command, "[unknown]" without one, and an idle
 * thread "swapper/CPU" as the kernel names it (in @buf of @size bytes). */
const char *kp_view_thread_name(const struct kp_profile *p, const struct kp_view_thread *t,
				char *buf, size_t size);

/*
 * kp_view_stack - the nodes from the root side to @node that are frames (the root and the
 * command at the top of each stack left out), into *@buf (grown as needed, the caller's).
 * Returns how many.
 */
size_t kp_view_stack(const struct kp_profile *p, uint32_t node, uint32_t **buf, size_t *cap);

/* kp_view_unit - what @o's weights count: "ns", "events" or "samples" (--weight samples). */
const char *kp_view_unit(const struct kp_profile *p, const struct kp_view_opts *o);

/*
 * kp_view_interval - how long one sample of @o's event stands for, in ns, when the recording
 * says (a clock's period, or 1 s / the -F rate): a run @e covers at most @e->count of them.
 * 0 when unknown (a run then lasts until the next).
 */
uint64_t kp_view_interval(const struct kp_profile *p, const struct kp_view_opts *o,
			  const struct kp_seq_ent *e);

/* kp_view_run_end - when the run @e ends, @next being the thread's next run (or NULL); an
 * off-CPU interval ends after its span. */
uint64_t kp_view_run_end(const struct kp_profile *p, const struct kp_view_opts *o,
			 const struct kp_seq_ent *e, const struct kp_seq_ent *next);

#endif /* KP_VIEW_H */

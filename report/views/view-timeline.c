/* SPDX-License-Identifier: MIT */
/*
 * view-timeline.c - the timeline (`kprof report --timeline`): a self-contained SVG with time
 * across, in the flame graph's family (svg.h: the same escaping, labels and colours; its
 * JavaScript, report/views/timeline.js, zooms and searches as the flame graph's does).
 *
 * The lanes, top to bottom: when the recording has sched:sched_switch, one lane per CPU with
 * the task that ran there (kp_view_cpu_slices()), as kernelshark draws it; then one lane per
 * thread, grouped by process, in the order of each thread's first sample; then the processes of
 * one thread that lasted a tenth of the picture or less, several to a row (kp_tl_pack(),
 * timeline-rows.c). In a thread's lane:
 *   - on-CPU stretches (class "c"): the runs of samples in a row whose leaf is one function,
 *     filled with that function's flame graph colour, each run covering its samples' periods
 *     (run_span());
 *   - off-CPU intervals (record --off-cpu): hollow boxes, blocked (class "o") or runnable
 *     (class "q"), of the interval's length, named by the innermost user function of the stack
 *     where the thread left the CPU;
 *   - tracepoint samples (class "m"): a thin marker, its title the decoded fields.
 * A CPU lane's stretches are class "k", named and coloured by the task's command, with the
 * task's id in data-tid; where a switch was not recorded, the stretch between the two tasks
 * is class "u", grey, with the first task's id in data-tid and the second's in data-then.
 *
 * The file has a bound, --timeline-max (fit()): a picture that would pass it has, in each lane,
 * the boxes shorter than a pixel that start in one pixel merged into one box (class "x",
 * kp_tl_merge()); if it would still pass it, nothing is written and the report asks for a cut.
 *
 * Every box carries what the JavaScript and a reader need: data-t and data-d (its start after
 * the picture's start and its length, ns) and data-n (the name it is searched by); its
 * <title> says what, how long and when, with the stack, leaf first. The <svg> carries data-t0
 * (the start, ns of the recording's clock, as `kprof script` prints it), data-span (ns),
 * data-x0 and data-pw (where the time axis starts and how wide it is, px).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/views/timeline-js.h"
#include "formats/util.h"
#include "svg.h"
#include "timeline-rows.h"
#include "view.h"

#define XPAD		KP_SVG_XPAD
#define LABEL_W		190.0	/* the lanes' names, left of the time axis */
#define GAP_NS		1000	/* runs further apart than this are two stretches */
#define STACK_MAX	16	/* frames a title names */
#define DEFAULT_MAX	(50ull << 20) /* --timeline-max's default, bytes */

static const char *const item_class[] = { "c", "o", "q", "m", "k", "u", "x" };
static const char *const item_what[] = { "on-CPU", "blocked", "runnable", "markers",
					 "on the CPUs", "switch not recorded" };

static struct kp_tl_item *add_item(struct kp_tl *tl, enum kp_tl_kind kind, uint64_t t, uint64_t d)
{
	KP_GROW(tl->items, tl->cap_items, tl->nr_items + 1);
	tl->items[tl->nr_items] = (struct kp_tl_item){ .kind = kind, .t = t, .d = d };
	return &tl->items[tl->nr_items++];
}

static const char *func_name(const struct kp_profile *p, uint32_t node, size_t *len)
{
	const char *s = kp_profile_name(p, node);

	*len = strlen(s);
	return s;
}

/* The innermost frame of @node's stack that is user code: not the kernel's, nor the
 * [runqueue] that --wall puts under a preempted stack. The leaf when there is none. */
static uint32_t user_top(const struct kp_profile *p, uint32_t node)
{
	for (uint32_t c = node; c; c = p->nodes[c].parent) {
		const struct kp_loc *l = &p->locs[p->nodes[c].loc];
		if (l->flags & (KP_LOC_KERNEL | KP_LOC_COMM) ||
		    !strcmp(kp_profile_name(p, c), "[runqueue]"))
			continue;
		return c;
	}
	return node;
}

/* The entry after @i of thread @t that is not a marker, or NULL. */
static const struct kp_seq_ent *next_run(const struct kp_tl *tl, const struct kp_view_thread *t,
					 const uint32_t *order, size_t i)
{
	for (size_t k = i + 1; k < t->first + t->nr; k++)
		if (!tl->o->seq->ents[order[k]].fields)
			return &tl->o->seq->ents[order[k]];
	return NULL;
}

/*
 * Where a run of samples was on the CPU. A clock's sample ends the period it stands for, so
 * the run begins a period before its first sample (not before what the lane drew last: the
 * thread's last run or its switch-in) and ends with its last sample; then, when the next
 * entry is an off-CPU interval, at that switch-out, where the thread left the CPU; else at
 * the next run's start. With the switch records of record --off-cpu the stretches then fill
 * each time on the CPU exactly. A run of unknown period lasts as kp_view_run_end() says.
 */
static void run_span(struct kp_tl *tl, const struct kp_seq_ent *e, const struct kp_seq_ent *next,
		     uint64_t *start, uint64_t *end)
{
	uint64_t iv = kp_view_interval(tl->p, tl->o, e), n = e->count ? e->count : 1;

	*start = e->time;
	*end = kp_view_run_end(tl->p, tl->o, e, next);
	if (!iv)
		return;
	if (tl->lane_end >= e->time) /* the lane drew up to here already: start at the sample */
		*start = e->time;
	else
		*start = e->time - (e->time - tl->lane_end < iv ? e->time - tl->lane_end : iv);
	*end = e->time + (n - 1) * iv;
	if (next && next->kind != KP_SEQ_SAMPLES && next->time >= e->time)
		*end = next->time;
	else if (next && next->time - kp_view_interval(tl->p, tl->o, next) < *end)
		*end = next->time - kp_view_interval(tl->p, tl->o, next);
	*end = *end > e->time ? *end : e->time;
}

/* A run of samples: it extends the last stretch when that ends where it starts with the same
 * leaf function, else it starts one. */
static void add_run(struct kp_tl *tl, const struct kp_tl_lane *ln, const struct kp_seq_ent *e,
		    const struct kp_seq_ent *next)
{
	struct kp_tl_item *last = tl->nr_items > ln->first ? &tl->items[tl->nr_items - 1] : NULL;
	uint64_t start, end;
	size_t len;
	const char *name = func_name(tl->p, e->node, &len);

	run_span(tl, e, next, &start, &end);
	tl->lane_end = end > tl->lane_end ? end : tl->lane_end;
	if (last && last->kind == KP_TL_RUN && last->name == name &&
	    start <= last->t + last->d + GAP_NS && end >= last->t) {
		last->d = end - last->t;
		last->count += e->count;
		last->node = e->node;
		return;
	}
	last = add_item(tl, KP_TL_RUN, start, end - start);
	last->node = e->node;
	last->count = e->count;
	last->name = name;
	last->name_len = len;
}

static void add_thread(struct kp_tl *tl, const struct kp_view_thread *t, const uint32_t *order)
{
	const struct kp_seq_ent *ents = tl->o->seq->ents;
	struct kp_tl_lane ln = { .pid = t->pid, .tid = t->tid, .t = t, .first = tl->nr_items };

	tl->lane_end = 0;
	for (size_t i = t->first; i < t->first + t->nr; i++) {
		const struct kp_seq_ent *e = &ents[order[i]];
		struct kp_tl_item *it;

		if (e->fields) {
			const struct kp_prof_event *ev = &tl->p->events[e->event];
			it = add_item(tl, KP_TL_MARK, e->time, 0);
			it->ent = order[i];
			it->name = ev->name ? kp_strtab_get(tl->p->strs, ev->name) : "tracepoint";
			it->name_len = strlen(it->name);
		} else if (e->kind != KP_SEQ_SAMPLES) {
			it = add_item(tl,
				      e->kind == KP_SEQ_BLOCKED ? KP_TL_BLOCKED : KP_TL_RUNNABLE,
				      e->time, e->span);
			tl->lane_end = e->time + e->span < e->time ? UINT64_MAX : e->time + e->span;
			it->node = e->node;
			it->count = 1;
			it->name = func_name(tl->p, user_top(tl->p, e->node), &it->name_len);
		} else {
			add_run(tl, &ln, e, next_run(tl, t, order, i));
		}
	}
	ln.nr = tl->nr_items - ln.first;
	KP_GROW(tl->lanes, tl->cap_lanes, tl->nr_lanes + 1);
	tl->lanes[tl->nr_lanes++] = ln;
}

static void add_cpus(struct kp_tl *tl, const struct kp_view_cpu_slice *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct kp_tl_item *it;
		if (!i || s[i].cpu != s[i - 1].cpu) {
			KP_GROW(tl->lanes, tl->cap_lanes, tl->nr_lanes + 1);
			tl->lanes[tl->nr_lanes++] = (struct kp_tl_lane){
				.cpu = s[i].cpu, .is_cpu = true, .first = tl->nr_items };
		}
		it = add_item(tl, s[i].unknown ? KP_TL_UNKNOWN : KP_TL_TASK, s[i].start,
			      s[i].end - s[i].start);
		it->name = s[i].unknown ? "[switch not recorded]" : s[i].comm;
		it->name_len = s[i].unknown ? strlen(it->name) : s[i].comm_len;
		it->task = &s[i];
		tl->lanes[tl->nr_lanes - 1].nr++;
	}
}

/* --time: the boxes of the lanes from @from on (added in order) cut to its window, those
 * outside it left out (a run or an interval that began in it may end after it). */
static void cut_to_window(struct kp_tl *tl, size_t from)
{
	uint64_t a = tl->o->t_start, b = tl->o->t_end;
	size_t to = from < tl->nr_lanes ? tl->lanes[from].first : tl->nr_items;

	for (size_t l = from; l < tl->nr_lanes; l++) {
		struct kp_tl_lane *ln = &tl->lanes[l];
		size_t first = to;
		for (size_t i = ln->first; i < ln->first + ln->nr; i++) {
			struct kp_tl_item it = tl->items[i];
			uint64_t end = it.t + it.d < it.t ? UINT64_MAX : it.t + it.d;
			if (end < a || it.t > b)
				continue;
			it.t = it.t > a ? it.t : a;
			it.d = (end < b ? end : b) - it.t;
			tl->items[to++] = it;
		}
		ln->first = first;
		ln->nr = to - first;
	}
	tl->nr_items = to;
}

static void span_of(struct kp_tl *tl)
{
	tl->t0 = UINT64_MAX;
	tl->t1 = 0;
	for (size_t i = 0; i < tl->nr_items; i++) {
		const struct kp_tl_item *it = &tl->items[i];
		uint64_t end = it->t + it->d < it->t ? UINT64_MAX : it->t + it->d;
		tl->t0 = it->t < tl->t0 ? it->t : tl->t0;
		tl->t1 = end > tl->t1 ? end : tl->t1;
	}
	if (tl->t0 > tl->t1)
		tl->t0 = tl->t1 = 0;
}

/* --- writing ------------------------------------------------------------------------------- */

static void put_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%llu.%06llu s", (unsigned long long)(ns / 1000000000),
		(unsigned long long)(ns % 1000000000 / 1000));
}

static void put_ms(FILE *out, uint64_t ns)
{
	fprintf(out, "%.3f ms", ns / 1e6);
}

/* The stack of @node, leaf first, at most STACK_MAX frames. */
static void put_stack(struct kp_tl *tl, uint32_t node)
{
	size_t n = 0;

	for (uint32_t c = node; c; c = tl->p->nodes[c].parent) {
		const char *name;
		if (tl->p->locs[tl->p->nodes[c].loc].flags & KP_LOC_COMM)
			continue;
		if (n++ == STACK_MAX) {
			fputs(" &lt; ...", tl->out);
			break;
		}
		name = kp_profile_name(tl->p, c);
		fputs(n > 1 ? " &lt; " : ": ", tl->out);
		kp_svg_put_xml(tl->out, name, strlen(name));
	}
}

/* A packed lane's thread, as its boxes' titles name it: "COMM TID". */
static void put_who(struct kp_tl *tl, const struct kp_tl_lane *ln)
{
	char name[64];
	const char *comm = kp_view_thread_name(tl->p, ln->t, name, sizeof(name));

	fputs(", in ", tl->out);
	kp_svg_put_xml(tl->out, comm, strlen(comm));
	fprintf(tl->out, " %u", ln->tid);
}

/* What a merged box stands for: how many boxes, how long from when, and of each kind. */
static void put_merged(struct kp_tl *tl, const struct kp_tl_item *it, const struct kp_tl_lane *ln)
{
	const struct kp_tl_merged *m = &tl->merges[it->ent];
	FILE *out = tl->out;
	const char *sep = ";";

	fprintf(out, " (merged: %u boxes, ", it->count);
	put_ms(out, it->d);
	fputs(" from ", out);
	put_time(out, it->t);
	if (ln->packed)
		put_who(tl, ln);
	for (int k = 0; k < KP_TL_MERGED; k++) {
		if (!m->n[k])
			continue;
		fprintf(out, "%s %s %u", sep, item_what[k], m->n[k]);
		sep = ",";
		if (k != KP_TL_MARK) {
			fputs(" in ", out);
			put_ms(out, m->ns[k]);
		}
	}
	fputs(")", out);
}

static void put_title(struct kp_tl *tl, const struct kp_tl_item *it, const struct kp_tl_lane *ln)
{
	FILE *out = tl->out;

	fputs("<title>", out);
	kp_svg_put_xml(out, it->name, it->name_len);
	if (it->kind == KP_TL_MERGED) {
		put_merged(tl, it, ln);
		fputs("</title>", out);
		return;
	}
	if (it->kind == KP_TL_TASK)
		fprintf(out, " %u (on CPU %u ", it->task->pid, it->task->cpu);
	else if (it->kind == KP_TL_UNKNOWN)
		fprintf(out, " (on CPU %u ", it->task->cpu);
	else if (it->kind == KP_TL_MARK)
		fputs(" (", out);
	else
		fprintf(out, " (%s ", item_what[it->kind]);
	if (it->kind != KP_TL_MARK) {
		put_ms(out, it->d);
		fputs(", ", out);
	}
	if (it->kind == KP_TL_RUN)
		fprintf(out, "%u sample%s, ", it->count, it->count == 1 ? "" : "s");
	fputs("at ", out);
	put_time(out, it->t);
	if (ln->packed)
		put_who(tl, ln);
	fputc(')', out);
	if (it->kind == KP_TL_MARK) {
		const char *f = kp_strtab_get(tl->p->strs, tl->o->seq->ents[it->ent].fields);
		fputs(": ", out);
		kp_svg_put_xml(out, f, strlen(f));
	} else if (it->kind == KP_TL_UNKNOWN) {
		fputs(": ", out);
		kp_svg_put_xml(out, it->task->comm, it->task->comm_len);
		fprintf(out, " %u, then ", it->task->pid);
		kp_svg_put_xml(out, it->task->then_comm, it->task->then_len);
		fprintf(out, " %u, switching when is not known", it->task->then_pid);
	} else if (it->node) {
		put_stack(tl, it->node);
	}
	fputs("</title>", out);
}

static double x_of(const struct kp_tl *tl, uint64_t t)
{
	double span = (double)(tl->t1 - tl->t0);

	return tl->x0 + (span > 0 ? (double)(t - tl->t0) * tl->pw / span : 0);
}

/* The fill of a box that has its own: an on-CPU stretch's or a task's, by its name; a merged
 * box's, as its longest box's when that has one, else a grey blue. */
static void put_fill(struct kp_tl *tl, const struct kp_tl_item *it)
{
	const struct kp_profile *p = tl->p;
	enum kp_tl_kind k = it->kind == KP_TL_MERGED ? tl->merges[it->ent].kind : it->kind;
	struct kp_rgb c = { 170, 170, 215 };

	if (k == KP_TL_RUN || k == KP_TL_TASK) {
		uint32_t flags = k == KP_TL_RUN ? p->locs[p->nodes[it->node].loc].flags : 0;
		c = kp_svg_name_colour(&tl->text, it->name, it->name_len,
				       tl->so->colors ? tl->so->colors
				       : kp_svg_default_palette(flags), tl->so->hash);
	} else if (it->kind != KP_TL_MERGED) {
		return;
	}
	fprintf(tl->out, " fill=\"rgb(%d,%d,%d)\"", c.r, c.g, c.b);
}

static void write_item(struct kp_tl *tl, const struct kp_tl_item *it, const struct kp_tl_lane *ln,
		       double y)
{
	double x = x_of(tl, it->t), w = x_of(tl, it->t + it->d) - x;
	FILE *out = tl->out;

	fprintf(out, "<rect class=\"%s\" data-t=\"%llu\" data-d=\"%llu\" data-n=\"",
		item_class[it->kind], (unsigned long long)(it->t - tl->t0), (unsigned long long)it->d);
	kp_svg_put_xml(out, it->name, it->name_len);
	if (it->kind == KP_TL_TASK || it->kind == KP_TL_UNKNOWN)
		fprintf(out, "\" data-tid=\"%u", it->task->pid);
	if (it->kind == KP_TL_UNKNOWN)
		fprintf(out, "\" data-then=\"%u", it->task->then_pid);
	if (it->kind == KP_TL_MARK)
		w = 1;
	else if (w < 0.5)
		w = 0.5; /* too short to see, but there */
	fprintf(out, "\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"", x, y, w,
		tl->lh - 2);
	put_fill(tl, it);
	fputc('>', out);
	put_title(tl, it, ln);
	fputs("</rect>\n", out);
}

/* While the picture is sized: it has passed the bound, the rest need not be written. */
static bool past_max(const struct kp_tl *tl)
{
	return tl->counted && *tl->counted > tl->max;
}

/* A lane: its name on the left, its boxes on the axis. A row of packed lanes has its
 * background and name ("N processes") with the first of them. */
static void write_lane(struct kp_tl *tl, size_t l, double y)
{
	const struct kp_tl_lane *ln = &tl->lanes[l];
	char name[64];
	const char *comm = ln->is_cpu ? NULL : kp_view_thread_name(tl->p, ln->t, name, sizeof(name));
	FILE *out = tl->out;

	if (ln->is_cpu) {
		snprintf(name, sizeof(name), "CPU %u", ln->cpu);
		fprintf(out, "<g class=\"lane cpu\" data-row=\"%zu\" data-cpu=\"%u\" "
			"data-name=\"%s\">", ln->row, ln->cpu, name);
	} else {
		fprintf(out, "<g class=\"lane thread%s\" data-row=\"%zu\" data-pid=\"%u\" "
			"data-tid=\"%u\" data-name=\"", ln->packed ? " packed" : "", ln->row, ln->pid,
			ln->tid);
		kp_svg_put_xml(out, comm, strlen(comm));
		fputs("\">", out);
	}
	if (ln->row_first) {
		char label[512];
		size_t n = 1;
		fprintf(out, "<rect class=\"bg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"/>", tl->x0, y, tl->pw, tl->lh - 2);
		fprintf(out, "<text class=\"ln\" x=\"%.1f\" y=\"%.1f\">", XPAD + 8,
			y + tl->lh / 2 + 2);
		while (ln->packed && l + n < tl->nr_lanes && tl->lanes[l + n].row == ln->row)
			n++;
		if (ln->is_cpu)
			snprintf(label, sizeof(label), "%s", name);
		else if (ln->packed)
			snprintf(label, sizeof(label), "%zu process%s", n, n == 1 ? "" : "es");
		else if (ln->t->cpu == UINT32_MAX)
			snprintf(label, sizeof(label), "%s %u", comm, ln->tid);
		else
			snprintf(label, sizeof(label), "%s", comm); /* an idle task */
		kp_svg_put_label(out, label, LABEL_W - 12, tl->so->fontsize);
		fputs("</text>\n", out);
	}
	for (size_t i = ln->first; i < ln->first + ln->nr && !past_max(tl); i++)
		write_item(tl, &tl->items[i], ln, y + 1);
	fputs("</g>\n", out);
}

/* A heading row: a process's command and pid, or @text. */
static void write_heading(struct kp_tl *tl, const char *text, uint32_t pid, double y)
{
	char buf[512];

	fprintf(tl->out, "<text class=\"proc\" x=\"%.1f\" y=\"%.1f\">", XPAD, y + tl->lh / 2 + 2);
	if (pid != UINT32_MAX) {
		snprintf(buf, sizeof(buf), "%s (%u)", *text ? text : "[unknown]", pid);
		text = buf;
	}
	kp_svg_put_label(tl->out, text, tl->x0 + tl->pw - XPAD, tl->so->fontsize);
	fputs("</text>\n", tl->out);
}

/* The comm of a process: its main thread's, else its first thread's. */
static const char *process_comm(const struct kp_tl *tl, size_t at)
{
	for (size_t i = at;
	     i < tl->nr_lanes && kp_tl_proc(&tl->lanes[i]) == kp_tl_proc(&tl->lanes[at]); i++)
		if (tl->lanes[i].tid == tl->lanes[i].pid)
			return kp_strtab_get(tl->p->strs, tl->lanes[i].t->comm);
	return kp_strtab_get(tl->p->strs, tl->lanes[at].t->comm);
}

/* What the timeline's own attributes of <svg> (head_attrs(), read by timeline.js) say. */
struct head {
	const struct kp_tl *tl;
	double top;
};

static void head_attrs(FILE *out, const void *pic)
{
	const struct head *hd = pic;
	const struct kp_tl *tl = hd->tl;

	fprintf(out, " data-t0=\"%llu\" data-span=\"%llu\" data-x0=\"%.1f\" data-pw=\"%.1f\" "
		     "data-top=\"%.1f\" data-fontsize=\"%g\"",
		(unsigned long long)tl->t0, (unsigned long long)(tl->t1 - tl->t0), tl->x0, tl->pw,
		hd->top, tl->so->fontsize);
}

static void write_head(struct kp_tl *tl, double w, double h, double top)
{
	const struct kp_svg_opts *so = tl->so;
	FILE *out = tl->out;

	kp_svg_head(out, &(struct kp_svg_head){
		.w = w, .h = h, .fontsize = so->fontsize, .id = "kprof-timeline",
		.attrs = head_attrs, .pic = &(struct head){ tl, top },
		.js = so->no_js ? NULL : kp_timeline_js, .onload = "kp_timeline",
		.css_text = ".proc{font-weight:bold}",
		.css = ".bg{fill:rgb(246,246,240)}.o{fill:rgb(255,255,255);fill-opacity:0.4;"
		       "stroke:rgb(70,70,190);stroke-width:1}.q{fill:rgb(255,255,255);"
		       "fill-opacity:0.4;stroke:rgb(220,120,0);stroke-width:1;stroke-dasharray:2,1}"
		       ".m{fill:rgb(0,0,0)}.u{fill:rgb(200,200,200);stroke:rgb(120,120,120);"
		       "stroke-width:0.5;stroke-dasharray:1,1}.match{fill:rgb(230,0,230)!important}"
		       "rect.c:hover,rect.k:hover,rect.o:hover,rect.q:hover,rect.u:hover,"
		       "rect.x:hover{stroke:black;stroke-width:0.5}"
		       "#axis line{stroke:rgb(160,160,160);stroke-width:0.5}"
		       "#sel{fill:rgb(80,80,255);fill-opacity:0.2}",
		.background = { "rgb(238,238,238)", NULL },
		.title = so->title ? so->title : "Timeline" });
	fprintf(out, "<text id=\"subtitle\" x=\"%.2f\" y=\"%g\">", floor(w / 2), so->fontsize * 3.5);
	if (so->subtitle) {
		kp_svg_put_xml(out, so->subtitle, strlen(so->subtitle));
	} else {
		fputs("from ", out);
		put_time(out, tl->t0);
		fputs(" to ", out);
		put_time(out, tl->t1);
		fputs(" (kprof script's clock): drag to zoom", out);
	}
	fputs("</text>\n", out);
	kp_svg_controls(out, w, h, so->fontsize, !so->no_js, 400);
}

/* Ticks at 1, 2 or 5 times a power of ten of ns, 5 to 12 across, labelled in seconds from
 * the start; the JavaScript draws them again for a zoomed window. */
static void write_axis(struct kp_tl *tl, double top, double bottom)
{
	double span = (double)(tl->t1 - tl->t0);
	double step = span > 0 ? pow(10, floor(log10(span / 5))) : 1;
	FILE *out = tl->out;

	step *= span / step > 25 ? 5 : span / step > 10 ? 2 : 1; /* 5 to 12 ticks */
	fputs("<g id=\"axis\">", out);
	for (double t = 0; span > 0 && t <= span; t += step) {
		double x = tl->x0 + t * tl->pw / span;
		fprintf(out, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			     "<text x=\"%.2f\" y=\"%.1f\">%.9g s</text>", x, x, top, bottom, x + 2,
			top - 3, t / 1e9);
	}
	fputs("</g>\n", out);
}

static int parse_max(struct kp_view_opts *o, const char *arg, char *why, size_t size)
{
	char *end;
	double mib = strtod(arg, &end);

	if (end == arg || *end || !(mib >= 0.001 && mib <= 1048576)) {
		snprintf(why, size, "--timeline-max takes a size in MiB from 0.001 to 1048576, not "
			 "'%s'", arg);
		return -EINVAL;
	}
	o->timeline_max = (uint64_t)(mib * (1 << 20));
	return 0;
}

const struct kp_view_option kp_timeline_options[] = {
	{ "timeline-max", "MIB", "the largest SVG it writes (default 50): past it, boxes "
	  "shorter than a pixel are merged", parse_max },
	{ NULL, NULL, NULL, NULL },
};

/* The picture: its head, axis and lanes, into tl->out (while sized, up to past the bound). */
static void write_picture(struct kp_tl *tl)
{
	const struct kp_svg_opts *so = tl->so;
	double top = so->fontsize * 5 + 6, y;
	double h = top + (double)tl->nr_rows * tl->lh + so->fontsize * 2 + 14;

	write_head(tl, so->width, h, top);
	write_axis(tl, top, h - (so->fontsize * 2 + 12));
	fputs("<g id=\"lanes\">\n", tl->out);
	for (size_t i = 0; i < tl->nr_lanes && !past_max(tl); i++) {
		const struct kp_tl_lane *ln = &tl->lanes[i];
		y = top + 2 + (double)ln->row * tl->lh;
		if (ln->heading && ln->packed) {
			char text[64];
			snprintf(text, sizeof(text), "Short-lived processes (%zu)", tl->nr_packed);
			write_heading(tl, text, UINT32_MAX, y - tl->lh);
		} else if (ln->heading) {
			write_heading(tl, ln->is_cpu ? "CPUs" : process_comm(tl, i),
				      ln->is_cpu ? UINT32_MAX : ln->pid, y - tl->lh);
		}
		write_lane(tl, i, y);
	}
	fputs("</g>\n<rect id=\"sel\" class=\"hide\" x=\"0\" y=\"0\" width=\"0\" height=\"0\"/>\n"
	      "</svg>\n", tl->out);
}

static ssize_t count_bytes(void *c, const char *buf, size_t n)
{
	(void)buf;
	*(uint64_t *)c += n;
	return (ssize_t)n;
}

/* How many bytes the picture takes: written to a stream that counts them, and stopped once
 * past @tl->max (the count is then more than it, not the whole size). */
static uint64_t picture_size(struct kp_tl *tl)
{
	uint64_t n = 0;
	FILE *f = fopencookie(&n, "w", (cookie_io_functions_t){ .write = count_bytes });

	if (!f)
		return 0; /* no memory for a stream: the picture is written as it is */
	tl->out = f;
	tl->counted = &n;
	write_picture(tl);
	fclose(f);
	tl->counted = NULL;
	return n;
}

static void say(const struct kp_view_opts *o, enum kp_report_say kind, const char *msg)
{
	if (o->say)
		o->say(o->say_ctx, kind, msg);
}

/*
 * The bound: a picture larger than --timeline-max has the boxes shorter than a pixel merged
 * (kp_tl_merge()), said before it is written; one that is still larger is not written.
 * Returns 0, or -EFBIG after saying why.
 */
static int fit(struct kp_tl *tl)
{
	const struct kp_view_opts *o = tl->o;
	size_t before = tl->nr_items, after;
	char msg[512];
	double mib = (double)tl->max / (1 << 20);

	if (picture_size(tl) <= tl->max)
		return 0;
	after = kp_tl_merge(tl);
	if (picture_size(tl) > tl->max) {
		snprintf(msg, sizeof(msg), "the timeline would be over --timeline-max %.4g MiB, even "
			 "with its boxes shorter than a pixel merged (%zu lanes, %zu boxes): not "
			 "written", mib, tl->nr_lanes, after);
		say(o, KP_SAY_ERROR, msg);
		say(o, KP_SAY_HINT, "cut it with --time START,END, --pid, --tid or --cpu, or give "
			 "a larger --timeline-max");
		return -EFBIG;
	}
	snprintf(msg, sizeof(msg), "the timeline would be over --timeline-max %.4g MiB: the boxes "
		 "shorter than a pixel (%.3f ms) are merged, %zu boxes into %zu", mib,
		 (double)(tl->t1 - tl->t0) / tl->pw / 1e6, before, after);
	say(o, KP_SAY_NOTICE, msg);
	return 0;
}

int kp_view_timeline(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	const struct kp_svg_opts *so = &o->svg;
	struct kp_view_thread *threads;
	struct kp_view_cpu_slice *cpus;
	uint32_t *order;
	size_t nr = kp_view_threads(o, KP_THREADS_ALL, &threads, &order);
	size_t nr_cpus = kp_view_cpu_slices(p, o, &cpus), first_thread;
	struct kp_tl tl = { .p = p, .o = o, .so = so, .lh = so->frame_height + 4,
			    .max = o->timeline_max ? o->timeline_max : DEFAULT_MAX };
	int rc;

	add_cpus(&tl, cpus, nr_cpus);
	cut_to_window(&tl, 0);
	first_thread = tl.nr_lanes;
	for (size_t t = 0; t < nr; t++)
		add_thread(&tl, &threads[t], order);
	cut_to_window(&tl, first_thread);
	kp_tl_group(&tl, first_thread); /* the lanes' items are no longer in their order */
	span_of(&tl);
	tl.x0 = XPAD + LABEL_W;
	tl.pw = so->width - tl.x0 - XPAD > 1 ? so->width - tl.x0 - XPAD : 1;
	kp_tl_pack(&tl, first_thread);
	kp_tl_layout(&tl);
	rc = fit(&tl);
	if (!rc) {
		tl.out = out;
		write_picture(&tl);
	}
	free(tl.items);
	free(tl.lanes);
	free(tl.merges);
	free(tl.text.cps);
	free(cpus);
	free(threads);
	free(order);
	return rc;
}

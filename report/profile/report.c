/* SPDX-License-Identifier: MIT */
/*
 * report.c - a recording into a profile (see report.h), and what the report says of it.
 */
#include <stdlib.h>
#include <string.h>

#include "report/symbols/debuginfo.h"
#include "report/symbols/debuginfod.h"
#include "report.h"
#include "report/base/text.h"

static bool in_list(const int *v, size_t nr, uint32_t x)
{
	if (!nr)
		return true;
	for (size_t i = 0; i < nr; i++)
		if ((uint32_t)v[i] == x)
			return true;
	return false;
}

/* --cgroup: @cg is one of the filter's cgroups or below one ("" is unknown: never). */
static bool in_cgroups(const struct kp_report_filter *f, const char *cg)
{
	for (size_t i = 0; *cg && i < f->nr_cgroups; i++) {
		size_t n = strlen(f->cgroups[i]);

		while (n > 1 && f->cgroups[i][n - 1] == '/')
			n--;
		if (!strncmp(cg, f->cgroups[i], n) && (!cg[n] || cg[n] == '/' || n == 1))
			return true;
	}
	return false;
}

static bool keep_sample(const struct kp_report_filter *f, const struct kp_session *s,
			const struct kp_sample *smp, const struct kp_thread *t)
{
	if (!in_list(f->pids, f->nr_pids, smp->pid) || !in_list(f->tids, f->nr_tids, smp->tid) ||
	    !in_list(f->cpus, f->nr_cpus, smp->cpu))
		return false;
	if (f->no_idle && (smp->sample_type & PERF_SAMPLE_TID) && smp->pid == 0)
		return false;
	if ((f->t_start || f->t_end != UINT64_MAX) &&
	    (!(smp->sample_type & PERF_SAMPLE_TIME) || smp->time < f->t_start ||
	     smp->time > f->t_end))
		return false;
	if (f->nr_cgroups &&
	    !in_cgroups(f, kp_strtab_get(&s->strs, s->model.procs[t->proc].cgroup)))
		return false;
	if (f->nr_comms) {
		const char *comm = kp_strtab_get(&s->strs, t->comm);
		for (size_t i = 0; i < f->nr_comms; i++)
			if (!strcmp(comm, f->comms[i]))
				return true;
		return false;
	}
	return true;
}

static bool filtering(const struct kp_report_filter *f)
{
	return f->nr_pids || f->nr_tids || f->nr_cpus || f->no_idle || f->t_start ||
	       f->t_end != UINT64_MAX || f->nr_cgroups || f->nr_comms;
}

/* An off-CPU event: every switch-out sampled, with the switch records that time it. */
static bool is_off_cpu(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
	       a->context_switch;
}

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CPU_CLOCK ||
						 a->config == PERF_COUNT_SW_TASK_CLOCK);
}

static void off_cpu_closed(void *ctx, const struct kp_offcpu_wait *w, uint64_t ns);

/* The profile is sized on the event list, which is final once the first sample comes. */
static void start_profile(struct kp_report *r)
{
	struct kp_session *s = &r->s;

	kp_profile_init(&r->prof, &s->strs, s->evl.nr);
	r->prof.addrs = r->o->addrs;
	for (size_t e = 0; e < s->evl.nr; e++) {
		const struct perf_event_attr *a = &s->evl.ev[e].attr;
		bool off = is_off_cpu(a);
		r->prof.events[e] = (struct kp_prof_event){
			kp_strtab_intern(&s->strs, s->evl.ev[e].name),
			kp_strtab_intern(&s->strs, kp_report_event_unit(r, e, false)),
			a->freq || off ? 0 : a->sample_period, a->freq ? a->sample_freq : 0, off };
	}
	if (r->off_event >= 0 && r->o->wall) {
		struct kp_prof_event *pe = &r->prof.events[r->off_event];
		uint32_t f = kp_profile_func(&r->prof, kp_strtab_intern(&s->strs, "[runqueue]"), 0,
					     KP_LOC_UNNAMED);

		pe->name = kp_strtab_intern(&s->strs, "wall");
		r->rq_loc = kp_profile_loc(&r->prof, f, 0, 0, KP_LOC_UNNAMED);
	}
	kp_offcpu_init(&r->off, off_cpu_closed, r);
	kp_hash_init(&r->rq_nodes);
	kp_resolver_init(&r->res, s, &r->prof, r->o->unwinder);
	r->filtering = filtering(&r->o->filter);
	r->res.cgroup_root = r->o->cgroup_root;
	r->per_event = kp_xcalloc(s->evl.nr ? s->evl.nr : 1, sizeof(*r->per_event));
	r->ready = true;
}

static int pick_event(struct kp_report *r)
{
	const struct kp_evlist *evl = &r->s.evl;
	bool clock = false;

	r->event = -1;
	r->off_event = -1;
	for (size_t e = 0; e < evl->nr; e++) {
		if (is_off_cpu(&evl->ev[e].attr) && r->off_event < 0)
			r->off_event = (long)e;
		clock |= is_clock(&evl->ev[e].attr);
	}
	if (r->o->wall) { /* the one column of the wall-clock profile */
		r->event = r->off_event;
		return r->off_event >= 0 && clock ? 0 : -KP_REPORT_ENOWALL;
	}
	if (!r->o->event_name)
		return 0;
	for (size_t e = 0; e < evl->nr; e++)
		if (!strcmp(evl->ev[e].name, r->o->event_name) ||
		    !strcmp(evl->ev[e].spec, r->o->event_name))
			r->event = (long)e;
	return r->event < 0 ? -KP_REPORT_ENOEVENT : 0;
}

/* The ATTR records come first: the first record that is not one picks the event. */
static int on_own(void *ctx, struct kp_session *s, const struct kp_rec_header *rec)
{
	struct kp_report *r = ctx;

	(void)s;
	if (rec->type == KP_REC_TP_FORMAT && r->o->seq && r->o->tp_fields) {
		if (!r->tp)
			r->tp = kp_tp_new();
		kp_tp_add_record(r->tp, rec);
	}
	if (rec->type != KP_REC_ATTR && r->event == -2)
		return pick_event(r);
	return 0;
}

/* A tracepoint sample's decoded fields, interned (0 when not asked for or not decodable). */
static uint32_t sample_fields(struct kp_report *r, const struct kp_sample *smp)
{
	char buf[4096];

	if (!r->tp || !(smp->sample_type & PERF_SAMPLE_RAW) || !smp->raw_size ||
	    kp_tp_format(r->tp, smp->raw, smp->raw_size, buf, sizeof(buf)))
		return 0;
	return kp_strtab_intern(&r->s.strs, buf[0] ? buf : " ");
}

/* An interval was opened (@w, or NULL if none): with a timeline, its entry @se, completed when
 * the interval closes (off_cpu_closed()). */
static void opened(struct kp_report *r, struct kp_offcpu_wait *w, const struct kp_seq_ent *se)
{
	if (!w || !r->o->seq)
		return;
	w->tag = r->seq.nr;
	kp_seq_push_sample(&r->seq, se);
}

static int on_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *t)
{
	struct kp_report *r = ctx;
	const struct kp_report_opts *o = r->o;
	size_t e = ev - s->evl.ev;

	if (!r->ready)
		start_profile(r);
	if (o->progress && !((r->kept + r->filtered) % 65536))
		o->progress(o->progress_ctx, r);
	if (o->wall && is_clock(&ev->attr)) /* its samples' periods are ns of the wall */
		e = (size_t)r->off_event;
	if ((r->event >= 0 && (size_t)r->event != e) ||
	    (r->filtering && !keep_sample(&o->filter, s, smp, t))) {
		r->filtered++;
		return 0;
	}
	uint64_t period = smp->sample_type & PERF_SAMPLE_PERIOD ? smp->period : 1;
	struct kp_seq_ent se = { .time = smp->time, .pid = smp->pid, .tid = smp->tid,
				 .cpu = smp->cpu, .event = (uint32_t)e, .comm = t->comm,
				 .life = t->life };
	if ((long)e == r->off_event && ev == &s->evl.ev[e]) {
		/* a switch-out: its weight is the time until the switch-in (off_cpu_closed()), and
		 * its entry in the timeline, the interval's, is completed then */
		se.node = kp_resolve_stack(&r->res, smp, rec->misc, t, o->reverse);
		se.kind = KP_SEQ_BLOCKED;
		opened(r, kp_offcpu_sample(&r->off, smp->tid, smp->time, se.node), &se);
	} else if (!o->seq) {
		kp_resolve_add(&r->res, smp, rec->misc, t, o->reverse, e, period);
	} else {
		se.node = kp_resolve_add(&r->res, smp, rec->misc, t, o->reverse, e, period);
		se.value = o->by_samples ? 1 : period; /* in the views' weight */
		se.fields = sample_fields(r, smp);
		kp_seq_push_sample(&r->seq, &se);
	}
	if (smp->sample_type & PERF_SAMPLE_TIME) {
		if (!r->prof.t_first || smp->time < r->prof.t_first)
			r->prof.t_first = smp->time;
		if (smp->time > r->prof.t_last)
			r->prof.t_last = smp->time;
	}
	r->per_event[e]++;
	r->kept++;
	return 0;
}

/* @node's path with [runqueue] at its leaf end (the root end of an inverted tree), made once
 * per node. */
static uint32_t runqueue_node(struct kp_report *r, uint32_t node)
{
	struct kp_profile *p = &r->prof;
	uint64_t *known = kp_hash_get(&r->rq_nodes, node);
	uint32_t *locs, stack = node;
	size_t n = 0;

	if (known)
		return (uint32_t)*known;
	for (uint32_t k = node; k; k = p->nodes[k].parent)
		n++;
	locs = kp_xcalloc(n + 1, sizeof(*locs));
	for (uint32_t k = node, i = (uint32_t)n; k; k = p->nodes[k].parent)
		locs[--i + (r->o->reverse ? 1 : 0)] = p->nodes[k].loc;
	locs[r->o->reverse ? 0 : n] = r->rq_loc;
	node = kp_profile_path(p, locs, n + 1);
	free(locs);
	kp_hash_put(&r->rq_nodes, stack, node);
	return node;
}

/* A closed off-CPU interval: blocked time at its stack; with --wall, run-queue time too. In
 * the timeline, its entry (w->tag) gets its stack, length and weight; run-queue time weighs
 * nothing but in --wall. */
static void off_cpu_closed(void *ctx, const struct kp_offcpu_wait *w, uint64_t ns)
{
	struct kp_report *r = ctx;
	uint32_t node = w->node;
	bool preempt = w->preempt, weighs = !preempt || r->o->wall;

	if (node == KP_OFFCPU_NO_NODE) { /* its switch-out was not sampled: the time, not where */
		if (!r->nostack_node) {
			uint32_t f = kp_profile_func(&r->prof, kp_strtab_intern(&r->s.strs,
						     "[off-CPU without a stack]"), 0, KP_LOC_UNNAMED);
			uint32_t loc = kp_profile_loc(&r->prof, f, 0, 0, KP_LOC_UNNAMED);

			r->nostack_node = kp_profile_path(&r->prof, &loc, 1);
		}
		node = r->nostack_node;
	}
	if (preempt && r->o->wall)
		node = runqueue_node(r, node);
	if (weighs)
		kp_profile_add_weight(&r->prof, node, (size_t)r->off_event, 1, ns);
	if (r->o->seq && w->tag < r->seq.nr) {
		struct kp_seq_ent *e = &r->seq.ents[w->tag];

		e->node = node;
		e->kind = preempt ? KP_SEQ_RUNNABLE : KP_SEQ_BLOCKED;
		e->span = ns;
		e->value = weighs ? (r->o->by_samples ? 1 : ns) : 0;
	}
}

/* The switch records, exits and forks that time the off-CPU intervals. */
static int on_side(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		   const struct kp_rec_header *rec, const struct kp_sample *id)
{
	struct kp_report *r = ctx;
	struct kp_switch sw;
	struct kp_task task;

	(void)ev;
	if (!r->ready || r->off_event < 0 || !(id->sample_type & PERF_SAMPLE_TIME) ||
	    !(id->sample_type & PERF_SAMPLE_TID))
		return 0;
	if (rec->type == PERF_RECORD_EXIT) {
		kp_offcpu_exit(&r->off, id->tid, id->time);
	} else if (rec->type == PERF_RECORD_FORK && !kp_rec_parse_task(rec, rec->size, &task)) {
		kp_offcpu_fork(&r->off, task.tid);
	} else if ((rec->type == PERF_RECORD_SWITCH || rec->type == PERF_RECORD_SWITCH_CPU_WIDE) &&
		   !kp_rec_parse_switch(rec, rec->size, &sw) &&
		   keep_sample(&r->o->filter, s, id,
				 r->o->filter.nr_comms || r->o->filter.nr_cgroups /* they read t */
				 ? kp_model_thread(&s->model, id->pid, id->tid) : NULL)) {
		struct kp_seq_ent se = { .kind = sw.preempt ? KP_SEQ_RUNNABLE : KP_SEQ_BLOCKED,
					 .node = KP_OFFCPU_NO_NODE, .time = id->time, .pid = id->pid,
					 .tid = id->tid, .event = (uint32_t)r->off_event };

		if (id->sample_type & PERF_SAMPLE_CPU)
			se.cpu = id->cpu;

		if (r->o->seq) {
			const struct kp_thread *t = kp_model_thread(&s->model, id->pid, id->tid);
			se.comm = t->comm;
			se.life = t->life;
		}
		opened(r, kp_offcpu_switch(&r->off, id->tid, id->time, sw.out, sw.preempt), &se);
	}
	return 0;
}

/*
 * The first sample's wall-clock time: its record time moved by the start time's offset, when
 * that is known and the sum is a time from 1970 to KP_WALL_MAX; else unknown (0), which
 * kp_report_warnings() says.
 */
static void wall_first(struct kp_report *r)
{
	int64_t t;

	if (r->s.wall_at_mono && r->prof.t_first && r->prof.t_first <= INT64_MAX &&
	    !__builtin_add_overflow((int64_t)r->prof.t_first, r->s.wall_at_mono, &t) && t > 0)
		r->prof.wall_first = (uint64_t)t;
}

int kp_report_build(const struct kp_report_opts *o, struct kp_report *r)
{
	static const struct kp_session_ops ops = { .own = on_own, .sample = on_sample,
						   .side = on_side };
	int rc;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->open_err = kp_session_open(&r->s, o->input, &o->dso);
	if (r->open_err)
		return -KP_REPORT_EOPEN;
	if (o->symfs)
		kp_session_set_symfs(&r->s, o->symfs);
	r->s.alts = o->alts;
	r->s.nr_alts = o->nr_alts;
	r->event = -2; /* decided once the events are known */
	r->off_event = -1;
	rc = kp_session_run(&r->s, &ops, r);
	if (r->ready)
		kp_resolver_settle(&r->res);
	if (!r->s.evl.nr) { /* no view, header or filter has an event to show */
		r->replay_err = r->s.r.err;
		return -KP_REPORT_EEMPTY;
	}
	if (rc == -KP_REPORT_ENOEVENT || rc == -KP_REPORT_ENOWALL)
		return rc;
	r->replay_err = rc;
	if (r->event == -2 && (rc = pick_event(r))) /* a file of ATTR records only */
		return rc;
	if (!r->ready)
		start_profile(r);
	{ /* intervals still open end when sampling stopped, or at the last record */
		uint64_t end = r->s.last_time > r->prof.t_last ? r->s.last_time : r->prof.t_last;

		kp_offcpu_end(&r->off, r->s.end_mono_ns > end ? r->s.end_mono_ns : end);
	}
	wall_first(r);
	kp_profile_finish(&r->prof);
	return 0;
}

void kp_report_release(struct kp_report *r)
{
	if (r->ready) {
		kp_offcpu_release(&r->off);
		kp_hash_release(&r->rq_nodes);
		kp_resolver_release(&r->res);
		kp_profile_release(&r->prof);
	}
	free(r->per_event);
	free(r->seq.ents);
	kp_tp_free(r->tp);
	r->tp = NULL;
	kp_session_release(&r->s);
	r->ready = false;
	r->per_event = NULL;
	r->seq.ents = NULL;
}

const char *kp_report_event_unit(const struct kp_report *r, size_t e, bool by_samples)
{
	const struct kp_evsel *ev = &r->s.evl.ev[e];

	if (by_samples)
		return "samples";
	if (is_clock(&ev->attr) || is_off_cpu(&ev->attr)) /* off-CPU: the intervals' lengths */
		return "ns";
	if (!(ev->attr.sample_type & PERF_SAMPLE_PERIOD))
		return "samples";
	return "events";
}

/* @ns as a duration with a unit that keeps it readable: "587.25 ms", "3.10 s", "800 ns". */
static void print_duration(FILE *out, uint64_t ns)
{
	static const struct { double scale; const char *unit; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\u00b5s" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if ((double)ns >= units[i].scale) {
			fprintf(out, "%.2f %s", (double)ns / units[i].scale, units[i].unit);
			return;
		}
	fprintf(out, "%llu ns", (unsigned long long)ns);
}

void kp_report_print_header(const struct kp_report *r, size_t e, FILE *out)
{
	const struct kp_evsel *ev = &r->s.evl.ev[e];
	const struct kp_prof_event *pe = &r->prof.events[e];
	const struct kp_weight *w = kp_profile_total(&r->prof, 0, e);
	const char *unit = kp_strtab_get(&r->s.strs, pe->unit);
	const char *name = kp_strtab_get(&r->s.strs, pe->name); /* "wall" for --wall */
	bool asked = !strcmp(ev->name, name) && strcmp(ev->name, ev->spec);

	fputs("# kprof report of '", out);
	kp_text_put(out, 0, r->o->input);
	fprintf(out, "': %llu samples of ", (unsigned long long)w->count);
	kp_text_put(out, 0, name);
	/* how it was sampled, as it was asked: the rate, or the period */
	if (asked || pe->freq || pe->period) {
		fputs(" (", out);
		if (asked) {
			fputs("asked for '", out);
			kp_text_put(out, 0, ev->spec);
			fprintf(out, "'%s", pe->freq || pe->period ? ", " : "");
		}
		if (pe->freq)
			fprintf(out, "-F %llu", (unsigned long long)pe->freq);
		else if (pe->period)
			fprintf(out, "-c %llu", (unsigned long long)pe->period);
		fputc(')', out);
	}
	/* what the samples stand for, the views' weight: time for the clocks, else events */
	if (!strcmp(unit, "ns")) {
		fputs(", ", out);
		print_duration(out, w->period);
		fputs(" in all", out);
	} else if (strcmp(unit, "samples")) {
		fprintf(out, ", %llu %s in all", (unsigned long long)w->period, unit);
	}
	if (r->s.have_stats)
		fprintf(out, ", %llu lost", (unsigned long long)r->s.stats.lost);
	fputc('\n', out);
}

void kp_report_print_unwind(FILE *out, const struct kp_rec_unwind_stats *u,
			    const struct kp_unwind_stats *stops, const struct kp_strtab *strs)
{
	fprintf(out, "# DWARF unwinding while recording: %llu samples with a stack copy, %llu "
		     "unwound (%.2f s of CPU), %llu kept as copies (%llu behind, %llu without a "
		     "frame), %llu no further than their first frame\n",
		(unsigned long long)u->samples, (unsigned long long)u->unwound, u->cpu_ns / 1e9,
		(unsigned long long)(u->kept_behind + u->kept_failed),
		(unsigned long long)u->kept_behind, (unsigned long long)u->kept_failed,
		(unsigned long long)u->failed);
	kp_unwind_stats_print(stops, strs, out, "#   ");
}

/* What named a binary, when not the file at its recorded path (kp_dso_source()). */
static const char *const source_str[] = {
	[KP_DSO_SRC_EMBEDDED] = "the recording's embedded symbols",
	[KP_DSO_SRC_EMBEDDED_NS] = "the recording's embedded symbols, read while recording in the "
				   "mount namespace of the process that mapped it",
	[KP_DSO_SRC_DEBUGINFOD] = "debuginfod",
	[KP_DSO_SRC_NAMESPACE] = "the file its process saw, through /proc/PID/root",
};

/* Each binary frames fell in: how many it named, and what named them. */
static void print_dso_stats(const struct kp_session *s, FILE *out)
{
	for (size_t i = 0; i < s->nr_dsos; i++) {
		const struct kp_session_dso *d = &s->dso_list[i];
		enum kp_dso_status st = kp_dso_status(d->dso), file;
		enum kp_dso_source src = kp_dso_source(d->dso, &file);

		if (!d->frames)
			continue;
		fputs("#   ", out);
		kp_text_put(out, 0, kp_strtab_get(&s->strs, d->path));
		fprintf(out, ": %llu frames, %llu unnamed", (unsigned long long)d->frames,
			(unsigned long long)d->unnamed);
		if (d->fde)
			fprintf(out, ", %llu named by their unwind table's FDE",
				(unsigned long long)d->fde);
		if (src != KP_DSO_SRC_FILE)
			fprintf(out, ", from %s%s%s (the file: %s)\n", source_str[src],
				st == KP_DSO_OK ? "" : ": ", st == KP_DSO_OK ? "" : kp_dso_status_str(st),
				kp_dso_status_str(file));
		else if (st == KP_DSO_OK)
			fprintf(out, ", from the file\n");
		else
			fprintf(out, ": %s\n", kp_dso_status_str(st));
	}
}

/* Where kernel frames got their names: the recording's own lines, or a kallsyms file. */
static void print_ksyms_stats(const struct kp_session *s, FILE *out)
{
	const struct kp_ksyms *k = &s->ksyms;

	fprintf(out, "# kernel symbols: ");
	if (k->loader)
		fprintf(out, "%s, not waited for: no kernel frame needed it", k->from);
	else if (k->from)
		fprintf(out, "%zu from %s", k->nr, k->from);
	else if (k->nr)
		fprintf(out, "%zu from the recording", k->nr);
	else
		fprintf(out, "none");
	if (k->dropped)
		fprintf(out, " (%s set aside: its kernel's layout is not the recording's)",
			k->dropped);
	fputc('\n', out);
}

/* The separate debug files opened, and the ones whose DWARF was read, why, at what cost. */
static void print_debug_stats(const struct kp_session *s, FILE *out)
{
	static const char *const why[] = {
		[KP_DWARF_SRCLINE] = "source lines (--srcline)",
		[KP_DWARF_UNNAMED] = "addresses no symbol table names",
		[KP_DWARF_INLINE] = "inline frames (--inline)",
	};
	size_t files = 0, dwarfs = 0;
	uint64_t inflated = 0, *bytes = kp_xcalloc(s->nr_dsos + 1, sizeof(*bytes));
	enum kp_dso_dwarf w;

	for (size_t i = 0; i < s->nr_dsos; i++) {
		const char *f = kp_dso_debug_file(s->dso_list[i].dso, &w);

		if (!f)
			continue;
		files++;
		if (w >= KP_DWARF_SRCLINE) {
			dwarfs++;
			inflated += bytes[i] = kp_debuginfo_inflated(f);
		}
	}
	fprintf(out, "# debug files: %zu opened for their symbols, the DWARF of %zu read "
		     "(%.1f MB inflated)\n", files, dwarfs, inflated / 1e6);
	for (size_t i = 0; i < s->nr_dsos; i++) {
		const char *f = kp_dso_debug_file(s->dso_list[i].dso, &w);

		if (!f)
			continue;
		fputs("#   ", out);
		kp_text_put(out, 0, kp_strtab_get(&s->strs, s->dso_list[i].path));
		fputs(": ", out);
		kp_text_put(out, 0, f);
		if (w >= KP_DWARF_SRCLINE)
			fprintf(out, ", DWARF read for %s (%.1f MB inflated)\n", why[w],
				bytes[i] / 1e6);
		else
			fputs(", symbols only\n", out);
	}
	free(bytes);
}

void kp_report_print_stats(const struct kp_report *r, FILE *out)
{
	const struct kp_session *s = &r->s;
	const struct kp_resolve_stats *st = &r->res.st;

	fprintf(out, "\n# samples: %llu shown, %llu filtered out", (unsigned long long)r->kept,
		(unsigned long long)r->filtered);
	if (s->have_stats)
		fprintf(out, "; recorded %llu, lost %llu", (unsigned long long)s->stats.samples,
			(unsigned long long)s->stats.lost);
	else
		fprintf(out, "; no final statistics (the recording did not finish)");
	fputc('\n', out);
	for (size_t e = 0; e < s->evl.nr; e++) {
		fputs("# event ", out);
		kp_text_put(out, 0, s->evl.ev[e].name);
		fprintf(out, ": %llu samples\n",
			(unsigned long long)(r->per_event ? r->per_event[e] : 0));
	}
	if (r->ready && r->off_event >= 0) {
		const struct kp_offcpu_stats *o = &r->off.st;

		fprintf(out, "# off-CPU intervals: %llu blocked (%.3f s), %llu preempted (%.3f s, "
			     "run-queue time%s); closed at the thread's exit %llu, at the end of the "
			     "recording %llu; without their stack %llu, without their switch-in "
			     "%llu (0 ns), switch-in before switch-out %llu (0 ns), after the thread's exit %llu\n",
			(unsigned long long)o->blocked, o->blocked_ns / 1e9,
			(unsigned long long)o->preempted, o->preempted_ns / 1e9,
			r->o->wall ? ", under [runqueue]" : ": only --wall shows it",
			(unsigned long long)o->at_exit, (unsigned long long)o->at_end,
			(unsigned long long)o->no_stack, (unsigned long long)o->no_switch_in,
			(unsigned long long)o->bad_time, (unsigned long long)o->after_exit);
	}
	if (s->have_unwind_stats)
		kp_report_print_unwind(out, &s->unwind_stats, &s->unwind_stops, &s->strs);
	if (r->ready && kp_unwinder_stats(r->res.unwinder)->samples) {
		const struct kp_unwind_stats *us = kp_unwinder_stats(r->res.unwinder);
		fprintf(out, "# DWARF unwinding: %llu samples with a stack copy, %llu (%.2f%%) "
			     "unwound no further than their first frame\n",
			(unsigned long long)us->samples, (unsigned long long)us->failed,
			kp_pct(us->failed, us->samples));
		kp_unwind_stats_print(us, &s->strs, out, "#   ");
	}
	fprintf(out, "# frames: %llu, unnamed %llu (%.2f%%), named by their unwind table's FDE "
		     "%llu (%.2f%%)\n", (unsigned long long)st->frames,
		(unsigned long long)st->unnamed, kp_pct(st->unnamed, st->frames),
		(unsigned long long)st->fde, kp_pct(st->fde, st->frames));
	fprintf(out,
		"#   outside every map %llu, kernel without symbol %llu, JIT without perf map %llu,"
		" unusable binary %llu, no symbol in binary %llu\n",
		(unsigned long long)st->no_map, (unsigned long long)st->no_ksym,
		(unsigned long long)st->no_jit, (unsigned long long)st->dso_unusable,
		(unsigned long long)st->no_sym);
	fprintf(out, "# stacks deeper than %zu frames, their outermost frames left out: %llu\n",
		ARRAY_SIZE(r->res.locs) - 1, (unsigned long long)st->cut);
	fprintf(out, "# frame-pointer stacks ending in one repeated address (a frame that points "
		     "to itself), shown once: %llu, the repeats left out %llu\n",
		(unsigned long long)st->looped, (unsigned long long)st->repeats);
	print_dso_stats(s, out);
	print_ksyms_stats(s, out);
	print_debug_stats(s, out);
}

typedef void say_fn(void *ctx, enum kp_report_say kind, const char *msg);

/* When more than 1% of the DWARF stacks stopped before their thread's entry: where the stacks
 * were unwound, while recording, in this report, or both. */
static void say_truncation(struct kp_report *r, say_fn *say, void *ctx)
{
	struct kp_session *s = &r->s;
	struct kp_unwind_stats st;
	char what[512], where[512], hint[512];

	memset(&st, 0, sizeof(st));
	kp_unwind_stats_add(&st, &s->strs, &s->unwind_stops, &s->strs);
	if (r->ready)
		kp_unwind_stats_add(&st, &s->strs, kp_unwinder_stats(r->res.unwinder), &s->strs);
	if (kp_unwind_truncation(&st, &s->strs, kp_evlist_stack_copy(&s->evl), what, where, hint,
				 sizeof(what))) {
		say(ctx, KP_SAY_WARNING, what);
		if (*where)
			say(ctx, KP_SAY_WARNING, where);
		if (*hint)
			say(ctx, KP_SAY_HINT, hint);
	}
	kp_unwind_stats_release(&st);
}

/* Once per binary, never per sample: the ones whose frames no symbol named, and why. */
static void say_dsos(const struct kp_session *s, say_fn *say, void *ctx)
{
	char msg[4096 + 256];

	for (size_t i = 0; i < s->nr_dsos; i++) {
		const struct kp_session_dso *d = &s->dso_list[i];
		const char *path = kp_strtab_get(&s->strs, d->path);
		uint64_t nosym = d->unnamed + d->fde;
		enum kp_dso_status st;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++) /* one line per path, however recorded */
			seen = s->dso_list[j].path == d->path &&
			       s->dso_list[j].unnamed + s->dso_list[j].fde;
		if (!nosym || seen)
			continue;
		st = kp_dso_status(d->dso);
		if (st == KP_DSO_OK || st == KP_DSO_NO_SYMBOLS) {
			/* a stripped binary: a few unnamed frames are glue, most are functions */
			if (nosym * 10 < d->frames || nosym < 100)
				continue;
			if (!d->fde)
				snprintf(msg, sizeof(msg),
					 "'%s': no symbol names %llu of its %llu frames: they keep only "
					 "their offset (its debug symbols, the -dbgsym package, name "
					 "them)", path, (unsigned long long)d->unnamed,
					 (unsigned long long)d->frames);
			else
				snprintf(msg, sizeof(msg),
					 "'%s': no symbol names %llu of its %llu frames: %llu are named "
					 "sub_HEX@%s after the FDE of their function in its unwind "
					 "tables%s%.0llu%s (its debug symbols, the -dbgsym package, name "
					 "them)", path, (unsigned long long)nosym,
					 (unsigned long long)d->frames, (unsigned long long)d->fde,
					 kp_strtab_get(&s->strs, d->short_name), d->unnamed ? ", " : "",
					 (unsigned long long)d->unnamed,
					 d->unnamed ? " keep only their offset" : "");
		} else {
			snprintf(msg, sizeof(msg), "'%s': %s: %llu frames keep only their offset",
				 path, kp_dso_status_str(st), (unsigned long long)d->unnamed);
		}
		say(ctx, KP_SAY_WARNING, msg);
	}
}

void kp_report_warnings(struct kp_report *r, bool truncation, bool frames, say_fn *say,
			void *ctx)
{
	char msg[4096 + 256];

	if (truncation)
		say_truncation(r, say, ctx);
	if (!frames)
		return;
	say_dsos(&r->s, say, ctx);
	if (r->s.jit_problem) {
		snprintf(msg, sizeof(msg), "%s%s", r->s.jit_problem,
			 r->s.jit_problems > 1 ? " (and other processes' JIT files)" : "");
		say(ctx, KP_SAY_WARNING, msg);
	}
	if (r->s.ksyms.refused)
		say(ctx, KP_SAY_WARNING, r->s.ksyms.refused);
	if (kp_debuginfod_failure(r->s.dso_opts.debuginfod, msg, sizeof(msg))) {
		say(ctx, KP_SAY_WARNING, msg);
		say(ctx, KP_SAY_HINT, "binaries missing here stay unnamed; --no-debuginfod asks no "
				      "server");
	}
	if (r->s.symbols_err) {
		snprintf(msg, sizeof(msg),
			 "the recording's embedded symbols could not be read (%s, in the chunk at "
			 "offset %llu): binaries missing here stay unnamed",
			 kp_strerror(r->s.symbols_err), (unsigned long long)r->s.symbols_off);
		say(ctx, KP_SAY_WARNING, msg);
	}
	if (r->s.bad_start_time || (r->s.wall_at_mono && r->prof.t_first && !r->prof.wall_first)) {
		if (r->s.bad_start_time)
			snprintf(msg, sizeof(msg), "the recording's start time, '%.200s', is no time "
				 "from 1970 to " KP_WALL_MAX, r->s.bad_start_time);
		else
			snprintf(msg, sizeof(msg), "the first sample's wall-clock time, %+lld ns "
				 "from the start time, is no time from 1970 to " KP_WALL_MAX,
				 (long long)(r->prof.t_first - (uint64_t)r->s.meta_mono_ns));
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), ", the last that 64 bits of "
			 "ns since 1970 hold: the samples have no wall-clock time (pprof's "
			 "time_nanos is left out)");
		say(ctx, KP_SAY_WARNING, msg);
	}
	if (r->res.st.cut) {
		snprintf(msg, sizeof(msg),
			 "%llu stacks were deeper than %zu frames: their outermost frames are left "
			 "out (the leaf side is kept)", (unsigned long long)r->res.st.cut,
			 ARRAY_SIZE(r->res.locs) - 1);
		say(ctx, KP_SAY_WARNING, msg);
	}
}

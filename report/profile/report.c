/* SPDX-License-Identifier: MIT */
/*
 * report.c - a recording into a profile (see report.h); what the report says of it is
 * report-say.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

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
	r->off.wakers = r->wake_event >= 0;
	kp_parallel_init(&r->par);
	kp_hash_init(&r->rq_nodes);
	kp_hash_init(&r->wake_nodes);
	kp_resolver_init(&r->res, s, &r->prof, r->o->unwinder);
	r->filtering = filtering(&r->o->filter);
	r->res.cgroup_root = r->o->cgroup_root;
	r->per_event = kp_xcalloc(s->evl.nr ? s->evl.nr : 1, sizeof(*r->per_event));
	r->ready = true;
}

/* The wakings that --wakers joins with the intervals: who woke each blocked thread. */
static bool is_waking(const struct kp_evsel *ev)
{
	return ev->attr.type == PERF_TYPE_TRACEPOINT && (ev->attr.sample_type & PERF_SAMPLE_RAW) &&
	       (!strcmp(ev->name, "sched:sched_waking") || !strcmp(ev->spec, "sched:sched_waking"));
}

static int pick_event(struct kp_report *r)
{
	const struct kp_evlist *evl = &r->s.evl;
	bool clock = false;

	r->event = -1;
	r->off_event = -1;
	r->wake_event = -1;
	for (size_t e = 0; e < evl->nr; e++) {
		if (is_off_cpu(&evl->ev[e].attr) && r->off_event < 0)
			r->off_event = (long)e;
		if (r->o->wakers && is_waking(&evl->ev[e]) && r->wake_event < 0)
			r->wake_event = (long)e;
		clock |= is_clock(&evl->ev[e].attr);
	}
	if (r->o->wakers && (r->off_event < 0 || r->wake_event < 0))
		return -KP_REPORT_ENOWAKERS;
	if (r->o->latency) { /* the switch records of record --latency or --off-cpu */
		bool switches = false;

		for (size_t e = 0; e < evl->nr; e++)
			switches |= evl->ev[e].attr.context_switch;
		if (!switches)
			return -KP_REPORT_ENOLATENCY;
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
	if (rec->type == KP_REC_TP_FORMAT && ((r->o->seq && r->o->tp_fields) || r->o->wakers)) {
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

	if (!r->tp || !r->o->tp_fields || !(smp->sample_type & PERF_SAMPLE_RAW) || !smp->raw_size ||
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
	if ((long)e == r->wake_event) { /* whoever the filters keep, it may have woken them */
		uint64_t pid;

		if (r->tp && smp->raw_size && !kp_tp_field(r->tp, smp->raw, smp->raw_size, "pid", 0,
							   &pid))
			kp_offcpu_waking(&r->off, (uint32_t)pid, smp->time,
					 kp_resolve_stack(&r->res, smp, rec->misc, t, false));
	}
	if (o->wall && is_clock(&ev->attr)) /* its samples' periods are ns of the wall */
		e = (size_t)r->off_event;
	bool keep = !(r->event >= 0 && (size_t)r->event != e) &&
		    !(r->filtering && !keep_sample(&o->filter, s, smp, t));
	unsigned par = o->latency && (long)e != r->off_event && (smp->sample_type & PERF_SAMPLE_TIME)
		       ? kp_parallel_sample(&r->par, smp->pid, smp->tid, smp->time, keep) : 1;

	if (!keep) {
		r->filtered++;
		return 0;
	}
	/* --latency: the period shared among the process's threads then running */
	uint64_t period = (smp->sample_type & PERF_SAMPLE_PERIOD ? smp->period : 1) / par;
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

/* @node's stack, root first as the stacks of a report that is not inverted, followed by
 * @tail: the node of that path, inverted again where the report's stacks are. */
static uint32_t node_then(struct kp_report *r, uint32_t node, const uint32_t *tail, size_t nt)
{
	struct kp_profile *p = &r->prof;
	uint32_t *locs;
	size_t n = 0;

	for (uint32_t k = node; k; k = p->nodes[k].parent)
		n++;
	locs = kp_xcalloc(n + nt, sizeof(*locs));
	for (uint32_t k = node, i = (uint32_t)n; k; k = p->nodes[k].parent)
		locs[r->o->reverse ? n - i-- : --i] = p->nodes[k].loc;
	memcpy(locs + n, tail, nt * sizeof(*tail));
	for (size_t i = 0; r->o->reverse && i < (n + nt) / 2; i++) {
		uint32_t x = locs[i];

		locs[i] = locs[n + nt - 1 - i];
		locs[n + nt - 1 - i] = x;
	}
	node = kp_profile_path(p, locs, n + nt);
	free(locs);
	return node;
}

/* @node's path with [runqueue] at its leaf end (the root end of an inverted tree), made once
 * per node. */
static uint32_t runqueue_node(struct kp_report *r, uint32_t node)
{
	uint64_t *known = kp_hash_get(&r->rq_nodes, node);
	uint32_t stack = node;

	if (known)
		return (uint32_t)*known;
	node = node_then(r, node, &r->rq_loc, 1);
	kp_hash_put(&r->rq_nodes, stack, node);
	return node;
}

/* A location of its own name, not a frame (a separator, a stand-in). */
static uint32_t label_loc(struct kp_report *r, const char *name)
{
	uint32_t f = kp_profile_func(&r->prof, kp_strtab_intern(&r->s.strs, name), 0,
				     KP_LOC_UNNAMED);

	return kp_profile_loc(&r->prof, f, 0, 0, KP_LOC_UNNAMED);
}

/*
 * With --wakers, a blocked interval's stack @node joined with the stack @waker of who woke it,
 * as offwaketime folds them: the blocked stack from its root to its leaf, a "--" frame, then
 * the waker's from its leaf to its comm ("[waker not recorded]" for none). Made once per pair.
 */
static uint32_t waker_node(struct kp_report *r, uint32_t node, uint32_t waker)
{
	struct kp_profile *p = &r->prof;
	uint64_t key = (uint64_t)node << 32 | waker, *known = kp_hash_get(&r->wake_nodes, key);
	uint32_t *tail;
	size_t n = 1;

	if (known)
		return (uint32_t)*known;
	if (!r->sep_loc) {
		r->sep_loc = label_loc(r, "--");
		r->nowaker_loc = label_loc(r, "[waker not recorded]");
	}
	for (uint32_t k = waker; waker != KP_OFFCPU_NO_NODE && k; k = p->nodes[k].parent)
		n++;
	tail = kp_xcalloc(n + 1, sizeof(*tail));
	tail[0] = r->sep_loc;
	tail[1] = r->nowaker_loc;
	n = 1;
	for (uint32_t k = waker; waker != KP_OFFCPU_NO_NODE && k; k = p->nodes[k].parent)
		tail[n++] = p->nodes[k].loc;
	node = node_then(r, node, tail, n > 1 ? n : 2);
	free(tail);
	kp_hash_put(&r->wake_nodes, key, node);
	return node;
}

/* A closed off-CPU interval: blocked time at its stack (with --wakers, joined with its
 * waker's); with --wall, run-queue time too. In the timeline, its entry (w->tag) gets its stack
 * (never its waker's: a waker ran elsewhere), length and weight; run-queue time weighs nothing
 * but in --wall. */
static void off_cpu_closed(void *ctx, const struct kp_offcpu_wait *w, uint64_t ns)
{
	struct kp_report *r = ctx;
	uint32_t node = w->node, at;
	bool preempt = w->preempt, weighs = !preempt || r->o->wall;

	if (node == KP_OFFCPU_NO_NODE) { /* its switch-out was not sampled: the time, not where */
		if (!r->nostack_node) {
			uint32_t loc = label_loc(r, "[off-CPU without a stack]");

			r->nostack_node = kp_profile_path(&r->prof, &loc, 1);
		}
		node = r->nostack_node;
	}
	if (preempt && r->o->wall)
		node = runqueue_node(r, node);
	at = !preempt && r->o->wakers ? waker_node(r, node, w->waker) : node;
	if (weighs)
		kp_profile_add_weight(&r->prof, at, (size_t)r->off_event, 1, ns);
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
	bool sw_ok;
	struct kp_task task;

	(void)ev;
	if (!r->ready || (r->off_event < 0 && !r->o->latency) ||
	    !(id->sample_type & PERF_SAMPLE_TIME) || !(id->sample_type & PERF_SAMPLE_TID))
		return 0;
	sw_ok = (rec->type == PERF_RECORD_SWITCH || rec->type == PERF_RECORD_SWITCH_CPU_WIDE) &&
		!kp_rec_parse_switch(rec, rec->size, &sw);
	if (r->o->latency && rec->type == PERF_RECORD_EXIT) /* every thread: its process's */
		kp_parallel_exit(&r->par, id->pid, id->tid, id->time);
	else if (r->o->latency && sw_ok)
		kp_parallel_switch(&r->par, id->pid, id->tid, id->time, !sw.out);
	if (r->off_event < 0)
		return 0;
	if (rec->type == PERF_RECORD_EXIT) {
		kp_offcpu_exit(&r->off, id->tid, id->time);
	} else if (rec->type == PERF_RECORD_FORK && !kp_rec_parse_task(rec, rec->size, &task)) {
		kp_offcpu_fork(&r->off, task.tid);
	} else if (sw_ok && keep_sample(&r->o->filter, s, id,
					r->o->filter.nr_comms || r->o->filter.nr_cgroups /* read t */
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
	r->wake_event = -1;
	rc = kp_session_run(&r->s, &ops, r);
	if (r->ready)
		kp_resolver_settle(&r->res);
	if (!r->s.evl.nr) { /* no view, header or filter has an event to show */
		r->replay_err = r->s.r.err;
		return -KP_REPORT_EEMPTY;
	}
	if (rc == -KP_REPORT_ENOEVENT || rc == -KP_REPORT_ENOWALL || rc == -KP_REPORT_ENOWAKERS ||
	    rc == -KP_REPORT_ENOLATENCY)
		return rc;
	r->replay_err = rc;
	if (r->event == -2 && (rc = pick_event(r))) /* a file of ATTR records only */
		return rc;
	if (!r->ready)
		start_profile(r);
	{ /* intervals still open end when sampling stopped, or at the last record */
		uint64_t end = r->s.last_time > r->prof.t_last ? r->s.last_time : r->prof.t_last;

		end = r->s.end_mono_ns > end ? r->s.end_mono_ns : end;
		kp_offcpu_end(&r->off, end);
		if (r->o->latency)
			kp_parallel_end(&r->par, end);
	}
	wall_first(r);
	kp_profile_finish(&r->prof);
	return 0;
}

void kp_report_release(struct kp_report *r)
{
	if (r->ready) {
		kp_offcpu_release(&r->off);
		kp_parallel_release(&r->par);
		kp_hash_release(&r->rq_nodes);
		kp_hash_release(&r->wake_nodes);
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

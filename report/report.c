/* SPDX-License-Identifier: MIT */
/*
 * report.c - a recording into a profile (see report.h), and what the report says of it.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "view.h"

static bool in_list(const int *v, size_t nr, uint32_t x)
{
	if (!nr)
		return true;
	for (size_t i = 0; i < nr; i++)
		if ((uint32_t)v[i] == x)
			return true;
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
	if (f->nr_comms) {
		const char *comm = kp_strtab_get(&s->strs, t->comm);
		for (size_t i = 0; i < f->nr_comms; i++)
			if (!strcmp(comm, f->comms[i]))
				return true;
		return false;
	}
	return true;
}

/* The profile is sized on the event list, which is final once the first sample comes. */
static void start_profile(struct kp_report *r)
{
	struct kp_session *s = &r->s;

	kp_profile_init(&r->prof, &s->strs, s->evl.nr);
	r->prof.addrs = r->o->addrs;
	for (size_t e = 0; e < s->evl.nr; e++) {
		const struct perf_event_attr *a = &s->evl.ev[e].attr;
		r->prof.events[e] = (struct kp_prof_event){
			kp_strtab_intern(&s->strs, s->evl.ev[e].name),
			kp_strtab_intern(&s->strs, kp_report_event_unit(r, e, false)),
			a->freq ? 0 : a->sample_period, a->freq ? a->sample_freq : 0 };
	}
	kp_resolver_init(&r->res, s, &r->prof, r->o->unwinder);
	r->per_event = kp_xcalloc(s->evl.nr ? s->evl.nr : 1, sizeof(*r->per_event));
	r->ready = true;
}

static int pick_event(struct kp_report *r)
{
	const struct kp_evlist *evl = &r->s.evl;

	r->event = -1;
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
		const struct kp_rec_tp_format *f = (const void *)rec;
		const char *sys = (const char *)(f + 1);
		if (!r->tp)
			r->tp = kp_tp_new();
		kp_tp_add_format(r->tp, sys, sys + f->sys_len, f->fmt_len); /* else undecoded */
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
	if ((r->event >= 0 && (size_t)r->event != e) || !keep_sample(&o->filter, s, smp, t)) {
		r->filtered++;
		return 0;
	}
	uint64_t period = smp->sample_type & PERF_SAMPLE_PERIOD ? smp->period : 1;
	uint32_t node = kp_resolve_add(&r->res, smp, rec->misc, t, o->reverse, e, period);
	if (o->seq) /* in the views' weight */
		kp_seq_push_sample(&r->seq, &(struct kp_seq_ent){
			.node = node, .value = o->by_samples ? 1 : period, .time = smp->time,
			.pid = smp->pid, .tid = smp->tid, .cpu = smp->cpu, .event = (uint32_t)e,
			.comm = t->comm, .fields = sample_fields(r, smp) });
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

int kp_report_build(const struct kp_report_opts *o, struct kp_report *r)
{
	static const struct kp_session_ops ops = { .own = on_own, .sample = on_sample };
	int rc;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->open_err = kp_session_open(&r->s, o->input, &o->dso);
	if (r->open_err)
		return -KP_REPORT_EOPEN;
	if (o->symfs)
		kp_session_set_symfs(&r->s, o->symfs);
	r->event = -2; /* decided once the events are known */
	rc = kp_session_run(&r->s, &ops, r);
	if (rc == -KP_REPORT_ENOEVENT)
		return rc;
	r->replay_err = rc;
	if (r->event == -2 && (rc = pick_event(r))) /* a file of ATTR records only */
		return rc;
	if (!r->ready)
		start_profile(r);
	if (r->s.wall_at_mono && r->prof.t_first)
		r->prof.wall_first = (uint64_t)((int64_t)r->prof.t_first + r->s.wall_at_mono);
	kp_profile_finish(&r->prof);
	return 0;
}

void kp_report_release(struct kp_report *r)
{
	if (r->ready) {
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

	if (by_samples || !(ev->attr.sample_type & PERF_SAMPLE_PERIOD))
		return "samples";
	if (ev->attr.type == PERF_TYPE_SOFTWARE && (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
						    ev->attr.config == PERF_COUNT_SW_TASK_CLOCK))
		return "ns";
	return "events";
}

void kp_report_print_header(const struct kp_report *r, size_t e, FILE *out)
{
	const struct kp_evsel *ev = &r->s.evl.ev[e];
	const struct kp_weight *w = kp_profile_total(&r->prof, 0, e);

	fprintf(out, "# kprof report of '%s': %llu samples of %s", r->o->input,
		(unsigned long long)w->count, ev->name);
	if (strcmp(ev->name, ev->spec))
		fprintf(out, " (asked for '%s')", ev->spec);
	fprintf(out, ", period %llu", (unsigned long long)w->period);
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

static void print_dso_stats(const struct kp_session *s, FILE *out)
{
	for (size_t i = 0; i < s->nr_dsos; i++) {
		const struct kp_session_dso *d = &s->dso_list[i];
		enum kp_dso_status st = kp_dso_status(d->dso);

		if (d->frames)
			fprintf(out, "#   %s: %llu frames, %llu unnamed%s%s\n",
				kp_strtab_get(&s->strs, d->path), (unsigned long long)d->frames,
				(unsigned long long)d->unnamed, st == KP_DSO_OK ? "" : ": ",
				st == KP_DSO_OK ? "" : kp_dso_status_str(st));
	}
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
	for (size_t e = 0; e < s->evl.nr; e++)
		fprintf(out, "# event %s: %llu samples\n", s->evl.ev[e].name,
			(unsigned long long)(r->per_event ? r->per_event[e] : 0));
	if (s->have_unwind_stats)
		kp_report_print_unwind(out, &s->unwind_stats, &s->unwind_stops, &s->strs);
	if (r->ready && kp_unwinder_stats(r->res.unwinder)->samples) {
		const struct kp_unwind_stats *us = kp_unwinder_stats(r->res.unwinder);
		fprintf(out, "# DWARF unwinding: %llu samples with a stack copy, %llu (%.2f%%) "
			     "unwound no further than their first frame\n",
			(unsigned long long)us->samples, (unsigned long long)us->failed,
			kp_view_pct(us->failed, us->samples));
		kp_unwind_stats_print(us, &s->strs, out, "#   ");
	}
	fprintf(out, "# frames: %llu, unnamed %llu (%.2f%%)\n", (unsigned long long)st->frames,
		(unsigned long long)st->unnamed, kp_view_pct(st->unnamed, st->frames));
	fprintf(out,
		"#   outside every map %llu, kernel without symbol %llu, JIT without perf map %llu,"
		" unusable binary %llu, no symbol in binary %llu\n",
		(unsigned long long)st->no_map, (unsigned long long)st->no_ksym,
		(unsigned long long)st->no_jit, (unsigned long long)st->dso_unusable,
		(unsigned long long)st->no_sym);
	fprintf(out, "# stacks deeper than %zu frames, their outermost frames left out: %llu\n",
		ARRAY_SIZE(r->res.locs) - 1, (unsigned long long)st->cut);
	print_dso_stats(s, out);
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
	if (kp_unwind_truncation(&st, &s->strs, what, where, hint, sizeof(what))) {
		say(ctx, KP_SAY_WARNING, what);
		if (*where)
			say(ctx, KP_SAY_WARNING, where);
		if (*hint)
			say(ctx, KP_SAY_HINT, hint);
	}
	kp_unwind_stats_release(&st);
}

/* Once per binary, never per sample: the ones whose frames could not be named, and why. */
static void say_dsos(const struct kp_session *s, say_fn *say, void *ctx)
{
	char msg[4096 + 256];

	for (size_t i = 0; i < s->nr_dsos; i++) {
		const struct kp_session_dso *d = &s->dso_list[i];
		const char *path = kp_strtab_get(&s->strs, d->path);
		enum kp_dso_status st;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++) /* one line per path, however recorded */
			seen = s->dso_list[j].path == d->path && s->dso_list[j].unnamed;
		if (!d->unnamed || seen)
			continue;
		st = kp_dso_status(d->dso);
		if (st == KP_DSO_OK || st == KP_DSO_NO_SYMBOLS) {
			/* a stripped binary: a few unnamed frames are glue, most are functions */
			if (d->unnamed * 10 < d->frames || d->unnamed < 100)
				continue;
			snprintf(msg, sizeof(msg),
				 "'%s': no symbol names %llu of its %llu frames: they keep only "
				 "their offset (its debug symbols, the -dbgsym package, name them)",
				 path, (unsigned long long)d->unnamed, (unsigned long long)d->frames);
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
	char msg[256];

	if (truncation)
		say_truncation(r, say, ctx);
	if (!frames)
		return;
	say_dsos(&r->s, say, ctx);
	if (r->res.st.cut) {
		snprintf(msg, sizeof(msg),
			 "%llu stacks were deeper than %zu frames: their outermost frames are left "
			 "out (the leaf side is kept)", (unsigned long long)r->res.st.cut,
			 ARRAY_SIZE(r->res.locs) - 1);
		say(ctx, KP_SAY_WARNING, msg);
	}
}

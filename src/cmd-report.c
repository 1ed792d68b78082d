/* SPDX-License-Identifier: MIT */
/*
 * cmd-report.c - `kprof report`: replay a recording into the profile model and print a view.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "diag.h"
#include "formats/util.h"
#include "input.h"
#include "output.h"
#include "report/profile.h"
#include "report/resolve.h"
#include "report/session.h"
#include "report/view.h"
#include "report/folded.h"
#include "svgopts.h"
#include "cmd-report.h"

static const char report_usage[] =
	"usage: kprof report [-i FILE] [--tree | --flat | --folded | --format NAME] [options]\n"
	"\n"
	"Shows where the samples of a recording went.\n"
	"\n"
	"  -i, --input FILE       recording to read (default kprof.data)\n"
	"  -o, --output FILE      write the report to FILE instead of stdout\n"
	"      --tree             call tree with total and self percentages (the default)\n"
	"      --flat             functions by self time\n"
	"      --folded           folded stacks for flamegraph.pl, inferno and speedscope\n"
	"      --svg              an interactive flame graph (options below)\n"
	"      --format NAME      one of the above by name\n"
	"      --inverted         tree: callees at the top, their callers below;\n"
	"                         svg: an icicle graph\n"
	"      --diff BASE        tree: add the change of each entry against the recording BASE\n"
	"      --percent-limit P  tree: hide entries below P percent\n"
	"      --sort KEYS        flat: group by comm, dso and/or sym (default sym)\n"
	"      --annotate         folded: suffix kernel frames _[k], inlined _[i], JIT _[j]\n"
	"      --srcline          show file:line of each frame\n"
	"      --no-inline        do not expand inlined functions\n"
	"      --no-demangle      keep C++ and Rust names mangled\n"
	"      --event NAME       the event to show, when the recording has several\n"
	"      --pid LIST, --tid LIST, --cpu LIST, --comm LIST\n"
	"                         only samples of these processes, threads, CPUs or commands\n"
	"      --no-idle          leave out the idle task (swapper, pid 0) of a system-wide run\n"
	"      --time START,END   only samples in this time range (seconds, as kprof script\n"
	"                         prints them; either side may be empty)\n"
	"      --weight W         what a sample weighs in every view: period (default: the\n"
	"                         events, or for cpu-clock the ns, it stands for, as perf\n"
	"                         report) or samples (each counts 1)\n"
	"      --stats            also print samples, lost, events and unnamed frames\n"
	"      --color WHEN       auto (default: when stdout is a terminal), always or never\n"
	"      --symfs DIR        look for binaries (and /tmp/perf-PID.map files) under DIR\n"
	"      --unwinder LIB     unwind --call-graph dwarf stack copies with libdw (the\n"
	"                         default) or libunwind\n"
	"  -h, --help             this text\n"
	"\n";

struct id_list {
	uint64_t *v;
	size_t nr;
};

struct report {
	const char *input, *output, *event_name, *symfs, *diff_base;
	FILE *out_to;		/* write here instead of -o/stdout (kp_report_folded) */
	bool reverse;		/* build stacks leaf first: tree --inverted, svg --reverse */
	struct kp_seq seq;	/* svg --flamechart: nodes in time order */
	const struct kp_view *view;
	struct kp_view_opts vo;
	struct kp_dso_opts dso;
	enum kp_unwind_lib unwinder;	/* --unwinder */
	struct id_list pids, tids, cpus;
	char **comms;
	size_t nr_comms;
	uint64_t t_start, t_end;
	bool stats;
	bool no_idle;		/* drop the idle task's samples (pid 0, "swapper") */
	const char *color;
	/* state */
	struct kp_profile prof;
	bool prof_ready;
	struct kp_resolver res;
	long event;		/* -1: every event */
	uint64_t kept, filtered;
	uint64_t *per_event;
	struct timespec t0;
	int stderr_tty;		/* -1 until asked once */
	bool progress_shown;
};

static int parse_ids(const char *s, struct id_list *l, const char *what)
{
	char *copy = kp_xstrdup(s), *save = NULL, *tok, *end;
	int rc = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long v = strtoull(tok, &end, 10);
		if (end == tok || *end) {
			rc = kp_usage_error("report", "%s takes numbers, not '%s'", what, tok);
			break;
		}
		l->v = kp_xrealloc(l->v, (l->nr + 1) * sizeof(*l->v));
		l->v[l->nr++] = v;
	}
	free(copy);
	return rc;
}

static int parse_time(const char *s, struct report *r)
{
	const char *comma = strchr(s, ',');
	char *end;
	double a = 0, b = 0;

	if (!comma)
		return kp_usage_error("report", "--time takes START,END, not '%s'", s);
	if (comma != s && ((a = strtod(s, &end)), end != comma))
		return kp_usage_error("report", "bad start time in '%s'", s);
	if (comma[1] && ((b = strtod(comma + 1, &end)), *end))
		return kp_usage_error("report", "bad end time in '%s'", s);
	r->t_start = comma != s ? (uint64_t)(a * 1e9) : 0;
	r->t_end = comma[1] ? (uint64_t)(b * 1e9) : UINT64_MAX;
	return 0;
}

static bool in_list(const struct id_list *l, uint64_t v)
{
	if (!l->nr)
		return true;
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i] == v)
			return true;
	return false;
}

static bool keep_sample(struct report *r, struct kp_session *s, const struct kp_sample *smp,
			const struct kp_thread *t)
{
	if (!in_list(&r->pids, smp->pid) || !in_list(&r->tids, smp->tid) ||
	    !in_list(&r->cpus, smp->cpu))
		return false;
	if (r->no_idle && (smp->sample_type & PERF_SAMPLE_TID) && smp->pid == 0)
		return false;
	if ((r->t_start || r->t_end != UINT64_MAX) &&
	    (!(smp->sample_type & PERF_SAMPLE_TIME) || smp->time < r->t_start ||
	     smp->time > r->t_end))
		return false;
	if (r->nr_comms) {
		const char *comm = kp_strtab_get(&s->strs, t->comm);
		for (size_t i = 0; i < r->nr_comms; i++)
			if (!strcmp(comm, r->comms[i]))
				return true;
		return false;
	}
	return true;
}

/* After a second of work, show how far through the file the report is. */
static void progress(struct report *r, struct kp_session *s)
{
	struct timespec now;
	double el;

	if ((r->kept + r->filtered) % 65536)
		return;
	if (r->stderr_tty < 0)
		r->stderr_tty = isatty(STDERR_FILENO);
	if (!r->stderr_tty)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	el = (now.tv_sec - r->t0.tv_sec) + (now.tv_nsec - r->t0.tv_nsec) / 1e9;
	if (el < 1.0)
		return;
	fprintf(stderr, "\rkprof report: %3.0f%% of '%s', %llu samples",
		kp_view_pct(s->r.off, s->r.file_size), r->input,
		(unsigned long long)(r->kept + r->filtered));
	r->progress_shown = true;
}

static void start_profile(struct report *r, struct kp_session *s)
{
	kp_profile_init(&r->prof, &s->strs, s->evl.nr);
	kp_resolver_init(&r->res, s, &r->prof, r->unwinder);
	r->per_event = kp_xcalloc(s->evl.nr ? s->evl.nr : 1, sizeof(*r->per_event));
	r->prof_ready = true;
}

static int on_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *t)
{
	struct report *r = ctx;
	size_t e = ev - s->evl.ev;

	if (!r->prof_ready)
		start_profile(r, s);
	progress(r, s);
	if ((r->event >= 0 && (size_t)r->event != e) || !keep_sample(r, s, smp, t)) {
		r->filtered++;
		return 0;
	}
	uint64_t period = smp->sample_type & PERF_SAMPLE_PERIOD ? smp->period : 1;
	uint32_t node = kp_resolve_add(&r->res, smp, rec->misc, t, r->reverse, e, period);
	if (r->vo.svg.flamechart) /* in the views' weight */
		kp_seq_push(&r->seq, node, r->vo.by_samples ? 1 : period);
	r->per_event[e]++;
	r->kept++;
	return 0;
}

/* --- output -------------------------------------------------------------------------------- */

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

/* Where the stacks were unwound: while recording, in this report, or both. */
static void unwind_totals(struct report *r, struct kp_session *s, struct kp_unwind_stats *st)
{
	memset(st, 0, sizeof(*st));
	kp_unwind_stats_add(st, &s->strs, &s->unwind_stops, &s->strs);
	if (r->prof_ready)
		kp_unwind_stats_add(st, &s->strs, kp_unwinder_stats(r->res.unwinder), &s->strs);
}

/*
 * When more than 1% of the DWARF stacks stopped before their thread's entry, say so: in the
 * header of a text view (@out, lines starting with "# "), else on stderr.
 */
static void warn_truncated(struct report *r, struct kp_session *s, FILE *out)
{
	struct kp_unwind_stats st;
	char what[512], where[512], hint[512];

	unwind_totals(r, s, &st);
	if (kp_unwind_truncation(&st, &s->strs, what, where, hint, sizeof(what))) {
		if (out) {
			fprintf(out, "# warning: %s\n", what);
			if (*where)
				fprintf(out, "# warning: %s\n", where);
			if (*hint)
				fprintf(out, "# hint: %s\n", hint);
		} else {
			kp_warn("%s", what);
			if (*where)
				kp_warn("%s", where);
			if (*hint)
				kp_hint("%s", hint);
		}
	}
	kp_unwind_stats_release(&st);
}

static void print_header(struct report *r, struct kp_session *s, size_t e, FILE *out)
{
	const struct kp_evsel *ev = &s->evl.ev[e];
	const struct kp_weight *w = kp_profile_total(&r->prof, 0, e);

	fprintf(out, "# kprof report of '%s': %llu samples of %s", r->input,
		(unsigned long long)w->count, ev->name);
	if (strcmp(ev->name, ev->spec))
		fprintf(out, " (asked for '%s')", ev->spec);
	fprintf(out, ", period %llu", (unsigned long long)w->period);
	if (s->have_stats)
		fprintf(out, ", %llu lost", (unsigned long long)s->stats.lost);
	fputc('\n', out);
}

static void report_bad_line(void *ctx, size_t line, const char *why)
{
	kp_warn("folded stacks of '%s', line %zu: %s", (const char *)ctx, line, why);
}

static int folded_like(const struct report *like, const char *path, const char *symfs,
		       const struct kp_dso_opts *dso, enum kp_unwind_lib unwinder, bool by_samples,
		       char **text, size_t *len);

/* What the views' values count (kp_view_weight()): samples, or the events their periods stand
 * for, nanoseconds for the clocks. */
static const char *weight_unit(const struct report *r, const struct kp_evsel *ev)
{
	if (r->vo.by_samples || !(ev->attr.sample_type & PERF_SAMPLE_PERIOD))
		return "samples";
	if (ev->attr.type == PERF_TYPE_SOFTWARE && (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
						    ev->attr.config == PERF_COUNT_SW_TASK_CLOCK))
		return "ns";
	return "events";
}

/* --tree --diff BASE: both recordings as folded stacks, read back into one two-event model. */
static int emit_diff(struct report *r, struct kp_session *s, FILE *out)
{
	struct kp_view_opts vo = r->vo;
	struct kp_folded_opts fo = { .columns = 1, .first_is_comm = 1, .bad = report_bad_line };
	struct kp_strtab strs;
	struct kp_profile dp;
	char *base = NULL, *now = NULL;
	size_t base_len, now_len;
	FILE *mem = open_memstream(&now, &now_len);

	vo.annotate = true;
	vo.event = r->event >= 0 ? (size_t)r->event : 0;
	kp_view_folded(&r->prof, &vo, mem);
	fclose(mem);
	if (folded_like(r, r->diff_base, r->symfs, &r->dso, r->unwinder, r->vo.by_samples, &base,
			&base_len)) {
		free(now);
		return -KP_ERROR_END;
	}
	kp_strtab_init(&strs);
	kp_profile_init(&dp, &strs, 2);
	fo.ctx = (void *)r->diff_base;
	kp_folded_parse(&dp, base, base_len, &fo, NULL);
	fo.event = 1;
	fo.ctx = (void *)r->input;
	kp_folded_parse(&dp, now, now_len, &fo, NULL);
	kp_profile_finish(&dp);
	fprintf(out, "# kprof report of '%s' against '%s': %s, %llu %s against %llu\n",
		r->input, r->diff_base, s->evl.ev[vo.event].name,
		(unsigned long long)(kp_profile_total(&dp, 0, 1)->period / KP_FOLDED_SCALE),
		weight_unit(r, &s->evl.ev[vo.event]),
		(unsigned long long)(kp_profile_total(&dp, 0, 0)->period / KP_FOLDED_SCALE));
	vo.event = 1;
	vo.diff = true;
	vo.by_samples = false; /* the folded values are the weights already */
	kp_view_tree(&dp, &vo, out);
	kp_profile_release(&dp);
	kp_strtab_release(&strs);
	free(base);
	free(now);
	return 0;
}

static int emit_views(struct report *r, struct kp_session *s, FILE *out)
{
	bool one = r->view->one_event, text = r->view->text;
	size_t first = r->event >= 0 ? (size_t)r->event : 0;
	size_t last = r->event >= 0 || one ? first + 1 : s->evl.nr;
	int rc = 0;

	if (one && r->event < 0 && s->evl.nr > 1)
		kp_notice("the recording has %zu events: showing '%s' (choose with --event)",
			  s->evl.nr, s->evl.ev[0].name);
	if (r->diff_base)
		return emit_diff(r, s, out);
	const char *countname = r->vo.svg.countname;

	if (!text)
		warn_truncated(r, s, NULL);
	for (size_t e = first; e < last && !rc; e++) {
		r->vo.svg.countname = countname ? countname : weight_unit(r, &s->evl.ev[e]);
		if (text) {
			if (e > first)
				fputc('\n', out);
			print_header(r, s, e, out);
			if (e == first)
				warn_truncated(r, s, out);
		}
		r->vo.event = e;
		rc = r->view->emit(&r->prof, &r->vo, out);
	}
	r->vo.svg.countname = countname;
	return rc;
}

static void print_stats(struct report *r, struct kp_session *s, FILE *out)
{
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
	if (r->prof_ready && kp_unwinder_stats(r->res.unwinder)->samples) {
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
	for (size_t i = 0; i < s->nr_dsos; i++) {
		const struct kp_session_dso *d = &s->dso_list[i];
		if (d->frames)
			fprintf(out, "#   %s: %llu frames, %llu unnamed%s%s\n",
				kp_strtab_get(&s->strs, d->path), (unsigned long long)d->frames,
				(unsigned long long)d->unnamed,
				kp_dso_status(d->dso) == KP_DSO_OK ? "" : ": ",
				kp_dso_status(d->dso) == KP_DSO_OK
					? ""
					: kp_dso_status_str(kp_dso_status(d->dso)));
	}
}

/* Once per binary, never per sample: the ones whose frames could not be named, and why. */
static void warn_dsos(struct kp_session *s)
{
	for (size_t i = 0; i < s->nr_dsos; i++) {
		const struct kp_session_dso *d = &s->dso_list[i];
		enum kp_dso_status st;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++) /* one line per path, however recorded */
			seen = s->dso_list[j].path == d->path && s->dso_list[j].unnamed;
		if (!d->unnamed || seen)
			continue;
		st = kp_dso_status(d->dso);
		if (st == KP_DSO_OK || st == KP_DSO_NO_SYMBOLS) {
			/* a stripped binary: a few unnamed frames are glue, most are functions */
			if (d->unnamed * 10 >= d->frames && d->unnamed >= 100)
				kp_warn("'%s': no symbol names %llu of its %llu frames: they keep only "
					"their offset (its debug symbols, the -dbgsym package, name "
					"them)", kp_strtab_get(&s->strs, d->path),
					(unsigned long long)d->unnamed, (unsigned long long)d->frames);
		} else {
			kp_warn("'%s': %s: %llu frames keep only their offset",
				kp_strtab_get(&s->strs, d->path), kp_dso_status_str(st),
				(unsigned long long)d->unnamed);
		}
	}
}

static FILE *open_output(struct report *r, struct kp_output *o)
{
	if (r->out_to) {
		*o = (struct kp_output){ NULL, NULL, r->out_to, -1 };
		return r->out_to;
	}
	return kp_output_open(o, r->output, stdout);
}

static int pick_event(struct report *r, struct kp_session *s)
{
	r->event = -1;
	if (!r->event_name)
		return 0;
	for (size_t e = 0; e < s->evl.nr; e++)
		if (!strcmp(s->evl.ev[e].name, r->event_name) ||
		    !strcmp(s->evl.ev[e].spec, r->event_name))
			r->event = (long)e;
	if (r->event < 0) {
		kp_error("'%s' has no event '%s'", r->input, r->event_name);
		for (size_t e = 0; e < s->evl.nr; e++)
			kp_hint("it has '%s'", s->evl.ev[e].name);
		return 1;
	}
	return 0;
}

/* The ATTR records come first: stop at the first record that is not one to pick the event. */
static int on_own(void *ctx, struct kp_session *s, const struct kp_rec_header *rec)
{
	struct report *r = ctx;

	if (rec->type != KP_REC_ATTR && r->event == -2)
		return pick_event(r, s) ? -KP_ERROR_END : 0;
	return 0;
}

static int finish(struct report *r, struct kp_session *s, int rc)
{
	struct kp_output o;
	FILE *out;
	int vrc;

	if (r->progress_shown)
		fputc('\n', stderr);
	if (rc == -KP_ERROR_END)
		return 1; /* pick_event said why */
	if (r->vo.svg.flamechart)
		r->vo.svg.seq = &r->seq;
	if (!r->prof_ready)
		start_profile(r, s);
	kp_profile_finish(&r->prof);
	out = open_output(r, &o);
	if (!out)
		return 1;
	if (!s->evl.nr)
		kp_warn("'%s' has no events", r->input);
	vrc = s->evl.nr ? emit_views(r, s, out) : 0;
	if (vrc == -KP_ERROR_END) { /* the diff's base said why */
		kp_output_abort(&o);
		return 1;
	}
	if (vrc == -EINVAL) {
		kp_output_abort(&o);
		return kp_usage_error("report", "bad --sort keys '%s' (known: comm, dso, sym)",
				      r->vo.sort);
	}
	/* folded stacks and SVG are read by other tools: their statistics go to stderr */
	if (r->stats)
		print_stats(r, s, r->view->text ? out : stderr);
	if (kp_output_commit(&o))
		return 1;
	warn_dsos(s);
	if (r->res.st.cut)
		kp_warn("%llu stacks were deeper than %zu frames: their outermost frames are left "
			"out (the leaf side is kept)", (unsigned long long)r->res.st.cut,
			ARRAY_SIZE(r->res.locs) - 1);
	return kp_input_replayed(s, r->input);
}

static int run(struct report *r)
{
	static const struct kp_session_ops ops = { .own = on_own, .sample = on_sample };
	struct kp_session s;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	rc = kp_session_open(&s, r->input, &r->dso);
	if (rc) {
		kp_input_explain(&s.r, r->input, rc);
		kp_session_release(&s);
		return 1;
	}
	if (r->symfs)
		kp_session_set_symfs(&s, r->symfs);
	r->event = -2; /* decided once the events are known */
	rc = kp_session_run(&s, &ops, r);
	if (r->event == -2 && pick_event(r, &s))
		rc = -KP_ERROR_END;
	rc = finish(r, &s, rc);
	if (r->prof_ready) {
		kp_resolver_release(&r->res);
		kp_profile_release(&r->prof);
	}
	free(r->per_event);
	free(r->seq.ents);
	kp_session_release(&s);
	return rc;
}

/* --- options ------------------------------------------------------------------------------ */

enum {
	OPT_TREE = 256, OPT_FLAT, OPT_FOLDED, OPT_FORMAT, OPT_INVERTED, OPT_LIMIT, OPT_SORT,
	OPT_ANNOTATE, OPT_SRCLINE, OPT_NO_INLINE, OPT_NO_DEMANGLE, OPT_EVENT, OPT_PID, OPT_TID,
	OPT_CPU, OPT_COMM, OPT_TIME, OPT_STATS, OPT_COLOR, OPT_SYMFS, OPT_SVG, OPT_DIFF,
	OPT_NO_IDLE, OPT_UNWINDER, OPT_WEIGHT,
};

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "tree", no_argument, NULL, OPT_TREE },
	{ "flat", no_argument, NULL, OPT_FLAT },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "percent-limit", required_argument, NULL, OPT_LIMIT },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "annotate", no_argument, NULL, OPT_ANNOTATE },
	{ "srcline", no_argument, NULL, OPT_SRCLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "svg", no_argument, NULL, OPT_SVG },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ "no-idle", no_argument, NULL, OPT_NO_IDLE },
	{ "unwinder", required_argument, NULL, OPT_UNWINDER },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	KP_SVG_LONG_OPTS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int set_view(struct report *r, const char *name)
{
	r->view = kp_view_find(name);
	if (r->view)
		return 0;
	kp_usage_error("report", "unknown format '%s'", name);
	for (size_t i = 0; i < kp_nr_views; i++)
		kp_hint("'%s': %s", kp_views[i].name, kp_views[i].summary);
	return 2;
}

static int add_comms(struct report *r, const char *list)
{
	char *copy = kp_xstrdup(list), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		r->comms = kp_xrealloc(r->comms, (r->nr_comms + 1) * sizeof(*r->comms));
		r->comms[r->nr_comms++] = kp_xstrdup(tok);
	}
	free(copy);
	return 0;
}

static int parse_limit(struct report *r, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 100)
		return kp_usage_error("report", "--percent-limit takes 0 to 100, not '%s'", s);
	r->vo.percent_limit = v;
	return 0;
}

static int parse_opt(struct report *r, int c)
{
	switch (c) {
	case 'i': r->input = optarg; return 0;
	case 'o': r->output = optarg; return 0;
	case OPT_TREE: return set_view(r, "tree");
	case OPT_FLAT: return set_view(r, "flat");
	case OPT_FOLDED: return set_view(r, "folded");
	case OPT_FORMAT: return set_view(r, optarg);
	case OPT_INVERTED: r->vo.inverted = true; return 0; /* a callee tree, or an icicle */
	case OPT_LIMIT: return parse_limit(r, optarg);
	case OPT_SORT: r->vo.sort = optarg; return 0;
	case OPT_ANNOTATE: r->vo.annotate = true; return 0;
	case OPT_SRCLINE: r->vo.srcline = r->dso.srcline = true; return 0;
	case OPT_NO_INLINE: r->dso.inline_frames = false; return 0;
	case OPT_NO_DEMANGLE: r->dso.demangle = false; return 0;
	case OPT_EVENT: r->event_name = optarg; return 0;
	case OPT_PID: return parse_ids(optarg, &r->pids, "--pid");
	case OPT_TID: return parse_ids(optarg, &r->tids, "--tid");
	case OPT_CPU: return parse_ids(optarg, &r->cpus, "--cpu");
	case OPT_COMM: return add_comms(r, optarg);
	case OPT_TIME: return parse_time(optarg, r);
	case OPT_STATS: r->stats = true; return 0;
	case OPT_COLOR: r->color = optarg; return 0;
	case OPT_SYMFS: r->symfs = optarg; return 0;
	case OPT_SVG: return set_view(r, "svg");
	case OPT_DIFF: r->diff_base = optarg; return 0;
	case OPT_NO_IDLE: r->no_idle = true; return 0;
	case OPT_UNWINDER: return kp_parse_unwinder("report", optarg, &r->unwinder);
	case OPT_WEIGHT:
		if (strcmp(optarg, "period") && strcmp(optarg, "samples"))
			return kp_usage_error("report", "--weight takes period or samples, not '%s'",
					      optarg);
		r->vo.by_samples = !strcmp(optarg, "samples");
		return 0;
	default:
		if (c >= KP_OPT_SVG_FIRST && c < KP_OPT_SVG_LAST)
			return kp_svg_opt(&r->vo.svg, &r->reverse, c, optarg, "report");
		return 2;
	}
}

static int check_color(struct report *r)
{
	if (!strcmp(r->color, "always"))
		r->vo.color = true;
	else if (!strcmp(r->color, "auto"))
		r->vo.color = !r->output && isatty(STDOUT_FILENO);
	else if (strcmp(r->color, "never"))
		return kp_usage_error("report", "--color takes auto, always or never, not '%s'",
				      r->color);
	return 0;
}

static int parse_options(struct report *r, int argc, char **argv)
{
	int c, rc;

	r->input = "kprof.data";
	r->view = kp_view_find("tree");
	r->dso.inline_frames = r->dso.demangle = true;
	r->t_end = UINT64_MAX;
	r->color = "auto";
	r->stderr_tty = -1;
	kp_svg_opts_init(&r->vo.svg);
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:h", long_opts, NULL)) != -1) {
		if (c == 'h')
			return kp_cmd_help(report_usage) + kp_cmd_help(kp_svg_usage) - 1;
		if ((rc = parse_opt(r, c)))
			return rc;
	}
	if (optind < argc)
		return kp_usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (r->view->emit == kp_view_svg) {
		r->vo.svg.inverted = r->vo.svg.inverted || r->vo.inverted;
		r->vo.inverted = false;
	} else if (r->vo.inverted && r->view->emit != kp_view_tree) {
		return kp_usage_error("report", "--inverted applies to --tree and --svg only");
	}
	r->reverse = r->reverse || r->vo.inverted;
	if (r->diff_base && (r->view->emit != kp_view_tree || r->vo.inverted))
		return kp_usage_error("report", "--diff applies to the caller --tree");
	return check_color(r);
}

int kp_parse_unwinder(const char *cmd, const char *name, enum kp_unwind_lib *lib)
{
	char known[128] = "";

	if (!kp_unwind_lib_find(name, lib))
		return 0;
	for (size_t i = 0; i < KP_UNWIND_NR_LIBS; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
			 i ? ", " : "", kp_unwind_lib_name((enum kp_unwind_lib)i));
	return kp_usage_error(cmd, "unknown unwinder '%s' (known: %s)", name, known);
}

int cmd_report(int argc, char **argv)
{
	struct report *r = kp_xcalloc(1, sizeof(*r));
	int rc = parse_options(r, argc, argv);

	if (rc == 0)
		rc = run(r);
	else if (rc < 0)
		rc = 0;
	free(r->pids.v);
	free(r->tids.v);
	free(r->cpus.v);
	for (size_t i = 0; i < r->nr_comms; i++)
		free(r->comms[i]);
	free(r->comms);
	free(r);
	return rc;
}

int kp_is_recording(const char *path)
{
	FILE *f = fopen(path, "rb");
	char magic[8];
	int yes = f && fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
		  !memcmp(magic, KP_FILE_MAGIC, sizeof(magic));

	if (f)
		fclose(f);
	return yes;
}

/* kp_report_folded(), with the sample filters and event of @like (borrowed), if not NULL: the
 * BASE side of report --diff is filtered as the report is */
static int folded_like(const struct report *like, const char *path, const char *symfs,
		       const struct kp_dso_opts *dso, enum kp_unwind_lib unwinder, bool by_samples,
		       char **text, size_t *len)
{
	struct report *r = kp_xcalloc(1, sizeof(*r));
	char *argv[] = { "report", NULL };
	int rc = parse_options(r, 1, argv);

	*text = NULL;
	*len = 0;
	if (like) {
		r->pids = like->pids;
		r->tids = like->tids;
		r->cpus = like->cpus;
		r->comms = like->comms;
		r->nr_comms = like->nr_comms;
		r->t_start = like->t_start;
		r->t_end = like->t_end;
		r->no_idle = like->no_idle;
		r->event_name = like->event_name;
	}
	r->input = path;
	r->symfs = symfs;
	r->unwinder = unwinder;
	if (dso)
		r->dso = *dso;
	r->view = kp_view_find("folded");
	r->vo.annotate = true;
	r->vo.by_samples = by_samples;
	r->out_to = open_memstream(text, len);
	if (!rc)
		rc = run(r);
	fclose(r->out_to);
	free(r); /* not what it borrowed */
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

int kp_report_folded(const char *path, const char *symfs, const struct kp_dso_opts *dso,
		     enum kp_unwind_lib unwinder, bool by_samples, char **text, size_t *len)
{
	return folded_like(NULL, path, symfs, dso, unwinder, by_samples, text, len);
}

/* SPDX-License-Identifier: MIT */
/*
 * report-say.c - what a report says of its input (report.h): the header of each event, what
 * --stats shows, and the warnings a user must be told once each.
 */
#include <stdlib.h>
#include <string.h>

#include "report/symbols/debuginfo.h"
#include "report/symbols/debuginfod.h"
#include "report.h"
#include "report/base/text.h"

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
	if (r->o->latency && (long)e != r->off_event)
		fputs(", each sample's share of it divided by the threads of its process then running "
		      "(--latency)", out);
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

/* --latency: how long the processes ran with 1, 2, ... threads at once, and the samples taken
 * at each. */
static void print_parallelism(const struct kp_parallel *p, FILE *out)
{
	uint64_t ns = 0, samples = 0;
	double sum = 0;

	for (size_t n = 1; n <= KP_PAR_MAX; n++) {
		ns += p->ns[n];
		samples += p->samples[n];
		sum += (double)n * (double)p->ns[n];
	}
	fprintf(out, "# parallelism (--latency): %.3f s of the processes' time with a thread on a "
		     "CPU, %.2f of their threads at once on average", ns / 1e9, ns ? sum / (double)ns : 0);
	if (!ns && !samples)
		fputs(": no switch record of a thread that ran", out);
	fputc('\n', out);
	for (size_t n = 1; n <= KP_PAR_MAX; n++)
		if (p->ns[n] || p->samples[n])
			fprintf(out, "#   %3zu%s thread%s: %.6f s (%.2f%%), %llu samples (%.2f%%)\n", n,
				n == KP_PAR_MAX ? "+" : "", n > 1 ? "s" : "", p->ns[n] / 1e9,
				kp_pct(p->ns[n], ns), (unsigned long long)p->samples[n],
				kp_pct(p->samples[n], samples));
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
		if (r->wake_event >= 0)
			fprintf(out, "# wakers: %llu blocked intervals with the stack that woke them, "
				     "%llu without a recorded waker (%.2f%%: woken by a task or an "
				     "interrupt the recording did not follow, which -a does)\n",
				(unsigned long long)o->woken, (unsigned long long)o->no_waker,
				kp_pct(o->no_waker, o->woken + o->no_waker));
	}
	if (r->ready && r->o->latency)
		print_parallelism(&r->par, out);
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

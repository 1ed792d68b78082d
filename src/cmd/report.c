/* SPDX-License-Identifier: MIT */
/*
 * report.c - `kprof report`: its options into a kp_report_opts and a view, then
 * kp_report_build() (report/profile/report.h) and the view's output, header, warnings and --stats.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/cmd/cmd.h"
#include "report/symbols/debuginfod.h"
#include "src/record/diag.h"
#include "src/record/idlist.h"
#include "formats/util.h"
#include "src/cli/fetch.h"
#include "src/cli/input.h"
#include "src/cli/output.h"
#include "report/profile/profile.h"
#include "report/profile/report.h"
#include "report/base/text.h"
#include "report/views/views.h"
#include "src/cli/svgopts.h"
#include "src/cli/annotate-show.h"
#include "src/cli/options.h"
#include "src/cli/report-opts.h"
#include "src/tui/report-tui.h"

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
	"      --tui              browse it on the terminal: the call tree opens node by node,\n"
	"                         the flat list sorts, / filters, a annotates (keys at the\n"
	"                         bottom of the screen)\n"
	"      --timeline         an interactive SVG of threads (and CPUs) against time: on-CPU\n"
	"                         stretches, off-CPU intervals, tracepoints (-o FILE.svg)\n"
	"      --format NAME      one of the above by name, or an export for other viewers:\n"
	"                         speedscope, chrome (trace events), firefox (.json.gz)\n"
	"      --inverted         tree: callees at the top, their callers below;\n"
	"                         svg: an icicle graph\n"
	"      --diff BASE        tree: add the change of each entry against the recording BASE\n"
	"      --percent-limit P  tree: hide entries below P percent\n"
	"      --annotate [N]     tree, flat: then annotate the N hottest functions (default 3)\n"
	"                         as kprof annotate does; folded: suffix kernel frames _[k],\n"
	"                         inlined _[i], JIT _[j]\n"

	"      --srcline          show file:line of each frame\n"
	"      --no-inline        do not expand inlined functions\n"
	"      --inline           expand them also where only a separate debug file has them\n"
	"                         (libc6-dbg, -dbgsym packages): slower, its DWARF is inflated\n"
	"      --inline-self      self time to the function inlined where a sample fell, not to\n"
	"                         the function holding its code (perf's name, the default)\n"
	"      --no-demangle      keep C++ and Rust names mangled\n"
	"      --event NAME       the event to show, when the recording has several\n"
	"                         (offcpu: where a recording --off-cpu blocked, in ns)\n"
	"      --wall             wall-clock time: CPU samples and off-CPU time in one\n"
	"                         profile, preempted time under [runqueue] (record --off-cpu)\n"
	"      --latency          each sample's period divided by the threads of its process\n"
	"                         then running: what its wall-clock time went to, not its\n"
	"                         CPU time (record --latency or --off-cpu)\n"
	"      --wakers           each blocked stack with the stack that woke it above a \"--\"\n"
	"                         frame, as offwaketime (record --off-cpu --wakers)\n"
	"      --pid LIST, --tid LIST, --cpu LIST (e.g. 0-3,6), --comm LIST\n"
	"                         only samples of these processes, threads, CPUs or commands\n"
	"      --cgroup LIST      only samples of processes in these cgroups or below them\n"
	"                         (paths as /proc/PID/cgroup gives them)\n"
	"      --no-idle          leave out the idle task (swapper, pid 0) of a system-wide run\n"
	"      --time START,END   only samples in this time range (seconds, as kprof script\n"
	"                         prints them; either side may be empty)\n"
	"      --weight W         what a sample weighs in every view: period (default: the\n"
	"                         events, or for cpu-clock the ns, it stands for, as perf\n"
	"                         report) or samples (each counts 1)\n"
	"      --stats            also print samples, lost, events and unnamed frames\n"
	"      --color WHEN       auto (default: when stdout is a terminal), always or never\n"
	"      --symfs DIR        look for binaries (and /tmp/perf-PID.map files) under DIR\n"
	"  -f, --force            read perf maps and jitdumps whoever owns them (by default\n"
	"                         only the user's own or root's, as perf)\n"
	"      --no-debuginfod    fetch no missing binary or debug file from the servers\n"
	"                         $DEBUGINFOD_URLS names\n"
	"      --unwinder LIB     unwind --call-graph dwarf stack copies with libdw (the\n"
	"                         default) or libunwind\n"
	"  -j, --jobs N           threads that read the file: 1, or 2 (the default on 2\n"
	"                         CPUs or more) to decompress it ahead of the report\n"
	"  -h, --help             this text\n";

struct report {
	const char *output, *diff_base, *color;
	const struct kp_view *view;
	struct kp_view_opts vo;
	struct kp_report_opts ro;
	const struct kp_view_option *view_opt;	/* the last view option given, */
	const struct kp_view *view_opt_of;	/* which is this view's */
	bool stats;
	bool tui;		/* --tui: browsed on the terminal */
	bool annotate;		/* --annotate given, */
	size_t annotate_top;	/* with this count (0: none given) */
	/* progress on a terminal */
	struct timespec t0;
	int stderr_tty;		/* -1 until asked once */
	bool progress_shown;
};

/* --time START,END: seconds of the recording's clock, as the samples' time in ns holds them */
static int parse_time(const char *s, struct kp_report_filter *f)
{
	const char *comma = strchr(s, ',');
	char *start;
	double a = 0, b = 0, max = (double)(UINT64_MAX / 1000000000);
	int rc = 0;

	if (!comma)
		return kp_usage_error("report", "--time takes START,END, not '%s'", s);
	start = strndup(s, (size_t)(comma - s));
	if (*start)
		rc = kp_cmd_real("report", "--time's START", start, 0, max, &a);
	free(start);
	if (!rc && comma[1])
		rc = kp_cmd_real("report", "--time's END", comma + 1, 0, max, &b);
	if (rc)
		return rc;
	if (comma != s && comma[1] && a > b)
		return kp_usage_error("report", "--time %s: START is after END", s);
	f->t_start = comma != s ? (uint64_t)(a * 1e9) : 0;
	f->t_end = comma[1] ? (uint64_t)(b * 1e9) : UINT64_MAX;
	return 0;
}

static int parse_jobs(struct report *r, const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (!*s || *end || n < 1 || n > 1024)
		return kp_usage_error("report", "--jobs takes a number of threads from 1, not '%s'",
				      s);
	r->ro.dso.jobs = (unsigned)n;
	return 0;
}

/* After a second of work, show how far through the file the report is. */
static void progress(void *ctx, const struct kp_report *rep)
{
	struct report *r = ctx;
	struct timespec now;
	double el;

	if (r->stderr_tty < 0)
		r->stderr_tty = isatty(STDERR_FILENO);
	if (!r->stderr_tty)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	el = (now.tv_sec - r->t0.tv_sec) + (now.tv_nsec - r->t0.tv_nsec) / 1e9;
	if (el < 1.0)
		return;
	fprintf(stderr, "\rkprof report: %3.0f%% of '%s', %llu samples",
		kp_pct(rep->s.r.off, rep->s.r.file_size), r->ro.input,
		(unsigned long long)(rep->kept + rep->filtered));
	r->progress_shown = true;
}

/* --- output -------------------------------------------------------------------------------- */

/* kp_report_warnings()' sentences as '# ' lines of a text report */
static void say_in(void *ctx, enum kp_report_say kind, const char *msg)
{
	fprintf(ctx, "# %s: ", kind == KP_SAY_HINT ? "hint" : kind == KP_SAY_NOTICE ? "note"
			       : kind == KP_SAY_ERROR ? "error" : "warning");
	kp_text_put(ctx, 0, msg); /* it names binaries, as the recording does */
	fputc('\n', ctx);
}

/* ... or on stderr */
static void say_aside(void *ctx, enum kp_report_say kind, const char *msg)
{
	(void)ctx;
	if (kind == KP_SAY_HINT)
		kp_hint("%s", msg);
	else if (kind == KP_SAY_NOTICE)
		kp_notice("%s", msg);
	else if (kind == KP_SAY_ERROR)
		kp_error("%s", msg);
	else
		kp_warn("%s", msg);
}

/* --annotate N: the recording again with addresses, annotated after the report. */
static int emit_annotation(struct report *r, const struct kp_report *rep, FILE *out)
{
	struct kp_report_opts ao_ro = r->ro;
	struct kp_ann_opts ao = { .top = r->annotate_top, .by_samples = r->vo.by_samples };
	struct kp_report arep;
	int rc;

	ao_ro.addrs = true;
	ao_ro.seq = ao_ro.tp_fields = ao_ro.reverse = false;
	ao_ro.progress = NULL;
	ao.event = rep->event >= 0 ? (size_t)rep->event : 0;
	rc = kp_input_build(&ao_ro, &arep);
	if (!rc) {
		fprintf(out, "\n# the %zu hottest functions of ", ao.top);
		kp_text_put(out, 0, rep->s.evl.ev[ao.event].name);
		fputs(", annotated\n", out);
		rc = kp_annotate_show(&arep, &ao, false,
					   &(struct kp_ann_print_opts){ .by_samples = ao.by_samples,
									.color = r->vo.color,
									.source = true },
					   out);
	}
	kp_report_release(&arep);
	return rc;
}

/* --tree --diff BASE: BASE built with the report's options, both profiles in one of two events. */
static int emit_diff(struct report *r, const struct kp_report *now, FILE *out)
{
	struct kp_report_opts bo = r->ro;
	struct kp_view_opts vo = r->vo;
	struct kp_report base;
	struct kp_strtab strs;
	struct kp_profile dp;
	size_t e = now->event >= 0 ? (size_t)now->event : 0;
	int rc;

	bo.input = r->diff_base;
	bo.progress = NULL;
	rc = kp_input_build(&bo, &base);
	if (!rc) {
		kp_strtab_init(&strs);
		kp_profile_init(&dp, &strs, 2);
		kp_profile_merge(&dp, 0, &base.prof, base.event >= 0 ? (size_t)base.event : 0,
				 false, 1, NULL);
		kp_profile_merge(&dp, 1, &now->prof, e, false, 1, NULL);
		kp_profile_finish(&dp);
		fputs("# kprof report of '", out);
		kp_text_put(out, 0, r->ro.input);
		fputs("' against '", out);
		kp_text_put(out, 0, r->diff_base);
		fputs("': ", out);
		kp_text_put(out, 0, now->s.evl.ev[e].name);
		fprintf(out, ", %llu %s against %llu\n",
			(unsigned long long)kp_view_weight(&vo, kp_profile_total(&dp, 0, 1)),
			kp_report_event_unit(now, e, vo.by_samples),
			(unsigned long long)kp_view_weight(&vo, kp_profile_total(&dp, 0, 0)));
		vo.event = 1;
		vo.diff = true;
		kp_view_tree(&dp, &vo, out);
		kp_profile_release(&dp);
		kp_strtab_release(&strs);
		kp_input_replayed(&base.s, r->diff_base);
	}
	kp_report_release(&base);
	return rc ? -KP_ERROR_END : 0;
}

static int emit_views(struct report *r, struct kp_report *rep, FILE *out)
{
	const struct kp_session *s = &rep->s;
	bool one = r->view->one_event || r->view->all_events, text = r->view->text;
	size_t first = rep->event >= 0 ? (size_t)rep->event : 0;
	size_t last = rep->event >= 0 || one ? first + 1 : s->evl.nr;
	const char *countname = r->vo.svg.countname;
	int rc = 0;

	if (r->view->one_event && rep->event < 0 && s->evl.nr > 1)
		kp_notice("the recording has %zu events: showing '%s' (choose with --event)",
			  s->evl.nr, s->evl.ev[0].name);
	if (r->diff_base)
		return emit_diff(r, rep, out);
	if (!text)
		kp_report_warnings(rep, true, false, say_aside, NULL);
	for (size_t e = first; e < last && !rc; e++) {
		const char *unit = kp_report_event_unit(rep, e, r->vo.by_samples);

		r->vo.svg.countname = countname ? countname : unit;
		if (text) {
			if (e > first)
				fputc('\n', out);
			kp_report_print_header(rep, e, out);
			if (e == first)
				kp_report_warnings(rep, true, false, say_in, out);
		}
		r->vo.event = e;
		if (r->vo.folded_unit && strcmp(unit, "ns")) {
			kp_error("--folded-unit %s: '%s' is not a time profile (its counts are %s)",
				 r->vo.folded_unit, s->evl.ev[e].name, unit);
			return -KP_ERROR_END;
		}
		if ((!text || rep->filtered) &&
		    !(r->view->all_events ? rep->kept : kp_profile_total(&rep->prof, 0, e)->count))
			kp_notice("'%s' has no samples of %s%s: the %s output is an empty profile",
				  r->ro.input, s->evl.ev[e].name,
				  rep->filtered ? " that pass the filters" : "", r->view->name);
		rc = r->view->emit(&rep->prof, &r->vo, out);
	}
	r->vo.svg.countname = countname;
	return rc;
}

static int output(struct report *r, struct kp_report *rep)
{
	struct kp_output o;
	FILE *out = kp_output_open(&o, r->output, stdout);
	int rc, annotated = 0;

	if (!out)
		return 1;
	rc = emit_views(r, rep, out); /* kp_input_build() refused a recording without events */
	if (!rc && r->annotate_top)
		annotated = emit_annotation(r, rep, out);
	if (rc == -KP_ERROR_END || rc == -EFBIG) { /* the diff's base, or the view, said why */
		kp_output_abort(&o);
		return 1;
	}
	/* folded stacks and SVG are read by other tools: their statistics go to stderr */
	if (r->stats)
		kp_report_print_stats(rep, r->view->text ? out : stderr);
	if (kp_output_commit(&o))
		return 1;
	kp_report_warnings(rep, false, true, say_aside, NULL);
	return kp_input_replayed(&rep->s, r->ro.input) | annotated;
}

static int run(struct report *r)
{
	struct kp_report rep;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	r->ro.progress = progress;
	r->ro.progress_ctx = r;
	rc = kp_input_build(&r->ro, &rep);
	if (r->progress_shown)
		fputc('\n', stderr);
	if (!rc) {
		r->vo.seq = r->ro.seq ? &rep.seq : NULL;
		r->vo.t_start = r->ro.filter.t_start;
		r->vo.t_end = r->ro.filter.t_end;
		rc = r->tui ? kp_report_tui(&rep, &r->ro, &r->vo) : output(r, &rep);
		if (r->tui && !rc) /* the screen is given back: what the replay left out */
			rc = kp_input_replayed(&rep.s, r->ro.input);
	}
	kp_report_release(&rep);
	return rc;
}

/* --- options ------------------------------------------------------------------------------ */

enum {
	OPT_TREE = 256, OPT_FLAT, OPT_FOLDED, OPT_FORMAT, OPT_INVERTED, OPT_LIMIT,
	OPT_ANNOTATE, OPT_SRCLINE, OPT_NO_INLINE, OPT_INLINE, OPT_INLINE_SELF, OPT_NO_DEMANGLE,
	OPT_EVENT, OPT_PID, OPT_TID,
	OPT_CPU, OPT_COMM, OPT_CGROUP, OPT_TIME, OPT_STATS, OPT_COLOR, OPT_SYMFS, OPT_NO_DEBUGINFOD, OPT_SVG,
	OPT_DIFF, OPT_NO_IDLE, OPT_UNWINDER, OPT_WEIGHT, OPT_WALL, OPT_TIMELINE, OPT_TUI,
	OPT_WAKERS, OPT_LATENCY,
	OPT_VIEW_FIRST = 1024,	/* the views' own options, in kp_views[] order */
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
	{ "annotate", optional_argument, NULL, OPT_ANNOTATE },
	{ "srcline", no_argument, NULL, OPT_SRCLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "inline-self", no_argument, NULL, OPT_INLINE_SELF },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "force", no_argument, NULL, 'f' },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "jobs", required_argument, NULL, 'j' },
	{ "svg", no_argument, NULL, OPT_SVG },
	{ "timeline", no_argument, NULL, OPT_TIMELINE },
	{ "tui", no_argument, NULL, OPT_TUI },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ "no-idle", no_argument, NULL, OPT_NO_IDLE },
	{ "unwinder", required_argument, NULL, OPT_UNWINDER },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "wakers", no_argument, NULL, OPT_WAKERS },
	{ "latency", no_argument, NULL, OPT_LATENCY },
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

/* --comm, --cgroup: the names of @list, comma-separated, appended to *@names. */
static int add_names(char ***names, size_t *nr, const char *list)
{
	char *copy = kp_xstrdup(list), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		*names = kp_xrealloc(*names, (*nr + 1) * sizeof(**names));
		(*names)[(*nr)++] = kp_xstrdup(tok);
	}
	free(copy);
	return 0;
}

static int parse_limit(struct report *r, const char *s)
{
	return kp_cmd_real("report", "--percent-limit", s, 0, 100, &r->vo.percent_limit);
}

static int parse_opt(struct report *r, int c)
{
	struct kp_report_filter *f = &r->ro.filter;

	switch (c) {
	case 'i': r->ro.input = optarg; return 0;
	case 'o': r->output = optarg; return 0;
	case OPT_TREE: return set_view(r, "tree");
	case OPT_FLAT: return set_view(r, "flat");
	case OPT_FOLDED: return set_view(r, "folded");
	case OPT_FORMAT: return set_view(r, optarg);
	case OPT_INVERTED: r->vo.inverted = true; return 0; /* a callee tree, or an icicle */
	case OPT_LIMIT: return parse_limit(r, optarg);
	case OPT_SRCLINE: r->vo.srcline = r->ro.dso.srcline = true; return 0;
	case OPT_NO_INLINE: r->ro.dso.inline_frames = false; return 0;
	case OPT_INLINE: r->ro.dso.inline_frames = r->ro.dso.inline_debug = true; return 0;
	case OPT_INLINE_SELF: r->ro.dso.inline_self = true; return 0;
	case OPT_NO_DEMANGLE: r->ro.dso.demangle = false; return 0;
	case OPT_EVENT: r->ro.event_name = optarg; return 0;
	case OPT_PID: return kp_cmd_idlist("report", "--pid", optarg, false, 0, KP_MAX_PID,
					     &f->pids, &f->nr_pids);
	case OPT_TID: return kp_cmd_idlist("report", "--tid", optarg, false, 0, KP_MAX_PID,
					     &f->tids, &f->nr_tids);
	case OPT_CPU: return kp_cmd_idlist("report", "--cpu", optarg, true, 0, KP_MAX_CPUS - 1,
					     &f->cpus, &f->nr_cpus);
	case OPT_COMM: return add_names(&f->comms, &f->nr_comms, optarg);
	case OPT_CGROUP: return add_names(&f->cgroups, &f->nr_cgroups, optarg);
	case OPT_TIME: return parse_time(optarg, f);
	case OPT_STATS: r->stats = true; return 0;
	case OPT_COLOR: r->color = optarg; return 0;
	case OPT_SYMFS: r->ro.symfs = optarg; return 0;
	case 'f': r->ro.dso.any_owner = true; return 0;
	case OPT_NO_DEBUGINFOD: kp_debuginfod_disable(r->ro.dso.debuginfod); return 0;
	case 'j': return parse_jobs(r, optarg);
	case OPT_SVG: return set_view(r, "svg");
	case OPT_TIMELINE: return set_view(r, "timeline");
	case OPT_TUI: r->tui = true; return 0;
	case OPT_DIFF: r->diff_base = optarg; return 0;
	case OPT_NO_IDLE: f->no_idle = true; return 0;
	case OPT_WALL: r->ro.wall = true; return 0;
	case OPT_WAKERS: r->ro.wakers = true; return 0;
	case OPT_LATENCY: r->ro.latency = true; return 0;
	case OPT_UNWINDER: return kp_parse_unwinder("report", optarg, &r->ro.unwinder);
	case OPT_WEIGHT:
		if (kp_cmd_weight("report", optarg, &r->vo.by_samples))
			return 2;
		r->ro.by_samples = r->vo.by_samples;
		return 0;
	default:
		if (c >= KP_OPT_SVG_FIRST && c < KP_OPT_SVG_LAST)
			return kp_svg_opt(&r->vo.svg, &r->ro.reverse, c, optarg, "report");
		return 2;
	}
}

static int check_color(struct report *r)
{
	return kp_cmd_color("report", r->color, r->output, &r->vo.color);
}

/* What the view's traits make of --inverted, --diff, --flamechart and the output. */
static int apply_traits(struct report *r)
{
	const struct kp_view *v = r->view;

	if (r->vo.inverted && v->inverted == KP_INVERTED_NO)
		return kp_usage_error("report", "--inverted applies to --tree and --svg only");
	if (v->inverted == KP_INVERTED_ICICLE) {
		r->vo.svg.inverted = r->vo.svg.inverted || r->vo.inverted;
		r->vo.inverted = false;
	}
	r->ro.reverse = r->ro.reverse || r->vo.inverted;
	r->ro.cgroup_root = (r->vo.sort & KP_SORT_CGROUP) != 0;
	if (r->diff_base && (!v->diff || r->vo.inverted))
		return kp_usage_error("report", "--diff applies to the caller --tree");
	r->ro.seq = v->seq == KP_SEQ_ALWAYS ||
		    (v->seq == KP_SEQ_FLAMECHART && r->vo.svg.flamechart);
	r->ro.tp_fields = v->fields;
	if (r->view_opt && r->view_opt_of != v)
		return kp_usage_error("report", "--%s applies to --format %s", r->view_opt->name,
				      r->view_opt_of->name);
	r->ro.addrs = v->addrs;
	if (r->annotate && !v->text && r->annotate_top)
		return kp_usage_error("report", "--annotate N applies to the text reports (--tree, "
				      "--flat); --folded's --annotate takes no count");
	if (r->annotate && r->diff_base && v->text)
		return kp_usage_error("report", "--annotate and --diff: annotate each recording");
	r->vo.annotate = r->annotate && !v->text;
	if (r->annotate && v->text && !r->annotate_top)
		r->annotate_top = 3;
	if (v->binary && !r->output && isatty(STDOUT_FILENO))
		return kp_usage_error("report", "--format %s writes binary data: give -o FILE",
				      v->name);
	return 0;
}

/* The views' own options (kp_view.options), numbered from OPT_VIEW_FIRST in table order. */
static const struct kp_view_option *view_opt(size_t k, const struct kp_view **of)
{
	for (size_t v = 0; v < kp_nr_views; v++)
		for (const struct kp_view_option *o = kp_views[v].options; o && o->name; o++)
			if (!k--) {
				*of = &kp_views[v];
				return o;
			}
	return NULL;
}

/* long_opts followed by every view's options; built once. */
static const struct option *all_opts(void)
{
	static struct option *all;
	const struct kp_view *of;
	size_t n = ARRAY_SIZE(long_opts) - 1, k = 0;

	if (all)
		return all;
	while (view_opt(k, &of))
		k++;
	all = kp_xcalloc(n + k + 1, sizeof(*all));
	memcpy(all, long_opts, n * sizeof(*all));
	for (size_t i = 0; i < k; i++)
		all[n + i] = (struct option){ view_opt(i, &of)->name, required_argument, NULL,
					      OPT_VIEW_FIRST + (int)i };
	return all;
}

static int parse_view_opt(struct report *r, size_t k)
{
	const struct kp_view_option *o = view_opt(k, &r->view_opt_of);
	char why[512];

	r->view_opt = o;
	return o->parse(&r->vo, optarg, why, sizeof(why)) ? kp_usage_error("report", "%s", why) : 0;
}

/* The views' options in the usage, after the common ones; returns 0. */
static void view_usage(void)
{
	const struct kp_view *of;
	const struct kp_view_option *o;
	char left[64];

	printf("\noptions of one format:\n");
	for (size_t k = 0; (o = view_opt(k, &of)); k++) {
		snprintf(left, sizeof(left), "--%s %s", o->name, o->arg);
		printf("      %-18s %s: %s\n", left, of->name, o->help);
	}
	putchar('\n');
}

static int parse_options(struct report *r, int argc, char **argv)
{
	int c, rc;

	r->ro.input = "kprof.data";
	r->view = kp_view_find("tree");
	r->ro.dso.inline_frames = r->ro.dso.demangle = true;
	r->ro.filter.t_end = UINT64_MAX;
	r->color = "auto";
	r->stderr_tty = -1;
	kp_svg_opts_init(&r->vo.svg);
	r->vo.say = say_aside;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:j:fh", all_opts(), NULL)) != -1) {
		if (c == 'h')
			{
			kp_cmd_help(report_usage);
			view_usage();
			return kp_cmd_help(kp_svg_usage);
		}
		if (c == OPT_ANNOTATE) { /* its count may follow as the next word: --annotate 5 */
			const char *n = optarg ? optarg
				: optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9'
				? argv[optind++] : NULL;

			r->annotate = true;
			if (n && (rc = kp_cmd_parse_top("report", "--annotate", n, &r->annotate_top)))
				return rc;
			continue;
		}
		if ((rc = c >= OPT_VIEW_FIRST ? parse_view_opt(r, c - OPT_VIEW_FIRST) : parse_opt(r, c)))
			return rc;
	}
	if (optind < argc)
		return kp_usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (r->ro.wall && r->ro.event_name)
		return kp_usage_error("report", "--wall is one profile of the clocks and offcpu: "
				      "not with --event");
	if (r->ro.wakers && r->ro.event_name && strcmp(r->ro.event_name, "offcpu"))
		return kp_usage_error("report", "--wakers shows who woke the off-CPU intervals: "
				      "with --event offcpu or --wall, not --event %s",
				      r->ro.event_name);
	if (r->ro.latency && (r->ro.wall || r->ro.by_samples))
		return kp_usage_error("report", "--latency divides each sample's period: not with "
				      "%s", r->ro.wall ? "--wall" : "--weight samples");
	if (r->tui && (r->output || r->diff_base || r->annotate))
		return kp_usage_error("report", "--tui browses on the terminal: not with -o, --diff "
				      "or --annotate (its a key annotates)");
	if ((rc = apply_traits(r)))
		return rc;
	return check_color(r);
}

int cmd_report(int argc, char **argv)
{
	struct report *r = kp_xcalloc(1, sizeof(*r));
	struct kp_report_filter *f = &r->ro.filter;
	int rc;

	r->ro.dso.debuginfod = kp_fetch_client();
	rc = parse_options(r, argc, argv);

	if (rc == 0)
		rc = run(r);
	free(f->pids);
	free(f->tids);
	free(f->cpus);
	for (size_t i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	free(f->comms);
	for (size_t i = 0; i < f->nr_cgroups; i++)
		free(f->cgroups[i]);
	free(f->cgroups);
	kp_debuginfod_free(r->ro.dso.debuginfod);
	free(r);
	return rc;
}

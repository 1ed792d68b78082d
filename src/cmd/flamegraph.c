/* SPDX-License-Identifier: MIT */
/*
 * flamegraph.c - `kprof flamegraph`: folded stacks from anywhere (perf script + a
 * collapse, bpftrace, async-profiler, kprof report --folded) to an SVG flame graph, as a
 * drop-in for flamegraph.pl; and `kprof diff`: two recordings or folded files to a
 * differential flame graph or two-column folded stacks.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cli/fetch.h"
#include "src/cli/options.h"
#include "src/cli/report-opts.h"
#include "src/cli/input.h"
#include "src/cmd/cmd.h"
#include "src/record/diag.h"
#include "src/cli/output.h"
#include "formats/util.h"
#include "report/profile/folded.h"
#include "report/profile/report.h"
#include "report/views/view.h"
#include "src/cli/svgopts.h"

#define MAX_BAD_LINES 5

static const char flamegraph_usage[] =
	"usage: kprof flamegraph [options] [FILE|-]\n"
	"\n"
	"Renders folded stacks (\"a;b;c N\", or \"a;b;c N1 N2\" for a differential graph) from\n"
	"FILE or standard input as an SVG flame graph on standard output, as flamegraph.pl does.\n"
	"\n"
	"  -o, --output FILE      write the SVG to FILE\n"
	"  -n, --normalize        differential: scale N1 to the total of N2, as difffolded.pl -n\n"
	"  -h, --help             this text\n";

static const char diff_usage[] =
	"usage: kprof diff [options] BASE NEW\n"
	"\n"
	"Shows what changed from BASE to NEW, each a recording or a folded file: a differential\n"
	"flame graph whose widths follow NEW, red where a frame's own samples grew, blue where\n"
	"they shrank. BASE is scaled to NEW's total first, as difffolded.pl -n does.\n"
	"\n"
	"  -o, --output FILE      write to FILE instead of standard output\n"
	"      --folded           two-column folded stacks (\"a;b;c BASE NEW\") instead of an SVG,\n"
	"                         as difffolded.pl writes them\n"
	"      --no-normalize     compare the counts as they are, not scaled to the same total\n"
	"      --symfs DIR        for recordings: look for binaries under DIR\n"
	"      --unwinder LIB     for recordings with stack copies: libdw (default) or libunwind\n"
	"  -h, --help             this text\n";

struct input {
	const char *path;
	int bad;
};

static void bad_line(void *ctx, size_t line, const char *why)
{
	struct input *in = ctx;

	if (++in->bad <= MAX_BAD_LINES)
		kp_warn("'%s', line %zu: %s; skipped", in->path, line, why);
}

/* The whole of @path ("-": standard input) into memory. */
static int slurp(const char *path, char **text, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO, err;

	*text = NULL;
	*len = 0;
	if (fd < 0)
		return kp_error("cannot open '%s': %s", path, strerror(errno));
	err = kp_read_fd(fd, text, len);
	if (fd != STDIN_FILENO)
		close(fd);
	if (err) {
		free(*text);
		return kp_error("cannot read '%s': %s", path, strerror(-err));
	}
	return 0;
}

/*
 * The stacks of the recording @path into @p's @event, weighed as flamegraph.pl weighs perf
 * script's: a sample counts 1 (the titles say "samples"), in folded input's thousandths.
 */
static int load_recording(struct kp_profile *p, const char *path, size_t event,
			  struct kp_seq *seq, bool reverse, const char *symfs,
			  enum kp_unwind_lib unwinder, struct kp_debuginfod *debuginfod)
{
	struct kp_report_opts o = { .input = path, .symfs = symfs, .unwinder = unwinder,
				    .reverse = reverse, .seq = seq != NULL, .by_samples = true,
				    .filter.t_end = UINT64_MAX };
	struct kp_report r;
	uint32_t *map = NULL;
	int rc;

	o.dso.inline_frames = o.dso.demangle = true;
	o.dso.debuginfod = debuginfod;
	rc = kp_input_build(&o, &r);
	if (!rc && r.s.evl.nr > 1)
		kp_notice("'%s' has %zu events: showing '%s'", path, r.s.evl.nr, r.s.evl.ev[0].name);
	if (!rc && !(rc = kp_input_replayed(&r.s, path))) {
		kp_profile_merge(p, event, &r.prof, 0, true, KP_FOLDED_SCALE, seq ? &map : NULL);
		for (size_t i = 0; seq && i < r.seq.nr; i++)
			kp_seq_push(seq, map[r.seq.ents[i].node],
				    r.seq.ents[i].value * KP_FOLDED_SCALE);
		if (!r.per_event || !r.per_event[0])
			rc = kp_error("'%s' has no stacks", path);
	}
	free(map);
	kp_report_release(&r);
	return rc;
}

/* Stacks of a recording or a folded file into @p: one-count lines go to @event. */
static int load(struct kp_profile *p, const char *path, size_t event, int columns,
		struct kp_seq *seq, bool reverse, const char *symfs, enum kp_unwind_lib unwinder,
		struct kp_debuginfod *debuginfod)
{
	struct input in = { strcmp(path, "-") ? path : "standard input", 0 };
	struct kp_folded_opts fo = { event, columns, 0, reverse, bad_line, &in };
	char *text;
	size_t len, added;
	int rc;

	if (strcmp(path, "-") && kp_is_recording(path))
		return load_recording(p, path, event, seq, reverse, symfs, unwinder, debuginfod);
	if ((rc = slurp(path, &text, &len)))
		return rc;
	added = kp_folded_parse(p, text, len, &fo, seq);
	free(text);
	if (in.bad > MAX_BAD_LINES)
		kp_warn("'%s': %d more malformed lines skipped", in.path, in.bad - MAX_BAD_LINES);
	if (!added)
		return kp_error("'%s' has no stacks", in.path);
	return 0;
}

/* Write @p, finished, to @out_path. */
static int render(struct kp_profile *p, struct kp_view_opts *vo, const char *out_path,
		  bool folded)
{
	struct kp_output o;
	FILE *out = kp_output_open(&o, out_path, stdout);
	int rc;

	if (!out)
		return 1;
	rc = folded ? kp_view_folded(p, vo, out) : kp_view_svg(p, vo, out);
	if (rc) {
		kp_output_abort(&o);
		return 1;
	}
	return kp_output_commit(&o);
}

enum { OPT_FOLDED = 256, OPT_NO_NORMALIZE, OPT_SYMFS, OPT_UNWINDER };

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "normalize", no_argument, NULL, 'n' },
	{ "no-normalize", no_argument, NULL, OPT_NO_NORMALIZE },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "unwinder", required_argument, NULL, OPT_UNWINDER },
	{ "help", no_argument, NULL, 'h' },
	KP_SVG_LONG_OPTS,
	{ NULL, 0, NULL, 0 },
};

struct args {
	const char *cmd, *usage, *out, *symfs;
	enum kp_unwind_lib unwinder;
	struct kp_view_opts vo;
	bool reverse, folded;
	int first;		/* index of the first operand */
};

static int parse(struct args *a, int argc, char **argv)
{
	int c, rc;

	kp_svg_opts_init(&a->vo.svg);
	a->vo.svg.milli = true;
	a->vo.svg.normalize = a->usage == diff_usage; /* recordings differ in length */
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:nh", long_opts, NULL)) != -1) {
		if (c == 'h')
			{
			kp_cmd_help(a->usage);
			return kp_cmd_help(kp_svg_usage);
		}
		if (c == 'o')
			a->out = optarg;
		else if (c == 'n')
			a->vo.svg.normalize = true;
		else if (c == OPT_FOLDED && a->usage == diff_usage)
			a->folded = true;
		else if (c == OPT_NO_NORMALIZE && a->usage == diff_usage)
			a->vo.svg.normalize = false;
		else if (c == OPT_SYMFS && a->usage == diff_usage)
			a->symfs = optarg;
		else if (c == OPT_UNWINDER && a->usage == diff_usage) {
			if ((rc = kp_parse_unwinder(a->cmd, optarg, &a->unwinder)))
				return rc;
		} else if (c >= KP_OPT_SVG_FIRST && c < KP_OPT_SVG_LAST) {
			if ((rc = kp_svg_opt(&a->vo.svg, &a->reverse, c, optarg, a->cmd)))
				return rc;
		} else {
			return kp_usage_error(a->cmd, "unknown option");
		}
	}
	a->first = optind;
	return 0;
}

/* Did any line have two counts, making this a differential graph? */
static bool has_base(const struct kp_profile *p)
{
	for (size_t n = 0; n < p->nr_nodes; n++)
		if (kp_profile_self(p, (uint32_t)n, 0)->period)
			return true;
	return false;
}

int cmd_flamegraph(int argc, char **argv)
{
	struct args a = { .cmd = "flamegraph", .usage = flamegraph_usage };
	struct kp_strtab strs;
	struct kp_profile p;
	struct kp_seq seq = { 0 };
	struct kp_debuginfod *debuginfod;
	int rc = parse(&a, argc, argv);

	if (rc)
		return rc;
	if (argc - a.first > 1)
		return kp_usage_error("flamegraph", "one input at most, not %d", argc - a.first);
	kp_strtab_init(&strs);
	kp_profile_init(&p, &strs, 2);
	debuginfod = kp_fetch_client();
	/* one-count lines go to event 1, so that a two-count file is a diff of 0 against 1 */
	rc = load(&p, a.first < argc ? argv[a.first] : "-", 1, 0, &seq, a.reverse, NULL,
		  KP_UNWIND_LIBDW, debuginfod);
	if (!rc) {
		kp_profile_finish(&p);
		a.vo.svg.diff = has_base(&p);
		a.vo.event = 1;
		a.vo.seq = &seq;
		rc = render(&p, &a.vo, a.out, false);
	}
	free(seq.ents);
	kp_profile_release(&p);
	kp_strtab_release(&strs);
	kp_debuginfod_free(debuginfod);
	return rc;
}

/*
 * The subtitle of `kprof diff`: the user's, and what normalising did, when it changed BASE
 * (recordings differ in length, so it is the default here, unlike for flamegraph.pl).
 */
static const char *diff_subtitle(const struct kp_profile *p, const struct kp_svg_opts *so,
				 char *buf, size_t size)
{
	double base = kp_profile_total(p, 0, 0)->period / 1000.0;
	double now = kp_profile_total(p, 0, 1)->period / 1000.0;

	if (!so->normalize || !(base > 0) || base == now)
		return so->subtitle;
	snprintf(buf, size, "%s%sBASE normalized to NEW's total: its counts \xc3\x97 %.4g "
		 "(--no-normalize: as given)", so->subtitle ? so->subtitle : "",
		 so->subtitle ? "; " : "", now / base);
	return buf;
}

int cmd_diff(int argc, char **argv)
{
	struct args a = { .cmd = "diff", .usage = diff_usage };
	char sub[1024];
	struct kp_strtab strs;
	struct kp_profile p;
	struct kp_debuginfod *debuginfod;
	int rc = parse(&a, argc, argv);

	if (rc)
		return rc;
	if (argc - a.first != 2)
		return kp_usage_error("diff", "give BASE and NEW");
	kp_strtab_init(&strs);
	kp_profile_init(&p, &strs, 2);
	debuginfod = kp_fetch_client();
	rc = load(&p, argv[a.first], 0, 1, NULL, a.reverse, a.symfs, a.unwinder, debuginfod);
	if (!rc)
		rc = load(&p, argv[a.first + 1], 1, 1, NULL, a.reverse, a.symfs, a.unwinder,
			  debuginfod);
	if (!rc) {
		kp_profile_finish(&p);
		a.vo.svg.diff = a.vo.svg.diff_totals = true;
		a.vo.event = 1;
		if (!a.vo.svg.title)
			a.vo.svg.title = "Differential Flame Graph";
		a.vo.svg.subtitle = diff_subtitle(&p, &a.vo.svg, sub, sizeof(sub));
		rc = render(&p, &a.vo, a.out, a.folded);
	}
	kp_profile_release(&p);
	kp_strtab_release(&strs);
	kp_debuginfod_free(debuginfod);
	return rc;
}

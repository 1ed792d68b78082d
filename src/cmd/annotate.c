/* SPDX-License-Identifier: MIT */
/*
 * annotate.c - `kprof annotate`: its options into a kp_report_opts (addresses kept) and a
 * kp_ann_opts, then kp_annotate() (report/tools/annotate.h) and its text or JSON.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cmd/cmd.h"
#include "report/symbols/debuginfod.h"
#include "src/cli/annotate-show.h"
#include "src/cli/options.h"
#include "src/cli/report-opts.h"
#include "src/record/diag.h"
#include "formats/util.h"
#include "src/cli/fetch.h"
#include "src/cli/input.h"
#include "src/cli/output.h"
#include "report/tools/annotate.h"
#include "report/profile/report.h"

static const char annotate_usage[] =
	"usage: kprof annotate [-i FILE] [options] [SYMBOL...]\n"
	"\n"
	"Shows where inside the hottest functions (or the SYMBOLs named) the samples fell:\n"
	"each instruction with its share, disassembled from the binary the recording names,\n"
	"with its source line and the functions inlined there.\n"
	"\n"
	"  -i, --input FILE       recording to read (default kprof.data; a perf.data too)\n"
	"  -o, --output FILE      write to FILE instead of stdout\n"
	"      --top N            without SYMBOLs: the N hottest functions by self (default 3)\n"
	"      --stdio            plain text, no colour\n"
	"      --json             one JSON array, an object per function\n"
	"      --color WHEN       auto (default: when stdout is a terminal), always or never\n"
	"      --no-source        do not interleave the source text (file:line stays)\n"
	"      --callers          a column of the samples whose chain passes through each call\n"
	"  -M, --disassembler-style STYLE\n"
	"                         x86: att (the default, as objdump and perf) or intel\n"
	"      --vmlinux FILE     the kernel's code for kernel functions (else /proc/kcore)\n"
	"      --symfs DIR        look for binaries under DIR\n"
	"      --no-debuginfod    fetch no missing binary or debug file from the servers\n"
	"                         $DEBUGINFOD_URLS names\n"
	"      --event NAME       the event to count, when the recording has several\n"
	"      --weight W         period (default) or samples: what the percentages weigh\n"
	"  -h, --help             this text\n";

struct annotate {
	const char *output, *color;
	bool json, stdio_, source, color_on;
	struct kp_report_opts ro;
	struct kp_ann_opts ao;
};

enum {
	OPT_TOP = 256, OPT_STDIO, OPT_JSON, OPT_COLOR, OPT_NO_SOURCE, OPT_CALLERS, OPT_VMLINUX,
	OPT_SYMFS, OPT_NO_DEBUGINFOD, OPT_EVENT, OPT_WEIGHT,
};

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "no-source", no_argument, NULL, OPT_NO_SOURCE },
	{ "callers", no_argument, NULL, OPT_CALLERS },
	{ "disassembler-style", required_argument, NULL, 'M' },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opt(struct annotate *a, int c)
{
	switch (c) {
	case 'i': a->ro.input = optarg; return 0;
	case 'o': a->output = optarg; return 0;
	case OPT_TOP: return kp_cmd_parse_top("annotate", "--top", optarg, &a->ao.top);
	case OPT_STDIO: a->stdio_ = true; return 0;
	case OPT_JSON: a->json = true; return 0;
	case OPT_COLOR: a->color = optarg; return 0;
	case OPT_NO_SOURCE: a->source = false; return 0;
	case OPT_CALLERS: a->ao.callers = true; return 0;
	case 'M':
		if (strcmp(optarg, "att") && strcmp(optarg, "intel"))
			return kp_usage_error("annotate", "-M takes att or intel, not '%s'", optarg);
		a->ao.intel = !strcmp(optarg, "intel");
		return 0;
	case OPT_VMLINUX: a->ao.vmlinux = optarg; return 0;
	case OPT_SYMFS: a->ro.symfs = optarg; return 0;
	case OPT_NO_DEBUGINFOD: kp_debuginfod_disable(a->ro.dso.debuginfod); return 0;
	case OPT_EVENT: a->ro.event_name = optarg; return 0;
	case OPT_WEIGHT: return kp_cmd_weight("annotate", optarg, &a->ao.by_samples);
	default:
		return 2;
	}
}

static int parse_options(struct annotate *a, int argc, char **argv)
{
	int c, rc;

	a->ro.input = "kprof.data";
	a->ro.dso.inline_frames = a->ro.dso.demangle = true;
	a->ro.filter.t_end = UINT64_MAX;
	a->ro.addrs = true;
	a->ao.top = 3;
	a->source = true;
	a->color = "auto";
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:M:h", long_opts, NULL)) != -1) {
		if (c == 'h')
			return kp_cmd_help(annotate_usage);
		if ((rc = parse_opt(a, c)))
			return rc;
	}
	a->ao.names = (const char *const *)argv + optind;
	a->ao.nr_names = (size_t)(argc - optind);
	if (a->json && a->stdio_)
		return kp_usage_error("annotate", "--json and --stdio are two outputs: give one");
	if ((rc = kp_cmd_color("annotate", a->color, a->output, &a->color_on)))
		return rc;
	a->color_on = a->color_on && !a->stdio_ && !a->json;
	return 0;
}

static int run(struct annotate *a)
{
	struct kp_report rep;
	struct kp_output o;
	FILE *out;
	int rc = kp_input_build(&a->ro, &rep);
	size_t e;

	if (rc) {
		kp_report_release(&rep);
		return rc;
	}
	e = rep.event >= 0 ? (size_t)rep.event : 0;
	if (rep.event < 0 && rep.s.evl.nr > 1)
		kp_notice("the recording has %zu events: annotating '%s' (choose with --event)",
			  rep.s.evl.nr, rep.s.evl.ev[0].name);
	a->ao.event = e;
	out = kp_output_open(&o, a->output, stdout);
	if (!out) {
		kp_report_release(&rep);
		return 1;
	}
	if (!a->json)
		kp_report_print_header(&rep, e, out);
	rc = kp_annotate_show(&rep, &a->ao, a->json,
				   &(struct kp_ann_print_opts){
					   .by_samples = a->ao.by_samples, .color = a->color_on,
					   .source = a->source, .callers = a->ao.callers },
				   out);
	if (kp_output_commit(&o))
		rc = 1;
	if (kp_input_replayed(&rep.s, a->ro.input))
		rc = 1;
	kp_report_release(&rep);
	return rc;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate a = { 0 };
	int rc;

	a.ro.dso.debuginfod = kp_fetch_client();
	rc = parse_options(&a, argc, argv);
	if (rc == 0)
		rc = run(&a);
	kp_debuginfod_free(a.ro.dso.debuginfod);
	return rc;
}

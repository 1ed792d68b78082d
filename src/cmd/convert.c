/* SPDX-License-Identifier: MIT */
/*
 * convert.c - `kprof convert --to perf|kprof`: a recording as a perf.data that perf's tools
 * read (report/tools/convert.h), or a perf.data as a compact .kprof, its stack copies unwound as
 * `kprof unwind` does (unwound.h).
 */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <string.h>

#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/record/diag.h"
#include "formats/reader.h"
#include "formats/util.h"
#include "src/cli/fetch.h"
#include "src/cli/input.h"
#include "src/cli/output.h"
#include "report/tools/convert.h"
#include "src/cli/unwound.h"

static const char convert_usage[] =
	"usage: kprof convert --to perf|kprof [-i FILE] -o FILE\n"
	"\n"
	"Writes a recording in another format. --to perf writes a perf.data that perf report,\n"
	"perf script, perf annotate and hotspot read: the kernel's records as they were\n"
	"recorded, the events, build-ids, facts and tracepoint formats as perf's header\n"
	"features, and stack copies unwound into call chains. --to kprof writes a recording\n"
	"(a .kprof, or a perf.data) as a compact .kprof, its stack copies unwound as kprof\n"
	"unwind does. The output is written beside its path and renamed into place; a damaged\n"
	"input leaves no output.\n"
	"\n"
	"  -t, --to FORMAT      perf or kprof\n"
	"  -i, --input FILE     the recording (default kprof.data, or perf.data for --to kprof)\n"
	"  -o, --output FILE    the new file\n"
	"  -h, --help           this text\n";

/* A tracepoint event without its format file: perf refuses the whole file (it finds each
 * tracepoint's format by the event's config, and stops when one is missing). */
static void no_format(const char *input, const struct kp_convert_stats *st)
{
	char more[48] = "";

	if (st->unformatted > 1)
		snprintf(more, sizeof(more), " (and %llu more tracepoints)",
			 (unsigned long long)(st->unformatted - 1));
	kp_error("'%s' holds no format of its tracepoint '%s'%s: perf reads no perf.data without "
		 "the format of each tracepoint", input, st->unformatted_name, more);
	kp_hint("kprof record stores the formats where it can read tracefs, and says when it "
		"cannot; kprof does not take them from a perf.data");
}

static int to_perf(const char *input, const char *output)
{
	struct kp_convert_stats st;
	struct kp_reader r;
	struct kp_output out;
	struct kp_debuginfod *debuginfod;
	int fd, rc;

	if (kp_input_open(&r, input))
		return 1;
	fd = kp_output_open_fd(&out, output, true); /* perf.data's header is written last */
	if (fd < 0) {
		kp_reader_release(&r);
		return 1;
	}
	debuginfod = kp_fetch_client();
	rc = kp_convert_perf(&r, fd, &st, debuginfod);
	kp_debuginfod_free(debuginfod);
	if (rc || !st.events || st.unformatted) {
		if (!st.events) /* a perf.data of no event is no recording */
			kp_input_no_events(input);
		else if (!rc && st.unformatted)
			no_format(input, &st);
		if (rc == 1)
			kp_error("cannot write '%s': %s", output, kp_strerror(st.write_err));
		else if (rc)
			kp_input_error(&r, input);
		kp_output_abort(&out);
		kp_notice("'%s' is not written", output);
		kp_reader_release(&r);
		return 1;
	}
	kp_reader_release(&r);
	if (kp_output_commit(&out))
		return 1;
	kp_notice("wrote %llu samples (%llu records, %llu stack copies unwound) into '%s'",
		  (unsigned long long)st.samples, (unsigned long long)st.records,
		  (unsigned long long)st.unwind.unwound, output);
	if (st.damaged)
		kp_warn("'%s': %llu samples with damaged fields left out (a stack copy, registers or "
			"a call chain that do not fit their record, or of no recorded event): perf "
			"cannot read them", input, (unsigned long long)st.damaged);
	if (!st.text && st.samples)
		kp_warn("'%s' does not say where the kernel's text starts (_text), and this machine "
			"runs another kernel: perf will leave kernel frames unnamed", input);
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *to = NULL, *input = NULL, *output = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			to = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			return kp_cmd_help(convert_usage);
		default:
			return kp_usage_error("convert", "unknown option");
		}
	}
	if (optind < argc)
		return kp_usage_error("convert", "unexpected argument '%s'", argv[optind]);
	if (!to || (strcmp(to, "perf") && strcmp(to, "kprof")))
		return kp_usage_error("convert", "--to perf or --to kprof is needed");
	if (!output)
		return kp_usage_error("convert", "-o FILE is needed: the recording is not changed");
	if (!input)
		input = strcmp(to, "perf") ? "perf.data" : "kprof.data";
	if (kp_output_same_file(input, output))
		return kp_error("'%s' is the input: write the new file elsewhere", output);
	if (!strcmp(to, "perf"))
		return to_perf(input, output);
	return kp_unwound_write(input, output, true);
}

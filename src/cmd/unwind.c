/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - `kprof unwind`: a recording's stack copies (--keep-stacks, or those kept
 * while unwinding fell behind) unwound into call chains, written as a new recording, through
 * the same stage `kprof record --call-graph dwarf` unwinds with (online.h).
 */
#include "config.h"

#include <getopt.h>
#include <stddef.h>

#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/record/diag.h"
#include "src/cli/unwound.h"

static const char unwind_usage[] =
	"usage: kprof unwind [-i FILE] -o FILE\n"
	"\n"
	"Unwinds the user stack copies of a recording made with --call-graph dwarf\n"
	"--keep-stacks (or kept because unwinding fell behind) and writes a copy of it that\n"
	"holds the unwound call chains instead, as recording without --keep-stacks does. The\n"
	"binaries the recording ran must be on this machine.\n"
	"\n"
	"  -i, --input FILE     the recording (default kprof.data)\n"
	"  -o, --output FILE    the new recording\n"
	"  -h, --help           this text\n";

int cmd_unwind(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "kprof.data", *output = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			return kp_cmd_help(unwind_usage);
		default:
			return kp_usage_error("unwind", "unknown option");
		}
	}
	if (optind < argc)
		return kp_usage_error("unwind", "unexpected argument '%s'", argv[optind]);
	if (!output)
		return kp_usage_error("unwind", "-o FILE is needed: the recording is not changed");
	return kp_unwound_write(input, output, false);
}

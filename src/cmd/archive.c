/* SPDX-License-Identifier: MIT */
/*
 * archive.c - `kprof archive`: a recording made self-contained. The recording is replayed
 * as a report would, with every frame named from the binaries on this machine, and what they
 * named is stored in it (report/tools/archive.h): appended to it in place, or written with a copy of
 * it to -o FILE. `kprof record --embed-symbols` does the same when recording ends.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/cli/archive.h"
#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/record/diag.h"
#include "formats/reader.h"
#include "formats/util.h"
#include "formats/writer.h"
#include "src/cli/fetch.h"
#include "src/cli/input.h"
#include "src/cli/output.h"
#include "report/tools/archive.h"

static const char archive_usage[] =
	"usage: kprof archive [-i FILE] [-o FILE] [--symfs DIR]\n"
	"\n"
	"Stores in a recording the symbols its samples need: for every binary they hit, its\n"
	"build-id and, at each address hit, the function, inline frames and source line a\n"
	"report shows. Run it where the recording was made; the recording then reports on any\n"
	"machine, also once the binaries are gone or rebuilt (kprof report --stats says which\n"
	"binaries were named from the embedded symbols). kprof record --embed-symbols does it\n"
	"as recording ends.\n"
	"\n"
	"  -i, --input FILE     the recording (default kprof.data), changed in place: the\n"
	"                       symbols are appended to it\n"
	"  -o, --output FILE    write a copy with the symbols instead (needed for a recording\n"
	"                       cut short, whose last chunk is incomplete)\n"
	"      --symfs DIR      look for the binaries under DIR\n"
	"      --no-debuginfod  fetch no missing binary from the servers $DEBUGINFOD_URLS\n"
	"                       names\n"
	"  -h, --help           this text\n";

int cmd_archive(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "symfs", required_argument, NULL, 's' },
		{ "no-debuginfod", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "kprof.data", *output = NULL, *symfs = NULL;
	struct kp_debuginfod *debuginfod;
	bool no_debuginfod = false;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 's':
			symfs = optarg;
			break;
		case 'D':
			no_debuginfod = true;
			break;
		case 'h':
			return kp_cmd_help(archive_usage);
		default:
			return kp_usage_error("archive", "unknown option");
		}
	}
	if (optind < argc)
		return kp_usage_error("archive", "unexpected argument '%s'", argv[optind]);
	debuginfod = kp_fetch_client();
	if (no_debuginfod)
		kp_debuginfod_disable(debuginfod);
	rc = kp_archive_file(input, output, symfs, "archive", NULL, 0, debuginfod);
	kp_debuginfod_free(debuginfod);
	return rc;
}

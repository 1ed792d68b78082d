/* SPDX-License-Identifier: MIT */
/*
 * kprof.c - main(): the subcommand table and the one loop that dispatches through it.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "diag.h"
#include "formats/util.h"
#include "idlist.h"

static const struct kp_cmd commands[] = {
	{ "record", cmd_record, "run a command and record its samples into kprof.data" },
	{ "report", cmd_report, "show where the samples went: call tree, flat list, folded stacks" },
	{ "annotate", cmd_annotate, "show where inside the hottest functions the samples fell" },
	{ "script", cmd_script, "print every record of a recording in time order" },
	{ "unwind", cmd_unwind, "turn a recording's stack copies into call chains (a smaller file)" },
	{ "convert", cmd_convert, "write a recording as a perf.data, or a perf.data as a .kprof" },
	{ "flamegraph", cmd_flamegraph, "render folded stacks as an SVG flame graph" },
	{ "diff", cmd_diff, "compare two recordings or folded files: a differential flame graph" },
	{ "stat", cmd_stat, "count events exactly for a command, processes or CPUs" },
	{ "trace", cmd_trace, "show the system calls of a command, processes or the machine" },
	{ "latency", cmd_latency, "time the pairs of two events: histogram, slowest, stacks" },
	{ "list", cmd_list, "list the events, tracepoints and PMUs -e can name" },
	{ "view", cmd_view, "serve a recording to the Firefox Profiler on 127.0.0.1" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kprof [--version] [--help] <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nsee 'kprof <command> --help' for a command's options\n");
}

int kp_cmd_help(const char *text)
{
	fputs(text, stdout);
	return 0;
}

int kp_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "kprof %s: %s\nsee 'kprof %s --help'\n", cmd, msg, cmd);
	return 2;
}

static int idlist_said(const char *cmd, int rc, const char *why)
{
	if (!rc)
		return 0;
	return rc == -EINVAL ? kp_usage_error(cmd, "%s", why) : kp_error("%s", why);
}

int kp_cmd_idlist(const char *cmd, const char *opt, const char *arg, bool ranges, long min,
		  long max, int **ids, size_t *nr)
{
	char why[512];

	return idlist_said(cmd, kp_idlist_parse(opt, arg, ranges, min, max, ids, nr, why,
						sizeof(why)), why);
}

int kp_cmd_cpus(const char *cmd, const char *arg, int **ids, size_t *nr)
{
	char why[512];

	return idlist_said(cmd, kp_idlist_cpus(arg, ids, nr, why, sizeof(why)), why);
}

/* Like git and perf: a failed write to stdout (a full disk, a closed pipe) is a failure. */
static int finish_stdout(int rc)
{
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		if (errno == EPIPE)
			return rc;
		kp_error("write failure on standard output: %s", strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;

	/* a file size limit is a write error (EFBIG) to report, not a reason to die (a command
	 * that kprof runs gets the default back) */
	signal(SIGXFSZ, SIG_IGN);
	if (!name) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return finish_stdout(0);
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("kprof %s\n", PACKAGE_VERSION);
		return finish_stdout(0);
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return finish_stdout(commands[i].fn(argc - 1, argv + 1));
	kp_error("'%s' is not a kprof command", name);
	usage(stderr);
	return 2;
}

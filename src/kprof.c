/* SPDX-License-Identifier: MIT */
/*
 * kprof.c - main(): the subcommand table and the one loop that dispatches through it.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/record/diag.h"
#include "formats/util.h"

static const struct kp_cmd commands[] = {
	{ "record", cmd_record, "run a command and record its samples into kprof.data" },
	{ "report", cmd_report, "show where the samples went: call tree, flat list, folded stacks" },
	{ "annotate", cmd_annotate, "show where inside the hottest functions the samples fell" },
	{ "script", cmd_script, "print every record of a recording in time order" },
	{ "archive", cmd_archive, "store the symbols a recording needs in it, to report elsewhere" },
	{ "unwind", cmd_unwind, "turn a recording's stack copies into call chains (a smaller file)" },
	{ "convert", cmd_convert, "write a recording as a perf.data, or a perf.data as a .kprof" },
	{ "flamegraph", cmd_flamegraph, "render folded stacks as an SVG flame graph" },
	{ "diff", cmd_diff, "compare two recordings or folded files: a differential flame graph" },
	{ "stat", cmd_stat, "count events exactly for a command, processes or CPUs" },
	{ "top", cmd_top, "show the hottest functions of the machine as they run, live" },
	{ "trace", cmd_trace, "show the system calls of a command, processes or the machine" },
	{ "latency", cmd_latency, "time the pairs of two events: histogram, slowest, stacks" },
	{ "sched", cmd_sched, "the scheduler's view: run time, waits, scheduling delay per task" },
	{ "list", cmd_list, "list the events, tracepoints and PMUs -e can name" },
	{ "view", cmd_view, "serve a recording to the Firefox Profiler on 127.0.0.1" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kprof [--version] [--help] <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nsee 'kprof <command> --help' for a command's options, 'kprof help <command>' "
		   "for its manual\n");
}

/* After a command's --help: where its whole manual is, as git says it. */
static int help_footer(const char *name, int rc)
{
	if (rc != KP_CMD_HELP_SHOWN)
		return rc;
	printf("\nThe whole manual: man kprof-%s (or kprof help %s)\n", name, name);
	return 0;
}

/* A page of the build tree beside this binary (build/src/man/), for kprof run from there. */
static bool page_beside(const char *page, char *path, size_t size)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return false;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return false;
	*slash = '\0';
	snprintf(path, size, "%s/src/man/%s", self, page);
	return access(path, R_OK) == 0;
}

/*
 * kprof help CMD: its manual page, as git help does: man's, else the build tree's beside the
 * binary, else the command's --help with a word on where the page is.
 */
static int help(const char *name)
{
	const struct kp_cmd *c = NULL;
	char base[48], page[64], path[4200], man_w[128];
	bool data = !strcmp(name, "data");
	const char *sect = data ? "5" : "1";

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			c = &commands[i];
	if (!c && !data) {
		kp_error("'%s' is not a kprof command", name);
		usage(stderr);
		return 2;
	}
	snprintf(base, sizeof(base), "kprof-%s", name); /* a name of the table: no quoting */
	snprintf(page, sizeof(page), "%s.%s", base, sect);
	snprintf(man_w, sizeof(man_w), "man -w %s %s >/dev/null 2>&1", sect, base);
	fflush(stdout);
	if (!system(man_w))
		execlp("man", "man", sect, base, (char *)NULL);
	if (page_beside(page, path, sizeof(path)))
		execlp("man", "man", "-l", path, (char *)NULL);
	if (data) {
		kp_error("the manual page kprof-data(5) is not installed ('make install' installs it)");
		return 1;
	}
	kp_notice("the manual page kprof-%s(1) is not installed ('make install' installs it): "
		  "its usage instead", name);
	{
		char *argv[] = { (char *)name, (char *)"--help", NULL };
		int rc = c->fn(2, argv);

		return rc == KP_CMD_HELP_SHOWN ? 0 : rc;
	}
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
	if (!strcmp(name, "help") && argc > 2)
		return finish_stdout(help(argv[2]));
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
			return finish_stdout(help_footer(commands[i].name,
						     commands[i].fn(argc - 1, argv + 1)));
	kp_error("'%s' is not a kprof command", name);
	usage(stderr);
	return 2;
}

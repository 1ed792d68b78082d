/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - one entry point per subcommand. Each gets the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit code: 0 ok, 1 failure, 2 usage.
 */
#ifndef KP_CMD_H
#define KP_CMD_H

#include <stdbool.h>
#include <stddef.h>

struct kp_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_record(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_unwind(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_trace(int argc, char **argv);

/* kp_cmd_help - print a command's usage text to stdout; returns 0. */
int kp_cmd_help(const char *text);

/* kp_usage_error - "kprof <cmd>: <msg>" plus a pointer to 'kprof <cmd> --help'; returns 2. */
int kp_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* kp_cmd_user_pids - append the pids of the processes of @user (a name or a number) to *@pids
 * (*@nr of them) for @cmd's -u, and set *@of_user; 0, or the exit code after saying why. */
int kp_cmd_user_pids(const char *cmd, const char *user, int **pids, size_t *nr, bool *of_user);

/* kp_cmd_idlist, kp_cmd_cpus - kp_idlist_parse() and kp_idlist_cpus() for @cmd's option:
 * 0, or the exit code after saying what is wrong (2 for a usage error). */
int kp_cmd_idlist(const char *cmd, const char *opt, const char *arg, bool ranges, long min,
		  long max, int **ids, size_t *nr);
int kp_cmd_cpus(const char *cmd, const char *arg, int **ids, size_t *nr);

#endif /* KP_CMD_H */

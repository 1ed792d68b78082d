/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - one entry point per subcommand. Each gets the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit code: 0 ok, 1 failure, 2 usage.
 */
#ifndef KP_CMD_H
#define KP_CMD_H

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
int cmd_latency(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif /* KP_CMD_H */

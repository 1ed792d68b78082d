/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - one entry point per subcommand. Each gets the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit code: 0 ok, 1 failure, 2 usage.
 */
#ifndef KP_CMD_H
#define KP_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
int cmd_archive(int argc, char **argv);
int cmd_top(int argc, char **argv);

/*
 * kp_archive_file - store in the recording @input the symbols its samples need (kprof
 * archive): appended in place, or with @output, in a new file holding a copy of it. @symfs
 * (NULL for none) prefixes the binaries' paths; @alts (@nr_alts) are where the binaries of
 * processes in other mount namespaces can still be read (record's); @who names the command
 * in the summary line; @debuginfod (NULL for none) fetches the binaries missing here.
 * Returns the exit code, after saying what went wrong.
 */
struct kp_dso_alt;
struct kp_debuginfod;
int kp_archive_file(const char *input, const char *output, const char *symfs, const char *who,
		    const struct kp_dso_alt *alts, size_t nr_alts, struct kp_debuginfod *debuginfod);

/* kp_cmd_help - print a command's usage text to stdout; returns 0. */
int kp_cmd_help(const char *text);

/* kp_usage_error - "kprof <cmd>: <msg>" plus a pointer to 'kprof <cmd> --help'; returns 2. */
int kp_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What `kprof trace` and `kprof latency` share: the targets of a recording of their own, as
 * record takes them (-a, -p, -t, -u, -m, --time SECONDS), and the recording itself. */
struct kp_record_opts;
#define KP_OPT_TARGET_TIME 900	/* the getopt value of --time */

/* kp_cmd_target_opt - option @c (with @arg) into @o: 0, or the exit code after saying why
 * (2 for an option that is none of these). */
int kp_cmd_target_opt(const char *cmd, int c, const char *arg, struct kp_record_opts *o);

/* kp_cmd_target_check - a command, -a, -p, -t or -u, or -i FILE (@input), and -o (@output)
 * not with -i: 0, or 2 after saying what is wrong. */
int kp_cmd_target_check(const char *cmd, const struct kp_record_opts *o, const char *input,
			const char *output);

/* kp_cmd_record_into - record @ro (its events set) into @keep, or without one into a file of
 * its own in $TMPDIR that no name reaches (O_TMPFILE), so that nothing of it is left however
 * kprof ends: held by *@fd (the caller's: close() it after; -1 with @keep), and read through
 * *@path, "/proc/self/fd/N" (the caller's: free()). Returns the recorder's exit code, or 1
 * when no file could be made. */
int kp_cmd_record_into(struct kp_record_opts *ro, const char *keep, int argc, char **argv,
		       char **path, int *fd);

/* kp_cmd_recorded - whether kp_cmd_record_into() left a recording at @path (the recorder
 * said why when it did not). */
bool kp_cmd_recorded(const char *path);

/* kp_cmd_user_pids - append the pids of the processes of @user (a name or a number) to *@pids
 * (*@nr of them) for @cmd's -u, and set *@of_user; 0, or the exit code after saying why. */
int kp_cmd_user_pids(const char *cmd, const char *user, int **pids, size_t *nr, bool *of_user);

/* kp_cmd_idlist, kp_cmd_cpus - kp_idlist_parse() and kp_idlist_cpus() for @cmd's option:
 * 0, or the exit code after saying what is wrong (2 for a usage error). */
int kp_cmd_idlist(const char *cmd, const char *opt, const char *arg, bool ranges, long min,
		  long max, int **ids, size_t *nr);
int kp_cmd_cpus(const char *cmd, const char *arg, int **ids, size_t *nr);

/* kp_cmd_number - @s, @cmd's @what, as a number from @min to @max into *@out: 0, or 2 after
 * saying what is wrong. */
int kp_cmd_number(const char *cmd, const char *what, const char *s, uint64_t min, uint64_t max,
		  uint64_t *out);

/* kp_cmd_pages - @s, @cmd's -m: data pages per ring, a power of two that a ring may hold (at
 * most kp_cmd_pages_max()), into *@pages: 0, or 2 after saying what is wrong. */
int kp_cmd_pages(const char *cmd, const char *arg, size_t *pages);
size_t kp_cmd_pages_max(void);

/* kp_cmd_real - @s as a number from @min to @max into *@out, as kp_cmd_number(): not "nan",
 * not "inf", nothing after the number. */
int kp_cmd_real(const char *cmd, const char *what, const char *s, double min, double max,
		double *out);

#endif /* KP_CMD_H */

/* SPDX-License-Identifier: MIT */
/*
 * options.h - what every command's option parsing shares: its usage text on --help, its usage
 * errors, and the numbers and lists of its options, each said wrong in one way.
 */
#ifndef KP_OPTIONS_H
#define KP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a command returns after its --help: main() says where its manual is and exits 0. */
#define KP_CMD_HELP_SHOWN (-1)

/* kp_cmd_help - print a command's usage text (or a part of it) to stdout; returns
 * KP_CMD_HELP_SHOWN. */
int kp_cmd_help(const char *text);

/* kp_usage_error - "kprof <cmd>: <msg>" plus a pointer to 'kprof <cmd> --help'; returns 2. */
int kp_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* kp_cmd_idlist, kp_cmd_cpus - kp_idlist_parse() and kp_idlist_cpus() for @cmd's option:
 * 0, or the exit code after saying what is wrong (2 for a usage error). */
int kp_cmd_idlist(const char *cmd, const char *opt, const char *arg, bool ranges, long min,
		  long max, int **ids, size_t *nr);
int kp_cmd_cpus(const char *cmd, const char *arg, int **ids, size_t *nr);

/* kp_cmd_number - @s, @cmd's @what, as a number from @min to @max into *@out: 0, or 2 after
 * saying what is wrong. */
int kp_cmd_number(const char *cmd, const char *what, const char *s, uint64_t min, uint64_t max,
		  uint64_t *out);

/* kp_cmd_real - @s as a number from @min to @max into *@out, as kp_cmd_number(): not "nan",
 * not "inf", nothing after the number. */
int kp_cmd_real(const char *cmd, const char *what, const char *s, double min, double max,
		double *out);

#endif /* KP_OPTIONS_H */

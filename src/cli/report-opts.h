/* SPDX-License-Identifier: MIT */
/*
 * report-opts.h - the options of the commands that read a recording, each parsed and refused
 * in one way: --unwinder, --weight, --color and a count of functions (--top).
 */
#ifndef KP_REPORT_OPTS_H
#define KP_REPORT_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "report/unwind/unwind.h"

/* kp_parse_unwinder - the --unwinder @name into *@lib: 0, or 2 after a usage error for @cmd
 * that lists the known names. */
int kp_parse_unwinder(const char *cmd, const char *name, enum kp_unwind_lib *lib);

/* kp_cmd_weight - --weight @arg (period or samples) into *@by_samples: 0, or 2 after a usage
 * error for @cmd. */
int kp_cmd_weight(const char *cmd, const char *arg, bool *by_samples);

/* kp_cmd_color - --color @when (auto: when stdout is a terminal and no -o @output is given,
 * always, never) into *@on: 0, or 2 after a usage error for @cmd. */
int kp_cmd_color(const char *cmd, const char *when, const char *output, bool *on);

/* kp_cmd_parse_top - a count of functions (1 to 100000) for @cmd's option @opt: 0, or 2 after
 * a usage error. */
int kp_cmd_parse_top(const char *cmd, const char *opt, const char *arg, size_t *top);

#endif /* KP_REPORT_OPTS_H */

/* SPDX-License-Identifier: MIT */
/*
 * cmd-report.h - what the report command offers the other commands.
 */
#ifndef KP_CMD_REPORT_H
#define KP_CMD_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "report/tools/annotate.h"
#include "report/profile/report.h"
#include "report/unwind/unwind.h"
#include "report/views/view.h"

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

/*
 * kp_cmd_annotate_print - `kprof annotate`'s output of @rep (built with addresses), as @ao
 * and @po say, in JSON with @json, and on stderr what could not be annotated (names without
 * samples, with the nearest ones, and why a function was not disassembled). Returns 0, or 1
 * when a name was not found or nothing could be annotated.
 */
int kp_cmd_annotate_print(struct kp_report *rep, const struct kp_ann_opts *ao, bool json,
			  const struct kp_ann_print_opts *po, FILE *out);

/*
 * kp_report_tui - browse @rep (built with @ro; borrowed) on the terminal, from @vo's view
 * options, until q (report-tui.c). Returns 0, or 1 when the terminal cannot be driven.
 */
int kp_report_tui(struct kp_report *rep, const struct kp_report_opts *ro,
		  const struct kp_view_opts *vo);

#endif /* KP_CMD_REPORT_H */

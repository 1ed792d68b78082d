/* SPDX-License-Identifier: MIT */
/*
 * cmd-report.h - what the report command offers the other commands.
 */
#ifndef KP_CMD_REPORT_H
#define KP_CMD_REPORT_H

#include "report/unwind.h"

/* kp_parse_unwinder - the --unwinder @name into *@lib: 0, or 2 after a usage error for @cmd
 * that lists the known names. */
int kp_parse_unwinder(const char *cmd, const char *name, enum kp_unwind_lib *lib);

#endif /* KP_CMD_REPORT_H */

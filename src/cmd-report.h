/* SPDX-License-Identifier: MIT */
/*
 * cmd-report.h - what the report command offers the commands built on it (diff).
 */
#ifndef KP_CMD_REPORT_H
#define KP_CMD_REPORT_H

#include <stddef.h>

/*
 * kp_report_folded - the folded stacks of the recording @path (annotated: _[k], _[i], _[j]),
 * as `kprof report --folded --annotate` prints them, into *@text (owned by the caller,
 * free()) of *@len bytes. Returns 0, or 1 after saying what failed.
 */
int kp_report_folded(const char *path, char **text, size_t *len);

/* kp_is_recording - whether @path starts like a .kprof file. */
int kp_is_recording(const char *path);

#endif /* KP_CMD_REPORT_H */

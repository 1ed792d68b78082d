/* SPDX-License-Identifier: MIT */
/*
 * cmd-report.h - what the report command offers the commands built on it (diff).
 */
#ifndef KP_CMD_REPORT_H
#define KP_CMD_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "formats/kprof-format.h"
#include "report/dso.h"
#include "report/unwind.h"

/*
 * kp_report_folded - the folded stacks of the recording @path (annotated: _[k], _[i], _[j]),
 * as `kprof report --folded --annotate` prints them, into *@text (owned by the caller,
 * free()) of *@len bytes. @symfs and @dso (either may be NULL for the defaults) and
 * @unwinder (for stack copies) resolve the frames as the calling report does, so that two
 * sides of a diff name and unwind frames alike; @by_samples: the values are samples, not
 * periods (--weight).
 * Returns 0, or 1 after saying what failed.
 */
int kp_report_folded(const char *path, const char *symfs, const struct kp_dso_opts *dso,
		     enum kp_unwind_lib unwinder, bool by_samples, char **text, size_t *len);

/* kp_parse_unwinder - the --unwinder @name into *@lib: 0, or 2 after a usage error for @cmd
 * that lists the known names. */
int kp_parse_unwinder(const char *cmd, const char *name, enum kp_unwind_lib *lib);

/* kp_report_print_unwind - what unwinding while recording did (@u), and where its stacks stopped
 * early (@stops, paths in @strs), as `--stats` shows it. */
void kp_report_print_unwind(FILE *out, const struct kp_rec_unwind_stats *u,
			    const struct kp_unwind_stats *stops, const struct kp_strtab *strs);

/* kp_is_recording - whether @path starts like a .kprof file. */
int kp_is_recording(const char *path);

#endif /* KP_CMD_REPORT_H */

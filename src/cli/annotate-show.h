/* SPDX-License-Identifier: MIT */
/*
 * annotate-show.h - `kprof annotate`'s output of a report, which report --annotate and the
 * report browser's a key show too.
 */
#ifndef KP_ANNOTATE_SHOW_H
#define KP_ANNOTATE_SHOW_H

#include <stdbool.h>
#include <stdio.h>

#include "report/profile/report.h"
#include "report/tools/annotate.h"

/*
 * kp_annotate_show - `kprof annotate`'s output of @rep (built with addresses), as @ao and @po
 * say, in JSON with @json, and on stderr what could not be annotated (names without samples,
 * with the nearest ones, and why a function was not disassembled). Returns 0, or 1 when a
 * name was not found or nothing could be annotated.
 */
int kp_annotate_show(struct kp_report *rep, const struct kp_ann_opts *ao, bool json,
		     const struct kp_ann_print_opts *po, FILE *out);

#endif /* KP_ANNOTATE_SHOW_H */

/* SPDX-License-Identifier: MIT */
/*
 * summary.h - what a recording says when it ends: the samples and bytes written, the unwinding
 * done while recording, and what was lost, throttled or given back.
 */
#ifndef KP_RECORD_SUMMARY_H
#define KP_RECORD_SUMMARY_H

#include <limits.h>
#include <stdint.h>

#include "formats/kprof-format.h"
#include "online.h"
#include "opts.h"
#include "rotate.h"

/* What a recording wrote, for its summary: one file, or the files of --switch-output. */
struct kp_recorded {
	char what[PATH_MAX * 2 + 64];	/* "'FILE'", or "N files, 'FIRST' to 'LAST'" */
	struct kp_rotated f;
	uint64_t throttles, relabeled, foreign;	/* the rings' counts, summed */
	uint64_t switches;	/* the switch records (--off-cpu) */
};

/*
 * kp_record_summary - the lines that end a recording made as @o says, which wrote @wr, with
 * @us the unwinding done while recording by @online (NULL: none).
 */
void kp_record_summary(const struct kp_record_opts *o, const struct kp_online *online,
		       const struct kp_rec_unwind_stats *us, const struct kp_recorded *wr);

#endif /* KP_RECORD_SUMMARY_H */

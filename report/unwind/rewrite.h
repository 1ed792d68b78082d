/* SPDX-License-Identifier: MIT */
/*
 * rewrite.h - a recording's records into a writer, each sample's user stack copy replaced by
 * the call chain unwound from it: the transform the recorder's unwinding thread applies while
 * recording, and `kprof unwind` to a file (both through src/record/online.c).
 *
 * The records are replayed as a report replays them (session.h: time order, the processes'
 * maps as they were at each sample). A sample with a stack copy and a call chain is written
 * with the unwound chain's user part after PERF_CONTEXT_USER, no registers and no copy (the
 * same layout: kp_rec_encode_unwound()). Every other record goes out unchanged, with its
 * rounds. A sample keeps its copy when the caller says it is behind, when no frame could be
 * unwound, or when the result would not fit in a record: it is then unwound at report time.
 */
#ifndef KP_REWRITE_H
#define KP_REWRITE_H

#include <stdbool.h>

#include "formats/kprof-format.h"
#include "formats/writer.h"
#include "report/replay/session.h"
#include "unwind.h"

struct kp_rewrite {
	struct kp_writer *out;		/* borrowed */
	struct kp_session s;
	struct kp_unwinder *u;
	bool behind;			/* set by the caller: keep the copies as they are */
	struct kp_rec_unwind_stats st;	/* samples with a copy, unwound, kept (why) */
	uint64_t chain[KP_UNWIND_CHAIN_MAX];
};

/* kp_rewrite_init - records fed to @rw go to @out (borrowed, may be initialised later); the
 * binaries missing here are fetched by @debuginfod (borrowed; NULL: none is). */
struct kp_debuginfod;
void kp_rewrite_init(struct kp_rewrite *rw, struct kp_writer *out,
		     struct kp_debuginfod *debuginfod);

/* kp_rewrite_feed - one record, in file order (kp_session_feed()). */
void kp_rewrite_feed(struct kp_rewrite *rw, const struct kp_rec_header *rec);

/* kp_rewrite_end - end of input: what the session still holds goes out. */
void kp_rewrite_end(struct kp_rewrite *rw);

/*
 * kp_rewrite_stats - how the unwinding went into @st (an UNWIND_STATS record, with
 * @backlog_max and @cpu_ns, the caller's), and where its stacks stopped early written to the
 * output as UNWIND_DSO records.
 */
void kp_rewrite_stats(struct kp_rewrite *rw, uint64_t backlog_max, uint64_t cpu_ns,
		      struct kp_rec_unwind_stats *st);

void kp_rewrite_release(struct kp_rewrite *rw);

#endif /* KP_REWRITE_H */

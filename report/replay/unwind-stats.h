/* SPDX-License-Identifier: MIT */
/*
 * unwind-stats.h - how DWARF unwinding went: how many stacks stopped before their thread's
 * entry, why, and in which binary, whether the unwinding ran while recording (the file's
 * UNWIND_STATS and UNWIND_DSO records) or in the report; and the lines that tell the user
 * when a profile's stacks are truncated.
 */
#ifndef KP_UNWIND_STATS_H
#define KP_UNWIND_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "formats/kprof-format.h"
#include "formats/writer.h"
#include "report/base/hash.h"
#include "report/base/strtab.h"

/* Why a stack stopped before its thread's entry (_start, or a thread's start routine). */
enum kp_unwind_stop {
	KP_UNWIND_STOP_COPY,	 /* it needed stack beyond the copy: record with a larger SIZE */
	KP_UNWIND_STOP_CFI,	 /* no usable CFI, and no frame pointer to go on with */
	KP_UNWIND_STOP_MEMORY,	 /* the CFI led below the sampled SP: an unreadable stack */
	KP_UNWIND_STOP_DEPTH,	 /* more frames than an unwinder follows */
	KP_UNWIND_STOP_UNMAPPED, /* an address in no file-backed map, nor in named JIT code */
	KP_UNWIND_STOP_JIT_NONE, /* JIT code its JIT gave no unwinding info for, and no frame
				  * pointer to go on with */
	KP_UNWIND_STOP_JIT_BAD,	 /* JIT code whose unwinding info is unusable: damaged, not of
				  * that code, or a rule the unwinder does not follow */
	KP_UNWIND_NR_STOPS
};

/* kp_unwind_stop_str - "stack copy too small", "no usable CFI", ...; a static string. */
const char *kp_unwind_stop_str(enum kp_unwind_stop why);

/* The early stops whose last frame was in one binary. */
struct kp_unwind_dso_stops {
	uint32_t path;				/* the binary's path, in the owner's strings */
	uint64_t n[KP_UNWIND_NR_STOPS];
};

struct kp_unwind_stats {
	uint64_t samples;			/* samples with a stack copy, unwound */
	uint64_t failed;			/* of those, no further than their IP */
	uint64_t stops[KP_UNWIND_NR_STOPS];	/* of those, stopped early, by why */
	struct kp_unwind_dso_stops *dsos;	/* ... and where: owned, @nr_dsos of them */
	size_t nr_dsos, cap_dsos;
	struct kp_hash dso_ids;			/* path -> index in @dsos */
};

/* kp_unwind_stats_release - frees @st's per-binary table; @st reads as empty after it. */
void kp_unwind_stats_release(struct kp_unwind_stats *st);

/* kp_unwind_stats_stop - count @n early stops for @why, in the binary @path (a strtab id; 0
 * when the last frame was in none). */
void kp_unwind_stats_stop(struct kp_unwind_stats *st, enum kp_unwind_stop why, uint32_t path,
			  uint64_t n);

/* kp_unwind_stats_add - @from's counts added to @st's; paths are interned from @from_strs
 * into @strs. */
void kp_unwind_stats_add(struct kp_unwind_stats *st, struct kp_strtab *strs,
			 const struct kp_unwind_stats *from, const struct kp_strtab *from_strs);

/* kp_unwind_stats_early - stacks that stopped early, for any reason. */
uint64_t kp_unwind_stats_early(const struct kp_unwind_stats *st);

/*
 * The file's side. kp_unwind_stats_read() adds what an UNWIND_STATS or UNWIND_DSO record says
 * to @st (paths interned into @strs); other records are left alone. kp_unwind_stats_fill()
 * sets @rec's counts from @st (the rest of @rec is the caller's). kp_unwind_stats_write() adds
 * one UNWIND_DSO record per binary of @st to @w.
 */
void kp_unwind_stats_read(struct kp_unwind_stats *st, struct kp_strtab *strs,
			  const struct kp_rec_header *rec);
void kp_unwind_stats_fill(const struct kp_unwind_stats *st, struct kp_rec_unwind_stats *rec);
void kp_unwind_stats_write(const struct kp_unwind_stats *st, const struct kp_strtab *strs,
			   struct kp_writer *w);

/* The share of early stops above which a profile is said to be truncated, in percent. */
#define KP_UNWIND_TRUNCATED_PCT 1.0

/* The largest stack copy the kernel takes (attr.sample_stack_user: a multiple of 8 below 64 KiB). */
#define KP_STACK_COPY_MAX 65528u

/*
 * kp_unwind_truncation - when more than KP_UNWIND_TRUNCATED_PCT of @st's stacks stopped early,
 * the lines that say so, without a newline: @what (the share and the main reasons), @where (the
 * binaries responsible, "" if none) and @hint (the fix, "" if none is known). @copy is the size
 * of the stack copies they were unwound from (the largest of the recording's events; 0 when
 * unknown): a larger copy is suggested only below KP_STACK_COPY_MAX. False, touching nothing,
 * when the stacks are whole enough.
 */
bool kp_unwind_truncation(const struct kp_unwind_stats *st, const struct kp_strtab *strs,
			  uint32_t copy, char *what, char *where, char *hint, size_t size);

/* kp_unwind_stats_print - the whole breakdown, for --stats: one line of reasons, then one line
 * per binary, each starting with @prefix. */
void kp_unwind_stats_print(const struct kp_unwind_stats *st, const struct kp_strtab *strs,
			   FILE *out, const char *prefix);

#endif /* KP_UNWIND_STATS_H */

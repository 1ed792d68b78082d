/* SPDX-License-Identifier: MIT */
/*
 * unwind.h - the user part of a call chain, unwound with DWARF CFI from the registers and the
 * stack copy of a sample recorded with `--call-graph dwarf` (code built without frame
 * pointers has no other way to its callers). A frame without CFI is passed through its frame
 * pointer (saved RBP and return address above it), as code built with frame pointers but
 * without unwind tables needs.
 */
#ifndef KP_UNWIND_H
#define KP_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/replay/session.h"
#include "report/replay/unwind-stats.h"

#include "regs.h"

struct kp_unwinder;

/* The libraries that can unwind (`--unwinder`): both read the same registers and stack copy,
 * the binaries through the symbolizer's DSOs, and fill the same statistics. */
enum kp_unwind_lib {
	KP_UNWIND_LIBDW,	/* elfutils' libdwfl: the default, the faster of the two */
	KP_UNWIND_LIBUNWIND,	/* libunwind's remote interface, over each ELF's .eh_frame_hdr */
	KP_UNWIND_NR_LIBS
};

/* kp_unwind_lib_name - "libdw", "libunwind"; a static string. */
const char *kp_unwind_lib_name(enum kp_unwind_lib lib);

/* kp_unwind_lib_find - the library called @name into *@lib: 0, or -EINVAL for no such name. */
int kp_unwind_lib_find(const char *name, enum kp_unwind_lib *lib);

/*
 * kp_unwinder_new - an unwinder over @s's processes (borrowed) with @lib; never fails. It
 * keeps what repeats between samples (each process's address space until its maps change,
 * each binary's unwind tables), so it is meant to live as long as the session.
 */
struct kp_unwinder *kp_unwinder_new(struct kp_session *s, enum kp_unwind_lib lib);
void kp_unwinder_free(struct kp_unwinder *u);

/*
 * kp_unwind - the user frames of @smp in @t's address space into @pcs (at most @max): the IP
 * first, then return addresses. Returns how many; 0 when the sample has no registers and
 * stack copy (or they are unusable).
 */
size_t kp_unwind(struct kp_unwinder *u, const struct kp_sample *smp, const struct kp_thread *t,
		 uint64_t *pcs, size_t max);

/* Room for a whole chain: the kernel part (up to half of it), the marker, the user frames. */
#define KP_UNWIND_CHAIN_MAX 1200

/*
 * kp_unwind_chain - the whole call chain of @smp, a sample with a user stack copy, into @chain
 * (capacity @max, at least 2): its kernel part as recorded, PERF_CONTEXT_USER, then the user
 * frames @u unwinds (kp_unwind()). Returns the length; *@nr_user says how many user frames
 * came out. A report reads the chain as if the kernel had recorded it.
 */
size_t kp_unwind_chain(struct kp_unwinder *u, const struct kp_sample *smp,
		       const struct kp_thread *t, uint64_t *chain, size_t max, size_t *nr_user);

/*
 * kp_unwind_join - @smp with the chain kp_unwind_chain() makes, when it has a user stack copy
 * (kp_unwind_has_copy()): *@joined, a copy of it whose call chain is @chain, is returned; any
 * other sample is returned as it is. The result borrows @chain and the rest of @smp.
 */
const struct kp_sample *kp_unwind_join(struct kp_unwinder *u, const struct kp_sample *smp,
				       const struct kp_thread *t, struct kp_sample *joined,
				       uint64_t *chain, size_t max);

/* kp_unwinder_stats - what @u's unwinding came to so far; its paths are @s's strings. */
const struct kp_unwind_stats *kp_unwinder_stats(const struct kp_unwinder *u);

#endif /* KP_UNWIND_H */

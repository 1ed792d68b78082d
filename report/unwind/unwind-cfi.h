/* SPDX-License-Identifier: MIT */
/*
 * unwind-cfi.h - the libdw unwinder's fast path (unwind-cfi.c): each frame's step read once from
 * its binary's CFI and cached per (binary, offset), and a JIT frame's from its jitdump's
 * unwinding info. Private to report/unwind/.
 */
#ifndef KP_UNWIND_CFI_H
#define KP_UNWIND_CFI_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/replay/session.h"

#include "unwind-lib.h"

/*
 * kp_cfi_unwind - unwinds @smp in @proc's (one of @s's processes) address space @dwfl into
 * @pcs (at most @max) and returns how many, with *@end; or -1, having found a frame whose rule
 * it does not replay (libdw's unwinder must do the sample).
 */
struct kp_cfi_cache;
struct kp_cfi_cache *kp_cfi_cache_new(void);
void kp_cfi_cache_free(struct kp_cfi_cache *c);
int kp_cfi_unwind(struct kp_cfi_cache *c, struct kp_session *s, struct kp_proc *proc, Dwfl *dwfl,
		  const struct kp_sample *smp, uint64_t *pcs, size_t max, enum kp_unwind_end *end);

/*
 * kp_cfi_jit_step - the step out of the frame at @pc (the IP, or a return address minus one)
 * of @proc, where that is JIT code with unwinding info in its jitdump (libdw's unwinder has no
 * module there), applied to @regs (DWARF's order; RBP known when *@rbp_known) and @smp's stack
 * copy: 1 when @regs' RSP, RIP and RBP are the caller's (the others are not followed: take
 * them as unknown); 0 when @pc is in no such code; -1 when the stack ends there, *@end saying
 * whether early (unusable info, a rule not followed, or stack beyond the copy) or not.
 */
int kp_cfi_jit_step(struct kp_session *s, struct kp_proc *proc, const struct kp_sample *smp,
		    uint64_t pc, uint64_t *regs, bool *rbp_known, enum kp_unwind_end *end);

#endif /* KP_UNWIND_CFI_H */

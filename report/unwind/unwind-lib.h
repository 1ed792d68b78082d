/* SPDX-License-Identifier: MIT */
/*
 * unwind-lib.h - what an unwinding library implements for unwind.c (one row of its table),
 * and the helpers the libraries share. Private to report/unwind*.c.
 */
#ifndef KP_UNWIND_LIB_H
#define KP_UNWIND_LIB_H

#include <elfutils/libdwfl.h>
#include <libelf.h>
#include <stdbool.h>

#include "report/base/hash.h"

#include "unwind.h"

/* How an unwind ended: kp_unwind() counts the early ends, and tells the unmapped ones apart. */
enum kp_unwind_end {
	KP_UNWIND_END_DONE,	/* at the outermost frame, or at the frame limit */
	KP_UNWIND_END_EARLY,	/* before it: no CFI and no frame pointer, CFI not followed */
	KP_UNWIND_END_COPY,	/* before it, for stack beyond the copy */
	KP_UNWIND_END_MEMORY,	/* before it, for stack below the sampled SP: unreadable */
};

/**
 * struct kp_unwind_ops - one unwinding library
 * @name:   its --unwinder name
 * @new:    its state over @s's processes (borrowed); never fails
 * @free:   releases what @new returned
 * @unwind: the frames of @smp in @t's address space into @pcs (at most @max): the IP first,
 *          then return addresses, as found on the stack (not minus one); *@end says how the
 *          walk ended. kp_unwind() has checked that @smp has a 64-bit process's
 *          registers, the SP and IP among them (kp_unwind_has_copy()), and a non-empty
 *          stack copy.
 */
struct kp_unwind_ops {
	const char *name;
	void *(*new)(struct kp_session *s);
	void (*free)(void *priv);
	size_t (*unwind)(void *priv, const struct kp_sample *smp, const struct kp_thread *t,
			 uint64_t *pcs, size_t max, enum kp_unwind_end *end);
};

extern const struct kp_unwind_ops kp_unwind_libunwind;

/* DWARF's x86-64 register numbers, which libunwind's UNW_X86_64_* share: RAX RDX RCX RBX RSI
 * RDI RBP RSP R8-R15, and the return address column RIP. */
#define KP_UNWIND_NR_REGS 17
enum { KP_UNWIND_RBP = 6, KP_UNWIND_RSP = 7, KP_UNWIND_RIP = 16 };

/*
 * kp_unwind_user_reg - user register @reg (perf's x86-64 number: AX 0, BX, CX, DX, SI, DI, BP,
 * SP 7, IP 8, FLAGS, CS, SS, DS, ES, FS, GS, R8 16 ... R15 23) of @smp into *@val. The sample
 * holds the registers of its event's mask in the order of their numbers, so the one asked
 * for is found through the mask. False when the mask does not have it.
 */
bool kp_unwind_user_reg(const struct kp_sample *smp, unsigned reg, uint64_t *val);

/*
 * kp_unwind_regs - @smp's user registers in DWARF's order; returns which of them it has (bit
 * i for DWARF register i). Those it lacks are 0 in @regs and must be taken as unknown.
 */
uint32_t kp_unwind_regs(const struct kp_sample *smp, uint64_t regs[KP_UNWIND_NR_REGS]);

/*
 * kp_unwind_stack_word - the 8 bytes at @addr in @smp's stack copy, which starts at the
 * sampled SP. False when they are not all in it; then *@beyond is set if @addr is at or above
 * the SP (the stack went on past the copy), and left alone otherwise.
 */
bool kp_unwind_stack_word(const struct kp_sample *smp, uint64_t addr, uint64_t *val,
			  bool *beyond);

/*
 * kp_unwind_map_bias - the load bias of the ELF file @e mapped by @m: start - pgoff - p_vaddr
 * + p_offset of the PT_LOAD that holds the mapping's offset. False when none does.
 */
bool kp_unwind_map_bias(Elf *e, const struct kp_map *m, uint64_t *bias);

/*
 * The libdw unwinder's fast path (unwind-cfi.c): each frame's step read once from its binary's
 * CFI and cached per (binary, offset), and a JIT frame's from its jitdump's unwinding info.
 * kp_cfi_unwind() unwinds @smp in @proc's (one of @s's processes) address space @dwfl into
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

/* Address spaces kept at once: a machine recorded whole starts thousands of processes. */
#define KP_UNWIND_MAX_SPACES 64

/* What a process's address space is, for unwinding: its file-backed maps. */
struct kp_unwind_sig {
	uint64_t sig;		/* hash of (start, end, offset, binary) of each file-backed map */
	uint32_t maps_id;	/* the process's maps it was taken of (kp_proc.maps_id) */
	bool valid;
};

/*
 * Which address space each slot of a library's fixed array holds, least recently used first
 * out. A space is known by its content, not by its process: a forked child whose maps are its
 * parent's, or a hundred of them, share the parent's slot until one maps something else.
 */
struct kp_unwind_slots {
	struct kp_hash ids;	/* address space signature -> slot */
	uint64_t keys[KP_UNWIND_MAX_SPACES];
	uint64_t used[KP_UNWIND_MAX_SPACES];
	size_t nr;		/* slots in use */
	uint64_t clock;
	struct kp_unwind_sig *sigs; /* by process index: its signature, while its maps last */
	size_t nr_sigs;
};

/*
 * kp_unwind_slot - the slot of process @proc of @s. *@held says whether it already holds an
 * address space built for maps identical to @proc's (by this process or another); otherwise it
 * is a slot not used before, or the least recently used one, whose space the caller releases
 * before building @proc's there.
 */
size_t kp_unwind_slot(struct kp_unwind_slots *sl, const struct kp_session *s, uint32_t proc,
		      bool *held);

/* kp_unwind_slots_release - what the slots table allocated (not the spaces in the slots). */
void kp_unwind_slots_release(struct kp_unwind_slots *sl);

#endif /* KP_UNWIND_LIB_H */

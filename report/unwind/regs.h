/* SPDX-License-Identifier: MIT */
/*
 * regs.h - a sample's user registers and stack copy (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER) as the unwinders read them: which a sample has, each by perf's number
 * or in DWARF's order, and the stack words the copy holds.
 */
#ifndef KP_UNWIND_REGS_H
#define KP_UNWIND_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "report/replay/session.h"

/* perf's x86-64 numbers (asm/perf_regs.h) of the registers an unwind cannot start without */
#define KP_PERF_REG_SP 7
#define KP_PERF_REG_IP 8

/*
 * kp_unwind_has_copy - whether @smp has what unwinding needs: user registers of a 64-bit
 * process (PERF_SAMPLE_REGS_ABI_64: x86-64's CFI), among them the SP and the IP, whatever
 * else its event's mask holds (kprof and perf ask for 0xff0fff; `perf record --user-regs`
 * for more or fewer), and a stack copy with something in it (dyn_size, not size).
 */
static inline bool kp_unwind_has_copy(const struct kp_sample *smp)
{
	const uint64_t need = 1ull << KP_PERF_REG_SP | 1ull << KP_PERF_REG_IP;

	return smp->regs_user_abi == PERF_SAMPLE_REGS_ABI_64 &&
	       (smp->regs_user_mask & need) == need && smp->regs_user && smp->stack_dyn_size;
}

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

#endif /* KP_UNWIND_REGS_H */

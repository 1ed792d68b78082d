/* SPDX-License-Identifier: MIT */
/*
 * regs.c - a sample's user registers and stack copy as the unwinders read them (regs.h).
 */
#include "regs.h"

#include <string.h>

/* perf's x86-64 register numbers of DWARF's registers 0..16 (RAX RDX RCX RBX RSI RDI RBP RSP
 * R8-R15 RIP): AX 0, BX 1, CX 2, DX 3, SI 4, DI 5, BP 6, SP 7, IP 8, R8-R15 16-23 */
static const uint8_t perf_of_dwarf[KP_UNWIND_NR_REGS] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8
};

bool kp_unwind_user_reg(const struct kp_sample *smp, unsigned reg, uint64_t *val)
{
	uint64_t bit = reg < 64 ? 1ull << reg : 0;
	unsigned i;

	if (!(smp->regs_user_mask & bit) || !smp->regs_user)
		return false;
	i = (unsigned)__builtin_popcountll(smp->regs_user_mask & (bit - 1));
	if (i >= smp->nr_regs_user)
		return false;
	*val = smp->regs_user[i];
	return true;
}

uint32_t kp_unwind_regs(const struct kp_sample *smp, uint64_t regs[KP_UNWIND_NR_REGS])
{
	uint32_t known = 0;

	for (int i = 0; i < KP_UNWIND_NR_REGS; i++) {
		regs[i] = 0;
		if (kp_unwind_user_reg(smp, perf_of_dwarf[i], &regs[i]))
			known |= 1u << i;
	}
	return known;
}

/* Memory is what the kernel copied from the stack, at and above the sampled SP. */
bool kp_unwind_stack_word(const struct kp_sample *smp, uint64_t addr, uint64_t *val,
			  bool *beyond)
{
	uint64_t sp;

	if (!kp_unwind_user_reg(smp, KP_PERF_REG_SP, &sp))
		return false;
	if (addr < sp || addr - sp > smp->stack_dyn_size ||
	    addr - sp + sizeof(*val) > smp->stack_dyn_size) {
		if (addr >= sp)
			*beyond = true;
		return false;
	}
	memcpy(val, (const char *)smp->stack_data + (addr - sp), sizeof(*val));
	return true;
}

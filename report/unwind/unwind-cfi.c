/* SPDX-License-Identifier: MIT */
/*
 * unwind-cfi.c - the libdw unwinder's fast path: the step of each frame read once from its
 * binary's CFI through libdw, cached per (binary, file offset), and replayed on the registers
 * and the stack copy. Most frames of compiled code say only "the CFA is RSP or RBP plus N, the
 * return address and RBP are saved at CFA minus M, or RBP is unchanged"; those steps cost a
 * hash lookup and two reads instead of libdw interpreting the CIE and FDE again for every
 * frame of every sample. Any other rule (a CFA expression, a register other than RSP or RBP,
 * no CFI at all) sends the whole sample to libdw's own unwinder, which gives the answer.
 *
 * JIT code is in no binary, and libdw's unwinder knows nothing of it: its CFI is what its JIT
 * wrote into its jitdump (perfmap.c, which gives libdw's reading of it). Its steps are read
 * from there, here, for the fast path and for libdw's unwinder, which hands a JIT frame over
 * (kp_cfi_jit_step()); a rule other than the plain ones stops the stack there, counted.
 */
#include "unwind-cfi.h"

#include <dwarf.h>
#include <stdlib.h>

#include "formats/util.h"

enum {
	STEP_SIMPLE,
	STEP_OUTERMOST,
	STEP_COMPLEX,	/* a rule not replayed here: libdw's unwinder does the sample */
	STEP_NONE,	/* no binary, and no JIT code with unwinding info: libdw tries the frame
			 * pointer */
	STEP_BAD,	/* JIT code whose unwinding info is unusable, or has such a rule: the
			 * stack stops there */
};
enum { RBP_SAME, RBP_SAVED, RBP_LOST };

struct step {
	uint8_t kind;		/* STEP_* */
	uint8_t cfa_reg;	/* KP_UNWIND_RSP or KP_UNWIND_RBP */
	uint8_t rbp;		/* RBP_*: the caller's RBP */
	int32_t cfa_off;	/* CFA = cfa_reg + cfa_off */
	int32_t ra_off;		/* the return address is at CFA + ra_off */
	int32_t rbp_off;	/* with RBP_SAVED, the caller's RBP is at CFA + rbp_off */
};

struct kp_cfi_cache {
	struct kp_hash ids;	/* (DSO index, file offset) -> index into steps */
	struct step *steps;
	size_t nr, cap;
};

struct kp_cfi_cache *kp_cfi_cache_new(void)
{
	struct kp_cfi_cache *c = kp_xcalloc(1, sizeof(*c));

	kp_hash_init(&c->ids);
	return c;
}

void kp_cfi_cache_free(struct kp_cfi_cache *c)
{
	if (!c)
		return;
	kp_hash_release(&c->ids);
	free(c->steps);
	free(c);
}

/* "saved at CFA + N": DW_OP_call_frame_cfa, then DW_OP_plus_uconst N unless N is 0 */
static bool cfa_offset(const Dwarf_Op *ops, size_t n, int32_t *off)
{
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (n != 2 || ops[0].atom != DW_OP_call_frame_cfa || ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = (int32_t)(int64_t)ops[1].number;
	return (int64_t)*off == (int64_t)ops[1].number;
}

/* The step of the CFI row @f. */
static struct step frame_step(Dwarf_Frame *f)
{
	struct step st = { .kind = STEP_COMPLEX };
	Dwarf_Op mem[3], *ops;
	size_t n;

	/* the CFA: DW_OP_bregx REG OFFSET */
	if (dwarf_frame_cfa(f, &ops, &n) != 0 || n != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != KP_UNWIND_RSP && ops[0].number != KP_UNWIND_RBP) ||
	    (int64_t)(int32_t)ops[0].number2 != (int64_t)ops[0].number2)
		return st;
	st.cfa_reg = (uint8_t)ops[0].number;
	st.cfa_off = (int32_t)ops[0].number2;
	/* the return address: undefined (no ops, a buffer) in the outermost frame */
	if (dwarf_frame_register(f, KP_UNWIND_RIP, mem, &ops, &n) != 0)
		return st;
	if (n == 0 && ops) {
		st.kind = STEP_OUTERMOST;
		return st;
	}
	if (!cfa_offset(ops, n, &st.ra_off))
		return st;
	/* the caller's RBP: unchanged (no ops, NULL), saved, or undefined */
	if (dwarf_frame_register(f, KP_UNWIND_RBP, mem, &ops, &n) != 0)
		return st;
	if (n == 0)
		st.rbp = ops ? RBP_LOST : RBP_SAME;
	else if (cfa_offset(ops, n, &st.rbp_off))
		st.rbp = RBP_SAVED;
	else
		return st;
	st.kind = STEP_SIMPLE;
	return st;
}

/*
 * The step of the frame at module address @pc, from libdw's reading of @mod's CFI: .eh_frame,
 * the file's own .debug_frame, then that of the binary @dso's separate debug file (which the
 * per-process Dwfl does not load: the symbolizer's Dwfl reads it once for every process).
 */
static struct step read_step(Dwfl_Module *mod, Dwarf_Addr pc, struct kp_dso *dso)
{
	struct step st = { .kind = STEP_COMPLEX };
	Dwarf_Addr bias, load;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Frame *f = NULL;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &f) != 0) {
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if ((!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &f) != 0) &&
		    (!dwfl_module_getelf(mod, &load) || kp_dso_debug_frame(dso, pc - load, &f)))
			return st; /* no CFI: libdw's frame-pointer fallback decides */
	}
	st = frame_step(f);
	free(f);
	return st;
}

/*
 * The step of the JIT code at @pc of @proc, from its jitdump's unwinding info (read anew each
 * time: JIT code comes and goes at the same addresses); STEP_NONE where there is none.
 */
static struct step jit_step(struct kp_session *s, struct kp_proc *proc, uint64_t pc)
{
	const struct kp_perfmap_ent *e = kp_session_jit(s, proc, pc);
	struct step st = { .kind = STEP_NONE };
	Dwarf_Frame *f;

	if (!e || !e->unwind)
		return st;
	if (kp_perfmap_frame(e, pc, &f)) {
		st.kind = STEP_BAD;
		return st;
	}
	st = frame_step(f);
	free(f);
	if (st.kind == STEP_COMPLEX) /* libdw's unwinder would not follow it either */
		st.kind = STEP_BAD;
	return st;
}

/* The step at @pc in @proc's address space @dwfl: of the binary there, or of JIT code in an
 * anonymous map; STEP_NONE for neither. */
static struct step step_at(struct kp_cfi_cache *c, struct kp_session *s, struct kp_proc *proc,
			   Dwfl *dwfl, uint64_t pc)
{
	const struct kp_map *m = kp_model_map(proc, pc);
	struct step none = { .kind = STEP_NONE };
	Dwfl_Module *mod;
	uint64_t key, *idx;

	if (!m)
		return none;
	if (m->flags & KP_MAP_ANON)
		return jit_step(s, proc, pc);
	key = (uint64_t)m->dso << 44 | (pc - m->start + m->pgoff); /* offsets < 16 TiB */
	idx = kp_hash_get(&c->ids, key);
	if (idx) /* the same binary at the same offset: the same step, in any process */
		return c->steps[*idx];
	if (!(mod = dwfl_addrmodule(dwfl, pc)))
		return none;
	KP_GROW(c->steps, c->cap, c->nr + 1);
	c->steps[c->nr] = read_step(mod, pc, s->dso_list[m->dso].dso);
	kp_hash_put(&c->ids, key, c->nr);
	return c->steps[c->nr++];
}

/*
 * @st applied to @regs (RBP known when *@rbp_known) and @smp's stack copy: 1, they are the
 * caller's; 0, the chain ends here (a return address of 0, as libdw ends it); -1, the copy does
 * not hold what it reads (*@end says where).
 */
static int apply_step(const struct step *st, const struct kp_sample *smp, uint64_t *regs,
		      bool *rbp_known, enum kp_unwind_end *end)
{
	uint64_t cfa = regs[st->cfa_reg] + (uint64_t)(int64_t)st->cfa_off, ra;
	bool beyond = false;

	if (!kp_unwind_stack_word(smp, cfa + (uint64_t)(int64_t)st->ra_off, &ra, &beyond)) {
		*end = beyond ? KP_UNWIND_END_COPY : KP_UNWIND_END_MEMORY;
		return -1;
	}
	/* a saved RBP that cannot be read is unknown from here on, as in libdw */
	if (st->rbp == RBP_SAVED)
		*rbp_known = kp_unwind_stack_word(smp, cfa + (uint64_t)(int64_t)st->rbp_off,
						  &regs[KP_UNWIND_RBP], &beyond);
	else if (st->rbp == RBP_LOST)
		*rbp_known = false;
	if (!ra)
		return 0;
	regs[KP_UNWIND_RSP] = cfa;
	regs[KP_UNWIND_RIP] = ra;
	return 1;
}

int kp_cfi_unwind(struct kp_cfi_cache *c, struct kp_session *s, struct kp_proc *proc, Dwfl *dwfl,
		  const struct kp_sample *smp, uint64_t *pcs, size_t max, enum kp_unwind_end *end)
{
	uint64_t regs[KP_UNWIND_NR_REGS];
	bool rbp_known;
	size_t n = 0;

	rbp_known = kp_unwind_regs(smp, regs) >> KP_UNWIND_RBP & 1;
	*end = KP_UNWIND_END_DONE;
	while (n < max) {
		struct step st;

		pcs[n++] = regs[KP_UNWIND_RIP];
		/* a return address is looked up at the call: the address before it */
		st = step_at(c, s, proc, dwfl, regs[KP_UNWIND_RIP] - (n > 1));
		if (st.kind == STEP_NONE) /* libdw tries the frame pointer there */
			return -1;
		if (st.kind == STEP_OUTERMOST)
			return (int)n;
		if (st.kind == STEP_BAD) {
			*end = KP_UNWIND_END_EARLY;
			return (int)n;
		}
		if (st.kind == STEP_COMPLEX || (st.cfa_reg == KP_UNWIND_RBP && !rbp_known))
			return -1;
		if (apply_step(&st, smp, regs, &rbp_known, end) <= 0)
			return (int)n;
	}
	return (int)n;
}

int kp_cfi_jit_step(struct kp_session *s, struct kp_proc *proc, const struct kp_sample *smp,
		    uint64_t pc, uint64_t *regs, bool *rbp_known, enum kp_unwind_end *end)
{
	const struct kp_map *m = kp_model_map(proc, pc);
	struct step st;

	if (!m || !(m->flags & KP_MAP_ANON))
		return 0;
	st = jit_step(s, proc, pc);
	*end = KP_UNWIND_END_DONE;
	switch (st.kind) {
	case STEP_NONE:
		return 0;
	case STEP_OUTERMOST:
		return -1;
	case STEP_SIMPLE:
		if (st.cfa_reg != KP_UNWIND_RBP || *rbp_known)
			break;
		/* fallthrough */
	default:
		*end = KP_UNWIND_END_EARLY;
		return -1;
	}
	return apply_step(&st, smp, regs, rbp_known, end) > 0 ? 1 : -1;
}

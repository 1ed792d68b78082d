/* SPDX-License-Identifier: MIT */
/*
 * unwind-lib.h - what an unwinding library implements for unwind.c (one row of its table),
 * and what the libraries share besides the registers (regs.h): a mapped binary's load bias, the
 * slots of their address spaces (unwind-lib.c). Private to report/unwind/.
 */
#ifndef KP_UNWIND_LIB_H
#define KP_UNWIND_LIB_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"
#include "report/replay/session.h"

#include "regs.h"

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

/*
 * kp_unwind_map_bias - the load bias of the ELF file @e mapped by @m: start - pgoff - p_vaddr
 * + p_offset of the PT_LOAD that holds the mapping's offset. False when none does.
 */
bool kp_unwind_map_bias(Elf *e, const struct kp_map *m, uint64_t *bias);

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

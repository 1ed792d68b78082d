/* SPDX-License-Identifier: MIT */
/*
 * dso-fde.h - the functions a binary's unwind tables delimit: each FDE of its .eh_frame or
 * .debug_frame covers one function, exactly, so a stripped binary's code still falls into
 * functions, each known by its start (dso.c names them sub_HEX@DSO). The entries are read by
 * libdw (dwarf_next_cfi()), which leaves two addresses encoded, decoded here; an FDE counts
 * only where libdw's own lookup of the CFI (dwarf_cfi_addrframe(), which unwinding uses)
 * agrees with it.
 */
#ifndef KP_DSO_FDE_H
#define KP_DSO_FDE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The range of one FDE, [start, end) in ELF addresses. */
struct kp_fde {
	uint64_t start, end;
};

/* The FDEs of one section, sorted by start. */
struct kp_fde_table {
	struct kp_fde *v;
	size_t nr;
};

/* The FDEs of one binary's .eh_frame and .debug_frame, read on first need. Zeroed: unread. */
struct kp_fdes {
	struct kp_fde_table eh, debug;
	bool read;
};

/*
 * kp_fdes_func - the FDE whose range is the function holding ELF address @vaddr of module
 * @mod (NULL: none), whose addresses are ELF addresses + @bias: .eh_frame's, else the main
 * file's own .debug_frame's. NULL when no FDE holds it, or the one that does is not plausible
 * (empty, beyond the executable PT_LOADs' file bytes, overlapping another) or libdw's lookup
 * of the CFI at @vaddr does not find its rows there. The tables are read from the main file
 * the first time libdw finds CFI at an address asked for (or, for .debug_frame, the first
 * time one is asked for at all); borrowed until kp_fdes_release().
 */
const struct kp_fde *kp_fdes_func(struct kp_fdes *t, Dwfl_Module *mod, uint64_t bias,
				  uint64_t vaddr);

/* kp_fdes_release - the memory freed, @t unread again. */
void kp_fdes_release(struct kp_fdes *t);

#endif /* KP_DSO_FDE_H */

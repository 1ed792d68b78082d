/* SPDX-License-Identifier: MIT */
/*
 * dso-dwarf.h - the frames at an address from a binary's DWARF (its own, or a separate debug
 * file's that libdw found), for the DSO table (dso.c). Names and files are borrowed from the
 * Dwfl: the caller interns them.
 */
#ifndef KP_DSO_DWARF_H
#define KP_DSO_DWARF_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>

#include "report/base/hash.h"
#include "symtab.h"

struct kp_dwarf_scope;
struct kp_dwarf_iv;

/*
 * struct kp_dwarf_scopes - the code scopes of a module's CUs (functions, their inlined
 * instances, lexical blocks), each CU's read from its DIEs as lookups reach it: the scopes
 * under one, once read, by address, so that the scopes around an address are a binary search
 * at each level, not a walk of the DIEs. Zeroed is empty; as long-lived as the module.
 */
struct kp_dwarf_scopes {
	struct kp_dwarf_scope *scopes;
	size_t nr_scopes, cap_scopes;
	struct kp_dwarf_iv *ivs;	/* each expanded scope's children, by address */
	size_t nr_ivs, cap_ivs;
	struct kp_hash cus;		/* a CU's DIE (its address) -> its scope */
};

void kp_dwarf_scopes_release(struct kp_dwarf_scopes *ix);

/*
 * kp_dwarf_chain - fill @chain (KP_DSO_MAX_FRAMES long) from @mod's DWARF, its scopes in @ix:
 * the inlined instances around module address @addr, innermost first, then the subprogram
 * holding them; with @srcline, each frame's file and line (an outer frame's at its inlined
 * child's call site). Where scopes overlap, the first in DIE order holds the address. Returns
 * the number of frames, 0 when the DWARF has no function there.
 */
int kp_dwarf_chain(struct kp_dwarf_scopes *ix, Dwfl_Module *mod, Dwarf_Addr addr, bool srcline,
		   struct kp_sym_frame *chain);

/* kp_dwarf_srcline - the file and line of module address @addr into @f, when the line table
 * has them. */
void kp_dwarf_srcline(Dwfl_Module *mod, Dwarf_Addr addr, struct kp_sym_frame *f);

#endif /* KP_DSO_DWARF_H */

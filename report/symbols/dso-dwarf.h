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

#include "symtab.h"

/*
 * kp_dwarf_chain - fill @chain (KP_DSO_MAX_FRAMES long) from @mod's DWARF: the inlined
 * instances around module address @addr, innermost first, then the subprogram holding them;
 * with @srcline, each frame's file and line (an outer frame's at its inlined child's call
 * site). Returns the number of frames, 0 when the DWARF has no function there.
 */
int kp_dwarf_chain(Dwfl_Module *mod, Dwarf_Addr addr, bool srcline, struct kp_sym_frame *chain);

/* kp_dwarf_srcline - the file and line of module address @addr into @f, when the line table
 * has them. */
void kp_dwarf_srcline(Dwfl_Module *mod, Dwarf_Addr addr, struct kp_sym_frame *f);

#endif /* KP_DSO_DWARF_H */

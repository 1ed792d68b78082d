/* SPDX-License-Identifier: MIT */
/*
 * dso-plt.h - the PLT entries of an x86-64 binary as function symbols, named as perf names
 * them ("func@plt"), which its symbol tables do not name.
 */
#ifndef KP_DSO_PLT_H
#define KP_DSO_PLT_H

#include <libelf.h>
#include <stdint.h>

#include "symtab.h"

/* kp_plt_syms - add to @st a symbol per PLT entry of @elf (nothing unless it is x86-64), at
 * its ELF address + @bias (the module's), named in @names. */
void kp_plt_syms(Elf *elf, uint64_t bias, struct kp_symtab *st, struct kp_symnames *names);

#endif /* KP_DSO_PLT_H */

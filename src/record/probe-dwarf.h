/* SPDX-License-Identifier: MIT */
/*
 * probe-dwarf.h - what a probe fetches, named from the binary's DWARF (libdw): a function and
 * its lines, and each variable's location at the probed address turned into a fetch argument
 * of a tracefs uprobe event, with the type its DWARF type gives ("x=%di:s32",
 * "+8(+0(%di)):u64", "+0(%si):string").
 *
 * A location is what DWARF says at that address: a register (DW_OP_regN), memory at a register
 * plus an offset (DW_OP_bregN, DW_OP_fbreg through the frame base, the CFA from the CFI), a
 * static variable (DW_OP_addr, fetched as @+OFFSET of the file), a constant, or the value a
 * register held at the function's entry where the probe is there. Anything else (a value
 * computed from several, in pieces, optimized out) is refused with what DWARF said.
 *
 * x86-64 only (its DWARF register numbers); elsewhere every variable is refused.
 */
#ifndef KP_PROBE_DWARF_H
#define KP_PROBE_DWARF_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A binary's DWARF, its own or a separate debug file's (report/symbols/debuginfo.h). */
struct kp_pdw {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dbg;
	Dwarf_CFI *cfi[2]; /* .eh_frame's and .debug_frame's, either may be NULL */
	char *file;        /* where the DWARF came from (owned) */
};

/* A function of it: the DIE of its code (not an abstract or inlined instance). */
struct kp_pdw_func {
	Dwarf_Die die, cu;
	uint64_t entry;       /* its entry */
	int decl_line;        /* 0: unknown */
	bool optimized;       /* its CU was compiled with -O1 or more (DW_AT_producer) */
};

/*
 * kp_pdw_open - the DWARF of the ELF file @path (opened again through @fd, which is dup'ed).
 * Returns 0, -ENODATA when neither the file nor a debug file found for it has any, or -errno.
 * kp_pdw_close() in every case.
 */
int kp_pdw_open(const char *path, int fd, struct kp_pdw *d);
void kp_pdw_close(struct kp_pdw *d);

/*
 * kp_pdw_func - the function @name whose code starts at @entry (0: any; the first found).
 * Returns 0, or -ENOENT.
 */
int kp_pdw_func(struct kp_pdw *d, const char *name, uint64_t entry, struct kp_pdw_func *f);

/* kp_pdw_func_at - the function whose code holds address @addr. Returns 0, or -ENOENT. */
int kp_pdw_func_at(struct kp_pdw *d, uint64_t addr, struct kp_pdw_func *f);

/*
 * kp_pdw_line - the first address of line @line of @f's source file inside @f (perf probe's
 * FUNC:RLN is @f's declaration line + RLN). Returns 0, or -ENOENT, with the lines of @f that
 * have code in @lines (up to @cap of them, *@nr written) for the error.
 */
int kp_pdw_line(struct kp_pdw *d, const struct kp_pdw_func *f, int line, uint64_t *addr,
		int *lines, size_t cap, size_t *nr);

/*
 * kp_pdw_body - where @f's body starts after its prologue: the second address its line table
 * gives inside it (the first that DW_LNS_set_prologue_end marks, where one does). Unoptimized
 * code stores its arguments to the stack there, where their DWARF locations point, as perf
 * probe does for such code. Returns 0, or -ENOENT (then the entry is used).
 */
int kp_pdw_body(struct kp_pdw *d, const struct kp_pdw_func *f, uint64_t *addr);

/*
 * kp_pdw_var - the fetch argument of variable expression @expr ("x", "p->next->len", "s.a[2]",
 * or "$retval", the value @f returns, for a return probe) at address @pc of @f, in *@fetch,
 * and its type in *@type ("s32", "x64", "string"), both owned by the caller. @cast is the type
 * asked for (NULL: from DWARF); "string" reads the NUL-terminated string a char pointer points
 * at, or a char array. @file_delta turns a static variable's address into the file offset that
 * @+OFFSET takes (file offset of @pc minus @pc). Returns 0, or -EINVAL with a sentence in @why
 * (@len bytes): no such variable (the ones there listed), not available there, a type that is
 * no scalar, a field that does not exist.
 */
int kp_pdw_var(struct kp_pdw *d, const struct kp_pdw_func *f, uint64_t pc, int64_t file_delta,
	       const char *expr, const char *cast, char **fetch, char **type, char *why,
	       size_t len);

/*
 * kp_pdw_params - the names of @f's parameters (perf's $params), ", "-separated, owned by the
 * caller ("" when it has none).
 */
char *kp_pdw_params(struct kp_pdw *d, const struct kp_pdw_func *f);

#endif /* KP_PROBE_DWARF_H */

/* SPDX-License-Identifier: MIT */
/*
 * dso-dwarf.c - the frames at an address from a binary's DWARF: its inlined calls and the
 * function holding them, and source lines (see dso-dwarf.h).
 */
#include "dso-dwarf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#define MAX_NESTING 256

/* A DWARF function name: the linkage name (demanglable) when there is one, else DW_AT_name. */
static const char *die_func_name(Dwarf_Die *die)
{
	Dwarf_Attribute mem;
	const char *s;

	/* _integrate follows DW_AT_abstract_origin and DW_AT_specification to the declaration. */
	s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &mem));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &mem));
	return s ? s : dwarf_diename(die);
}

/* The call site of an inlined instance: where the frame it was inlined into stands. */
static void call_site(Dwarf_Die *inl, struct kp_sym_frame *f)
{
	Dwarf_Attribute mem;
	Dwarf_Word w;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;

	if (!dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &mem), &w) && w <= UINT32_MAX)
		f->line = (uint32_t)w;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &mem), &w) ||
	    !dwarf_diecu(inl, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) ||
	    w >= nfiles)
		return;
	f->file = dwarf_filesrc(files, w, NULL, NULL);
}

void kp_dwarf_srcline(Dwfl_Module *mod, Dwarf_Addr addr, struct kp_sym_frame *f)
{
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	int line = 0;

	if (!l)
		return;
	f->file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	f->line = line > 0 ? (uint32_t)line : 0;
}

static bool is_code_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

/*
 * Descend from @parent to the innermost code scope holding @pc, filling @path outermost
 * first; returns the new depth. Only namespaces (GCC nests C++ definitions there) and scopes
 * holding @pc are entered, so one lookup costs a walk over the CU's top-level DIEs and one
 * function's tree: dwarf_getscopes() + dwarf_getscopes_die() walk the CU three times.
 * @level bounds the recursion on hostile files (namespaces nested without end).
 */
static int scope_path(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path, int depth, int level)
{
	Dwarf_Die c;

	if (depth >= KP_DSO_MAX_FRAMES || level >= MAX_NESTING || dwarf_child(parent, &c))
		return depth;
	do {
		int tag = dwarf_tag(&c), sub;

		if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			sub = scope_path(&c, pc, path, depth, level + 1);
			if (sub > depth)
				return sub;
		} else if (is_code_scope(tag) && dwarf_haspc(&c, pc) > 0) {
			path[depth] = c;
			return scope_path(&c, pc, path, depth + 1, level + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return depth;
}

int kp_dwarf_chain(Dwfl_Module *mod, Dwarf_Addr addr, bool srcline, struct kp_sym_frame *chain)
{
	Dwarf_Die path[KP_DSO_MAX_FRAMES], *prev = NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	int depth = cu ? scope_path(cu, addr - bias, path, 0, 0) : 0;
	int n = 0;

	for (int i = depth - 1; i >= 0; i--) {
		int tag = dwarf_tag(&path[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		chain[n] = (struct kp_sym_frame){ .func = die_func_name(&path[i]),
						  .inlined = tag == DW_TAG_inlined_subroutine };
		if (srcline && !prev)
			kp_dwarf_srcline(mod, addr, &chain[n]);
		else if (srcline)
			call_site(prev, &chain[n]);
		n++;
		prev = &path[i];
		if (tag == DW_TAG_subprogram)
			break;
	}
	return n;
}

/* SPDX-License-Identifier: MIT */
/*
 * The frames at every address of whole functions, from the DSO table (report/symbols/
 * dso-dwarf.c: each CU's code scopes read once and looked up by address), against the DWARF
 * walked here for each address on its own with libdw: from its CU down, at each level into the
 * first code scope that dwarf_haspc() says holds it (namespaces looked into), then its inlined
 * instances and the function holding them, innermost first, their names, and the file and
 * line of each: the line table's for the innermost, the call site for the others. Each
 * binary's addresses are looked up first to last in one table and last to first in another,
 * so the scopes are read in two orders. The fixtures are built -O2 -g: fixture-inline's
 * function holds always_inline functions three deep, inlined many times over scattered
 * ranges; fixture-c, fixture-cxx (a namespace, a class) and the C++ inline workload.
 *
 *   test-dwarf [BINARY [FUNCTION...]]    another binary: its functions, or those named
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/util.h"
#include "report/symbols/dso.h"
#include "tests/tap.h"

#define MAX_NESTING 256

/* A binary: its ELF, its DWARF, and its function symbols (those named, when some are). */
struct bin {
	int fd;
	Elf *elf;
	Dwarf *dw;
	GElf_Sym *funcs;
	const char **names;
	size_t nr_funcs;
};

static bool wanted(const char *name, char **only, int nr_only)
{
	for (int i = 0; i < nr_only; i++)
		if (!strcmp(name, only[i]))
			return true;
	return !nr_only;
}

static bool bin_open(struct bin *b, const char *path, char **only, int nr_only)
{
	memset(b, 0, sizeof(*b));
	if ((b->fd = open(path, O_RDONLY)) < 0)
		return false;
	elf_version(EV_CURRENT);
	b->elf = elf_begin(b->fd, ELF_C_READ, NULL);
	b->dw = dwarf_begin(b->fd, DWARF_C_READ);
	for (Elf_Scn *scn = NULL; b->elf && (scn = elf_nextscn(b->elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_size || s.st_shndx == SHN_UNDEF ||
			    !(n = elf_strptr(b->elf, sh.sh_link, s.st_name)) || !wanted(n, only, nr_only))
				continue;
			b->funcs = kp_xrealloc(b->funcs, (b->nr_funcs + 1) * sizeof(*b->funcs));
			b->names = kp_xrealloc(b->names, (b->nr_funcs + 1) * sizeof(*b->names));
			b->funcs[b->nr_funcs] = s;
			b->names[b->nr_funcs++] = n;
		}
	}
	return b->elf && b->dw && b->nr_funcs;
}

static void bin_close(struct bin *b)
{
	free(b->funcs);
	free(b->names);
	if (b->dw)
		dwarf_end(b->dw);
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
}

/* The file offset of ELF address @vaddr, from the PT_LOAD holding it. */
static bool file_off(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

/* --- the frames at one address, walked for it alone ------------------------------------------ */

static bool code_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

/* The code scopes holding @pc below @parent into @path, outermost first; the new depth. */
static int walk(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path, int depth, int level)
{
	Dwarf_Die c;

	if (depth >= KP_DSO_MAX_FRAMES || level >= MAX_NESTING || dwarf_child(parent, &c))
		return depth;
	do {
		int tag = dwarf_tag(&c), sub;

		if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			if ((sub = walk(&c, pc, path, depth, level + 1)) > depth)
				return sub;
		} else if (code_scope(tag) && dwarf_haspc(&c, pc) > 0) {
			path[depth] = c;
			return walk(&c, pc, path, depth + 1, level + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return depth;
}

struct want {
	const char *func, *file;
	unsigned line;
	bool inlined;
};

static const char *func_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));

	return s ? s : dwarf_diename(die);
}

/* The frames at @pc, innermost first: how many, 0 when no DWARF function holds it (then only
 * its line, in want[0]); -1 when no CU does (code built without -g: the line table's answer
 * there, libdwfl's, is not the one under test). */
static int frames_at(Dwarf *dw, Dwarf_Addr pc, struct want *w)
{
	Dwarf_Die cu, path[KP_DSO_MAX_FRAMES], *inner = NULL;
	Dwarf_Line *l;
	int depth, n = 0, line = 0;

	memset(w, 0, sizeof(*w));
	if (!dwarf_addrdie(dw, pc, &cu))
		return -1;
	if ((l = dwarf_getsrc_die(&cu, pc)) && (w[0].file = dwarf_linesrc(l, NULL, NULL)) &&
	    !dwarf_lineno(l, &line))
		w[0].line = line > 0 ? (unsigned)line : 0;
	depth = walk(&cu, pc, path, 0, 0);
	for (int i = depth - 1; i >= 0; i--) {
		int tag = dwarf_tag(&path[i]);
		Dwarf_Attribute a;
		Dwarf_Word v;
		Dwarf_Files *files;
		size_t nr;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		if (inner) {	/* this frame stands at its inlined child's call site */
			w[n] = (struct want){ 0 };
			if (!dwarf_formudata(dwarf_attr(inner, DW_AT_call_line, &a), &v))
				w[n].line = (unsigned)v;
			if (!dwarf_formudata(dwarf_attr(inner, DW_AT_call_file, &a), &v) &&
			    !dwarf_getsrcfiles(&cu, &files, &nr) && v < nr)
				w[n].file = dwarf_filesrc(files, v, NULL, NULL);
		}
		w[n].func = func_name(&path[i]);
		w[n++].inlined = tag == DW_TAG_inlined_subroutine;
		inner = &path[i];
		if (tag == DW_TAG_subprogram)
			break;
	}
	return n;
}

/* --- the comparison ------------------------------------------------------------------------ */

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether the table's @n frames @f are the walk's @m frames @w (the outermost function's name
 * is the ELF symbol's, not compared). */
static bool same(const struct kp_sym_frame *f, int n, const struct want *w, int m)
{
	if (m < 0)
		return n == 1 && !f[0].inlined;
	if (n != (m ? m : 1))
		return false;
	for (int i = 0; i < n; i++) {
		if (f[i].line != w[i].line || !same_str(f[i].file, w[i].file) ||
		    f[i].inlined != w[i].inlined || (i < n - 1 && !same_str(f[i].func, w[i].func)))
			return false;
	}
	return true;
}

static void show(const char *what, uint64_t pc, int n, const char *func, const char *file,
		 unsigned line, bool inlined, int i)
{
	printf("#   0x%llx %s frame %d/%d: %s %s:%u%s\n", (unsigned long long)pc, what, i, n,
	       func ? func : "?", file ? file : "?", line, inlined ? " (inlined)" : "");
}

/* Each function's addresses, forward or backward, through a fresh table. */
static void check_bin(const char *path, struct bin *b, bool backward)
{
	struct kp_dso_opts o = { .inline_frames = true, .srcline = true };
	struct kp_dsos *t = kp_dsos_new(&o);
	struct kp_dso *d = kp_dsos_find(t, path, NULL, 0);
	size_t inlined = 0, addrs = 0, bad = 0;

	for (size_t k = 0; k < b->nr_funcs; k++) {
		size_t fi = backward ? b->nr_funcs - 1 - k : k;
		const GElf_Sym *s = &b->funcs[fi];

		for (uint64_t j = 0; j < s->st_size; j++) {
			uint64_t pc = s->st_value + (backward ? s->st_size - 1 - j : j), off;
			struct kp_sym_frame f[KP_DSO_MAX_FRAMES];
			struct want w[KP_DSO_MAX_FRAMES];
			int n, m;

			if (!file_off(b->elf, pc, &off))
				continue;
			n = kp_dso_symbolize(d, off, f, KP_DSO_MAX_FRAMES);
			m = frames_at(b->dw, pc, w);
			addrs++;
			inlined += m > 1;
			if (same(f, n, w, m) || bad++ >= 3)
				continue;
			printf("# %s: %s at 0x%llx differs\n", path, b->names[fi],
			       (unsigned long long)pc);
			for (int i = 0; i < n; i++)
				show("table", pc, n, f[i].func, f[i].file, f[i].line, f[i].inlined, i);
			for (int i = 0; i < (m > 0 ? m : 1); i++)
				show("walk", pc, m, w[i].func, w[i].file, w[i].line, w[i].inlined, i);
		}
	}
	ok(!bad && addrs, "%s, %s: the frames at %zu addresses (%zu of them inlined) are the walk's "
	   "(%zu differ)", path, backward ? "last to first" : "first to last", addrs, inlined, bad);
	kp_dsos_free(t);
}

static void check(const char *path, char **only, int nr_only, bool need_inline)
{
	struct bin b;

	if (!ok(bin_open(&b, path, only, nr_only), "%s: its functions and DWARF", path)) {
		bin_close(&b);
		return;
	}
	if (need_inline) {
		size_t inl = 0;

		for (size_t k = 0; k < b.nr_funcs; k++)
			for (uint64_t j = 0; j < b.funcs[k].st_size; j++) {
				struct want w[KP_DSO_MAX_FRAMES];

				inl += frames_at(b.dw, b.funcs[k].st_value + j, w) >= 4;
			}
		ok(inl > 0, "%s: %zu addresses are three inlined calls deep", path, inl);
	}
	check_bin(path, &b, false);
	check_bin(path, &b, true);
	bin_close(&b);
}

int main(int argc, char **argv)
{
	static const char *const fixtures[] = { "tests/fixtures/fixture-c",
						"tests/fixtures/fixture-cxx",
						"tests/workloads/inline" };
	const char *top = getenv("top_builddir");
	char path[4096];

	if (argc > 1) {
		check(argv[1], argv + 2, argc - 2, false);
		return tap_done();
	}
	top = top && *top ? top : ".";
	snprintf(path, sizeof(path), "%s/tests/fixtures/fixture-inline", top);
	check(path, NULL, 0, true);
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		snprintf(path, sizeof(path), "%s/%s", top, fixtures[i]);
		check(path, NULL, 0, false);
	}
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * dso-dwarf.c - the frames at an address from a binary's DWARF: its inlined calls and the
 * function holding them, and source lines (see dso-dwarf.h).
 */
#include "dso-dwarf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/search.h"

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

#define NONE UINT32_MAX

/*
 * A code scope of a CU, or the CU itself: its DIE, its depth (the code scopes of the path down
 * to it, itself included: 0 for a CU) and nesting level (namespaces counted too), and once
 * expanded, its children by address: scopes.ivs[first, first + nr), each the start of a range
 * that child @scope holds (NONE: none of them), up to the next one's. A function frame's name
 * and call site are read the first time a chain needs them (the call site's file costs the
 * CU's line table).
 */
struct kp_dwarf_scope {
	Dwarf_Die die;
	uint32_t first, nr;
	uint16_t depth, level;
	int tag;
	bool expanded, named, sited;
	const char *func;
	struct kp_sym_frame site;
};

struct kp_dwarf_iv {
	uint64_t start;
	uint32_t scope;
};

/* What an expansion collects: the children in DIE order, and each one's address ranges. */
struct cand {
	Dwarf_Die die;
	uint16_t depth, level;
	uint32_t scope;		/* made once it holds an address, else NONE */
};

struct range {
	uint64_t lo, hi;
	uint32_t cand;
};

struct found {
	struct cand *cands;
	size_t nr_cands, cap_cands;
	struct range *ranges;
	size_t nr_ranges, cap_ranges;
};

/*
 * The code scopes below @parent, in DIE order, into @fo: namespaces (GCC nests C++ definitions
 * there) are looked into, as if their children were @parent's. @depth and @level bound the
 * path and the nesting on hostile files (namespaces nested without end).
 */
static void children(Dwarf_Die *parent, int depth, int level, struct found *fo)
{
	Dwarf_Die c;

	if (depth >= KP_DSO_MAX_FRAMES || level >= MAX_NESTING || dwarf_child(parent, &c))
		return;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			children(&c, depth, level + 1, fo);
			continue;
		}
		if (!is_code_scope(tag))
			continue;
		/* dwarf_haspc()'s reading: the ranges up to the first error */
		while ((off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			KP_GROW(fo->ranges, fo->cap_ranges, fo->nr_ranges + 1);
			fo->ranges[fo->nr_ranges++] = (struct range){ lo, hi, (uint32_t)fo->nr_cands };
		}
		KP_GROW(fo->cands, fo->cap_cands, fo->nr_cands + 1);
		fo->cands[fo->nr_cands++] = (struct cand){ c, (uint16_t)(depth + 1),
							   (uint16_t)(level + 1), NONE };
	} while (dwarf_siblingof(&c, &c) == 0);
}

static uint32_t scope_new(struct kp_dwarf_scopes *ix, Dwarf_Die *die, int depth, int level)
{
	KP_GROW(ix->scopes, ix->cap_scopes, ix->nr_scopes + 1);
	ix->scopes[ix->nr_scopes] = (struct kp_dwarf_scope){ .die = *die,
							      .depth = (uint16_t)depth,
							      .level = (uint16_t)level,
							      .tag = dwarf_tag(die) };
	return (uint32_t)ix->nr_scopes++;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The first piece at or after @k that no child holds yet (@next: each piece's guess, moved
 * along as pieces are taken, so that each is stepped over about once). */
static size_t untaken(size_t *next, size_t k)
{
	size_t r = k;

	while (next[r] != r)
		r = next[r];
	while (next[k] != r) {
		size_t n = next[k];

		next[k] = r;
		k = n;
	}
	return r;
}

/*
 * Scope @si's children by address: the ends of their ranges cut the addresses into pieces,
 * each piece goes to the first child in DIE order that holds it (the one a walk of the DIEs
 * for an address of it enters), and runs of pieces of one child are merged.
 */
static void expand(struct kp_dwarf_scopes *ix, uint32_t si)
{
	struct found fo = { 0 };
	uint64_t *cut;
	uint32_t *owner;
	size_t *next, nr = 0, k = 0;

	ix->scopes[si].expanded = true;
	ix->scopes[si].first = (uint32_t)ix->nr_ivs;
	children(&ix->scopes[si].die, ix->scopes[si].depth, ix->scopes[si].level, &fo);
	cut = kp_xcalloc(2 * fo.nr_ranges + 1, sizeof(*cut));
	owner = kp_xcalloc(2 * fo.nr_ranges + 1, sizeof(*owner));
	next = kp_xcalloc(2 * fo.nr_ranges + 1, sizeof(*next));
	for (size_t i = 0; i < fo.nr_ranges; i++) {
		cut[nr++] = fo.ranges[i].lo;
		cut[nr++] = fo.ranges[i].hi;
	}
	qsort(cut, nr, sizeof(*cut), cmp_u64);
	for (size_t i = 0; i < nr; i++)
		if (!k || cut[i] != cut[k - 1])
			cut[k++] = cut[i];
	nr = k;
	for (size_t i = 0; i <= nr; i++) {
		owner[i] = NONE;
		next[i] = i;
	}
	for (size_t i = 0; i < fo.nr_ranges; i++) {
		const struct range *r = &fo.ranges[i];

		/* r->lo is a cut: the piece it starts is the last at or below it */
		for (k = untaken(next, kp_first_above(cut, nr, sizeof(*cut), r->lo) - 1);
		     k < nr && cut[k] < r->hi; k = untaken(next, k + 1)) {
			owner[k] = r->cand;
			next[k] = k + 1;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		struct cand *c = owner[i] != NONE ? &fo.cands[owner[i]] : NULL;
		uint32_t s = NONE;

		if (c && c->scope == NONE)
			c->scope = scope_new(ix, &c->die, c->depth, c->level);
		if (c)
			s = c->scope;
		if (ix->nr_ivs > ix->scopes[si].first && ix->ivs[ix->nr_ivs - 1].scope == s)
			continue;
		KP_GROW(ix->ivs, ix->cap_ivs, ix->nr_ivs + 1);
		ix->ivs[ix->nr_ivs++] = (struct kp_dwarf_iv){ cut[i], s };
	}
	ix->scopes[si].nr = (uint32_t)(ix->nr_ivs - ix->scopes[si].first);
	free(cut);
	free(owner);
	free(next);
	free(fo.cands);
	free(fo.ranges);
}

/*
 * The code scopes holding module address @addr into @path, outermost first; returns how many.
 * Each CU's scopes are expanded as lookups reach them, once: a lookup after the first in a
 * function is a binary search per scope around it.
 */
static int scope_path(struct kp_dwarf_scopes *ix, Dwfl_Module *mod, Dwarf_Addr addr,
		      uint32_t *path)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	uint64_t *v, pc = addr - bias;
	uint32_t s;
	bool added;
	int depth = 0;

	if (!cu)
		return 0;
	v = kp_hash_add(&ix->cus, (uint64_t)(uintptr_t)cu->addr, ix->nr_scopes, &added);
	s = added ? scope_new(ix, cu, 0, 0) : (uint32_t)*v;
	for (;;) {
		const struct kp_dwarf_scope *sc;
		size_t i;

		if (!ix->scopes[s].expanded)
			expand(ix, s);
		sc = &ix->scopes[s];
		i = KP_FIRST_ABOVE(ix->ivs + sc->first, sc->nr, start, pc);
		if (!i || (s = ix->ivs[sc->first + i - 1].scope) == NONE)
			return depth;
		path[depth++] = s;
	}
}

int kp_dwarf_chain(struct kp_dwarf_scopes *ix, Dwfl_Module *mod, Dwarf_Addr addr, bool srcline,
		   struct kp_sym_frame *chain)
{
	uint32_t path[KP_DSO_MAX_FRAMES];
	struct kp_dwarf_scope *prev = NULL;
	int depth = scope_path(ix, mod, addr, path);
	int n = 0;

	for (int i = depth - 1; i >= 0; i--) {
		struct kp_dwarf_scope *s = &ix->scopes[path[i]];

		if (s->tag != DW_TAG_inlined_subroutine && s->tag != DW_TAG_subprogram)
			continue;
		if (!s->named) {
			s->func = die_func_name(&s->die);
			s->named = true;
		}
		chain[n] = (struct kp_sym_frame){ .func = s->func,
						  .inlined = s->tag == DW_TAG_inlined_subroutine };
		if (srcline && !prev) {
			kp_dwarf_srcline(mod, addr, &chain[n]);
		} else if (srcline) {
			if (!prev->sited) {
				call_site(&prev->die, &prev->site);
				prev->sited = true;
			}
			chain[n].file = prev->site.file;
			chain[n].line = prev->site.line;
		}
		n++;
		prev = s;
		if (s->tag == DW_TAG_subprogram)
			break;
	}
	return n;
}

void kp_dwarf_scopes_release(struct kp_dwarf_scopes *ix)
{
	free(ix->scopes);
	free(ix->ivs);
	kp_hash_release(&ix->cus);
	memset(ix, 0, sizeof(*ix));
}

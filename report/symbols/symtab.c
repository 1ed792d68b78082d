/* SPDX-License-Identifier: MIT */
/*
 * symtab.c - a DSO table's names and frames, and the function symbols of one binary (see
 * symtab.h).
 */
#include "symtab.h"

#include <libiberty/demangle.h>
#undef ARRAY_SIZE /* libiberty.h has its own; formats/util.h's is the same */
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/search.h"
#include "symrank.h"

void kp_symnames_init(struct kp_symnames *n, bool demangle)
{
	memset(n, 0, sizeof(*n));
	n->demangle = demangle;
	kp_strtab_init(&n->strs);
	kp_hash_init(&n->demangled);
}

void kp_symnames_release(struct kp_symnames *n)
{
	kp_strtab_release(&n->strs);
	kp_hash_release(&n->demangled);
	free(n->frames);
}

const char *kp_symnames_intern(struct kp_symnames *n, const char *s)
{
	return s ? kp_strtab_get(&n->strs, kp_strtab_intern(&n->strs, s)) : NULL;
}

const char *kp_symnames_func(struct kp_symnames *n, const char *raw)
{
	uint32_t i = kp_strtab_intern(&n->strs, raw ? raw : "??"), j;
	uint64_t *v;
	char *dm;

	if (!n->demangle)
		return kp_strtab_get(&n->strs, i);
	v = kp_hash_get(&n->demangled, i);
	if (v)
		return kp_strtab_get(&n->strs, (uint32_t)*v);
	dm = kp_demangle(kp_strtab_get(&n->strs, i));
	j = dm ? kp_strtab_intern(&n->strs, dm) : i;
	free(dm);
	kp_hash_put(&n->demangled, i, j);
	return kp_strtab_get(&n->strs, j);
}

struct kp_sym_frame *kp_symnames_add(struct kp_symnames *n, size_t count)
{
	struct kp_sym_frame *f;

	KP_GROW(n->frames, n->cap_frames, n->nr_frames + count);
	f = n->frames + n->nr_frames;
	n->nr_frames += count;
	return f;
}

char *kp_demangle(const char *name)
{
	/* Itanium and Rust (legacy "_ZN...17h<hash>E" and v0 "_R") all start with '_'. */
	if (!name || name[0] != '_')
		return NULL;
	/*
	 * DMGL_AUTO, not DMGL_RUST: with DMGL_RUST libiberty only tries the Rust demanglers and
	 * returns NULL for plain C++; auto tries Rust (legacy and v0) first, then Itanium.
	 * DMGL_RET_DROP: a function template's mangled name carries its return type, which perf
	 * (and c++filt's users) do not show: "ns::apply_n<F&>(F&, unsigned long, int)".
	 */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO | DMGL_RET_DROP);
}

size_t kp_bid_trim(const uint8_t *bid, size_t len)
{
	while (len && !bid[len - 1]) /* perf-style padding */
		len--;
	return len;
}

void kp_symtab_add(struct kp_symtab *st, struct kp_sym s)
{
	KP_GROW(st->syms, st->cap, st->nr + 1);
	st->syms[st->nr++] = s;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct kp_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return kp_symrank_cmp(&(struct kp_symrank){ x->name, x->size, x->typed, x->bind },
			      &(struct kp_symrank){ y->name, y->size, y->typed, y->bind });
}

void kp_symtab_sort(struct kp_symtab *st)
{
	size_t k = 0;

	if (st->nr)
		qsort(st->syms, st->nr, sizeof(*st->syms), sym_cmp);
	for (size_t i = 0; i < st->nr; i++)
		if (!k || st->syms[i].addr != st->syms[k - 1].addr)
			st->syms[k++] = st->syms[i];
	st->nr = k;
	for (size_t i = 0; i < k; i++)
		if (!st->syms[i].size)
			st->syms[i].size = i + 1 < k ? st->syms[i + 1].addr - st->syms[i].addr : 1;
}

/* The number of symbols starting at or before @addr. */
static size_t syms_upto(const struct kp_symtab *st, uint64_t addr)
{
	return KP_FIRST_ABOVE(st->syms, st->nr, addr, addr);
}

const struct kp_sym *kp_symtab_find(const struct kp_symtab *st, uint64_t addr)
{
	size_t lo = syms_upto(st, addr);

	for (size_t i = lo; i-- > 0 && lo - i <= 8;)
		if (addr - st->syms[i].addr < st->syms[i].size)
			return &st->syms[i];
	return NULL;
}

bool kp_symtab_in_padding(const struct kp_symtab *st, uint64_t addr)
{
	size_t lo = syms_upto(st, addr); /* the first symbol after @addr */
	const struct kp_sym *prev, *next;

	if (!lo || lo == st->nr)
		return false;
	prev = &st->syms[lo - 1];
	next = &st->syms[lo];
	return addr >= prev->addr + prev->size &&
	       next->addr - (prev->addr + prev->size) < KP_SYMTAB_PADDING_MAX;
}

void kp_symtab_clear(struct kp_symtab *st)
{
	st->nr = 0;
}

void kp_symtab_release(struct kp_symtab *st)
{
	free(st->syms);
	memset(st, 0, sizeof(*st));
}

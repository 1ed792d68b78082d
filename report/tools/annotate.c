/* SPDX-License-Identifier: MIT */
/*
 * annotate.c - a report's sampled addresses gathered per function, the hottest functions (or
 * the ones named) disassembled with capstone's iterator, and each instruction given its
 * samples, its source line and the inlined functions around it. The kernel's code is read by
 * annotate-kcode.c.
 */
#include "annotate.h"

#include <errno.h>
#include <stdarg.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "annotate-kcode.h"
#include "disasm-lib.h"
#include "report/base/hash.h"
#include "report/base/search.h"
#include "report/symbols/ksyms.h"
#include "report/base/strtab.h"

/* --- the machines capstone decodes for us: one row each ---------------------------------- */

/* A branch's destination, when it is direct: 0 when it is not. */
typedef uint64_t (*target_fn)(const cs_insn *insn);

/* A direct jump's or call's destination: its immediate operand. */
static uint64_t x86_target(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return 0;
	return (uint64_t)x->operands[0].imm;
}

/* b, bl, b.cond, cbz and tbz: the destination is the last operand. */
static uint64_t arm64_target(const cs_insn *insn)
{
	const cs_arm64 *a = &insn->detail->arm64;

	if (!a->op_count || a->operands[a->op_count - 1].type != ARM64_OP_IMM)
		return 0;
	return (uint64_t)a->operands[a->op_count - 1].imm;
}

static const struct arch {
	unsigned machine;	/* e_machine */
	cs_arch arch;
	cs_mode mode;
	target_fn target;
} arches[] = {
	{ EM_X86_64, CS_ARCH_X86, CS_MODE_64, x86_target },
	{ EM_386, CS_ARCH_X86, CS_MODE_32, x86_target },
	{ EM_AARCH64, CS_ARCH_ARM64, CS_MODE_ARM, arm64_target },
};

static const struct arch *arch_find(unsigned machine)
{
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i].machine == machine)
			return &arches[i];
	return NULL;
}

/* --- sampled addresses, per function ------------------------------------------------------ */

/* A function with samples: a symbol of a binary, or of the kernel. */
struct group {
	uint32_t map;		/* the profile's */
	uint64_t start, size;	/* as kp_ann_insn.addr */
	uint64_t off;		/* file offset of @start (binaries) */
	const char *name;	/* borrowed: the session's DSO table, or its kernel symbols */
	struct kp_dso *dso;	/* the session's; NULL for the kernel */
	struct kp_weight w;
	size_t chosen;		/* index into the annotation's funcs + 1, 0 when not chosen */
	size_t hits;		/* its last hit + 1 (a list through hit.prev), 0 for none */
};

/* One sampled stack end: where in which group. */
struct hit {
	uint32_t group;
	uint32_t node;
	uint64_t addr;
	struct kp_weight w;
	size_t prev;		/* the group's hit before this one + 1, 0 for none */
};

struct ctx {
	struct kp_report *r;
	const struct kp_ann_opts *o;
	struct kp_annotation *a;
	struct kp_dso **map_dso;	/* [profile map]: the session's DSO, NULL for none */
	struct group *groups;
	size_t nr_groups, cap_groups;
	struct kp_hash group_ids;	/* hash(map, start), probed -> index */
	struct hit *hits;
	size_t nr_hits, cap_hits;
	struct kp_kcode kc;
	struct kp_cs lib;		/* capstone's functions, once loaded */
	bool loaded;
	const struct arch *arch;	/* of the capstone handle open */
	csh cs;
	cs_insn *insn;
};

/* The session's DSO of each profile map, by path and build-id. */
static void map_dsos(struct ctx *c)
{
	const struct kp_profile *p = &c->r->prof;
	const struct kp_session *s = &c->r->s;
	char bid[41];

	c->map_dso = kp_xcalloc(p->nr_maps ? p->nr_maps : 1, sizeof(*c->map_dso));
	for (size_t m = 1; m < p->nr_maps; m++) {
		const struct kp_mapping *pm = &p->maps[m];

		if (pm->flags & (KP_LOC_KERNEL | KP_LOC_JIT))
			continue;
		for (size_t i = 0; i < s->nr_dsos && !c->map_dso[m]; i++) {
			const uint8_t *bits;
			size_t len;

			if (s->dso_list[i].path != pm->path)
				continue;
			len = kp_dso_build_id(s->dso_list[i].dso, &bits);
			kp_hex(bid, bits, len < 20 ? len : 20);
			if (!pm->build_id || !strcmp(bid, kp_strtab_get(&s->strs, pm->build_id)))
				c->map_dso[m] = s->dso_list[i].dso;
		}
	}
}

struct group_key {
	const struct ctx *c;
	const struct group *g;
};

static bool same_group(const void *ctx, uint64_t i)
{
	const struct group_key *k = ctx;

	return k->c->groups[i].map == k->g->map && k->c->groups[i].start == k->g->start;
}

/* The group of @g's map and start, or SIZE_MAX; *@key is where it is, or the free slot. */
static size_t group_find(const struct ctx *c, const struct group *g, uint64_t *key)
{
	uint64_t *v;

	*key = kp_hash_words((const uint64_t[]){ g->map, g->start }, 2, 0);
	v = kp_hash_find(&c->group_ids, key, same_group, &(struct group_key){ c, g });
	return v ? (size_t)*v : SIZE_MAX;
}

static size_t group_of(struct ctx *c, const struct group *g)
{
	uint64_t key;
	size_t i = group_find(c, g, &key);

	if (i != SIZE_MAX)
		return i;
	KP_GROW(c->groups, c->cap_groups, c->nr_groups + 1);
	c->groups[c->nr_groups] = *g;
	kp_hash_put(&c->group_ids, key, c->nr_groups);
	return c->nr_groups++;
}

/* Where no symbol is: the whole map is one group, which says why it is not annotated. */
#define NO_SYMBOL UINT64_MAX

/*
 * The function holding @addr of profile map @m, as a group with its range, and @addr as
 * kp_ann_insn.addr into *@at; a binary's or the kernel's addresses that no symbol covers are
 * a NO_SYMBOL group of their map. False for addresses in no binary (JIT code, unknown).
 */
static bool func_at(struct ctx *c, uint32_t m, uint64_t addr, struct group *g, uint64_t *at)
{
	struct kp_report *r = c->r;
	const struct kp_mapping *pm = &r->prof.maps[m];
	struct kp_dso_func f;

	*g = (struct group){ .map = m, .start = NO_SYMBOL, .dso = c->map_dso[m],
			     .name = kp_strtab_get(&r->s.strs, pm->path) };
	*at = addr;
	if (pm->flags & KP_LOC_KERNEL) {
		const struct kp_ksym_ent *e = kp_ksyms_find(&r->s.ksyms, addr);
		uint64_t end = e ? kp_ksyms_end(&r->s.ksyms, e) : 0;

		if (e) {
			g->start = e->addr;
			g->size = end > e->addr ? end - e->addr : 1;
			g->name = e->name;
		}
		return true;
	}
	if (!g->dso || addr < pm->start)
		return false;
	if (!kp_dso_func_at(g->dso, addr - pm->start, &f))
		return true;
	g->start = f.vaddr;
	g->size = f.size;
	g->off = f.off;
	g->name = f.name;
	*at = f.vaddr + (addr - pm->start - f.off);
	return true;
}

/* With callers, the functions a sample's chain passes through, so that they can be named. */
static void gather_callers(struct ctx *c, uint32_t n)
{
	const struct kp_profile *p = &c->r->prof;

	for (n = p->nodes[n].parent; n; n = p->nodes[n].parent) {
		const struct kp_loc *l = &p->locs[p->nodes[n].loc];
		struct group g;
		uint64_t at;

		if (l->map && func_at(c, l->map, l->addr, &g, &at) && g.start != NO_SYMBOL)
			group_of(c, &g);
	}
}

/* Every stack end with samples of the event, in its function's group. */
static void gather(struct ctx *c)
{
	const struct kp_profile *p = &c->r->prof;

	for (uint32_t n = 1; n < p->nr_nodes; n++) {
		const struct kp_weight *w = kp_profile_self(p, n, c->o->event);
		const struct kp_loc *l = &p->locs[p->nodes[n].loc];
		struct group g;
		uint64_t at;
		size_t gi;

		if (!w->count || (l->flags & KP_LOC_COMM))
			continue;
		if (c->o->callers)
			gather_callers(c, n);
		if (!l->map || !func_at(c, l->map, l->addr, &g, &at)) {
			c->a->unnamed.count += w->count;
			c->a->unnamed.period += w->period;
			continue;
		}
		gi = group_of(c, &g);
		c->groups[gi].w.count += w->count;
		c->groups[gi].w.period += w->period;
		KP_GROW(c->hits, c->cap_hits, c->nr_hits + 1);
		c->hits[c->nr_hits] = (struct hit){ (uint32_t)gi, n, at, *w, c->groups[gi].hits };
		c->groups[gi].hits = ++c->nr_hits;
	}
}

static uint64_t weight(const struct ctx *c, const struct kp_weight *w)
{
	return c->o->by_samples ? w->count : w->period;
}

/* Heavier first (the weight rule of @c), 0 when equal. */
static int heavier(const struct ctx *c, const struct kp_weight *x, const struct kp_weight *y)
{
	uint64_t wx = weight(c, x), wy = weight(c, y);

	return wx == wy ? 0 : wx > wy ? -1 : 1;
}

/* Heavier first; equal ones by name and address, so the output is deterministic. */
static int cmp_group(const void *x, const void *y, void *ctx)
{
	const struct ctx *c = ctx;
	const struct group *a = &c->groups[*(const size_t *)x];
	const struct group *b = &c->groups[*(const size_t *)y];
	int s;

	if ((s = heavier(c, &a->w, &b->w)) || (s = strcmp(a->name, b->name)))
		return s;
	return a->start < b->start ? -1 : a->start > b->start;
}

static const char *intern(struct kp_annotation *a, const char *s)
{
	return s ? kp_strtab_get(&a->strs, kp_strtab_intern(&a->strs, s)) : NULL;
}

static void add_func(struct ctx *c, struct group *g)
{
	struct kp_annotation *a = c->a;
	struct kp_ann_func *f;
	const uint8_t *bits;
	size_t len;

	a->funcs = kp_xrealloc(a->funcs, (a->nr_funcs + 1) * sizeof(*a->funcs));
	f = &a->funcs[a->nr_funcs++];
	*f = (struct kp_ann_func){ .name = intern(a, g->name), .start = g->start, .size = g->size,
				   .self = g->w, .kernel = !g->dso };
	f->dso = intern(a, kp_strtab_get(&c->r->s.strs, c->r->prof.maps[g->map].path));
	if (g->dso) {
		len = kp_dso_build_id(g->dso, &bits);
		kp_hex(f->build_id, bits, len < 20 ? len : 20);
		len = kp_dso_file_build_id(g->dso, &bits);
		kp_hex(f->file_build_id, bits, len < 20 ? len : 20);
		if (!strcmp(f->file_build_id, f->build_id))
			f->file_build_id[0] = '\0';
	}
	g->chosen = a->nr_funcs;
}

/* The annotation's own DSO of @g's binary (lines and inline frames on); NULL for the kernel. */
static struct kp_dso *ann_dso(struct ctx *c, const struct group *g)
{
	const uint8_t *bits;
	size_t len;

	if (!g->dso)
		return NULL;
	len = kp_dso_build_id(g->dso, &bits);
	return kp_dsos_find(c->a->dsos, kp_dso_path(g->dso), len ? bits : NULL, len);
}

/* Whether @name is one of the inlined frames of @fr (@n frames, innermost first: the last is
 * the function holding them). */
static bool inlined_in(const struct kp_sym_frame *fr, int n, const char *name)
{
	for (int k = 0; k < n - 1; k++)
		if (fr[k].func && !strcmp(fr[k].func, name))
			return true;
	return false;
}

/* Whether @name is inlined at one of @g's sampled instructions. */
static bool inlined_at_hits(struct ctx *c, const struct group *g, const char *name)
{
	struct kp_dso *d = g->start != NO_SYMBOL ? ann_dso(c, g) : NULL;
	struct kp_sym_frame fr[KP_DSO_MAX_FRAMES];

	for (size_t i = d ? g->hits : 0; i; i = c->hits[i - 1].prev) {
		uint64_t off = g->off + (c->hits[i - 1].addr - g->start);

		if (inlined_in(fr, kp_dso_symbolize(d, off, fr, KP_DSO_MAX_FRAMES), name))
			return true;
	}
	return false;
}

/*
 * @name, which no sampled function has: each function (hottest first) it is inlined into at
 * their samples is annotated for it, @name among its marks. False when there is none.
 */
static bool choose_holders(struct ctx *c, const size_t *order, const char *name)
{
	bool found = false;

	for (size_t i = 0; i < c->nr_groups; i++) {
		struct group *g = &c->groups[order[i]];
		struct kp_ann_func *f;

		if (!g->w.count || !inlined_at_hits(c, g, name))
			continue;
		if (!g->chosen)
			add_func(c, g);
		f = &c->a->funcs[g->chosen - 1];
		f->marks = kp_xrealloc(f->marks, (f->nr_marks + 1) * sizeof(*f->marks));
		f->marks[f->nr_marks++] = intern(c->a, name);
		found = true;
	}
	return found;
}

/* The functions to annotate: the names asked for (or those they are inlined into), or the
 * hottest. */
static void choose(struct ctx *c)
{
	struct kp_annotation *a = c->a;
	size_t *order = kp_xcalloc(c->nr_groups ? c->nr_groups : 1, sizeof(*order));

	for (size_t i = 0; i < c->nr_groups; i++)
		order[i] = i;
	qsort_r(order, c->nr_groups, sizeof(*order), cmp_group, c);
	a->names = kp_xcalloc(c->nr_groups ? c->nr_groups : 1, sizeof(*a->names));
	for (size_t i = 0; i < c->nr_groups; i++)
		a->names[a->nr_names++] = intern(a, c->groups[order[i]].name);
	a->missing = kp_xcalloc(c->o->nr_names ? c->o->nr_names : 1, sizeof(*a->missing));
	a->inlined = kp_xcalloc(c->o->nr_names ? c->o->nr_names : 1, sizeof(*a->inlined));
	for (size_t k = 0; k < c->o->nr_names; k++) {
		bool found = false;

		for (size_t i = 0; i < c->nr_groups; i++) {
			struct group *g = &c->groups[order[i]];

			if (strcmp(g->name, c->o->names[k]))
				continue;
			if (!g->chosen)
				add_func(c, g);
			found = true;
		}
		if (!found && choose_holders(c, order, c->o->names[k]))
			a->inlined[a->nr_inlined++] = c->o->names[k];
		else if (!found)
			a->missing[a->nr_missing++] = c->o->names[k];
	}
	/* a name may be missing because its binary cannot be read: say which cannot */
	for (size_t i = 0; a->nr_missing && i < c->nr_groups; i++) {
		struct group *g = &c->groups[order[i]];

		if (g->start == NO_SYMBOL && g->dso && !g->chosen && g->w.count &&
		    kp_dso_status(g->dso) != KP_DSO_OK)
			add_func(c, g);
	}
	for (size_t i = 0; !c->o->nr_names && i < c->nr_groups && i < c->o->top; i++)
		if (c->groups[order[i]].w.count)
			add_func(c, &c->groups[order[i]]);
	free(order);
}

/* --- disassembly ------------------------------------------------------------------------- */

static void set_why(struct kp_ann_func *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_why(struct kp_ann_func *f, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	f->why = kp_xstrdup(buf);
}

/* The function's bytes: borrowed from the DSO's mapping, or read from the kernel's into *@own. */
static const uint8_t *func_code(struct ctx *c, const struct group *g, struct kp_ann_func *f,
				unsigned *machine, uint8_t **own)
{
	const uint8_t *code;

	*own = NULL;
	if (!g->dso) {
		if (!c->kc.tried)
			kp_kcode_open(&c->kc, c->o->vmlinux, &c->r->s);
		code = *own = c->kc.fd >= 0 ? kp_kcode_read(&c->kc, g->start, g->size) : NULL;
		*machine = c->kc.machine;
		if (!code)
			set_why(f, "%s", c->kc.why);
		return code;
	}
	code = kp_dso_code(g->dso, g->off, g->size, machine);
	if (!code)
		set_why(f, "'%s' holds no code for %s at offset 0x%llx (%llu bytes)",
			kp_dso_path(g->dso), f->name, (unsigned long long)g->off,
			(unsigned long long)g->size);
	return code;
}

static bool open_arch(struct ctx *c, unsigned machine)
{
	const struct arch *arch = arch_find(machine);

	if (c->arch == arch && arch)
		return true;
	if (c->arch) {
		c->lib.free(c->insn, 1);
		c->lib.close(&c->cs);
		c->arch = NULL;
	}
	if (!arch || c->lib.open(arch->arch, arch->mode, &c->cs) != CS_ERR_OK)
		return false;
	c->lib.option(c->cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (arch->arch == CS_ARCH_X86 && !c->o->intel)
		c->lib.option(c->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	c->insn = c->lib.malloc(c->cs);
	c->arch = arch;
	return true;
}

static struct kp_ann_insn *push_insn(struct kp_ann_func *f, size_t *cap, uint64_t addr,
				     const uint8_t *bytes, size_t size)
{
	struct kp_ann_insn *in;

	KP_GROW(f->insns, *cap, f->nr_insns + 1);
	in = &f->insns[f->nr_insns++];
	*in = (struct kp_ann_insn){ .addr = addr, .size = (uint8_t)size };
	memcpy(in->bytes, bytes, size < sizeof(in->bytes) ? size : sizeof(in->bytes));
	return in;
}

/* Decode @code with capstone's iterator; a byte it cannot decode becomes "(bad)", as objdump
 * has it, and decoding goes on after it. */
static void decode(struct ctx *c, struct kp_ann_func *f, const uint8_t *code)
{
	const uint8_t *p = code;
	size_t left = f->size, cap = 0;
	uint64_t addr = f->start;

	while (left) {
		struct kp_ann_insn *in;
		const uint8_t *at = p;
		uint64_t pc = addr;

		if (!c->lib.disasm_iter(c->cs, &p, &left, &addr, c->insn)) {
			in = push_insn(f, &cap, pc, at, 1);
			snprintf(in->mnemonic, sizeof(in->mnemonic), "(bad)");
			p++, left--, addr++;
			continue;
		}
		in = push_insn(f, &cap, pc, at, c->insn->size);
		snprintf(in->mnemonic, sizeof(in->mnemonic), "%s", c->insn->mnemonic);
		snprintf(in->operands, sizeof(in->operands), "%s", c->insn->op_str);
		in->call = c->lib.insn_group(c->cs, c->insn, CS_GRP_CALL);
		in->target = in->call || c->lib.insn_group(c->cs, c->insn, CS_GRP_JUMP)
				     ? c->arch->target(c->insn) : 0;
	}
}

/* The instruction holding @addr (binary search), or NULL past the last one. */
static struct kp_ann_insn *insn_at(struct kp_ann_func *f, uint64_t addr)
{
	size_t lo = KP_FIRST_ABOVE(f->insns, f->nr_insns, addr, addr);

	if (!lo || addr - f->insns[lo - 1].addr >= f->insns[lo - 1].size)
		return NULL;
	return &f->insns[lo - 1];
}

/* Labels where the function's own jumps land, numbered in address order; names elsewhere. */
static void label(struct ctx *c, const struct group *g, struct kp_ann_func *f)
{
	uint32_t next = 0;

	for (size_t i = 0; i < f->nr_insns; i++) {
		struct kp_ann_insn *t = f->insns[i].target ? insn_at(f, f->insns[i].target) : NULL;

		if (t && t->addr == f->insns[i].target)
			t->label = 1;
	}
	for (size_t i = 0; i < f->nr_insns; i++)
		if (f->insns[i].label)
			f->insns[i].label = ++next;
	for (size_t i = 0; i < f->nr_insns; i++) {
		struct kp_ann_insn *in = &f->insns[i], *t;
		struct kp_sym_frame fr[KP_DSO_MAX_FRAMES];
		int n;

		if (!in->target)
			continue;
		t = insn_at(f, in->target);
		if (t && t->addr == in->target) {
			in->target_label = t->label;
		} else if (g->dso && in->target + g->off >= f->start &&
			   (n = kp_dso_symbolize(g->dso, in->target - f->start + g->off, fr,
						 KP_DSO_MAX_FRAMES)) > 0) {
			in->target_name = intern(c->a, fr[n - 1].func);
			in->target_off = fr[n - 1].off;
		} else if (!g->dso) {
			const struct kp_ksym_ent *e = kp_ksyms_find(&c->r->s.ksyms, in->target);

			if (e) {
				in->target_name = intern(c->a, e->name);
				in->target_off = in->target - e->addr;
			}
		}
	}
}

/* Source lines and inline frames, from the annotation's own DSO table (lines on); the
 * instructions of the functions it is annotated for (@f's marks) marked. */
static void lines(struct ctx *c, const struct group *g, struct kp_ann_func *f)
{
	struct kp_dso *d = ann_dso(c, g);
	struct kp_sym_frame fr[KP_DSO_MAX_FRAMES];
	enum kp_dso_status st;

	if (!d) {
		f->no_lines = "kernel code: source lines are not read";
		return;
	}
	st = kp_dso_status(d);
	for (size_t i = 0; st == KP_DSO_OK && i < f->nr_insns; i++) {
		struct kp_ann_insn *in = &f->insns[i];
		int n = kp_dso_symbolize(d, g->off + (in->addr - f->start), fr, KP_DSO_MAX_FRAMES);

		if (n <= 0)
			continue;
		in->file = intern(c->a, fr[0].file);
		in->line = fr[0].line;
		f->has_lines |= in->file != NULL;
		for (int k = 0; k < n - 1 && in->nr_inl < KP_ANN_MAX_INLINE; k++)
			in->inl[in->nr_inl++] = intern(c->a, fr[k].func);
		for (size_t k = 0; k < f->nr_marks && !in->marked; k++)
			in->marked = inlined_in(fr, n, f->marks[k]);
	}
	if (!f->has_lines)
		f->no_lines = "no DWARF line table in the binary or a debug file for it (a -dbgsym "
			      "package, or debuginfod)";
}

/* The samples of group @gi at their instructions. */
static void count(struct ctx *c, size_t gi, struct kp_ann_func *f)
{
	for (size_t i = c->groups[gi].hits; i; i = c->hits[i - 1].prev) {
		const struct hit *h = &c->hits[i - 1];
		struct kp_ann_insn *in = insn_at(f, h->addr);

		if (!in) {
			f->outside += h->w.count;
			continue;
		}
		in->self.count += h->w.count;
		in->self.period += h->w.period;
		if (in->addr != h->addr)
			f->stray += h->w.count;
	}
}

static int cmp_line(const void *x, const void *y, void *ctx)
{
	const struct kp_ann_line *a = x, *b = y;
	int s;

	if ((s = heavier(ctx, &a->w, &b->w)) || (s = strcmp(a->file, b->file)))
		return s;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* A source line sought among @f's: @in's file and line. */
struct line_key {
	const struct kp_ann_func *f;
	const struct kp_ann_insn *in;
};

static bool same_line(const void *ctx, uint64_t i)
{
	const struct line_key *k = ctx;

	return k->f->lines[i].file == k->in->file && k->f->lines[i].line == k->in->line;
}

/* Each source line's share: its instructions' samples, hottest line first. */
static void line_summary(struct ctx *c, struct kp_ann_func *f)
{
	struct kp_hash ids;
	size_t cap = 0;

	kp_hash_init(&ids);
	for (size_t i = 0; i < f->nr_insns; i++) {
		const struct kp_ann_insn *in = &f->insns[i];
		uint64_t key = (uint64_t)(uintptr_t)in->file * 0x9e3779b97f4a7c15ull ^ in->line, *v;
		struct kp_ann_line *l;

		if (!in->file || !in->self.count)
			continue;
		if ((v = kp_hash_find(&ids, &key, same_line, &(struct line_key){ f, in }))) {
			l = &f->lines[*v];
		} else {
			KP_GROW(f->lines, cap, f->nr_lines + 1);
			kp_hash_put(&ids, key, f->nr_lines);
			l = &f->lines[f->nr_lines++];
			*l = (struct kp_ann_line){ in->file, in->line, { 0, 0 }, false };
		}
		l->w.count += in->self.count;
		l->w.period += in->self.period;
		l->marked |= in->marked;
	}
	kp_hash_release(&ids);
	if (f->nr_lines)
		qsort_r(f->lines, f->nr_lines, sizeof(*f->lines), cmp_line, c);
}

/* Why a NO_SYMBOL group's samples cannot be annotated: what named the binary, and what did
 * not name these addresses. */
static void no_symbol(const struct group *g, struct kp_ann_func *f)
{
	enum kp_dso_status st = g->dso ? kp_dso_status(g->dso) : KP_DSO_OK, file_st;
	enum kp_dso_dwarf dwarf;
	const char *debug = g->dso ? kp_dso_debug_file(g->dso, &dwarf) : NULL;
	enum kp_dso_source src = g->dso ? kp_dso_source(g->dso, &file_st) : KP_DSO_SRC_FILE;

	if (!g->dso)
		set_why(f, "no kernel symbol covers these addresses (the recording holds no "
			   "kernel symbols, or they were hidden: kptr_restrict)");
	else if (st == KP_DSO_BUILDID_MISMATCH)
		set_why(f, "'%s' is not the binary that was recorded: its build-id is %s, the "
			   "recording's %s", kp_dso_path(g->dso),
			f->file_build_id[0] ? f->file_build_id : "missing", f->build_id);
	else if (st != KP_DSO_OK)
		set_why(f, "'%s': %s", kp_dso_path(g->dso), kp_dso_status_str(st));
	else if (debug)
		set_why(f, "no symbol of '%s' or of its debug file '%s' covers these addresses",
			kp_dso_path(g->dso), debug);
	else if (src == KP_DSO_SRC_EMBEDDED || src == KP_DSO_SRC_EMBEDDED_NS)
		set_why(f, "no symbol the recording embeds for '%s' covers these addresses",
			kp_dso_path(g->dso));
	else if (kp_dso_stripped(g->dso))
		set_why(f, "no symbol of '%s' covers these addresses, nor an FDE of its unwind "
			   "tables: it is stripped of its .symtab, and no debug file of it was "
			   "found (by build-id under /usr/lib/debug, or by .gnu_debuglink)",
			kp_dso_path(g->dso));
	else
		set_why(f, "no symbol of '%s' covers these addresses", kp_dso_path(g->dso));
}

static void disassemble(struct ctx *c, size_t gi)
{
	struct group *g = &c->groups[gi];
	struct kp_ann_func *f = &c->a->funcs[g->chosen - 1];
	unsigned machine = 0;
	uint8_t *own;
	const uint8_t *code;
	char why[256];

	if (g->start == NO_SYMBOL) {
		no_symbol(g, f);
		return;
	}
	if (g->size > KP_ANN_MAX_FUNC) {
		set_why(f, "%s is %llu bytes, more than %u KiB: not disassembled (a bogus symbol "
			   "size?)", f->name, (unsigned long long)g->size, KP_ANN_MAX_FUNC >> 10);
		return;
	}
	code = func_code(c, g, f, &machine, &own);
	if (!code)
		return;
	if (!c->loaded)
		c->loaded = !kp_cs_load(&c->lib, why, sizeof(why));
	if (!c->loaded) {
		set_why(f, "%s", why);
	} else if (!open_arch(c, machine)) {
		set_why(f, "capstone cannot decode ELF machine %u", machine);
	} else {
		decode(c, f, code);
		label(c, g, f);
		lines(c, g, f);
		count(c, gi, f);
		line_summary(c, f);
	}
	free(own);
}

/* --- callers ------------------------------------------------------------------------------ */

static int cmp_ptr(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)*(void *const *)x, b = (uintptr_t)*(void *const *)y;

	return a < b ? -1 : a > b;
}

/*
 * The call instruction (in a chosen function) that the location @l of a stack stands for: a
 * return address, looked up at the call. A user IP under a kernel sample is no call.
 */
static struct kp_ann_insn *call_insn(struct ctx *c, const struct kp_loc *l)
{
	struct kp_ann_insn *in;
	struct group g;
	uint64_t at, key;
	size_t k;

	if (!l->map || !func_at(c, l->map, l->addr, &g, &at) ||
	    (k = group_find(c, &g, &key)) == SIZE_MAX || !c->groups[k].chosen)
		return NULL;
	in = insn_at(&c->a->funcs[c->groups[k].chosen - 1], at);
	return in && in->call ? in : NULL;
}

/* Each sample once at every call of a chosen function that its chain passes through. */
static void callers(struct ctx *c)
{
	const struct kp_profile *p = &c->r->prof;
	struct kp_ann_insn **seen = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < c->nr_hits; i++) {
		const struct kp_loc *leaf = &p->locs[p->nodes[c->hits[i].node].loc];
		uint32_t n = p->nodes[c->hits[i].node].parent;
		size_t nr = 0;

		for (; n; n = p->nodes[n].parent) {
			const struct kp_loc *l = &p->locs[p->nodes[n].loc];
			struct kp_ann_insn *in;

			if (l->map == leaf->map && l->addr == leaf->addr) /* the leaf's inlined */
				continue;
			if ((in = call_insn(c, l))) {
				KP_GROW(seen, cap, nr + 1);
				seen[nr++] = in;
			}
		}
		if (nr)
			qsort(seen, nr, sizeof(*seen), cmp_ptr);
		for (size_t k = 0; k < nr; k++)
			if (!k || seen[k] != seen[k - 1]) {
				seen[k]->calls.count += c->hits[i].w.count;
				seen[k]->calls.period += c->hits[i].w.period;
			}
	}
	free(seen);
}

/* --- the whole -------------------------------------------------------------------------- */

int kp_annotate(struct kp_report *r, const struct kp_ann_opts *o, struct kp_annotation *a)
{
	struct ctx c = { .r = r, .o = o, .a = a };
	struct kp_dso_opts dopts = r->s.dso_opts;

	memset(a, 0, sizeof(*a));
	kp_strtab_init(&a->strs);
	dopts.srcline = dopts.inline_frames = dopts.inline_debug = true;
	dopts.kernel_release = r->s.kernel_release;
	a->dsos = kp_dsos_new(&dopts);
	if (o->event < r->prof.nr_events)
		a->total = *kp_profile_total(&r->prof, 0, o->event);
	else
		return -EINVAL;
	kp_hash_init(&c.group_ids);
	map_dsos(&c);
	gather(&c);
	choose(&c);
	for (size_t i = 0; i < c.nr_groups; i++)
		if (c.groups[i].chosen)
			disassemble(&c, i);
	if (o->callers)
		callers(&c);
	if (c.arch) {
		c.lib.free(c.insn, 1);
		c.lib.close(&c.cs);
	}
	kp_kcode_release(&c.kc);
	free(c.map_dso);
	free(c.groups);
	free(c.hits);
	kp_hash_release(&c.group_ids);
	return 0;
}

void kp_annotation_release(struct kp_annotation *a)
{
	for (size_t i = 0; i < a->nr_funcs; i++) {
		free(a->funcs[i].why);
		free(a->funcs[i].insns);
		free(a->funcs[i].lines);
		free(a->funcs[i].marks);
	}
	free(a->funcs);
	free(a->names);
	free(a->missing);
	free(a->inlined);
	if (a->dsos)
		kp_dsos_free(a->dsos);
	kp_strtab_release(&a->strs);
	memset(a, 0, sizeof(*a));
}

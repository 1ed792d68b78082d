/* SPDX-License-Identifier: MIT */
/*
 * probe-dwarf.c - a probe's variables from DWARF (libdw) into tracefs fetch arguments.
 */
#include "probe-dwarf.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/util.h"
#include "report/symbols/debuginfo.h"

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = kp_debuginfo_find,
	.debuginfo_path = NULL,
};

int kp_pdw_open(const char *path, int fd, struct kp_pdw *d)
{
	const char *main_file = NULL, *debug_file = NULL;
	Dwarf_Addr bias;
	int dfd;

	memset(d, 0, sizeof(*d));
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return -errno;
	d->dwfl = dwfl_begin(&callbacks);
	if (!d->dwfl) {
		close(dfd);
		return -ENOMEM;
	}
	dwfl_report_begin(d->dwfl);
	/* base 0 and p_vaddr added: addresses are the file's own (no bias) */
	d->mod = dwfl_report_elf(d->dwfl, path, path, dfd, 0, true);
	if (!d->mod)
		close(dfd);
	if (dwfl_report_end(d->dwfl, NULL, NULL) || !d->mod)
		return -ENODATA;
	d->dbg = dwfl_module_getdwarf(d->mod, &bias);
	if (!d->dbg)
		return -ENODATA;
	d->cfi[0] = dwfl_module_eh_cfi(d->mod, &bias);
	d->cfi[1] = dwfl_module_dwarf_cfi(d->mod, &bias);
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &main_file, &debug_file);
	d->file = kp_xstrdup(debug_file ? debug_file : main_file ? main_file : path);
	return 0;
}

void kp_pdw_close(struct kp_pdw *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->file);
	memset(d, 0, sizeof(*d));
}

/* ---- functions and lines -------------------------------------------------------------------- */

/* The function looked for: 1 once one of its name is found, 2 once the one at @want is. */
struct find {
	const char *name;
	uint64_t want;
	int found;
	Dwarf_Die die;
};

static int find_cb(Dwarf_Die *die, void *arg)
{
	struct find *f = arg;
	const char *name = dwarf_diename(die);
	Dwarf_Addr entry;

	if (!name || strcmp(name, f->name) || dwarf_entrypc(die, &entry))
		return DWARF_CB_OK;
	if (!f->want || entry == f->want) {
		f->die = *die;
		f->found = 2;
		return DWARF_CB_ABORT;
	}
	if (!f->found) {
		f->die = *die;
		f->found = 1;
	}
	return DWARF_CB_OK;
}

/* Compiled with optimization: "-O2", "-Os", "-Og" in the CU's producer, not "-O0". */
static bool optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *p = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a)), *o;
	bool opt = false;

	for (o = p; o && (o = strstr(o, " -O")); o += 3)
		opt = o[3] != '0';
	return opt;
}

/* What @f's DIE says of it beside its DIE and CU: its entry, line, optimization. */
static void func_facts(struct kp_pdw_func *f)
{
	Dwarf_Attribute a;
	Dwarf_Addr lo;
	Dwarf_Word line;

	if (dwarf_entrypc(&f->die, &lo) == 0)
		f->entry = lo;
	if (dwarf_formudata(dwarf_attr_integrate(&f->die, DW_AT_decl_line, &a), &line) == 0)
		f->decl_line = (int)line;
	f->optimized = optimized(&f->cu);
}

int kp_pdw_func_at(struct kp_pdw *d, uint64_t addr, struct kp_pdw_func *f)
{
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias;
	int n, found = 0;

	memset(f, 0, sizeof(*f));
	cu = dwfl_module_addrdie(d->mod, addr, &bias);
	if (!cu)
		return -ENOENT;
	n = dwarf_getscopes(cu, addr, &scopes);
	for (int i = 0; i < n && !found; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			f->die = scopes[i];
			found = 1;
		}
	free(scopes);
	if (!found)
		return -ENOENT;
	f->cu = *cu;
	func_facts(f);
	return 0;
}

int kp_pdw_func(struct kp_pdw *d, const char *name, uint64_t entry, struct kp_pdw_func *f)
{
	struct find best = { name, entry, 0, { 0 } };
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	memset(f, 0, sizeof(*f));
	while (best.found < 2 && (cu = dwfl_module_nextcu(d->mod, cu, &bias))) {
		struct find one = { name, entry, 0, { 0 } };
		dwarf_getfuncs(cu, find_cb, &one, 0);
		if (one.found > best.found) {
			best = one;
			f->cu = *cu;
		}
	}
	if (!best.found)
		return -ENOENT;
	f->die = best.die;
	func_facts(f);
	return 0;
}

/* The line table rows of @f's CU: each with its address, line and flags. */
static int lines_of(const struct kp_pdw_func *f, Dwarf_Lines **lines, size_t *n)
{
	return dwarf_getsrclines((Dwarf_Die *)&f->cu, lines, n) ? -ENOENT : 0;
}

static bool in_func(const struct kp_pdw_func *f, Dwarf_Addr a)
{
	return dwarf_haspc((Dwarf_Die *)&f->die, a) == 1;
}

int kp_pdw_line(struct kp_pdw *d, const struct kp_pdw_func *f, int line, uint64_t *addr,
		int *lines, size_t cap, size_t *nr)
{
	const char *decl = dwarf_decl_file((Dwarf_Die *)&f->die);
	Dwarf_Lines *tab;
	size_t n;
	bool found = false;

	(void)d;
	*nr = 0;
	if (lines_of(f, &tab, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(tab, i);
		const char *src = dwarf_linesrc(l, NULL, NULL);
		Dwarf_Addr a;
		int no;
		bool stmt = false, known = false;
		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &no) || !in_func(f, a) ||
		    (decl && src && strcmp(decl, src)))
			continue;
		dwarf_linebeginstatement(l, &stmt);
		if (!stmt)
			continue;
		if (no == line && (!found || a < *addr)) {
			*addr = a;
			found = true;
		}
		for (size_t j = 0; j < *nr; j++)
			known = known || lines[j] == no;
		if (!known && *nr < cap)
			lines[(*nr)++] = no;
	}
	for (size_t i = 1; i < *nr; i++) /* sorted, for the error */
		for (size_t j = i; j > 0 && lines[j - 1] > lines[j]; j--) {
			int t = lines[j];
			lines[j] = lines[j - 1];
			lines[j - 1] = t;
		}
	return found ? 0 : -ENOENT;
}

int kp_pdw_body(struct kp_pdw *d, const struct kp_pdw_func *f, uint64_t *addr)
{
	Dwarf_Lines *tab;
	uint64_t second = 0;
	size_t n;

	(void)d;
	if (lines_of(f, &tab, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(tab, i);
		Dwarf_Addr a;
		bool end = false, stmt = false;
		if (!l || dwarf_lineaddr(l, &a) || !in_func(f, a) || a == f->entry)
			continue;
		dwarf_lineprologueend(l, &end);
		if (end) {
			*addr = a;
			return 0;
		}
		dwarf_linebeginstatement(l, &stmt);
		if (stmt && (!second || a < second))
			second = a;
	}
	if (!second)
		return -ENOENT;
	*addr = second;
	return 0;
}

/* ---- locations ------------------------------------------------------------------------------ */

/* Where a value is: a fetch argument that is the value (a register, $retval, \IMM), memory at
 * the value of a fetch argument plus an offset, or memory at an offset of the file. */
enum lkind { L_VAL, L_MEM, L_ABS };

struct loc {
	enum lkind k;
	char *base; /* L_VAL: the value; L_MEM: what gives the address (owned) */
	int64_t off;
};

/* What one translation works with, and the sentence of its error. */
struct ctx {
	struct kp_pdw *d;
	const struct kp_pdw_func *f;
	uint64_t pc;
	int64_t file_delta;
	const char *expr;
	Dwarf_Attribute *attr; /* the location's, for the blocks inside its operations */
	char *why;
	size_t len;
};

static int fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, c->len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		abort();
	return s;
}

/* The fetch argument that gives @l's value (the caller's). */
static char *loc_text(const struct loc *l)
{
	if (l->k == L_VAL)
		return kp_xstrdup(l->base);
	if (l->k == L_ABS)
		return xprintf("@+%" PRId64, l->off);
	return xprintf("%+" PRId64 "(%s)", l->off, l->base);
}

/* @l holds a pointer: what it points at, @off bytes on. */
static void loc_deref(struct loc *l, int64_t off)
{
	char *t = loc_text(l);

	free(l->base);
	*l = (struct loc){ L_MEM, t, off };
}

static void loc_set(struct loc *l, enum lkind k, const char *base, int64_t off)
{
	char *b = base ? kp_xstrdup(base) : NULL; /* @base may be @l's own */

	free(l->base);
	*l = (struct loc){ k, b, off };
}

/* x86-64's DWARF register numbers as the kernel's fetch arguments name them. */
static const char *reg_name(uint64_t n)
{
#if defined(__x86_64__)
	static const char *const regs[] = { "%ax", "%dx", "%cx", "%bx", "%si", "%di",
					    "%bp", "%sp", "%r8", "%r9", "%r10", "%r11",
					    "%r12", "%r13", "%r14", "%r15", "%ip" };
	return n < ARRAY_SIZE(regs) ? regs[n] : NULL;
#else
	(void)n;
	return NULL;
#endif
}

static int set_reg(struct ctx *c, struct loc *l, enum lkind k, uint64_t reg, int64_t off)
{
	const char *name = reg_name(reg);

	if (!name)
		return fail(c, "'%s' is in DWARF register %" PRIu64 ", which kprof cannot fetch on "
			    "this machine", c->expr, reg);
	loc_set(l, k, name, off);
	return 0;
}

/* One operation that starts a location: a register, an address, a constant. */
static int first_op(struct ctx *c, const Dwarf_Op *op, struct loc *l);

/* The frame base of the function at c->pc, as an address (L_MEM). */
static int frame_base(struct ctx *c, struct loc *l)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr_integrate((Dwarf_Die *)&c->f->die, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, c->pc, &ops, &n, 1) != 1 || n != 1)
		return fail(c, "the frame base of the function is not known at %#" PRIx64, c->pc);
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		for (size_t i = 0; i < ARRAY_SIZE(c->d->cfi); i++) {
			Dwarf_Frame *fr;
			Dwarf_Op *cfa;
			size_t nc;
			int err;
			if (!c->d->cfi[i] || dwarf_cfi_addrframe(c->d->cfi[i], c->pc, &fr))
				continue;
			if (dwarf_frame_cfa(fr, &cfa, &nc) || nc != 1 ||
			    (cfa[0].atom != DW_OP_bregx &&
			     (cfa[0].atom < DW_OP_breg0 || cfa[0].atom > DW_OP_breg31))) {
				free(fr);
				continue;
			}
			err = cfa[0].atom == DW_OP_bregx
				      ? set_reg(c, l, L_MEM, cfa[0].number, (int64_t)cfa[0].number2)
				      : set_reg(c, l, L_MEM, cfa[0].atom - DW_OP_breg0,
						(int64_t)cfa[0].number);
			free(fr);
			return err;
		}
		return fail(c, "the call frame at %#" PRIx64 " is not known (no CFI)", c->pc);
	}
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return set_reg(c, l, L_MEM, ops[0].atom - DW_OP_reg0, 0);
	return first_op(c, &ops[0], l);
}

static int first_op(struct ctx *c, const Dwarf_Op *op, struct loc *l)
{
	uint8_t a = op->atom;

	if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
		return set_reg(c, l, L_VAL, a - DW_OP_reg0, 0);
	if (a == DW_OP_regx)
		return set_reg(c, l, L_VAL, op->number, 0);
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		return set_reg(c, l, L_MEM, a - DW_OP_breg0, (int64_t)op->number);
	if (a == DW_OP_bregx)
		return set_reg(c, l, L_MEM, op->number, (int64_t)op->number2);
	if (a == DW_OP_fbreg) {
		int err = frame_base(c, l);
		if (!err)
			l->off += (int64_t)op->number;
		return err;
	}
	if (a == DW_OP_addr) {
		loc_set(l, L_ABS, NULL, (int64_t)op->number + c->file_delta);
		return 0;
	}
	if ((a >= DW_OP_lit0 && a <= DW_OP_lit31) || a == DW_OP_const1u || a == DW_OP_const2u ||
	    a == DW_OP_const4u || a == DW_OP_const8u || a == DW_OP_constu) {
		char imm[32];
		snprintf(imm, sizeof(imm), "\\%" PRIu64,
			 a >= DW_OP_lit0 && a <= DW_OP_lit31 ? (uint64_t)(a - DW_OP_lit0) : op->number);
		loc_set(l, L_VAL, imm, 0);
		l->off = 1; /* a constant: only DW_OP_stack_value may follow */
		return 0;
	}
	if (a == DW_OP_entry_value || a == DW_OP_GNU_entry_value) {
		Dwarf_Attribute blk;
		Dwarf_Op *in;
		size_t n;
		if (c->pc != c->f->entry)
			return fail(c, "'%s' is known at %#" PRIx64 " only as the value it had at the "
				    "function's entry: probe the entry", c->expr, c->pc);
		if (c->attr && dwarf_getlocation_attr(c->attr, op, &blk) == 0 &&
		    dwarf_getlocation(&blk, &in, &n) == 0 && n == 1 && in[0].atom >= DW_OP_reg0 &&
		    in[0].atom <= DW_OP_reg31)
			/* at the entry, that register still holds it: its value is an address */
			return set_reg(c, l, L_MEM, in[0].atom - DW_OP_reg0, 0);
		return fail(c, "'%s' is the entry value of an expression kprof cannot fetch",
			    c->expr);
	}
	return fail(c, "the location of '%s' at %#" PRIx64 " is a DWARF expression kprof cannot "
		    "fetch (opcode %#x)", c->expr, c->pc, a);
}

/* A location expression of @n operations into @l. */
static int translate(struct ctx *c, const Dwarf_Op *ops, size_t n, struct loc *l)
{
	bool is_const;
	int err = first_op(c, &ops[0], l);

	is_const = !err && l->k == L_VAL && l->base[0] == '\\';
	for (size_t i = 1; i < n && !err; i++) {
		uint8_t a = ops[i].atom;
		if (a == DW_OP_stack_value && l->k == L_MEM && l->off == 0) {
			loc_set(l, L_VAL, l->base, 0); /* the address is the value */
		} else if (a == DW_OP_stack_value && is_const) {
			l->off = 0;
			is_const = false;
		} else if (a == DW_OP_stack_value && l->k == L_MEM) {
			err = fail(c, "'%s' at %#" PRIx64 " is %s%+" PRId64 ", a value kprof cannot "
				   "compute", c->expr, c->pc, l->base, l->off);
		} else if (a == DW_OP_plus_uconst && l->k != L_VAL) {
			l->off += (int64_t)ops[i].number;
		} else if (a == DW_OP_deref && l->k != L_VAL) {
			loc_deref(l, 0);
		} else if (a == DW_OP_piece && i == n - 1) {
			continue; /* one piece: the whole of it */
		} else {
			err = fail(c, "the location of '%s' at %#" PRIx64 " is a DWARF expression "
				   "kprof cannot fetch (opcode %#x after the first)", c->expr, c->pc,
				   a);
		}
	}
	if (!err && is_const && l->off)
		err = fail(c, "the location of '%s' is a constant address", c->expr);
	return err;
}

/* ---- types ---------------------------------------------------------------------------------- */

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, type))
		return false;
	return dwarf_peel_type(type, type) == 0;
}

static const char *type_name(Dwarf_Die *t)
{
	const char *n = dwarf_diename(t);

	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type:
		return n ? n : "struct";
	case DW_TAG_union_type:
		return n ? n : "union";
	case DW_TAG_array_type:
		return "an array";
	default:
		return n ? n : "a type without a name";
	}
}

/* The member @name of struct or union @t, anonymous ones searched through: its type, offset. */
static bool member(Dwarf_Die *t, const char *name, Dwarf_Die *mt, int64_t *off, bool *bits)
{
	Dwarf_Die m;

	if (dwarf_child(t, &m))
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word o = 0;
		const char *n;
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		n = dwarf_diename(&m);
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &o))
			continue; /* a location that is an expression (a virtual base) */
		if (n && !strcmp(n, name)) {
			if (!type_of(&m, mt))
				return false;
			*off = (int64_t)o;
			*bits = dwarf_hasattr(&m, DW_AT_bit_size);
			return true;
		}
		if (!n) {
			Dwarf_Die sub;
			int64_t so;
			if (type_of(&m, &sub) && member(&sub, name, mt, &so, bits)) {
				*off = (int64_t)o + so;
				return true;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* The element size of pointer or array type @t, and its element type. */
static bool element(Dwarf_Die *t, Dwarf_Die *et, Dwarf_Word *size)
{
	if (!type_of(t, et))
		return false;
	if (dwarf_aggregate_size(et, size))
		return false;
	return *size > 0;
}

/* One accessor of @p ("->f", ".f", "[N]") applied to @l of type @t; returns its length. */
static int accessor(struct ctx *c, const char *p, struct loc *l, Dwarf_Die *t, size_t *used)
{
	int tag = dwarf_tag(t);
	bool arrow = !strncmp(p, "->", 2), bits = false;
	const char *what = arrow ? "->" : p[0] == '.' ? "." : "[";

	if (p[0] == '[') {
		char *end;
		long long i = strtoll(p + 1, &end, 0);
		Dwarf_Die et;
		Dwarf_Word size;
		if (end == p + 1 || *end != ']')
			return fail(c, "bad index in '%s': [N] takes a number", c->expr);
		if ((tag != DW_TAG_pointer_type && tag != DW_TAG_array_type) ||
		    !element(t, &et, &size))
			return fail(c, "'%.*s' is %s, not a pointer or an array to index",
				    (int)(p - c->expr), c->expr, type_name(t));
		if (tag == DW_TAG_pointer_type)
			loc_deref(l, 0);
		else if (l->k == L_VAL)
			return fail(c, "'%.*s' is an array in a register", (int)(p - c->expr), c->expr);
		l->off += (int64_t)(i * (long long)size);
		*t = et;
		*used = (size_t)(end + 1 - p);
		return 0;
	}
	{
		const char *name = p + (arrow ? 2 : 1);
		size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		char field[128];
		Dwarf_Die st = *t, mt;
		int64_t off;
		if (!n || n >= sizeof(field))
			return fail(c, "bad field name after '%s' in '%s'", what, c->expr);
		snprintf(field, sizeof(field), "%.*s", (int)n, name);
		if (arrow) {
			if (tag != DW_TAG_pointer_type || !type_of(t, &st))
				return fail(c, "'%.*s' is %s, not a pointer: '.%s' takes its field",
					    (int)(p - c->expr), c->expr, type_name(t), field);
		} else if (tag == DW_TAG_pointer_type) {
			return fail(c, "'%.*s' is a pointer: '->%s' takes the field it points at",
				    (int)(p - c->expr), c->expr, field);
		}
		tag = dwarf_tag(&st);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_class_type)
			return fail(c, "'%.*s' is %s, which has no fields", (int)(p - c->expr),
				    c->expr, type_name(&st));
		if (!member(&st, field, &mt, &off, &bits))
			return fail(c, "%s %s has no field '%s'", tag == DW_TAG_union_type ? "union"
				    : "struct", type_name(&st), field);
		if (bits)
			return fail(c, "'%s' is a bit-field, which kprof does not fetch", field);
		if (arrow)
			loc_deref(l, 0);
		else if (l->k == L_VAL)
			return fail(c, "'%.*s' is a struct held in registers: its fields cannot be "
				    "fetched", (int)(p - c->expr), c->expr);
		l->off += off;
		*t = mt;
		*used = (size_t)(name + n - p);
		return 0;
	}
}

/* The kernel's type for a value of DWARF type @t: "s32", "u8", "x64"; NULL after fail(). */
static const char *kernel_type(struct ctx *c, Dwarf_Die *t)
{
	static const char *const types[2][4] = { { "u8", "u16", "u32", "u64" },
						 { "s8", "s16", "s32", "s64" } };
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_unsigned, size = 0;
	int tag = dwarf_tag(t), idx;

	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type)
		return "x64";
	if (tag == DW_TAG_enumeration_type) {
		Dwarf_Die u;
		if (type_of(t, &u))
			dwarf_formudata(dwarf_attr(&u, DW_AT_encoding, &a), &enc);
	} else if (tag == DW_TAG_base_type) {
		dwarf_formudata(dwarf_attr(t, DW_AT_encoding, &a), &enc);
	} else {
		fail(c, "'%s' is %s%s", c->expr, type_name(t),
		     tag == DW_TAG_array_type ? ": index it ([N]) or read it with :string"
		     : tag == DW_TAG_structure_type || tag == DW_TAG_union_type
			     ? ": name one of its fields ('.f')" : ", not a number kprof can fetch");
		return NULL;
	}
	if (dwarf_aggregate_size(t, &size))
		size = 0;
	if (enc == DW_ATE_float || enc == DW_ATE_complex_float) {
		fail(c, "'%s' is a floating-point %s: :x%u fetches its bits", c->expr, type_name(t),
		     (unsigned)size * 8);
		return NULL;
	}
	idx = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
	if (idx < 0) {
		fail(c, "'%s' is %s of %u bytes, more than the 8 kprof fetches", c->expr,
		     type_name(t), (unsigned)size);
		return NULL;
	}
	return types[enc == DW_ATE_signed || enc == DW_ATE_signed_char][idx];
}

/* The names of the variables and parameters visible at c->pc, for the error. */
static void visible(struct ctx *c, Dwarf_Die *scopes, int n, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		Dwarf_Die v;
		int tag = dwarf_tag(&scopes[i]);
		if (dwarf_child(&scopes[i], &v) == 0)
			do {
				const char *name = dwarf_diename(&v);
				int t = dwarf_tag(&v);
				if (name && (t == DW_TAG_formal_parameter || t == DW_TAG_variable) &&
				    o < len && !strstr(out, name))
					o += (size_t)snprintf(out + o, len - o, "%s%s", o ? ", " : "",
							      name);
			} while (dwarf_siblingof(&v, &v) == 0);
		if (tag == DW_TAG_subprogram)
			break;
	}
	(void)c;
}

static int find_var(struct ctx *c, const char *name, Dwarf_Die *var)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes((Dwarf_Die *)&c->f->cu, c->pc, &scopes), err = 0;

	if (n <= 0) {
		err = fail(c, "no DWARF scope covers %#" PRIx64, c->pc);
	} else if (dwarf_getscopevar(scopes, n, name, 0, NULL, 0, 0, var) < 0) {
		char names[256];
		visible(c, scopes, n, names, sizeof(names));
		err = fail(c, "no variable '%s' at %#" PRIx64 "%s%s%s", name, c->pc,
			   names[0] ? " (there: " : "", names, names[0] ? ")" : "");
	}
	free(scopes);
	return err;
}

/* Where variable @var is at c->pc. */
static int var_loc(struct ctx *c, Dwarf_Die *var, const char *name, struct loc *l)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	int r;

	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		Dwarf_Sword v;
		char imm[32];
		if (dwarf_formsdata(&a, &v))
			return fail(c, "'%s' is a constant kprof cannot fetch", name);
		snprintf(imm, sizeof(imm), "\\%lld", (long long)v);
		loc_set(l, L_VAL, imm, 0);
		return 0;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &a))
		return fail(c, "'%s' has no location: optimized out", name);
	c->attr = &a;
	r = dwarf_getlocation_addr(&a, c->pc, &ops, &n, 1);
	if (r < 0)
		return fail(c, "the location of '%s' cannot be read: %s", name, dwarf_errmsg(-1));
	if (r == 0 || n == 0)
		return fail(c, "'%s' is not available at %#" PRIx64 " (optimized out there)", name,
			    c->pc);
	return translate(c, ops, n, l);
}

int kp_pdw_var(struct kp_pdw *d, const struct kp_pdw_func *f, uint64_t pc, int64_t file_delta,
	       const char *expr, const char *cast, char **fetch, char **type, char *why,
	       size_t len)
{
	struct ctx c = { d, f, pc, file_delta, expr, NULL, why, len };
	struct loc l = { L_VAL, NULL, 0 };
	size_t n = strspn(expr, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	char name[128];
	Dwarf_Die var, t;
	const char *p, *kt;
	bool string = cast && !strcmp(cast, "string");
	int err = 0, tag;

	*fetch = *type = NULL;
	if (!strncmp(expr, "$retval", 7)) {
		n = 7;
		var = f->die;
		loc_set(&l, L_VAL, "$retval", 0);
		if (!type_of(&var, &t))
			err = fail(&c, "the function returns nothing (void): '$retval' has no value");
	} else if (!n || n >= sizeof(name) || (expr[0] >= '0' && expr[0] <= '9')) {
		return fail(&c, "bad argument '%s': a variable's name, then ->field, .field or "
			    "[N]", expr);
	} else {
		snprintf(name, sizeof(name), "%.*s", (int)n, expr);
		err = find_var(&c, name, &var);
		if (!err)
			err = var_loc(&c, &var, name, &l);
		if (!err && !type_of(&var, &t))
			err = fail(&c, "'%s' has no type in DWARF", name);
	}
	for (p = expr + n; !err && *p;) {
		size_t used = 0;
		if (strncmp(p, "->", 2) && *p != '.' && *p != '[') {
			err = fail(&c, "bad argument '%s': '%s' is not ->field, .field or [N]", expr,
				   p);
			break;
		}
		err = accessor(&c, p, &l, &t, &used);
		p += used;
	}
	if (err)
		goto out;
	tag = dwarf_tag(&t);
	if (string && tag == DW_TAG_array_type && l.k != L_VAL) {
		char *s = loc_text(&l);
		*fetch = s; /* the string is at the array's address */
	} else if (string && tag == DW_TAG_array_type) {
		err = fail(&c, "'%s' is an array in a register", expr);
	} else if (string && tag != DW_TAG_pointer_type) {
		err = fail(&c, "'%s' is %s, not a pointer to a string", expr, type_name(&t));
	} else if (string) {
		loc_deref(&l, 0); /* the string is where the pointer points */
		*fetch = loc_text(&l);
	} else if (cast) {
		*fetch = loc_text(&l);
	} else if ((kt = kernel_type(&c, &t))) {
		*fetch = loc_text(&l);
		*type = kp_xstrdup(kt);
	} else {
		err = -EINVAL;
	}
	if (!err && cast)
		*type = kp_xstrdup(cast);
out:
	free(l.base);
	if (err) {
		free(*fetch);
		*fetch = NULL;
	}
	return err;
}

char *kp_pdw_params(struct kp_pdw *d, const struct kp_pdw_func *f)
{
	Dwarf_Die v;
	char *out = kp_xstrdup("");
	size_t len = 0;

	(void)d;
	if (dwarf_child((Dwarf_Die *)&f->die, &v))
		return out;
	do {
		const char *name = dwarf_diename(&v);
		if (dwarf_tag(&v) != DW_TAG_formal_parameter || !name)
			continue;
		out = kp_xrealloc(out, len + strlen(name) + 2);
		len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", name);
	} while (dwarf_siblingof(&v, &v) == 0);
	return out;
}

/* SPDX-License-Identifier: MIT */
/*
 * sdt.c - a binary's SDT notes (.note.stapsdt) read through libelf, and their arguments.
 */
#include "sdt.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

#define NT_STAPSDT 3

/* The section called @name, or NULL. */
static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *n;
		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* An address of @size bytes in the file's byte order @data (ELFDATA2LSB or MSB). */
static uint64_t addr_at(const unsigned char *p, size_t size, int data)
{
	uint64_t v = 0;

	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)p[data == ELFDATA2MSB ? size - 1 - i : i] << (8 * i);
	return v;
}

/* One note's descriptor of @len bytes into @p: 0, or -EINVAL when malformed. */
static int parse_note(const unsigned char *desc, size_t len, size_t asize, int data,
		      struct kp_sdt_probe *p)
{
	const char *s = (const char *)desc + 3 * asize, *end = (const char *)desc + len, *strs[3];

	if (len < 3 * asize)
		return -EINVAL;
	for (int i = 0; i < 3; i++) {
		const char *nul = memchr(s, '\0', (size_t)(end - s));
		if (s >= end || !nul)
			return -EINVAL;
		strs[i] = s;
		s = nul + 1;
	}
	p->pc = addr_at(desc, asize, data);
	p->semaphore = addr_at(desc + 2 * asize, asize, data);
	p->provider = kp_xstrdup(strs[0]);
	p->name = kp_xstrdup(strs[1]);
	p->args = kp_xstrdup(strs[2]);
	return 0;
}

int kp_sdt_read(Elf *elf, struct kp_sdt_probe **probes, size_t *nr)
{
	GElf_Ehdr eh;
	GElf_Shdr sh, bsh;
	Elf_Scn *scn, *base_scn;
	Elf_Data *d;
	size_t asize, off = 0, cap = 0, next;
	GElf_Nhdr nh;
	size_t name_off, desc_off;

	*probes = NULL;
	*nr = 0;
	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	asize = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	scn = section(elf, ".note.stapsdt", &sh);
	if (!scn || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
		return 0;
	base_scn = section(elf, ".stapsdt.base", &bsh);
	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *owner = (const char *)d->d_buf + name_off;
		struct kp_sdt_probe p;
		off = next;
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 || memcmp(owner, "stapsdt", 8))
			continue;
		if (parse_note((const unsigned char *)d->d_buf + desc_off, nh.n_descsz, asize,
			       eh.e_ident[EI_DATA], &p)) {
			kp_sdt_free(*probes, *nr);
			*probes = NULL;
			*nr = 0;
			return -EINVAL;
		}
		if (base_scn) { /* where prelink moved the binary, the probe moved as much */
			uint64_t link_base = addr_at((const unsigned char *)d->d_buf + desc_off +
							     asize, asize, eh.e_ident[EI_DATA]);
			p.pc += bsh.sh_addr - link_base;
			if (p.semaphore)
				p.semaphore += bsh.sh_addr - link_base;
		}
		KP_GROW(*probes, cap, *nr + 1);
		(*probes)[(*nr)++] = p;
	}
	return 0;
}

void kp_sdt_free(struct kp_sdt_probe *probes, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(probes[i].provider);
		free(probes[i].name);
		free(probes[i].args);
	}
	free(probes);
}

/* The start of argument @i of @args and its length; NULL past the last. */
static const char *nth_arg(const char *args, size_t i, size_t *len)
{
	const char *p = args + strspn(args, " \t");

	for (;;) {
		size_t n = strcspn(p, " \t");
		if (!n)
			return NULL;
		if (!i--) {
			*len = n;
			return p;
		}
		p += n;
		p += strspn(p, " \t");
	}
}

size_t kp_sdt_nr_args(const struct kp_sdt_probe *p)
{
	size_t n = 0, len;

	while (nth_arg(p->args, n, &len))
		n++;
	return n;
}

static int fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* x86-64's register names, each width, as the kernel's fetch arguments name the register. */
static const char *canon_reg(const char *r, size_t n)
{
#if defined(__x86_64__)
	static const struct {
		const char *names[4];
		const char *canon;
	} regs[] = {
		{ { "rax", "eax", "ax", "al" }, "%ax" },   { { "rbx", "ebx", "bx", "bl" }, "%bx" },
		{ { "rcx", "ecx", "cx", "cl" }, "%cx" },   { { "rdx", "edx", "dx", "dl" }, "%dx" },
		{ { "rsi", "esi", "si", "sil" }, "%si" },  { { "rdi", "edi", "di", "dil" }, "%di" },
		{ { "rbp", "ebp", "bp", "bpl" }, "%bp" },  { { "rsp", "esp", "sp", "spl" }, "%sp" },
		{ { "rip", "eip", NULL, NULL }, "%ip" },
	};
	static const char *const hi[] = { "%r8", "%r9", "%r10", "%r11", "%r12", "%r13",
					  "%r14", "%r15" };

	for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
		for (size_t j = 0; j < 4; j++)
			if (regs[i].names[j] && strlen(regs[i].names[j]) == n &&
			    !strncmp(regs[i].names[j], r, n))
				return regs[i].canon;
	/* r8 .. r15, with a d, w or b suffix */
	if (n >= 2 && r[0] == 'r') {
		char *end;
		long k = strtol(r + 1, &end, 10);
		size_t used = (size_t)(end - r);
		if (k >= 8 && k <= 15 && end != r + 1 &&
		    (used == n || (used + 1 == n && strchr("dwb", r[used]))))
			return hi[k - 8];
	}
#else
	(void)r;
	(void)n;
#endif
	return NULL;
}

int kp_sdt_arg(const struct kp_sdt_probe *p, size_t i, char **fetch, const char **type,
	       char *why, size_t len)
{
	static const char *const types[2][4] = { { "u8", "u16", "u32", "u64" },
						 { "s8", "s16", "s32", "s64" } };
	size_t n, rn;
	const char *a = nth_arg(p->args, i, &n), *at, *op, *reg;
	char text[128];
	long size = 8;
	bool sign = false;
	int idx;

	*fetch = NULL;
	if (!a)
		return fail(why, len, "%s:%s has %zu argument%s, no arg%zu", p->provider, p->name,
			    kp_sdt_nr_args(p), kp_sdt_nr_args(p) == 1 ? "" : "s", i + 1);
	snprintf(text, sizeof(text), "%.*s", (int)n, a);
	at = strchr(text, '@');
	op = at ? at + 1 : text;
	if (at) {
		char *end;
		size = strtol(text, &end, 10);
		sign = size < 0;
		size = sign ? -size : size;
		if (end != at)
			return fail(why, len, "bad size in argument '%s' of %s:%s", text, p->provider,
				    p->name);
	}
	idx = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
	if (idx < 0)
		return fail(why, len, "argument '%s' of %s:%s is %ld bytes long", text, p->provider,
			    p->name, size);
	*type = types[sign][idx];
	if (op[0] == '%') { /* a register */
		reg = canon_reg(op + 1, strlen(op + 1));
		if (!reg)
			return fail(why, len, "argument '%s' of %s:%s is in register %s, which kprof "
				    "cannot fetch", text, p->provider, p->name, op);
		*fetch = kp_xstrdup(reg);
		return 0;
	}
	if (op[0] == '$') { /* an immediate */
		char *end;
		long long v = strtoll(op + 1, &end, 0);
		if (end == op + 1 || *end)
			return fail(why, len, "argument '%s' of %s:%s is a constant kprof cannot "
				    "read", text, p->provider, p->name);
		if (asprintf(fetch, "\\%lld", v) < 0)
			abort();
		return 0;
	}
	{ /* OFF(%REG): memory */
		const char *open = strchr(op, '('), *close = open ? strchr(open, ')') : NULL;
		char *end;
		long long off = open == op ? 0 : strtoll(op, &end, 0);
		if (!open || !close || close[1] || (open != op && end != open) || open[1] != '%')
			return fail(why, len, "argument '%s' of %s:%s is an operand kprof cannot "
				    "fetch (only %%REG, OFF(%%REG) and $IMM are)", text, p->provider,
				    p->name);
		rn = (size_t)(close - open - 2);
		reg = canon_reg(open + 2, rn);
		if (!reg || !strcmp(reg, "%ip"))
			return fail(why, len, "argument '%s' of %s:%s is addressed from %.*s, which "
				    "kprof cannot fetch", text, p->provider, p->name,
				    (int)(close - open - 1), open + 1);
		if (asprintf(fetch, "%+lld(%s)", off, reg) < 0)
			abort();
		return 0;
	}
}

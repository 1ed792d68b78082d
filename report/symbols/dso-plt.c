/* SPDX-License-Identifier: MIT */
/*
 * dso-plt.c - the PLT entries of an x86-64 binary, which its symbol tables do not name: one
 * symbol per entry of .plt, .plt.sec and .plt.got, named "func@plt" after the symbol whose GOT
 * slot the entry jumps through, as perf names them; one whose slot an IFUNC's resolver fills
 * (libc calling its own string functions) after the IFUNC, where perf prints an address.
 */
#include "dso-plt.h"

#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A got_slots() value: the slot holds what the IFUNC resolver at the low bits picks. */
#define SLOT_IFUNC (1ull << 63)

/* GOT slots that a relocation fills with a symbol's address (R_X86_64_JUMP_SLOT from
 * .rela.plt, R_X86_64_GLOB_DAT from .rela.dyn for .plt.got): slot -> symtab scn << 32 | sym;
 * or with what an IFUNC resolver returns (R_X86_64_IRELATIVE, libc's own calls to its string
 * functions): slot -> SLOT_IFUNC | the resolver's address. */
static void got_slots(Elf_Scn *scn, const GElf_Shdr *sh, struct kp_hash *slots)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = data && sh->sh_entsize == sizeof(Elf64_Rela) ? data->d_size / sh->sh_entsize : 0;

	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		unsigned type;

		if (!gelf_getrela(data, (int)i, &r))
			break;
		type = (unsigned)GELF_R_TYPE(r.r_info);
		if ((type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) && GELF_R_SYM(r.r_info))
			kp_hash_put(slots, r.r_offset,
				    (uint64_t)sh->sh_link << 32 | GELF_R_SYM(r.r_info));
		else if (type == R_X86_64_IRELATIVE && r.r_addend > 0)
			kp_hash_put(slots, r.r_offset, SLOT_IFUNC | (uint64_t)r.r_addend);
	}
}

/*
 * The IFUNCs that @elf exports (.dynsym), when @slots holds one's: resolver address -> symtab
 * scn << 32 | sym, a global one over a weak alias (strchr, not index).
 */
static void ifunc_syms(Elf *elf, const struct kp_hash *slots, struct kp_hash *ifuncs)
{
	bool any = false;

	for (size_t i = 0; i < slots->cap && !any; i++)
		any = slots->ents[i].used && (slots->ents[i].val & SLOT_IFUNC);
	for (int pass = 0; any && pass < 2; pass++) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
			Elf_Data *data = elf_getdata(scn, NULL);
			GElf_Shdr sh;
			GElf_Sym sym;

			if (!data || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
			    sh.sh_entsize != sizeof(Elf64_Sym))
				continue;
			for (size_t i = 1; i < data->d_size / sh.sh_entsize; i++)
				if (gelf_getsym(data, (int)i, &sym) &&
				    GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC &&
				    (GELF_ST_BIND(sym.st_info) == STB_GLOBAL) == !pass &&
				    !kp_hash_get(ifuncs, sym.st_value))
					kp_hash_put(ifuncs, sym.st_value,
						    (uint64_t)elf_ndxscn(scn) << 32 | i);
		}
	}
}

/* The name of the symbol @ref (got_slots()' value) as "name@plt", interned; NULL if none. */
static const char *plt_name(struct kp_symnames *names, Elf *elf, uint64_t ref)
{
	Elf_Scn *scn = elf_getscn(elf, (size_t)(ref >> 32));
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *name;
	char *dm, buf[1024];

	if (!data || !gelf_getshdr(scn, &sh) || !gelf_getsym(data, (int)(uint32_t)ref, &sym))
		return NULL;
	name = elf_strptr(elf, sh.sh_link, sym.st_name);
	if (!name || !*name)
		return NULL;
	dm = names->demangle ? kp_demangle(name) : NULL;
	snprintf(buf, sizeof(buf), "%s@plt", dm ? dm : name);
	free(dm);
	return kp_symnames_intern(names, buf);
}

/*
 * One symbol per entry of a PLT section (.plt, .plt.sec, .plt.got), named after the symbol
 * whose GOT slot the entry jumps through: `[endbr64] [bnd] jmp *disp32(%rip)`, as perf names
 * them. Entries that jump elsewhere (.plt's first one, IBT's lazy stubs) stay unnamed.
 */
static void plt_section(struct kp_symtab *st, struct kp_symnames *names, uint64_t bias, Elf *elf,
			Elf_Scn *scn, const GElf_Shdr *sh, const struct kp_hash *slots,
			const struct kp_hash *ifuncs)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t ent = sh->sh_entsize ? sh->sh_entsize : 16;

	if (!data || !data->d_buf || ent < 8 || ent > 64)
		return;
	for (size_t off = 0; off + ent <= data->d_size; off += ent) {
		const uint8_t *p = (const uint8_t *)data->d_buf + off, *end = p + ent;
		const uint64_t *ref;
		const char *name;
		int32_t disp;

		if (!memcmp(p, endbr64, sizeof(endbr64)))
			p += sizeof(endbr64);
		if (*p == 0xf2) /* bnd */
			p++;
		if (p + 6 > end || p[0] != 0xff || p[1] != 0x25)
			continue;
		memcpy(&disp, p + 2, sizeof(disp));
		ref = kp_hash_get(slots, sh->sh_addr + (uint64_t)(p + 6 - (const uint8_t *)data->d_buf)
					 + (uint64_t)(int64_t)disp);
		if (ref && (*ref & SLOT_IFUNC))
			ref = kp_hash_get(ifuncs, *ref & ~SLOT_IFUNC);
		name = ref ? plt_name(names, elf, *ref) : NULL;
		if (name)
			kp_symtab_add(st, (struct kp_sym){ sh->sh_addr + off + bias, ent, name, true,
							   STB_GLOBAL });
	}
}

void kp_plt_syms(Elf *elf, uint64_t bias, struct kp_symtab *st, struct kp_symnames *names)
{
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t shstrndx;
	struct kp_hash slots, ifuncs;

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return;
	kp_hash_init(&slots);
	kp_hash_init(&ifuncs);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			got_slots(scn, &sh, &slots);
	ifunc_syms(elf, &slots, &ifuncs);
	for (Elf_Scn *scn = NULL; slots.nr && (scn = elf_nextscn(elf, scn));) {
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name)
							  : NULL;

		if (name && sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) &&
		    (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got")))
			plt_section(st, names, bias, elf, scn, &sh, &slots, &ifuncs);
	}
	kp_hash_release(&slots);
	kp_hash_release(&ifuncs);
}

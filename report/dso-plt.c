/* SPDX-License-Identifier: MIT */
/*
 * dso-plt.c - the PLT entries of an x86-64 binary, which its symbol tables do not name: one
 * symbol per entry of .plt, .plt.sec and .plt.got, named "func@plt" after the symbol whose GOT
 * slot the entry jumps through, as perf names them; an IFUNC's slot (libc calling its own
 * string functions) after the IFUNC, where perf prints the resolver's address.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/dso-int.h"

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

/* The name of the IFUNC symbol whose resolver is at @vaddr (memmove, for the resolver that
 * picks one of libc's memmoves), or NULL. */
static const char *ifunc_name(struct kp_dso *d, uint64_t vaddr)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(d->mod, vaddr + d->bias, &off, &sym, NULL, NULL,
						NULL);

	return name && !off && GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC ? name : NULL;
}

/* The name of the symbol @ref (got_slots()' value) as "name@plt", interned; NULL if none. */
static const char *plt_name(struct kp_dso *d, Elf *elf, uint64_t ref)
{
	Elf_Scn *scn = ref & SLOT_IFUNC ? NULL : elf_getscn(elf, (size_t)(ref >> 32));
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *name;
	char *dm, buf[1024];

	if (ref & SLOT_IFUNC)
		name = ifunc_name(d, ref & ~SLOT_IFUNC);
	else if (!data || !gelf_getshdr(scn, &sh) || !gelf_getsym(data, (int)(uint32_t)ref, &sym))
		return NULL;
	else
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
	if (!name || !*name)
		return NULL;
	dm = d->t->opts.demangle ? kp_demangle(name) : NULL;
	/* a symbol version ("memcpy@@GLIBC_2.14", as a debug file's .symtab spells it) is not
	 * the entry's name */
	snprintf(buf, sizeof(buf), "%.*s@plt", (int)strcspn(dm ? dm : name, "@"), dm ? dm : name);
	free(dm);
	return kp_dsos_intern(d->t, buf);
}

/*
 * One symbol per entry of a PLT section (.plt, .plt.sec, .plt.got), named after the symbol
 * whose GOT slot the entry jumps through: `[endbr64] [bnd] jmp *disp32(%rip)`, as perf names
 * them. Entries that jump elsewhere (.plt's first one, IBT's lazy stubs) stay unnamed.
 */
static void plt_section(struct kp_dso *d, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			const struct kp_hash *slots)
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
		name = ref ? plt_name(d, elf, *ref) : NULL;
		if (name)
			kp_dso_sym_add(d, (struct sym){ sh->sh_addr + off + d->bias, ent, name, true,
						 STB_GLOBAL });
	}
}

void kp_dso_plt_syms(struct kp_dso *d)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t shstrndx;
	struct kp_hash slots;

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return;
	kp_hash_init(&slots);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			got_slots(scn, &sh, &slots);
	for (Elf_Scn *scn = NULL; slots.nr && (scn = elf_nextscn(elf, scn));) {
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name)
							  : NULL;

		if (name && sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) &&
		    (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got")))
			plt_section(d, elf, scn, &sh, &slots);
	}
	kp_hash_release(&slots);
}

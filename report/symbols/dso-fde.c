/* SPDX-License-Identifier: MIT */
/*
 * dso-fde.c - the functions a binary's unwind tables delimit (see dso-fde.h): its FDEs' ranges,
 * read with libdw, kept where they are plausible, sorted for a binary search, and taken where
 * libdw's lookup of the CFI agrees.
 */
#include "dso-fde.h"

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "ehhdr.h"
#include "report/base/hash.h"
#include "report/base/search.h"

#define ENC_NONE 0x100 /* a CIE whose FDEs cannot be read */

/* How the FDEs of the CIE @c encode their addresses: the 'R' of a "z" augmentation, absptr
 * without one; ENC_NONE for an augmentation not understood. */
static unsigned cie_encoding(const Dwarf_CIE *c, unsigned ptr_size, bool big)
{
	const uint8_t *p = c->augmentation_data, *end = p + c->augmentation_data_size;
	const char *a = c->augmentation;
	uint64_t skip;

	if (!a || !*a)
		return 0x00; /* absptr */
	if (*a != 'z' || !p)
		return ENC_NONE;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R': /* pcrel or absolute: the others need bases a binary does not say */
			return p < end && (*p & 0x70) != 0x30 ? *p : ENC_NONE;
		case 'L':
			if (p++ >= end)
				return ENC_NONE;
			break;
		case 'P': /* the personality routine: its encoding, then it */
			if (p >= end)
				return ENC_NONE;
			p++;
			if (!kp_eh_pe_read(p[-1] & KP_EH_PE_FORMAT, &p, end, ptr_size, big, 0, 0,
					   &skip))
				return ENC_NONE;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return ENC_NONE;
		}
	}
	return 0x00;
}

/* The CIE at section offset @off's encoding, read once (@cies: offset -> encoding + 1). */
static unsigned cie_at(struct kp_hash *cies, const unsigned char *ident, Elf_Data *data,
		       bool eh, Dwarf_Off off, unsigned ptr_size, bool big)
{
	uint64_t *v = kp_hash_get(cies, off);
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	unsigned enc = ENC_NONE;

	if (v)
		return (unsigned)*v - 1;
	if (!dwarf_next_cfi(ident, data, eh, off, &next, &e) && dwarf_cfi_cie_p(&e))
		enc = cie_encoding(&e.cie, ptr_size, big);
	kp_hash_put(cies, off, enc + 1);
	return enc;
}

/* Whether [@start, @end) lies in the file bytes of one executable PT_LOAD of @elf. */
static bool in_code(Elf *elf, uint64_t start, uint64_t end)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (ph && ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && start >= ph->p_vaddr &&
		    end - ph->p_vaddr <= ph->p_filesz)
			return true;
	}
	return false;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct kp_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Sorts the FDEs and leaves out every one that overlaps another: neither can be trusted. */
static void drop_overlaps(struct kp_fde_table *t)
{
	uint64_t reach = 0; /* the furthest end of the FDEs before */
	bool *bad;
	size_t k = 0;

	if (!t->nr)
		return;
	qsort(t->v, t->nr, sizeof(*t->v), fde_cmp);
	bad = kp_xcalloc(t->nr, sizeof(*bad));
	for (size_t i = 0; i < t->nr; i++) {
		/* sorted by start, one overlaps a later one iff it overlaps the next */
		if ((i && t->v[i].start < reach) ||
		    (i + 1 < t->nr && t->v[i].end > t->v[i + 1].start))
			bad[i] = true;
		if (t->v[i].end > reach)
			reach = t->v[i].end;
	}
	for (size_t i = 0; i < t->nr; i++)
		if (!bad[i])
			t->v[k++] = t->v[i];
	t->nr = k;
	free(bad);
}

/*
 * The FDEs of @elf's section @name (".eh_frame" or ".debug_frame") into @t: only those whose
 * range is not empty, lies in the file bytes of one executable PT_LOAD and overlaps no other's.
 * Entries libdw cannot read, or of a CIE whose pointer encoding is not understood, are left out.
 */
static void table_read(struct kp_fde_table *t, Elf *elf, const char *name)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	bool eh = !strcmp(name, ".eh_frame"), big;
	unsigned ptr_size;
	size_t shstrndx, cap = 0;
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;
	GElf_Shdr sh;
	struct kp_hash cies;

	memset(t, 0, sizeof(*t));
	if (!ident || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(n = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(n, name))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return;
		data = elf_getdata(scn, NULL);
		break;
	}
	if (!data || !data->d_buf || !data->d_size)
		return;
	ptr_size = ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	big = ident[EI_DATA] == ELFDATA2MSB;
	kp_hash_init(&cies);
	for (Dwarf_Off off = 0, next = 0; off < data->d_size; off = next) {
		Dwarf_CFI_Entry e;
		const uint8_t *p;
		uint64_t start, len;
		unsigned enc;
		int rc;

		next = off; /* not every failure says where the next entry is */
		rc = dwarf_next_cfi(ident, data, eh, off, &next, &e);
		if (rc > 0 || next <= off || next == (Dwarf_Off)-1)
			break; /* the end, or an entry no next one can be found after */
		if (rc < 0 || dwarf_cfi_cie_p(&e))
			continue;
		enc = cie_at(&cies, ident, data, eh, e.fde.CIE_pointer, ptr_size, big);
		p = e.fde.start;
		if (enc == ENC_NONE || !p || p < (const uint8_t *)data->d_buf || e.fde.end < p ||
		    !kp_eh_pe_read((uint8_t)enc, &p, e.fde.end, ptr_size, big,
				   sh.sh_addr + (uint64_t)(p - (const uint8_t *)data->d_buf), 0,
				   &start) ||
		    !kp_eh_pe_read((uint8_t)enc & KP_EH_PE_FORMAT, &p, e.fde.end, ptr_size, big, 0,
				   0, &len) ||
		    !len || start + len < start || !in_code(elf, start, start + len))
			continue;
		KP_GROW(t->v, cap, t->nr + 1);
		t->v[t->nr++] = (struct kp_fde){ start, start + len };
	}
	kp_hash_release(&cies);
	drop_overlaps(t);
}

/* The FDE of @t whose range holds ELF address @addr, NULL if none does. */
static const struct kp_fde *table_find(const struct kp_fde_table *t, uint64_t addr)
{
	size_t i = KP_FIRST_ABOVE(t->v, t->nr, start, addr);

	return i && addr < t->v[i - 1].end ? &t->v[i - 1] : NULL;
}

static void tables_read(struct kp_fdes *t, Dwfl_Module *mod)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	t->read = true;
	if (!elf)
		return;
	table_read(&t->eh, elf, ".eh_frame");
	table_read(&t->debug, elf, ".debug_frame");
}

/*
 * The FDE of @table holding ELF address @vaddr, when libdw's lookup in @cfi (whose addresses
 * are module addresses - @cfi_bias) agrees: the rows it finds there lie in that FDE (a lying
 * .eh_frame_hdr, which libdw searches, or FDEs left out make them disagree).
 */
static const struct kp_fde *fde_check(const struct kp_fde_table *table, Dwarf_CFI *cfi,
				      Dwarf_Addr cfi_bias, uint64_t bias, uint64_t vaddr)
{
	const struct kp_fde *f = table_find(table, vaddr);
	Dwarf_Frame *frame;
	Dwarf_Addr start, end;
	bool ok;

	if (!f || !cfi || dwarf_cfi_addrframe(cfi, vaddr + bias - cfi_bias, &frame))
		return NULL;
	ok = dwarf_frame_info(frame, &start, &end, NULL) >= 0;
	free(frame);
	start += cfi_bias - bias;
	end += cfi_bias - bias;
	return ok && start >= f->start && start <= vaddr && vaddr < end && end <= f->end ? f
											  : NULL;
}

const struct kp_fde *kp_fdes_func(struct kp_fdes *t, Dwfl_Module *mod, uint64_t bias,
				  uint64_t vaddr)
{
	Dwarf_CFI *cfi;
	Dwarf_Addr cfi_bias;
	Dwarf_Frame *frame;
	const struct kp_fde *f;

	if (!mod)
		return NULL;
	/* libdw's search table first: a binary's FDEs are read once an address falls in one */
	if ((cfi = dwfl_module_eh_cfi(mod, &cfi_bias)) &&
	    !dwarf_cfi_addrframe(cfi, vaddr + bias - cfi_bias, &frame)) {
		free(frame);
		if (!t->read)
			tables_read(t, mod);
		if ((f = fde_check(&t->eh, cfi, cfi_bias, bias, vaddr)))
			return f;
	}
	if (!t->read)
		tables_read(t, mod);
	/* only where the file has its own .debug_frame: no search for a separate debug file */
	if (!table_find(&t->debug, vaddr) || !(cfi = dwfl_module_dwarf_cfi(mod, &cfi_bias)))
		return NULL;
	return fde_check(&t->debug, cfi, cfi_bias, bias, vaddr);
}

void kp_fdes_release(struct kp_fdes *t)
{
	free(t->eh.v);
	free(t->debug.v);
	memset(t, 0, sizeof(*t));
}

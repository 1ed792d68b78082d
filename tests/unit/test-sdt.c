/* SPDX-License-Identifier: MIT */
/*
 * A binary's SDT notes (src/record/sdt.c): read from ELF files made here in memory, good and
 * malformed (a note cut before its names, names without their NUL), the .stapsdt.base
 * correction of a prelinked binary, notes of other owners and types skipped; and each note
 * argument's operand turned into a tracefs fetch argument of the type its size says, or
 * refused with why.
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "src/record/sdt.h"
#include "tests/tap.h"

/* An ELF file in memory: the header, its sections' bytes, and the section headers. */
static _Alignas(8) unsigned char file[4096];

static size_t put_note(unsigned char *p, const char *owner, uint32_t type, const void *desc,
		       uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(owner) + 1, h[3] = { namesz, descsz, type };
	size_t n = 0;

	memcpy(p, h, sizeof(h));
	n += sizeof(h);
	memcpy(p + n, owner, namesz);
	n += (namesz + 3) & ~3u;
	memcpy(p + n, desc, descsz);
	n += (descsz + 3) & ~3u;
	return n;
}

/* An stapsdt descriptor: pc, base, semaphore, then @strs (NULs included) of @len bytes. */
static uint32_t desc(unsigned char *d, uint64_t pc, uint64_t base, uint64_t sem,
		     const char *strs, size_t len)
{
	memcpy(d, &pc, 8);
	memcpy(d + 8, &base, 8);
	memcpy(d + 16, &sem, 8);
	memcpy(d + 24, strs, len);
	return (uint32_t)(24 + len);
}

/* The file with @notes (@len bytes) in .note.stapsdt and, if @base, a .stapsdt.base there. */
static Elf *make(const unsigned char *notes, size_t len, uint64_t base)
{
	static const char shstr[] = "\0.note.stapsdt\0.stapsdt.base\0.shstrtab";
	Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
	Elf64_Shdr sh[4];
	size_t off = sizeof(*eh), nsec = 0;

	memset(file, 0, sizeof(file));
	memset(sh, 0, sizeof(sh));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	nsec++; /* the null section */
	sh[nsec] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_NOTE, .sh_offset = off,
				 .sh_size = len, .sh_addralign = 4 };
	memcpy(file + off, notes, len);
	off += (len + 7) & ~7u;
	nsec++;
	if (base) {
		sh[nsec] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_PROGBITS, .sh_addr = base,
					 .sh_offset = off, .sh_size = 1, .sh_addralign = 1,
					 .sh_flags = SHF_ALLOC };
		off += 8;
		nsec++;
	}
	sh[nsec] = (Elf64_Shdr){ .sh_name = 29, .sh_type = SHT_STRTAB, .sh_offset = off,
				 .sh_size = sizeof(shstr), .sh_addralign = 1 };
	memcpy(file + off, shstr, sizeof(shstr));
	off += (sizeof(shstr) + 7) & ~7u;
	eh->e_shstrndx = (Elf64_Half)nsec;
	nsec++;
	eh->e_shoff = off;
	eh->e_shnum = (Elf64_Half)nsec;
	memcpy(file + off, sh, nsec * sizeof(*sh));
	return elf_memory((char *)file, off + nsec * sizeof(*sh));
}

static void test_read(void)
{
	static const char tick[] = "probed\0tick\0-4@%ebx 8@%r12";
	unsigned char notes[512], d[256];
	struct kp_sdt_probe *p;
	size_t nr, n = 0;
	Elf *elf;
	int err;

	n += put_note(notes + n, "GNU", 3, "abcd", 4); /* another owner: skipped */
	n += put_note(notes + n, "stapsdt", 3, d, desc(d, 0x113a, 0x2028, 0x4030, tick, sizeof(tick)));
	n += put_note(notes + n, "stapsdt", 1, d, desc(d, 0x1, 0x2, 0x3, tick, sizeof(tick)));
	n += put_note(notes + n, "stapsdt", 3, d, desc(d, 0x2000, 0x2028, 0, "p\0second\0", 10));
	elf = make(notes, n, 0);
	err = kp_sdt_read(elf, &p, &nr);
	ok(!err && nr == 2, "two stapsdt notes of type 3 read, another owner and type skipped (%d, %zu)",
	   err, nr);
	if (!err && nr == 2) {
		ok(!strcmp(p[0].provider, "probed") && !strcmp(p[0].name, "tick") &&
		   !strcmp(p[0].args, "-4@%ebx 8@%r12") && p[0].pc == 0x113a &&
		   p[0].semaphore == 0x4030, "the first: provider, name, arguments, pc, semaphore");
		ok(!strcmp(p[1].name, "second") && !*p[1].args && !p[1].semaphore &&
		   kp_sdt_nr_args(&p[1]) == 0, "the second: no arguments, no semaphore");
		ok(kp_sdt_nr_args(&p[0]) == 2, "the first has 2 arguments");
	}
	kp_sdt_free(p, nr);
	elf_end(elf);

	/* prelinked: .stapsdt.base moved by 0x1000 from where the note says it was linked */
	n = put_note(notes, "stapsdt", 3, d, desc(d, 0x113a, 0x2028, 0x4030, tick, sizeof(tick)));
	elf = make(notes, n, 0x3028);
	err = kp_sdt_read(elf, &p, &nr);
	ok(!err && nr == 1 && p[0].pc == 0x213a && p[0].semaphore == 0x5030,
	   "pc and semaphore move with .stapsdt.base (%#llx, %#llx)",
	   nr ? (unsigned long long)p[0].pc : 0ull, nr ? (unsigned long long)p[0].semaphore : 0ull);
	kp_sdt_free(p, nr);
	elf_end(elf);

	/* malformed: cut before the names, and names without their NUL */
	n = put_note(notes, "stapsdt", 3, d, 20);
	elf = make(notes, n, 0);
	err = kp_sdt_read(elf, &p, &nr);
	ok(err == -EINVAL && !nr && !p, "a note shorter than its three addresses: -EINVAL, nothing");
	elf_end(elf);
	n = put_note(notes, "stapsdt", 3, d, desc(d, 1, 2, 3, "prov\0name\0args", 14));
	elf = make(notes, n, 0);
	err = kp_sdt_read(elf, &p, &nr);
	ok(err == -EINVAL && !nr, "arguments without their NUL: -EINVAL");
	elf_end(elf);
	n = put_note(notes, "stapsdt", 3, d, desc(d, 1, 2, 3, "prov", 4));
	elf = make(notes, n, 0);
	err = kp_sdt_read(elf, &p, &nr);
	ok(err == -EINVAL && !nr, "a provider without its NUL and no more: -EINVAL");
	elf_end(elf);
	elf = make(notes, 0, 0);
	err = kp_sdt_read(elf, &p, &nr);
	ok(!err && !nr, "an empty .note.stapsdt: no probes");
	elf_end(elf);
}

static void test_args(void)
{
	static const struct {
		const char *spec, *fetch, *type;
	} good[] = {
		{ "-4@%eax", "%ax", "s32" },	    { "8@%rbp", "%bp", "u64" },
		{ "-8@-16(%rbp)", "-16(%bp)", "s64" }, { "4@112(%rsp)", "+112(%sp)", "u32" },
		{ "8@(%rdi)", "+0(%di)", "u64" },   { "-1@%r8b", "%r8", "s8" },
		{ "2@%r15w", "%r15", "u16" },	    { "-4@%r12d", "%r12", "s32" },
		{ "1@%sil", "%si", "u8" },	    { "8@$42", "\\42", "u64" },
		{ "-4@$-3", "\\-3", "s32" },	    { "%rax", "%ax", "u64" },
	};
	static const char *const bad[] = { "3@%eax", "8@4(%rax,%rbx,8)", "8@foo(%rip)",
					   "8@%xmm0", "-4@%ah", "8@$x", "x@%eax" };
	struct kp_sdt_probe p = { "prov", "name", NULL, 0, 0 };
	char why[256], *fetch;
	const char *type;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int err;
		p.args = (char *)good[i].spec;
		err = kp_sdt_arg(&p, 0, &fetch, &type, why, sizeof(why));
		ok(!err && !strcmp(fetch, good[i].fetch) && !strcmp(type, good[i].type),
		   "'%s' is %s:%s (%s:%s)", good[i].spec, good[i].fetch, good[i].type,
		   err ? why : fetch, err ? "" : type);
		free(fetch);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err;
		p.args = (char *)bad[i];
		err = kp_sdt_arg(&p, 0, &fetch, &type, why, sizeof(why));
		ok(err == -EINVAL && !fetch && strstr(why, "prov:name"),
		   "'%s' is refused, naming the probe: %s", bad[i], why);
		free(fetch);
	}
	p.args = (char *)"8@%rax  -4@%edx";
	ok(kp_sdt_arg(&p, 1, &fetch, &type, why, sizeof(why)) == 0 && !strcmp(fetch, "%dx"),
	   "the second of two arguments, blanks between them");
	free(fetch);
	ok(kp_sdt_arg(&p, 2, &fetch, &type, why, sizeof(why)) == -EINVAL &&
	   !strcmp(why, "prov:name has 2 arguments, no arg3"), "past the last: %s", why);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_read();
	test_args();
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * A stripped binary's functions, named after the FDEs of its unwind tables (sub_HEX@DSO). The
 * ground truth is read here independently of report/symbols/: a stripped copy of the C fixture
 * names each function at the address and size its unstripped .symtab gives (libelf); a symbol,
 * where there is one, still names it. Then the small stripped binaries of the fuzz corpus
 * (tests/fuzz/corpus-symbols/elf-*.bin: _start, f1, f2 and f3 with FDEs of [0x4000b0,
 * 0x4000c3), [0x4000d0, 0x4000db), [0x4000e0, 0x4000ee), [0x4000ee, 0x4000f1), code without CFI
 * at 0x4000f1, one executable PT_LOAD at file offset 0xb0): the FDEs patched to overlap, to be
 * empty, to run beyond the code or absurdly far, and the .eh_frame_hdr made to lie, leave the
 * frames they touch unnamed and never name one wrongly.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/symbols/dso.h"
#include "tests/tap.h"

static const char *env_dir(const char *name)
{
	const char *b = getenv(name);

	return b && *b ? b : ".";
}

static struct kp_dsos *table(void)
{
	struct kp_dso_opts o = { .inline_frames = true, .demangle = true };

	return kp_dsos_new(&o);
}

/* The value and size of function @name in @path's .symtab, and its file offset. */
static bool func_sym(const char *path, const char *name, uint64_t *value, uint64_t *size,
		     uint64_t *off)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	bool found = false;
	size_t phnum;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	for (Elf_Scn *scn = NULL; elf && !found && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (gelf_getsym(data, (int)i, &s) &&
			    (n = elf_strptr(elf, sh.sh_link, s.st_name)) && !strcmp(n, name)) {
				*value = s.st_value;
				*size = s.st_size;
				found = true;
				break;
			}
		}
	}
	for (size_t i = 0; found && !elf_getphdrnum(elf, &phnum) && i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    *value >= ph.p_vaddr && *value - ph.p_vaddr < ph.p_filesz)
			*off = *value - ph.p_vaddr + ph.p_offset;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* The C fixture stripped: each function sub_HEX@fx at its symbol's address, its FDE its range. */
static void test_stripped(void)
{
	static const char *const funcs[] = { "main", "fx_caller", "fx_leaf", "fx_outer" };
	char fixture[4096], dir[] = "/tmp/kprof-test-fde-XXXXXX", bin[64], cmd[8300];
	struct kp_dsos *t;
	struct kp_dso *d, *whole;

	snprintf(fixture, sizeof(fixture), "%s/tests/fixtures/fixture-c", env_dir("top_builddir"));
	if (!mkdtemp(dir)) {
		ok(1, "# SKIP no temporary directory");
		return;
	}
	snprintf(bin, sizeof(bin), "%s/fx", dir);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' %s", fixture, bin);
	if (system(cmd)) {
		ok(1, "# SKIP objcopy failed");
		rmdir(dir);
		return;
	}
	t = table();
	d = kp_dsos_find(t, bin, NULL, 0);
	whole = kp_dsos_find(t, fixture, NULL, 0);
	ok(kp_dso_stripped(d), "the copy is stripped");
	for (size_t i = 0; i < sizeof(funcs) / sizeof(*funcs); i++) {
		struct kp_sym_frame fr[KP_DSO_MAX_FRAMES];
		struct kp_dso_func f = { 0 };
		uint64_t value = 0, size = 0, off = 0;
		char want[64];
		int n;
		unsigned machine;

		if (!ok(func_sym(fixture, funcs[i], &value, &size, &off) && size > 2,
			"%s in the unstripped fixture's .symtab", funcs[i]))
			continue;
		snprintf(want, sizeof(want), "sub_%llx@fx", (unsigned long long)value);
		n = kp_dso_symbolize(d, off + size / 2, fr, KP_DSO_MAX_FRAMES);
		ok(n == 1 && !strcmp(fr[0].func, want) && !strcmp(fr[0].sys, want) && fr[0].fde &&
			   fr[0].off == size / 2,
		   "stripped: %s's middle is %s+0x%llx (got %d frames, %s+0x%llx)", funcs[i], want,
		   (unsigned long long)(size / 2), n, n > 0 ? fr[0].func : "-",
		   n > 0 ? (unsigned long long)fr[0].off : 0);
		n = kp_dso_symbolize(d, off, fr, KP_DSO_MAX_FRAMES);
		ok(n == 1 && !strcmp(fr[0].func, want) && fr[0].off == 0, "... and its first byte");
		n = kp_dso_func_at(d, off + size - 1, &f);
		ok(n && !strcmp(f.name, want) && f.vaddr == value && f.size == size && f.off == off,
		   "... whose range is the symbol's: 0x%llx, %llu bytes (got %s 0x%llx, %llu)",
		   (unsigned long long)value, (unsigned long long)size, f.name ? f.name : "-",
		   (unsigned long long)f.vaddr, (unsigned long long)f.size);
		ok(kp_dso_code(d, f.off, f.size, &machine) != NULL,
		   "... and whose bytes annotate disassembles");
		n = kp_dso_symbolize(whole, off + size / 2, fr, KP_DSO_MAX_FRAMES);
		ok(n >= 1 && !strcmp(fr[n - 1].func, funcs[i]) && !fr[n - 1].fde,
		   "unstripped: the symbol names it, %s (got %s)", funcs[i],
		   n > 0 ? fr[n - 1].func : "-");
	}
	kp_dsos_free(t);
	unlink(bin);
	rmdir(dir);
}

/* The functions of the corpus binaries: [start, end) and the middle byte looked up. */
static const struct { uint64_t start, end; } fdes[] = {
	{ 0x4000b0, 0x4000c3 }, { 0x4000d0, 0x4000db }, { 0x4000e0, 0x4000ee },
	{ 0x4000ee, 0x4000f1 },
};
#define CODE_START 0x4000b0
#define CODE_END 0x4000f3
#define LOAD_DELTA 0x400000 /* vaddr - file offset */

/* One corpus binary: which functions are named (bit i for fdes[i]; ANY: as libdw's lookup,
 * which caches the FDEs it read, finds them), looked up at every byte of its code, and never
 * named wrongly. */
#define ANY 0x100
static void test_corpus_one(const char *file, unsigned named, const char *why)
{
	char path[4096], want[64];
	struct kp_dsos *t = table();
	struct kp_dso *d;
	unsigned got = 0;
	int wrong = 0;

	snprintf(path, sizeof(path), "%s/tests/fuzz/corpus-symbols/%s", env_dir("top_srcdir"),
		 file);
	d = kp_dsos_find(t, path, NULL, 0);
	for (uint64_t a = CODE_START; a < CODE_END; a++) {
		struct kp_sym_frame fr[KP_DSO_MAX_FRAMES];
		struct kp_dso_func f;
		int n = kp_dso_symbolize(d, a - LOAD_DELTA, fr, KP_DSO_MAX_FRAMES), i = 0;
		bool have_f = kp_dso_func_at(d, a - LOAD_DELTA, &f);

		while (i < 4 && !(a >= fdes[i].start && a < fdes[i].end))
			i++;
		if (n == 0 && !have_f)
			continue;
		snprintf(want, sizeof(want), "sub_%llx@%s",
			 (unsigned long long)(i < 4 ? fdes[i].start : 0), file);
		if (i == 4 || n != 1 || !fr[0].fde || strcmp(fr[0].func, want) ||
		    fr[0].off != a - fdes[i].start || !have_f || strcmp(f.name, want) ||
		    f.vaddr != fdes[i].start || f.size != fdes[i].end - fdes[i].start) {
			if (!wrong++)
				printf("# 0x%llx: %d frames, %s, want %s\n",
				       (unsigned long long)a, n, n > 0 ? fr[0].func : "-",
				       i < 4 ? want : "none");
			continue;
		}
		if (a == (fdes[i].start + fdes[i].end) / 2)
			got |= 1u << i;
	}
	ok(!wrong, "%s: no byte of its code named wrongly (%d), %s", file, wrong, why);
	if (named != ANY && !ok(got == named, "%s: %s", file, why))
		printf("#   named 0x%x, want 0x%x\n", got, named);
	kp_dsos_free(t);
}

static void test_corpus(void)
{
	test_corpus_one("elf-good.bin", 0xf, "all four functions named, no symbol at all");
	test_corpus_one("elf-fde-overlap.bin", 0x9,
			"f1's FDE reaching into f2's: both unnamed, the others named");
	test_corpus_one("elf-fde-same.bin", 0x3,
			"f3's FDE moved onto f2's: both unnamed, the others named");
	test_corpus_one("elf-fde-empty.bin", 0xb, "f2's FDE empty: f2 unnamed");
	test_corpus_one("elf-fde-beyond.bin", 0x7,
			"f3's FDE running 4 KiB beyond the code and its PT_LOAD: f3 unnamed");
	test_corpus_one("elf-fde-absurd.bin", 0x6,
			"_start's FDE wrapping around, f3's 4 GiB long: both unnamed");
	test_corpus_one("elf-ehhdr-lies.bin", ANY,
			"the search table pointing each start to its neighbour's FDE");
	test_corpus_one("elf-ehhdr-starts.bin", ANY, "the search table's starts 8 bytes early");
	test_corpus_one("elf-ehhdr-count.bin", ANY,
			"a search table counting beyond its section");
}

int main(void)
{
	test_stripped();
	test_corpus();
	return tap_done();
}

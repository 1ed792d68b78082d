/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer against ground truth read here independently of report/symbols/dso.c: symbol
 * addresses from the fixtures' .symtab (libelf), file offsets from their PT_LOAD headers,
 * source lines from the DWARF line table and the "MARK:" comments in the fixtures' sources.
 */
#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "formats/util.h"
#include "report/symbols/dso.h"
#include "tests/tap.h"

#define MAXF 16

struct fixture {
	char path[4096];
	int fd;
	Elf *elf;
	Dwarf *dw;
};

static bool fixture_open(struct fixture *fx, const char *path)
{
	memset(fx, 0, sizeof(*fx));
	snprintf(fx->path, sizeof(fx->path), "%s", path);
	fx->fd = open(path, O_RDONLY);
	if (fx->fd < 0)
		return false;
	elf_version(EV_CURRENT);
	fx->elf = elf_begin(fx->fd, ELF_C_READ, NULL);
	fx->dw = dwarf_begin(fx->fd, DWARF_C_READ);
	return fx->elf && fx->dw;
}

static void fixture_close(struct fixture *fx)
{
	if (fx->dw)
		dwarf_end(fx->dw);
	if (fx->elf)
		elf_end(fx->elf);
	if (fx->fd >= 0)
		close(fx->fd);
}

/* The first section of @type in @elf. */
static Elf_Scn *find_scn(Elf *elf, GElf_Word type, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));)
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

/* The value and size of symbol @name in the table of @type (SHT_SYMTAB or SHT_DYNSYM). */
static bool sym_lookup(Elf *elf, GElf_Word type, const char *name, GElf_Sym *out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, type, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;

	for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym s;
		const char *n;

		if (!gelf_getsym(data, (int)i, &s) || !s.st_value)
			continue;
		n = elf_strptr(elf, sh.sh_link, s.st_name);
		if (n && !strcmp(n, name)) {
			*out = s;
			return true;
		}
	}
	return false;
}

/* The file offset of @vaddr through the PT_LOAD headers, or UINT64_MAX. */
static uint64_t vaddr_to_off(Elf *elf, uint64_t vaddr)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	return UINT64_MAX;
}

static uint64_t sym_off(struct fixture *fx, const char *name, uint64_t delta)
{
	GElf_Sym s;

	if (!sym_lookup(fx->elf, SHT_SYMTAB, name, &s))
		return UINT64_MAX;
	return vaddr_to_off(fx->elf, s.st_value + delta);
}

static uint64_t sym_size(struct fixture *fx, const char *name)
{
	GElf_Sym s;

	return sym_lookup(fx->elf, SHT_SYMTAB, name, &s) ? s.st_size : 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix) && (a == b || s[a - b - 1] == '/');
}

/* The line of "MARK: @mark" in the source file @src. */
static int mark_line(const char *src, const char *mark)
{
	char buf[512], want[128];
	FILE *f = fopen(src, "r");
	int line = 0;

	snprintf(want, sizeof(want), "MARK: %s", mark);
	while (f && fgets(buf, sizeof(buf), f)) {
		const char *m = strstr(buf, want);

		line++;
		if (m && (m[strlen(want)] == ' ' || m[strlen(want)] == '\n')) {
			fclose(f);
			return line;
		}
	}
	if (f)
		fclose(f);
	return 0;
}

struct line_hit {
	const char *want_file;
	const char *mark;
	uint64_t lo, hi;	/* the function's vaddr range */
	int line;		/* out: the marked line */
	uint64_t addr;		/* out: an address of that line, a row of non-empty extent */
};

/* Scan every line table for a row of @h->want_file at the marked line inside [lo, hi). */
static bool find_line(struct fixture *fx, struct line_hit *h)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(fx->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_offdie(fx->dw, off + hsize, &cu) && !dwarf_getsrclines(&cu, &lines, &n)) {
			for (size_t i = 0; i + 1 < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Line *nx = dwarf_onesrcline(lines, i + 1);
				Dwarf_Addr a, b;
				int ln;
				const char *file = dwarf_linesrc(l, NULL, NULL);

				if (!ends_with(file, h->want_file) || dwarf_lineaddr(l, &a) ||
				    dwarf_lineaddr(nx, &b) || dwarf_lineno(l, &ln) || b <= a)
					continue;
				if (!h->line)
					h->line = mark_line(file, h->mark);
				if (ln == h->line && a >= h->lo && a < h->hi) {
					h->addr = a;
					return true;
				}
			}
		}
		off = next;
	}
	return false;
}

static bool line_in(struct fixture *fx, const char *file, const char *mark, const char *func,
		    struct line_hit *h)
{
	GElf_Sym s;

	memset(h, 0, sizeof(*h));
	h->want_file = file;
	h->mark = mark;
	if (!sym_lookup(fx->elf, SHT_SYMTAB, func, &s))
		return false;
	h->lo = s.st_value;
	h->hi = s.st_value + s.st_size;
	return find_line(fx, h);
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* A frame's name for a message: f[i].func, or "-" when there is none. */
static const char *show(const struct kp_sym_frame *f, int n, int i)
{
	return i >= 0 && i < n && f[i].func ? f[i].func : "-";
}

static struct kp_dsos *table(bool inl, bool srcline, bool demangle, const char *release)
{
	struct kp_dso_opts o = { .inline_frames = inl, .srcline = srcline, .demangle = demangle,
				 .kernel_release = release };

	return kp_dsos_new(&o);
}

static const char *builddir(void)
{
	const char *b = getenv("top_builddir");

	return b && *b ? b : ".";
}

static void test_c_symbols(struct fixture *fx)
{
	struct kp_dsos *t = table(true, true, true, NULL);
	struct kp_dso *d = kp_dsos_find(t, fx->path, NULL, 0);
	struct kp_sym_frame f[MAXF];
	static const char *const funcs[] = { "fx_leaf", "fx_caller", "fx_outer", "main" };
	int n;

	is_u64(kp_dso_status(d), KP_DSO_OK, "fixture-c loads");
	ok(streq(kp_dso_short_name(d), "fixture-c"), "short name %s", kp_dso_short_name(d));
	ok(kp_dsos_find(t, fx->path, NULL, 0) == d, "find interns the DSO");
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		uint64_t size = sym_size(fx, funcs[i]);

		n = kp_dso_symbolize(d, sym_off(fx, funcs[i], 0), f, MAXF);
		ok(n >= 1 && streq(f[n - 1].func, funcs[i]) && !f[n - 1].inlined,
		   "%s entry symbolizes (%d frames, %s)", funcs[i], n, show(f, n, n - 1));
		n = kp_dso_symbolize(d, sym_off(fx, funcs[i], size / 2), f, MAXF);
		ok(n >= 1 && streq(f[n - 1].func, funcs[i]), "%s mid-function symbolizes", funcs[i]);
	}
	/* The ELF header: no symbol precedes it. Past every PT_LOAD: nothing mapped there. */
	is_u64(kp_dso_symbolize(d, 0x10, f, MAXF), 0, "ELF header offset gives no frames");
	is_u64(kp_dso_symbolize(d, 1ull << 40, f, MAXF), 0, "unmapped offset gives no frames");
	kp_dsos_free(t);
}

static void check_inline_chain(const struct kp_sym_frame *f, int n, const struct line_hit *in,
			       const struct line_hit *call)
{
	ok(n >= 2, "inline site gives %d frames", n);
	if (n < 2)
		return;
	ok(streq(f[0].func, "fx_mix") && f[0].inlined, "innermost frame is inlined fx_mix (%s)",
	   f[0].func);
	ok(streq(f[n - 1].func, "fx_caller") && !f[n - 1].inlined,
	   "outermost frame is fx_caller (%s)", f[n - 1].func);
	ok(streq(base(f[0].file), "fixture-c.c"), "inline srcline file %s", f[0].file);
	is_u64(f[0].line, in->line, "inline srcline line");
	ok(streq(base(f[n - 1].file), "fixture-c.c"), "call site file %s", f[n - 1].file);
	is_u64(f[n - 1].line, call->line, "call site line");
}

static void test_c_inline(struct fixture *fx)
{
	struct kp_dsos *t = table(true, true, true, NULL);
	struct kp_dso *d = kp_dsos_find(t, fx->path, NULL, 0);
	struct kp_sym_frame f[MAXF], g[MAXF];
	struct line_hit in, call, loop;
	uint64_t off;
	int n;

	if (!ok(line_in(fx, "fixture-c.c", "fx_mix-mul", "fx_caller", &in),
		"line table has fx_mix's marked line inside fx_caller") ||
	    !ok(line_in(fx, "fixture-c.c", "fx_caller-call", "fx_caller", &call),
		"line table has the call line")) {
		kp_dsos_free(t);
		return;
	}
	off = vaddr_to_off(fx->elf, in.addr);
	n = kp_dso_symbolize(d, off, f, MAXF);
	check_inline_chain(f, n, &in, &call);
	ok(kp_dso_symbolize(d, off, g, MAXF) == n && n > 0 && g[0].func == f[0].func &&
	   g[n - 1].func == f[n - 1].func && g[0].file == f[0].file,
	   "a repeated lookup returns the same interned pointers");
	ok(kp_dso_symbolize(d, off, g, 1) == 1 && g[0].func == f[0].func,
	   "max = 1 keeps the innermost frame");
	if (ok(line_in(fx, "fixture-c.c", "fx_leaf-loop", "fx_leaf", &loop), "fx_leaf loop line")) {
		n = kp_dso_symbolize(d, vaddr_to_off(fx->elf, loop.addr), f, MAXF);
		ok(n == 1 && streq(f[0].func, "fx_leaf") && f[0].line == (uint32_t)loop.line &&
		   streq(base(f[0].file), "fixture-c.c"),
		   "srcline of a plain line: %s:%u", n ? base(f[0].file) : "-", n ? f[0].line : 0);
	}
	kp_dsos_free(t);

	/* Without inline frames: the caller only, at the call site when srcline is on. */
	t = table(false, true, true, NULL);
	d = kp_dsos_find(t, fx->path, NULL, 0);
	n = kp_dso_symbolize(d, off, f, MAXF);
	ok(n == 1 && streq(f[0].func, "fx_caller") && !f[0].inlined,
	   "inline_frames=false gives the caller only");
	ok(n == 1 && f[0].line == (uint32_t)call.line, "... at the call site line");
	kp_dsos_free(t);
	t = table(false, false, true, NULL);
	d = kp_dsos_find(t, fx->path, NULL, 0);
	n = kp_dso_symbolize(d, off, f, MAXF);
	ok(n == 1 && streq(f[0].func, "fx_caller") && !f[0].file && !f[0].line,
	   "srcline=false leaves file and line empty");
	kp_dsos_free(t);
}

static void test_cxx(struct fixture *fx)
{
	struct kp_dsos *t = table(true, true, true, NULL);
	struct kp_dso *d = kp_dsos_find(t, fx->path, NULL, 0);
	struct kp_sym_frame f[MAXF];
	struct line_hit in;
	int n;

	n = kp_dso_symbolize(d, sym_off(fx, "_ZN2ns6Worker3runEi", 0), f, MAXF);
	ok(n >= 1 && streq(f[n - 1].func, "ns::Worker::run(int)"), "C++ method demangled: %s",
	   show(f, n, n - 1));
	n = kp_dso_symbolize(d, sym_off(fx, "_ZN2ns6helperIiEET_S1_", 4), f, MAXF);
	ok(n >= 1 && streq(f[n - 1].func, "ns::helper<int>(int)"),
	   "template instance demangled: %s", show(f, n, n - 1));
	if (ok(line_in(fx, "fixture-cxx.cc", "twiddle-mul", "_ZN2ns6Worker3runEi", &in),
	       "line table has twiddle's marked line inside ns::Worker::run")) {
		n = kp_dso_symbolize(d, vaddr_to_off(fx->elf, in.addr), f, MAXF);
		ok(n >= 2 && f[0].inlined && f[0].func && strstr(f[0].func, "twiddle"),
		   "C++ inline frame first: %s", show(f, n, 0));
		ok(n >= 2 && streq(f[n - 1].func, "ns::Worker::run(int)") && !f[n - 1].inlined,
		   "C++ caller last: %s", show(f, n, n - 1));
		is_u64(n >= 1 ? f[0].line : 0, in.line, "C++ inline srcline");
	}
	kp_dsos_free(t);

	t = table(true, false, false, NULL);
	d = kp_dsos_find(t, fx->path, NULL, 0);
	n = kp_dso_symbolize(d, sym_off(fx, "_ZN2ns6Worker3runEi", 0), f, MAXF);
	ok(n >= 1 && streq(f[n - 1].func, "_ZN2ns6Worker3runEi"), "demangle=false keeps %s",
	   show(f, n, n - 1));
	kp_dsos_free(t);
}

static void test_demangle(void)
{
	static const struct {
		const char *in, *prefix;
	} cases[] = {
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
		{ "_ZN2ns6Worker3runEi", "ns::Worker::run(int)" },
		/* a function template's return type is left out, as perf shows it */
		{ "_ZN2ns6helperIiEET_S1_", "ns::helper<int>(int)" },
		{ "_ZN2ns7apply_nIR2SqEEmRT_mi.isra.0",
		  "ns::apply_n<Sq&>(Sq&, unsigned long, int) [clone .isra.0]" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = kp_demangle(cases[i].in);

		ok(s && !strncmp(s, cases[i].prefix, strlen(cases[i].prefix)), "demangle %s -> %s",
		   cases[i].in, s ? s : "NULL");
		free(s);
	}
	ok(kp_demangle("fx_leaf") == NULL, "a C name is not mangled");
	ok(kp_demangle("_start") == NULL, "_start is not mangled");
}

/* The fixture's NT_GNU_BUILD_ID, read from its note sections. */
static size_t read_build_id(Elf *elf, uint8_t *out, size_t max)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + noff, "GNU", 4) && nh.n_descsz <= max) {
				memcpy(out, (char *)data->d_buf + doff, nh.n_descsz);
				return nh.n_descsz;
			}
	}
	return 0;
}

static void test_status(struct fixture *fx)
{
	struct kp_dsos *t = table(true, true, true, NULL);
	struct kp_sym_frame f[MAXF];
	uint8_t id[64], bad[20] = { 1, 2, 3 };
	size_t len = read_build_id(fx->elf, id, sizeof(id));
	char tmp[sizeof("/tmp/kprof-test-dso-XXXXXX.fifo")] = "/tmp/kprof-test-dso-XXXXXX";
	int fd = mkstemp(tmp);
	struct kp_dso *d;

	ok(len > 0, "fixture has a build-id (%zu bytes)", len);
	d = kp_dsos_find(t, fx->path, id, len);
	is_u64(kp_dso_status(d), KP_DSO_OK, "the right build-id loads");
	ok(kp_dso_symbolize(d, sym_off(fx, "fx_leaf", 0), f, MAXF) == 1, "... and symbolizes");
	{
		/* a SHA-1 ending in a zero byte is 20 bytes, not 19; a 16-byte one padded to 20 with
		 * zeroes (perf's build_id_event) is 16; all zeroes is none */
		uint8_t sha[20] = { 0x98, 0xaa, 0xbf }, md5[20] = { 7, 6, 5 }, none[20] = { 0 };
		const uint8_t *bits;

		md5[15] = 1;
		for (int i = 0; i < 19; i++)
			sha[i] = (uint8_t)(0x11 * (i + 1));
		is_u64(kp_dso_build_id(kp_dsos_find(t, "/nonexistent/a", sha, 20), &bits), 20,
		       "a build-id ending in a zero byte keeps its 20 bytes");
		is_u64(kp_dso_build_id(kp_dsos_find(t, "/nonexistent/b", md5, 20), &bits), 16,
		       "a 16-byte build-id padded to 20 is 16 bytes");
		is_u64(kp_dso_build_id(kp_dsos_find(t, "/nonexistent/c", none, 20), &bits), 0,
		       "a build-id of zeroes is none");
	}
	d = kp_dsos_find(t, fx->path, bad, sizeof(bad));
	ok(d != kp_dsos_find(t, fx->path, id, len), "another build-id is another DSO");
	is_u64(kp_dso_symbolize(d, sym_off(fx, "fx_leaf", 0), f, MAXF), 0,
	       "a wrong build-id gives no frames");
	is_u64(kp_dso_status(d), KP_DSO_BUILDID_MISMATCH, "a wrong build-id is a mismatch");
	ok(streq(kp_dso_status_str(kp_dso_status(d)), "build-id mismatch"), "status string");
	d = kp_dsos_find(t, "/nonexistent/kprof/libnothing.so", NULL, 0);
	is_u64(kp_dso_status(d), KP_DSO_MISSING, "a missing file is missing");
	is_u64(kp_dso_symbolize(d, 0x1000, f, MAXF), 0, "... and gives no frames");
	ok(streq(kp_dso_path(d), "/nonexistent/kprof/libnothing.so") &&
	   streq(kp_dso_short_name(d), "libnothing.so"), "path and short name");
	if (fd >= 0) {
		ok(write(fd, "not an ELF file\n", 16) == 16, "wrote %s", tmp);
		close(fd);
		d = kp_dsos_find(t, tmp, NULL, 0);
		is_u64(kp_dso_status(d), KP_DSO_NOT_ELF, "a text file is not ELF");
		unlink(tmp);
	}
	d = kp_dsos_find(t, "/tmp", NULL, 0);
	is_u64(kp_dso_status(d), KP_DSO_NOT_FILE, "a directory is not a regular file");
	ok(streq(kp_dso_status_str(kp_dso_status(d)), "not a regular file"), "... and says so");
	/* a FIFO or a device at a recorded path: refused unopened, nothing waited on or read */
	strcat(tmp, ".fifo"); /* a path of its own: the table keeps what it found at the other */
	if (!mkfifo(tmp, 0600)) {
		alarm(60); /* a report that blocks here fails instead of hanging the suite */
		d = kp_dsos_find(t, tmp, NULL, 0);
		is_u64(kp_dso_status(d), KP_DSO_NOT_FILE, "a FIFO is not a regular file");
		ok(kp_dso_open(d) < 0, "... and opens nothing");
		alarm(0);
		unlink(tmp);
	}
	d = kp_dsos_find(t, "/dev/zero", NULL, 0);
	is_u64(kp_dso_status(d), KP_DSO_NOT_FILE, "a device is not a regular file");
	kp_dsos_free(t);
}

/* A function of the live vDSO from its own .dynsym; the vDSO's file offset is its vaddr. */
static bool vdso_func(Elf *elf, const char **name, uint64_t *off)
{
	static const char *const names[] = { "__vdso_clock_gettime", "__kernel_clock_gettime",
					     "clock_gettime", "__vdso_gettimeofday" };
	GElf_Sym s;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (sym_lookup(elf, SHT_DYNSYM, names[i], &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC) {
			*name = names[i];
			*off = vaddr_to_off(elf, s.st_value + s.st_size / 2);
			return *off != UINT64_MAX;
		}
	}
	return false;
}

static size_t vdso_extent(const unsigned char *img)
{
	const ElfW(Ehdr) *eh = (const void *)img;
	const ElfW(Phdr) *ph = (const void *)(img + eh->e_phoff);
	size_t end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	return end;
}

static void test_vdso(void)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct utsname u;
	struct kp_dsos *t;
	struct kp_sym_frame f[MAXF];
	GElf_Sym s;
	Elf *elf;
	const char *want = NULL;
	uint64_t off = 0;
	int n;

	if (!img || uname(&u)) {
		ok(1, "# SKIP no vDSO");
		return;
	}
	/* The image in memory is laid out as its file, section headers included. */
	elf = elf_memory((char *)img, vdso_extent(img));
	if (!ok(elf && vdso_func(elf, &want, &off), "the vDSO exports a clock function")) {
		if (elf)
			elf_end(elf);
		return;
	}
	t = table(true, true, true, u.release);
	n = kp_dso_symbolize(kp_dsos_find(t, "[vdso]", NULL, 0), off, f, MAXF);
	ok(n >= 1 && sym_lookup(elf, SHT_DYNSYM, f[n - 1].func, &s) &&
	   vaddr_to_off(elf, s.st_value) <= off && off - vaddr_to_off(elf, s.st_value) < s.st_size,
	   "[vdso] of this kernel resolves %s (got %s)", want, show(f, n, n - 1));
	kp_dsos_free(t);
	t = table(true, true, true, "0.0.0-another-kernel");
	n = kp_dso_symbolize(kp_dsos_find(t, "[vdso]", NULL, 0), off, f, MAXF);
	is_u64(n, 0, "[vdso] of another kernel gives no frames");
	is_u64(kp_dso_status(kp_dsos_find(t, "[vdso]", NULL, 0)), KP_DSO_VDSO_OTHER_KERNEL,
	       "[vdso] of another kernel has its status");
	kp_dsos_free(t);
	elf_end(elf);
}

/* A copy of the fixture in a new @dir: @bin stripped, with a .gnu_debuglink to @dbg beside it. */
struct debuglinked {
	char dir[32], bin[64], dbg[64];
};

static void debuglink_remove(const struct debuglinked *dl)
{
	unlink(dl->bin);
	unlink(dl->dbg);
	rmdir(dl->dir);
}

static bool debuglink_make(const struct fixture *fx, struct debuglinked *dl)
{
	char cmd[16384];

	snprintf(dl->dir, sizeof(dl->dir), "/tmp/kprof-test-dso-XXXXXX");
	if (!mkdtemp(dl->dir)) {
		ok(1, "# SKIP no temporary directory");
		return false;
	}
	snprintf(dl->bin, sizeof(dl->bin), "%s/fx", dl->dir);
	snprintf(dl->dbg, sizeof(dl->dbg), "%s/fx.debug", dl->dir);
	snprintf(cmd, sizeof(cmd),
		 "cp '%s' %s && objcopy --only-keep-debug %s %s && "
		 "objcopy --strip-all --add-gnu-debuglink=%s %s",
		 fx->path, dl->bin, dl->bin, dl->dbg, dl->dbg, dl->bin);
	if (!system(cmd))
		return true;
	ok(1, "# SKIP objcopy failed");
	debuglink_remove(dl);
	return false;
}

/* Stripped binary + .gnu_debuglink to a --only-keep-debug file next to it. */
static void test_debuglink(struct fixture *fx)
{
	struct debuglinked dl;
	struct kp_sym_frame f[MAXF];
	struct line_hit in;
	struct kp_dsos *t;
	int n;

	if (!line_in(fx, "fixture-c.c", "fx_mix-mul", "fx_caller", &in)) {
		ok(1, "# SKIP no line of fx_mix in the fixture");
		return;
	}
	if (debuglink_make(fx, &dl)) {
		t = table(true, true, true, NULL);
		n = kp_dso_symbolize(kp_dsos_find(t, dl.bin, NULL, 0), vaddr_to_off(fx->elf, in.addr),
				     f, MAXF);
		ok(n >= 2 && streq(f[0].func, "fx_mix") && streq(f[n - 1].func, "fx_caller") &&
		   f[0].line == (uint32_t)in.line,
		   "separate debuginfo: %d frames, %s:%u ... %s", n, show(f, n, 0),
		   n ? f[0].line : 0, show(f, n, n - 1));
		kp_dsos_free(t);
		/* a FIFO where the debug file is looked for first (beside the binary): skipped, not
		 * waited on, and the one in .debug/ found */
		char moved[96];
		snprintf(moved, sizeof(moved), "%s/.debug", dl.dir);
		mkdir(moved, 0700);
		snprintf(moved, sizeof(moved), "%s/.debug/fx.debug", dl.dir);
		if (!rename(dl.dbg, moved) && !mkfifo(dl.dbg, 0600)) {
			alarm(60);
			t = table(true, true, true, NULL);
			n = kp_dso_symbolize(kp_dsos_find(t, dl.bin, NULL, 0),
					     vaddr_to_off(fx->elf, in.addr), f, MAXF);
			ok(n >= 2 && streq(f[0].func, "fx_mix"),
			   "a FIFO named by the debuglink beside the binary is passed over: %s "
			   "from .debug/", n ? show(f, n, 0) : "nothing");
			kp_dsos_free(t);
			alarm(0);
		}
		unlink(moved);
		snprintf(moved, sizeof(moved), "%s/.debug", dl.dir);
		rmdir(moved);
		debuglink_remove(&dl);
	}
}

/*
 * The first byte of padding between two functions of @elf's .symtab (one's end, less than 64
 * bytes before the next's start, no symbol there), read here with libelf; 0 if there is none.
 */
static uint64_t padding_addr(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, SHT_SYMTAB, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t n = data && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

	for (size_t i = 0; i < n; i++) {
		GElf_Sym a, b;
		uint64_t end, next = UINT64_MAX;
		bool covered = false;

		if (!gelf_getsym(data, (int)i, &a) || GELF_ST_TYPE(a.st_info) != STT_FUNC || !a.st_size)
			continue;
		end = a.st_value + a.st_size;
		for (size_t k = 0; k < n; k++) { /* the next symbol, and none covering end */
			if (!gelf_getsym(data, (int)k, &b) || !b.st_value || b.st_shndx == SHN_UNDEF)
				continue;
			if (b.st_value > end && b.st_value < next)
				next = b.st_value;
			covered |= b.st_value <= end && end < b.st_value + (b.st_size ? b.st_size : 1);
		}
		if (!covered && next != UINT64_MAX && next - end < 64)
			return end;
	}
	return 0;
}

/*
 * A return address in the padding after a function (past a call that does not return) is
 * named by no symbol; a separate debug file's DWARF, which libdw inflates whole, is not read
 * to find no function there either.
 */
static void test_padding(struct fixture *fx)
{
	struct kp_dso_opts o = { .inline_frames = true, .demangle = true };
	struct kp_sym_frame f[MAXF];
	uint64_t pad = padding_addr(fx->elf);
	enum kp_dso_dwarf why = KP_DWARF_OWN;
	struct debuglinked dl;
	struct kp_dsos *t;
	struct kp_dso *d;
	GElf_Sym main_sym;
	int n, named;

	if (!pad || !sym_lookup(fx->elf, SHT_SYMTAB, "main", &main_sym)) {
		ok(1, "# SKIP no padding between the fixture's functions");
		return;
	}
	if (!debuglink_make(fx, &dl))
		return;
	t = kp_dsos_new(&o);
	d = kp_dsos_find(t, dl.bin, NULL, 0);
	named = kp_dso_symbolize(d, vaddr_to_off(fx->elf, main_sym.st_value), f, MAXF);
	n = kp_dso_symbolize(d, vaddr_to_off(fx->elf, pad), f, MAXF);
	kp_dso_debug_file(d, &why);
	ok(named >= 1 && n == 0 && why == KP_DWARF_NONE,
	   "padding at 0x%llx: no name (%d frames), and the debug file's DWARF left unread (%d); "
	   "main named from its symbols (%d frames)", (unsigned long long)pad, n, (int)why, named);
	kp_dsos_free(t);
	debuglink_remove(&dl);
}

/*
 * PLT entries, against objdump's names for them (binutils makes its own "name@plt" labels from
 * the relocations): every entry objdump names, kprof names the same, mid-entry too.
 */
static void test_plt(const char *path)
{
	struct kp_dsos *t = table(true, false, true, NULL);
	struct kp_dso *d = kp_dsos_find(t, path, NULL, 0);
	struct fixture fx;
	struct kp_sym_frame f[MAXF];
	char cmd[4200], line[512], name[256];
	unsigned long long addr;
	int named = 0, same = 0, n;
	FILE *p;

	if (!ok(fixture_open(&fx, path), "open %s", path))
		return;
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2 || strlen(name) < 5 ||
		    strcmp(name + strlen(name) - 4, "@plt"))
			continue; /* the first .plt entry is "<first@plt-0x10>" or "<.plt>" */
		named++;
		n = kp_dso_symbolize(d, vaddr_to_off(fx.elf, addr) + 5, f, MAXF);
		if (n >= 1 && streq(f[n - 1].func, name))
			same++;
		else
			printf("#   %s at 0x%llx: kprof says %s\n", name, addr, show(f, n, n - 1));
	}
	if (p)
		pclose(p);
	ok(named >= 6, "%s: objdump names %d PLT entries", base(path), named);
	is_u64(same, named, "%s: kprof names each the same", base(path));
	fixture_close(&fx);
	kp_dsos_free(t);
}

/* The IFUNC whose resolver is at @addr, from readelf's dynamic symbols of @path, or "". */
static void ifunc_at(const char *path, unsigned long long addr, char *names, size_t cap)
{
	char cmd[4200], line[512], name[256], type[32];
	unsigned long long value;
	FILE *p;

	names[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -W --dyn-syms '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%*d: %llx %*u %31s %*s %*s %*s %255[^@\n]", &value, type, name) == 3 &&
		    value == addr && !strcmp(type, "IFUNC") && strlen(names) + strlen(name) + 3 < cap)
			strcat(strcat(strcat(names, " "), name), " ");
	if (p)
		pclose(p);
}

/*
 * libc calls its own string functions through PLT entries whose GOT slots an IFUNC resolver
 * fills (R_X86_64_IRELATIVE, no symbol): each is named after the IFUNC, "strchr@plt", per
 * readelf's relocations and symbols, rather than left an address (whose lookup would inflate
 * libc's separate DWARF, 10 MB, to find no function there).
 */
static void test_plt_ifunc(void)
{
	const char *path = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct kp_dsos *t;
	struct kp_dso *d;
	struct kp_sym_frame f[MAXF];
	enum kp_dso_dwarf why = KP_DWARF_OWN;
	int fd = open(path, O_RDONLY);
	Elf *elf;
	char cmd[4200], line[512], names[4096], want[300];
	unsigned long long addr, slot, addend, rel[256][2];
	size_t nrel = 0;
	int entries = 0, same = 0, n;
	FILE *p, *q;

	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!elf) {
		ok(1, "# SKIP no %s", path);
		if (fd >= 0)
			close(fd);
		return;
	}
	snprintf(cmd, sizeof(cmd), "readelf -rW '%s' 2>/dev/null", path);
	q = popen(cmd, "r");
	while (q && fgets(line, sizeof(line), q) && nrel < 256)
		if (sscanf(line, "%llx %*x R_X86_64_IRELATIVE %llx", &rel[nrel][0], &rel[nrel][1]) == 2)
			nrel++;
	if (q)
		pclose(q);
	t = table(true, false, true, NULL);
	d = kp_dsos_find(t, path, NULL, 0);
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		if (sscanf(line, " %llx: ff 25 %*x %*x %*x %*x jmp *%*[^#]# %llx", &addr, &slot) != 2)
			continue;
		addend = 0;
		for (size_t i = 0; i < nrel && !addend; i++)
			if (rel[i][0] == slot)
				addend = rel[i][1];
		if (!addend)
			continue;
		ifunc_at(path, addend, names, sizeof(names));
		if (!names[0])
			continue;
		entries++;
		n = kp_dso_symbolize(d, vaddr_to_off(elf, addr) + 2, f, MAXF);
		if (n >= 1 && f[n - 1].func && strlen(f[n - 1].func) > 4 &&
		    !strcmp(f[n - 1].func + strlen(f[n - 1].func) - 4, "@plt")) {
			snprintf(want, sizeof(want), " %.*s ", (int)strlen(f[n - 1].func) - 4,
				 f[n - 1].func);
			if (strstr(names, want)) {
				same++;
				continue;
			}
		}
		printf("#   PLT entry at 0x%llx (IFUNC%s): kprof says %s\n", addr, names,
		       show(f, n, n - 1));
	}
	if (p)
		pclose(p);
	kp_dso_debug_file(d, &why);
	ok(entries >= 10, "libc: %d PLT entries jump through an IFUNC's slot", entries);
	is_u64(same, entries, "libc: kprof names each after its IFUNC");
	ok(why == KP_DWARF_NONE, "libc: no DWARF read to name them (%d)", (int)why);
	elf_end(elf);
	close(fd);
	kp_dsos_free(t);
}

/* Aliases at one address: the name perf's rule picks (report/symbols/symrank.h). */
static void test_aliases(const char *path)
{
	struct kp_dsos *t = table(false, false, true, NULL);
	struct kp_dso *d = kp_dsos_find(t, path, NULL, 0);
	struct fixture fx;
	struct kp_sym_frame f[MAXF];
	int n;

	if (!ok(fixture_open(&fx, path), "open %s", path))
		return;
	n = kp_dso_symbolize(d, sym_off(&fx, "fx_weak", 1), f, MAXF);
	ok(n == 1 && streq(f[0].func, "fx_public"),
	   "global beats weak, local and more underscores: fx_public (%s)", show(f, n, 0));
	n = kp_dso_symbolize(d, sym_off(&fx, "fx_b", 1), f, MAXF);
	ok(n == 1 && streq(f[0].func, "fx_b_longer"), "then the longer name: fx_b_longer (%s)",
	   show(f, n, 0));
	fixture_close(&fx);
	kp_dsos_free(t);
}

int main(void)
{
	struct fixture c, cxx;
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/fixture-c", builddir());
	if (ok(fixture_open(&c, path), "open %s", path)) {
		test_c_symbols(&c);
		test_c_inline(&c);
		test_status(&c);
		test_debuglink(&c);
		test_padding(&c);
	}
	fixture_close(&c);
	snprintf(path, sizeof(path), "%s/tests/fixtures/fixture-cxx", builddir());
	if (ok(fixture_open(&cxx, path), "open %s", path))
		test_cxx(&cxx);
	fixture_close(&cxx);
	test_demangle();
	test_vdso();
	snprintf(path, sizeof(path), "%s/tests/fixtures/fixture-plt", builddir());
	test_plt(path);
	test_aliases(path);
	snprintf(path, sizeof(path), "%s/tests/fixtures/fixture-plt-ibt", builddir());
	test_plt(path);
	test_plt_ifunc();
	return tap_done();
}

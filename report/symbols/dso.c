/* SPDX-License-Identifier: MIT */
/*
 * dso.c - DSOs and their symbols through libdw: one Dwfl per DSO, opened on first use, and a
 * per-DSO cache from file offset to the frames found there, so that a report resolves each
 * distinct address once however many samples hit it. A recording's embedded symbols, which
 * stand in for a file that gives none, are dso-embed.c's.
 */
#include "dso.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#undef ARRAY_SIZE /* libiberty.h has its own; formats/util.h's is the same */
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "formats/rec.h"
#include "formats/util.h"
#include "debuginfo.h"
#include "debuginfod.h"
#include "dso-int.h"
#include "report/base/hash.h"
#include "report/base/search.h"
#include "report/base/strtab.h"
#include "symrank.h"

#define MAX_NESTING 256
#define VDSO_MAX_SIZE (16u << 20)

static const char *const status_str[] = {
	[KP_DSO_UNLOADED] = "not loaded",
	[KP_DSO_OK] = "ok",
	[KP_DSO_MISSING] = "missing",
	[KP_DSO_BUILDID_MISMATCH] = "build-id mismatch",
	[KP_DSO_NOT_ELF] = "not ELF",
	[KP_DSO_NO_SYMBOLS] = "no symbols",
	[KP_DSO_VDSO_OTHER_KERNEL] = "vDSO of another kernel",
	[KP_DSO_NOT_FILE] = "not a regular file",
};

/* The fd given to dwfl_report_elf() is used; find_elf only serves modules reported by name. */
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = kp_debuginfo_find,
	.debuginfo_path = NULL,
};

void kp_dso_local_only(void)
{
	Dwfl *dwfl;

	unsetenv("DEBUGINFOD_URLS");
	if ((dwfl = dwfl_begin(&dwfl_callbacks))) {
		dwfl_get_debuginfod_client(dwfl);
		dwfl_end(dwfl);
	}
}

const char *kp_dso_status_str(enum kp_dso_status s)
{
	if ((size_t)s >= ARRAY_SIZE(status_str) || !status_str[s])
		return "unknown";
	return status_str[s];
}

const char *kp_dsos_intern(struct kp_dsos *t, const char *s)
{
	return s ? kp_strtab_get(&t->strs, kp_strtab_intern(&t->strs, s)) : NULL;
}

/* A function name as shown: demangled once per distinct raw name when opts.demangle. */
const char *kp_dsos_intern_func(struct kp_dsos *t, const char *raw)
{
	uint32_t i = kp_strtab_intern(&t->strs, raw ? raw : "??"), j;
	uint64_t *v;
	char *dm;

	if (!t->opts.demangle)
		return kp_strtab_get(&t->strs, i);
	v = kp_hash_get(&t->demangled, i);
	if (v)
		return kp_strtab_get(&t->strs, (uint32_t)*v);
	dm = kp_demangle(kp_strtab_get(&t->strs, i));
	j = dm ? kp_strtab_intern(&t->strs, dm) : i;
	free(dm);
	kp_hash_put(&t->demangled, i, j);
	return kp_strtab_get(&t->strs, j);
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

struct kp_dsos *kp_dsos_new(const struct kp_dso_opts *opts)
{
	struct kp_dsos *t = kp_xcalloc(1, sizeof(*t));

	t->opts = *opts;
	if (opts->kernel_release)
		t->release = kp_xstrdup(opts->kernel_release);
	t->opts.kernel_release = t->release;
	kp_hash_init(&t->by_key);
	kp_strtab_init(&t->strs);
	kp_hash_init(&t->demangled);
	return t;
}

void kp_dsos_free(struct kp_dsos *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_dsos; i++) {
		struct kp_dso *d = t->dsos[i];

		if (d->dwfl)
			dwfl_end(d->dwfl);
		kp_hash_release(&d->cache);
		free(d->loads);
		free(d->syms);
		free(d);
	}
	for (size_t i = 0; i < t->nr_embs; i++)
		kp_emb_release(&t->embs[i]);
	free(t->embs);
	kp_strtab_release(&t->strs);
	free(t->dsos);
	free(t->frames);
	free(t->release);
	kp_hash_release(&t->by_key);
	kp_hash_release(&t->demangled);
	free(t);
}

struct want_dso {
	const struct kp_dsos *t;
	const char *path;
	const uint8_t *id;
	size_t len;
};

static bool same_dso(const void *ctx, uint64_t i)
{
	const struct want_dso *w = ctx;
	const struct kp_dso *d = w->t->dsos[i];

	return !strcmp(d->path, w->path) && d->build_id_len == w->len &&
	       (!w->len || !memcmp(d->build_id, w->id, w->len));
}

struct kp_dso *kp_dsos_find(struct kp_dsos *t, const char *path, const uint8_t *build_id,
			    size_t build_id_len)
{
	struct want_dso want = { t, path, build_id, build_id ? build_id_len : 0 };
	uint64_t key, *v;
	struct kp_dso *d;
	const char *slash;

	build_id_len = want.len;
	key = kp_hash_bytes(build_id, build_id_len, kp_hash_bytes(path, strlen(path) + 1, 0));
	if ((v = kp_hash_find(&t->by_key, &key, same_dso, &want)))
		return t->dsos[*v];
	d = kp_xcalloc(1, sizeof(*d) + build_id_len);
	d->t = t;
	d->path = kp_dsos_intern(t, path);
	slash = strrchr(d->path, '/');
	d->short_name = slash && slash[1] ? slash + 1 : d->path;
	if (build_id_len)
		memcpy(d->build_id, build_id, build_id_len);
	d->build_id_len = build_id_len;
	d->status = KP_DSO_UNLOADED;
	kp_hash_init(&d->cache);
	KP_GROW(t->dsos, t->cap_dsos, t->nr_dsos + 1);
	t->dsos[t->nr_dsos] = d;
	kp_hash_put(&t->by_key, key, t->nr_dsos++);
	return d;
}

size_t kp_bid_trim(const uint8_t *bid, size_t len)
{
	while (len && !bid[len - 1]) /* perf-style padding */
		len--;
	return len;
}

void kp_dsos_alts(struct kp_dsos *t, const struct kp_dso_alt *alts, size_t nr)
{
	t->alts = alts;
	t->nr_alts = nr;
}

enum kp_dso_source kp_dso_source(struct kp_dso *d, enum kp_dso_status *file_status)
{
	kp_dso_status(d);
	*file_status = d->source == KP_DSO_SRC_FILE ? d->status : d->file_status;
	return d->source;
}

bool kp_dso_stripped(struct kp_dso *d)
{
	kp_dso_status(d);
	return d->mod && !d->own_symtab;
}

const char *kp_dso_path(const struct kp_dso *d)
{
	return d->path;
}

const char *kp_dso_short_name(const struct kp_dso *d)
{
	return d->short_name;
}

const char *kp_dso_debug_file(struct kp_dso *d, enum kp_dso_dwarf *dwarf)
{
	const char *main_file = NULL, *debug_file = NULL;

	*dwarf = d->dwarf;
	if (d->mod)
		dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &main_file, &debug_file);
	return debug_file && (!main_file || strcmp(debug_file, main_file)) ? debug_file : NULL;
}

/* Bytes of the live vDSO image: its section header table or last PT_LOAD, whichever ends last. */
static size_t vdso_size(const unsigned char *img)
{
	const ElfW(Ehdr) *eh = (const void *)img;
	const ElfW(Phdr) *ph = (const void *)(img + eh->e_phoff);
	size_t end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return 0;
	for (size_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	return end;
}

/* A memfd holding a copy of this process's vDSO, if it is the recorded kernel's; else -1. */
static int vdso_open(struct kp_dso *d)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	const char *rel = d->t->opts.kernel_release;
	struct utsname u;
	size_t size;
	int fd;

	if (!rel || uname(&u) || strcmp(u.release, rel)) {
		d->status = KP_DSO_VDSO_OTHER_KERNEL;
		return -1;
	}
	d->status = KP_DSO_MISSING;
	size = img ? vdso_size(img) : 0;
	if (!size || size > VDSO_MAX_SIZE)
		return -1;
	fd = memfd_create("kprof-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (kp_write_all(fd, img, size)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Open the DSO's file read-only; sets the status and returns -1 when there is none usable. */
static int file_open(struct kp_dso *d)
{
	int fd;

	if (!d->fetched && !strcmp(d->path, "[vdso]"))
		return vdso_open(d);
	/* only a regular file: a FIFO at a recorded path must not hang the report */
	fd = kp_open_file(d->fetched ? d->fetched : d->path, 0, 0, NULL);
	if (fd == -ENOENT || fd == -ENOTDIR)
		d->status = KP_DSO_MISSING;
	else if (fd == -KP_EFIFO || fd == -KP_EDEVICE || fd == -KP_ENOTREG || fd == -EISDIR)
		d->status = KP_DSO_NOT_FILE;
	else if (fd < 0)
		d->status = KP_DSO_NOT_ELF;
	return fd < 0 ? -1 : fd;
}

/*
 * The recorded build-id matches the file's NT_GNU_BUILD_ID note, which is kept; perf-style
 * records pad ids shorter than 20 bytes with zeros, so trailing zero bytes of the recorded id
 * are ignored.
 */
static bool build_id_matches(struct kp_dso *d, Elf *elf)
{
	const void *bits;
	ssize_t len = dwelf_elf_gnu_build_id(elf, &bits);

	if (len > 0 && (size_t)len <= sizeof(d->file_build_id)) { /* for kp_dso_build_id() */
		memcpy(d->file_build_id, bits, (size_t)len);
		d->file_build_id_len = (size_t)len;
	}
	if (!d->build_id_len)
		return true;
	if (len <= 0 || (size_t)len > d->build_id_len || memcmp(bits, d->build_id, (size_t)len))
		return false;
	for (size_t i = (size_t)len; i < d->build_id_len; i++)
		if (d->build_id[i])
			return false;
	return true;
}

size_t kp_dso_build_id(struct kp_dso *d, const uint8_t **bits)
{
	size_t len = d->build_id_len;

	while (len && !d->build_id[len - 1]) /* perf-style padding */
		len--;
	if (len) {
		*bits = d->build_id;
		return len;
	}
	kp_dso_status(d);
	*bits = d->file_build_id;
	return d->file_build_id_len;
}

static bool read_loads(struct kp_dso *d, Elf *elf)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (!ph || ph->p_type != PT_LOAD || !ph->p_filesz)
			continue;
		KP_GROW(d->loads, d->cap_loads, d->nr_loads + 1);
		d->loads[d->nr_loads++] = (struct load){ ph->p_offset, ph->p_filesz, ph->p_vaddr,
							 (ph->p_flags & PF_X) != 0 };
	}
	return d->nr_loads > 0;
}

/* Check the ELF header, build-id and PT_LOAD headers of @fd; sets the status on failure. */
static bool check_elf(struct kp_dso *d, int fd)
{
	Elf *elf;
	GElf_Ehdr eh;
	bool good = false;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		d->status = KP_DSO_NOT_ELF;
	else if (!build_id_matches(d, elf))
		d->status = KP_DSO_BUILDID_MISMATCH;
	else if (!read_loads(d, elf))
		d->status = KP_DSO_NO_SYMBOLS; /* nothing is mapped from it: no offset can resolve */
	else
		good = true;
	if (good) {
		d->entry = eh.e_entry;
		d->machine = eh.e_machine;
	}
	if (elf)
		elf_end(elf);
	return good;
}

/* Report @fd (consumed, also on failure) as the DSO's only module, at its ELF addresses. */
static bool dwfl_open(struct kp_dso *d, int fd)
{
	Dwarf_Addr bias;

	d->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!d->dwfl) {
		close(fd);
		return false;
	}
	dwfl_report_begin(d->dwfl);
	/* base 0 + add_p_vaddr: the module starts at its first p_vaddr, so bias is 0 (ET_DYN). */
	d->mod = dwfl_report_elf(d->dwfl, d->short_name, d->fetched ? d->fetched : d->path, fd, 0,
				 true);
	if (!d->mod)
		close(fd);
	if (dwfl_report_end(d->dwfl, NULL, NULL) || !d->mod)
		return false;
	if (!dwfl_module_getelf(d->mod, &bias))
		return false;
	d->bias = bias;
	return true;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return kp_symrank_cmp(&(struct kp_symrank){ x->name, x->size, x->typed, x->bind },
			      &(struct kp_symrank){ y->name, y->size, y->typed, y->bind });
}

/* Functions, and untyped labels in code (hand-written assembly), are what samples hit. */
static bool sym_is_code(const GElf_Sym *s, GElf_Word shndx, Elf *elf)
{
	int type = GELF_ST_TYPE(s->st_info);
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (shndx == SHN_UNDEF || shndx == SHN_ABS)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	scn = type == STT_NOTYPE && elf ? elf_getscn(elf, shndx) : NULL;
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

void kp_dso_sym_add(struct kp_dso *d, struct sym s)
{
	KP_GROW(d->syms, d->cap_syms, d->nr_syms + 1);
	d->syms[d->nr_syms++] = s;
}

/* Sort the module's function symbols and its PLT entries, keep one name per address (perf's
 * choice among aliases), size the sizeless. */
static void syms_load(struct kp_dso *d)
{
	int n = dwfl_module_getsymtab(d->mod);
	size_t k = 0;

	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(d->mod, i, &s, &addr, &shndx, &elf, NULL);

		if (!name || !*name || !sym_is_code(&s, shndx, elf))
			continue;
		kp_dso_sym_add(d, (struct sym){ addr, s.st_size, name,
						GELF_ST_TYPE(s.st_info) != STT_NOTYPE,
						(unsigned char)GELF_ST_BIND(s.st_info) });
	}
	kp_dso_plt_syms(d);
	if (d->nr_syms)
		qsort(d->syms, d->nr_syms, sizeof(*d->syms), sym_cmp);
	for (size_t i = 0; i < d->nr_syms; i++)
		if (!k || d->syms[i].addr != d->syms[k - 1].addr)
			d->syms[k++] = d->syms[i];
	d->nr_syms = k;
	/* As perf does, a sizeless symbol runs to the next one (the last one covers 1 byte). */
	for (size_t i = 0; i < k; i++)
		if (!d->syms[i].size)
			d->syms[i].size = i + 1 < k ? d->syms[i + 1].addr - d->syms[i].addr : 1;
}

/*
 * The symbol covering @addr: the last one starting at or before it, or one of the few before
 * that when symbols nest.
 */
static const struct sym *sym_find(const struct kp_dso *d, uint64_t addr)
{
	size_t lo = KP_FIRST_ABOVE(d->syms, d->nr_syms, addr, addr);

	for (size_t i = lo; i-- > 0 && lo - i <= 8;)
		if (addr - d->syms[i].addr < d->syms[i].size)
			return &d->syms[i];
	return NULL;
}

/*
 * Whether the DWARF may be read for a frame (@named: a symbol table names it), and why: the
 * binary's own always; a separate debug file's, which libdw inflates whole, only for what
 * only it has: source lines (--srcline), a name no symbol table gives, inline frames when
 * asked for them there (--inline).
 */
static bool dwarf_wanted(struct kp_dso *d, bool named)
{
	const struct kp_dso_opts *o = &d->t->opts;
	enum kp_dso_dwarf why = d->own_dwarf ? KP_DWARF_OWN
				: o->srcline ? KP_DWARF_SRCLINE
				: !named ? KP_DWARF_UNNAMED
				: o->inline_debug && o->inline_frames ? KP_DWARF_INLINE
								      : KP_DWARF_NONE;

	if (why != KP_DWARF_NONE && d->dwarf == KP_DWARF_NONE)
		d->dwarf = why;
	return why != KP_DWARF_NONE;
}

static void file_load(struct kp_dso *d)
{
	Dwarf_Addr dbias;
	int fd = file_open(d);

	if (fd < 0)
		return;
	if (!check_elf(d, fd)) {
		close(fd);
		return;
	}
	if (!dwfl_open(d, fd)) {
		d->status = KP_DSO_NOT_ELF;
		return;
	}
	d->own_dwarf = kp_debuginfo_has_dwarf(dwfl_module_getelf(d->mod, &dbias));
	d->own_symtab = kp_debuginfo_has_symtab(dwfl_module_getelf(d->mod, &dbias));
	/* A symbol table (.symtab, .dynsym, separate debuginfo, minidebuginfo) or else DWARF. */
	syms_load(d);
	if (d->nr_syms || (dwarf_wanted(d, false) && dwfl_module_getdwarf(d->mod, &dbias)))
		d->status = KP_DSO_OK;
	else
		d->status = KP_DSO_NO_SYMBOLS;
}

/*
 * The DSO read from @path instead of its recorded path (which gave @was): @source says whose
 * file it is. The state the recorded path's file left, if any, is dropped.
 */
static void load_elsewhere(struct kp_dso *d, const char *path, enum kp_dso_source source,
			   enum kp_dso_status was)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
	d->nr_loads = d->nr_syms = 0;
	d->fetched = kp_dsos_intern(d->t, path);
	file_load(d);
	d->file_status = was;
	d->source = source;
}

/* A binary missing here, or another build, fetched by its recorded build-id from debuginfod. */
static void fetch_use(struct kp_dso *d)
{
	size_t len = kp_bid_trim(d->build_id, d->build_id_len);
	enum kp_dso_status was = d->status;
	char *path;
	int fd;

	if (!len || !strcmp(d->path, "[vdso]") ||
	    (was != KP_DSO_MISSING && was != KP_DSO_BUILDID_MISMATCH && was != KP_DSO_NOT_ELF &&
	     was != KP_DSO_NOT_FILE))
		return;
	fd = kp_debuginfod_find(KP_DEBUGINFOD_EXECUTABLE, d->build_id, len, d->path, &path);
	if (fd < 0)
		return;
	close(fd);
	load_elsewhere(d, path, KP_DSO_SRC_DEBUGINFOD, was);
	free(path);
}

/* The file the process mapped, as its own mount namespace showed it (kp_dsos_alts()). */
static const struct kp_dso_alt *alt_of(const struct kp_dso *d)
{
	size_t len = kp_bid_trim(d->build_id, d->build_id_len);

	for (size_t i = 0; i < d->t->nr_alts; i++) {
		const struct kp_dso_alt *a = &d->t->alts[i];

		if (strcmp(a->path, d->path))
			continue;
		if (!len || !a->build_id_len ||
		    (kp_bid_trim(a->build_id, a->build_id_len) == len &&
		     !memcmp(a->build_id, d->build_id, len)))
			return a;
	}
	return NULL;
}

/*
 * The file at the recorded path, when it is the recorded one and names something; else the
 * file its process saw, while the recording is still being made (a process in another mount
 * namespace, kp_dsos_alts()); else the recording's embedded symbols; else the binary
 * debuginfod has for the build-id.
 */
static void dso_load(struct kp_dso *d)
{
	const struct kp_dso_alt *alt;
	struct emb *e;

	file_load(d);
	if (d->status != KP_DSO_OK && d->t->nr_alts && (alt = alt_of(d)))
		load_elsewhere(d, alt->file, KP_DSO_SRC_NAMESPACE, d->status);
	if (d->status != KP_DSO_OK && d->t->nr_embs && (e = kp_emb_find(d))) {
		enum kp_dso_status was = d->status;
		const char *skel = was != KP_DSO_NO_SYMBOLS ? kp_emb_skeleton(e) : NULL;

		/* its unwind tables, as a sparse copy of the file: for stack copies */
		if (skel) {
			load_elsewhere(d, skel, KP_DSO_SRC_EMBEDDED, was);
			d->skeleton = true;
		}
		d->status = was;
		kp_emb_use(d, e);
	}
	if (d->status != KP_DSO_OK && kp_debuginfod_enabled())
		fetch_use(d);
}

enum kp_dso_status kp_dso_status(struct kp_dso *d)
{
	if (d->status == KP_DSO_UNLOADED)
		dso_load(d);
	return d->status;
}

int kp_dso_open(struct kp_dso *d)
{
	enum kp_dso_status st = kp_dso_status(d);
	int fd;

	/* a file without symbols still has its unwind tables: only an unusable one is refused,
	 * and with embedded symbols, the file is the recorded one's or their sparse copy */
	if ((st != KP_DSO_OK && st != KP_DSO_NO_SYMBOLS) ||
	    (d->emb && !d->fetched && d->file_status != KP_DSO_NO_SYMBOLS))
		return -1;
	fd = file_open(d);
	d->status = st; /* file_open() notes why it fails; the DSO was found usable */
	return fd;
}

/* The ELF vaddr of @off: the PT_LOAD containing it, an executable one if several do. */
static bool off_to_vaddr(const struct kp_dso *d, uint64_t off, uint64_t *vaddr)
{
	const struct load *hit = NULL;

	for (size_t i = 0; i < d->nr_loads; i++) {
		const struct load *l = &d->loads[i];

		if (off < l->off || off - l->off >= l->filesz)
			continue;
		if (!hit || (l->exec && !hit->exec))
			hit = l;
	}
	if (hit)
		*vaddr = off - hit->off + hit->vaddr;
	return hit != NULL;
}

/* The file offset of ELF address @vaddr: the PT_LOAD whose file bytes hold it. */
static bool vaddr_to_off(const struct kp_dso *d, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < d->nr_loads; i++) {
		const struct load *l = &d->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = vaddr - l->vaddr + l->off;
			return true;
		}
	}
	return false;
}

bool kp_dso_func_at(struct kp_dso *d, uint64_t file_off, struct kp_dso_func *f)
{
	const struct sym *sym;
	uint64_t vaddr;

	if (kp_dso_status(d) == KP_DSO_OK && d->emb) {
		const struct emb_func *e = kp_emb_func_at(d->emb, file_off);

		if (e)
			*f = (struct kp_dso_func){ kp_dsos_intern_func(d->t, e->name), e->vaddr,
						   e->size, e->off };
		return e != NULL;
	}
	if (kp_dso_status(d) != KP_DSO_OK || !off_to_vaddr(d, file_off, &vaddr) ||
	    !(sym = sym_find(d, vaddr + d->bias)) || sym->addr < d->bias)
		return false;
	f->vaddr = sym->addr - d->bias;
	f->size = sym->size;
	f->name = kp_dsos_intern_func(d->t, sym->name);
	return vaddr_to_off(d, f->vaddr, &f->off);
}

const uint8_t *kp_dso_code(struct kp_dso *d, uint64_t off, uint64_t len, unsigned *machine)
{
	GElf_Addr bias;
	Elf *elf;
	const char *raw;
	size_t size;

	if (kp_dso_status(d) != KP_DSO_OK || d->skeleton || !d->mod ||
	    !(elf = dwfl_module_getelf(d->mod, &bias)) || !(raw = elf_rawfile(elf, &size)))
		return NULL;
	for (size_t i = 0; i < d->nr_loads; i++) {
		const struct load *l = &d->loads[i];

		if (!l->exec || off < l->off || off - l->off > l->filesz ||
		    len > l->filesz - (off - l->off) || off > size || len > size - off)
			continue;
		*machine = d->machine;
		return (const uint8_t *)raw + off;
	}
	return NULL;
}

size_t kp_dso_file_build_id(struct kp_dso *d, const uint8_t **bits)
{
	kp_dso_status(d);
	*bits = d->file_build_id;
	return d->file_build_id_len;
}

int kp_dso_debug_frame(struct kp_dso *d, uint64_t vaddr, Dwarf_Frame **frame)
{
	enum kp_dso_status st = kp_dso_status(d);
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;

	if ((st != KP_DSO_OK && st != KP_DSO_NO_SYMBOLS) || !d->mod ||
	    !(cfi = dwfl_module_dwarf_cfi(d->mod, &bias)))
		return -1;
	return dwarf_cfi_addrframe(cfi, vaddr + d->bias - bias, frame) ? -1 : 0;
}

bool kp_dso_entry(struct kp_dso *d, uint64_t *off)
{
	enum kp_dso_status st = kp_dso_status(d);

	if ((st != KP_DSO_OK && st != KP_DSO_NO_SYMBOLS) || !d->entry)
		return false;
	for (size_t i = 0; i < d->nr_loads; i++) {
		const struct load *l = &d->loads[i];

		if (d->entry >= l->vaddr && d->entry - l->vaddr < l->filesz) {
			*off = d->entry - l->vaddr + l->off;
			return true;
		}
	}
	return false;
}

/* A DWARF function name: the linkage name (demanglable) when there is one, else DW_AT_name. */
static const char *die_func_name(Dwarf_Die *die)
{
	Dwarf_Attribute mem;
	const char *s;

	/* _integrate follows DW_AT_abstract_origin and DW_AT_specification to the declaration. */
	s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &mem));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &mem));
	return s ? s : dwarf_diename(die);
}

/* The call site of an inlined instance: where the frame it was inlined into stands. */
static void call_site(Dwarf_Die *inl, struct kp_sym_frame *f)
{
	Dwarf_Attribute mem;
	Dwarf_Word w;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;

	if (!dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &mem), &w) && w <= UINT32_MAX)
		f->line = (uint32_t)w;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &mem), &w) ||
	    !dwarf_diecu(inl, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) ||
	    w >= nfiles)
		return;
	f->file = dwarf_filesrc(files, w, NULL, NULL);
}

static void addr_srcline(struct kp_dso *d, Dwarf_Addr addr, struct kp_sym_frame *f)
{
	Dwfl_Line *l = dwfl_module_getsrc(d->mod, addr);
	int line = 0;

	if (!l)
		return;
	f->file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	f->line = line > 0 ? (uint32_t)line : 0;
}

static bool is_code_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

/*
 * Descend from @parent to the innermost code scope holding @pc, filling @path outermost
 * first; returns the new depth. Only namespaces (GCC nests C++ definitions there) and scopes
 * holding @pc are entered, so one lookup costs a walk over the CU's top-level DIEs and one
 * function's tree: dwarf_getscopes() + dwarf_getscopes_die() walk the CU three times.
 * @level bounds the recursion on hostile files (namespaces nested without end).
 */
static int scope_path(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path, int depth, int level)
{
	Dwarf_Die c;

	if (depth >= MAX_CHAIN || level >= MAX_NESTING || dwarf_child(parent, &c))
		return depth;
	do {
		int tag = dwarf_tag(&c), sub;

		if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			sub = scope_path(&c, pc, path, depth, level + 1);
			if (sub > depth)
				return sub;
		} else if (is_code_scope(tag) && dwarf_haspc(&c, pc) > 0) {
			path[depth] = c;
			return scope_path(&c, pc, path, depth + 1, level + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return depth;
}

/*
 * Fill @chain from DWARF: the inlined instances around @addr, innermost first, then the
 * subprogram holding them, with each outer frame's line at its inlined child's call site.
 */
static int dwarf_chain(struct kp_dso *d, Dwarf_Addr addr, struct kp_sym_frame *chain)
{
	Dwarf_Die path[MAX_CHAIN], *prev = NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(d->mod, addr, &bias);
	int depth = cu ? scope_path(cu, addr - bias, path, 0, 0) : 0;
	int n = 0;

	for (int i = depth - 1; i >= 0; i--) {
		int tag = dwarf_tag(&path[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		chain[n] = (struct kp_sym_frame){ .func = die_func_name(&path[i]),
						  .inlined = tag == DW_TAG_inlined_subroutine };
		if (d->t->opts.srcline && !prev)
			addr_srcline(d, addr, &chain[n]);
		else if (d->t->opts.srcline)
			call_site(prev, &chain[n]);
		n++;
		prev = &path[i];
		if (tag == DW_TAG_subprogram)
			break;
	}
	return n;
}

#define PADDING_MAX 64 /* the widest alignment between functions: glibc's string functions */

/*
 * Whether @addr lies in the padding between two functions of the symbol table: past one's end,
 * less than PADDING_MAX bytes before the next. A return address just past a call that does not
 * return lands there. DWARF has no function there either, so a separate debug file's is not
 * inflated (10 MB for libc) to find none.
 */
static bool in_padding(const struct kp_dso *d, uint64_t addr)
{
	size_t lo = KP_FIRST_ABOVE(d->syms, d->nr_syms, addr, addr); /* the first after @addr */

	if (!lo || lo == d->nr_syms)
		return false;
	const struct sym *prev = &d->syms[lo - 1], *next = &d->syms[lo];
	return addr >= prev->addr + prev->size && next->addr - (prev->addr + prev->size) < PADDING_MAX;
}

/* Resolve @off into new frames at the end of the table's array; returns the cache value. */
static uint64_t resolve(struct kp_dso *d, uint64_t off)
{
	struct kp_dsos *t = d->t;
	struct kp_sym_frame chain[MAX_CHAIN];
	const struct sym *sym;
	uint64_t vaddr, first = t->nr_frames;
	int n = 0;

	if (!off_to_vaddr(d, off, &vaddr))
		return first << 8;
	sym = sym_find(d, vaddr + d->bias);
	if ((t->opts.inline_frames || t->opts.srcline) &&
	    dwarf_wanted(d, sym != NULL || in_padding(d, vaddr + d->bias)))
		n = dwarf_chain(d, vaddr + d->bias, chain);
	if (!n && !sym)
		return first << 8;
	if (!n) {
		chain[n++] = (struct kp_sym_frame){ 0 };
		if (t->opts.srcline)
			addr_srcline(d, vaddr + d->bias, &chain[0]);
	}
	if (sym)
		chain[n - 1].func = sym->name; /* the ELF symbol names the outermost function best */
	if (!t->opts.inline_frames) {
		chain[0] = chain[n - 1];
		n = 1;
	}
	chain[n - 1].inlined = false;
	KP_GROW(t->frames, t->cap_frames, t->nr_frames + (size_t)n);
	for (int i = 0; i < n; i++) {
		struct kp_sym_frame *f = &t->frames[t->nr_frames++];

		*f = chain[i];
		f->func = kp_dsos_intern_func(t, chain[i].func);
		f->sys = kp_dsos_intern(t, chain[i].func ? chain[i].func : "??");
		f->file = kp_dsos_intern(t, chain[i].file);
		f->off = sym ? vaddr + d->bias - sym->addr : UINT64_MAX;
	}
	return first << 8 | (uint64_t)n;
}

int kp_dso_symbolize(struct kp_dso *d, uint64_t file_off, struct kp_sym_frame *frames, int max)
{
	uint64_t *v, val;
	size_t n;

	if (max < 1 || kp_dso_status(d) != KP_DSO_OK)
		return 0;
	v = kp_hash_get(d->emb ? &d->emb->locs : &d->cache, file_off);
	if (v) {
		val = *v;
	} else if (d->emb) {
		return 0;
	} else {
		val = resolve(d, file_off);
		kp_hash_put(&d->cache, file_off, val);
	}
	n = VAL_N(val);
	if (!n)
		return 0;
	if (n > (size_t)max)
		n = (size_t)max;
	memcpy(frames, d->t->frames + (val >> 8), n * sizeof(*frames));
	return (int)n;
}

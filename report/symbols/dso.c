/* SPDX-License-Identifier: MIT */
/*
 * dso.c - DSOs and their symbols through libdw: one Dwfl per DSO, opened on first use, and a
 * per-DSO cache from file offset to the frames found there, so that a report resolves each
 * distinct address once however many samples hit it. Below it: the names, frames and symbol
 * tables it hands out (symtab.c), the DWARF's frames (dso-dwarf.c), the PLT's names
 * (dso-plt.c), the functions the unwind tables delimit where no symbol names them
 * (dso-fde.c) and a recording's embedded symbols, which stand in for a file that gives none
 * (dso-embed.c).
 */
#include "dso.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <link.h>
#include <stdio.h>
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
#include "dso-dwarf.h"
#include "dso-embed.h"
#include "dso-fde.h"
#include "dso-plt.h"
#include "report/base/hash.h"
#include "report/base/search.h"
#include "report/base/strtab.h"
#include "symrank.h"
#include "symtab.h"

#define VDSO_MAX_SIZE (16u << 20)
_Static_assert(KP_DSO_MAX_FRAMES == KP_SYM_MAX_FRAMES,
	       "a SYMBOLS record holds what a lookup gives");

struct load {
	uint64_t off, filesz, vaddr;
	bool exec;
};

struct kp_dso {
	struct kp_dsos *t;
	const char *path, *short_name; /* interned */
	enum kp_dso_status status;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias; /* module address = ELF vaddr + bias */
	uint64_t entry;	/* e_entry, an ELF vaddr */
	unsigned machine; /* e_machine */
	struct load *loads;
	size_t nr_loads, cap_loads;
	struct kp_symtab syms;
	struct kp_hash cache; /* file_off -> kp_symnames value (its frames) */
	struct kp_fdes fdes; /* the functions its unwind tables delimit, where no symbol is */
	struct kp_dwarf_scopes scopes; /* its DWARF's code scopes, as lookups read them */
	bool own_dwarf;	/* the binary carries its DWARF (else only a debug file can have it) */
	bool own_symtab; /* the binary has its .symtab (was not stripped) */
	enum kp_dso_dwarf dwarf; /* why the DWARF was read, when it was */
	uint8_t file_build_id[20]; /* the file's, read when it is checked */
	size_t file_build_id_len;
	struct kp_emb *emb;	/* the embedded symbols it uses, when its file gives none */
	bool skeleton;		/* its file is their sparse copy: headers and unwind tables,
				 * no code */
	const char *fetched;	/* the file read instead of the recorded path (interned):
				 * debuginfod's, in its cache, or the process's own (alts) */
	enum kp_dso_source source;
	enum kp_dso_status file_status; /* named from elsewhere: why the file could not be */
	size_t build_id_len;
	uint8_t build_id[]; /* as recorded */
};

struct kp_dsos {
	struct kp_dso_opts opts;
	char *release; /* owned copy of opts.kernel_release */
	struct kp_dso **dsos;
	size_t nr_dsos, cap_dsos;
	struct kp_hash by_key; /* hash(path, build-id), probed linearly -> index in dsos */
	struct kp_symnames names; /* names, files and paths handed out, and the frames */
	struct kp_embs embs;
	const struct kp_dso_alt *alts;	/* borrowed */
	size_t nr_alts;
};

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

struct kp_dsos *kp_dsos_new(const struct kp_dso_opts *opts)
{
	struct kp_dsos *t = kp_xcalloc(1, sizeof(*t));

	t->opts = *opts;
	if (opts->kernel_release)
		t->release = kp_xstrdup(opts->kernel_release);
	t->opts.kernel_release = t->release;
	kp_hash_init(&t->by_key);
	kp_symnames_init(&t->names, opts->demangle);
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
		kp_fdes_release(&d->fdes);
		kp_dwarf_scopes_release(&d->scopes);
		free(d->loads);
		kp_symtab_release(&d->syms);
		free(d);
	}
	kp_embs_release(&t->embs);
	kp_symnames_release(&t->names);
	free(t->dsos);
	free(t->release);
	kp_hash_release(&t->by_key);
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
	d->path = kp_symnames_intern(&t->names, path);
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
	size_t len = d->build_id_len, zeroes = 0;

	/* perf's build_id_event pads a shorter build-id (MD5 or UUID: 16 bytes) to 20 with
	 * zeroes: 4 or more of them at the end are padding, where a SHA-1 may end in a zero byte
	 * or two of its own (1 in 256 does) */
	while (zeroes < len && !d->build_id[len - 1 - zeroes])
		zeroes++;
	if (zeroes >= 4 || zeroes == len)
		len -= zeroes;
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
	void **userdata;

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
	/* for kp_debuginfo_find(), which libdw gives the module's user data */
	dwfl_module_info(d->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = d->t->opts.debuginfod;
	if (!dwfl_module_getelf(d->mod, &bias))
		return false;
	d->bias = bias;
	return true;
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

/* The module's function symbols and its PLT entries, one name per address (symtab.h). */
static void syms_load(struct kp_dso *d)
{
	int n = dwfl_module_getsymtab(d->mod);
	GElf_Addr bias;

	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(d->mod, i, &s, &addr, &shndx, &elf, NULL);

		if (!name || !*name || !sym_is_code(&s, shndx, elf))
			continue;
		kp_symtab_add(&d->syms, (struct kp_sym){ addr, s.st_size, name,
							 GELF_ST_TYPE(s.st_info) != STT_NOTYPE,
							 (unsigned char)GELF_ST_BIND(s.st_info) });
	}
	kp_plt_syms(dwfl_module_getelf(d->mod, &bias), d->bias, &d->syms, &d->t->names);
	kp_symtab_sort(&d->syms);
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
	if (d->syms.nr || (dwarf_wanted(d, false) && dwfl_module_getdwarf(d->mod, &dbias)))
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
	d->nr_loads = 0;
	kp_symtab_clear(&d->syms);
	kp_fdes_release(&d->fdes);
	kp_dwarf_scopes_release(&d->scopes);
	d->fetched = kp_symnames_intern(&d->t->names, path);
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
	fd = kp_debuginfod_find(d->t->opts.debuginfod, KP_DEBUGINFOD_EXECUTABLE, d->build_id, len,
				d->path, &path);
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

/* A DSO whose file gives no symbols takes the embedded ones @e: its status becomes KP_DSO_OK. */
static void emb_use(struct kp_dso *d, struct kp_emb *e)
{
	d->emb = e;
	d->file_status = d->status;
	d->status = KP_DSO_OK;
	d->source = e->ns ? KP_DSO_SRC_EMBEDDED_NS : KP_DSO_SRC_EMBEDDED;
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
	struct kp_emb *e;

	file_load(d);
	if (d->status != KP_DSO_OK && d->t->nr_alts && (alt = alt_of(d)))
		load_elsewhere(d, alt->file, KP_DSO_SRC_NAMESPACE, d->status);
	if (d->status != KP_DSO_OK && d->t->embs.nr &&
	    (e = kp_embs_find(&d->t->embs, d->path, d->build_id,
			      kp_bid_trim(d->build_id, d->build_id_len)))) {
		enum kp_dso_status was = d->status;
		const char *skel = was != KP_DSO_NO_SYMBOLS ? kp_emb_skeleton(e) : NULL;

		/* its unwind tables, as a sparse copy of the file: for stack copies */
		if (skel) {
			load_elsewhere(d, skel, KP_DSO_SRC_EMBEDDED, was);
			d->skeleton = true;
		}
		d->status = was;
		emb_use(d, e);
	}
	if (d->status != KP_DSO_OK && kp_debuginfod_enabled(d->t->opts.debuginfod))
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

/*
 * Whether lookups may name the DSO's addresses from its file: by its symbols, or else, for a
 * file that has none (KP_DSO_NO_SYMBOLS), by the functions its unwind tables delimit.
 */
static bool file_names(struct kp_dso *d)
{
	enum kp_dso_status st = kp_dso_status(d);

	return st == KP_DSO_OK || (st == KP_DSO_NO_SYMBOLS && d->mod);
}

/*
 * The name of the function @f delimits, interned: sub_HEX@DSO, HEX its start as objdump, nm
 * and readelf print an ELF address (IDA's name for a function known only by where it starts),
 * DSO the binary's short name (where it lives, as in perf's memcpy@plt).
 */
static const char *fde_name(struct kp_dso *d, const struct kp_fde *f)
{
	size_t size = strlen(d->short_name) + 24;
	char *buf = kp_xmalloc(size);
	const char *name;

	snprintf(buf, size, "sub_%" PRIx64 "@%s", f->start, d->short_name);
	name = kp_symnames_intern(&d->t->names, buf);
	free(buf);
	return name;
}

bool kp_dso_func_at(struct kp_dso *d, uint64_t file_off, struct kp_dso_func *f)
{
	const struct kp_sym *sym;
	const struct kp_fde *fde;
	uint64_t vaddr;

	if (kp_dso_status(d) == KP_DSO_OK && d->emb) {
		const struct kp_emb_func *e = kp_emb_func_at(d->emb, file_off);

		if (e)
			*f = (struct kp_dso_func){ kp_symnames_func(&d->t->names, e->name),
						   e->vaddr, e->size, e->off };
		return e != NULL;
	}
	if (!file_names(d) || !off_to_vaddr(d, file_off, &vaddr))
		return false;
	if ((sym = kp_symtab_find(&d->syms, vaddr + d->bias))) {
		if (sym->addr < d->bias)
			return false;
		f->vaddr = sym->addr - d->bias;
		f->size = sym->size;
		f->name = kp_symnames_func(&d->t->names, sym->name);
	} else if ((fde = kp_fdes_func(&d->fdes, d->mod, d->bias, vaddr))) {
		f->vaddr = fde->start;
		f->size = fde->end - fde->start;
		f->name = kp_symnames_func(&d->t->names, fde_name(d, fde));
	} else {
		return false;
	}
	return vaddr_to_off(d, f->vaddr, &f->off);
}

const uint8_t *kp_dso_code(struct kp_dso *d, uint64_t off, uint64_t len, unsigned *machine)
{
	GElf_Addr bias;
	Elf *elf;
	const char *raw;
	size_t size;

	if (!file_names(d) || d->skeleton || !d->mod ||
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

/* Resolve @off into new frames at the end of the table's array; returns the cache value. */
static uint64_t resolve(struct kp_dso *d, uint64_t off)
{
	struct kp_dsos *t = d->t;
	struct kp_sym_frame chain[KP_DSO_MAX_FRAMES], *f;
	const struct kp_sym *sym;
	const struct kp_fde *fde = NULL;
	uint64_t vaddr, first = t->names.nr_frames;
	int n = 0;

	if (!off_to_vaddr(d, off, &vaddr))
		return first << 8;
	sym = kp_symtab_find(&d->syms, vaddr + d->bias);
	/* DWARF has no function in the padding between two symbols either, so a separate
	 * debug file's is not inflated (10 MB for libc) to find none there */
	if ((t->opts.inline_frames || t->opts.srcline) &&
	    dwarf_wanted(d, sym != NULL || kp_symtab_in_padding(&d->syms, vaddr + d->bias)))
		n = kp_dwarf_chain(&d->scopes, d->mod, vaddr + d->bias, t->opts.srcline, chain);
	/* nothing names it: the function its unwind tables delimit, if they do */
	if (!n && !sym && !(fde = kp_fdes_func(&d->fdes, d->mod, d->bias, vaddr)))
		return first << 8;
	if (!n) {
		chain[n++] = (struct kp_sym_frame){ 0 };
		if (t->opts.srcline)
			kp_dwarf_srcline(d->mod, vaddr + d->bias, &chain[0]);
	}
	if (sym)
		chain[n - 1].func = sym->name; /* the ELF symbol names the outermost function best */
	if (fde) {
		chain[0].func = fde_name(d, fde);
		chain[0].fde = true;
	}
	if (!t->opts.inline_frames) {
		chain[0] = chain[n - 1];
		n = 1;
	}
	chain[n - 1].inlined = false;
	f = kp_symnames_add(&t->names, (size_t)n);
	for (int i = 0; i < n; i++, f++) {
		*f = chain[i];
		f->func = kp_symnames_func(&t->names, chain[i].func);
		f->sys = kp_symnames_intern(&t->names, chain[i].func ? chain[i].func : "??");
		f->file = kp_symnames_intern(&t->names, chain[i].file);
		f->off = sym ? vaddr + d->bias - sym->addr : fde ? vaddr - fde->start : UINT64_MAX;
	}
	return first << 8 | (uint64_t)n;
}

int kp_dso_symbolize(struct kp_dso *d, uint64_t file_off, struct kp_sym_frame *frames, int max)
{
	uint64_t *v, val;
	size_t n;

	if (max < 1 || !file_names(d))
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
	n = KP_SYMVAL_N(val);
	if (!n)
		return 0;
	if (n > (size_t)max)
		n = (size_t)max;
	memcpy(frames, d->t->names.frames + (val >> 8), n * sizeof(*frames));
	return (int)n;
}

void kp_dsos_embed(struct kp_dsos *t, const struct kp_rec_header *rec)
{
	kp_embs_add(&t->embs, &t->names, &t->opts, rec);
}

void kp_dso_each_hit(struct kp_dso *d, kp_dso_hit_fn *fn, void *ctx)
{
	const struct kp_hash *h = d->emb ? &d->emb->locs : &d->cache;
	bool debug = !d->emb && !d->own_dwarf;

	for (size_t i = 0; i < h->cap; i++) {
		uint64_t v = h->ents[i].val;

		if (h->ents[i].used && KP_SYMVAL_N(v))
			fn(ctx, h->ents[i].key, d->t->names.frames + (v >> 8), (int)KP_SYMVAL_N(v),
			   d->emb ? (v & KP_SYMVAL_DEBUG) != 0 : debug);
	}
}

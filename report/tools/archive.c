/* SPDX-License-Identifier: MIT */
/*
 * archive.c - the symbols of a recording's hit addresses as SYMBOLS records: one binary at a
 * time, each record whole (its own string table), a new one begun when the next address would
 * not fit in KP_REC_MAX_SIZE bytes.
 */
#include "archive.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/rec.h"
#include "formats/util.h"
#include "report/base/hash.h"

#define PAD8(n) (((size_t)(n) + 7) & ~(size_t)7)

/* The records of one binary, being built. */
struct build {
	struct kp_writer *w;
	struct kp_dso *dso;
	const char *path;
	const uint8_t *bid;
	size_t bid_len;
	bool ns;			/* read in its process's mount namespace */
	struct kp_rec_sym_func *funcs;
	size_t nr_funcs, cap_funcs;
	struct kp_rec_sym_loc *locs;
	size_t nr_locs, cap_locs;
	struct kp_rec_sym_frame *frames;
	size_t nr_frames, cap_frames;
	char *strs;
	size_t nr_strs, cap_strs;
	struct kp_hash str_offs;	/* interned string (its address) -> offset + 1 */
	struct kp_hash func_offs;	/* a function's file offset -> 1: stored in this record */
	struct kp_archive_stats *st;
};

struct kp_dso_opts kp_archive_dso_opts(void)
{
	/* the most a lookup gives: a report shows less of it, under its own options */
	return (struct kp_dso_opts){ .inline_frames = true, .srcline = true, .demangle = false };
}

static size_t rec_size(const struct build *b)
{
	return sizeof(struct kp_rec_symbols) + PAD8(strlen(b->path) + 1) +
	       b->nr_funcs * sizeof(*b->funcs) + b->nr_locs * sizeof(*b->locs) +
	       b->nr_frames * sizeof(*b->frames) + PAD8(b->nr_strs);
}

/* Write the record built so far, and begin the next. */
static void emit(struct build *b)
{
	size_t size = rec_size(b), plen = strlen(b->path) + 1;
	struct kp_rec_symbols *r;
	uint8_t *p;

	if (!b->nr_locs && !b->nr_funcs)
		return;
	r = kp_writer_reserve(b->w, size);
	memset(r, 0, size);
	*r = (struct kp_rec_symbols){
		.h = { KP_REC_SYMBOLS, b->ns ? KP_SYMBOLS_MISC_NS : 0, (uint16_t)size },
		.path_len = (uint32_t)plen,
		.build_id_len = (uint32_t)b->bid_len,
		.nr_funcs = (uint32_t)b->nr_funcs,
		.nr_locs = (uint32_t)b->nr_locs,
		.nr_frames = (uint32_t)b->nr_frames,
		.str_len = (uint32_t)b->nr_strs,
	};
	memcpy(r->build_id, b->bid, b->bid_len);
	p = (uint8_t *)(r + 1);
	memcpy(p, b->path, plen);
	p += PAD8(plen);
	memcpy(p, b->funcs, b->nr_funcs * sizeof(*b->funcs));
	p += b->nr_funcs * sizeof(*b->funcs);
	memcpy(p, b->locs, b->nr_locs * sizeof(*b->locs));
	p += b->nr_locs * sizeof(*b->locs);
	memcpy(p, b->frames, b->nr_frames * sizeof(*b->frames));
	p += b->nr_frames * sizeof(*b->frames);
	memcpy(p, b->strs, b->nr_strs);
	kp_writer_commit(b->w, size, 1);
	b->st->records++;
	b->st->bytes += size;
	b->nr_funcs = b->nr_locs = b->nr_frames = b->nr_strs = 0;
	kp_hash_release(&b->str_offs);
	kp_hash_release(&b->func_offs);
	kp_hash_init(&b->str_offs);
	kp_hash_init(&b->func_offs);
}

/* The offset of @s in the record's string table, added if new; KP_SYM_NONE for NULL. */
static uint32_t str_of(struct build *b, const char *s)
{
	uint64_t *v;
	size_t n;

	if (!s)
		return KP_SYM_NONE;
	if ((v = kp_hash_get(&b->str_offs, (uintptr_t)s)))
		return (uint32_t)(*v - 1);
	n = strlen(s) + 1;
	KP_GROW(b->strs, b->cap_strs, b->nr_strs + n);
	memcpy(b->strs + b->nr_strs, s, n);
	kp_hash_put(&b->str_offs, (uintptr_t)s, b->nr_strs + 1);
	b->nr_strs += n;
	return (uint32_t)(b->nr_strs - n);
}

/* The most bytes one location can add to a record: its entries and every string new. */
static size_t loc_bytes(const struct kp_sym_frame *fr, int n, const struct kp_dso_func *f)
{
	size_t need = sizeof(struct kp_rec_sym_loc) + sizeof(struct kp_rec_sym_func) + 8 +
		      (f ? strlen(f->name) + 1 : 0);

	for (int i = 0; i < n; i++)
		need += sizeof(struct kp_rec_sym_frame) + strlen(fr[i].sys) + 1 +
			(fr[i].file ? strlen(fr[i].file) + 1 : 0);
	return need;
}

static void add_hit(void *ctx, uint64_t off, const struct kp_sym_frame *fr, int n, bool debug)
{
	struct build *b = ctx;
	struct kp_dso_func f;
	bool have_f = kp_dso_func_at(b->dso, off, &f);
	size_t need = loc_bytes(fr, n, have_f ? &f : NULL);

	if (rec_size(b) + need > KP_REC_MAX_SIZE)
		emit(b);
	if (rec_size(b) + need > KP_REC_MAX_SIZE) {
		b->st->too_big++;
		return;
	}
	KP_GROW(b->locs, b->cap_locs, b->nr_locs + 1);
	b->locs[b->nr_locs++] = (struct kp_rec_sym_loc){
		.off = off, .sym_off = fr[0].off, .frame = (uint32_t)b->nr_frames,
		.nr_frames = (uint16_t)n,
		.flags = (debug ? KP_SYMLOC_DEBUG_DWARF : 0) | (fr[n - 1].fde ? KP_SYMLOC_FDE : 0),
	};
	KP_GROW(b->frames, b->cap_frames, b->nr_frames + (size_t)n);
	for (int i = 0; i < n; i++)
		b->frames[b->nr_frames++] = (struct kp_rec_sym_frame){
			.name = str_of(b, fr[i].sys), .file = str_of(b, fr[i].file),
			.line = fr[i].line,
			.flags = fr[i].inlined ? KP_SYMFRAME_INLINED : 0,
		};
	b->st->locs++;
	if (have_f && !kp_hash_get(&b->func_offs, f.off)) {
		kp_hash_put(&b->func_offs, f.off, 1);
		KP_GROW(b->funcs, b->cap_funcs, b->nr_funcs + 1);
		b->funcs[b->nr_funcs++] = (struct kp_rec_sym_func){ f.vaddr, f.off, f.size,
								    str_of(b, f.name), 0 };
		b->st->funcs++;
	}
}

/* --- unwind tables ------------------------------------------------------------------- */

struct range {
	uint64_t off, end;
};

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static void add_range(struct range **r, size_t *nr, size_t *cap, uint64_t off, uint64_t len,
		      uint64_t size)
{
	if (!len || off >= size)
		return;
	KP_GROW(*r, *cap, *nr + 1);
	(*r)[(*nr)++] = (struct range){ off, len > size - off ? size : off + len };
}

/*
 * The byte ranges of the ELF file @elf (@size bytes) that unwinding reads: the ELF header,
 * the program and section headers, the section names, the notes (the build-id, which a report
 * checks), .eh_frame_hdr and .eh_frame; sorted and merged into *@nr ranges.
 */
static struct range *table_ranges(Elf *elf, uint64_t size, size_t *nr)
{
	struct range *r = NULL;
	size_t cap = 0, phnum, shnum, shstrndx, k = 0;
	GElf_Ehdr eh;

	*nr = 0;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) || elf_getshdrnum(elf, &shnum) ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	add_range(&r, nr, &cap, 0, eh.e_ehsize, size);
	add_range(&r, nr, &cap, eh.e_phoff, (uint64_t)phnum * eh.e_phentsize, size);
	add_range(&r, nr, &cap, eh.e_shoff, (uint64_t)shnum * eh.e_shentsize, size);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE)
			add_range(&r, nr, &cap, ph.p_offset, ph.p_filesz, size);
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (elf_ndxscn(scn) == shstrndx || sh.sh_type == SHT_NOTE ||
		    (name && (!strcmp(name, ".eh_frame") || !strcmp(name, ".eh_frame_hdr"))))
			add_range(&r, nr, &cap, sh.sh_offset, sh.sh_size, size);
	}
	if (*nr > 1)
		qsort(r, *nr, sizeof(*r), range_cmp);
	for (size_t i = 0; i < *nr; i++) {
		if (k && r[i].off <= r[k - 1].end) {
			if (r[i].end > r[k - 1].end)
				r[k - 1].end = r[i].end;
		} else {
			r[k++] = r[i];
		}
	}
	*nr = k;
	return r;
}

/*
 * The bytes the ELF headers of @elf say the file holds: the program and section header
 * tables, the segments and the sections with contents. More than the file's size: it was cut.
 * 0 when @elf is no ELF file.
 */
static uint64_t elf_extent(Elf *elf)
{
	uint64_t end = 0;
	size_t phnum = 0, shnum = 0;
	GElf_Ehdr eh;

#define REACH(off, len) do { if ((off) + (len) > end) end = (off) + (len); } while (0)
	if (!gelf_getehdr(elf, &eh))
		return 0;
	REACH(0, (uint64_t)eh.e_ehsize);
	/* the tables as the ELF header counts them: libelf ignores one that the file cuts (the
	 * extended counts, in the first section header, read as one) */
	if (elf_getphdrnum(elf, &phnum) || eh.e_phnum != PN_XNUM)
		phnum = eh.e_phnum;
	REACH(eh.e_phoff, (uint64_t)phnum * eh.e_phentsize);
	if (elf_getshdrnum(elf, &shnum) || eh.e_shnum || !shnum)
		shnum = eh.e_shnum ? eh.e_shnum : eh.e_shoff != 0;
	REACH(eh.e_shoff, (uint64_t)shnum * eh.e_shentsize);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph))
			REACH(ph.p_offset, ph.p_filesz);
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS)
			REACH(sh.sh_offset, sh.sh_size);
	}
#undef REACH
	return end;
}

/* The unwind tables of @b's binary, the @size bytes at @raw read through @elf, as FILE_PART
 * records. Returns whether there were any. */
static bool write_tables(struct build *b, Elf *elf, const char *raw, size_t size)
{
	size_t plen = strlen(b->path) + 1, nr;
	size_t most = (KP_REC_MAX_SIZE - sizeof(struct kp_rec_file_part) - PAD8(plen)) & ~(size_t)7;
	struct range *r = table_ranges(elf, size, &nr);

	for (size_t i = 0; r && i < nr && plen < KP_REC_MAX_SIZE / 2; i++) {
		for (uint64_t off = r[i].off; off < r[i].end;) {
			size_t len = r[i].end - off < most ? (size_t)(r[i].end - off) : most;
			size_t rec = sizeof(struct kp_rec_file_part) + PAD8(plen) + PAD8(len);
			struct kp_rec_file_part *p = kp_writer_reserve(b->w, rec);

			memset(p, 0, rec);
			*p = (struct kp_rec_file_part){
				.h = { KP_REC_FILE_PART, 0, (uint16_t)rec },
				.path_len = (uint32_t)plen, .build_id_len = (uint32_t)b->bid_len,
				.file_size = size, .off = off, .len = (uint32_t)len,
			};
			memcpy(p->build_id, b->bid, b->bid_len);
			memcpy(p + 1, b->path, plen);
			memcpy((uint8_t *)(p + 1) + PAD8(plen), raw + off, len);
			kp_writer_commit(b->w, rec, 1);
			b->st->table_bytes += rec;
			off += len;
		}
	}
	free(r);
	if (!r || !nr || plen >= KP_REC_MAX_SIZE / 2)
		return false;
	b->st->tables++;
	return true;
}

/* @sd, which the samples need, to the binaries left out, for the reason printf'd. */
static void left_out(struct kp_archive_stats *st, const struct kp_session *s,
		     const struct kp_session_dso *sd, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void left_out(struct kp_archive_stats *st, const struct kp_session *s,
		     const struct kp_session_dso *sd, const char *fmt, ...)
{
	struct kp_archive_left *l;
	va_list ap;

	KP_GROW(st->left, st->cap_left, st->nr_left + 1);
	l = &st->left[st->nr_left++];
	l->path = kp_strtab_get(&s->strs, sd->path);
	l->frames = sd->frames;
	va_start(ap, fmt);
	vsnprintf(l->why, sizeof(l->why), fmt, ap);
	va_end(ap);
}

/* Whether the ELF file @elf, of @size bytes, is cut short: why into @why (@n bytes). */
static bool elf_cut(Elf *elf, size_t size, char *why, size_t n)
{
	uint64_t extent = elf_extent(elf);

	if (extent <= size)
		return false;
	snprintf(why, n, "truncated: %zu bytes of the %llu its headers describe", size,
		 (unsigned long long)extent);
	return true;
}

/* Why the file of @d, which kp_dso_status() found unusable (@st), is: in words, into @why. */
static void why_unusable(struct kp_dso *d, enum kp_dso_status st, char *why, size_t n)
{
	char here[41], rec[41];
	const uint8_t *bits;
	size_t len, size;
	Elf *elf = NULL;
	int fd = -1;

	if (st == KP_DSO_BUILDID_MISMATCH || st == KP_DSO_NOT_ELF || st == KP_DSO_NOT_FILE) {
		/* opened as the DSO opens it: a regular file only, never waiting for a FIFO */
		fd = kp_open_file(kp_dso_path(d), 0, 0, NULL);
		if (fd == -EISDIR || fd == -KP_EFIFO || fd == -KP_EDEVICE || fd == -KP_ENOTREG) {
			snprintf(why, n, "%s", fd == -EISDIR ? "a directory, not a regular file"
							      : kp_strerror(fd));
			return;
		}
		if (fd < 0) {
			snprintf(why, n, "cannot open it: %s", kp_strerror(fd));
			return;
		}
		elf_version(EV_CURRENT);
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf && elf_rawfile(elf, &size) && elf_cut(elf, size, why, n))
			st = KP_DSO_UNLOADED; /* said */
		if (elf)
			elf_end(elf);
		close(fd);
	}
	switch (st) {
	case KP_DSO_UNLOADED:
		return;
	case KP_DSO_MISSING:
		snprintf(why, n, "no such file here");
		return;
	case KP_DSO_BUILDID_MISMATCH:
		len = kp_dso_build_id(d, &bits);
		kp_hex(rec, bits, len < 20 ? len : 20);
		len = kp_dso_file_build_id(d, &bits);
		kp_hex(here, bits, len < 20 ? len : 20);
		snprintf(why, n, "the file is another build, rebuilt since the recording (build-id "
			 "%s, the recording's %s)", *here ? here : "none", rec);
		return;
	case KP_DSO_NOT_ELF:
		snprintf(why, n, "not an ELF file");
		return;
	case KP_DSO_VDSO_OTHER_KERNEL:
		snprintf(why, n, "recorded under another kernel than this one");
		return;
	default:
		snprintf(why, n, "%s", kp_dso_status_str(st));
	}
}

/*
 * The file of @sd's DSO (usable), for what it holds: its unwind tables stored when
 * @tables. Returns false, after naming it among the binaries left out (when the samples need
 * it), when its symbols must not be stored either: the file is cut short.
 */
static bool store_file(struct build *b, const struct kp_session *s,
		       const struct kp_session_dso *sd, bool tables)
{
	enum kp_dso_status file;
	enum kp_dso_source src = kp_dso_source(b->dso, &file);
	/* what this machine's file named, not embedded symbols (nor their sparse copy) */
	bool own = src != KP_DSO_SRC_EMBEDDED && src != KP_DSO_SRC_EMBEDDED_NS;
	const char *raw = NULL;
	char why[sizeof(b->st->left->why)];
	size_t size = 0;
	Elf *elf = NULL;
	bool whole = true;
	int fd;

	if (!tables && !(own && sd->frames))
		return true;
	fd = kp_dso_open(b->dso);
	if (fd >= 0) {
		elf_version(EV_CURRENT);
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		raw = elf ? elf_rawfile(elf, &size) : NULL;
	}
	if (own && raw && elf_cut(elf, size, why, sizeof(why))) {
		whole = false;
		if (sd->frames)
			left_out(b->st, s, sd, "%s", why);
	} else if (tables && !(raw && write_tables(b, elf, raw, size)) && sd->frames) {
		left_out(b->st, s, sd, "its unwind tables could not be read, for the stack copies "
			 "a report unwinds");
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return whole;
}

int kp_archive_write(struct kp_session *s, struct kp_writer *w, bool tables,
		     struct kp_archive_stats *st)
{
	struct build b = { .w = w, .st = st };

	memset(st, 0, sizeof(*st));
	kp_hash_init(&b.str_offs);
	kp_hash_init(&b.func_offs);
	for (size_t i = 0; i < s->nr_dsos; i++) {
		const struct kp_session_dso *sd = &s->dso_list[i];
		uint64_t records = st->records;
		enum kp_dso_source src;
		enum kp_dso_status file, status;

		b.dso = sd->dso;
		b.path = kp_strtab_get(&s->strs, sd->path);
		b.bid_len = kp_dso_build_id(b.dso, &b.bid);
		if (b.bid_len > 20)
			b.bid_len = 0;
		status = kp_dso_status(b.dso);
		if (status != KP_DSO_OK && status != KP_DSO_NO_SYMBOLS) {
			if (sd->frames) {
				const char *at = kp_dso_path(b.dso);
				bool moved = strcmp(at, b.path); /* --symfs: where it was looked for */
				char why[512];

				why_unusable(b.dso, status, why, sizeof(why));
				left_out(st, s, sd, "%s%s%.1000s%s", why, moved ? " (at '" : "",
					 moved ? at : "", moved ? "')" : "");
			}
			continue;
		}
		/* a file without symbols stores the functions its unwind tables named */
		if (!store_file(&b, s, sd, tables))
			continue;
		src = kp_dso_source(b.dso, &file);
		b.ns = src == KP_DSO_SRC_NAMESPACE || src == KP_DSO_SRC_EMBEDDED_NS;
		kp_dso_each_hit(b.dso, add_hit, &b);
		emit(&b);
		st->binaries += st->records > records;
	}
	kp_hash_release(&b.str_offs);
	kp_hash_release(&b.func_offs);
	free(b.funcs);
	free(b.locs);
	free(b.frames);
	free(b.strs);
	return w->err;
}

void kp_archive_stats_release(struct kp_archive_stats *st)
{
	free(st->left);
	st->left = NULL;
	st->nr_left = st->cap_left = 0;
}

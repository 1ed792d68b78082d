/* SPDX-License-Identifier: MIT */
/*
 * archive.c - the symbols of a recording's hit addresses as SYMBOLS records: one binary at a
 * time, each record whole (its own string table), a new one begun when the next address would
 * not fit in KP_REC_MAX_SIZE bytes.
 */
#include "archive.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/rec.h"
#include "formats/util.h"
#include "hash.h"

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
		.nr_frames = (uint16_t)n, .flags = debug ? KP_SYMLOC_DEBUG_DWARF : 0,
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

/* The unwind tables of @b's binary, read from @fd, as FILE_PART records. */
static void write_tables(struct build *b, int fd)
{
	size_t plen = strlen(b->path) + 1, nr, size;
	size_t most = (KP_REC_MAX_SIZE - sizeof(struct kp_rec_file_part) - PAD8(plen)) & ~(size_t)7;
	Elf *elf;
	const char *raw;
	struct range *r;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	raw = elf ? elf_rawfile(elf, &size) : NULL;
	r = raw ? table_ranges(elf, size, &nr) : NULL;
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
	b->st->tables += r && nr;
	free(r);
	if (elf)
		elf_end(elf);
}

int kp_archive_write(struct kp_session *s, struct kp_writer *w, bool tables,
		     struct kp_archive_stats *st)
{
	struct build b = { .w = w, .st = st };

	memset(st, 0, sizeof(*st));
	kp_hash_init(&b.str_offs);
	kp_hash_init(&b.func_offs);
	for (size_t i = 0; i < s->nr_dsos; i++) {
		uint64_t records = st->records;
		enum kp_dso_source src;
		enum kp_dso_status file;

		b.dso = s->dso_list[i].dso;
		if (tables && (kp_dso_status(b.dso) == KP_DSO_OK ||
			       kp_dso_status(b.dso) == KP_DSO_NO_SYMBOLS)) {
			int fd = kp_dso_open(b.dso);

			b.path = kp_strtab_get(&s->strs, s->dso_list[i].path);
			b.bid_len = kp_dso_build_id(b.dso, &b.bid);
			if (b.bid_len > 20)
				b.bid_len = 0;
			if (fd >= 0) {
				write_tables(&b, fd);
				close(fd);
			}
		}
		if (kp_dso_status(b.dso) != KP_DSO_OK)
			continue;
		src = kp_dso_source(b.dso, &file);
		b.ns = src == KP_DSO_SRC_NAMESPACE || src == KP_DSO_SRC_EMBEDDED_NS;
		b.path = kp_strtab_get(&s->strs, s->dso_list[i].path);
		b.bid_len = kp_dso_build_id(b.dso, &b.bid);
		if (b.bid_len > 20)
			b.bid_len = 0;
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

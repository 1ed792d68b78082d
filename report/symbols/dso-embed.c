/* SPDX-License-Identifier: MIT */
/*
 * dso-embed.c - a recording's embedded symbols (KP_REC_SYMBOLS, kprof archive): taken in per
 * binary (by build-id, else path) and shown under the DSO table's options, for a DSO whose
 * file gives none (see dso-embed.h).
 */
#include "dso-embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/rec.h"
#include "formats/util.h"
#include "report/base/search.h"

/* The embedded symbols of @path / @bid (trimmed), NULL if none; with @add, created. */
static struct kp_emb *emb_get(struct kp_embs *es, struct kp_symnames *names, const char *path,
			      const uint8_t *bid, size_t len, bool add)
{
	struct kp_emb *e;

	for (size_t i = 0; i < es->nr; i++) {
		e = &es->v[i];
		if (len ? e->bid_len == len && !memcmp(e->bid, bid, len)
			: !e->bid_len && !strcmp(e->path, path))
			return e;
	}
	if (!add)
		return NULL;
	KP_GROW(es->v, es->cap, es->nr + 1);
	e = &es->v[es->nr++];
	memset(e, 0, sizeof(*e));
	e->path = kp_symnames_intern(names, path);
	memcpy(e->bid, bid, len);
	e->bid_len = len;
	e->skel_fd = -1;
	kp_hash_init(&e->locs);
	return e;
}

/*
 * The frames of one embedded location as the options @o show them, into @names' frames:
 * the chain was stored as a lookup with inline frames and source lines gives it, and a
 * separate debug file's inline frames are shown only when a lookup here would read its DWARF.
 */
static uint64_t emb_frames(struct kp_symnames *names, const struct kp_dso_opts *o,
			   const struct kp_symbols_view *v, const struct kp_rec_sym_loc *l)
{
	const struct kp_rec_sym_frame *fr = v->frames + l->frame;
	uint64_t first = names->nr_frames;
	struct kp_sym_frame *f;
	size_t n = l->nr_frames, from = 0;
	bool debug = l->flags & KP_SYMLOC_DEBUG_DWARF;

	if (!o->inline_frames ||
	    (debug && l->sym_off != UINT64_MAX && !o->srcline && !o->inline_debug))
		from = n - 1; /* the function alone */
	f = kp_symnames_add(names, n - from);
	for (size_t i = from; i < n; i++) {
		const char *name = v->strs + fr[i].name;

		*f++ = (struct kp_sym_frame){
			.func = kp_symnames_func(names, name),
			.sys = kp_symnames_intern(names, name),
			.file = o->srcline && fr[i].file != KP_SYM_NONE
					? kp_symnames_intern(names, v->strs + fr[i].file) : NULL,
			.line = o->srcline ? fr[i].line : 0,
			.inlined = i + 1 < n && (fr[i].flags & KP_SYMFRAME_INLINED),
			.fde = i + 1 == n && (l->flags & KP_SYMLOC_FDE),
			.off = l->sym_off,
		};
	}
	return first << 8 | (debug ? KP_SYMVAL_DEBUG : 0) | (n - from);
}

/* A FILE_PART record: bytes of the binary, kept for its sparse copy. */
static void embed_part(struct kp_embs *es, struct kp_symnames *names,
		       const struct kp_rec_header *rec)
{
	struct kp_file_part_view v;
	struct kp_emb *e;

	if (kp_rec_file_part_view(rec, &v))
		return;
	e = emb_get(es, names, v.path, v.rec->build_id,
		    kp_bid_trim(v.rec->build_id, v.rec->build_id_len), true);
	if (e->nr_parts && e->file_size != v.rec->file_size)
		return; /* another size: not the same binary */
	e->file_size = v.rec->file_size;
	KP_GROW(e->parts, e->cap_parts, e->nr_parts + 1);
	e->parts[e->nr_parts].off = v.rec->off;
	e->parts[e->nr_parts].len = v.rec->len;
	e->parts[e->nr_parts].bytes = kp_xmalloc(v.rec->len);
	memcpy(e->parts[e->nr_parts++].bytes, v.bytes, v.rec->len);
}

void kp_embs_add(struct kp_embs *es, struct kp_symnames *names, const struct kp_dso_opts *o,
		 const struct kp_rec_header *rec)
{
	struct kp_symbols_view v;
	struct kp_emb *e;

	if (rec->type == KP_REC_FILE_PART) {
		embed_part(es, names, rec);
		return;
	}
	if (kp_rec_symbols_view(rec, &v))
		return;
	e = emb_get(es, names, v.path, v.rec->build_id,
		    kp_bid_trim(v.rec->build_id, v.rec->build_id_len), true);
	e->ns |= (rec->misc & KP_SYMBOLS_MISC_NS) != 0;
	for (uint32_t i = 0; i < v.rec->nr_locs; i++)
		if (!kp_hash_get(&e->locs, v.locs[i].off))
			kp_hash_put(&e->locs, v.locs[i].off, emb_frames(names, o, &v, &v.locs[i]));
	for (uint32_t i = 0; i < v.rec->nr_funcs; i++) {
		const struct kp_rec_sym_func *f = &v.funcs[i];

		KP_GROW(e->funcs, e->cap_funcs, e->nr_funcs + 1);
		e->funcs[e->nr_funcs++] = (struct kp_emb_func){
			f->off, f->size, f->vaddr, kp_symnames_intern(names, v.strs + f->name)
		};
		e->sorted = false;
	}
}

static int emb_func_cmp(const void *a, const void *b)
{
	const struct kp_emb_func *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

const struct kp_emb_func *kp_emb_func_at(struct kp_emb *e, uint64_t off)
{
	size_t lo;

	if (!e->sorted) {
		size_t k = 0;

		if (e->nr_funcs > 1) /* none: a binary embedded for its unwind tables alone */
			qsort(e->funcs, e->nr_funcs, sizeof(*e->funcs), emb_func_cmp);
		for (size_t i = 0; i < e->nr_funcs; i++)
			if (!k || e->funcs[i].off != e->funcs[k - 1].off)
				e->funcs[k++] = e->funcs[i];
		e->nr_funcs = k;
		e->sorted = true;
	}
	lo = KP_FIRST_ABOVE(e->funcs, e->nr_funcs, off, off);
	return lo && off - e->funcs[lo - 1].off < e->funcs[lo - 1].size ? &e->funcs[lo - 1] : NULL;
}

struct kp_emb *kp_embs_find(struct kp_embs *es, const char *path, const uint8_t *bid,
			    size_t len)
{
	return emb_get(es, NULL, path, bid, len, false);
}

const char *kp_emb_skeleton(struct kp_emb *e)
{
	int fd;

	if (e->skel_fd >= 0)
		return e->skel_path;
	if (!e->nr_parts || (fd = memfd_create("kprof-skeleton", MFD_CLOEXEC)) < 0)
		return NULL;
	if (ftruncate(fd, (off_t)e->file_size)) {
		close(fd);
		return NULL;
	}
	for (size_t i = 0; i < e->nr_parts; i++)
		if (kp_write_at(fd, e->parts[i].bytes, e->parts[i].len, e->parts[i].off)) {
			close(fd);
			return NULL;
		}
	e->skel_fd = fd;
	snprintf(e->skel_path, sizeof(e->skel_path), "/proc/self/fd/%d", fd);
	return e->skel_path;
}

void kp_embs_release(struct kp_embs *es)
{
	for (size_t k = 0; k < es->nr; k++) {
		struct kp_emb *e = &es->v[k];

		kp_hash_release(&e->locs);
		free(e->funcs);
		for (size_t i = 0; i < e->nr_parts; i++)
			free(e->parts[i].bytes);
		free(e->parts);
		if (e->skel_fd >= 0)
			close(e->skel_fd);
	}
	free(es->v);
}

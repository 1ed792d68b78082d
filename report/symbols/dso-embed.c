/* SPDX-License-Identifier: MIT */
/*
 * dso-embed.c - a recording's embedded symbols (KP_REC_SYMBOLS, kprof archive) in the DSO
 * table: taken in per binary (by build-id, else path) and shown under the table's options,
 * for a DSO whose file gives none (kp_emb_use()); and the lookups a DSO has answered, which
 * kprof archive stores (kp_dso_each_hit()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/rec.h"
#include "formats/util.h"
#include "report/base/search.h"
#include "dso-int.h"

/* The embedded symbols of @path / @bid (trimmed), NULL if none; with @add, created. */
static struct emb *emb_get(struct kp_dsos *t, const char *path, const uint8_t *bid, size_t len,
			   bool add)
{
	struct emb *e;

	for (size_t i = 0; i < t->nr_embs; i++) {
		e = &t->embs[i];
		if (len ? e->bid_len == len && !memcmp(e->bid, bid, len)
			: !e->bid_len && !strcmp(e->path, path))
			return e;
	}
	if (!add)
		return NULL;
	KP_GROW(t->embs, t->cap_embs, t->nr_embs + 1);
	e = &t->embs[t->nr_embs++];
	memset(e, 0, sizeof(*e));
	e->path = kp_dsos_intern(t, path);
	memcpy(e->bid, bid, len);
	e->bid_len = len;
	e->skel_fd = -1;
	kp_hash_init(&e->locs);
	return e;
}

/*
 * The frames of one embedded location as this table's options show them, into t->frames:
 * the chain was stored as a lookup with inline frames and source lines gives it, and a
 * separate debug file's inline frames are shown only when a lookup here would read its DWARF.
 */
static uint64_t emb_frames(struct kp_dsos *t, const struct kp_symbols_view *v,
			   const struct kp_rec_sym_loc *l)
{
	const struct kp_dso_opts *o = &t->opts;
	const struct kp_rec_sym_frame *fr = v->frames + l->frame;
	uint64_t first = t->nr_frames;
	size_t n = l->nr_frames, from = 0;
	bool debug = l->flags & KP_SYMLOC_DEBUG_DWARF;

	if (!o->inline_frames ||
	    (debug && l->sym_off != UINT64_MAX && !o->srcline && !o->inline_debug))
		from = n - 1; /* the function alone */
	KP_GROW(t->frames, t->cap_frames, t->nr_frames + (n - from));
	for (size_t i = from; i < n; i++) {
		struct kp_sym_frame *f = &t->frames[t->nr_frames++];
		const char *name = v->strs + fr[i].name;

		*f = (struct kp_sym_frame){
			.func = kp_dsos_intern_func(t, name),
			.sys = kp_dsos_intern(t, name),
			.file = o->srcline && fr[i].file != KP_SYM_NONE
					? kp_dsos_intern(t, v->strs + fr[i].file) : NULL,
			.line = o->srcline ? fr[i].line : 0,
			.inlined = i + 1 < n && (fr[i].flags & KP_SYMFRAME_INLINED),
			.off = l->sym_off,
		};
	}
	return first << 8 | (debug ? VAL_DEBUG : 0) | (n - from);
}

/* A FILE_PART record: bytes of the binary, kept for its sparse copy. */
static void embed_part(struct kp_dsos *t, const struct kp_rec_header *rec)
{
	struct kp_file_part_view v;
	struct emb *e;

	if (kp_rec_file_part_view(rec, &v))
		return;
	e = emb_get(t, v.path, v.rec->build_id, kp_bid_trim(v.rec->build_id, v.rec->build_id_len),
		    true);
	if (e->nr_parts && e->file_size != v.rec->file_size)
		return; /* another size: not the same binary */
	e->file_size = v.rec->file_size;
	KP_GROW(e->parts, e->cap_parts, e->nr_parts + 1);
	e->parts[e->nr_parts].off = v.rec->off;
	e->parts[e->nr_parts].len = v.rec->len;
	e->parts[e->nr_parts].bytes = kp_xmalloc(v.rec->len);
	memcpy(e->parts[e->nr_parts++].bytes, v.bytes, v.rec->len);
}

void kp_dsos_embed(struct kp_dsos *t, const struct kp_rec_header *rec)
{
	struct kp_symbols_view v;
	struct emb *e;

	if (rec->type == KP_REC_FILE_PART) {
		embed_part(t, rec);
		return;
	}
	if (kp_rec_symbols_view(rec, &v))
		return;
	e = emb_get(t, v.path, v.rec->build_id, kp_bid_trim(v.rec->build_id, v.rec->build_id_len),
		    true);
	e->ns |= (rec->misc & KP_SYMBOLS_MISC_NS) != 0;
	for (uint32_t i = 0; i < v.rec->nr_locs; i++)
		if (!kp_hash_get(&e->locs, v.locs[i].off))
			kp_hash_put(&e->locs, v.locs[i].off, emb_frames(t, &v, &v.locs[i]));
	for (uint32_t i = 0; i < v.rec->nr_funcs; i++) {
		const struct kp_rec_sym_func *f = &v.funcs[i];

		KP_GROW(e->funcs, e->cap_funcs, e->nr_funcs + 1);
		e->funcs[e->nr_funcs++] = (struct emb_func){ f->off, f->size, f->vaddr,
							     kp_dsos_intern(t, v.strs + f->name) };
		e->sorted = false;
	}
}

static int emb_func_cmp(const void *a, const void *b)
{
	const struct emb_func *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The embedded function holding @off, NULL if none. */
const struct emb_func *kp_emb_func_at(struct emb *e, uint64_t off)
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

struct emb *kp_emb_find(struct kp_dso *d)
{
	return emb_get(d->t, d->path, d->build_id, kp_bid_trim(d->build_id, d->build_id_len),
		       false);
}

void kp_emb_use(struct kp_dso *d, struct emb *e)
{
	d->emb = e;
	d->file_status = d->status;
	d->status = KP_DSO_OK;
	d->source = e->ns ? KP_DSO_SRC_EMBEDDED_NS : KP_DSO_SRC_EMBEDDED;
}

void kp_dso_each_hit(struct kp_dso *d, kp_dso_hit_fn *fn, void *ctx)
{
	const struct kp_hash *h = d->emb ? &d->emb->locs : &d->cache;
	bool debug = !d->emb && !d->own_dwarf;

	for (size_t i = 0; i < h->cap; i++) {
		uint64_t v = h->ents[i].val;

		if (h->ents[i].used && VAL_N(v))
			fn(ctx, h->ents[i].key, d->t->frames + (v >> 8), (int)VAL_N(v),
			   d->emb ? (v & VAL_DEBUG) != 0 : debug);
	}
}

const char *kp_emb_skeleton(struct emb *e)
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

void kp_emb_release(struct emb *e)
{
	kp_hash_release(&e->locs);
	free(e->funcs);
	for (size_t i = 0; i < e->nr_parts; i++)
		free(e->parts[i].bytes);
	free(e->parts);
	if (e->skel_fd >= 0)
		close(e->skel_fd);
}

/* SPDX-License-Identifier: MIT */
/*
 * recsym.c - the records kprof archive appends to a recording: SYMBOLS (a binary's names at
 * the addresses samples hit) and FILE_PART (bytes of a binary: its unwind tables), split into
 * their parts and checked whole, every offset and count against the record (see rec.h).
 */
#include <string.h>

#include "rec.h"
#include "util.h"

#define PAD8(n) (((uint64_t)(n) + 7) & ~7ull)

int kp_rec_symbols_view(const struct kp_rec_header *rec, struct kp_symbols_view *v)
{
	const struct kp_rec_symbols *h = (const void *)rec;
	const char *p = (const char *)(h + 1);
	uint64_t need;

	if (rec->size < sizeof(*h) || h->path_len < 2 || h->build_id_len > 20)
		return -KP_ERECORD;
	need = sizeof(*h) + PAD8(h->path_len) + (uint64_t)h->nr_funcs * sizeof(*v->funcs) +
	       (uint64_t)h->nr_locs * sizeof(*v->locs) +
	       (uint64_t)h->nr_frames * sizeof(*v->frames) + PAD8(h->str_len);
	if (need > rec->size || !h->str_len || p[h->path_len - 1] || memchr(p, 0, h->path_len - 1))
		return -KP_ERECORD;
	v->rec = h;
	v->path = p;
	v->funcs = (const void *)(p + PAD8(h->path_len));
	v->locs = (const void *)(v->funcs + h->nr_funcs);
	v->frames = (const void *)(v->locs + h->nr_locs);
	v->strs = (const char *)(v->frames + h->nr_frames);
	return v->strs[h->str_len - 1] ? -KP_ERECORD : 0;
}

int kp_rec_symbols_check(const struct kp_rec_header *rec)
{
	struct kp_symbols_view v;
	uint32_t n;

	if (kp_rec_symbols_view(rec, &v))
		return -KP_ERECORD;
	n = v.rec->str_len;
	for (uint32_t i = 0; i < v.rec->nr_funcs; i++)
		if (v.funcs[i].name >= n)
			return -KP_ERECORD;
	for (uint32_t i = 0; i < v.rec->nr_locs; i++) {
		const struct kp_rec_sym_loc *l = &v.locs[i];

		if (!l->nr_frames || l->nr_frames > KP_SYM_MAX_FRAMES ||
		    l->frame > v.rec->nr_frames || l->nr_frames > v.rec->nr_frames - l->frame)
			return -KP_ERECORD;
	}
	for (uint32_t i = 0; i < v.rec->nr_frames; i++)
		if (v.frames[i].name >= n || (v.frames[i].file != KP_SYM_NONE && v.frames[i].file >= n))
			return -KP_ERECORD;
	return 0;
}

int kp_rec_file_part_view(const struct kp_rec_header *rec, struct kp_file_part_view *v)
{
	const struct kp_rec_file_part *f = (const void *)rec;
	const char *p = (const char *)(f + 1);

	if (rec->size < sizeof(*f) || f->path_len < 2 || f->build_id_len > 20 ||
	    sizeof(*f) + PAD8(f->path_len) + PAD8(f->len) > rec->size || !f->len ||
	    f->file_size > KP_FILE_PART_MAX_SIZE || f->off > f->file_size ||
	    f->len > f->file_size - f->off || p[f->path_len - 1] || memchr(p, 0, f->path_len - 1))
		return -KP_ERECORD;
	v->rec = f;
	v->path = p;
	v->bytes = (const uint8_t *)p + PAD8(f->path_len);
	return 0;
}

int kp_rec_file_part_check(const struct kp_rec_header *rec)
{
	struct kp_file_part_view v;

	return kp_rec_file_part_view(rec, &v);
}

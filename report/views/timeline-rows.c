/* SPDX-License-Identifier: MIT */
/*
 * timeline-rows.c - the timeline's lanes in rows, and its boxes merged below a pixel for its
 * bound (timeline-rows.h).
 */
#include "timeline-rows.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/hash.h"

#define SHORT_PART	10	/* a short-lived process lasts this part of the picture or less */

/* --- the rows ------------------------------------------------------------------------------ */

void kp_tl_group(struct kp_tl *tl, size_t from)
{
	struct kp_hash first;
	struct kp_tl_lane *l = tl->lanes;

	/* a lane's sort key: where its process's first lane is, then its own place */
	kp_hash_init(&first);
	for (size_t i = from; i < tl->nr_lanes; i++)
		if (!kp_hash_get(&first, kp_tl_proc(&l[i])))
			kp_hash_put(&first, kp_tl_proc(&l[i]), i);
	for (size_t i = from + 1; i < tl->nr_lanes; i++) { /* a stable insertion by the key */
		struct kp_tl_lane x = l[i];
		uint64_t kx = *kp_hash_get(&first, kp_tl_proc(&x));
		size_t j = i;
		while (j > from && *kp_hash_get(&first, kp_tl_proc(&l[j - 1])) > kx)
			l[j] = l[j - 1], j--;
		l[j] = x;
	}
	kp_hash_release(&first);
}

/* Where each lane's boxes begin and end (a lane without any: at the picture's start). */
static void extents(struct kp_tl *tl)
{
	for (size_t l = 0; l < tl->nr_lanes; l++) {
		struct kp_tl_lane *ln = &tl->lanes[l];
		ln->a = ln->nr ? UINT64_MAX : tl->t0;
		ln->b = tl->t0;
		for (size_t i = ln->first; i < ln->first + ln->nr; i++) {
			const struct kp_tl_item *it = &tl->items[i];
			uint64_t end = it->t + it->d < it->t ? UINT64_MAX : it->t + it->d;
			ln->a = it->t < ln->a ? it->t : ln->a;
			ln->b = end > ln->b ? end : ln->b;
		}
		ln->b = ln->b > ln->a ? ln->b : ln->a;
	}
}

/* Thread lane @l is a short-lived process's: the only thread of its process in the picture (not
 * an idle task's), its boxes within a SHORT_PART of the picture's time. */
static bool short_lived(const struct kp_tl *tl, size_t l)
{
	const struct kp_tl_lane *ln = &tl->lanes[l];

	return ln->t->cpu == UINT32_MAX &&
	       (!l || kp_tl_proc(&tl->lanes[l - 1]) != kp_tl_proc(ln)) &&
	       (l + 1 == tl->nr_lanes || kp_tl_proc(&tl->lanes[l + 1]) != kp_tl_proc(ln)) &&
	       ln->b - ln->a <= (tl->t1 - tl->t0) / SHORT_PART;
}

static int by_slot_start(const void *x, const void *y)
{
	const struct kp_tl_lane *a = x, *b = y;

	if (a->slot != b->slot)
		return a->slot < b->slot ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

static int by_start(const void *x, const void *y)
{
	const struct kp_tl_lane *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* The short-lived processes' lanes, at the end in rows of their own (kp_tl_pack()). */
void kp_tl_pack(struct kp_tl *tl, size_t from)
{
	struct kp_tl_lane *l = tl->lanes, *packed;
	uint64_t *ends = NULL;
	size_t n = 0, at = from, rows = 0, cap = 0;

	extents(tl);
	packed = kp_xcalloc(tl->nr_lanes - from + 1, sizeof(*packed));
	for (size_t i = from; i < tl->nr_lanes; i++) {
		struct kp_tl_lane x = l[i];
		if (short_lived(tl, i))
			packed[n++] = x;
		else
			l[at++] = x;
	}
	qsort(packed, n, sizeof(*packed), by_start);
	for (size_t i = 0; i < n; i++) {
		size_t r = 0;
		while (r < rows && ends[r] > packed[i].a)
			r++;
		if (r == rows) {
			KP_GROW(ends, cap, rows + 1);
			rows++;
		}
		ends[r] = packed[i].b;
		packed[i].slot = r;
		packed[i].packed = true;
	}
	qsort(packed, n, sizeof(*packed), by_slot_start);
	if (n) /* l is NULL where there is no lane */
		memcpy(l + at, packed, n * sizeof(*packed));
	tl->nr_packed = n;
	free(packed);
	free(ends);
}

/* Each lane's row (kp_tl_layout()): a packed lane shares its row with the others packed there. */
void kp_tl_layout(struct kp_tl *tl)
{
	size_t next = 0;

	for (size_t i = 0; i < tl->nr_lanes; i++) {
		struct kp_tl_lane *ln = &tl->lanes[i], *prev = i ? &tl->lanes[i - 1] : NULL;
		ln->heading = !prev || ln->is_cpu != prev->is_cpu || ln->packed != prev->packed ||
			      (!ln->is_cpu && !ln->packed && kp_tl_proc(ln) != kp_tl_proc(prev));
		next += ln->heading;
		ln->row_first = !ln->packed || ln->heading || prev->slot != ln->slot;
		ln->row = ln->row_first ? next++ : prev->row;
	}
	tl->nr_rows = next;
}

/* --- the bound ----------------------------------------------------------------------------- */

static uint64_t end_of(const struct kp_tl_item *it)
{
	return it->t + it->d < it->t ? UINT64_MAX : it->t + it->d;
}

/* Boxes @from to @to (not included) of a lane, two or more, as the one merged box at @from. */
static void merge_boxes(struct kp_tl *tl, size_t from, size_t to)
{
	struct kp_tl_merged m = { .kind = KP_TL_RUN };
	struct kp_tl_item *it = tl->items, x = it[from];
	uint64_t end = 0, longest = 0;

	for (size_t i = from; i < to; i++) {
		m.n[it[i].kind]++;
		m.ns[it[i].kind] += it[i].d;
		end = end_of(&it[i]) > end ? end_of(&it[i]) : end;
		if (i == from || it[i].d > longest) {
			longest = it[i].d;
			x = it[i];
			m.kind = it[i].kind;
		}
	}
	x.kind = KP_TL_MERGED;
	x.t = it[from].t;
	x.d = end - x.t;
	x.count = (uint32_t)(to - from);
	x.ent = (uint32_t)tl->nr_merges;
	KP_GROW(tl->merges, tl->cap_merges, tl->nr_merges + 1);
	tl->merges[tl->nr_merges++] = m;
	it[from] = x;
}

/* The boxes shorter than a pixel, merged (kp_tl_merge()). */
size_t kp_tl_merge(struct kp_tl *tl)
{
	double px = (double)(tl->t1 - tl->t0) / tl->pw; /* ns */
	size_t left = 0;

	if (!(px > 0))
		return tl->nr_items; /* a picture of no time: nothing is shorter than a pixel */
	for (size_t l = 0; l < tl->nr_lanes; l++) {
		struct kp_tl_lane *ln = &tl->lanes[l];
		size_t to = ln->first, i = ln->first, end = ln->first + ln->nr;
		while (i < end) {
			const struct kp_tl_item *it = &tl->items[i];
			uint64_t col = (uint64_t)((double)(it->t - tl->t0) / px);
			size_t j = i + 1;
			if ((double)it->d < px)
				while (j < end && (double)tl->items[j].d < px &&
				       (uint64_t)((double)(tl->items[j].t - tl->t0) / px) == col)
					j++;
			if (j - i > 1)
				merge_boxes(tl, i, j);
			tl->items[to++] = tl->items[i];
			i = j;
		}
		ln->nr = to - ln->first;
		left += ln->nr;
	}
	return left;
}

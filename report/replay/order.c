/* SPDX-License-Identifier: MIT */
#include "order.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

void kp_order_init(struct kp_order *o)
{
	memset(o, 0, sizeof(*o));
}

void kp_order_release(struct kp_order *o)
{
	free(o->seg[0].buf);
	free(o->seg[1].buf);
	free(o->ents);
	free(o->tmp);
	free(o->out);
	kp_order_init(o);
}

#define AT_REF 1ull	/* kp_order_ent.at: the caller's record, not a copy */

/* Copy @rec into segment @i; returns the entry's `at`. */
static uint64_t seg_put(struct kp_order *o, uint32_t i, const struct kp_rec_header *rec)
{
	struct kp_order_seg *g = &o->seg[i];
	uint64_t at = (uint64_t)g->len << 2 | i << 1;

	KP_GROW(g->buf, g->cap, g->len + rec->size);
	memcpy(g->buf + g->len, rec, rec->size);
	g->len += rec->size;
	return at;
}

static const struct kp_rec_header *rec_at(const struct kp_order *o, uint64_t at)
{
	if (at & AT_REF)
		return (const void *)(uintptr_t)(at & ~AT_REF);
	return (const void *)(o->seg[at >> 1 & 1].buf + (at >> 2));
}

static void push(struct kp_order *o, uint64_t at, uint64_t time, uint64_t tag)
{
	KP_GROW(o->ents, o->ents_cap, o->nr + 1);
	o->ents[o->nr++] = (struct kp_order_ent){ time, o->seq++, at, tag };
	if (time > o->max_time)
		o->max_time = time;
}

void kp_order_push(struct kp_order *o, const struct kp_rec_header *rec, uint64_t time,
		   uint64_t tag)
{
	push(o, seg_put(o, o->cur, rec), time, tag);
}

void kp_order_push_ref(struct kp_order *o, const struct kp_rec_header *rec, uint64_t time,
		       uint64_t tag)
{
	push(o, (uint64_t)(uintptr_t)rec | AT_REF, time, tag);
}

void kp_order_rehome(struct kp_order *o, const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < o->nr; i++) {
		struct kp_order_ent *e = &o->ents[i];
		const uint8_t *rec = (const uint8_t *)rec_at(o, e->at);

		if ((e->at & AT_REF) && rec >= buf && rec < buf + len)
			e->at = seg_put(o, o->cur, (const void *)rec);
	}
}

static bool before(const struct kp_order_ent *x, const struct kp_order_ent *y)
{
	return x->time != y->time ? x->time < y->time : x->seq < y->seq;
}

/* The end of the ascending run that starts at @i. */
static size_t run_end(const struct kp_order_ent *e, size_t i, size_t n)
{
	while (++i < n && !before(&e[i], &e[i - 1]))
		;
	return i;
}

/*
 * Sort the @n entries at @a, a few ascending runs (each ring's drain in turn), merging runs
 * pairwise with @b as scratch: log2 of the rings passes, not of the records. Returns where
 * they end up, @a or @b.
 */
static struct kp_order_ent *sort_runs(struct kp_order_ent *a, struct kp_order_ent *b, size_t n)
{
	if (n < 2 || run_end(a, 0, n) == n)
		return a;
	for (;;) {
		size_t i = 0, k = 0, runs = 0;

		while (i < n) {
			size_t mid = run_end(a, i, n), end = mid < n ? run_end(a, mid, n) : n;
			size_t x = i, y = mid;

			while (x < mid && y < end)
				b[k++] = before(&a[y], &a[x]) ? a[y++] : a[x++];
			while (x < mid)
				b[k++] = a[x++];
			while (y < end)
				b[k++] = a[y++];
			i = end;
			runs++;
		}
		struct kp_order_ent *t = a;
		a = b;
		b = t;
		if (runs == 1)
			return a;
	}
}

static void swap_ents(struct kp_order_ent **a, size_t *a_cap, struct kp_order_ent **b,
		      size_t *b_cap)
{
	struct kp_order_ent *t = *a;
	size_t cap = *a_cap;

	*a = *b;
	*a_cap = *b_cap;
	*b = t;
	*b_cap = cap;
}

/*
 * Deliver the queued records with time <= @limit and keep the rest, in order. Only those
 * pushed since the last time are sorted; they are merged with those kept then as they are
 * delivered, and what is left of both is merged for the next time.
 */
static int deliver(struct kp_order *o, uint64_t limit, kp_order_fn *fn, void *ctx)
{
	size_t kept = o->kept, m = o->nr - kept, i = 0, j = 0, out = 0;
	const struct kp_order_ent *r = o->ents, *s;
	int rc = 0;

	if (!o->nr) /* nothing queued, maybe nothing ever: no array to point into */
		return 0;
	KP_GROW(o->tmp, o->tmp_cap, m);
	KP_GROW(o->out, o->out_cap, o->nr);
	s = sort_runs(o->ents + kept, o->tmp, m);
	while (!rc && (i < kept || j < m)) { /* the older of the two heads, while it is due */
		bool old = i < kept && (j == m || before(&r[i], &s[j]));
		const struct kp_order_ent *e = old ? &r[i] : &s[j];

		if (e->time > limit)
			break;
		i += old;
		j += !old;
		rc = fn(ctx, rec_at(o, e->at), e->time, e->tag);
	}
	while (i < kept && j < m)
		o->out[out++] = before(&s[j], &r[i]) ? s[j++] : r[i++];
	while (i < kept)
		o->out[out++] = r[i++];
	while (j < m)
		o->out[out++] = s[j++];
	swap_ents(&o->ents, &o->ents_cap, &o->out, &o->out_cap);
	o->nr = o->kept = out;
	return rc;
}

/*
 * Round over: the other segment becomes this round's. Whatever it still holds (only after a
 * callback stopped the delivery) moves to the segment kept first.
 */
static void next_segment(struct kp_order *o)
{
	uint32_t old = o->cur ^ 1;

	for (size_t i = 0; i < o->nr; i++) {
		struct kp_order_ent *e = &o->ents[i];

		if (!(e->at & AT_REF) && (e->at >> 1 & 1) == old)
			e->at = seg_put(o, o->cur, rec_at(o, e->at));
	}
	o->seg[old].len = 0;
	o->cur = old;
}

int kp_order_round(struct kp_order *o, kp_order_fn *fn, void *ctx)
{
	int rc = deliver(o, o->limit, fn, ctx);

	o->limit = o->max_time;
	next_segment(o);
	return rc;
}

int kp_order_flush(struct kp_order *o, kp_order_fn *fn, void *ctx)
{
	int rc = deliver(o, UINT64_MAX, fn, ctx);

	if (!o->nr)
		o->seg[0].len = o->seg[1].len = 0;
	return rc;
}

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
	free(o->buf);
	free(o->spare);
	free(o->ents);
	kp_order_init(o);
}

void kp_order_push(struct kp_order *o, const struct kp_rec_header *rec, uint64_t time)
{
	KP_GROW(o->buf, o->cap, o->len + rec->size);
	KP_GROW(o->ents, o->ents_cap, o->nr + 1);
	memcpy(o->buf + o->len, rec, rec->size);
	o->ents[o->nr++] = (struct kp_order_ent){ time, o->seq++, o->len };
	o->len += rec->size;
	if (time > o->max_time)
		o->max_time = time;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct kp_order_ent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A single ring, or rings drained without overlap, queue records already in order. */
static bool sorted(const struct kp_order *o)
{
	for (size_t i = 1; i < o->nr; i++)
		if (cmp_ent(&o->ents[i - 1], &o->ents[i]) > 0)
			return false;
	return true;
}

/* Deliver the queued records with time <= @limit and keep the rest, compacted. */
static int deliver(struct kp_order *o, uint64_t limit, kp_order_fn *fn, void *ctx)
{
	size_t n = 0, len = 0;
	uint8_t *keep;
	int rc = 0;

	if (!o->nr)
		return 0;
	if (!sorted(o))
		qsort(o->ents, o->nr, sizeof(*o->ents), cmp_ent);
	while (n < o->nr && o->ents[n].time <= limit && !rc) {
		const struct kp_order_ent *e = &o->ents[n++];
		rc = fn(ctx, (const void *)(o->buf + e->off), e->time);
	}
	if (n == o->nr) {
		o->nr = 0;
		o->len = 0;
		return rc;
	}
	/* compact what stays into the spare buffer and swap: no allocation per round */
	if (o->spare_cap < o->cap) {
		free(o->spare);
		o->spare_cap = o->cap;
		o->spare = kp_xmalloc(o->spare_cap);
	}
	keep = o->spare;
	for (size_t i = n; i < o->nr; i++) {
		const struct kp_rec_header *r = (const void *)(o->buf + o->ents[i].off);
		memcpy(keep + len, r, r->size);
		o->ents[i - n] = o->ents[i];
		o->ents[i - n].off = len;
		len += r->size;
	}
	o->spare = o->buf;
	o->buf = keep;
	{
		size_t cap = o->cap;
		o->cap = o->spare_cap;
		o->spare_cap = cap;
	}
	o->len = len;
	o->nr -= n;
	return rc;
}

int kp_order_round(struct kp_order *o, kp_order_fn *fn, void *ctx)
{
	int rc = deliver(o, o->limit, fn, ctx);

	o->limit = o->max_time;
	return rc;
}

int kp_order_flush(struct kp_order *o, kp_order_fn *fn, void *ctx)
{
	return deliver(o, UINT64_MAX, fn, ctx);
}

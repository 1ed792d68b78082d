/* SPDX-License-Identifier: MIT */
#include "hash.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

void kp_hash_init(struct kp_hash *h)
{
	memset(h, 0, sizeof(*h));
}

void kp_hash_release(struct kp_hash *h)
{
	free(h->ents);
	kp_hash_init(h);
}

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33; /* murmur3's finaliser: spreads tids and addresses alike */
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return key & (cap - 1);
}

static struct kp_hash_ent *find(const struct kp_hash *h, uint64_t key)
{
	size_t i = slot_of(key, h->cap);

	while (h->ents[i].used && h->ents[i].key != key)
		i = (i + 1) & (h->cap - 1);
	return &h->ents[i];
}

static void grow(struct kp_hash *h)
{
	struct kp_hash old = *h;

	h->cap = old.cap ? old.cap * 2 : 64;
	h->ents = kp_xcalloc(h->cap, sizeof(*h->ents));
	h->nr = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.ents[i].used)
			kp_hash_put(h, old.ents[i].key, old.ents[i].val);
	free(old.ents);
}

uint64_t *kp_hash_get(const struct kp_hash *h, uint64_t key)
{
	struct kp_hash_ent *e;

	if (!h->cap)
		return NULL;
	e = find(h, key);
	return e->used ? &e->val : NULL;
}

void kp_hash_put(struct kp_hash *h, uint64_t key, uint64_t val)
{
	struct kp_hash_ent *e;

	if ((h->nr + 1) * 2 > h->cap)
		grow(h);
	e = find(h, key);
	if (!e->used) {
		e->used = true;
		e->key = key;
		h->nr++;
	}
	e->val = val;
}

uint64_t *kp_hash_add(struct kp_hash *h, uint64_t key, uint64_t val, bool *added)
{
	struct kp_hash_ent *e = h->cap ? find(h, key) : NULL;

	*added = !e || !e->used;
	if (!*added)
		return &e->val;
	if ((h->nr + 1) * 2 > h->cap) { /* as kp_hash_put() grows */
		grow(h);
		e = find(h, key);
	}
	e->used = true;
	e->key = key;
	e->val = val;
	h->nr++;
	return &e->val;
}

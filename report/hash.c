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
	free(h->keys);
	free(h->vals);
	free(h->used);
	kp_hash_init(h);
}

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33; /* murmur3's finaliser: spreads tids and addresses alike */
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return key & (cap - 1);
}

static size_t find(const struct kp_hash *h, uint64_t key)
{
	size_t i = slot_of(key, h->cap);

	while (h->used[i] && h->keys[i] != key)
		i = (i + 1) & (h->cap - 1);
	return i;
}

static void grow(struct kp_hash *h)
{
	struct kp_hash old = *h;

	h->cap = old.cap ? old.cap * 2 : 64;
	h->keys = kp_xcalloc(h->cap, sizeof(*h->keys));
	h->vals = kp_xcalloc(h->cap, sizeof(*h->vals));
	h->used = kp_xcalloc(h->cap, sizeof(*h->used));
	h->nr = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.used[i])
			kp_hash_put(h, old.keys[i], old.vals[i]);
	kp_hash_release(&old);
}

uint64_t *kp_hash_get(const struct kp_hash *h, uint64_t key)
{
	size_t i;

	if (!h->cap)
		return NULL;
	i = find(h, key);
	return h->used[i] ? &h->vals[i] : NULL;
}

void kp_hash_put(struct kp_hash *h, uint64_t key, uint64_t val)
{
	size_t i;

	if ((h->nr + 1) * 2 > h->cap)
		grow(h);
	i = find(h, key);
	if (!h->used[i]) {
		h->used[i] = true;
		h->keys[i] = key;
		h->nr++;
	}
	h->vals[i] = val;
}

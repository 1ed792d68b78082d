/* SPDX-License-Identifier: MIT */
/*
 * hash.h - an open-addressing map from u64 keys to u64 values (linear probing, power-of-two
 * table, at most half full). The one hash table of the report side: symbol caches, call-tree
 * interning and thread lookups run through it millions of times per report, so an entry keeps
 * key, value and its used mark together, one cache line per probe.
 */
#ifndef KP_HASH_H
#define KP_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kp_hash_ent {
	uint64_t key;
	uint64_t val;
	bool used;
};

struct kp_hash {
	struct kp_hash_ent *ents;
	size_t nr, cap;
};

void kp_hash_init(struct kp_hash *h);
void kp_hash_release(struct kp_hash *h);

/* kp_hash_get - pointer to the value of @key (borrowed until the next put), or NULL. */
uint64_t *kp_hash_get(const struct kp_hash *h, uint64_t key);

/* kp_hash_put - set @key to @val, adding it if absent. */
void kp_hash_put(struct kp_hash *h, uint64_t key, uint64_t val);

/*
 * kp_hash_add - find or add: the value of @key, or where @key has none, @val put under it;
 * *@added says which. The pointer is borrowed until the next put. A table of rows in an
 * array, found by an exact key: kp_hash_add(&ids, key, nr, &added) is the row of @key, and
 * when added, the caller appends row nr.
 */
uint64_t *kp_hash_add(struct kp_hash *h, uint64_t key, uint64_t val, bool *added);

/*
 * kp_hash_find - the one interning rule, for tables keyed by a hash of their entries' content:
 * the value under *@key if @same(@ctx, value) says its entry holds that content; after a
 * 64-bit collision, the next keys in turn. NULL when no entry matches, *@key then being the
 * free key to kp_hash_put() the new entry under. Inline, so that @same is too.
 */
static inline uint64_t *kp_hash_find(const struct kp_hash *h, uint64_t *key,
				     bool (*same)(const void *ctx, uint64_t val), const void *ctx)
{
	uint64_t *v;

	for (; (v = kp_hash_get(h, *key)); (*key)++)
		if (same(ctx, *v))
			return v;
	return NULL;
}

#endif /* KP_HASH_H */

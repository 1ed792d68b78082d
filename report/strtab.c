/* SPDX-License-Identifier: MIT */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

uint64_t kp_hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;

	while (len--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

uint64_t kp_hash_words(const uint64_t *w, size_t n, uint64_t seed)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ seed;

	for (size_t i = 0; i < n; i++) {
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

void kp_strtab_init(struct kp_strtab *t)
{
	memset(t, 0, sizeof(*t));
	kp_hash_init(&t->ids);
	kp_strtab_intern(t, "");
}

void kp_strtab_release(struct kp_strtab *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->strs[i]);
	free(t->strs);
	kp_hash_release(&t->ids);
	memset(t, 0, sizeof(*t));
}

uint32_t kp_strtab_intern_len(struct kp_strtab *t, const char *s, size_t len)
{
	uint64_t key = kp_hash_bytes(s, len, 0), *id;
	char *copy;

	/* a 64-bit collision between two strings is rare; probe the next key when it happens */
	while ((id = kp_hash_get(&t->ids, key))) {
		const char *have = t->strs[*id];
		if (!strncmp(have, s, len) && have[len] == '\0')
			return (uint32_t)*id;
		key++;
	}
	KP_GROW(t->strs, t->cap, t->nr + 1);
	copy = kp_xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->strs[t->nr] = copy;
	kp_hash_put(&t->ids, key, t->nr);
	return (uint32_t)t->nr++;
}

uint32_t kp_strtab_intern(struct kp_strtab *t, const char *s)
{
	return kp_strtab_intern_len(t, s, strlen(s));
}

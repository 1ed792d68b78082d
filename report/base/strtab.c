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

struct want_str {
	const struct kp_strtab *t;
	const char *s;
	size_t len;
};

static bool same_str(const void *ctx, uint64_t id)
{
	const struct want_str *w = ctx;
	const char *have = w->t->strs[id];

	return !strncmp(have, w->s, w->len) && have[w->len] == '\0';
}

uint32_t kp_strtab_intern_len(struct kp_strtab *t, const char *s, size_t len)
{
	struct want_str want = { t, s, len };
	uint64_t key = kp_hash_bytes(s, len, 0), *id = kp_hash_find(&t->ids, &key, same_str, &want);
	char *copy;

	if (id)
		return (uint32_t)*id;
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

/* SPDX-License-Identifier: MIT */
/*
 * strtab.h - interned strings: each distinct string gets a small id, and id 0 is "" (pprof's
 * string_table rule). Strings live in the table until kp_strtab_release().
 */
#ifndef KP_STRTAB_H
#define KP_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

struct kp_strtab {
	char **strs;		/* id -> string (owned) */
	size_t nr, cap;
	struct kp_hash ids;	/* string hash (probed on collision) -> id */
};

void kp_strtab_init(struct kp_strtab *t);	/* holds "" as id 0 */
void kp_strtab_release(struct kp_strtab *t);

/* kp_strtab_intern - the id of @s (@len bytes, no NUL needed), added if new. */
uint32_t kp_strtab_intern_len(struct kp_strtab *t, const char *s, size_t len);
uint32_t kp_strtab_intern(struct kp_strtab *t, const char *s);

/* kp_strtab_get - the string of @id (interned: valid until release). */
static inline const char *kp_strtab_get(const struct kp_strtab *t, uint32_t id)
{
	return t->strs[id];
}

/* kp_hash_bytes - FNV-1a 64 of @len bytes: the hash every interning table here uses. */
uint64_t kp_hash_bytes(const void *p, size_t len, uint64_t seed);

/* kp_hash_words - the same job for @n u64 words, a word per step (stack keys are long). */
uint64_t kp_hash_words(const uint64_t *w, size_t n, uint64_t seed);

#endif /* KP_STRTAB_H */

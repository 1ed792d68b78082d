/* SPDX-License-Identifier: MIT */
/*
 * symrank.h - which of several symbols at one address names it. perf's rule (its
 * util/symbol.c), so that kprof's and perf's reports of one recording can be compared name by
 * name: a symbol with a size, then a typed one over STT_NOTYPE, then non-weak over weak, then
 * global over local, then fewer leading underscores, then the longer name. libc's `malloc`
 * beats `__libc_malloc`, `__memmove_avx512_unaligned_erms` beats `__memcpy_...`.
 */
#ifndef KP_SYMRANK_H
#define KP_SYMRANK_H

#include <stdbool.h>
#include <stdint.h>

/* What the rule looks at; @name is borrowed. @bind is an ELF STB_* value. */
struct kp_symrank {
	const char *name;
	uint64_t size;
	bool typed;	/* STT_FUNC, STT_GNU_IFUNC and the like, not STT_NOTYPE */
	unsigned char bind;
};

/*
 * kp_symrank_cmp - < 0 when @a names the address better than @b, > 0 when @b does; names the
 * rule cannot tell apart are ordered by strcmp(), so the choice never depends on input order.
 */
int kp_symrank_cmp(const struct kp_symrank *a, const struct kp_symrank *b);


#endif /* KP_SYMRANK_H */

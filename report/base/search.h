/* SPDX-License-Identifier: MIT */
/*
 * search.h - the one binary search of the report side: over an array sorted by a u64 (an
 * address, an offset), where a key falls. The symbol tables, the JIT maps, the maps of a
 * process, the unwinder's regions and the disassembly all look up "the element covering an
 * address" through it: the last one starting at or below the address, index
 * KP_FIRST_ABOVE() - 1, if it reaches that far.
 */
#ifndef KP_SEARCH_H
#define KP_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/* kp_first_above - the index of the first of @n u64s, @stride bytes apart from @first and
 * sorted, that is above @key: how many are at or below it. */
static inline size_t kp_first_above(const uint64_t *first, size_t n, size_t stride, uint64_t key)
{
	const char *base = (const char *)first;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (*(const uint64_t *)(base + mid * stride) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* KP_FIRST_ABOVE - the index of the first of the @n elements of array @arr (sorted by their
 * u64 member @field) whose @field is above @key; @n when none is. */
#define KP_FIRST_ABOVE(arr, n, field, key) \
	((n) ? kp_first_above(&(arr)->field, (n), sizeof(*(arr)), (key)) : 0)

#endif /* KP_SEARCH_H */

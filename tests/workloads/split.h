/* SPDX-License-Identifier: MIT */
/*
 * split.h - the work with a known split that the demo, the tests and the benchmark run:
 * work_a 60% of each round (half through via_left, half through via_right), work_b 30%,
 * work_c 10%. The three run the same loop, so the split follows their iteration counts.
 * Built -O2 with frame pointers, or without them for the benchmark's other build.
 */
#ifndef KP_WORKLOAD_SPLIT_H
#define KP_WORKLOAD_SPLIT_H

#include <stdint.h>

#define UNIT 20000 /* iterations per unit of work: about 20 us */

/* Their linkage: static, or global for the build whose functions -rdynamic exports. */
#ifndef SPLIT_LINKAGE
#define SPLIT_LINKAGE static
#endif

static volatile uint64_t sink;

/*
 * The iterations of a unit in the round being run: UNIT, scaled by 3/4 to 5/4, drawn anew
 * each round. Rounds of one fixed length (0.2 ms) are commensurate with cpu-clock's period at
 * 4 kHz (0.25 ms): where the timer's jitter is small, as on a machine busy with short tasks,
 * its samples fall at the same few places of every round, and the split they show is not the
 * one the clocks measure (with no jitter at all: work_a 75%, work_b 25%, work_c none).
 * Rounds of random lengths put the samples anywhere; each keeps the 6:3:1 of its parts.
 */
static unsigned long unit_iters = UNIT;

static inline void next_round(void)
{
	static uint32_t seed = 12345;

	seed = seed * 1103515245u + 12345u;
	unit_iters = UNIT * (48 + (seed >> 16) % 33) / 64;
}

/*
 * The work functions end with a call so that they are not leaves: GCC 12 sets up no frame
 * pointer in a leaf even with -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer, and a
 * frame-pointer call chain then skips the leaf's caller.
 */
__attribute__((noinline)) static void publish(uint64_t x)
{
	sink = x;
}

/* The same loop with a different increment each, and noipa: identical functions would be
 * folded into one (GCC's -fipa-icf), and constant arguments would make .constprop clones. */
#define WORK_FN(name, inc)                                                     \
	__attribute__((noinline, noipa)) SPLIT_LINKAGE void name(unsigned units) \
	{                                                                      \
		uint64_t x = sink;                                             \
		for (unsigned long i = 0; i < (unsigned long)units * unit_iters; i++) \
			x = x * 6364136223846793005ull + (inc);                \
		publish(x);                                                    \
		__asm__ volatile("" ::: "memory");                             \
	}

WORK_FN(work_a, 1442695040888963407ull)
WORK_FN(work_b, 1442695040888963409ull)
WORK_FN(work_c, 1442695040888963411ull)

/* The two paths differ in what they do after the call: identical functions would be folded
 * into one, and a call in tail position would become a jump that leaves no frame. */
__attribute__((noinline)) SPLIT_LINKAGE void via_left(void)
{
	work_a(3);
	sink += 1;
}

__attribute__((noinline)) SPLIT_LINKAGE void via_right(void)
{
	work_a(3);
	sink += 2;
}

/* One round of the split, 0.15 to 0.25 ms of CPU: a macro, so that the caller's frame is the
 * one that calls via_left, via_right, work_b and work_c (main;via_left;work_a). The _THEN
 * form runs a statement after each function's part (split times them). */
#define SPLIT_ROUND_THEN(after_a, after_b, after_c) \
	do {                                        \
		next_round();                       \
		via_left();                         \
		via_right();                        \
		after_a;                            \
		work_b(3);                          \
		after_b;                            \
		work_c(1);                          \
		after_c;                            \
	} while (0)
#define SPLIT_ROUND() SPLIT_ROUND_THEN((void)0, (void)0, (void)0)

#endif /* KP_WORKLOAD_SPLIT_H */

/* SPDX-License-Identifier: MIT */
/*
 * split.c - a CPU-bound workload with a known split, the demo and the live tests' subject.
 *
 *   split [CPU_SECONDS]     (default 1)
 *
 * It burns CPU_SECONDS of its own CPU time (CLOCK_PROCESS_CPUTIME_ID) in three functions
 * whose self time splits 60/30/10: work_a (60%, reached through two paths, via_left and
 * via_right, half each), work_b (30%) and work_c (10%). The three run the same loop, so the
 * split follows their iteration counts. At exit it prints "cpu_ns=N" to stdout: the CPU time
 * it really used, which is what a cpu-clock sample count should follow.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT 20000 /* iterations per unit of work: about 20 us */

static volatile uint64_t sink;

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
	__attribute__((noinline, noipa)) static void name(unsigned units)     \
	{                                                                      \
		uint64_t x = sink;                                             \
		for (unsigned long i = 0; i < (unsigned long)units * UNIT; i++) \
			x = x * 6364136223846793005ull + (inc);                \
		publish(x);                                                    \
		__asm__ volatile("" ::: "memory");                             \
	}

WORK_FN(work_a, 1442695040888963407ull)
WORK_FN(work_b, 1442695040888963409ull)
WORK_FN(work_c, 1442695040888963411ull)

/* The two paths differ in what they do after the call: identical functions would be folded
 * into one, and a call in tail position would become a jump that leaves no frame. */
__attribute__((noinline)) static void via_left(void)
{
	work_a(3);
	sink += 1;
}

__attribute__((noinline)) static void via_right(void)
{
	work_a(3);
	sink += 2;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	uint64_t budget = (uint64_t)(seconds * 1e9);

	if (seconds <= 0 || seconds > 3600) {
		fprintf(stderr, "usage: split [CPU_SECONDS]\n");
		return 2;
	}
	while (cpu_ns() < budget) {
		via_left();
		via_right();
		work_b(3);
		work_c(1);
	}
	printf("cpu_ns=%llu\n", (unsigned long long)cpu_ns());
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * loops.c - one function holding two loops of a known relative cost, for kprof annotate: the
 * first runs three times the iterations of the second over the same body, one line each, and
 * the function measures the thread CPU time each loop took. It prints loop_a_ns and
 * loop_b_ns, the split an annotation of two_loops must find by line.
 *
 * usage: loops [SECONDS]   (default 1)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t loop_a_ns, loop_b_ns;

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The empty asm keeps each loop a chain of multiplies the compiler cannot fold or vectorize. */
__attribute__((noinline, noclone)) static uint64_t two_loops(uint64_t n)
{
	uint64_t x = n, y = n + 1, t0, t1, t2;

	t0 = thread_ns();
	for (uint64_t i = 0; i < 3 * n; i++) { x = x * 6364136223846793005ull + i; __asm__ volatile("" : "+r"(x)); } /* LOOP_A */
	t1 = thread_ns();
	for (uint64_t i = 0; i < n; i++) { y = y * 6364136223846793005ull + i; __asm__ volatile("" : "+r"(y)); } /* LOOP_B */
	t2 = thread_ns();
	loop_a_ns += t1 - t0;
	loop_b_ns += t2 - t1;
	return x ^ y;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	uint64_t budget = (uint64_t)(seconds * 1e9), sink = 0;

	while (loop_a_ns + loop_b_ns < budget)
		sink ^= two_loops(250000);
	printf("loop_a_ns=%llu\nloop_b_ns=%llu\nsink=%llu\n", (unsigned long long)loop_a_ns,
	       (unsigned long long)loop_b_ns, (unsigned long long)sink);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * fploop.c - CPU time under a frame pointer that points to itself, for the test that such a
 * frame-pointer chain is shown once: while spin() runs, RBP holds the address of a frame
 * whose saved RBP is that same frame and whose return address is inside spin(), so the
 * kernel's frame-pointer walk stores that address again and again, up to its depth limit.
 * Then the same time in a plain call, for a chain that ends as chains do.
 *
 *   fploop [CPU_SECONDS]     (default 0.3: as much in each part)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint64_t frame[2];

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n iterations of a loop with RBP on the self-referencing frame; RBP is restored after. */
__attribute__((noinline)) static void spin(uint64_t n)
{
	frame[0] = (uint64_t)(uintptr_t)frame;
	frame[1] = (uint64_t)(uintptr_t)&spin + 1;
	__asm__ volatile("mov %%rbp, %%rdx\n\t"
			 "mov %1, %%rbp\n"
			 "1:\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 "mov %%rdx, %%rbp"
			 : "+r"(n)
			 : "r"(frame)
			 : "rdx", "memory", "cc");
}

static volatile uint64_t sink;

__attribute__((noinline)) static void plain(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3, t;

	for (t = cpu_s() + secs; cpu_s() < t;)
		spin(10000000);
	for (t = cpu_s() + secs; cpu_s() < t;)
		plain(10000000);
	return 0;
}

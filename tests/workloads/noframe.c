/* SPDX-License-Identifier: MIT */
/*
 * noframe.c - CPU time in a function that no unwinder can leave, for the test that a DWARF
 * profile says its stacks stop early, and where. Built without CFI and without frame pointers,
 * spin() keeps a buffer on the stack (so its return address is not at the stack pointer, where
 * a leaf's is) and clears RBP while it runs (so no frame-pointer chain leads out of it either).
 *
 *   noframe [CPU_SECONDS]     (default 0.5)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) static void spin(unsigned long n)
{
	volatile uint64_t buf[64];

	__asm__ volatile("xor %%ebp, %%ebp" ::: "rbp");
	for (unsigned long i = 0; i < n; i++)
		buf[i % 64] += i * 2654435761u;
	sink = buf[n % 64];
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	struct timespec ts;

	do {
		spin(100000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < seconds);
	return 0;
}

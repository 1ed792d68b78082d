/* SPDX-License-Identifier: MIT */
/*
 * nocfi.c - a call through a function without CFI, the subject of tests/live/unwinders.sh:
 *
 *   nocfi [CPU_SECONDS]     (default 1)
 *
 * main -> outer -> nocfi_spin -> inner, for CPU_SECONDS of its own CPU time. outer and inner
 * are built like split-nofp (CFI, no frame pointers); nocfi_spin (nocfi-fn.c) has a frame
 * pointer and no CFI at all, and takes half of the time itself, inner the other half. DWARF
 * unwinding gets from inner to nocfi_spin with CFI, from nocfi_spin to outer only through its
 * frame pointer, and on to main with CFI again. At exit it prints "cpu_ns=N", as split does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nocfi.h"

static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((noinline, noipa)) static void inner(unsigned units)
{
	uint64_t x = sink;

	for (unsigned long i = 0; i < (unsigned long)units * NOCFI_UNIT; i++)
		x = x * 6364136223846793005ull + 1442695040888963409ull;
	sink = x;
}

/* not a tail call: something is left to do after nocfi_spin returns */
__attribute__((noinline)) static void outer(void)
{
	sink += nocfi_spin(3, inner);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	uint64_t budget = (uint64_t)(seconds * 1e9);

	if (seconds <= 0 || seconds > 3600) {
		fprintf(stderr, "usage: nocfi [CPU_SECONDS]\n");
		return 2;
	}
	while (cpu_ns() < budget)
		outer();
	printf("cpu_ns=%llu\n", (unsigned long long)cpu_ns());
	return 0;
}

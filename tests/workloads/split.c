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

#include "split.h"

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
	while (cpu_ns() < budget)
		SPLIT_ROUND();
	printf("cpu_ns=%llu\n", (unsigned long long)cpu_ns());
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * split.c - a CPU-bound workload with a known split, the demo and the live tests' subject.
 *
 *   split [CPU_SECONDS]     (default 1)
 *
 * It burns CPU_SECONDS of its own CPU time (CLOCK_PROCESS_CPUTIME_ID) in three functions
 * whose self time splits 60/30/10: work_a (60%, reached through two paths, via_left and
 * via_right, half each), work_b (30%) and work_c (10%). The three run the same loop, so the
 * split follows their iteration counts, on a quiet machine. At exit it prints to stdout the CPU
 * time it really used, which is what a cpu-clock sample count should follow, and the thread CPU
 * time each work function took, which is what its share of the samples should follow:
 *
 *   cpu_ns=N
 *   work_a_ns=A   (via_left and via_right)
 *   work_b_ns=B
 *   work_c_ns=C
 *   pid=P         (its process, to pick its samples out of a system-wide recording)
 *
 * A busy machine (a hyperthread sibling's load, a host's) changes how long an iteration takes,
 * and not always alike for the three, so the tests compare with these times, not with 60/30/10.
 * Each time is less the cost of reading the clock, measured on an empty interval at start.
 * The clock's helpers are not inlined, so that their stacks are known: main, then clock_cost
 * or lap, then cpu_ns or thread_ns (unless a tail call skips it), then clock_ns.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "split.h"

__attribute__((noinline)) static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((noinline)) static uint64_t cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

__attribute__((noinline)) static uint64_t thread_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* The least an empty interval measures: what each measured interval holds of the clock itself. */
static uint64_t clock_cost(void)
{
	uint64_t least = UINT64_MAX;

	for (int i = 0; i < 1000; i++) {
		uint64_t t0 = thread_ns(), d = thread_ns() - t0;

		if (d < least)
			least = d;
	}
	return least;
}

/* Adds the thread CPU time since *t, less the clock's own cost, to *spent; *t becomes now. */
__attribute__((noinline)) static void lap(uint64_t *t, uint64_t *spent, uint64_t cost)
{
	uint64_t now = thread_ns();

	*spent += now - *t > cost ? now - *t - cost : 0;
	*t = now;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	uint64_t budget = (uint64_t)(seconds * 1e9);

	if (seconds <= 0 || seconds > 3600) {
		fprintf(stderr, "usage: split [CPU_SECONDS]\n");
		return 2;
	}
	uint64_t cost = clock_cost(), a = 0, b = 0, c = 0;

	while (cpu_ns() < budget) {
		uint64_t t = thread_ns();

		SPLIT_ROUND_THEN(lap(&t, &a, cost), lap(&t, &b, cost), lap(&t, &c, cost));
	}
	printf("cpu_ns=%llu\nwork_a_ns=%llu\nwork_b_ns=%llu\nwork_c_ns=%llu\npid=%d\n",
	       (unsigned long long)cpu_ns(), (unsigned long long)a, (unsigned long long)b,
	       (unsigned long long)c, (int)getpid());
	return 0;
}

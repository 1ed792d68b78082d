/* SPDX-License-Identifier: MIT */
/*
 * pinned.c - a CPU hog and a sleeper sharing one CPU, for the scheduler's view (kprof sched):
 * both threads are pinned to the CPU given (default: the last one), as the main thread is. The sleeper runs ROUNDS
 * rounds of a SLEEP_MS nanosleep and SPIN_MS of CPU; the hog spins until the sleeper is done.
 * Each thread measures itself: its CPU time (CLOCK_THREAD_CPUTIME_ID), its wall time from just
 * before its creation to its end (CLOCK_MONOTONIC), and the sleeper the wall time around its
 * sleeps. The hog never sleeps: all of its wall time that is not CPU time it waited on the run
 * queue, its scheduling delay. Both are named (kp-hog, kp-sleeper) and print, in ns:
 * hog_tid, hog_cpu_ns, hog_wall_ns, sleeper_tid, sleeper_cpu_ns, sleeper_wall_ns,
 * sleeper_sleep_ns, and the CPU.
 *
 * usage: pinned [ROUNDS] [SLEEP_MS] [SPIN_MS] [CPU]   (default 15 4 4, the last CPU)
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clocks.h"

static long rounds = 15, sleep_ms = 4, spin_ms = 4;
static atomic_int done;

struct self {
	uint64_t created;	/* just before pthread_create */
	long tid;
	uint64_t cpu, wall, slept;
};

static void end_of(struct self *s)
{
	s->cpu = ns_of(CLOCK_THREAD_CPUTIME_ID);
	s->wall = ns_of(CLOCK_MONOTONIC) - s->created;
}

__attribute__((noinline)) static void spin(uint64_t cpu_ns)
{
	uint64_t end = ns_of(CLOCK_THREAD_CPUTIME_ID) + cpu_ns;
	volatile uint64_t x = 1;

	while (ns_of(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1;
}

static void *hog(void *arg)
{
	struct self *s = arg;
	volatile uint64_t x = 1;

	prctl(PR_SET_NAME, "kp-hog");
	s->tid = (long)syscall(SYS_gettid);
	while (!atomic_load(&done))
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1;
	end_of(s);
	return NULL;
}

static void *sleeper(void *arg)
{
	struct self *s = arg;
	struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000 };

	prctl(PR_SET_NAME, "kp-sleeper");
	s->tid = (long)syscall(SYS_gettid);
	for (long r = 0; r < rounds; r++) {
		uint64_t t = ns_of(CLOCK_MONOTONIC);

		nanosleep(&ts, NULL);
		s->slept += ns_of(CLOCK_MONOTONIC) - t;
		spin((uint64_t)spin_ms * 1000000u);
	}
	end_of(s);
	atomic_store(&done, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu;
	struct self h = { 0 }, sl = { 0 };
	pthread_t th, ts;
	cpu_set_t set;

	rounds = argc > 1 ? atol(argv[1]) : rounds;
	sleep_ms = argc > 2 ? atol(argv[2]) : sleep_ms;
	spin_ms = argc > 3 ? atol(argv[3]) : spin_ms;
	cpu = argc > 4 ? atoi(argv[4]) : (int)(ncpu > 0 ? ncpu - 1 : 0);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* the threads inherit the main thread's CPU: pinned by an attribute, each would wait
	 * (sleeping) for its creator to pin it, a sleep outside its clocks */
	if (sched_setaffinity(0, sizeof(set), &set))
		return 1;
	h.created = ns_of(CLOCK_MONOTONIC);
	if (pthread_create(&th, NULL, hog, &h))
		return 1;
	sl.created = ns_of(CLOCK_MONOTONIC);
	if (pthread_create(&ts, NULL, sleeper, &sl))
		return 1;
	pthread_join(ts, NULL);
	pthread_join(th, NULL);
	printf("cpu=%d\nhog_tid=%ld\nhog_cpu_ns=%llu\nhog_wall_ns=%llu\nsleeper_tid=%ld\n"
	       "sleeper_cpu_ns=%llu\nsleeper_wall_ns=%llu\nsleeper_sleep_ns=%llu\n", cpu, h.tid,
	       (unsigned long long)h.cpu, (unsigned long long)h.wall, sl.tid,
	       (unsigned long long)sl.cpu, (unsigned long long)sl.wall,
	       (unsigned long long)sl.slept);
	return 0;
}

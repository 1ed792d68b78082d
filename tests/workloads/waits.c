/* SPDX-License-Identifier: MIT */
/*
 * waits.c - a thread whose wall time has a known split, for off-CPU and wall-clock profiles:
 * each round it spins in spin() for a known CPU time, sleeps in nap() (nanosleep), and blocks
 * in wait_pipe() on a pipe that a helper thread writes (in answer()) after its own sleep. Each function's
 * wall time is measured with CLOCK_MONOTONIC around its call; the program prints them, the
 * whole wall time of the rounds, the main thread's CPU time since it started
 * (CLOCK_THREAD_CPUTIME_ID) and its tid.
 *
 * usage: waits [ROUNDS] [SPIN_MS] [NAP_MS] [PIPE_MS]   (default 10 20 30 50)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clocks.h"

static int req[2], ans[2];
static long pipe_ms;

__attribute__((noinline)) static void spin(long ms)
{
	uint64_t end = ns_of(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)ms * 1000000u;
	volatile uint64_t x = 1;

	while (ns_of(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1;
}

__attribute__((noinline)) static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (sys3(SYS_nanosleep, (long)&ts, (long)&ts, 0) == -4) /* EINTR: the rest */
		;
}

__attribute__((noinline)) static void wait_pipe(void)
{
	char c = 1;

	if (sys3(SYS_write, req[1], (long)&c, 1) != 1 || sys3(SYS_read, ans[0], (long)&c, 1) != 1)
		exit(1);
}

/* The helper's answer, which wakes the main thread in wait_pipe(): the waker's stack. */
__attribute__((noinline)) static long answer(char c)
{
	return sys3(SYS_write, ans[1], (long)&c, 1);
}

/* The helper: for each request, sleep pipe_ms, then answer. */
static void *helper(void *arg)
{
	char c;

	(void)arg;
	while (read(req[0], &c, 1) == 1) {
		struct timespec ts = { pipe_ms / 1000, (pipe_ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
		if (answer(c) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 10, spin_ms = argc > 2 ? atol(argv[2]) : 20;
	long nap_ms = argc > 3 ? atol(argv[3]) : 30;
	uint64_t t_spin = 0, t_nap = 0, t_pipe = 0, t0, t;
	pthread_t th;

	pipe_ms = argc > 4 ? atol(argv[4]) : 50;
	if (pipe(req) || pipe(ans) || pthread_create(&th, NULL, helper, NULL))
		return 1;
	t0 = ns_of(CLOCK_MONOTONIC);
	for (long r = 0; r < rounds; r++) {
		t = ns_of(CLOCK_MONOTONIC);
		spin(spin_ms);
		t_spin += ns_of(CLOCK_MONOTONIC) - t;
		t = ns_of(CLOCK_MONOTONIC);
		nap(nap_ms);
		t_nap += ns_of(CLOCK_MONOTONIC) - t;
		t = ns_of(CLOCK_MONOTONIC);
		wait_pipe();
		t_pipe += ns_of(CLOCK_MONOTONIC) - t;
	}
	printf("wall_ns=%llu\nspin_ns=%llu\nnap_ns=%llu\nwait_pipe_ns=%llu\ncpu_ns=%llu\ntid=%ld\n",
	       (unsigned long long)(ns_of(CLOCK_MONOTONIC) - t0), (unsigned long long)t_spin,
	       (unsigned long long)t_nap, (unsigned long long)t_pipe,
	       (unsigned long long)ns_of(CLOCK_THREAD_CPUTIME_ID), (long)gettid());
	close(req[1]);
	pthread_join(th, NULL);
	return 0;
}

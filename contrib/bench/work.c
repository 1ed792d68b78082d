/* SPDX-License-Identifier: MIT */
/*
 * work.c - the benchmark's workloads, each a fixed amount of work (so that a profiler's cost
 * shows up as time), with a known split:
 *
 *   work split ROUNDS          work_a 60% (through via_left and via_right), work_b 30%,
 *                              work_c 10%; built twice, with and without frame pointers
 *   work deep ROUNDS DEPTH     the same split at the bottom of a DEPTH-deep recursion
 *   work threads N ROUNDS      N threads, each running split's rounds
 *   work forks N               N times fork + exec of /bin/true
 *   work children N ROUNDS     N forked children, each running split's rounds (no exec)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/workloads/split.h"

static void rounds(long n)
{
	for (long i = 0; i < n; i++)
		SPLIT_ROUND();
}

__attribute__((noinline)) static void deep(int depth, long n)
{
	if (depth > 0)
		deep(depth - 1, n);
	else
		rounds(n);
	sink += depth;
}

static void *thread_main(void *arg)
{
	rounds(*(long *)arg);
	return NULL;
}

static int threads(int nt, long n)
{
	pthread_t t[64];

	if (nt < 1 || nt > 64)
		return 2;
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, thread_main, &n);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int forks(int n)
{
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (p < 0 || waitpid(p, NULL, 0) < 0)
			return 1;
	}
	return 0;
}

/* Children that inherit the parent's image and run the split in it, as forking servers do. */
__attribute__((noinline)) static int children(int n, long r)
{
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			rounds(r);
			_exit(0);
		}
		if (p < 0)
			return 1;
	}
	while (wait(NULL) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "split"))
		rounds(atol(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "deep"))
		deep(atoi(argv[3]), atol(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "threads"))
		return threads(atoi(argv[2]), atol(argv[3]));
	else if (argc == 3 && !strcmp(argv[1], "forks"))
		return forks(atoi(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "children"))
		return children(atoi(argv[2]), atol(argv[3]));
	else {
		fprintf(stderr, "usage: work split ROUNDS | deep ROUNDS DEPTH | threads N ROUNDS | "
				"forks N | children N ROUNDS\n");
		return 2;
	}
	return 0;
}

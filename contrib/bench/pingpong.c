/* SPDX-License-Identifier: MIT */
/*
 * pingpong.c - a context-switch-heavy workload: two processes pass a byte back and forth over
 * two pipes, each blocking in read() until the other answers, so every round trip is two
 * switches out while blocked. It prints the round trips, the wall time and the rate of
 * switches (two a round trip) per second, for the cost of recording switches (--off-cpu).
 *
 * usage: pingpong [ROUND_TRIPS]   (default 200000)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* bounce FD_IN FD_OUT N: read a byte, write it back, N times (the answering side) */
static int bounce(int in, int out, long n)
{
	char c;

	for (long i = 0; i < n; i++)
		if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int ping[2], pong[2], status;
	uint64_t t0;
	pid_t pid;
	char c = 'x';

	if (n <= 0 || pipe(ping) || pipe(pong)) {
		fprintf(stderr, "usage: pingpong [ROUND_TRIPS > 0]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0)
		_exit(bounce(ping[0], pong[1], n));
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return perror("pingpong"), 1;
	double s = (double)(now_ns() - t0) / 1e9;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return fprintf(stderr, "pingpong: the answering process failed\n"), 1;
	printf("%ld round trips in %.3f s: %.0f switches/s\n", n, s, 2.0 * (double)n / s);
	return 0;
}

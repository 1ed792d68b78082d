/* SPDX-License-Identifier: MIT */
/*
 * syscalls.c - system calls of known counts and durations, for kprof trace and kprof latency:
 * GETUIDS getuid calls; nanosleep of 1, 5 and 20 ms, 20, 10 and 5 times, in a fixed
 * interleaved order; FAILS openat calls of a file that does not exist (ENOENT); and spin_for(),
 * a function (for a uprobe) that spins 200 us 30 times and 1 ms 10 times, without a system
 * call. Each nanosleep and spin_for() call is timed by CLOCK_MONOTONIC around it; the program
 * prints the counts, the sleeps' total, and each sleep's and each spin's length in ns, sorted,
 * for percentiles, and the lengths each was asked for, sorted: what a call took lies between
 * the two (preemption before or after it lengthens the first alone).
 *
 * usage: syscalls [GETUIDS] [FAILS] [ROUNDS]   (default 1000 7 5: ROUNDS of the 7 sleeps)
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void spin_for(long us)
{
	uint64_t end = now() + (uint64_t)us * 1000;
	volatile uint64_t x = 1;

	while (now() < end)
		x = x * 6364136223846793005ull + 1;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const long ms[] = { 1, 1, 5, 1, 1, 5, 20 }; /* 5 rounds: 20, 10 and 5 of each */
	long getuids = argc > 1 ? atol(argv[1]) : 1000, fails = argc > 2 ? atol(argv[2]) : 7;
	long rounds = argc > 3 ? atol(argv[3]) : 5;
	uint64_t lens[64], asked[64], total = 0;
	size_t n = 0;

	uint64_t t0 = now();

	for (long i = 0; i < getuids; i++)
		syscall(SYS_getuid);
	fprintf(stderr, "getuid calls in %.3f s\n", (now() - t0) / 1e9);
	for (long round = 0; round < rounds && round < 9; round++) /* 63 sleeps at most */
		for (size_t k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
			struct timespec ts = { 0, ms[k] * 1000000 };
			uint64_t t = now();
			syscall(SYS_nanosleep, &ts, NULL);
			asked[n] = (uint64_t)ms[k] * 1000000;
			lens[n] = now() - t;
			total += lens[n++];
		}
	for (long i = 0; i < fails; i++)
		if (syscall(SYS_openat, AT_FDCWD, "/nonexistent/kprof-syscalls", O_RDONLY) >= 0)
			return 1;
	uint64_t spins[40], spins_asked[40];
	for (int i = 0; i < 40; i++) {
		uint64_t t = now();
		long us = i % 4 == 3 ? 1000 : 200;

		spin_for(us);
		spins[i] = now() - t;
		spins_asked[i] = (uint64_t)us * 1000;
	}
	qsort(spins, 40, sizeof(spins[0]), cmp);
	qsort(spins_asked, 40, sizeof(spins_asked[0]), cmp);
	qsort(lens, n, sizeof(lens[0]), cmp);
	qsort(asked, n, sizeof(asked[0]), cmp);
	printf("getuid=%ld\nnanosleep=%zu\nopenat_enoent=%ld\nnanosleep_ns=%llu\n", getuids, n,
	       fails, (unsigned long long)total);
	printf("sleeps_ns=");
	for (size_t i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)lens[i]);
	printf("\nsleeps_asked_ns=");
	for (size_t i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)asked[i]);
	printf("\nspins_ns=");
	for (size_t i = 0; i < 40; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)spins[i]);
	printf("\nspins_asked_ns=");
	for (size_t i = 0; i < 40; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)spins_asked[i]);
	printf("\n");
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * deepstack.c - a stack of known depth and size, the subject of the tests of --call-graph
 * dwarf's copy size:
 *
 *   deepstack DEPTH SECONDS    DEPTH nested calls of recurse(), each frame holding a 256-byte
 *                              array (about 270 bytes a frame), then bottom() spins there for
 *                              SECONDS of the process's CPU time
 *
 * 64 deep, the stack below main is about 17 KiB: more than an 8 KiB copy holds, less than
 * 32 KiB. Built -O2 without frame pointers, as a distribution builds its programs; recurse()
 * and bottom() are neither inlined nor cloned, so that each call is one frame of that name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) static void bottom(double secs)
{
	double end = cpu_seconds() + secs;

	do {
		for (unsigned long i = 0; i < 100000; i++)
			sink += i;
	} while (cpu_seconds() < end);
}

__attribute__((noinline, noclone)) static unsigned long recurse(int depth, double secs)
{
	volatile unsigned char pad[256];

	pad[depth & 255] = (unsigned char)depth;
	if (depth > 1)
		sink += recurse(depth - 1, secs);
	else
		bottom(secs);
	return pad[depth & 255]; /* used after the call: no tail call, the frame stays */
}

int main(int argc, char **argv)
{
	char *end1, *end2;
	long depth = argc == 3 ? strtol(argv[1], &end1, 10) : 0;
	double secs = argc == 3 ? strtod(argv[2], &end2) : 0;

	if (argc != 3 || *end1 || *end2 || depth < 1 || depth > 10000 || secs < 0) {
		fprintf(stderr, "usage: deepstack DEPTH SECONDS\n");
		return 2;
	}
	sink += recurse((int)depth, secs);
	return 0;
}

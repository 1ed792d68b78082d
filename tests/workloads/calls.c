/* SPDX-License-Identifier: MIT */
/*
 * calls.c - calls a function an exact number of times, the subject of the uprobe tests
 * (uprobe:calls:calls_target counts exactly N).
 *
 *   calls N           call calls_target() N times
 *   calls N getpid    call libc's getpid() N times as well, through a function pointer
 *
 * It prints "calls_target 0xADDR" first: the function's run-time address, which a sampled
 * uprobe's IP must equal. calls_target is neither inlined nor cloned (a clone would get a
 * name like calls_target.constprop.0), so the symbol is the code that runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

volatile unsigned long calls_sink;

__attribute__((noinline, noclone)) void calls_target(unsigned long i)
{
	calls_sink += i;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	/* volatile: the compiler must call through it, into libc, every time */
	pid_t (*volatile get)(void) = getpid;
	char *end;
	unsigned long n;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "getpid"))) {
		fprintf(stderr, "usage: calls N [getpid]\n");
		return 2;
	}
	n = strtoul(argv[1], &end, 10);
	if (*end || end == argv[1]) {
		fprintf(stderr, "calls: '%s' is not a number\n", argv[1]);
		return 2;
	}
	printf("calls_target %p\n", (void *)calls_target);
	fflush(stdout);
	for (unsigned long i = 0; i < n; i++)
		calls_target(i);
	if (argc == 3)
		for (unsigned long i = 0; i < n; i++)
			get();
	return 0;
}

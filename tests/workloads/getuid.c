/* SPDX-License-Identifier: MIT */
/*
 * getuid.c - makes an exact number of getuid() system calls, the subject of the tracepoint
 * tests (syscalls:sys_enter_getuid counts exactly N).
 *
 *   getuid N          make N getuid() calls and exit
 *   getuid N wait     print "ready" once SIGUSR1 is blocked, wait for it (time for
 *                     attaching with -p), then make them
 *
 * The calls go through syscall(SYS_getuid), so that no libc can answer from a cache. Nothing
 * else in the program calls getuid, and the dynamic loader takes the secure-mode flag from
 * the auxiliary vector, not from getuid().
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	unsigned long n;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "wait"))) {
		fprintf(stderr, "usage: getuid N [wait]\n");
		return 2;
	}
	n = strtoul(argv[1], &end, 10);
	if (*end || end == argv[1]) {
		fprintf(stderr, "getuid: '%s' is not a number\n", argv[1]);
		return 2;
	}
	if (argc == 3) {
		sigset_t set;
		int sig;

		/* blocked before anyone can send it, so an early SIGUSR1 stays pending */
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready\n");
		fflush(stdout);
		if (sigwait(&set, &sig))
			return 1;
	}
	for (unsigned long i = 0; i < n; i++)
		syscall(SYS_getuid);
	return 0;
}

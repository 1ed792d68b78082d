/* SPDX-License-Identifier: MIT */
/*
 * clocks.h - what the workloads that measure themselves share: a clock read in ns, and a
 * system call made from the calling function itself, so that a frame-pointer call chain taken
 * in the kernel names that function (a libc wrapper without a frame would hide its caller).
 */
#ifndef KP_WORKLOADS_CLOCKS_H
#define KP_WORKLOADS_CLOCKS_H

#include <stdint.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Inlined into its caller: the syscall instruction is in that function's code. */
static inline __attribute__((always_inline)) long sys3(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return syscall(nr, a, b, c);
#endif
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * syscall.h - system call names and numbers of the machine kprof is built for, from the
 * kernel's own <asm/unistd.h> (the __NR_ constants, as strace and perf take them), and the
 * names of error numbers.
 */
#ifndef KP_SYSCALL_H
#define KP_SYSCALL_H

#include <stdbool.h>

/* kp_syscall_name - the name of system call @nr, or NULL when there is none of that number. */
const char *kp_syscall_name(long nr);

/* kp_syscall_nr - the number of the system call called @name, or -1. */
long kp_syscall_nr(const char *name);

/* kp_syscall_max - one more than the largest system call number known. */
long kp_syscall_max(void);

/* kp_syscall_never_returns - @nr ends the thread (exit, exit_group): its entry has no exit. */
bool kp_syscall_never_returns(long nr);

/* kp_errno_name - "ENOENT" for 2, or NULL for a number that names no error. */
const char *kp_errno_name(long err);

#endif /* KP_SYSCALL_H */

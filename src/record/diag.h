/* SPDX-License-Identifier: MIT */
/*
 * diag.h - the only place that prints diagnostics. Messages follow git's rules: lowercase,
 * what failed first, the subject in quotes, then why; `hint:` lines give a known fix.
 */
#ifndef KP_DIAG_H
#define KP_DIAG_H

#include <stdnoreturn.h>

#define KP_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* kp_error - "kprof: <msg>" on stderr; returns 1, the failure exit code. */
int kp_error(const char *fmt, ...) KP_PRINTF(1, 2);
/* kp_warn - "kprof: warning: <msg>" */
void kp_warn(const char *fmt, ...) KP_PRINTF(1, 2);
/* kp_notice - "kprof: <msg>" for things the user should know that are not problems */
void kp_notice(const char *fmt, ...) KP_PRINTF(1, 2);
/* kp_hint - "hint: <msg>" after an error */
void kp_hint(const char *fmt, ...) KP_PRINTF(1, 2);
/* kp_usage_error - "kprof <cmd>: <msg>" plus a pointer to --help; returns 2 */
int kp_usage_error(const char *cmd, const char *fmt, ...) KP_PRINTF(2, 3);
/* kp_die - kp_error() and exit(1) */
noreturn void kp_die(const char *fmt, ...) KP_PRINTF(1, 2);

#endif /* KP_DIAG_H */

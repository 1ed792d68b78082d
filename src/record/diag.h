/* SPDX-License-Identifier: MIT */
/*
 * diag.h - how the engine and the commands say what went wrong. Messages follow git's rules:
 * lowercase, what failed first, the subject in quotes, then why; `hint:` lines give a known
 * fix. Each goes, as one line without its prefix, to the program's sink (libperf's and
 * libbpf's print callback): stderr with "kprof: " by default, or what kp_diag_set_sink()
 * installs. Usage errors, which name a command's --help, are the commands' own
 * (kp_usage_error()).
 */
#ifndef KP_DIAG_H
#define KP_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdnoreturn.h>

#define KP_PRINTF(a, b) __attribute__((format(printf, a, b)))

enum kp_diag_kind { KP_DIAG_ERROR, KP_DIAG_WARNING, KP_DIAG_NOTICE, KP_DIAG_HINT };

/* kp_diag_set_sink - where every message goes from now on; NULL for stderr. */
typedef void kp_diag_sink(enum kp_diag_kind kind, const char *msg);
void kp_diag_set_sink(kp_diag_sink *sink);

/* kp_error - "kprof: <msg>" on stderr; returns 1, the failure exit code. */
int kp_error(const char *fmt, ...) KP_PRINTF(1, 2);
/* kp_warn - "kprof: warning: <msg>" */
void kp_warn(const char *fmt, ...) KP_PRINTF(1, 2);
/* kp_notice - "kprof: <msg>" for things the user should know that are not problems */
void kp_notice(const char *fmt, ...) KP_PRINTF(1, 2);
/* kp_hint - "hint: <msg>" after an error */
void kp_hint(const char *fmt, ...) KP_PRINTF(1, 2);
/*
 * kp_hint_nearest - "hint: did you mean 'X'?" for the names of @names (up to five) closest
 * to @name by edit distance, if any is close; returns whether it printed one.
 */
bool kp_hint_nearest(const char *name, const char *const *names, size_t nr);
/* kp_die - kp_error() and exit(1) */
noreturn void kp_die(const char *fmt, ...) KP_PRINTF(1, 2);

#endif /* KP_DIAG_H */

/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a minimal TAP producer for the unit tests (run under Automake's tap-driver.sh).
 * ok() and is_u64() print "ok N - name" or "not ok N - name" with the operands; tap_done()
 * prints the plan and returns the exit code.
 */
#ifndef KP_TAP_H
#define KP_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

#define is_u64(got, want, ...)                                                             \
	do {                                                                               \
		uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                      \
		if (!ok(g_ == w_, __VA_ARGS__))                                            \
			printf("#   got %" PRIu64 ", want %" PRIu64 " (%s vs %s)\n", g_, w_,   \
			       #got, #want);                                               \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* KP_TAP_H */

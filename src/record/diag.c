/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define SAY(prefix)                        \
	do {                               \
		va_list ap;                \
		va_start(ap, fmt);         \
		vsay(prefix, fmt, ap);     \
		va_end(ap);                \
	} while (0)

int kp_error(const char *fmt, ...)
{
	SAY("kprof: ");
	return 1;
}

void kp_warn(const char *fmt, ...)
{
	SAY("kprof: warning: ");
}

void kp_notice(const char *fmt, ...)
{
	SAY("kprof: ");
}

void kp_hint(const char *fmt, ...)
{
	SAY("hint: ");
}

int kp_usage_error(const char *cmd, const char *fmt, ...)
{
	fprintf(stderr, "kprof %s: ", cmd);
	SAY("");
	fprintf(stderr, "see 'kprof %s --help'\n", cmd);
	return 2;
}

noreturn void kp_die(const char *fmt, ...)
{
	SAY("kprof: ");
	exit(1);
}

/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const prefixes[] = {
	[KP_DIAG_ERROR] = "kprof: ",
	[KP_DIAG_WARNING] = "kprof: warning: ",
	[KP_DIAG_NOTICE] = "kprof: ",
	[KP_DIAG_HINT] = "hint: ",
};

static kp_diag_sink *sink;

void kp_diag_set_sink(kp_diag_sink *fn)
{
	sink = fn;
}

static void vsay(enum kp_diag_kind kind, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (sink) {
		sink(kind, msg);
		return;
	}
	fflush(stdout);
	fprintf(stderr, "%s%s\n", prefixes[kind], msg);
}

#define SAY(kind)                          \
	do {                               \
		va_list ap;                \
		va_start(ap, fmt);         \
		vsay(kind, fmt, ap);       \
		va_end(ap);                \
	} while (0)

int kp_error(const char *fmt, ...)
{
	SAY(KP_DIAG_ERROR);
	return 1;
}

void kp_warn(const char *fmt, ...)
{
	SAY(KP_DIAG_WARNING);
}

void kp_notice(const char *fmt, ...)
{
	SAY(KP_DIAG_NOTICE);
}

void kp_hint(const char *fmt, ...)
{
	SAY(KP_DIAG_HINT);
}

noreturn void kp_die(const char *fmt, ...)
{
	SAY(KP_DIAG_ERROR);
	exit(1);
}

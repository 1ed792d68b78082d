/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/text.h"

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
	char raw[4096], msg[4 * sizeof(raw)];

	/* names from recordings and the system (comms, paths, JIT names) are said escaped, as
	 * every text view writes them: none reaches the terminal as a control character */
	vsnprintf(raw, sizeof(raw), fmt, ap);
	kp_text_escape(raw, msg, sizeof(msg));
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

/* Levenshtein distance, for suggesting the names closest to a misspelt one. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], prev, tmp;

	if (lb >= ARRAY_SIZE(row))
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

bool kp_hint_nearest(const char *name, const char *const *names, size_t nr)
{
	size_t best = (size_t)-1, shown = 0;

	for (size_t i = 0; i < nr; i++) {
		size_t d = edit_distance(name, names[i]);
		best = d < best ? d : best;
	}
	if (best == (size_t)-1 || (best > 3 && best > strlen(name) / 2))
		return false;
	for (size_t i = 0; i < nr && shown < 5; i++) {
		bool dup = false;
		if (edit_distance(name, names[i]) != best)
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = !strcmp(names[j], names[i]);
		if (!dup) {
			kp_hint("did you mean '%s'?", names[i]);
			shown++;
		}
	}
	return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * fetch.c - a command's debuginfod client, and its progress on a terminal (see fetch.h).
 */
#include "fetch.h"

#include <stdio.h>
#include <unistd.h>

/* How much of the file has come, from where, on one line that the next overwrites; the line
 * cleared when the fetch is over. */
static void progress(void *ctx, const char *url, long have, long total)
{
	(void)ctx;
	if (!url)
		fputs("\r\033[K", stderr);
	else if (total > 0)
		fprintf(stderr, "\r\033[Kkprof: debuginfod: %s: %ld of %ld KiB", url, have >> 10,
			total >> 10);
	else
		fprintf(stderr, "\r\033[Kkprof: debuginfod: %s: %ld KiB", url, have >> 10);
}

struct kp_debuginfod *kp_fetch_client(void)
{
	struct kp_debuginfod *c = kp_debuginfod_new();

	if (isatty(STDERR_FILENO))
		kp_debuginfod_on_progress(c, progress, NULL);
	return c;
}

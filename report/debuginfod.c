/* SPDX-License-Identifier: MIT */
/*
 * debuginfod.c - libdebuginfod, loaded on first use, one client for the process (see
 * debuginfod.h).
 */
#include "debuginfod.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEBUGINFOD_SONAME "libdebuginfod.so.1"

static struct {
	debuginfod_client *(*begin)(void);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	const char *(*get_url)(debuginfod_client *);
} lib;

static debuginfod_client *client;
static bool disabled, tried, down, progress_shown;
static unsigned fetched;
static char failure[512];

void kp_debuginfod_disable(void)
{
	disabled = true;
	unsetenv("DEBUGINFOD_URLS"); /* and libdw, whose own client reads it, asks nothing */
}

bool kp_debuginfod_enabled(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return !disabled && !down && urls && *urls;
}

/* One function by name into its slot: dlsym's void * is the function (POSIX). */
static bool sym(void *h, const char *name, void *slot)
{
	void *f = dlsym(h, name);

	memcpy(slot, &f, sizeof(f));
	return f != NULL;
}

/* On a terminal: how much of the file has come, from where. */
static int progress(debuginfod_client *c, long a, long b)
{
	const char *url = lib.get_url ? lib.get_url(c) : NULL;

	if (b > 0)
		fprintf(stderr, "\r\033[Kkprof: debuginfod: %s: %ld of %ld KiB", url ? url : "",
			a >> 10, b >> 10);
	else
		fprintf(stderr, "\r\033[Kkprof: debuginfod: %s: %ld KiB", url ? url : "", a >> 10);
	progress_shown = true;
	return 0;
}

/* The client, made on the first fetch; NULL when the library cannot be had (said once). */
static debuginfod_client *get_client(void)
{
	void *h;

	if (tried)
		return client;
	tried = true;
	h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h || !sym(h, "debuginfod_begin", &lib.begin) ||
	    !sym(h, "debuginfod_find_executable", &lib.find_executable) ||
	    !sym(h, "debuginfod_find_debuginfo", &lib.find_debuginfo) ||
	    !sym(h, "debuginfod_set_progressfn", &lib.set_progressfn)) {
		snprintf(failure, sizeof(failure),
			 "cannot load %s: %s (install the Debian package 'libdebuginfod1')",
			 DEBUGINFOD_SONAME, h ? "a function is missing" : dlerror());
		down = true;
		return NULL;
	}
	sym(h, "debuginfod_get_url", &lib.get_url); /* optional: progress names the server */
	client = lib.begin();
	if (client && isatty(STDERR_FILENO))
		lib.set_progressfn(client, progress);
	if (!client) {
		snprintf(failure, sizeof(failure), "debuginfod: no client: %s", strerror(errno));
		down = true;
	}
	return client;
}

int kp_debuginfod_find(enum kp_debuginfod_kind kind, const uint8_t *bid, size_t len,
		       char **path)
{
	debuginfod_client *c;
	int fd;

	*path = NULL;
	if (!kp_debuginfod_enabled() || !len || !(c = get_client()))
		return -1;
	fd = kind == KP_DEBUGINFOD_EXECUTABLE ? lib.find_executable(c, bid, (int)len, path)
					      : lib.find_debuginfo(c, bid, (int)len, path);
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		progress_shown = false;
	}
	if (fd >= 0) {
		fetched++;
		return fd;
	}
	free(*path);
	*path = NULL;
	/* -ENOENT: the servers answered that they have no such file; anything else is theirs */
	if (fd != -ENOENT && fd != -ENOSYS) {
		snprintf(failure, sizeof(failure), "debuginfod at %s did not answer: %s",
			 getenv("DEBUGINFOD_URLS"), strerror(-fd));
		down = true;
	}
	return -1;
}

unsigned kp_debuginfod_fetched(void)
{
	return fetched;
}

bool kp_debuginfod_failure(char *buf, size_t size)
{
	if (!*failure)
		return false;
	snprintf(buf, size, "%s", failure);
	return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * debuginfod.c - libdebuginfod, loaded on first use, one client for the process (see
 * debuginfod.h).
 */
#include "debuginfod.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats/util.h"

#define DEBUGINFOD_SONAME "libdebuginfod.so.1"
/* What all of a process's queries together may take, in seconds, unless $DEBUGINFOD_TIMEOUT
 * says otherwise: a server that accepts and never answers costs this, not 90 s a query. */
#define BUDGET_DEFAULT 5
#define NAMES_SHOWN 3	/* the binaries not fetched that a warning names */

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
static double spent;		/* seconds waited on the servers so far */
static bool timed_out;		/* a query was cut at the deadline, or none was left */
static unsigned not_fetched;	/* files not fetched since the servers failed or time ran out */
static char not_fetched_names[NAMES_SHOWN * 160];

void kp_debuginfod_disable(void)
{
	disabled = true;
	unsetenv("DEBUGINFOD_URLS"); /* and libdw, whose own client reads it, asks nothing */
}

bool kp_debuginfod_enabled(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return !disabled && urls && *urls;
}

/* The seconds all queries together may take: $DEBUGINFOD_TIMEOUT, else BUDGET_DEFAULT; 0 for
 * no limit ($DEBUGINFOD_TIMEOUT 0 or less, "no timeout" to libdebuginfod too). */
static long budget(void)
{
	const char *v = getenv("DEBUGINFOD_TIMEOUT");
	char *end;
	long n = v ? strtol(v, &end, 10) : 0;

	if (!v || end == v || *end)
		return BUDGET_DEFAULT;
	return n > 0 ? n : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The file of @kind for the binary @name, not fetched: counted, and the first few named. */
static void note_not_fetched(enum kp_debuginfod_kind kind, const char *name)
{
	size_t used = strlen(not_fetched_names);

	if (not_fetched++ < NAMES_SHOWN)
		snprintf(not_fetched_names + used, sizeof(not_fetched_names) - used, "%s%s of '%s'",
			 used ? ", " : "", kind == KP_DEBUGINFOD_EXECUTABLE ? "the binary"
									  : "the debug file",
			 name);
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
	const struct kp_dl_fn fns[] = {
		{ "debuginfod_begin", &lib.begin },
		{ "debuginfod_find_executable", &lib.find_executable },
		{ "debuginfod_find_debuginfo", &lib.find_debuginfo },
		{ "debuginfod_set_progressfn", &lib.set_progressfn },
	}, url = { "debuginfod_get_url", &lib.get_url };
	void *h;

	if (tried)
		return client;
	tried = true;
	h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h || kp_dlsyms(h, fns, ARRAY_SIZE(fns))) {
		snprintf(failure, sizeof(failure),
			 "cannot load %s: %s (install the Debian package 'libdebuginfod1')",
			 DEBUGINFOD_SONAME, h ? "a function is missing" : dlerror());
		down = true;
		return NULL;
	}
	kp_dlsyms(h, &url, 1); /* optional: progress names the server */
	client = lib.begin();
	if (client && isatty(STDERR_FILENO))
		lib.set_progressfn(client, progress);
	if (!client) {
		snprintf(failure, sizeof(failure), "debuginfod: no client: %s", strerror(errno));
		down = true;
	}
	return client;
}

/* $@name set to @value until env_pop() puts back what it was (returned: malloc'ed, or NULL). */
static char *env_push(const char *name, const char *value)
{
	const char *was = getenv(name);
	char *saved = was ? kp_xstrdup(was) : NULL;

	setenv(name, value, 1);
	return saved;
}

static void env_pop(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	free(saved);
}

/*
 * One try of a query, cut when the @left seconds left run out: libdebuginfod's own limit on a
 * query's time, $DEBUGINFOD_MAXTIME (whole seconds; the user's own if less), set for the call.
 * A query cut there leaves no "not found" in the cache, as a progress callback's cancel would
 * (for ten minutes). Its retries are made here, where they count against the time left:
 * libdebuginfod's would start each with the whole limit again.
 */
static int query(debuginfod_client *c, enum kp_debuginfod_kind kind, const uint8_t *bid,
		 size_t len, char **path, long left)
{
	const char *user = getenv("DEBUGINFOD_MAXTIME");
	long mine = left > 1 ? left - 1 : 1; /* it gives up in the second after that */
	char value[32], *maxtime = NULL, *retries = env_push("DEBUGINFOD_RETRY_LIMIT", "0");
	bool limited = left != LONG_MAX;
	int fd;

	if (user && atol(user) > 0 && atol(user) < mine)
		mine = atol(user);
	snprintf(value, sizeof(value), "%ld", mine);
	if (limited)
		maxtime = env_push("DEBUGINFOD_MAXTIME", value);
	fd = kind == KP_DEBUGINFOD_EXECUTABLE ? lib.find_executable(c, bid, (int)len, path)
					      : lib.find_debuginfo(c, bid, (int)len, path);
	if (limited)
		env_pop("DEBUGINFOD_MAXTIME", maxtime);
	env_pop("DEBUGINFOD_RETRY_LIMIT", retries);
	return fd;
}

/* The seconds left to the queries: LONG_MAX when there is no limit. */
static long time_left(void)
{
	return budget() ? (long)((double)budget() - spent) : LONG_MAX;
}

int kp_debuginfod_find(enum kp_debuginfod_kind kind, const uint8_t *bid, size_t len,
		       const char *name, char **path)
{
	const char *v = getenv("DEBUGINFOD_RETRY_LIMIT");
	int tries = (v ? atoi(v) : 2) + 1, fd; /* libdebuginfod's default: 2 retries */
	debuginfod_client *c;
	double t0;

	*path = NULL;
	if (!kp_debuginfod_enabled() || !len)
		return -1;
	if (down || timed_out || time_left() < 1) {
		timed_out = timed_out || !down;
		note_not_fetched(kind, name);
		return -1;
	}
	if (!(c = get_client()))
		return -1;
	do {
		free(*path);
		*path = NULL;
		t0 = now();
		fd = query(c, kind, bid, len, path, time_left());
		spent += now() - t0;
		/* -ENOENT: the servers answered that they have no such file; anything else is
		 * theirs, and tried again while there is time */
	} while (fd < 0 && fd != -ENOENT && fd != -ENOSYS && fd != -ETIME && --tries > 0 &&
		 time_left() >= 1);
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
	if (fd == -ENOENT || fd == -ENOSYS)
		return -1;
	if (fd == -ETIME && budget())
		snprintf(failure, sizeof(failure),
			 "debuginfod at %s did not answer within the %ld s a report gives it "
			 "(DEBUGINFOD_TIMEOUT sets it)", getenv("DEBUGINFOD_URLS"), budget());
	else
		snprintf(failure, sizeof(failure), "debuginfod at %s did not answer: %s",
			 getenv("DEBUGINFOD_URLS"), strerror(-fd));
	down = true;
	note_not_fetched(kind, name);
	return -1;
}

unsigned kp_debuginfod_fetched(void)
{
	return fetched;
}

bool kp_debuginfod_failure(char *buf, size_t size)
{
	char more[32] = "";

	if (!*failure && timed_out)
		snprintf(failure, sizeof(failure), "the %ld s a report gives debuginfod "
			 "(DEBUGINFOD_TIMEOUT sets it) ran out after %u files fetched", budget(),
			 fetched);
	if (!*failure)
		return false;
	if (not_fetched > NAMES_SHOWN)
		snprintf(more, sizeof(more), " and %u more", not_fetched - NAMES_SHOWN);
	snprintf(buf, size, "%s%s%s%s", failure, not_fetched ? ": not fetched: " : "",
		 not_fetched_names, more);
	return true;
}

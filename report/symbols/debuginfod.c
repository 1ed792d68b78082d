/* SPDX-License-Identifier: MIT */
/*
 * debuginfod.c - libdebuginfod, loaded on a client's first fetch (see debuginfod.h).
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

struct kp_debuginfod {
	struct {
		debuginfod_client *(*begin)(void);
		void (*end)(debuginfod_client *);
		int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
		int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
		void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
		void (*set_user_data)(debuginfod_client *, void *);
		void *(*get_user_data)(debuginfod_client *);
		const char *(*get_url)(debuginfod_client *);
	} lib;
	debuginfod_client *client;
	kp_debuginfod_progress_fn *progress;	/* kp_debuginfod_on_progress() */
	void *progress_ctx;
	bool disabled, tried, down, progress_shown;
	unsigned fetched;
	char failure[512];
	double spent;		/* seconds waited on the servers so far */
	bool timed_out;		/* a query was cut at the deadline, or none was left */
	unsigned not_fetched;	/* files not fetched since the servers failed or time ran out */
	char not_fetched_names[NAMES_SHOWN * 160];
};

struct kp_debuginfod *kp_debuginfod_new(void)
{
	return kp_xcalloc(1, sizeof(struct kp_debuginfod));
}

void kp_debuginfod_free(struct kp_debuginfod *c)
{
	if (!c)
		return;
	if (c->client && c->lib.end)
		c->lib.end(c->client);
	free(c);
}

void kp_debuginfod_on_progress(struct kp_debuginfod *c, kp_debuginfod_progress_fn *fn,
			       void *ctx)
{
	c->progress = fn;
	c->progress_ctx = ctx;
}

void kp_debuginfod_disable(struct kp_debuginfod *c)
{
	c->disabled = true;
	unsetenv("DEBUGINFOD_URLS"); /* and libdw, whose own client reads it, asks nothing */
}

bool kp_debuginfod_enabled(const struct kp_debuginfod *c)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return c && !c->disabled && urls && *urls;
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
static void note_not_fetched(struct kp_debuginfod *c, enum kp_debuginfod_kind kind,
			     const char *name)
{
	size_t used = strlen(c->not_fetched_names);

	if (c->not_fetched++ < NAMES_SHOWN)
		snprintf(c->not_fetched_names + used, sizeof(c->not_fetched_names) - used,
			 "%s%s of '%s'",
			 used ? ", " : "", kind == KP_DEBUGINFOD_EXECUTABLE ? "the binary"
									  : "the debug file",
			 name);
}

/*
 * The kp_debuginfod of libdebuginfod's client @dc, its user data: read through the library's
 * own handle, as a progress callback is given nothing else.
 */
static struct kp_debuginfod *owner(debuginfod_client *dc)
{
	void *h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_NOLOAD);
	void *(*get_user_data)(debuginfod_client *);
	const struct kp_dl_fn fn = { "debuginfod_get_user_data", &get_user_data };
	struct kp_debuginfod *c = NULL;

	if (h && !kp_dlsyms(h, &fn, 1))
		c = get_user_data(dc);
	if (h)
		dlclose(h);
	return c;
}

/* How much of the file has come, from where: to the kp_debuginfod_on_progress() function. */
static int progress(debuginfod_client *dc, long a, long b)
{
	struct kp_debuginfod *c = owner(dc);
	const char *url;

	if (!c || !c->progress)
		return 0;
	url = c->lib.get_url ? c->lib.get_url(dc) : NULL;
	c->progress(c->progress_ctx, url ? url : "", a, b);
	c->progress_shown = true;
	return 0;
}

/* The client, made on the first fetch; NULL when the library cannot be had (said once). */
static debuginfod_client *get_client(struct kp_debuginfod *c)
{
	const struct kp_dl_fn fns[] = {
		{ "debuginfod_begin", &c->lib.begin },
		{ "debuginfod_find_executable", &c->lib.find_executable },
		{ "debuginfod_find_debuginfo", &c->lib.find_debuginfo },
		{ "debuginfod_set_progressfn", &c->lib.set_progressfn },
	}, optional[] = {
		{ "debuginfod_get_url", &c->lib.get_url },
		{ "debuginfod_end", &c->lib.end },
		{ "debuginfod_set_user_data", &c->lib.set_user_data },
	};
	void *h;

	if (c->tried)
		return c->client;
	c->tried = true;
	h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h || kp_dlsyms(h, fns, ARRAY_SIZE(fns))) {
		snprintf(c->failure, sizeof(c->failure),
			 "cannot load %s: %s (install the Debian package 'libdebuginfod1')",
			 DEBUGINFOD_SONAME, h ? "a function is missing" : dlerror());
		c->down = true;
		return NULL;
	}
	/* optional: progress names the server, and finds its kp_debuginfod by the user data */
	for (size_t i = 0; i < ARRAY_SIZE(optional); i++)
		kp_dlsyms(h, &optional[i], 1);
	c->client = c->lib.begin();
	if (c->client && c->progress && c->lib.set_user_data) {
		c->lib.set_user_data(c->client, c);
		c->lib.set_progressfn(c->client, progress);
	}
	if (!c->client) {
		snprintf(c->failure, sizeof(c->failure), "debuginfod: no client: %s",
			 strerror(errno));
		c->down = true;
	}
	return c->client;
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
static int query(struct kp_debuginfod *c, enum kp_debuginfod_kind kind, const uint8_t *bid,
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
	fd = kind == KP_DEBUGINFOD_EXECUTABLE
		     ? c->lib.find_executable(c->client, bid, (int)len, path)
		     : c->lib.find_debuginfo(c->client, bid, (int)len, path);
	if (limited)
		env_pop("DEBUGINFOD_MAXTIME", maxtime);
	env_pop("DEBUGINFOD_RETRY_LIMIT", retries);
	return fd;
}

/* The seconds left to the queries: LONG_MAX when there is no limit. */
static long time_left(const struct kp_debuginfod *c)
{
	return budget() ? (long)((double)budget() - c->spent) : LONG_MAX;
}

int kp_debuginfod_find(struct kp_debuginfod *c, enum kp_debuginfod_kind kind, const uint8_t *bid,
		       size_t len, const char *name, char **path)
{
	const char *v = getenv("DEBUGINFOD_RETRY_LIMIT");
	int tries = (v ? atoi(v) : 2) + 1, fd; /* libdebuginfod's default: 2 retries */
	double t0;

	*path = NULL;
	if (!kp_debuginfod_enabled(c) || !len)
		return -1;
	if (c->down || c->timed_out || time_left(c) < 1) {
		c->timed_out = c->timed_out || !c->down;
		note_not_fetched(c, kind, name);
		return -1;
	}
	if (!get_client(c))
		return -1;
	do {
		free(*path);
		*path = NULL;
		t0 = now();
		fd = query(c, kind, bid, len, path, time_left(c));
		c->spent += now() - t0;
		/* -ENOENT: the servers answered that they have no such file; anything else is
		 * theirs, and tried again while there is time */
	} while (fd < 0 && fd != -ENOENT && fd != -ENOSYS && fd != -ETIME && --tries > 0 &&
		 time_left(c) >= 1);
	if (c->progress_shown) { /* the fetch is over: what showed its progress goes */
		c->progress(c->progress_ctx, NULL, -1, -1);
		c->progress_shown = false;
	}
	if (fd >= 0) {
		c->fetched++;
		return fd;
	}
	free(*path);
	*path = NULL;
	if (fd == -ENOENT || fd == -ENOSYS)
		return -1;
	if (fd == -ETIME && budget())
		snprintf(c->failure, sizeof(c->failure),
			 "debuginfod at %s did not answer within the %ld s a report gives it "
			 "(DEBUGINFOD_TIMEOUT sets it)", getenv("DEBUGINFOD_URLS"), budget());
	else
		snprintf(c->failure, sizeof(c->failure), "debuginfod at %s did not answer: %s",
			 getenv("DEBUGINFOD_URLS"), strerror(-fd));
	c->down = true;
	note_not_fetched(c, kind, name);
	return -1;
}

unsigned kp_debuginfod_fetched(const struct kp_debuginfod *c)
{
	return c ? c->fetched : 0;
}

bool kp_debuginfod_failure(struct kp_debuginfod *c, char *buf, size_t size)
{
	char more[32] = "";

	if (!c)
		return false;
	if (!*c->failure && c->timed_out)
		snprintf(c->failure, sizeof(c->failure), "the %ld s a report gives debuginfod "
			 "(DEBUGINFOD_TIMEOUT sets it) ran out after %u files fetched", budget(),
			 c->fetched);
	if (!*c->failure)
		return false;
	if (c->not_fetched > NAMES_SHOWN)
		snprintf(more, sizeof(more), " and %u more", c->not_fetched - NAMES_SHOWN);
	snprintf(buf, size, "%s%s%s%s", c->failure, c->not_fetched ? ": not fetched: " : "",
		 c->not_fetched_names, more);
	return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * debuginfod.h - binaries and debug files fetched by build-id from the servers that
 * $DEBUGINFOD_URLS names, through libdebuginfod, into the library's own cache
 * ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client).
 *
 * libdebuginfod is loaded on first use (it brings libcurl and about 30 libraries, tens of ms
 * a report would otherwise pay at start), and only when a server is set and a binary or its
 * debug file is missing here. A command makes one client (struct kp_debuginfod) and lends it
 * to the DSO tables it opens (kp_dso_opts.debuginfod); a fetch's progress goes to the function
 * the command gives (kp_debuginfod_on_progress()). All the queries of one client together take
 * at most $DEBUGINFOD_TIMEOUT seconds (libdebuginfod's own variable, there a limit on each
 * query's start; 5 s when unset, none when 0): a query still waiting then is cut, and no
 * other is made. A server that fails to answer (refused, unreachable, out of time) is asked
 * nothing more: it costs one failure, not one per binary, and kp_debuginfod_failure() says
 * which server, why, and which files were not fetched.
 */
#ifndef KP_DEBUGINFOD_H
#define KP_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kp_debuginfod;

/* kp_debuginfod_new - a client, which loads nothing before its first fetch (never fails:
 * aborts on OOM); kp_debuginfod_free - the client and what it holds freed (NULL: nothing). */
struct kp_debuginfod *kp_debuginfod_new(void);
void kp_debuginfod_free(struct kp_debuginfod *c);

/*
 * kp_debuginfod_progress_fn - how much of a file has come from the server at @url: @have
 * bytes of @total (0 or less: unknown); called again with @url NULL when the fetch is over,
 * for what showed its progress to go.
 */
typedef void kp_debuginfod_progress_fn(void *ctx, const char *url, long have, long total);

/* kp_debuginfod_on_progress - the fetches of @c from now on call @fn(@ctx, ...) as they go
 * (a command: on a terminal). */
void kp_debuginfod_on_progress(struct kp_debuginfod *c, kp_debuginfod_progress_fn *fn,
			       void *ctx);

/* kp_debuginfod_disable - @c asks no server (--no-debuginfod), nor does libdw's own client:
 * $DEBUGINFOD_URLS is dropped for the rest of this process. */
void kp_debuginfod_disable(struct kp_debuginfod *c);

/* kp_debuginfod_enabled - whether a server is set and @c (NULL: none) may ask it. */
bool kp_debuginfod_enabled(const struct kp_debuginfod *c);

/* What to fetch: the binary itself, or its separate debug file. */
enum kp_debuginfod_kind { KP_DEBUGINFOD_EXECUTABLE, KP_DEBUGINFOD_DEBUGINFO };

/*
 * kp_debuginfod_find - the file of @kind for build-id @bid (@len bytes) of the binary @name
 * (its path, for the warning that names what was not fetched) from @c's servers: an fd on it
 * (the caller's) and its path in the cache into *@path (malloc'ed), or -1 when no server has
 * it, none is set, they failed to answer, or the time for queries ran out.
 */
int kp_debuginfod_find(struct kp_debuginfod *c, enum kp_debuginfod_kind kind, const uint8_t *bid,
		       size_t len, const char *name, char **path);

/* kp_debuginfod_fetched - how many files @c's servers gave (NULL: 0). */
unsigned kp_debuginfod_fetched(const struct kp_debuginfod *c);

/*
 * kp_debuginfod_failure - when a server of @c (NULL: none) failed to answer or the time for
 * queries ran out, a sentence naming it, why, and the first files not fetched ("debuginfod at
 * http://127.0.0.1:1 did not answer: Connection refused: not fetched: the binary of
 * '/usr/bin/app', ...") into @buf; false when none failed.
 */
bool kp_debuginfod_failure(struct kp_debuginfod *c, char *buf, size_t size);

#endif /* KP_DEBUGINFOD_H */

/* SPDX-License-Identifier: MIT */
/*
 * debuginfod.h - binaries and debug files fetched by build-id from the servers that
 * $DEBUGINFOD_URLS names, through libdebuginfod, into the library's own cache
 * ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client).
 *
 * libdebuginfod is loaded on first use (it brings libcurl and about 30 libraries, tens of ms
 * a report would otherwise pay at start), and only when a server is set and a binary or its
 * debug file is missing here. One client serves the whole process. On a terminal, a fetch
 * shows its progress on stderr. All the queries of a process together take at most
 * $DEBUGINFOD_TIMEOUT seconds (libdebuginfod's own variable, there a limit on each query's
 * start; 5 s when unset, none when 0): a query still waiting then is cut, and no other is
 * made. A server that fails to answer (refused, unreachable, out of time) is asked nothing
 * more: it costs one failure, not one per binary, and kp_debuginfod_failure() says which
 * server, why, and which files were not fetched.
 */
#ifndef KP_DEBUGINFOD_H
#define KP_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* kp_debuginfod_disable - for the rest of this process, ask no server (--no-debuginfod). */
void kp_debuginfod_disable(void);

/* kp_debuginfod_enabled - whether a server is set and may be asked. */
bool kp_debuginfod_enabled(void);

/* What to fetch: the binary itself, or its separate debug file. */
enum kp_debuginfod_kind { KP_DEBUGINFOD_EXECUTABLE, KP_DEBUGINFOD_DEBUGINFO };

/*
 * kp_debuginfod_find - the file of @kind for build-id @bid (@len bytes) of the binary @name
 * (its path, for the warning that names what was not fetched) from the servers: an fd on it
 * (the caller's) and its path in the cache into *@path (malloc'ed), or -1 when no server has
 * it, none is set, they failed to answer, or the time for queries ran out.
 */
int kp_debuginfod_find(enum kp_debuginfod_kind kind, const uint8_t *bid, size_t len,
		       const char *name, char **path);

/* kp_debuginfod_fetched - how many files the servers gave in this process. */
unsigned kp_debuginfod_fetched(void);

/*
 * kp_debuginfod_failure - when a server failed to answer or the time for queries ran out, a
 * sentence naming it, why, and the first files not fetched ("debuginfod at http://127.0.0.1:1
 * did not answer: Connection refused: not fetched: the binary of '/usr/bin/app', ...") into
 * @buf; false when none failed.
 */
bool kp_debuginfod_failure(char *buf, size_t size);

#endif /* KP_DEBUGINFOD_H */

/* SPDX-License-Identifier: MIT */
/*
 * debuginfod.h - binaries and debug files fetched by build-id from the servers that
 * $DEBUGINFOD_URLS names, through libdebuginfod, into the library's own cache
 * ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client).
 *
 * libdebuginfod is loaded on first use (it brings libcurl and about 30 libraries, tens of ms
 * a report would otherwise pay at start), and only when a server is set and a binary or its
 * debug file is missing here. One client serves the whole process. On a terminal, a fetch
 * shows its progress on stderr. A server that fails to answer (refused, unreachable, timed
 * out) is asked nothing more: it costs one timeout, not one per binary, and
 * kp_debuginfod_failure() says which server and why.
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
 * kp_debuginfod_find - the file of @kind for build-id @bid (@len bytes) from the servers: an
 * fd on it (the caller's) and its path in the cache into *@path (malloc'ed), or -1 when no
 * server has it, none is set, or they failed to answer.
 */
int kp_debuginfod_find(enum kp_debuginfod_kind kind, const uint8_t *bid, size_t len,
		       char **path);

/* kp_debuginfod_fetched - how many files the servers gave in this process. */
unsigned kp_debuginfod_fetched(void);

/*
 * kp_debuginfod_failure - when a server failed to answer, a sentence naming it and why
 * ("debuginfod at http://127.0.0.1:1 did not answer: Connection refused") into @buf; false
 * when none failed.
 */
bool kp_debuginfod_failure(char *buf, size_t size);

#endif /* KP_DEBUGINFOD_H */

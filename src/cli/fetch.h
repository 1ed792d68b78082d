/* SPDX-License-Identifier: MIT */
/*
 * fetch.h - the debuginfod client a command makes for the recordings it reads
 * (report/symbols/debuginfod.h): on a terminal, a fetch shows its progress on stderr.
 */
#ifndef KP_FETCH_H
#define KP_FETCH_H

#include "report/symbols/debuginfod.h"

/* kp_fetch_client - a new client (kp_debuginfod_free() it), its progress shown on stderr
 * when that is a terminal. */
struct kp_debuginfod *kp_fetch_client(void);

#endif /* KP_FETCH_H */

/* SPDX-License-Identifier: MIT */
/*
 * input.h - opening a recording for a command, with the messages a user needs when it is not
 * a recording, is too new, or is cut short.
 */
#ifndef KP_INPUT_H
#define KP_INPUT_H

#include "formats/reader.h"
#include "report/session.h"

/* kp_input_open - kp_reader_open() that explains a failure; returns 0 or 1 (exit code). */
int kp_input_open(struct kp_reader *r, const char *path);

/* kp_input_explain - explain @err, kp_reader_open()'s result on @r; returns 0 or 1. */
int kp_input_explain(const struct kp_reader *r, const char *path, int err);

/*
 * kp_input_error - explain the reader's sticky error (e.g. "'kprof.data': truncated at offset
 * 1234 after 567 records, 89 of them recovered from the torn last chunk"), and the damaged
 * chunks it skipped; returns 1, or 0 when there is no error.
 */
int kp_input_error(const struct kp_reader *r, const char *path);

/*
 * kp_input_replayed - after @s replayed @path: warn of what it skipped (records of unknown
 * types, samples shorter than their fields, records of no recorded event, ATTR records after
 * the first sample), then kp_input_error() on its reader.
 */
int kp_input_replayed(const struct kp_session *s, const char *path);

#endif /* KP_INPUT_H */

/* SPDX-License-Identifier: MIT */
/*
 * input.h - opening a recording for a command, with the messages a user needs when it is not
 * a recording, is too new, or is cut short.
 */
#ifndef KP_INPUT_H
#define KP_INPUT_H

#include "formats/reader.h"
#include "report/profile/report.h"
#include "report/replay/session.h"

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
 * the first sample; of a perf.data, malformed records and features, and kernel symbols it
 * could not have), then kp_input_error() on its reader. A recording that describes no event
 * (cut or damaged before its first, or no recording of samples) is an error: "'FILE' has no
 * events". Returns 1 for either, else 0.
 */
int kp_input_replayed(const struct kp_session *s, const char *path);

/*
 * kp_input_no_events - say that @path describes no event (no ATTR record: cut or damaged before
 * its first, or no recording of samples), which every command that reads a recording refuses
 * before writing anything; returns 1.
 */
int kp_input_no_events(const char *path);

/* kp_input_session - kp_session_open() that explains a failure; returns 0 or 1 (exit code).
 * Call kp_session_release() in every case. */
int kp_input_session(struct kp_session *s, const char *path, const struct kp_dso_opts *dso);

/*
 * kp_input_build - kp_report_build() that explains a failure (the file does not open, has no
 * event of that name: the ones it has are listed, or has no events at all, and whether it is
 * cut or damaged: kp_input_replayed()). Returns 0 or 1 (exit code); call
 * kp_report_release() in every case. A file cut short is not a failure here: say so after the
 * output, with kp_input_replayed().
 */
int kp_input_build(const struct kp_report_opts *o, struct kp_report *r);

/* kp_is_recording - whether @path starts like a .kprof file or a perf.data. */
int kp_is_recording(const char *path);

#endif /* KP_INPUT_H */

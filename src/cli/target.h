/* SPDX-License-Identifier: MIT */
/*
 * target.h - what a recording is of, as record, trace, latency and top take it: -a, -C, -p,
 * -t, -u, -m and the duration (--duration, or --time as trace and latency first spelled it),
 * parsed by one function into a kp_record_opts with one set of limits and words (stat's -a,
 * -C and -p too); and the recording of trace and latency, into a file kept or one of their
 * own.
 */
#ifndef KP_TARGET_H
#define KP_TARGET_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

struct kp_record_opts;

/* The getopt values of the duration: --duration SECONDS, and --time, its other spelling. */
enum { KP_OPT_TARGET_DURATION = 900, KP_OPT_TARGET_TIME };

/* The short options kp_target_opt() takes ("C:" apart, for the commands that take -C). */
#define KP_TARGET_SHORT "ap:t:u:m:"

/* Their long names, for a command's table. */
#define KP_TARGET_OPTIONS \
	{ "all-cpus", no_argument, NULL, 'a' }, \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "tid", required_argument, NULL, 't' }, \
	{ "uid", required_argument, NULL, 'u' }, \
	{ "mmap-pages", required_argument, NULL, 'm' }
#define KP_TARGET_CPU_OPTION { "cpu", required_argument, NULL, 'C' }
#define KP_TARGET_DURATION_OPTIONS \
	{ "duration", required_argument, NULL, KP_OPT_TARGET_DURATION }, \
	{ "time", required_argument, NULL, KP_OPT_TARGET_TIME }

/* kp_target_opt - option @c (with @arg) of @cmd into @o: 0, or the exit code after saying why
 * (2 for an option that is none of these). */
int kp_target_opt(const char *cmd, int c, const char *arg, struct kp_record_opts *o);

/* kp_target_pages_max - the most data pages -m gives a ring: what a reader takes in a chunk. */
size_t kp_target_pages_max(void);

/* kp_target_check - a command, -a, -p, -t or -u, or -i FILE (@input), and -o (@output)
 * not with -i: 0, or 2 after saying what is wrong. */
int kp_target_check(const char *cmd, const struct kp_record_opts *o, const char *input,
		    const char *output);

/* kp_target_recording_of - what a recording of trace or latency says of itself: kprof's
 * command line (@argc, @argv) and version; the recorder says what it recorded only into a
 * file kept (@keep). */
void kp_target_recording_of(struct kp_record_opts *ro, const char *keep, int argc, char **argv);

/* kp_target_record_into - record @ro (its events set) into @keep, or without one into a file
 * of its own in $TMPDIR that no name reaches (O_TMPFILE), so that nothing of it is left however
 * kprof ends: held by *@fd (the caller's: close() it after; -1 with @keep), and read through
 * *@path, "/proc/self/fd/N" (the caller's: free()). Returns the recorder's exit code, or 1
 * when no file could be made. */
int kp_target_record_into(struct kp_record_opts *ro, const char *keep, int argc, char **argv,
			  char **path, int *fd);

/* kp_target_recorded - whether kp_target_record_into() left a recording at @path (the recorder
 * said why when it did not). */
bool kp_target_recorded(const char *path);

#endif /* KP_TARGET_H */

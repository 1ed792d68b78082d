/* SPDX-License-Identifier: MIT */
/*
 * output.h - a command's -o file, written safely: into a temporary file beside it, renamed over
 * it once complete. A failure (a full disk, an error, a signal) never leaves a half-written file
 * over a good one, and a symbolic link at the path, which someone may have planted in a
 * world-writable directory, is refused rather than followed or replaced.
 *
 * A path that names a stream (kp_path_is_stream(): "-", /dev/stdout, /dev/null, a terminal, a
 * FIFO, /dev/fd/N) is written as it is, never replaced: renaming a file over /dev/null would
 * leave the machine without one.
 */
#ifndef KP_OUTPUT_H
#define KP_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

struct kp_output {
	const char *path;	/* borrowed */
	char *tmp;		/* the temporary file, while it exists */
	FILE *f;		/* its stream, or NULL for kp_output_open_fd() */
	int fd;			/* -1 for a standard stream given as the default */
	int stream;		/* a stream that commit copies the (unlinked) temporary file to,
				 * for a writer that seeks; else -1 */
};

/*
 * kp_output_open - start writing @path (mode 0666 less the umask, as fopen() would make it);
 * returns the stream, or NULL after saying why. @path NULL gives @dflt (stdout, stderr) as it is.
 */
FILE *kp_output_open(struct kp_output *o, const char *path, FILE *dflt);

/*
 * kp_output_open_log - @path written in place from the start, for a log that is read while it
 * grows (strace -o, tail -f) and keeps what was written when kprof is killed: created or
 * truncated (mode 0666 less the umask), a symbolic link refused as kp_output_check_path()
 * does. Returns the stream, or NULL after saying why; kp_output_commit() closes it.
 */
FILE *kp_output_open_log(struct kp_output *o, const char *path);

/*
 * kp_output_open_recording - @path written in place from the start as a recording is (so that
 * a killed one is at its path: kprof top -o): created or truncated, mode 0600, a symbolic link
 * refused as kp_output_check_path() does, a stream's name taken as a file's. Returns the fd, or
 * -1 after saying why; kp_output_commit() closes it.
 */
int kp_output_open_recording(struct kp_output *o, const char *path);

/* kp_output_open_fd - the same for a writer of its own: the fd (mode 0600, as for a
 * recording), or -1 after saying why. @path may not be NULL. A writer that @seeks (writes at
 * offsets, reads back) gets a temporary file for a stream, which commit copies to it. */
int kp_output_open_fd(struct kp_output *o, const char *path, bool seeks);

/* kp_output_commit - close the stream and put the file in place; 0, or 1 after saying why (the
 * temporary file is then removed, and whatever was at the path stays). */
int kp_output_commit(struct kp_output *o);

/* kp_output_abort - close the stream and remove the temporary file: the path is left as it was
 * (a stream written in place keeps what was written to it). */
void kp_output_abort(struct kp_output *o);

/*
 * kp_output_check_path - refuse @path when it is a symbolic link to anything but a stream (1,
 * after saying so), for an output written in place (a recording, which must be readable at its
 * path if killed).
 */
int kp_output_check_path(const char *path);

/* kp_output_same_file - whether @x and @y are one file (an output must not be its input). */
bool kp_output_same_file(const char *x, const char *y);

#endif /* KP_OUTPUT_H */

/* SPDX-License-Identifier: MIT */
/*
 * rotate.h - the files of record --switch-output once closed: their names (perf's
 * FILE.YYYYMMDDhhmmssff), the ones kept (--switch-max-files), what they hold together, and
 * the --switch-output-exec commands run on them. The recorder closes and starts the files.
 *
 * What a command writes beside a file, named after it (FILE.YYYYMMDDhhmmssff.pb.gz: the
 * file's name, a dot and any suffix), is the file's: the command runs with umask 077, so it
 * is private as the recordings are (0600), and it is removed with its file.
 */
#ifndef KP_ROTATE_H
#define KP_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * --switch-output: the recording cut into files. Each closed file is renamed
 * FILE.YYYYMMDDhhmmssff (perf's naming: local time, hundredths) and holds all it needs: its
 * header, events, kernel symbols and the COMM and MMAP state of every live target.
 */
struct kp_switch_opts {
	bool on;		/* --switch-output given: SIGUSR2 asks for a new file */
	double secs;		/* and every @secs seconds (0: not by time) */
	uint64_t bytes;		/* or once the file holds @bytes (0: not by size) */
	size_t max_files;	/* --switch-max-files: keep the newest N files (0: all) */
	const char *exec;	/* --switch-output-exec: sh -c CMD sh FILE for each closed one */
	const char *event;	/* --switch-output-event: a sample of it asks for a new file */
	size_t first_event;	/* its events: kp_record_opts.evs from this index on */
};

/*
 * What a closed file holds. One that a write failed on (@err: a full disk) is cut short at its
 * last complete chunk, all that it keeps: @samples are those read back from it (@unread when it
 * cannot be read back: a pipe), and @unwritten were recorded for it after them, in no file.
 */
struct kp_rotated {
	uint64_t samples, lost, bytes, raw_bytes;
	int err;		/* 0: complete; else what cut it short (-errno, -KP_E*) */
	uint64_t chunks;	/* its complete chunks */
	uint64_t unwritten;
	bool unread;
};

/* A --switch-output-exec command still running on @file; with @remove, @file (which
 * --switch-max-files let go meanwhile) is removed once it ends. */
struct kp_hook {
	pid_t pid;
	char *file;
	bool remove;
};

struct kp_rotation {
	char **kept;		/* the closed files still on disk, oldest first */
	size_t nr_kept, cap_kept;
	struct kp_rotated sum;	/* every file closed, summed (@err: the first error) */
	uint64_t files;		/* closed and kept (those --switch-max-files removed too) */
	uint64_t removed;	/* of them, those --switch-max-files removed */
	bool dropped;		/* the last file held nothing and was removed */
	char *last;		/* the last file's name */
	char *cut;		/* the first one cut short, or NULL */
	struct kp_hook *hooks;	/* --switch-output-exec commands still running */
	size_t nr_hooks, cap_hooks;
};

/*
 * kp_rotation_keep - the file at @path, just closed and holding @f, complete or cut short:
 * renamed to its stamped name (a later hundredth when that one exists; it keeps @path, said,
 * when it cannot be renamed), counted, said on standard error unless @quiet (a file cut short
 * always, with what it keeps and what it lost), the oldest beyond @o->max_files removed with
 * the files named after it (at once, or once the command run on it ends), and @o->exec
 * started on it. With @last (the recording's last file), a file that holds nothing (no
 * sample, none lost, not cut short) after others is removed instead, and counted in none.
 */
void kp_rotation_keep(struct kp_rotation *r, const char *path, const struct kp_rotated *f,
		      const struct kp_switch_opts *o, bool quiet, bool last);

/*
 * kp_rotation_what - what the files are, for the summary's "recorded ... into WHAT": "N
 * files, 'FIRST' to 'LAST' (their samples add up to the total)", naming only the files on
 * disk, and saying which were removed or cut short.
 */
void kp_rotation_what(const struct kp_rotation *r, const struct kp_switch_opts *o, char *buf,
		      size_t len);

/*
 * kp_rotation_reap - collect the --switch-output-exec commands (@exec) that ended, warning for
 * each that failed, and removing the file it ran on when --switch-max-files let it go
 * meanwhile; with @all, wait for every one, saying so.
 */
void kp_rotation_reap(struct kp_rotation *r, const char *exec, bool all);

void kp_rotation_release(struct kp_rotation *r);

#endif /* KP_ROTATE_H */

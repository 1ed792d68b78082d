/* SPDX-License-Identifier: MIT */
/*
 * rotate.h - the files of record --switch-output once closed: their names (perf's
 * FILE.YYYYMMDDhhmmssff), the ones kept (--switch-max-files), what they hold together, and
 * the --switch-output-exec commands run on them. The recorder closes and starts the files.
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

struct kp_rotation {
	char **kept;		/* the closed files still on disk, oldest first */
	size_t nr_kept, cap_kept;
	struct kp_rotated sum;	/* every file closed, summed (@err: the first error) */
	uint64_t files;
	char *first, *last;	/* the first and the last file's names */
	char *cut;		/* the first one cut short, or NULL */
	pid_t *hooks;		/* --switch-output-exec commands still running */
	size_t nr_hooks, cap_hooks;
};

/*
 * kp_rotation_keep - the file at @path, just closed and holding @f, complete or cut short:
 * renamed to its stamped name (a later hundredth when that one exists; it keeps @path, said,
 * when it cannot be renamed), counted, said on standard error unless @quiet (a file cut short
 * always, with what it keeps and what it lost), the oldest beyond @o->max_files removed, and
 * @o->exec started on it.
 */
void kp_rotation_keep(struct kp_rotation *r, const char *path, const struct kp_rotated *f,
		      const struct kp_switch_opts *o, bool quiet);

/*
 * kp_rotation_reap - collect the --switch-output-exec commands (@exec) that ended, warning for
 * each that failed; with @all, wait for every one, saying so.
 */
void kp_rotation_reap(struct kp_rotation *r, const char *exec, bool all);

void kp_rotation_release(struct kp_rotation *r);

#endif /* KP_ROTATE_H */

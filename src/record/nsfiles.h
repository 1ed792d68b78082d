/* SPDX-License-Identifier: MIT */
/*
 * nsfiles.h - the binaries that processes in another mount namespace (a container) map while
 * they are recorded. Their recorded paths are the paths inside the container, which this
 * machine's file system may not have, or may have as other files; and once the process has
 * exited, /proc/PID/root no longer reaches them. So the recorder looks at every file MMAP
 * record as it drains the rings (and at the maps it synthesizes for -a and -p), and, for a
 * process whose mount namespace is not kprof's, opens the file it really mapped, through
 * /proc/PID/root, while the process still lives. The files are held open until recording
 * ends, for `record --embed-symbols` to read their symbols (kp_report_opts.alts); without it,
 * they are only counted, so that the recorder can say what a report here will lack.
 *
 * A process that maps a file and exits within one drain round (0.1 s) can be missed.
 */
#ifndef KP_NSFILES_H
#define KP_NSFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/symbols/dso.h"

struct kp_nsfiles {
	bool keep;			/* hold the files open (--embed-symbols), else count them */
	uint64_t self_ns;		/* kprof's mount namespace (its inode) */
	struct kp_dso_alt *alts;	/* with @keep: path, build-id, "/proc/self/fd/N" */
	size_t nr_alts, cap_alts;
	char **paths;			/* without @keep: the distinct paths seen */
	size_t nr_paths, cap_paths;
	uint64_t missed;		/* gone before they could be opened */
};

/* kp_nsfiles_init - an empty table; @keep: hold the files open. */
void kp_nsfiles_init(struct kp_nsfiles *n, bool keep);

/* kp_nsfiles_scan - look at the file MMAP/MMAP2 records among @len bytes of whole records. */
void kp_nsfiles_scan(struct kp_nsfiles *n, const void *recs, size_t len);

/* kp_nsfiles_count - the distinct binaries of other mount namespaces seen. */
size_t kp_nsfiles_count(const struct kp_nsfiles *n);

/* kp_nsfiles_release - close the files, free the table. */
void kp_nsfiles_release(struct kp_nsfiles *n);

#endif /* KP_NSFILES_H */

/* SPDX-License-Identifier: MIT */
/*
 * archive.h - a recording made self-contained: the symbols its samples need stored in it
 * (report/tools/archive.h), as kprof archive and kprof record --embed-symbols do.
 */
#ifndef KP_CLI_ARCHIVE_H
#define KP_CLI_ARCHIVE_H

#include <stddef.h>

struct kp_dso_alt;
struct kp_debuginfod;

/*
 * kp_archive_file - store in the recording @input the symbols its samples need (kprof
 * archive): appended in place, or with @output, in a new file holding a copy of it. @symfs
 * (NULL for none) prefixes the binaries' paths; @alts (@nr_alts) are where the binaries of
 * processes in other mount namespaces can still be read (record's); @who names the command
 * in the summary line; @debuginfod (NULL for none) fetches the binaries missing here.
 * Returns the exit code, after saying what went wrong.
 */
int kp_archive_file(const char *input, const char *output, const char *symfs, const char *who,
		    const struct kp_dso_alt *alts, size_t nr_alts, struct kp_debuginfod *debuginfod);

#endif /* KP_CLI_ARCHIVE_H */

/* SPDX-License-Identifier: MIT */
/*
 * idlist.h - the lists of numbers that -C, -p and -t take, parsed once for record and stat.
 */
#ifndef KP_IDLIST_H
#define KP_IDLIST_H

#include <stdbool.h>
#include <stddef.h>

#define KP_MAX_CPUS 4096	/* CPU numbers are below this */
#define KP_MAX_PID 4194304	/* the kernel's PID_MAX_LIMIT: ids are at most this */

/*
 * kp_idlist_parse - "1,2,5", and with @ranges also "0-3,6": the numbers of @arg, each in
 * [@min, @max], added to the array *@ids of *@nr (malloc'd or NULL, the caller's), which is then
 * sorted with no number twice: an option given twice adds up, a number given twice counts once.
 * Returns 0, or -EINVAL with @why (of @size bytes) naming @opt and what is wrong; *@ids and
 * *@nr are then as they were. It prints nothing: the command says it as a usage error.
 */
int kp_idlist_parse(const char *opt, const char *arg, bool ranges, long min, long max,
		    int **ids, size_t *nr, char *why, size_t size);

/*
 * kp_idlist_cpus - kp_idlist_parse() of a -C list ("0-3,6"), each CPU of which must be
 * online. Returns 0; -EINVAL with @why naming the first CPU that is not (or what is wrong with
 * the list); or another -errno, @why saying why the online CPUs could not be read. *@ids and
 * *@nr are then as they were.
 */
int kp_idlist_cpus(const char *arg, int **ids, size_t *nr, char *why, size_t size);

#endif /* KP_IDLIST_H */

/* SPDX-License-Identifier: MIT */
/*
 * perf.h - perf_event_open(2) and the messages that explain its failures.
 */
#ifndef KP_PERF_H
#define KP_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/* kp_perf_open - perf_event_open with FD_CLOEXEC; returns the fd or -errno. */
int kp_perf_open(const struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd);

/* kp_perf_id - the kernel's id of the event behind @fd (PERF_EVENT_IOC_ID), or -errno. */
int kp_perf_id(int fd, uint64_t *id);

/*
 * kp_perf_set_filter - apply a tracepoint filter (PERF_EVENT_IOC_SET_FILTER) to @fd.
 * Returns 0 or -errno: -EINVAL for a filter the kernel cannot parse (an unknown field, bad
 * syntax) or an event that is not a tracepoint, -EEXIST for a second filter on the same fd.
 */
int kp_perf_set_filter(int fd, const char *filter);

/*
 * kp_perf_explain - print why opening @what (an event name) failed with -@err, and a hint:
 * the sysctl or capability for EACCES/EPERM, the limits for EINVAL/EMFILE/ENOMEM.
 */
void kp_perf_explain(const char *what, const struct perf_event_attr *attr, int err);

/*
 * kp_perf_explain_target - when opening @what on process @pid failed with -@err because the
 * process is another user's (its uids are not all the caller's, and the caller is not root),
 * print that: the process, its owner, and what allows it. Returns true when it said so, false
 * (and prints nothing) when that is not the reason, so the caller explains as before.
 */
bool kp_perf_explain_target(const char *what, pid_t pid, int err);

/* kp_perf_is_unsupported - the error a missing PMU gives (ENOENT, EOPNOTSUPP, ENODEV). */
int kp_perf_is_unsupported(int err);

/* kp_cpus_online - fill @cpus (capacity @max) from /sys/devices/system/cpu/online; count or -errno */
int kp_cpus_online(int *cpus, int max);

#endif /* KP_PERF_H */

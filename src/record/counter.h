/* SPDX-License-Identifier: MIT */
/*
 * counter.h - counting events (no sampling, no ring) on a set of targets: a command held
 * before exec, whole CPUs, or running processes. The engine behind `kprof stat`, as the
 * recorder is behind `kprof record`; it prints diagnostics but never the counts.
 *
 * The events are opened by evset.c: a command is followed by one task counter per event
 * (cpu -1, inherit, enable_on_exec: counting starts at its exec), system-wide counting opens
 * pid -1 on each CPU, and processes are followed per thread with cpu -1 and inherit. Counting
 * needs no ring, so cpu -1 with inherit works. Every fd reads {value, time enabled, time
 * running}. Each member of a group is read on its own fd (no PERF_FORMAT_GROUP), which is
 * exact as long as the group is not multiplexed, and scaled by its own enabled/running times
 * when it is. An event this machine lacks is not replaced (as record does) but shown as
 * unsupported.
 */
#ifndef KP_COUNTER_H
#define KP_COUNTER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "child.h"
#include "evset.h"
#include "evspec.h"

#define KP_COUNTER_MAX_PIDS 64

/* What to count where; filled by the command's option parser. */
struct kp_counter_opts {
	struct kp_evspec *evs;	/* each one's attr is completed, and maybe narrowed, here */
	size_t nr_evs;
	bool system_wide;	/* pid=-1 on @cpus, or on every online CPU */
	int *cpus;		/* NULL = all online */
	size_t nr_cpus;
	int *pids;		/* existing processes to follow, or NULL */
	size_t nr_pids;
	char **argv;		/* a command to run, NULL-terminated, or NULL */
};

/* One read(): the count, and the nanoseconds the event was enabled and running. */
struct kp_counter_count {
	uint64_t val, ena, run;
};

struct kp_counter {
	const struct kp_counter_opts *o;
	struct kp_evset set;		/* the counters; set.ev says which are unsupported */
	struct kp_counter_count *now;	/* per fd of @set: the last kp_counter_read() */
	struct timespec t0;		/* CLOCK_MONOTONIC when counting started */
	struct kp_child child;		/* the command, when there is one */
	struct pollfd *waits;		/* pidfds of the command or the processes (fd -1: none) */
	pid_t *wait_pids;		/* their pids; 0 once ended */
	int nr_waits, nr_alive;
	bool killed;
};

/*
 * kp_counter_start - fork the command (held), find the targets, open and enable every event
 * (an unsupported one is marked, not fatal; EACCES narrows an event to user space with a
 * notice; filters are applied), then let the command exec. Sets @c->t0. Returns 0, or 1
 * after printing why; call kp_counter_release() either way.
 */
int kp_counter_start(struct kp_counter *c, const struct kp_counter_opts *o);

/*
 * kp_counter_wait - wait up to @timeout_ms (-1: no limit) for the counting to end: the command
 * ended, or all processes ended, or (without a command) a SIGINT/SIGTERM/SIGHUP came. A signal
 * sent to kprof alone is passed on to the command; a second one kills it.
 * Returns true while counting goes on.
 */
bool kp_counter_wait(struct kp_counter *c, int timeout_ms);

/* kp_counter_read - read every open counter into @c->now. */
void kp_counter_read(struct kp_counter *c);

/* kp_counter_exit_code - the command's exit status as kprof's (128+N for signal N), or 0. */
int kp_counter_exit_code(const struct kp_counter *c);

/* kp_counter_release - kill a command still held or running, close and free everything. */
void kp_counter_release(struct kp_counter *c);

#endif /* KP_COUNTER_H */

/* SPDX-License-Identifier: MIT */
/*
 * evset.h - the one opener of events for record and stat: a set of events (struct kp_evspec)
 * opened on every target and CPU. The recorder adds its rings, the counter its reads; what
 * is opened where, and how a refusal is handled, is decided here once.
 *
 * Targets (the pid argument of perf_event_open), in this order of precedence:
 *   - system-wide: pid -1, on each CPU of a list or on every online CPU;
 *   - existing processes (every thread of each, from /proc/PID/task, with inherit so that
 *     what they start is followed too) and existing threads (alone, without inherit);
 *   - the command kprof holds before exec (child.h), with inherit and enable_on_exec: the
 *     events start at its exec, so nothing of kprof itself is seen.
 * Tasks are opened on each CPU with @per_cpu (sampling: the kernel mmaps a ring per CPU, and
 * an inherited event must be per CPU to be mapped), else once on any CPU (cpu -1: counting;
 * a per-CPU task counter would be "enabled" whenever its task runs but "running" only while
 * it runs on that CPU, and look multiplexed when it is not).
 *
 * Groups (struct kp_evspec's group_leader): on each target and CPU the leader is opened first,
 * disabled (with enable_on_exec for the command), and each member after it with group_fd =
 * the leader's fd there, created enabled: enable_on_exec and PERF_EVENT_IOC_ENABLE reach the
 * leader only, and a disabled member would never count. A member whose leader is not
 * supported here opens on its own, as if in no group; one whose leader's thread ended is
 * skipped on that target.
 *
 * Refusals, in this order:
 *   - a PMU the machine lacks (ENOENT, EOPNOTSUPP, ENODEV): with @fallback a hardware event
 *     becomes cpu-clock, with a notice (as perf record does); without, a named, raw or PMU
 *     event is marked unsupported and not opened anywhere (perf stat's "<not supported>");
 *     a probe's or a breakpoint's missing PMU is an error either way;
 *   - kernel events refused (EACCES, EPERM) for an event whose kernel part the user did not
 *     ask for: it is narrowed to user space (kp_evspec_user_only()), with a notice once it
 *     opens; when that is refused too, the first refusal is the one explained;
 *   - ESRCH for a thread of the attached processes or threads: it ended since /proc listed
 *     it, and is skipped.
 * Each opened fd of an event with a filter gets it (kp_perf_set_filter()).
 */
#ifndef KP_EVSET_H
#define KP_EVSET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "evspec.h"

/**
 * struct kp_evset_opts - what to open where; filled by the engine (recorder.c, counter.c)
 * @evs:          the events (borrowed). The engine fills each attr's own fields (sampling,
 *                read_format); the opener sets size, disabled, enable_on_exec and inherit,
 *                and may narrow the event to user space or replace it by cpu-clock
 * @command:      the held command (0: none), the target unless another is given
 * @system_wide:  every process (pid -1), on @cpus
 * @cpus:         the CPUs of system-wide or @per_cpu events (borrowed); NULL: every online one
 * @pids:         existing processes (borrowed): all their threads, and what they start
 * @pids_may_end: a process of @pids that ended before it was listed is skipped, not an error
 * @tids:         existing threads, alone (borrowed)
 * @per_cpu:      tasks are opened on each CPU (sampling), not once on any CPU (counting)
 * @fallback:     an unsupported hardware event becomes cpu-clock, rather than unsupported
 * @doing:        what the engine does with events, for its notices: "recording" (static)
 */
struct kp_evset_opts {
	struct kp_evspec *evs;
	size_t nr_evs;
	pid_t command;
	bool system_wide;
	const int *cpus;
	size_t nr_cpus;
	const int *pids;
	size_t nr_pids;
	bool pids_may_end;
	const int *tids;
	size_t nr_tids;
	bool per_cpu;
	bool fallback;
	const char *doing;
};

/* What became of one event. */
struct kp_evset_event {
	bool unsupported;	/* no PMU for it here (without @fallback): opened nowhere */
	bool user_only;		/* narrowed to user space: kernel events were refused */
};

/**
 * struct kp_evset - the open events
 * @o:       a copy of the options; the arrays it points at stay the engine's
 * @pids:    the pid argument of each target: -1, the threads, or the command (owned)
 * @cpus:    the cpu argument: the CPUs, or the one -1 (owned)
 * @inherit: the events follow their targets' new threads and children
 * @on_exec: the events start at the command's exec, not at kp_evset_enable()
 * @fds:     [(ev * nr_pids + target) * nr_cpus + cpu index] (owned); -1: not open, because
 *           the event is unsupported or the thread ended
 * @ev:      what became of each event (owned)
 */
struct kp_evset {
	struct kp_evset_opts o;
	int *pids;
	size_t nr_pids;
	int *cpus;
	size_t nr_cpus;
	bool inherit;
	bool on_exec;
	int *fds;
	struct kp_evset_event *ev;
};

/*
 * kp_evset_open - list the targets and CPUs of @o and open every event on each (see above).
 * @s is the caller's, overwritten. Returns 0, or after saying why a negative errno: the
 * refusal of the open that failed (-EACCES, -EINVAL, ...), or why the targets or CPUs could
 * not be listed. Call kp_evset_release() either way.
 */
int kp_evset_open(struct kp_evset *s, const struct kp_evset_opts *o);

/* kp_evset_nr_fds - the length of @s->fds: events × targets × CPUs. */
size_t kp_evset_nr_fds(const struct kp_evset *s);

/* kp_evset_per_event - the fds of one event, at @s->fds[ev * kp_evset_per_event(s)] on. */
size_t kp_evset_per_event(const struct kp_evset *s);

/* kp_evset_cpu - the cpu argument fd @i of @s->fds was opened with (-1: any CPU). */
int kp_evset_cpu(const struct kp_evset *s, size_t i);

/*
 * kp_evset_enable - start the events that do not wait for the command's exec
 * (PERF_EVENT_IOC_ENABLE); 0, or 1 after saying why. kp_evset_disable - stop them all.
 */
int kp_evset_enable(struct kp_evset *s);
void kp_evset_disable(struct kp_evset *s);

/* kp_evset_release - close every fd and free what @s owns (not the events). */
void kp_evset_release(struct kp_evset *s);

#endif /* KP_EVSET_H */

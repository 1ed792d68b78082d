/* SPDX-License-Identifier: MIT */
/*
 * dynevent.h - the uprobe events kprof defines in tracefs (its uprobe_events file) for the
 * probes of -e that fetch values (probe.c): each a tracepoint of its own, in a group named
 * after the kprof process that made it, kprof_PID, so that two kprofs at once never meet.
 *
 * They are system state, and go when kprof does: at exit() (every command ends so, the recorder
 * included, which turns SIGINT, SIGTERM and SIGHUP into an orderly end), and on SIGINT,
 * SIGTERM, SIGHUP or SIGQUIT that comes before anything else handles them. What a kprof killed
 * outright (SIGKILL, a crash) leaves behind, the next kprof that defines an event removes
 * first: the events of every kprof_PID group whose process is gone, saying so. The kernel
 * refuses to remove an event while it is open, so one that another program still uses stays,
 * and that is said too.
 */
#ifndef KP_DYNEVENT_H
#define KP_DYNEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One defined event: where tracefs has it, and its id (PERF_TYPE_TRACEPOINT's config). */
struct kp_dynevent {
	char sys[32];
	char event[64];
	uint64_t id;
};

/*
 * kp_dynevent_add - define uprobe event @name ("square") at each of @nr places, @defs[i] the
 * place and what it fetches as the kernel takes them ("/bin/x:0x11f0 x=%di:s32", with a
 * semaphore's ref_ctr_offset "/bin/x:0x11f0(0xa84260) ..."), a return probe with @ret, in this
 * process's group. @name is made a tracefs name (letters, digits, '_'), unique among this
 * process's events (square, square_1, ...). Returns 0 with *@ev filled, or after printing why
 * (naming the event @spec): -ENODEV (tracefs cannot be had, or the kernel has no uprobe
 * events), -EACCES or -EROFS (uprobe_events cannot be written), -ENOSPC (too many events),
 * -EINVAL (the kernel refused the definition: its reason from tracefs' error_log, with the
 * argument it points at), -errno. On failure nothing of it is left defined.
 */
int kp_dynevent_add(const char *spec, const char *name, bool ret, const char *const *defs,
		    size_t nr, struct kp_dynevent *ev);

/*
 * kp_dynevent_remove_all - remove every event this process defined; those the kernel keeps
 * (still open) are named in a warning. Runs at exit by itself; callable before.
 */
void kp_dynevent_remove_all(void);

#endif /* KP_DYNEVENT_H */

/* SPDX-License-Identifier: MIT */
/*
 * offcpu.h - off-CPU intervals: where a thread left the CPU (the stack of a context-switches
 * sample, taken at the switch-out, `kprof record --off-cpu`) and for how long, from the switch
 * records around it (PERF_RECORD_SWITCH, or _CPU_WIDE system-wide). A switch-out the kernel
 * marks preempted (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) left the thread runnable: its time is
 * run-queue time, not blocked time.
 *
 * Every interval is closed exactly once and handed to the caller's function: at the thread's
 * switch-in, at its exit, or at the end of the recording; a switch-in before its switch-out
 * (records out of order) closes it with 0 ns. Each way is counted, so nothing is dropped
 * silently, and no interval is negative or longer than the recording.
 *
 * Who woke a blocked thread (record --off-cpu --wakers): the stack of the sched:sched_waking
 * sample that named it, the last one since it last ran. sched_waking fires in the waker's own
 * context, at the start of try_to_wake_up(); sched_wakeup does not always: a wakeup queued to
 * an idle CPU fires there, in that CPU's idle loop. A waking may come a little before the
 * switch-out it ends (the waker ran while the thread was still leaving its CPU), so the
 * waking that counts is the last one since the thread's switch-in, not since its switch-out:
 * one before that belongs to a sleep the thread never made.
 */
#ifndef KP_OFFCPU_H
#define KP_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"

#define KP_OFFCPU_NO_NODE UINT32_MAX

struct kp_offcpu_stats {
	uint64_t blocked;	/* intervals closed at the switch-in, blocked */
	uint64_t preempted;	/* ... preempted: run-queue time */
	uint64_t blocked_ns, preempted_ns;
	uint64_t at_exit;	/* closed at the thread's exit */
	uint64_t at_end;	/* still open when the recording ended: closed at its last record */
	uint64_t no_stack;	/* switch-outs whose sample is missing (lost, or filtered) */
	uint64_t no_switch_in;	/* a new switch-out before the last one's switch-in (a lost
				 * switch record): the last one closed with 0 ns */
	uint64_t bad_time;	/* switch-in earlier than its switch-out: closed with 0 ns */
	uint64_t after_exit;	/* switch-outs of a thread after its exit (its last one, and
				 * any while it was torn down) */
	uint64_t woken;		/* blocked intervals closed at the switch-in, with their waker */
	uint64_t no_waker;	/* ... without one (its waker was not recorded: outside the
				 * recorded tasks, or an interrupt, in a recording not -a) */
};

/* A thread's open interval. */
struct kp_offcpu_wait {
	uint32_t tid;
	uint32_t node;		/* the switch-out stack's node, KP_OFFCPU_NO_NODE without one */
	uint64_t out;		/* when it left, ns */
	uint64_t tag;		/* the caller's: set it on the interval a call opened */
	bool open, switched, preempt;	/* an interval is open; its switch record was seen */
	bool exited;		/* the thread exited: its switch-outs open nothing, until a
				 * thread of that tid is forked again */
	uint32_t waker;		/* the node of the last waking's stack since the thread ran,
				 * KP_OFFCPU_NO_NODE for none: set when the interval closes at
				 * its switch-in */
	uint64_t woken;		/* when, ns */
};

/*
 * What the caller does with a closed interval: @ns from @w->out of thread @w->tid at @w->node
 * (its switch-out stack; KP_OFFCPU_NO_NODE when the sample is missing), @w->preempt for
 * run-queue time, @w->tag as the one who opened it gave it, @w->waker the stack of who woke
 * it (KP_OFFCPU_NO_NODE: not recorded, or not closed by a switch-in).
 */
typedef void (*kp_offcpu_close_fn)(void *ctx, const struct kp_offcpu_wait *w, uint64_t ns);

struct kp_offcpu {
	struct kp_hash by_tid;		/* tid -> index into waits */
	struct kp_offcpu_wait *waits;
	size_t nr, cap;
	struct kp_offcpu_stats st;
	kp_offcpu_close_fn close;
	void *ctx;
	bool wakers;		/* the caller's: wakings are recorded (kp_offcpu_waking()), so
				 * count the blocked intervals with and without their waker */
};

void kp_offcpu_init(struct kp_offcpu *o, kp_offcpu_close_fn close, void *ctx);
void kp_offcpu_release(struct kp_offcpu *o);

/*
 * kp_offcpu_sample - the switch-out sample of @tid at @time reached @node. Returns the interval
 * it opened (its tag UINT64_MAX until the caller sets it; valid until the next call), or NULL
 * when it joined the one its switch record opened or came after the thread's exit.
 */
struct kp_offcpu_wait *kp_offcpu_sample(struct kp_offcpu *o, uint32_t tid, uint64_t time,
					uint32_t node);

/*
 * kp_offcpu_switch - a switch record of @tid at @time: out (then @preempt says how) or in.
 * Returns the interval a switch-out opened, as kp_offcpu_sample() does, or NULL.
 */
struct kp_offcpu_wait *kp_offcpu_switch(struct kp_offcpu *o, uint32_t tid, uint64_t time,
					bool out, bool preempt);

/*
 * kp_offcpu_waking - a sched:sched_waking sample at @time named @tid as the task it wakes,
 * its waker's stack at @node: the waker of @tid's interval if it is the last one before the
 * switch-in.
 */
void kp_offcpu_waking(struct kp_offcpu *o, uint32_t tid, uint64_t time, uint32_t node);

/* kp_offcpu_exit - @tid exited at @time: its open interval ends there. */
void kp_offcpu_exit(struct kp_offcpu *o, uint32_t tid, uint64_t time);

/* kp_offcpu_fork - a thread @tid was forked: a new one, if the tid was given before. An exited
 * thread runs on after its exit record (it may be preempted, and switched in again, on its way
 * out), so its switch-in is no sign of a new one. */
void kp_offcpu_fork(struct kp_offcpu *o, uint32_t tid);

/* kp_offcpu_end - the recording ended at @time: every open interval ends there. */
void kp_offcpu_end(struct kp_offcpu *o, uint64_t time);

#endif /* KP_OFFCPU_H */

/* SPDX-License-Identifier: MIT */
/*
 * trace.h - system calls from a recording of raw_syscalls:sys_enter and sys_exit (what
 * `kprof trace` records, as `perf trace record` does): each entry paired with its thread's
 * next exit into a call with its arguments, result and duration, and per thread and call the
 * counts, errors and times of `perf trace -s`.
 *
 * Nothing is invented and nothing dropped silently: an exit whose entry was not recorded (in
 * flight when the recording began, as the execve that starts a command is, a new thread's or
 * process's return from clone, fork or vfork, or a lost entry) is a call of unknown
 * duration, counted apart; so is an entry with no exit when the
 * recording ended, or a second entry of a thread before the first one's exit (an exit lost).
 * exit and exit_group never return: they are counted, not left in flight.
 *
 * The records come from a file (kp_trace_run()) or from a recording as it is made, chunk by
 * chunk (kp_trace_init(), kp_trace_sink() as the recorder's live sink, kp_trace_end()); then a
 * call still in flight can be handed on before its exit (kp_trace_pending()), and again, whole,
 * when it returns, as strace shows a call unfinished and resumed.
 */
#ifndef KP_TRACE_H
#define KP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"
#include "report/replay/session.h"
#include "report/replay/tracepoint.h"

/* Which part of a call kp_trace_call_fn is given. */
enum kp_trace_part {
	KP_TRACE_WHOLE,		/* the call, once it ended (or the recording did) */
	KP_TRACE_UNFINISHED,	/* its entry, while it is still in flight (kp_trace_pending()) */
	KP_TRACE_RESUMED,	/* the call whose entry was handed on unfinished, once it ended */
};

/* A system call as the recording tells it. */
struct kp_trace_call {
	uint32_t pid, tid, cpu;
	const char *comm;
	long nr;
	uint64_t args[6];	/* with an entry */
	uint64_t enter, exit;	/* ns of the recording's clock; 0 for the side not recorded */
	int64_t ret;		/* with an exit */
	enum kp_trace_part part;
};

/* One thread's counts of one system call (complete calls: both sides recorded). */
struct kp_trace_stat {
	uint32_t thread;	/* index into kp_trace.threads */
	long nr;
	uint64_t calls, errors;
	uint64_t total, min, max;	/* ns */
	double sumsq;			/* of the durations in ns, for the deviation */
	uint64_t no_entry, no_exit;	/* the incomplete ones, apart */
};

struct kp_trace_thread {
	uint32_t pid, tid;
	uint32_t comm;		/* strtab id of the session's: its last command */
	uint64_t events;	/* entries and exits recorded */
	uint64_t open_nr, open_at;	/* an entry waiting for its exit (open) */
	uint64_t open_args[6];
	bool open;
	bool open_shown;	/* the open entry was handed on as KP_TRACE_UNFINISHED */
};

/* Called for each call as its exit comes (or, for one left open, at the end), and for each
 * entry kp_trace_pending() hands on. */
typedef void (*kp_trace_call_fn)(void *ctx, const struct kp_trace_call *c);

struct kp_trace {
	struct kp_session s;
	struct kp_tp *tp;
	int enter_ev, exit_ev;		/* the two events' indices, -1 when absent */
	struct kp_trace_thread *threads;
	size_t nr_threads, cap_threads;
	struct kp_hash thread_ids;	/* tid -> index */
	struct kp_trace_stat *stats;
	size_t nr_stats, cap_stats;
	struct kp_hash stat_ids;	/* thread << 32 | nr -> index */
	const bool *only;		/* [kp_syscall_max()]: the calls wanted, NULL for all */
	uint32_t skip_pid;		/* a process whose events are neither shown nor counted
					 * (the tracer's own, system-wide), 0 for none */
	uint64_t first, last;		/* ns: the first and last event's time */
	uint64_t calls, no_entry, no_exit, lost_exit, no_return, bad;
	uint64_t no_entry_begun;	/* exits without their entry that begin a thread (its
					 * exec: in the thread's stats; its return from a fork:
					 * in none), which no trace can have the entry of */
	kp_trace_call_fn fn;
	void *ctx;
	int open_err;			/* the reader's error when the file would not open */
	int err;			/* kp_trace_sink()'s: the session's first error (sticky) */
};

/*
 * kp_trace_run - replay @input, calling @fn (may be NULL) for each call of a system call
 * @only wants (NULL: all; an array of kp_syscall_max() flags, borrowed), then fill the
 * counts. Returns 0; -KP_TRACE_EOPEN when the file does not open (t->open_err says why);
 * -KP_TRACE_ENOEVENTS when it has no raw_syscalls:sys_enter and sys_exit; or the session's
 * error for a damaged file (what was read before it is kept). Call kp_trace_release() after.
 */
int kp_trace_run(struct kp_trace *t, const char *input, const bool *only, kp_trace_call_fn fn,
		 void *ctx);
void kp_trace_release(struct kp_trace *t);

/*
 * kp_trace_init - a trace fed by a recording as it is made, with @only, @fn and @ctx as
 * kp_trace_run() takes them: kp_trace_sink() takes its chunks, kp_trace_end() ends it. Call
 * kp_trace_release() after.
 */
void kp_trace_init(struct kp_trace *t, const bool *only, kp_trace_call_fn fn, void *ctx);

/*
 * kp_trace_sink - a kp_writer_sink_fn (and a recorder's live sink): feed the @nrec records of
 * @len bytes at *@buf (a closed chunk, left where it is) to @ctx, a struct kp_trace initialised
 * by kp_trace_init(). Returns 0 or the session's error (also kept in t->err).
 */
int kp_trace_sink(void *ctx, uint8_t **buf, size_t *cap, size_t len, uint32_t nrec);

/*
 * kp_trace_pending - hand each call that entered before @before (ns of the recording's clock)
 * and whose exit has not come, to the trace's fn as KP_TRACE_UNFINISHED, once: its exit comes
 * as KP_TRACE_RESUMED.
 */
void kp_trace_pending(struct kp_trace *t, uint64_t before);

/*
 * kp_trace_end - the recording ended: deliver what is still queued, hand on the calls still
 * in flight and fill the counts. Returns 0, -KP_TRACE_ENOEVENTS when it had no
 * raw_syscalls:sys_enter and sys_exit, or the session's error.
 */
int kp_trace_end(struct kp_trace *t);

#define KP_TRACE_EOPEN		1000
#define KP_TRACE_ENOEVENTS	1001

#endif /* KP_TRACE_H */

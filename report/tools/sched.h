/* SPDX-License-Identifier: MIT */
/*
 * sched.h - the scheduler's view of a recording of sched:sched_switch, sched:sched_wakeup (or
 * sched_waking) and sched:sched_wakeup_new of every CPU (what `kprof sched` records, as `perf
 * sched record` does): per task its run time, its waits and its scheduling delay, the time it
 * was runnable before it ran, as `perf sched latency` and `perf sched timehist` give them, and
 * each switch as `timehist` and `map` show it.
 *
 * sched_wakeup fires once the woken task is on a run queue, on the CPU that will run it: the
 * delay from there is the run queue's, as runqlat measures it. sched_waking fires at the start
 * of the wakeup, in the waker (a wakeup queued to another CPU's list is on a run queue only once
 * that CPU takes it). perf sched record takes sched_waking where the kernel has it, which perf
 * 6.1's latency does not read (it counts no delay after a sleep there); a recording of
 * sched_waking alone is read with it.
 *
 * The rules are perf's, so that both read one recording alike. A task's run time is the time
 * from the switch before its switch-out on that CPU (the one that put it there) to its
 * switch-out. A switch-out leaves it runnable (prev_state R: preempted, or yielding) or
 * waiting (S, D, ...); a wakeup of a waiting task makes it runnable. Its scheduling delay runs
 * from when it became runnable (the waking, or the switch-out that left it runnable) to its
 * switch-in: a delay of each such switch-in (perf's "switches"); a task first seen at its
 * switch-in counts one of 0. A wakeup before the switch-out it would end (records of two CPUs
 * out of order) is counted and left out, as perf leaves it out. Its waits (timehist's) run
 * from a switch-out to the next switch-in, by the state it left in: sleep (S), I/O (D) and
 * preempted (R); they hold the scheduling delay that ends them.
 *
 * A switch that was not recorded (the kernel sends no event for the switches out of some tasks,
 * those of another PID namespace on some machines, and a ring can overflow) shows as a switch-out
 * of a task that the CPU's last recorded switch did not put there: its switch-in is unknown.
 * perf then counts the whole time since that CPU's last switch as its run, and so do these
 * figures, to read as perf reads; each task says how often that happened and how much time is
 * unsure (kp_sched_task.unseen, unsure_ns).
 *
 * The idle task of each CPU (pid 0) is a task of its own, "<idle>", which latency leaves out.
 */
#ifndef KP_SCHED_H
#define KP_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/base/hash.h"
#include "report/replay/session.h"
#include "report/replay/tracepoint.h"

enum kp_sched_state { KP_SCHED_UNSEEN, KP_SCHED_RUNNING, KP_SCHED_WAITING, KP_SCHED_RUNNABLE };

struct kp_sched_task {
	uint32_t tid, pid;		/* pid: its process, 0 unknown (the idle task's is 0) */
	int cpu;			/* an idle task's CPU, -1 for every other task */
	uint32_t comm;			/* strtab id: its latest name in the events' fields
					 * (kp_sched_name() prefers its COMM records') */
	enum kp_sched_state state;
	char left;			/* how it last left a CPU: 'R', 'S', 'D', ... (0: never) */
	uint64_t out;			/* when, ns */
	uint64_t ready;			/* when it became runnable (with state RUNNABLE) */
	uint64_t delay, wait;		/* its current stretch's: the delay before it and the
					 * whole wait that ended at its switch-in */
	/* totals */
	uint64_t runs, run_ns, run_max;	/* stretches on a CPU ended, their time, the longest */
	uint64_t sleep_ns, iowait_ns, preempt_ns;	/* waits, by how it left */
	uint64_t delays, delay_ns, delay_max;	/* switch-ins after being runnable, their delay */
	uint64_t delay_max_from, delay_max_to;	/* the longest one's start and end */
	uint64_t unseen, unsure_ns;	/* switch-ins not recorded (its switch-out came on a CPU
					 * that the last switch recorded there gave another task),
					 * and the time from its switch-out before (or the CPU's last
					 * switch, if earlier) to the one after each: the run time
					 * may count up to that much too much, the waits and the
					 * delay up to that much too little */
	char short_name[3];		/* map's: "A0", ".", "" until it runs */
	uint32_t map_name;		/* the name (strtab id) the map last gave with it */
};

/* One sched_switch, as timehist and map show it. */
struct kp_sched_switch {
	uint64_t time;
	uint32_t cpu;
	struct kp_sched_task *prev, *next;
	char prev_state;		/* how prev left: 'R', 'S', ... */
	uint64_t run;			/* prev's stretch that ended: its length (0 unknown: the
					 * CPU's last switch was not recorded) */
	uint64_t wait, delay;		/* ... and the wait before it, and its delay part */
	bool named;			/* next got its map name here, or was renamed since */
};

struct kp_sched;
typedef void (*kp_sched_switch_fn)(void *ctx, const struct kp_sched *m,
				   const struct kp_sched_switch *sw);

struct kp_sched_opts {
	const char *input;
	struct kp_dso_opts dso;
	kp_sched_switch_fn on_switch;	/* each switch, in time order (NULL: none) */
	void *ctx;
};

struct kp_sched {
	const struct kp_sched_opts *o;
	struct kp_session s;
	struct kp_tp *tp;
	long ev_switch, ev_waking, ev_new;	/* event indexes, -1 absent, -2 until known;
					 * ev_waking: sched_wakeup's, or sched_waking's */
	struct kp_sched_task *tasks;
	size_t nr, cap;
	struct kp_hash ids;		/* tid, or 1 << 32 | cpu for an idle task -> index */
	uint64_t *cpu_last;		/* per CPU: the last switch's time, 0 none */
	uint32_t *cpu_task;		/* per CPU: index + 1 of the task on it, 0 unknown */
	size_t nr_cpus;			/* the highest CPU seen + 1 */
	char next_name[2];		/* map's next short name */
	unsigned idle_named;		/* the idle tasks' short names given */
	uint64_t switches, wakings;	/* the events replayed (wakings: wakeups too) */
	uint64_t unordered;		/* wakeups earlier than the switch-out they would end */
	uint64_t not_current;		/* switches of a task that was not the one the CPU's last
					 * switch put there (a switch record lost) */
	uint64_t first, last;		/* the first and last event's time */
	bool system_wide;		/* the recording is of every process (META target) */
	int open_err;
};

/*
 * kp_sched_run - replay @o->input into @m. Returns 0; -KP_SCHED_EOPEN (m->open_err says why);
 * -KP_SCHED_ENOSWITCH when it has no sched:sched_switch; or the session's error after what was
 * read before it. Call kp_sched_release() in every case.
 */
int kp_sched_run(struct kp_sched *m, const struct kp_sched_opts *o);
void kp_sched_release(struct kp_sched *m);

/* kp_sched_name - @t's name as of now ("<idle>" for an idle task): its COMM records' where the
 * recording has them, else its events'. Borrowed from @m. */
const char *kp_sched_name(const struct kp_sched *m, const struct kp_sched_task *t);

/* Which tasks the views show: an empty list lets every one through. */
struct kp_sched_filter {
	const int *pids, *tids;		/* borrowed */
	size_t nr_pids, nr_tids;
	char *const *comms;
	size_t nr_comms;
};

/* kp_sched_keep - whether @f lets @t through (its process, its tid, its name). */
bool kp_sched_keep(const struct kp_sched *m, const struct kp_sched_filter *f,
		   const struct kp_sched_task *t);

/* --- the views (sched-show.c), each written to @out ---------------------------------------- */

/* kp_sched_timehist_head, _row - perf sched timehist's lines: a switch-out's time, CPU, task
 * ("comm[tid/pid]"), its wait before the stretch that ended, the scheduling delay part of it
 * and the stretch's run time, in ms. */
void kp_sched_timehist_head(FILE *out);
void kp_sched_timehist_row(FILE *out, const struct kp_sched *m, const struct kp_sched_switch *sw);

/* kp_sched_map_row - perf sched map's line of a switch: the task on each CPU by its short
 * name, '*' at the switch's CPU, and a task's name the first time it runs. */
void kp_sched_map_row(FILE *out, const struct kp_sched *m, const struct kp_sched_switch *sw);

/* kp_sched_latency - perf sched latency's table: per command (its tasks merged), or per task
 * with @by_task: run time, switch-ins after being runnable, their average and longest delay
 * and when it was; the slowest on average first. The idle tasks are left out. */
void kp_sched_latency(FILE *out, const struct kp_sched *m, const struct kp_sched_filter *f,
		      bool by_task);

/* kp_sched_summary - per task: its stretches on a CPU and their time, its waits by state
 * (sleep, I/O, preempted), its scheduling delays, in ms (perf sched timehist -s --state). */
void kp_sched_summary(FILE *out, const struct kp_sched *m, const struct kp_sched_filter *f);

#define KP_SCHED_EOPEN		1200
#define KP_SCHED_ENOSWITCH	1201

#endif /* KP_SCHED_H */

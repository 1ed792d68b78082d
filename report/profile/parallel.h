/* SPDX-License-Identifier: MIT */
/*
 * parallel.h - how many threads of each process are on a CPU at each moment, from the switch
 * records (PERF_RECORD_SWITCH, or _CPU_WIDE with -a: `record --latency` or `--off-cpu`), for
 * `report --latency`: a sample weighs its period divided by that number at its time, as perf
 * 6.15's `report --latency` weighs it, so that the profile says what the process's wall-clock
 * time went to (what its latency is made of) rather than its CPU time: a phase that runs on
 * one thread weighs four times what a phase of the same CPU time on four threads at once
 * weighs. And how long each process ran with 1, 2, ... threads at once: the histogram of
 * `--stats`.
 *
 * A thread runs from its switch-in to its switch-out or its exit. One seen first in a sample
 * (it ran when the recording started) runs from then on; one seen first at its switch-out ran
 * until then, unseen before. A thread's time counts for the process it was last seen in.
 */
#ifndef KP_PARALLEL_H
#define KP_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"

#define KP_PAR_MAX 64	/* the histogram's last row: this many threads at once, or more */

struct kp_par_proc {
	uint32_t running;	/* its threads on a CPU now */
	uint64_t since;		/* since when, ns */
};

struct kp_parallel {
	struct kp_hash threads;		/* tid -> pid << 1 | running */
	struct kp_hash proc_ids;	/* pid -> index into procs */
	struct kp_par_proc *procs;
	size_t nr, cap;
	uint64_t ns[KP_PAR_MAX + 1];	/* [n]: time a process ran with n threads at once */
	uint64_t samples[KP_PAR_MAX + 1];	/* [n]: samples counted at n (kp_parallel_sample()) */
};

void kp_parallel_init(struct kp_parallel *p);
void kp_parallel_release(struct kp_parallel *p);

/* kp_parallel_switch - thread @tid of process @pid switched in (@in) or out at @time. */
void kp_parallel_switch(struct kp_parallel *p, uint32_t pid, uint32_t tid, uint64_t time,
			bool in);

/* kp_parallel_exit - thread @tid of process @pid exited at @time. */
void kp_parallel_exit(struct kp_parallel *p, uint32_t pid, uint32_t tid, uint64_t time);

/*
 * kp_parallel_sample - a sample of thread @tid of process @pid at @time: the thread runs. Returns
 * how many threads of the process run then (1 or more), and with @count counts the sample in
 * that row of p->samples.
 */
unsigned kp_parallel_sample(struct kp_parallel *p, uint32_t pid, uint32_t tid, uint64_t time,
			    bool count);

/* kp_parallel_end - the recording ended at @time: the time of the threads still running counts
 * up to it. */
void kp_parallel_end(struct kp_parallel *p, uint64_t time);

#endif /* KP_PARALLEL_H */

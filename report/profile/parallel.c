/* SPDX-License-Identifier: MIT */
/*
 * parallel.c - the threads of each process on a CPU at each moment (parallel.h).
 */
#include "parallel.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

void kp_parallel_init(struct kp_parallel *p)
{
	memset(p, 0, sizeof(*p));
	kp_hash_init(&p->threads);
	kp_hash_init(&p->proc_ids);
}

void kp_parallel_release(struct kp_parallel *p)
{
	kp_hash_release(&p->threads);
	kp_hash_release(&p->proc_ids);
	free(p->procs);
	memset(p, 0, sizeof(*p));
}

static struct kp_par_proc *proc_of(struct kp_parallel *p, uint32_t pid)
{
	bool added;
	uint64_t *i = kp_hash_add(&p->proc_ids, pid, p->nr, &added);

	if (added) {
		KP_GROW(p->procs, p->cap, p->nr + 1);
		p->procs[p->nr++] = (struct kp_par_proc){ 0, 0 };
	}
	return &p->procs[*i];
}

/* The time @pr ran as it did up to @time, into its row. */
static void account(struct kp_parallel *p, struct kp_par_proc *pr, uint64_t time)
{
	if (pr->running && time > pr->since)
		p->ns[pr->running < KP_PAR_MAX ? pr->running : KP_PAR_MAX] += time - pr->since;
	if (time > pr->since)
		pr->since = time;
}

/* Thread @tid of @pid runs (@run) or not from @time; returns its process. */
static struct kp_par_proc *set(struct kp_parallel *p, uint32_t pid, uint32_t tid, uint64_t time,
			       bool run)
{
	bool added;
	uint64_t *v = kp_hash_add(&p->threads, tid, (uint64_t)pid << 1, &added);
	uint32_t was_pid = (uint32_t)(*v >> 1);
	bool was = *v & 1;
	struct kp_par_proc *pr;

	*v = (uint64_t)pid << 1 | run;
	if (was && (!run || was_pid != pid)) { /* stopped, or its tid is another process's now */
		pr = proc_of(p, was_pid);
		account(p, pr, time);
		pr->running--;
	}
	pr = proc_of(p, pid);
	if (run && (!was || was_pid != pid)) {
		account(p, pr, time);
		pr->running++;
	}
	return pr;
}

void kp_parallel_switch(struct kp_parallel *p, uint32_t pid, uint32_t tid, uint64_t time,
			bool in)
{
	set(p, pid, tid, time, in);
}

void kp_parallel_exit(struct kp_parallel *p, uint32_t pid, uint32_t tid, uint64_t time)
{
	set(p, pid, tid, time, false);
}

unsigned kp_parallel_sample(struct kp_parallel *p, uint32_t pid, uint32_t tid, uint64_t time,
			    bool count)
{
	struct kp_par_proc *pr = set(p, pid, tid, time, true);
	unsigned n = pr->running ? pr->running : 1;

	if (count)
		p->samples[n < KP_PAR_MAX ? n : KP_PAR_MAX]++;
	return n;
}

void kp_parallel_end(struct kp_parallel *p, uint64_t time)
{
	for (size_t i = 0; i < p->nr; i++)
		account(p, &p->procs[i], time);
}

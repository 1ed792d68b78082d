/* SPDX-License-Identifier: MIT */
/*
 * model.h - the processes a recording describes, as they are at one point of it: threads and
 * their comm, processes and their maps. Whoever reads the records (a session, session.h)
 * tells the model what they say: a map added (MMAP/MMAP2 replace what they overlap), a comm
 * set (at exec, the old image's maps dropped), a fork (the parent's maps copied into a new
 * process, or a thread added), an exit. Names (comms, paths, cgroups) are ids of the reader's
 * string table.
 */
#ifndef KP_MODEL_H
#define KP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"
#include "report/symbols/perfmap.h"

#define KP_MAP_ANON 0x1		/* no file: anonymous, JIT code, heap, stack */

/* One mapping of a process; maps of a process are sorted and never overlap. */
struct kp_map {
	uint64_t start, end, pgoff;
	uint32_t dso;		/* its DSO, for a file-backed map: the index its maker gives it
				 * (a session's: into kp_session.dso_list) */
	uint32_t name;		/* strtab id of the mapped path ("//anon", "[vdso]", ...) */
	uint32_t flags;		/* KP_MAP_* */
};

struct kp_proc {
	uint32_t pid;
	/*
	 * Which set of maps the process has: a new value whenever they change, while a forked
	 * child shares its parent's until either changes (unless the parent has anonymous maps,
	 * whose JIT names are each process's own). It keys cached stacks: the stacks of a
	 * thousand forked workers resolve once.
	 */
	uint32_t maps_id;
	struct kp_map *maps;
	size_t nr_maps, cap_maps;
	struct kp_perfmap jit;	/* /tmp/perf-PID.map and its jitdump, loaded on the first
				 * anonymous hit */
	uint64_t jit_read_at;	/* the record time they were last read on at (a miss) */
	uint32_t jitdump;	/* strtab id of the jit-PID.dump it mapped, 0 for none */
	uint32_t cgroup;	/* strtab id of its cgroup (KP_REC_PROC_CGROUP), 0 unknown */
	uint32_t life;		/* which process of its pid it is: 0 for one the recording did
				 * not see forked, a number of its own for each fork (a pid the
				 * kernel gives again, after an exit, names another process) */
};

struct kp_thread {
	uint32_t tid, pid;
	uint32_t comm;		/* strtab id */
	uint32_t proc;		/* index into kp_model.procs */
	bool exited;
	uint32_t life;		/* its process's kp_proc.life when it was forked */
};

/* The processes and threads; zeroed by kp_model_init(). */
struct kp_model {
	struct kp_proc *procs;
	size_t nr_procs, cap_procs;
	uint32_t maps_ids;		/* the last kp_proc.maps_id given */
	uint32_t lives;			/* the last kp_proc.life given */
	struct kp_hash proc_ids;	/* pid -> index */
	struct kp_thread *threads;
	size_t nr_threads, cap_threads;
	/* the threads kp_model_thread() gave lately, by tid: index + 1, 0 none. Samples come
	 * in runs of a CPU's few threads */
	uint32_t recent_threads[64];
	struct kp_hash thread_ids;	/* tid -> index */
	/* the task each CPU ran last, as its records said: pid << 32 | tid by CPU (and ran[cpu]
	 * says whether one did), for the records of a task the kernel no longer names */
	uint64_t *on_cpu;
	bool *ran;
	size_t nr_cpus;
};

void kp_model_init(struct kp_model *m);
void kp_model_release(struct kp_model *m);

/* kp_model_proc - the process @pid (created, with no maps, if new). Valid until the next
 * process is created. */
struct kp_proc *kp_model_proc(struct kp_model *m, uint32_t pid);

/* kp_model_thread - the thread @tid (created, with comm "" and its own process, if new). */
struct kp_thread *kp_model_thread(struct kp_model *m, uint32_t pid, uint32_t tid);

/*
 * The last switch of an exited thread, and what is recorded at it (its sched:sched_switch and
 * context-switches samples, its switch-out record), comes after the kernel released the task:
 * perf gives it pid and tid -1 (4294967295), sched_switch's prev_pid still names it. The
 * records of a CPU come from the task running there, so the one they named last is that
 * thread: its EXIT record, or its switch-in, came on that CPU just before (unless it was
 * preempted after its release, and switched in again as tid -1).
 */
#define KP_MODEL_CPUS_MAX 65536	/* more CPUs than a kernel takes (NR_CPUS is at most 8192) */

/* kp_model_ran - a record of thread @tid of @pid on @cpu: it ran there then (@tid is a task's,
 * not -1). */
void kp_model_ran(struct kp_model *m, uint32_t cpu, uint32_t pid, uint32_t tid);

/* kp_model_known - the thread @tid, or NULL when no record named it. */
const struct kp_thread *kp_model_known(const struct kp_model *m, uint32_t tid);

/* kp_model_released - who a record of pid and tid -1 on @cpu is: the thread @cpu ran last when
 * that one has exited, else NULL (nothing says who it is). */
const struct kp_thread *kp_model_released(struct kp_model *m, uint32_t cpu);

/* kp_model_map - the map of @proc holding @addr, or NULL. */
const struct kp_map *kp_model_map(const struct kp_proc *proc, uint64_t addr);

/*
 * kp_model_mmap - @map into process @pid's sorted maps, cutting away whatever part of older
 * maps it overlaps; with @data (a mapping without code), only the cut: it stays a hole.
 */
void kp_model_mmap(struct kp_model *m, uint32_t pid, const struct kp_map *map, bool data);

/* kp_model_exec - @p runs a new image: the old one's maps and JIT names are gone (the new
 * one's maps follow). */
void kp_model_exec(struct kp_model *m, struct kp_proc *p);

/* kp_model_fork - thread @tid of process @pid forked from @ptid of @ppid, with its comm: a
 * new process starts with a copy of its parent's maps (and its cgroup) and a life of its own. */
void kp_model_fork(struct kp_model *m, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid);

#endif /* KP_MODEL_H */

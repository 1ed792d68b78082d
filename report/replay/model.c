/* SPDX-License-Identifier: MIT */
/*
 * model.c - processes, threads and their maps (see model.h).
 */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/search.h"

void kp_model_init(struct kp_model *m)
{
	memset(m, 0, sizeof(*m));
	kp_hash_init(&m->proc_ids);
	kp_hash_init(&m->thread_ids);
}

void kp_model_release(struct kp_model *m)
{
	for (size_t i = 0; i < m->nr_procs; i++) {
		free(m->procs[i].maps);
		kp_perfmap_release(&m->procs[i].jit);
	}
	free(m->procs);
	free(m->threads);
	free(m->on_cpu);
	free(m->ran);
	kp_hash_release(&m->proc_ids);
	kp_hash_release(&m->thread_ids);
}

struct kp_proc *kp_model_proc(struct kp_model *m, uint32_t pid)
{
	uint64_t *i = kp_hash_get(&m->proc_ids, pid);

	if (i)
		return &m->procs[*i];
	KP_GROW(m->procs, m->cap_procs, m->nr_procs + 1);
	memset(&m->procs[m->nr_procs], 0, sizeof(m->procs[0]));
	m->procs[m->nr_procs].pid = pid;
	kp_hash_put(&m->proc_ids, pid, m->nr_procs);
	return &m->procs[m->nr_procs++];
}

struct kp_thread *kp_model_thread(struct kp_model *m, uint32_t pid, uint32_t tid)
{
	uint64_t *i;
	struct kp_thread *t;
	struct kp_proc *p;
	uint32_t *recent = &m->recent_threads[tid % ARRAY_SIZE(m->recent_threads)];

	if (*recent && m->threads[*recent - 1].tid == tid && m->threads[*recent - 1].pid == pid)
		return &m->threads[*recent - 1];
	i = kp_hash_get(&m->thread_ids, tid);
	if (i && m->threads[*i].pid == pid) {
		*recent = (uint32_t)*i + 1;
		return &m->threads[*i];
	}
	p = kp_model_proc(m, pid);
	if (i) { /* the tid was reused by another process */
		t = &m->threads[*i];
	} else {
		KP_GROW(m->threads, m->cap_threads, m->nr_threads + 1);
		kp_hash_put(&m->thread_ids, tid, m->nr_threads);
		t = &m->threads[m->nr_threads++];
	}
	*t = (struct kp_thread){ tid, pid, 0, (uint32_t)(p - m->procs), false, 0 };
	return t;
}

void kp_model_ran(struct kp_model *m, uint32_t cpu, uint32_t pid, uint32_t tid)
{
	if (cpu >= KP_MODEL_CPUS_MAX)
		return;
	if (cpu >= m->nr_cpus) {
		size_t n = m->nr_cpus ? m->nr_cpus : 64, was = m->nr_cpus;
		while (n <= cpu)
			n *= 2;
		m->on_cpu = kp_xrealloc(m->on_cpu, n * sizeof(*m->on_cpu));
		m->ran = kp_xrealloc(m->ran, n * sizeof(*m->ran));
		memset(m->ran + was, 0, (n - was) * sizeof(*m->ran));
		m->nr_cpus = n;
	}
	m->on_cpu[cpu] = (uint64_t)pid << 32 | tid;
	m->ran[cpu] = true;
}

const struct kp_thread *kp_model_known(const struct kp_model *m, uint32_t tid)
{
	uint64_t *i = kp_hash_get(&m->thread_ids, tid);

	return i ? &m->threads[*i] : NULL;
}

const struct kp_thread *kp_model_released(struct kp_model *m, uint32_t cpu)
{
	const struct kp_thread *t;

	if (cpu >= m->nr_cpus || !m->ran[cpu] ||
	    !(t = kp_model_known(m, (uint32_t)m->on_cpu[cpu])))
		return NULL;
	return t->exited && t->pid == m->on_cpu[cpu] >> 32 ? t : NULL;
}

/*
 * Put @m into @p's sorted maps, cutting away whatever part of older maps it overlaps; with
 * @hole, only cut (a mapping of data, which holds no code to find).
 */
static void insert_map(struct kp_proc *p, const struct kp_map *m, bool hole)
{
	struct kp_map *old = p->maps, *out;
	size_t n = 0, cap = p->nr_maps + 2, pos = 0;

	out = kp_xcalloc(cap, sizeof(*out));
	for (size_t i = 0; i < p->nr_maps; i++) {
		struct kp_map o = old[i];
		if (o.end <= m->start || o.start >= m->end) {
			out[n++] = o;
			continue;
		}
		if (o.start < m->start) { /* the part before the new map survives */
			out[n] = o;
			out[n++].end = m->start;
		}
		if (o.end > m->end) { /* so does the part after it */
			o.pgoff += m->end - o.start;
			o.start = m->end;
			out[n++] = o;
		}
	}
	free(old);
	p->maps = out;
	p->nr_maps = n;
	p->cap_maps = cap;
	if (hole)
		return;
	while (pos < n && out[pos].start < m->start)
		pos++;
	memmove(out + pos + 1, out + pos, (n - pos) * sizeof(*out));
	out[pos] = *m;
	p->nr_maps = n + 1;
}

void kp_model_mmap(struct kp_model *m, uint32_t pid, const struct kp_map *map, bool data)
{
	struct kp_proc *p = kp_model_proc(m, pid);

	insert_map(p, map, data);
	p->maps_id = ++m->maps_ids;
}

const struct kp_map *kp_model_map(const struct kp_proc *proc, uint64_t addr)
{
	/* the last map starting at or below @addr: insert_map() keeps them apart, in order */
	size_t i = KP_FIRST_ABOVE(proc->maps, proc->nr_maps, start, addr);

	return i && addr < proc->maps[i - 1].end ? &proc->maps[i - 1] : NULL;
}

void kp_model_exec(struct kp_model *m, struct kp_proc *p)
{
	p->nr_maps = 0;
	kp_perfmap_release(&p->jit);
	p->jitdump = 0;
	p->maps_id = ++m->maps_ids;
}

void kp_model_fork(struct kp_model *m, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid)
{
	uint32_t comm = kp_model_thread(m, ppid, ptid)->comm;
	struct kp_thread *t;

	if (pid != ppid) { /* a new process starts with a copy of its parent's maps */
		struct kp_proc *parent = kp_model_proc(m, ppid), *child;
		size_t n = parent->nr_maps;
		struct kp_map *maps = kp_xcalloc(n ? n : 1, sizeof(*maps));
		if (n)
			memcpy(maps, parent->maps, n * sizeof(*maps));
		uint32_t cgroup = parent->cgroup, parent_maps = parent->maps_id;
		bool anon = false;

		for (size_t i = 0; i < n; i++)
			anon |= (maps[i].flags & KP_MAP_ANON) != 0;

		child = kp_model_proc(m, pid); /* may move parent */
		if (!child->cgroup) /* until its own record says otherwise */
			child->cgroup = cgroup;
		free(child->maps);
		kp_perfmap_release(&child->jit);
		child->jitdump = 0;
		child->pid = pid;
		child->maps = maps;
		child->nr_maps = child->cap_maps = n;
		child->maps_id = anon ? ++m->maps_ids : parent_maps;
		child->life = ++m->lives;
	}
	t = kp_model_thread(m, pid, tid);
	t->comm = comm;
	t->exited = false;
	t->life = m->procs[t->proc].life;
}

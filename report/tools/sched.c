/* SPDX-License-Identifier: MIT */
/*
 * sched.c - the scheduler's view of a recording (sched.h).
 */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

/* The task @tid (the idle task of @cpu for 0), made if new. */
static struct kp_sched_task *task_of(struct kp_sched *m, uint32_t tid, uint32_t cpu)
{
	uint64_t key = tid ? tid : 1ull << 32 | cpu;
	bool added;
	uint64_t *i = kp_hash_add(&m->ids, key, m->nr, &added);
	struct kp_sched_task *t;

	if (added) {
		KP_GROW(m->tasks, m->cap, m->nr + 1);
		m->tasks[m->nr++] = (struct kp_sched_task){ .tid = tid, .cpu = tid ? -1 : (int)cpu };
	}
	t = &m->tasks[*i];
	if (tid && !t->pid) { /* its process, once a record names it */
		const struct kp_thread *th = kp_model_known(&m->s.model, tid);

		t->pid = th ? th->pid : 0;
	}
	return t;
}

/* @t's name now, a strtab id: its COMM records' where the recording has them (as perf names
 * it), else its events' fields'. */
static uint32_t name_id(const struct kp_sched *m, const struct kp_sched_task *t)
{
	const struct kp_thread *th = kp_model_known(&m->s.model, t->tid);

	return th && th->comm ? th->comm : t->comm;
}

const char *kp_sched_name(const struct kp_sched *m, const struct kp_sched_task *t)
{
	return t->cpu >= 0 ? "<idle>" : kp_strtab_get(&m->s.strs, name_id(m, t));
}

static bool in_list(const int *v, size_t nr, uint32_t x)
{
	for (size_t i = 0; i < nr; i++)
		if ((uint32_t)v[i] == x)
			return true;
	return !nr;
}

bool kp_sched_keep(const struct kp_sched *m, const struct kp_sched_filter *f,
		   const struct kp_sched_task *t)
{
	if (!in_list(f->pids, f->nr_pids, t->pid) || !in_list(f->tids, f->nr_tids, t->tid))
		return false;
	for (size_t i = 0; i < f->nr_comms; i++)
		if (!strcmp(kp_sched_name(m, t), f->comms[i]))
			return true;
	return !f->nr_comms;
}

/* An integer field of @smp's payload, 0 when it has none (the caller checked the event). */
static uint64_t field(struct kp_sched *m, const struct kp_sample *smp, const char *name)
{
	uint64_t v = 0;

	if (smp->raw_size)
		kp_tp_field(m->tp, smp->raw, smp->raw_size, name, 0, &v);
	return v;
}

/* @t's name from the string field @name of @smp, when it has one. */
static void name_from(struct kp_sched *m, struct kp_sched_task *t, const struct kp_sample *smp,
		      const char *name)
{
	char comm[64];

	if (smp->raw_size && !kp_tp_field_str(m->tp, smp->raw, smp->raw_size, name, comm,
					      sizeof(comm)))
		t->comm = kp_strtab_intern(&m->s.strs, comm);
}

/* sched_switch's prev_state as a letter, as the kernel prints it: R for runnable (0, or
 * TASK_REPORT_MAX for preempted), else the lowest state bit's. */
static char state_letter(uint64_t state)
{
	static const char letters[] = "SDTtXZPI";

	state &= 0xff;
	for (int b = 0; b < 8; b++)
		if (state & (1u << b))
			return letters[b];
	return 'R';
}

/* The map's short names, as perf gives them: A0 to Z0, A1 ..., '.' for the idle task. */
static bool name_for_map(struct kp_sched *m, struct kp_sched_task *t)
{
	if (t->cpu >= 0) { /* one name for every CPU's, said once */
		t->short_name[0] = '.';
		return !m->idle_named++;
	}
	t->short_name[0] = m->next_name[0];
	t->short_name[1] = m->next_name[1];
	if (m->next_name[0] < 'Z') {
		m->next_name[0]++;
	} else {
		m->next_name[0] = 'A';
		m->next_name[1] = m->next_name[1] < '9' ? (char)(m->next_name[1] + 1) : '0';
	}
	return true;
}

static void grow_cpus(struct kp_sched *m, uint32_t cpu)
{
	size_t n = m->nr_cpus;

	if (cpu < n)
		return;
	m->nr_cpus = (size_t)cpu + 1;
	m->cpu_last = kp_xrealloc(m->cpu_last, m->nr_cpus * sizeof(*m->cpu_last));
	m->cpu_task = kp_xrealloc(m->cpu_task, m->nr_cpus * sizeof(*m->cpu_task));
	memset(m->cpu_last + n, 0, (m->nr_cpus - n) * sizeof(*m->cpu_last));
	memset(m->cpu_task + n, 0, (m->nr_cpus - n) * sizeof(*m->cpu_task));
}

/* @t waited @ns off the CPU, as it left it: sleeping (S and the others), in I/O (D) or
 * runnable (R). Returns @ns. */
static uint64_t add_wait(struct kp_sched_task *t, uint64_t ns)
{
	if (t->left == 'R')
		t->preempt_ns += ns;
	else if (t->left == 'D')
		t->iowait_ns += ns;
	else
		t->sleep_ns += ns;
	return ns;
}

/* @next comes on a CPU at @time: the delay and the wait that end there. */
static void switched_in(struct kp_sched_task *next, uint64_t time)
{
	uint64_t delay = 0, wait = 0;

	if (next->state == KP_SCHED_UNSEEN) {
		next->delays++; /* perf's: first seen runnable at its switch-in, a delay of 0 */
	} else if (next->state == KP_SCHED_RUNNABLE && time >= next->ready) {
		delay = time - next->ready;
		next->delays++;
		next->delay_ns += delay;
		if (delay > next->delay_max || next->delays == 1) {
			next->delay_max = delay;
			next->delay_max_from = next->ready;
			next->delay_max_to = time;
		}
	}
	if (next->out && time >= next->out)
		wait = add_wait(next, time - next->out);
	next->state = KP_SCHED_RUNNING;
	next->delay = delay;
	next->wait = wait;
}

static void on_switch(struct kp_sched *m, const struct kp_sample *smp)
{
	uint32_t cpu = smp->cpu;
	struct kp_sched_switch sw = { .time = smp->time, .cpu = cpu };
	struct kp_sched_task *prev, *next;
	size_t prev_i;

	grow_cpus(m, cpu);
	prev = task_of(m, (uint32_t)field(m, smp, "prev_pid"), cpu);
	prev_i = (size_t)(prev - m->tasks);
	next = task_of(m, (uint32_t)field(m, smp, "next_pid"), cpu);
	prev = &m->tasks[prev_i]; /* the table may have moved */
	name_from(m, prev, smp, "prev_comm");
	name_from(m, next, smp, "next_comm");
	sw.wait = prev->wait;
	sw.delay = prev->delay;
	if (m->cpu_task[cpu] && m->cpu_task[cpu] - 1 != prev_i) {
		/* its switch-in was not recorded: it came on this CPU at a time unknown since its
		 * last switch-out. perf takes the CPU's last switch for it, and so do the run time
		 * and the wait (no delay is counted); how much time is unsure is counted apart */
		uint64_t from = prev->out && prev->out < m->cpu_last[cpu] ? prev->out : m->cpu_last[cpu];

		m->not_current++;
		prev->unseen++;
		prev->unsure_ns += sw.time > from ? sw.time - from : 0;
		sw.delay = sw.wait = 0;
		if (prev->out && m->cpu_last[cpu] >= prev->out)
			sw.wait = add_wait(prev, m->cpu_last[cpu] - prev->out);
	}
	/* prev's stretch: from the switch that put it on this CPU */
	sw.prev_state = state_letter(field(m, smp, "prev_state"));
	if (m->cpu_last[cpu] && sw.time >= m->cpu_last[cpu])
		sw.run = sw.time - m->cpu_last[cpu];
	prev->runs++;
	prev->run_ns += sw.run;
	if (sw.run > prev->run_max)
		prev->run_max = sw.run;
	prev->wait = prev->delay = 0;
	prev->left = sw.prev_state;
	prev->out = sw.time;
	prev->state = sw.prev_state == 'R' ? KP_SCHED_RUNNABLE : KP_SCHED_WAITING;
	prev->ready = sw.time;
	switched_in(next, sw.time);
	if (!next->short_name[0]) {
		sw.named = name_for_map(m, next);
	} else if (next->cpu < 0 && name_id(m, next) != next->map_name) {
		sw.named = true; /* renamed since the map named it */
	}
	if (next->cpu < 0)
		next->map_name = name_id(m, next);
	m->cpu_last[cpu] = sw.time;
	m->cpu_task[cpu] = (uint32_t)(next - m->tasks) + 1;
	sw.prev = prev;
	sw.next = next;
	m->switches++;
	if (m->o->on_switch)
		m->o->on_switch(m->o->ctx, m, &sw);
}

/* A wakeup (or a new task's, or a waking): a waiting task becomes runnable. */
static void on_waking(struct kp_sched *m, const struct kp_sample *smp)
{
	uint32_t tid = (uint32_t)field(m, smp, "pid");
	struct kp_sched_task *t;

	if (!tid) /* the idle task is never woken */
		return;
	t = task_of(m, tid, 0);
	name_from(m, t, smp, "comm");
	m->wakings++;
	if (t->state == KP_SCHED_WAITING && t->out > smp->time) {
		m->unordered++;
		return;
	}
	if (t->state == KP_SCHED_WAITING || t->state == KP_SCHED_UNSEEN) {
		t->state = KP_SCHED_RUNNABLE;
		t->ready = smp->time;
	}
}

static long event_named(const struct kp_session *s, const char *name)
{
	for (size_t e = 0; e < s->evl.nr; e++)
		if (!strcmp(s->evl.ev[e].name, name) || !strcmp(s->evl.ev[e].spec, name))
			return (long)e;
	return -1;
}

static void find_events(struct kp_sched *m)
{
	m->ev_switch = event_named(&m->s, "sched:sched_switch");
	m->ev_waking = event_named(&m->s, "sched:sched_wakeup");
	if (m->ev_waking < 0) /* perf sched record's choice where the kernel has it */
		m->ev_waking = event_named(&m->s, "sched:sched_waking");
	m->ev_new = event_named(&m->s, "sched:sched_wakeup_new");
}

static int on_own(void *ctx, struct kp_session *s, const struct kp_rec_header *rec)
{
	struct kp_sched *m = ctx;
	const char *key, *value;

	kp_tp_add_record(m->tp, rec);
	if (rec->type == KP_REC_META) {
		kp_rec_meta_view(rec, &key, &value);
		if (!strcmp(key, "target"))
			m->system_wide = !strcmp(value, "system-wide");
	}
	if (rec->type != KP_REC_ATTR && m->ev_switch == -2) {
		find_events(m);
		if (m->ev_switch < 0 && s->evl.nr)
			return -KP_SCHED_ENOSWITCH;
	}
	return 0;
}

static int on_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *t)
{
	struct kp_sched *m = ctx;
	long e = (long)(ev - s->evl.ev);

	(void)rec;
	(void)t;
	if (!(smp->sample_type & PERF_SAMPLE_RAW) || !(smp->sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (e != m->ev_switch && e != m->ev_waking && e != m->ev_new)
		return 0;
	if (!m->first)
		m->first = smp->time;
	m->last = smp->time;
	if (e == m->ev_switch)
		on_switch(m, smp);
	else
		on_waking(m, smp);
	return 0;
}

int kp_sched_run(struct kp_sched *m, const struct kp_sched_opts *o)
{
	static const struct kp_session_ops ops = { .own = on_own, .sample = on_sample };
	int rc;

	memset(m, 0, sizeof(*m));
	m->o = o;
	m->tp = kp_tp_new();
	m->ev_switch = m->ev_waking = m->ev_new = -2;
	m->next_name[0] = 'A';
	m->next_name[1] = '0';
	kp_hash_init(&m->ids);
	m->open_err = kp_session_open(&m->s, o->input, &o->dso);
	if (m->open_err)
		return -KP_SCHED_EOPEN;
	rc = kp_session_run(&m->s, &ops, m);
	if (m->ev_switch == -2)
		find_events(m);
	if (m->ev_switch < 0)
		return -KP_SCHED_ENOSWITCH;
	return rc;
}

void kp_sched_release(struct kp_sched *m)
{
	kp_session_release(&m->s);
	kp_tp_free(m->tp);
	kp_hash_release(&m->ids);
	free(m->tasks);
	free(m->cpu_last);
	free(m->cpu_task);
	memset(m, 0, sizeof(*m));
}

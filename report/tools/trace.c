/* SPDX-License-Identifier: MIT */
/*
 * trace.c - system calls paired from their entries and exits (trace.h).
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/replay/syscall.h"

static struct kp_trace_thread *thread_of(struct kp_trace *t, const struct kp_sample *smp,
					 const struct kp_thread *th)
{
	bool added;
	uint64_t *i = kp_hash_add(&t->thread_ids, smp->tid, t->nr_threads, &added);
	struct kp_trace_thread *x;

	if (added) {
		KP_GROW(t->threads, t->cap_threads, t->nr_threads + 1);
		t->threads[t->nr_threads++] = (struct kp_trace_thread){ .pid = smp->pid,
									.tid = smp->tid };
	}
	x = &t->threads[*i];
	if (smp->pid != UINT32_MAX) /* the kernel says -1 once the thread is exiting: keep its pid */
		x->pid = smp->pid;
	if (th && th->comm)
		x->comm = th->comm;
	return x;
}

static struct kp_trace_stat *stat_of(struct kp_trace *t, const struct kp_trace_thread *x, long nr)
{
	uint32_t thread = (uint32_t)(x - t->threads);
	uint64_t key = (uint64_t)thread << 32 | (uint32_t)nr, *i = kp_hash_get(&t->stat_ids, key);

	if (i)
		return &t->stats[*i];
	KP_GROW(t->stats, t->cap_stats, t->nr_stats + 1);
	t->stats[t->nr_stats] = (struct kp_trace_stat){ .thread = thread, .nr = nr,
							.min = UINT64_MAX };
	kp_hash_put(&t->stat_ids, key, t->nr_stats);
	return &t->stats[t->nr_stats++];
}

static bool wanted(const struct kp_trace *t, long nr)
{
	return !t->only || (nr >= 0 && nr < kp_syscall_max() && t->only[nr]);
}

static void who(const struct kp_trace *t, const struct kp_trace_thread *x, struct kp_trace_call *c)
{
	c->pid = x->pid;
	c->tid = x->tid;
	c->comm = kp_strtab_get(&t->s.strs, x->comm);
}

/* Whether @c, the first event of thread @x and an exit without its entry, is the return that
 * begins the thread: 1 for its exec, as the kernel enables tracing there (a call of the thread,
 * counted apart); 2 for its return from its parent's clone, fork or vfork (no call of its own,
 * counted nowhere, as strace -c counts it once, in the parent). 0 otherwise. */
static int begins_thread(const struct kp_trace_thread *x, const struct kp_trace_call *c)
{
	static const char *const starts[] = { "execve", "execveat", "clone", "clone3", "fork",
					      "vfork" };
	const char *n = kp_syscall_name(c->nr);

	for (size_t i = 0; x->events == 1 && n && i < ARRAY_SIZE(starts); i++)
		if (!strcmp(n, starts[i]))
			return i < 2 ? 1 : c->ret == 0 ? 2 : 0;
	return 0;
}

/* Hand call @c of thread @x on, and count it; without an exit, @lost says whether another
 * entry came first (its exit lost) or the recording ended. */
static void done(struct kp_trace *t, struct kp_trace_thread *x, struct kp_trace_call *c,
		 bool lost)
{
	struct kp_trace_stat *st;
	int begun;

	if (!wanted(t, c->nr))
		return;
	who(t, x, c);
	begun = c->enter ? 0 : begins_thread(x, c);
	st = begun == 2 ? NULL : stat_of(t, x, c->nr);
	if (begun) {
		t->no_entry_begun++;
		if (st)
			st->no_entry++;
	} else if (!c->enter) {
		st->no_entry++;
		t->no_entry++;
	} else if (!c->exit) {
		st->no_exit++;
		if (kp_syscall_never_returns(c->nr))
			t->no_return++;
		else if (lost)
			t->lost_exit++;
		else
			t->no_exit++;
	} else {
		uint64_t d = c->exit >= c->enter ? c->exit - c->enter : 0;
		st->calls++;
		st->errors += c->ret < 0 && c->ret > -4096;
		st->total += d;
		st->min = d < st->min ? d : st->min;
		st->max = d > st->max ? d : st->max;
		st->sumsq += (double)d * (double)d;
		t->calls++;
	}
	if (t->fn)
		t->fn(t->ctx, c);
}

/* The entry @x left open ends without its exit (@lost: another entry came first). */
static void close_open(struct kp_trace *t, struct kp_trace_thread *x, uint32_t cpu, bool lost)
{
	struct kp_trace_call c = { .cpu = cpu, .nr = (long)x->open_nr, .enter = x->open_at,
				   .part = x->open_shown ? KP_TRACE_RESUMED : KP_TRACE_WHOLE };

	if (!x->open)
		return;
	memcpy(c.args, x->open_args, sizeof(c.args));
	x->open = false;
	done(t, x, &c, lost);
}

static int on_own(void *ctx, struct kp_session *s, const struct kp_rec_header *rec)
{
	struct kp_trace *t = ctx;

	(void)s;
	kp_tp_add_record(t->tp, rec);
	return 0;
}

static int on_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *th)
{
	struct kp_trace *t = ctx;
	int e = (int)(ev - s->evl.ev);
	struct kp_trace_thread *x;
	uint64_t nr, v;

	(void)rec;
	if ((e != t->enter_ev && e != t->exit_ev) || !(smp->sample_type & PERF_SAMPLE_TID) ||
	    (t->skip_pid && smp->pid == t->skip_pid))
		return 0;
	if (!smp->raw_size || kp_tp_field(t->tp, smp->raw, smp->raw_size, "id", 0, &nr)) {
		t->bad++;
		return 0;
	}
	x = thread_of(t, smp, th);
	x->events++;
	t->first = t->first && t->first < smp->time ? t->first : smp->time;
	t->last = smp->time > t->last ? smp->time : t->last;
	if (e == t->enter_ev) {
		close_open(t, x, smp->cpu, true);
		for (unsigned i = 0; i < 6; i++)
			x->open_args[i] = kp_tp_field(t->tp, smp->raw, smp->raw_size, "args", i, &v)
					  ? 0 : v;
		x->open_nr = nr;
		x->open_at = smp->time ? smp->time : 1;
		x->open = true;
		x->open_shown = false;
		if (kp_syscall_never_returns((long)nr)) /* shown now, "= ?", as strace does */
			close_open(t, x, smp->cpu, false);
		return 0;
	}
	struct kp_trace_call c = { .cpu = smp->cpu, .nr = (long)nr, .exit = smp->time ? smp->time : 1 };
	if (!kp_tp_field(t->tp, smp->raw, smp->raw_size, "ret", 0, &v))
		c.ret = (int64_t)v;
	if (x->open && (int64_t)nr == -1) /* rt_sigreturn put back registers that say no call */
		c.nr = (long)(nr = x->open_nr);
	if (x->open && x->open_nr == nr) {
		c.enter = x->open_at;
		memcpy(c.args, x->open_args, sizeof(c.args));
		c.part = x->open_shown ? KP_TRACE_RESUMED : KP_TRACE_WHOLE;
		x->open = false;
	} else {
		close_open(t, x, smp->cpu, true); /* an entry of another call: its exit was lost */
	}
	done(t, x, &c, false);
	return 0;
}

static void find_events(struct kp_trace *t)
{
	t->enter_ev = t->exit_ev = -1;
	for (size_t e = 0; e < t->s.evl.nr; e++) {
		if (!strcmp(t->s.evl.ev[e].name, "raw_syscalls:sys_enter"))
			t->enter_ev = (int)e;
		else if (!strcmp(t->s.evl.ev[e].name, "raw_syscalls:sys_exit"))
			t->exit_ev = (int)e;
	}
}

/* The ATTR records come first: the first record that is not one finds the events. */
static int on_first(void *ctx, struct kp_session *s, const struct kp_rec_header *rec)
{
	struct kp_trace *t = ctx;

	if (rec->type != KP_REC_ATTR && t->enter_ev == -2) {
		find_events(t);
		/* without any event, read on: the damage that lost them is said at the end */
		if ((t->enter_ev < 0 || t->exit_ev < 0) && s->evl.nr)
			return -KP_TRACE_ENOEVENTS;
	}
	return on_own(ctx, s, rec);
}

static const struct kp_session_ops trace_ops = { .own = on_first, .sample = on_sample };

static void setup(struct kp_trace *t, const bool *only, kp_trace_call_fn fn, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->tp = kp_tp_new();
	kp_hash_init(&t->thread_ids);
	kp_hash_init(&t->stat_ids);
	t->only = only;
	t->fn = fn;
	t->ctx = ctx;
	t->enter_ev = -2; /* found once the events are known */
}

/* The replay ended with @rc: the events it had, and the calls still in flight. */
static int ended(struct kp_trace *t, int rc)
{
	if (t->enter_ev == -2) /* a file of ATTR records only */
		find_events(t);
	if (t->enter_ev < 0 || t->exit_ev < 0)
		return -KP_TRACE_ENOEVENTS;
	for (size_t i = 0; i < t->nr_threads; i++) /* still in flight when the recording ended */
		close_open(t, &t->threads[i], 0, false);
	return rc;
}

int kp_trace_run(struct kp_trace *t, const char *input, const bool *only, kp_trace_call_fn fn,
		 void *ctx)
{
	struct kp_dso_opts dso = { 0 };

	setup(t, only, fn, ctx);
	t->open_err = kp_session_open(&t->s, input, &dso);
	if (t->open_err)
		return -KP_TRACE_EOPEN;
	return ended(t, kp_session_run(&t->s, &trace_ops, t));
}

void kp_trace_init(struct kp_trace *t, const bool *only, kp_trace_call_fn fn, void *ctx)
{
	struct kp_dso_opts dso = { 0 };

	setup(t, only, fn, ctx);
	kp_session_init(&t->s, &dso);
	kp_session_start(&t->s, &trace_ops, t);
}

int kp_trace_sink(void *ctx, uint8_t **buf, size_t *cap, size_t len, uint32_t nrec)
{
	struct kp_trace *t = ctx;

	(void)cap;
	(void)nrec;
	if (!t->err)
		t->err = kp_session_feed_chunk(&t->s, *buf, len);
	return t->err;
}

void kp_trace_pending(struct kp_trace *t, uint64_t before)
{
	for (size_t i = 0; i < t->nr_threads; i++) {
		struct kp_trace_thread *x = &t->threads[i];
		struct kp_trace_call c = { .nr = (long)x->open_nr, .enter = x->open_at,
					   .part = KP_TRACE_UNFINISHED };

		if (!x->open || x->open_shown || x->open_at >= before || !wanted(t, c.nr))
			continue;
		x->open_shown = true;
		memcpy(c.args, x->open_args, sizeof(c.args));
		who(t, x, &c);
		if (t->fn)
			t->fn(t->ctx, &c);
	}
}

int kp_trace_end(struct kp_trace *t)
{
	int rc = kp_session_end(&t->s);

	return ended(t, t->err ? t->err : rc);
}

void kp_trace_release(struct kp_trace *t)
{
	kp_session_release(&t->s);
	kp_tp_free(t->tp);
	kp_hash_release(&t->thread_ids);
	kp_hash_release(&t->stat_ids);
	free(t->threads);
	free(t->stats);
	memset(t, 0, sizeof(*t));
}

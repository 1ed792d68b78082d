/* SPDX-License-Identifier: MIT */
#include "online.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "formats/util.h"
#include "report/session.h"
#include "report/unwind.h"

/* a closed chunk of the recorder's, waiting for the thread */
struct chunk {
	struct chunk *next;
	size_t len, cap;
	uint64_t queued_ns;	/* CLOCK_MONOTONIC when the recorder handed it over */
	uint8_t data[];
};

/* A chunk waiting longer than this is written with its copies: no more than about a second of
 * recording (the recorder's chunk age, then this) is ever only in memory. */
#define MAX_WAIT_NS 500000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Chunks the thread is done with, kept for the recorder to fill again: in steady state the
 * drain loop neither allocates nor frees, so it never waits for a lock (malloc's arena, or
 * this stage's) held by the thread while that thread, below it in priority, is not running. */
#define SPARES 8

struct kp_online {
	pthread_t thread;
	bool running;
	pthread_mutex_t mu;
	pthread_cond_t work, space;	/* a chunk was queued / one was taken */
	struct chunk *head, *tail;
	struct chunk *spare;		/* done with, for sink() to reuse */
	size_t nr_spare;
	size_t queued;			/* bytes in the queue */
	size_t backlog;			/* beyond this, chunks keep their copies */
	size_t hard;			/* beyond this, the recorder waits */
	uint64_t waits;			/* ... how often it did */
	bool eof;
	int err;			/* the file writer's, under mu */
	/* the thread's own */
	struct kp_writer out;
	struct kp_session s;
	struct kp_unwinder *u;
	bool behind;			/* the chunk being replayed waited too long or found the
					 * backlog full */
	struct kp_rec_unwind_stats st;
	uint64_t chain[KP_UNWIND_CHAIN_MAX];
};

/* --- the records, as the session gives them ---------------------------------------------- */

static int put_own(void *ctx, struct kp_session *s, const struct kp_rec_header *rec)
{
	struct kp_online *on = ctx;

	(void)s;
	if (rec->type == KP_REC_ROUND) /* after the records it made final: rounds stay rounds */
		kp_writer_round(&on->out);
	else
		kp_writer_add(&on->out, rec);
	return 0;
}

static int put_side(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		    const struct kp_rec_header *rec, const struct kp_sample *id)
{
	(void)ev;
	(void)id;
	return put_own(ctx, s, rec);
}

/* Offset of @p in @rec, which holds it. */
static size_t off_in(const struct kp_rec_header *rec, const void *p)
{
	return (size_t)((const uint8_t *)p - (const uint8_t *)rec);
}

/*
 * @rec with @chain (@n entries) as its call chain, and with no registers and no stack copy:
 * abi PERF_SAMPLE_REGS_ABI_NONE (no registers follow) and stack size 0 (no data, no dyn_size).
 * Returns false, writing nothing, when the result would not fit in a record.
 */
static bool put_unwound(struct kp_online *on, const struct kp_sample *smp,
			const struct kp_rec_header *rec, const uint64_t *chain, size_t n)
{
	size_t cc = off_in(rec, smp->callchain) - 8;	/* the chain's nr */
	size_t cc_end = cc + 8 + smp->nr_callchain * 8;
	size_t regs = off_in(rec, smp->regs_user) - 8;	/* the registers' abi */
	size_t stack_end = off_in(rec, smp->stack_data) + smp->stack_size + 8; /* past dyn_size */
	size_t size = cc + 8 + n * 8 + (regs - cc_end) + 16 + (rec->size - stack_end);
	const uint64_t none[2] = { 0, 0 };
	uint64_t nr = n;
	uint8_t *p, *dst;

	if (size > KP_REC_MAX_SIZE || cc_end > regs || stack_end > rec->size)
		return false;
	dst = p = kp_writer_reserve(&on->out, size);
	memcpy(p, rec, cc);
	p += cc;
	memcpy(p, &nr, 8);
	memcpy(p + 8, chain, n * 8);
	p += 8 + n * 8;
	memcpy(p, (const uint8_t *)rec + cc_end, regs - cc_end);
	p += regs - cc_end;
	memcpy(p, none, 16);
	p += 16;
	memcpy(p, (const uint8_t *)rec + stack_end, rec->size - stack_end);
	((struct kp_rec_header *)dst)->size = (uint16_t)size;
	kp_writer_commit(&on->out, size, 1);
	return true;
}

static int put_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		      const struct kp_sample *smp, const struct kp_rec_header *rec,
		      struct kp_thread *t)
{
	struct kp_online *on = ctx;
	size_t n, nr_user;

	(void)ev;
	/* a stack copy to unwind, and a call chain to put the result in */
	if (!(smp->sample_type & PERF_SAMPLE_CALLCHAIN) || !kp_unwind_has_copy(smp))
		return put_own(ctx, s, rec);
	on->st.samples++;
	if (on->behind) {
		on->st.kept_behind++;
		return put_own(ctx, s, rec);
	}
	n = kp_unwind_chain(on->u, smp, t, on->chain, ARRAY_SIZE(on->chain), &nr_user);
	if (!nr_user || !put_unwound(on, smp, rec, on->chain, n)) {
		on->st.kept_failed++;
		return put_own(ctx, s, rec);
	}
	on->st.unwound++;
	return 0;
}

static const struct kp_session_ops ops = {
	.own = put_own,
	.sample = put_sample,
	.side = put_side,
	.unparsed = put_own,
};

/* --- the thread ---------------------------------------------------------------------------- */

static void replay(struct kp_online *on, const struct chunk *c)
{
	const uint8_t *p = c->data, *end = c->data + c->len;

	while (end - p >= (ptrdiff_t)sizeof(struct kp_rec_header)) {
		const struct kp_rec_header *rec = (const void *)p;
		if (rec->size < sizeof(*rec) || rec->size > end - p)
			break; /* the rings' records are whole: this cannot happen */
		kp_session_feed(&on->s, rec);
		p += rec->size;
	}
}

/*
 * Below the drain loop, which runs at nice -10 where it may (recorder.c): batch scheduling and
 * 5 nice levels down. Measured on a fork storm that fills both CPUs (100 children of 40 ms at
 * 4 kHz): SCHED_IDLE or nice 19 starve this thread, which must still write every chunk, once a
 * command keeps the CPUs busy for long; at nice 0 it takes CPU the drain loop needs.
 */
static void lower_priority(void)
{
	struct sched_param sp = { 0 };
	int nice;

	pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0); /* this thread's, on Linux */
	if (!errno)
		setpriority(PRIO_PROCESS, 0, nice + 5 > 19 ? 19 : nice + 5);
}

static void *run(void *arg)
{
	struct kp_online *on = arg;
	struct timespec cpu;

	lower_priority();
	pthread_mutex_lock(&on->mu);
	for (;;) {
		struct chunk *c;
		while (!on->head && !on->eof)
			pthread_cond_wait(&on->work, &on->mu);
		if (!(c = on->head))
			break;
		on->head = c->next;
		/* a file being converted waits for the thread instead: nothing is kept then */
		on->behind = on->queued > on->backlog ||
			     (on->backlog != KP_ONLINE_NEVER_BEHIND &&
			      now_ns() - c->queued_ns > MAX_WAIT_NS);
		pthread_mutex_unlock(&on->mu);
		if (!on->out.err)
			replay(on, c);
		/* each chunk goes out as soon as it is unwound: the metadata at once, as without
		 * this stage, and the rest no later than the recorder's writer closes by age */
		kp_writer_flush(&on->out);
		pthread_mutex_lock(&on->mu);
		on->queued -= c->len;
		on->err = on->out.err;
		if (on->nr_spare < SPARES) {
			c->next = on->spare;
			on->spare = c;
			on->nr_spare++;
			c = NULL;
		}
		pthread_cond_signal(&on->space);
		pthread_mutex_unlock(&on->mu);
		free(c);
		pthread_mutex_lock(&on->mu);
	}
	pthread_mutex_unlock(&on->mu);
	on->behind = false;
	kp_session_end(&on->s);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	on->st.cpu_ns = cpu.tv_sec * 1000000000ull + cpu.tv_nsec;
	return NULL;
}

/* The recorder's writer closed a chunk: queue a copy, waiting while the queue is full. */
static int sink(void *ctx, const uint8_t *buf, size_t len, uint32_t nrec)
{
	struct kp_online *on = ctx;
	struct chunk *c;
	int err;

	(void)nrec;
	pthread_mutex_lock(&on->mu);
	if ((c = on->spare)) {
		on->spare = c->next;
		on->nr_spare--;
	}
	pthread_mutex_unlock(&on->mu);
	if (!c || c->cap < len) {
		free(c);
		c = kp_xmalloc(sizeof(*c) + len);
		c->cap = len;
	}
	c->next = NULL;
	c->len = len;
	c->queued_ns = now_ns();
	memcpy(c->data, buf, len);
	pthread_mutex_lock(&on->mu);
	/* the one wait: memory, far beyond the backlog (chunks past it are only copied) */
	if (on->queued > on->hard && on->running)
		on->waits++;
	while (on->queued > on->hard && on->running)
		pthread_cond_wait(&on->space, &on->mu);
	if (on->head)
		on->tail->next = c;
	else
		on->head = c;
	on->tail = c;
	on->queued += len;
	if (on->queued > on->st.backlog_max)
		on->st.backlog_max = on->queued;
	err = on->err;
	pthread_cond_signal(&on->work);
	pthread_mutex_unlock(&on->mu);
	return err;
}

struct kp_online *kp_online_start(int fd, int level, size_t backlog, size_t reserve,
				  struct kp_writer *in, int *err)
{
	struct kp_online *on = kp_xcalloc(1, sizeof(*on));
	struct kp_dso_opts dso = { .inline_frames = false };
	sigset_t all, old;

	pthread_mutex_init(&on->mu, NULL);
	pthread_cond_init(&on->work, NULL);
	pthread_cond_init(&on->space, NULL);
	on->backlog = backlog;
	on->hard = backlog == KP_ONLINE_NEVER_BEHIND ? (size_t)64 << 20
						     : backlog + ((size_t)256 << 20);
	kp_session_init(&on->s, &dso);
	kp_session_start(&on->s, &ops, on);
	on->u = kp_unwinder_new(&on->s, KP_UNWIND_LIBDW);
	if ((*err = kp_writer_init(&on->out, fd, level, KP_WRITER_CHUNK))) {
		kp_online_free(on);
		return NULL;
	}
	kp_writer_init_sink(in, sink, on, reserve);
	/* signals are the recorder's: the thread never takes them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	*err = -pthread_create(&on->thread, NULL, run, on);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (*err) {
		kp_online_free(on);
		return NULL;
	}
	on->running = true;
	return on;
}

static void stop(struct kp_online *on)
{
	if (!on->running)
		return;
	pthread_mutex_lock(&on->mu);
	on->eof = true;
	pthread_cond_signal(&on->work);
	pthread_mutex_unlock(&on->mu);
	pthread_join(on->thread, NULL);
	on->running = false;
}

struct kp_writer *kp_online_finish(struct kp_online *on, struct kp_rec_unwind_stats *st)
{
	const struct kp_unwind_stats *us;

	stop(on);
	us = kp_unwinder_stats(on->u);
	on->st.h = (struct kp_rec_header){ KP_REC_UNWIND_STATS, 0, sizeof(on->st) };
	kp_unwind_stats_fill(us, &on->st);
	kp_unwind_stats_write(us, &on->s.strs, &on->out);
	*st = on->st;
	return &on->out;
}

const struct kp_unwind_stats *kp_online_stats(const struct kp_online *on,
					      const struct kp_strtab **strs, uint64_t *waits)
{
	*strs = &on->s.strs;
	*waits = on->waits;
	return kp_unwinder_stats(on->u);
}

void kp_online_free(struct kp_online *on)
{
	if (!on)
		return;
	if (on->running) {
		/* killed mid-way: what is queued is dropped */
		pthread_mutex_lock(&on->mu);
		for (struct chunk *c = on->head, *next; c; c = next) {
			next = c->next;
			free(c);
		}
		on->head = NULL;
		on->queued = 0;
		pthread_mutex_unlock(&on->mu);
		stop(on);
	}
	for (struct chunk *c = on->spare, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	if (on->out.buf)
		kp_writer_close(&on->out);
	kp_unwinder_free(on->u);
	kp_session_release(&on->s);
	pthread_cond_destroy(&on->work);
	pthread_cond_destroy(&on->space);
	pthread_mutex_destroy(&on->mu);
	free(on);
}

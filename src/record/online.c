/* SPDX-License-Identifier: MIT */
#include "online.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <zstd.h>

#include "formats/rec.h"
#include "formats/util.h"
#include "report/unwind/rewrite.h"

/*
 * A closed chunk of the recorder's, waiting for the thread: the recorder's own buffer, taken
 * in exchange for a spare one (no copy), or, when no spare is back from the thread, the records
 * packed with zstd (a fiftieth of the bytes, no buffer to fault in).
 */
struct chunk {
	uint8_t *data;		/* cap bytes; the records, or their zstd frame of zlen bytes */
	size_t len, cap, zlen;	/* zlen: 0 for records as they are */
	uint32_t nrec;
	uint64_t queued_ns;	/* CLOCK_MONOTONIC when the recorder handed it over */
	uint64_t packed_end;	/* in the packed queue (this struct too): where it ends there */
};

/* Buffers the recorder's writer can take in exchange for a full one: one being unwound, the
 * others queued. Beyond them the recorder packs what it hands over. */
#define SPARES 4

/* A chunk waiting longer than this is written with its copies: no more than about a second of
 * recording (the recorder's chunk age, then this) is ever only in memory. */
#define MAX_WAIT_NS 500000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The recorder and the thread share two single-producer, single-consumer rings of chunks, with
 * no lock: the recorder's drain loop queues chunks on `work` and takes empty ones back from
 * `done`, to fill again, so that in steady state it neither locks nor allocates. A lock (this
 * stage's, or malloc's arena) held by the thread while that thread, far below the drain loop in
 * priority, is not running would stall the drain loop, and the kernel's rings would overflow.
 * So would the address space's lock, which the kernel takes to map memory: while the thread is
 * behind, the drain loop packs chunks into the packed queue below instead of mapping new
 * buffers (measured on a fork storm: 47,000 page faults of ~11 us each, and waits of up to
 * 280 ms for a munmap() of the thread's that was preempted, lost 10-18% of the samples in 1 run
 * of 5).
 */
#define RING 256			/* chunks in flight, a power of two; each is a round or more */

struct spsc {
	struct chunk *slot[RING];
	_Atomic size_t head, tail;	/* taken by the consumer / put by the producer */
};

static bool spsc_put(struct spsc *q, struct chunk *c)
{
	size_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);

	if (t - atomic_load_explicit(&q->head, memory_order_acquire) == RING)
		return false;
	q->slot[t % RING] = c;
	atomic_store_explicit(&q->tail, t + 1, memory_order_release);
	return true;
}

static struct chunk *spsc_take(struct spsc *q)
{
	size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	struct chunk *c;

	if (h == atomic_load_explicit(&q->tail, memory_order_acquire))
		return NULL;
	c = q->slot[h % RING];
	atomic_store_explicit(&q->head, h + 1, memory_order_release);
	return c;
}

/*
 * Packed chunks, with their struct chunk, in one region mapped and faulted in before sampling
 * starts, used as a queue of bytes: the thread releases each in the order it was packed, so
 * the drain loop neither allocates nor touches new memory while the thread is behind. A fresh
 * page is a fault, which may wait for the address space's lock while the preempted thread holds
 * it to map memory (under AddressSanitizer, the fill of a fresh allocation waited 48 ms). When
 * the queue is full, chunks are packed into allocations of their own.
 */
#define PACKED_BYTES ((size_t)8 << 20)

struct packed_queue {
	uint8_t *base;			/* PACKED_BYTES, or NULL: allocate each */
	uint64_t head;			/* bytes taken, ever (the recorder's) */
	_Atomic uint64_t tail;		/* bytes released, ever (the thread's) */
};

/* Room for @n bytes (a multiple of 64) in @q, whole, or NULL; *@end: where it ends in @q. */
static void *packed_take(struct packed_queue *q, size_t n, uint64_t *end)
{
	uint64_t start = q->head, pos = start % PACKED_BYTES;

	if (!q->base || n > PACKED_BYTES / 4)
		return NULL;
	if (pos + n > PACKED_BYTES) /* not across the end: from the start, leaving the rest */
		start += PACKED_BYTES - pos;
	if (start + n - atomic_load_explicit(&q->tail, memory_order_acquire) > PACKED_BYTES)
		return NULL;
	q->head = *end = start + n;
	return q->base + start % PACKED_BYTES;
}

static void chunk_free(struct chunk *c)
{
	if (c->packed_end) /* in the packed queue, which goes as a whole */
		return;
	free(c->data);
	free(c);
}

struct kp_online {
	pthread_t thread;
	bool running;
	struct spsc work, done;		/* chunks to unwind; chunks to fill again */
	sem_t ready, room;		/* a chunk (or the end) was queued; one was taken */
	sem_t started;			/* the thread made its state (err says how it went) */
	int fd, level;			/* the file's */
	_Atomic size_t queued;		/* bytes of records on `work` */
	_Atomic size_t held;		/* bytes of memory they take there */
	_Atomic bool eof, drop;		/* no more chunks; drop those queued (killed) */
	_Atomic int err;		/* the file writer's */
	size_t backlog;			/* beyond this, chunks keep their copies */
	size_t hard;			/* beyond this, the recorder waits */
	uint64_t waits;			/* ... how often it did (the recorder's) */
	size_t backlog_max;		/* the recorder's, read once the thread is joined */
	ZSTD_CCtx *zc;			/* the recorder's, to pack chunks, into this */
	uint8_t *zbuf;
	size_t zcap;
	struct packed_queue packed;
	/* the thread's own */
	ZSTD_DCtx *zd;			/* a packed chunk's records, unpacked */
	uint8_t *unpacked;
	size_t unpacked_cap;
	struct kp_writer out;
	struct kp_rewrite rw;		/* into out; rw.behind: the chunk being replayed waited
					 * too long or found the backlog full */
	kp_writer_sink_fn *live;	/* kp_online_start_live()'s consumer, instead of rw */
	void *live_ctx;
	uint64_t cpu_ns;		/* the thread's, at its end */
};

/* --- the thread ---------------------------------------------------------------------------- */

/* @c's records: in place, or unpacked into the thread's buffer; NULL, with the file's writer
 * failed (the recording ends saying so), if they cannot be */
static const uint8_t *records_of(struct kp_online *on, const struct chunk *c)
{
	if (!c->zlen)
		return c->data;
	if (c->len > on->unpacked_cap) {
		free(on->unpacked);
		on->unpacked_cap = c->len;
		on->unpacked = kp_xmalloc(c->len);
	}
	if (ZSTD_decompressDCtx(on->zd, on->unpacked, c->len, c->data, c->zlen) != c->len) {
		on->out.err = on->out.err ? on->out.err : -KP_EDECOMPRESS; /* our own frame */
		return NULL;
	}
	return on->unpacked;
}

/*
 * Without unwinding: @c's records to the live consumer, then to the file as they are, but for
 * a STATS record's sizes, which are the file's before this chunk (FORMAT.md), not those of the
 * recorder's writer, which wrote none.
 */
static void pass(struct kp_online *on, const struct chunk *c)
{
	uint8_t *p = (uint8_t *)records_of(on, c), *dst;
	const struct kp_rec_header *rec;
	size_t cap = c->len;
	int err;

	if (!p)
		return;
	err = on->live(on->live_ctx, &p, &cap, c->len, c->nrec);
	if (err && !atomic_load(&on->err))
		atomic_store(&on->err, err);
	if (on->fd < 0)
		return;
	dst = kp_writer_reserve(&on->out, c->len);
	memcpy(dst, p, c->len);
	/* the rings' records are whole: the walk cannot stop short */
	for (size_t pos = 0; (rec = kp_rec_next(dst, c->len, &pos));) {
		if (rec->type == KP_REC_STATS && rec->size >= sizeof(struct kp_rec_stats)) {
			struct kp_rec_stats *st = (void *)(dst + pos - rec->size);
			st->raw_bytes = on->out.raw_bytes;
			st->file_bytes = on->out.off;
		}
	}
	kp_writer_commit(&on->out, c->len, c->nrec);
}

static void replay(struct kp_online *on, const struct chunk *c)
{
	const uint8_t *p = records_of(on, c);
	const struct kp_rec_header *rec;

	if (!p)
		return;
	/* the rings' records are whole: the walk cannot stop short */
	for (size_t pos = 0; (rec = kp_rec_next(p, c->len, &pos));)
		kp_rewrite_feed(&on->rw, rec);
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

/*
 * The thread's state, made by the thread: what it allocates then and later comes from its own
 * malloc arena, whose lock the drain loop never needs. (A realloc() of the recorder's memory,
 * taken while the thread was preempted, stalled the drain loop 580 ms in a fork storm.)
 */
static int start_thread(struct kp_online *on)
{
	int err;

	if (!on->live)
		kp_rewrite_init(&on->rw, &on->out, NULL); /* kp_dso_local_only() */
	err = on->fd < 0 ? 0 : kp_writer_init(&on->out, on->fd, on->level, KP_WRITER_CHUNK);
	if (!err && !(on->zd = ZSTD_createDCtx()))
		err = -ENOMEM;
	atomic_store(&on->err, err);
	sem_post(&on->started);
	return err;
}

static void *run(void *arg)
{
	struct kp_online *on = arg;
	struct timespec cpu;

	lower_priority();
	if (start_thread(on))
		return NULL;
	for (;;) {
		struct chunk *c;

		while (sem_wait(&on->ready) && errno == EINTR)
			;
		if (!(c = spsc_take(&on->work))) {
			if (atomic_load(&on->eof))
				break;
			continue;
		}
		/* a file being converted waits for the thread instead: nothing is kept then */
		on->rw.behind = atomic_load(&on->queued) > on->backlog ||
			     (on->backlog != KP_ONLINE_NEVER_BEHIND &&
			      now_ns() - c->queued_ns > MAX_WAIT_NS);
		if (!on->out.err && !atomic_load(&on->drop))
			(on->live ? pass : replay)(on, c);
		/* each chunk goes out as soon as it is unwound: the metadata at once, as without
		 * this stage, and the rest no later than the recorder's writer closes by age */
		if (!atomic_load(&on->drop) && on->fd >= 0)
			kp_writer_flush(&on->out);
		if (on->out.err)
			atomic_store(&on->err, on->out.err);
		atomic_fetch_sub(&on->queued, c->len);
		atomic_fetch_sub(&on->held, c->zlen ? c->zlen : c->cap);
		if (c->packed_end) /* this release the last access to it */
			atomic_store_explicit(&on->packed.tail, c->packed_end, memory_order_release);
		else if (!spsc_put(&on->done, c))
			chunk_free(c);
		sem_post(&on->room);
	}
	if (!atomic_load(&on->drop) && !on->live)
		kp_rewrite_end(&on->rw);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	on->cpu_ns = cpu.tv_sec * 1000000000ull + cpu.tv_nsec;
	return NULL;
}

/* A chunk of @len records from @buf, packed into the packed queue, or else into a small
 * allocation of its own. */
static struct chunk *pack(struct kp_online *on, const uint8_t *buf, size_t len)
{
	size_t bound = ZSTD_compressBound(len), n, head = (sizeof(struct chunk) + 63) & ~(size_t)63;
	uint64_t end;
	struct chunk *c;

	if (bound > on->zcap) { /* rare: the buffer is sized for a chunk of the recorder's */
		free(on->zbuf);
		on->zcap = bound;
		on->zbuf = kp_xmalloc(bound);
	}
	n = ZSTD_compressCCtx(on->zc, on->zbuf, on->zcap, buf, len, KP_WRITER_DEFAULT_LEVEL);
	if (ZSTD_isError(n))
		return NULL;
	if ((c = packed_take(&on->packed, head + ((n + 63) & ~(size_t)63), &end))) {
		c->data = (uint8_t *)c + head;
		c->packed_end = end;
	} else {
		c = kp_xmalloc(sizeof(*c));
		c->data = kp_xmalloc(n);
		c->packed_end = 0;
	}
	memcpy(c->data, on->zbuf, n);
	c->cap = c->zlen = n;
	return c;
}

/* A spare buffer back from the thread, or NULL; a file being converted waits for one instead
 * (packing would only cost both sides time). */
static struct chunk *take_spare(struct kp_online *on)
{
	for (;;) {
		struct chunk *c = spsc_take(&on->done);

		if (c && !c->zlen)
			return c;
		if (c) /* packed: done with */
			chunk_free(c);
		else if (on->backlog != KP_ONLINE_NEVER_BEHIND)
			return NULL;
		else
			while (sem_wait(&on->room) && errno == EINTR)
				;
	}
}

/*
 * The recorder's writer closed a chunk: queue its buffer, giving the writer a spare back, or
 * pack it when no spare is back from the thread. The one wait is for memory, far beyond the
 * backlog (chunks past it are only copied to the file).
 */
static int sink(void *ctx, uint8_t **buf, size_t *cap, size_t len, uint32_t nrec)
{
	struct kp_online *on = ctx;
	struct chunk *c;
	size_t queued, held;

	if ((c = take_spare(on))) {
		uint8_t *spare = c->data;
		size_t spare_cap = c->cap;

		c->data = *buf;
		c->cap = *cap;
		*buf = spare;
		*cap = spare_cap;
	} else if (!(c = pack(on, *buf, len))) {
		return -ENOMEM;
	}
	c->len = len;
	c->nrec = nrec;
	c->queued_ns = now_ns();
	held = c->zlen ? c->zlen : c->cap;
	if (atomic_load(&on->held) > on->hard)
		on->waits++;
	while (atomic_load(&on->held) > on->hard)
		while (sem_wait(&on->room) && errno == EINTR)
			;
	while (!spsc_put(&on->work, c)) {
		on->waits++;
		while (sem_wait(&on->room) && errno == EINTR)
			;
	}
	atomic_fetch_add(&on->held, held);
	queued = atomic_fetch_add(&on->queued, len) + len;
	if (queued > on->backlog_max)
		on->backlog_max = queued;
	sem_post(&on->ready);
	return atomic_load(&on->err);
}

static struct kp_online *start(int fd, int level, size_t backlog, size_t reserve,
			       kp_writer_sink_fn *fn, void *ctx, struct kp_writer *in, int *err)
{
	struct kp_online *on = kp_xcalloc(1, sizeof(*on));
	sigset_t all, old;

	sem_init(&on->ready, 0, 0);
	sem_init(&on->room, 0, 0);
	sem_init(&on->started, 0, 0);
	on->fd = fd;
	on->level = level;
	on->backlog = backlog;
	on->hard = (size_t)256 << 20;
	on->live = fn;
	on->live_ctx = ctx;
	if (!fn) /* not in the thread, later, with the drain loop waiting on its mmaps */
		kp_dso_local_only();
	on->packed.base = mmap(NULL, PACKED_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (on->packed.base == MAP_FAILED)
		on->packed.base = NULL; /* each packed chunk is allocated */
	else /* in place already: this touches a sanitizer's shadow of it */
		memset(on->packed.base, 0, PACKED_BYTES);
	kp_writer_init_sink(in, sink, on, reserve);
	if (!(on->zc = ZSTD_createCCtx())) {
		*err = -ENOMEM;
		kp_online_free(on);
		return NULL;
	}
	/* the spares, and packing's memory allocated now, not while the thread is behind: the
	 * writer's pre-faulted buffer of zeros packs into a few bytes of it */
	for (int i = 0; i < SPARES; i++) {
		struct chunk *c = kp_xcalloc(1, sizeof(*c));

		c->cap = in->cap;
		c->data = kp_xmalloc(c->cap);
		spsc_put(&on->done, c);
	}
	on->zcap = ZSTD_compressBound(in->cap);
	on->zbuf = kp_xmalloc(on->zcap);
	ZSTD_compressCCtx(on->zc, on->zbuf, on->zcap, in->buf, in->cap, KP_WRITER_DEFAULT_LEVEL);
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
	while (sem_wait(&on->started) && errno == EINTR)
		;
	if ((*err = atomic_load(&on->err))) {
		pthread_join(on->thread, NULL);
		on->running = false;
		kp_online_free(on);
		return NULL;
	}
	return on;
}

struct kp_online *kp_online_start(int fd, int level, size_t backlog, size_t reserve,
				  struct kp_writer *in, int *err)
{
	return start(fd, level, backlog, reserve, NULL, NULL, in, err);
}

struct kp_online *kp_online_start_live(int fd, int level, size_t reserve, kp_writer_sink_fn *fn,
				       void *ctx, struct kp_writer *in, int *err)
{
	/* a backlog of its own would only say when to keep copies: none here. Not NEVER_BEHIND:
	 * the recorder packs chunks rather than wait for the thread */
	return start(fd, level, 0, reserve, fn, ctx, in, err);
}

static void stop(struct kp_online *on)
{
	if (!on->running)
		return;
	atomic_store(&on->eof, true); /* after every chunk put: the thread takes them all first */
	sem_post(&on->ready);
	pthread_join(on->thread, NULL);
	on->running = false;
}

struct kp_writer *kp_online_finish(struct kp_online *on, struct kp_rec_unwind_stats *st)
{
	stop(on);
	if (on->live)
		memset(st, 0, sizeof(*st));
	else
		kp_rewrite_stats(&on->rw, on->backlog_max, on->cpu_ns, st);
	return &on->out;
}

const struct kp_unwind_stats *kp_online_stats(const struct kp_online *on,
					      const struct kp_strtab **strs, uint64_t *waits)
{
	*strs = &on->rw.s.strs;
	*waits = on->waits;
	return kp_unwinder_stats(on->rw.u);
}

void kp_online_free(struct kp_online *on)
{
	if (!on)
		return;
	if (on->running) {
		/* killed mid-way: what is queued is dropped */
		atomic_store(&on->drop, true);
		stop(on);
	}
	for (struct chunk *c; (c = spsc_take(&on->work)) || (c = spsc_take(&on->done));)
		chunk_free(c);
	ZSTD_freeCCtx(on->zc);
	ZSTD_freeDCtx(on->zd);
	free(on->zbuf);
	if (on->packed.base)
		munmap(on->packed.base, PACKED_BYTES);
	free(on->unpacked);
	if (on->out.buf)
		kp_writer_close(&on->out);
	if (!on->live)
		kp_rewrite_release(&on->rw);
	sem_destroy(&on->ready);
	sem_destroy(&on->room);
	sem_destroy(&on->started);
	free(on);
}

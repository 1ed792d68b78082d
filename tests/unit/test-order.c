/* SPDX-License-Identifier: MIT */
/* Round-based ordering: per-CPU streams drained one after the other come out in time order. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/evlist.h"
#include "formats/reader.h"
#include "formats/rec.h"
#include "report/replay/order.h"
#include "synth.h"
#include "tests/tap.h"

struct seen {
	uint64_t last, n, backwards, bad_tags, bad_copies, last_seq;
	bool check_copies;	/* records whose second word is their time, third their push order */
	size_t max_queued;
	struct kp_order *o;
};

/* Each record is pushed with a tag of its time's complement: it must come back with it. */
static int collect(void *ctx, const struct kp_rec_header *rec, uint64_t time, uint64_t tag)
{
	struct seen *s = ctx;

	(void)rec;
	s->bad_tags += tag != ~time;
	if (s->check_copies) {
		const uint64_t *w = (const uint64_t *)rec;

		s->bad_copies += w[1] != time;
		/* equal times come out in the order they were pushed */
		s->backwards += s->n && time == s->last && w[2] < s->last_seq;
		s->last_seq = w[2];
	}
	if (time < s->last)
		s->backwards++;
	s->last = time;
	s->n++;
	return 0;
}

static void file_order(void)
{
	struct synth sy;
	struct kp_reader r;
	struct kp_evlist l;
	struct kp_order o;
	const struct kp_rec_header *rec;
	struct seen seen = { 0 };
	uint64_t pushed = 0;
	int fd = memfd_create("order", 0);

	synth_file(&sy, fd, 4000, 500, 1);
	kp_reader_open_fd(&r, fd);
	kp_evlist_init(&l);
	kp_order_init(&o);
	while (kp_reader_next(&r, &rec) > 0) {
		struct kp_sample smp;
		const struct kp_evsel *ev;
		if (rec->type == KP_REC_ATTR)
			kp_evlist_add(&l, rec);
		if (rec->type == KP_REC_ROUND)
			kp_order_round(&o, collect, &seen);
		if (rec->type >= KP_REC_USER_START || !(ev = kp_evlist_find(&l, rec)))
			continue;
		if (rec->type == PERF_RECORD_SAMPLE)
			kp_rec_parse_sample(&ev->attr, rec, &smp);
		else
			kp_rec_parse_id(&ev->attr, rec, &smp);
		kp_order_push(&o, rec, smp.time, ~smp.time);
		pushed++;
		if (o.nr > seen.max_queued)
			seen.max_queued = o.nr;
	}
	kp_order_flush(&o, collect, &seen);
	ok(pushed == 4006 && seen.n == pushed, "every kernel record delivered (%llu)",
	   (unsigned long long)seen.n);
	is_u64(seen.backwards, 0, "no record delivered before an older one");
	is_u64(seen.bad_tags, 0, "every record delivered with its own tag");
	ok(seen.max_queued <= 24, "at most about two rounds queued (%zu records)", seen.max_queued);
	kp_order_release(&o);
	kp_evlist_release(&l);
	kp_reader_release(&r);
	synth_release(&sy);
	close(fd);
}

/*
 * Random streams: @rings CPUs, each sorted, drained one after the other with random lags and
 * some equal times; the records kept back across rounds must come out intact.
 */
static void random_order(int rings, unsigned seed)
{
	struct kp_order o;
	struct seen seen = { .check_copies = true };
	uint64_t t[64] = { 0 }, pushed = 0;
	uint64_t rec[3] = { 0 };

	((struct kp_rec_header *)rec)->type = PERF_RECORD_SAMPLE;
	((struct kp_rec_header *)rec)->size = sizeof(rec);
	srand(seed);
	kp_order_init(&o);
	for (int round = 0; round < 2000; round++) {
		/* the CPUs produce events over the same window; later rings are drained later */
		uint64_t end = (round + 1) * 1000ull;
		for (int cpu = 0; cpu < rings; cpu++) {
			while (t[cpu] + 50 < end) {
				t[cpu] += rand() % 100; /* 0: the same time as the one before */
				rec[1] = t[cpu];
				rec[2] = pushed;
				kp_order_push(&o, (void *)rec, t[cpu], ~t[cpu]);
				pushed++;
			}
		}
		kp_order_round(&o, collect, &seen);
	}
	kp_order_flush(&o, collect, &seen);
	ok(seen.n == pushed && seen.backwards == 0 && seen.bad_tags == 0 && !seen.bad_copies,
	   "%llu interleaved records from %d rings come out sorted, intact, with their tags",
	   (unsigned long long)pushed, rings);
	kp_order_release(&o);
}

/* The reader's side of records queued in place: chunks of @per records in three buffers, the
 * one before the current kept, the one before that dropped (rehomed, then overwritten). */
struct chunks {
	uint64_t buf[3][64][3];
	unsigned cur, used;
	struct kp_order *o;
};

static uint64_t *next_slot(struct chunks *c, unsigned per)
{
	if (c->used == per) {
		unsigned drop = (c->cur + 2) % 3; /* the one before the previous */

		kp_order_rehome(c->o, (const uint8_t *)c->buf[drop], sizeof(c->buf[drop]));
		memset(c->buf[drop], 0xaa, sizeof(c->buf[drop]));
		c->cur = drop;
		c->used = 0;
	}
	return c->buf[c->cur][c->used++];
}

/*
 * Records queued where the caller keeps them (kp_order_push_ref()), in chunks smaller than a
 * round: those still queued when their chunk is dropped are copied first, and every record
 * comes out intact and in order.
 */
static void kept_order(int rings, unsigned per, unsigned seed)
{
	static struct chunks c;
	struct kp_order o;
	struct seen seen = { .check_copies = true };
	uint64_t t[16] = { 0 }, pushed = 0;

	memset(&c, 0, sizeof(c));
	c.o = &o;
	srand(seed);
	kp_order_init(&o);
	for (int round = 0; round < 500; round++) {
		uint64_t end = (round + 1) * 1000ull;
		for (int cpu = 0; cpu < rings; cpu++) {
			while (t[cpu] + 50 < end) {
				uint64_t *rec = next_slot(&c, per);

				t[cpu] += rand() % 100;
				*(struct kp_rec_header *)rec =
					(struct kp_rec_header){ PERF_RECORD_SAMPLE, 0, 3 * 8 };
				rec[1] = t[cpu];
				rec[2] = pushed++;
				kp_order_push_ref(&o, (void *)rec, t[cpu], ~t[cpu]);
			}
		}
		kp_order_round(&o, collect, &seen);
	}
	kp_order_flush(&o, collect, &seen);
	ok(seen.n == pushed && seen.backwards == 0 && seen.bad_tags == 0 && !seen.bad_copies,
	   "%llu records queued in place, %u to a chunk, from %d rings: sorted and intact",
	   (unsigned long long)pushed, per, rings);
	kp_order_release(&o);
}

/*
 * Rounds and a flush with nothing queued, before anything was ever pushed (the queue has no
 * array yet: clang's UBSan stops at pointer arithmetic on it) and after everything went out.
 */
static void empty_order(void)
{
	struct kp_order o;
	struct seen seen = { 0 };
	uint64_t rec[2] = { 0 };
	int rc;

	*(struct kp_rec_header *)rec = (struct kp_rec_header){ PERF_RECORD_SAMPLE, 0, 16 };
	kp_order_init(&o);
	rc = kp_order_round(&o, collect, &seen);
	rc |= kp_order_round(&o, collect, &seen);
	rc |= kp_order_flush(&o, collect, &seen);
	ok(!rc && seen.n == 0, "an empty queue, never pushed to: its rounds and flush deliver nothing");
	kp_order_push(&o, (void *)rec, 5, ~5ull);
	rc = kp_order_flush(&o, collect, &seen);
	rc |= kp_order_round(&o, collect, &seen);
	rc |= kp_order_flush(&o, collect, &seen);
	ok(!rc && seen.n == 1 && !seen.bad_tags,
	   "...then a record pushed and flushed comes out once, and the emptied queue gives no more");
	kp_order_release(&o);
}

int main(void)
{
	empty_order();
	file_order();
	random_order(2, 12345);
	random_order(16, 777);
	random_order(1, 5);
	kept_order(4, 8, 99);
	kept_order(2, 64, 7);
	return tap_done();
}

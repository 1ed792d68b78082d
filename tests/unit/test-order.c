/* SPDX-License-Identifier: MIT */
/* Round-based ordering: per-CPU streams drained one after the other come out in time order. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/evlist.h"
#include "formats/reader.h"
#include "formats/rec.h"
#include "report/order.h"
#include "synth.h"
#include "tests/tap.h"

struct seen {
	uint64_t last, n, backwards;
	size_t max_queued;
	struct kp_order *o;
};

static int collect(void *ctx, const struct kp_rec_header *rec, uint64_t time)
{
	struct seen *s = ctx;

	(void)rec;
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
		kp_order_push(&o, rec, smp.time);
		pushed++;
		if (o.nr > seen.max_queued)
			seen.max_queued = o.nr;
	}
	kp_order_flush(&o, collect, &seen);
	ok(pushed == 4006 && seen.n == pushed, "every kernel record delivered (%llu)",
	   (unsigned long long)seen.n);
	is_u64(seen.backwards, 0, "no record delivered before an older one");
	ok(seen.max_queued <= 24, "at most about two rounds queued (%zu records)", seen.max_queued);
	kp_order_release(&o);
	kp_evlist_release(&l);
	kp_reader_release(&r);
	synth_release(&sy);
	close(fd);
}

/* Random streams: two CPUs, each sorted, drained alternately with random lags. */
static void random_order(void)
{
	struct kp_order o;
	struct seen seen = { 0 };
	uint64_t t[2] = { 0, 0 }, pushed = 0;
	uint64_t rec[2] = { 0 };

	((struct kp_rec_header *)rec)->type = PERF_RECORD_SAMPLE;
	((struct kp_rec_header *)rec)->size = 16;
	srand(12345);
	kp_order_init(&o);
	for (int round = 0; round < 2000; round++) {
		/* both CPUs produce events over the same window; ring 1 is drained later */
		uint64_t end = (round + 1) * 1000ull;
		for (int cpu = 0; cpu < 2; cpu++) {
			while (t[cpu] + 50 < end) {
				t[cpu] += 1 + rand() % 100;
				rec[1] = t[cpu];
				kp_order_push(&o, (void *)rec, t[cpu]);
				pushed++;
			}
		}
		kp_order_round(&o, collect, &seen);
	}
	kp_order_flush(&o, collect, &seen);
	ok(seen.n == pushed && seen.backwards == 0,
	   "%llu interleaved records from two rings come out sorted", (unsigned long long)pushed);
	kp_order_release(&o);
}

int main(void)
{
	file_order();
	random_order();
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
#include "top.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

#define DECAY (7.0 / 8.0)	/* what a refresh keeps of the weights before it */
#define FORGET 0.01		/* below this a function's weight is dropped */

void kp_top_init(struct kp_top *t, const struct kp_dso_opts *dso)
{
	memset(t, 0, sizeof(*t));
	kp_session_init(&t->s, dso);
}

static void start(struct kp_top *t)
{
	struct kp_session *s = &t->s;

	kp_profile_init(&t->prof, &s->strs, s->evl.nr ? s->evl.nr : 1);
	kp_resolver_init(&t->res, s, &t->prof, KP_UNWIND_LIBDW);
	t->ready = true;
}

static int on_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *th)
{
	struct kp_top *t = ctx;
	uint32_t node, func;

	(void)s;
	(void)ev;
	if (smp->pid == 0) { /* the idle task: left out, as perf top leaves idle symbols out */
		t->idle++;
		return 0;
	}
	if (!t->ready)
		start(t);
	node = kp_resolve_stack(&t->res, smp, rec->misc, th, false);
	func = t->prof.locs[t->prof.nodes[node].loc].func;
	if (func >= t->nr_weight) {
		size_t n = t->prof.nr_funcs > func ? t->prof.nr_funcs : func + 1;

		t->weight = kp_xrealloc(t->weight, n * sizeof(*t->weight));
		memset(t->weight + t->nr_weight, 0, (n - t->nr_weight) * sizeof(*t->weight));
		t->nr_weight = n;
	}
	t->weight[func] += 1;
	t->samples++;
	return 0;
}

/* PERF_RECORD_LOST: u64 id, u64 lost, then the trailer */
static int on_side(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		   const struct kp_rec_header *rec, const struct kp_sample *id)
{
	struct kp_top *t = ctx;
	uint64_t lost;

	(void)s;
	(void)ev;
	(void)id;
	if (rec->type == PERF_RECORD_LOST && rec->size >= sizeof(*rec) + 16) {
		memcpy(&lost, (const uint8_t *)(rec + 1) + 8, sizeof(lost));
		t->lost += lost;
	}
	return 0;
}

int kp_top_sink(void *ctx, uint8_t **buf, size_t *cap, size_t len, uint32_t nrec)
{
	static const struct kp_session_ops ops = { .sample = on_sample, .side = on_side };
	struct kp_top *t = ctx;
	const uint8_t *p = *buf;

	(void)cap;
	(void)nrec;
	if (!t->s.ops)
		kp_session_start(&t->s, &ops, t);
	for (size_t pos = 0; pos + sizeof(struct kp_rec_header) <= len && !t->err;) {
		const struct kp_rec_header *h = (const void *)(p + pos);

		if (h->size < sizeof(*h) || h->size > len - pos)
			break; /* the recorder's own records: never, but not past the chunk */
		t->err = kp_session_feed(&t->s, h);
		pos += h->size;
	}
	return t->err;
}

struct row {
	uint32_t func;
	double w;
};

static int by_weight(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

void kp_top_print(struct kp_top *t, FILE *out, size_t max, double secs)
{
	struct row *rows = kp_xcalloc(t->nr_weight ? t->nr_weight : 1, sizeof(*rows));
	size_t n = 0;
	double sum = 0;
	const char *event = t->s.evl.nr ? t->s.evl.ev[0].name : "cpu-clock";

	for (uint32_t f = 0; f < t->nr_weight; f++) {
		if (t->weight[f] < FORGET)
			continue;
		rows[n++] = (struct row){ f, t->weight[f] };
		sum += t->weight[f];
	}
	qsort(rows, n, sizeof(*rows), by_weight);
	t->total += t->samples;
	t->total_lost += t->lost;
	fprintf(out, "# kprof top: %.0f samples/s of %s over %.1f s, %llu lost, %.0f%% idle "
		"(left out); %llu samples in all\n", secs > 0 ? t->samples / secs : 0.0,
		event ? event : "?", secs, (unsigned long long)t->lost,
		t->samples + t->idle ? 100.0 * t->idle / (t->samples + t->idle) : 0.0,
		(unsigned long long)t->total);
	fprintf(out, "#   share  symbol  [binary]\n");
	for (size_t i = 0; i < n && i < max; i++) {
		const struct kp_func *fn = &t->prof.funcs[rows[i].func];
		const char *dso = fn->dso ? kp_strtab_get(&t->s.strs, fn->dso) : "";

		bool bracketed = *dso == '[';

		fprintf(out, "%8.2f%%  %s%s%s%s\n", 100.0 * rows[i].w / sum,
			kp_strtab_get(&t->s.strs, fn->name), !*dso ? "" : bracketed ? "  " : "  [",
			dso, *dso && !bracketed ? "]" : "");
	}
	fflush(out);
	for (uint32_t f = 0; f < t->nr_weight; f++)
		t->weight[f] *= DECAY;
	t->samples = t->lost = t->idle = 0;
	free(rows);
}

void kp_top_release(struct kp_top *t)
{
	if (t->ready) {
		kp_resolver_release(&t->res);
		kp_profile_release(&t->prof);
	}
	kp_session_release(&t->s);
	free(t->weight);
	memset(t, 0, sizeof(*t));
}

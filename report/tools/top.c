/* SPDX-License-Identifier: MIT */
#include "top.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/hash.h"
#include "report/base/text.h"

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
	uint32_t node;

	(void)s;
	(void)ev;
	if (smp->pid == 0) { /* the idle task: left out, as perf top leaves idle symbols out */
		t->idle++;
		return 0;
	}
	if (!t->ready)
		start(t);
	node = kp_resolve_stack(&t->res, smp, rec->misc, th, false);
	if (node >= t->nr_weight) {
		size_t n = t->prof.nr_nodes > node ? t->prof.nr_nodes : node + 1;

		n += n / 2;
		t->weight = kp_xrealloc(t->weight, n * sizeof(*t->weight));
		memset(t->weight + t->nr_weight, 0, (n - t->nr_weight) * sizeof(*t->weight));
		t->nr_weight = n;
	}
	t->weight[node] += 1;
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

	(void)cap;
	(void)nrec;
	if (!t->s.ops)
		kp_session_start(&t->s, &ops, t);
	if (!t->err)
		t->err = kp_session_feed_chunk(&t->s, *buf, len);
	return t->err;
}

const char *const kp_top_sort_names[KP_TOP_NR_SORTS] = { "sym", "dso", "comm", "comm,sym" };

static uint32_t func_of(const struct kp_top *t, uint32_t node)
{
	return t->prof.locs[t->prof.nodes[node].loc].func;
}

static uint32_t flags_of(const struct kp_top *t, uint32_t node)
{
	return t->prof.locs[t->prof.nodes[node].loc].flags;
}

/* The frame a sample at @node counts for: its leaf, or without @kernel the innermost user
 * frame of its stack; 0 for none (a kernel stack alone, or no frame under the command). */
static uint32_t counted(const struct kp_top *t, uint32_t node, bool kernel)
{
	while (node && !kernel && (flags_of(t, node) & KP_LOC_KERNEL))
		node = t->prof.nodes[node].parent;
	return node && !(flags_of(t, node) & (KP_LOC_COMM | KP_LOC_CGROUP)) ? node : 0;
}

static uint32_t comm_of(const struct kp_top *t, uint32_t node)
{
	while (node && !(flags_of(t, node) & KP_LOC_COMM))
		node = t->prof.nodes[node].parent;
	return node ? t->prof.funcs[func_of(t, node)].name : 0;
}

static int by_weight(const void *a, const void *b)
{
	const struct kp_top_row *x = a, *y = b;

	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if (x->dso != y->dso)
		return x->dso < y->dso ? -1 : 1;
	return x->comm < y->comm ? -1 : x->comm > y->comm;
}

size_t kp_top_rows(struct kp_top *t, enum kp_top_sort sort, bool kernel, struct kp_top_row **rows,
		   size_t *cap, double *sum)
{
	struct kp_hash ids;
	size_t n = 0;

	*sum = 0;
	kp_hash_init(&ids);
	for (uint32_t node = 1; t->ready && node < t->nr_weight && node < t->prof.nr_nodes; node++) {
		uint32_t at = t->weight[node] >= FORGET ? counted(t, node, kernel) : 0, f;
		struct kp_top_row r = { 0 };
		uint64_t key, *id;
		bool added;

		if (!at)
			continue;
		f = func_of(t, at);
		if (sort == KP_TOP_SYM || sort == KP_TOP_COMM_SYM)
			r.func = f;
		if (sort == KP_TOP_DSO)
			r.dso = t->prof.funcs[f].dso;
		if (sort == KP_TOP_COMM || sort == KP_TOP_COMM_SYM)
			r.comm = comm_of(t, node);
		key = (uint64_t)(r.func | r.dso) << 32 | r.comm;
		id = kp_hash_add(&ids, key, n, &added);
		if (added) {
			KP_GROW(*rows, *cap, n + 1);
			(*rows)[n++] = r;
		}
		(*rows)[*id].w += t->weight[node];
		*sum += t->weight[node];
	}
	kp_hash_release(&ids);
	if (n > 1)
		qsort(*rows, n, sizeof(**rows), by_weight);
	return n;
}

#define MAX_CALLERS 1024	/* entries of a callers' tree: the rest add to their parents */

struct caller {
	uint32_t parent;	/* entry index + 1, 0 for the function itself */
	uint32_t func;
	double w;
};

struct kid {
	struct kp_top_row row;
	uint32_t entry;		/* its index in the callers' entries, + 1 */
};

static int kid_by_weight(const void *a, const void *b)
{
	return by_weight(&((const struct kid *)a)->row, &((const struct kid *)b)->row);
}

/* The callers under entry @parent, heaviest first, each followed by its own callers. */
static void emit_callers(const struct caller *c, size_t nr, uint32_t parent, uint16_t depth,
			 struct kp_top_row **rows, size_t *n, size_t *cap)
{
	struct kid *kids = NULL;
	size_t nk = 0, kcap = 0;

	for (size_t i = 0; i < nr; i++)
		if (c[i].parent == parent) {
			KP_GROW(kids, kcap, nk + 1);
			kids[nk++] = (struct kid){ { .func = c[i].func, .w = c[i].w, .depth = depth },
						   (uint32_t)i + 1 };
		}
	if (nk > 1)
		qsort(kids, nk, sizeof(*kids), kid_by_weight);
	for (size_t k = 0; k < nk; k++) {
		KP_GROW(*rows, *cap, *n + 1);
		(*rows)[(*n)++] = kids[k].row;
		emit_callers(c, nr, kids[k].entry, depth + 1, rows, n, cap);
	}
	free(kids);
}

size_t kp_top_callers(struct kp_top *t, uint32_t func, bool kernel, unsigned depth,
		      struct kp_top_row **rows, size_t *cap)
{
	struct caller *c = kp_xcalloc(MAX_CALLERS, sizeof(*c));
	size_t nr = 0, n = 0;

	for (uint32_t node = 1; t->ready && node < t->nr_weight && node < t->prof.nr_nodes; node++) {
		uint32_t at = t->weight[node] >= FORGET ? counted(t, node, kernel) : 0, up = 0;

		if (!at || func_of(t, at) != func)
			continue;
		at = t->prof.nodes[at].parent;
		for (unsigned d = 0; d < depth && at && !(flags_of(t, at) & KP_LOC_COMM); d++) {
			uint32_t f = func_of(t, at);
			size_t i;

			for (i = 0; i < nr && !(c[i].parent == up && c[i].func == f); i++)
				;
			if (i == nr && nr == MAX_CALLERS)
				break;
			if (i == nr)
				c[nr++] = (struct caller){ up, f, 0 };
			c[i].w += t->weight[node];
			up = (uint32_t)i + 1;
			at = t->prof.nodes[at].parent;
		}
	}
	emit_callers(c, nr, 0, 1, rows, &n, cap);
	for (size_t i = 0; i < n; i++)
		(*rows)[i].dso = t->prof.funcs[(*rows)[i].func].dso;
	free(c);
	return n;
}

void kp_top_row_name(const struct kp_top *t, const struct kp_top_row *r, enum kp_top_sort sort,
		     char *buf, size_t size)
{
	const struct kp_strtab *s = &t->s.strs;
	const struct kp_func *fn = &t->prof.funcs[r->func];
	const char *dso = fn->dso ? kp_strtab_get(s, fn->dso) : "";
	bool bracketed = *dso == '[';
	char comm[64] = "";

	switch (sort) {
	case KP_TOP_DSO:
		snprintf(buf, size, "%s", r->dso ? kp_strtab_get(s, r->dso) : "[unknown]");
		return;
	case KP_TOP_COMM:
		snprintf(buf, size, "%s", kp_strtab_get(s, r->comm));
		return;
	case KP_TOP_COMM_SYM:
		snprintf(comm, sizeof(comm), "%-15s  ", kp_strtab_get(s, r->comm));
		break;
	default:
		break;
	}
	snprintf(buf, size, "%s%s%s%s%s", comm, kp_strtab_get(s, fn->name),
		 !*dso ? "" : bracketed ? "  " : "  [", dso, *dso && !bracketed ? "]" : "");
}

void kp_top_header(const struct kp_top *t, double secs, char *buf, size_t size)
{
	const char *event = t->s.evl.nr ? t->s.evl.ev[0].name : "cpu-clock";

	const struct perf_event_attr *a = t->s.evl.nr ? &t->s.evl.ev[0].attr : NULL;
	char rate[48] = "";

	if (a && a->freq)
		snprintf(rate, sizeof(rate), " (-F %llu)", (unsigned long long)a->sample_freq);
	else if (a)
		snprintf(rate, sizeof(rate), " (-c %llu)", (unsigned long long)a->sample_period);
	snprintf(buf, size, "kprof top: %.0f samples/s of %s%s over %.1f s, %llu lost, %.0f%% idle "
		 "(left out); %llu samples in all", secs > 0 ? t->samples / secs : 0.0,
		 event ? event : "?", rate, secs, (unsigned long long)t->lost,
		 t->samples + t->idle ? 100.0 * t->idle / (t->samples + t->idle) : 0.0,
		 (unsigned long long)(t->total + t->samples));
}

void kp_top_roll(struct kp_top *t)
{
	t->total += t->samples;
	t->total_lost += t->lost;
	for (size_t i = 0; i < t->nr_weight; i++)
		t->weight[i] *= DECAY;
	t->samples = t->lost = t->idle = 0;
}

void kp_top_zero(struct kp_top *t)
{
	if (t->nr_weight)
		memset(t->weight, 0, t->nr_weight * sizeof(*t->weight));
}

void kp_top_print(struct kp_top *t, FILE *out, enum kp_top_sort sort, bool kernel, size_t max,
		  double secs)
{
	static const char *const keys[KP_TOP_NR_SORTS] = { "symbol  [binary]", "binary", "command",
							    "command  symbol  [binary]" };
	struct kp_top_row *rows = NULL;
	size_t cap = 0, n;
	double sum;
	char line[1024];

	n = kp_top_rows(t, sort, kernel, &rows, &cap, &sum);
	kp_top_header(t, secs, line, sizeof(line));
	fputs("# ", out);
	kp_text_put(out, 0, line); /* the event's name, as the recording has it */
	fprintf(out, "\n#   share  %s\n", keys[sort]);
	for (size_t i = 0; i < n && i < max; i++) {
		kp_top_row_name(t, &rows[i], sort, line, sizeof(line));
		fprintf(out, "%8.2f%%  ", 100.0 * rows[i].w / sum);
		kp_text_put(out, 0, line); /* commands and functions as the processes named them */
		fputc('\n', out);
	}
	fflush(out);
	kp_top_roll(t);
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

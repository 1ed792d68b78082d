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
	t->ro = (struct kp_report_opts){ .input = "kprof top", .dso = *dso, .addrs = true };
	t->rep.o = &t->ro;
	kp_session_init(&t->rep.s, dso);
}

/* The profile keeps the sampled addresses (one node per address), as a report built for
 * kp_annotate() does: a function of the list is annotated from what top counted. */
static void start(struct kp_top *t)
{
	struct kp_session *s = &t->rep.s;

	kp_profile_init(&t->rep.prof, &s->strs, s->evl.nr ? s->evl.nr : 1);
	t->rep.prof.addrs = true;
	kp_resolver_init(&t->rep.res, s, &t->rep.prof, KP_UNWIND_LIBDW);
	t->rep.ready = true;
}

static int on_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *th)
{
	struct kp_top *t = ctx;
	uint64_t period = smp->sample_type & PERF_SAMPLE_PERIOD ? smp->period : 1;
	uint32_t node;

	if (smp->pid == 0) { /* the idle task: left out, as perf top leaves idle symbols out */
		t->idle++;
		return 0;
	}
	if (!t->rep.ready)
		start(t);
	/* the profile's own weights count every sample since the start (or z), for annotate;
	 * the list's, decayed, are @weight's */
	node = kp_resolve_add(&t->rep.res, smp, rec->misc, th, false, (size_t)(ev - s->evl.ev),
			      period);
	if (node >= t->nr_weight) {
		size_t n = t->rep.prof.nr_nodes > node ? t->rep.prof.nr_nodes : node + 1;

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
	if (!t->rep.s.ops)
		kp_session_start(&t->rep.s, &ops, t);
	if (!t->err)
		t->err = kp_session_feed_chunk(&t->rep.s, *buf, len);
	return t->err;
}

const char *const kp_top_sort_names[KP_TOP_NR_SORTS] = { "sym", "dso", "comm", "comm,sym" };

static uint32_t func_of(const struct kp_top *t, uint32_t node)
{
	return t->rep.prof.locs[t->rep.prof.nodes[node].loc].func;
}

static uint32_t flags_of(const struct kp_top *t, uint32_t node)
{
	return t->rep.prof.locs[t->rep.prof.nodes[node].loc].flags;
}

/* The frame a sample at @node counts for: its leaf, or without @kernel the innermost user
 * frame of its stack; 0 for none (a kernel stack alone, or no frame under the command). */
static uint32_t counted(const struct kp_top *t, uint32_t node, bool kernel)
{
	while (node && !kernel && (flags_of(t, node) & KP_LOC_KERNEL))
		node = t->rep.prof.nodes[node].parent;
	return node && !(flags_of(t, node) & (KP_LOC_COMM | KP_LOC_CGROUP)) ? node : 0;
}

static uint32_t comm_of(const struct kp_top *t, uint32_t node)
{
	while (node && !(flags_of(t, node) & KP_LOC_COMM))
		node = t->rep.prof.nodes[node].parent;
	return node ? t->rep.prof.funcs[func_of(t, node)].name : 0;
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
	for (uint32_t node = 1; t->rep.ready && node < t->nr_weight && node < t->rep.prof.nr_nodes;
	     node++) {
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
			r.dso = t->rep.prof.funcs[f].dso;
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

/* A caller of a function asked for (its root), @parent's caller, or the root's when 0. */
struct caller {
	uint32_t parent;	/* entry index + 1, 0 for a caller of the root itself */
	uint32_t func, root;
	double w;
};

/* By root, then parent (a run of callers of one entry), heaviest first, then by function. */
static int cmp_caller(const void *a, const void *b, void *ctx)
{
	const struct caller *c = ctx, *x = &c[*(const uint32_t *)a], *y = &c[*(const uint32_t *)b];

	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

struct callers {
	const struct caller *c;
	const uint32_t *order;	/* the entries in cmp_caller()'s order */
	const size_t *kids;	/* per entry: where in @order its run of callers starts */
	size_t nr;
	struct kp_top_row **rows;
	size_t n, *cap;
};

/* The run of callers at @at of the order (of entry @parent, or of @root's first level), each
 * followed by its own. */
static void emit_callers(struct callers *cs, size_t at, uint32_t parent, uint32_t root,
			 uint16_t depth)
{
	for (size_t i = at; i < cs->nr; i++) {
		uint32_t e = cs->order[i];
		const struct caller *c = &cs->c[e];

		if (c->parent != parent || c->root != root)
			break;
		KP_GROW(*cs->rows, *cs->cap, cs->n + 1);
		(*cs->rows)[cs->n++] = (struct kp_top_row){ .func = c->func, .w = c->w,
							    .depth = depth, .root = root };
		if (cs->kids[e] != SIZE_MAX)
			emit_callers(cs, cs->kids[e], e + 1, root, (uint16_t)(depth + 1));
	}
}

size_t kp_top_callers(struct kp_top *t, bool (*open)(void *ctx, uint32_t func), void *ctx,
		      bool kernel, unsigned depth, struct kp_top_row **rows, size_t *cap)
{
	const struct kp_profile *p = &t->rep.prof;
	struct callers cs = { .rows = rows, .cap = cap };
	struct caller *c = NULL;
	uint32_t *order;
	size_t *kids, nr = 0, ccap = 0;
	struct kp_hash ids;

	kp_hash_init(&ids);
	for (uint32_t node = 1; t->rep.ready && node < t->nr_weight && node < p->nr_nodes; node++) {
		uint32_t at = t->weight[node] >= FORGET ? counted(t, node, kernel) : 0, up = 0;
		uint32_t root;

		if (!at || !open(ctx, root = func_of(t, at)))
			continue;
		at = p->nodes[at].parent;
		for (unsigned d = 0; d < depth && at && !(flags_of(t, at) & KP_LOC_COMM); d++) {
			uint32_t f = func_of(t, at);
			/* an entry: a function under its parent entry, or at its root's level */
			uint64_t key = up ? (uint64_t)up << 32 | f
					  : 1ull << 63 | (uint64_t)root << 32 | f;
			bool added;
			uint64_t i = *kp_hash_add(&ids, key, nr, &added);

			if (added) {
				KP_GROW(c, ccap, nr + 1);
				c[nr++] = (struct caller){ up, f, root, 0 };
			}
			c[i].w += t->weight[node];
			up = (uint32_t)i + 1;
			at = p->nodes[at].parent;
		}
	}
	kp_hash_release(&ids);
	order = kp_xcalloc(nr ? nr : 1, sizeof(*order));
	kids = kp_xcalloc(nr ? nr : 1, sizeof(*kids));
	for (size_t i = 0; i < nr; i++) {
		order[i] = (uint32_t)i;
		kids[i] = SIZE_MAX;
	}
	if (nr > 1)
		qsort_r(order, nr, sizeof(*order), cmp_caller, c);
	for (size_t i = 0; i < nr; i++) {
		const struct caller *e = &c[order[i]];

		if (e->parent && (!i || c[order[i - 1]].parent != e->parent))
			kids[e->parent - 1] = i;
	}
	cs.c = c;
	cs.order = order;
	cs.kids = kids;
	cs.nr = nr;
	for (size_t i = 0; i < nr; i++) /* each root's run starts with its first level */
		if (!i || c[order[i - 1]].root != c[order[i]].root)
			emit_callers(&cs, i, 0, c[order[i]].root, 1);
	for (size_t i = 0; i < cs.n; i++)
		(*rows)[i].dso = p->funcs[(*rows)[i].func].dso;
	free(order);
	free(kids);
	free(c);
	return cs.n;
}

void kp_top_row_name(const struct kp_top *t, const struct kp_top_row *r, enum kp_top_sort sort,
		     char *buf, size_t size)
{
	const struct kp_strtab *s = &t->rep.s.strs;
	const struct kp_func *fn = &t->rep.prof.funcs[r->func];
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
	const char *event = t->rep.s.evl.nr ? t->rep.s.evl.ev[0].name : "cpu-clock";

	const struct perf_event_attr *a = t->rep.s.evl.nr ? &t->rep.s.evl.ev[0].attr : NULL;
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
	if (t->rep.ready)
		memset(t->rep.prof.self, 0, t->rep.prof.cap_self * sizeof(*t->rep.prof.self));
}

struct kp_report *kp_top_report(struct kp_top *t)
{
	if (!t->rep.ready)
		return NULL;
	kp_profile_finish(&t->rep.prof);
	return &t->rep;
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
	kp_report_release(&t->rep);
	free(t->weight);
	memset(t, 0, sizeof(*t));
}

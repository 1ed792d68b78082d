/* SPDX-License-Identifier: MIT */
/*
 * latency.c - STARTs paired with ENDs by key (latency.h).
 */
#include "latency.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

/* Why @name cannot be read from @smp of part @i's event, once: the fields it has, and the
 * sample's own (@also: what else --by takes). */
static void no_field(struct kp_latency *l, size_t i, const struct kp_sample *smp,
		     const char *name, const char *also)
{
	char fields[384];

	if (l->key_error[0])
		return;
	fields[0] = '\0';
	if (smp->raw_size)
		kp_tp_field_names(l->tp, smp->raw, smp->raw_size, fields, sizeof(fields));
	snprintf(l->key_error, sizeof(l->key_error), "'%s' has no field '%s': it has %s%stid, "
		 "pid%s cpu%s", l->o->parts[i].event, name, fields,
		 fields[0] ? ", and the sample's " : "the sample's ", also ? "," : " and",
		 also ? also : "");
}

/* The value of field @name for @smp: a tracepoint field, else the sample's tid, pid or cpu.
 * -1 (with l->key_error set) when the event has no such field. */
static int field(struct kp_latency *l, size_t i, const struct kp_sample *smp, const char *name,
		 uint64_t *v)
{
	if (smp->raw_size && !kp_tp_field(l->tp, smp->raw, smp->raw_size, name, 0, v))
		return 0;
	if (!strcmp(name, "tid") || !strcmp(name, "pid") || !strcmp(name, "cpu")) {
		*v = name[0] == 't' ? smp->tid : name[0] == 'p' ? smp->pid : smp->cpu;
		return 0;
	}
	no_field(l, i, smp, name, NULL);
	return -1;
}

/* The key of @smp for part @i, as one number: FNV-1a over its fields' values (the chance that
 * two keys of one recording meet is about n^2 / 2^65). */
static int key_of(struct kp_latency *l, size_t i, const struct kp_sample *smp, uint64_t *key)
{
	uint64_t h = 14695981039346656037ull, v;

	for (const char *const *k = l->o->parts[i].keys; *k; k++) {
		if (field(l, i, smp, *k, &v))
			return -1;
		for (int b = 0; b < 8; b++, v >>= 8)
			h = (h ^ (v & 0xff)) * 1099511628211ull;
	}
	*key = h;
	return 0;
}

/* Whether @smp holds part @i's tests: 1, 0, or -1 (with l->key_error set) for a field its
 * event lacks. */
static int holds(struct kp_latency *l, size_t i, const struct kp_sample *smp)
{
	const struct kp_latency_test *t = l->o->parts[i].when;
	uint64_t v;

	for (; t < l->o->parts[i].when + KP_LAT_MAX_TESTS && t->field; t++) {
		if (field(l, i, smp, t->field, &v))
			return -1;
		if (((v & t->mask) == t->value) == t->ne)
			return 0;
	}
	return 1;
}

/* Keyed by the thread alone, STARTs nest (calls and returns); otherwise the last one counts. */
static bool nests(const struct kp_latency_opts *o)
{
	for (size_t i = 0; i < o->nr_parts; i++)
		if (!o->parts[i].keys[0] || o->parts[i].keys[1] ||
		    strcmp(o->parts[i].keys[0], "tid"))
			return false;
	return o->nr_parts > 0;
}

static void start_profile(struct kp_latency *l)
{
	kp_profile_init(&l->prof, &l->s.strs, 1);
	l->prof.events[0] = (struct kp_prof_event){ kp_strtab_intern(&l->s.strs, "latency"),
						    kp_strtab_intern(&l->s.strs, "ns"), 0, 0, true };
	kp_resolver_init(&l->res, &l->s, &l->prof, l->o->unwinder);
	l->ready = true;
}

static void find_events(struct kp_latency *l)
{
	for (size_t i = 0; i < l->o->nr_parts; i++) {
		const char *name = l->o->parts[i].event;

		l->ev[i] = -1;
		for (size_t e = 0; e < l->s.evl.nr; e++)
			if (!strcmp(l->s.evl.ev[e].name, name) || !strcmp(l->s.evl.ev[e].spec, name))
				l->ev[i] = (int)e;
	}
}

/* whether a part that must be there has no event in the recording */
static bool lacks_events(const struct kp_latency *l)
{
	for (size_t i = 0; i < l->o->nr_parts; i++)
		if (l->ev[i] < 0 && !l->o->parts[i].optional)
			return true;
	return false;
}

static int on_own(void *ctx, struct kp_session *s, const struct kp_rec_header *rec)
{
	struct kp_latency *l = ctx;
	const char *key, *value;

	kp_tp_add_record(l->tp, rec);
	if (rec->type == KP_REC_META) {
		kp_rec_meta_view(rec, &key, &value);
		if (!strcmp(key, "target"))
			l->system_wide = !strcmp(value, "system-wide");
	}
	if (rec->type != KP_REC_ATTR && l->ev[0] == -2) {
		find_events(l);
		/* without any event, read on: the damage that lost them is said at the end */
		if (lacks_events(l) && s->evl.nr)
			return -KP_LAT_ENOEVENTS;
	}
	return 0;
}

static void keep_top(struct kp_latency *l, const struct kp_latency_pair *p)
{
	size_t i;

	if (!l->o->top || (l->nr_top == l->o->top && p->ns <= l->top[l->nr_top - 1].ns))
		return;
	if (l->nr_top < l->o->top)
		l->nr_top++;
	for (i = l->nr_top - 1; i > 0 && l->top[i - 1].ns < p->ns; i--)
		l->top[i] = l->top[i - 1];
	l->top[i] = *p;
}

static void add_group(struct kp_latency *l, const struct kp_latency_pair *p)
{
	bool added;
	uint64_t *i = kp_hash_add(&l->group_ids, p->by, l->nr_groups, &added);
	struct kp_latency_group *g;

	if (added) {
		KP_GROW(l->groups, l->cap_groups, l->nr_groups + 1);
		l->groups[l->nr_groups++] = (struct kp_latency_group){ .value = p->by,
								       .comm = p->comm };
	}
	g = &l->groups[*i];
	g->count++;
	g->total += p->ns;
	g->max = p->ns > g->max ? p->ns : g->max;
}

static void paired(struct kp_latency *l, struct kp_latency_pair *p, uint64_t end)
{
	p->ns = end > p->start ? end - p->start : 0;
	KP_GROW(l->ns, l->cap, l->nr + 1);
	l->ns[l->nr++] = p->ns;
	kp_profile_add_weight(&l->prof, p->node, 0, 1, p->ns);
	keep_top(l, p);
	if (l->o->by)
		add_group(l, p);
}

static uint64_t *open_of(struct kp_latency *l, uint64_t key)
{
	uint64_t *i = kp_hash_get(&l->open_ids, key);

	return i && *i ? i : NULL;
}

static void start(struct kp_latency *l, uint64_t key, const struct kp_latency_pair *p,
		  bool first)
{
	uint64_t *top = open_of(l, key);
	size_t slot;

	if (top && !nests(l->o) && first) { /* the first START of the key counts */
		l->kept++;
		return;
	}
	if (top && !nests(l->o)) { /* the last START of the key counts */
		l->replaced++;
		l->open[*top - 1] = *p;
		l->open[*top - 1].ns = 0;
		return;
	}
	if (l->free_open) {
		slot = l->free_open - 1;
		l->free_open = (size_t)l->open[slot].ns;
	} else {
		KP_GROW(l->open, l->cap_open, l->nr_open + 1);
		slot = l->nr_open++;
	}
	l->open[slot] = *p;
	l->open[slot].ns = top ? *top : 0; /* the one it nests in */
	kp_hash_put(&l->open_ids, key, slot + 1);
}

static void end(struct kp_latency *l, uint64_t key, uint64_t time)
{
	uint64_t *top = open_of(l, key);
	struct kp_latency_pair p;
	size_t slot;

	if (!top) {
		l->no_start++;
		return;
	}
	slot = (size_t)*top - 1;
	p = l->open[slot];
	*top = p.ns; /* the one below, or none */
	l->open[slot].ns = l->free_open;
	l->open[slot].start = UINT64_MAX; /* free */
	l->free_open = slot + 1;
	p.ns = 0;
	paired(l, &p, time);
}

/* The task a START of part @i names: its event's own fields (with the part's prefix: the
 * task woken of sched_wakeup, the task switched out of sched_switch) where it has them, else
 * the sample's thread @t. Whether a field named its pid. */
static bool task_of(struct kp_latency *l, size_t i, const struct kp_sample *smp,
		    const struct kp_thread *t, struct kp_latency_pair *p)
{
	const char *prefix = l->o->parts[i].prefix ? l->o->parts[i].prefix : "";
	char name[64], comm[64];
	uint64_t v;

	bool named = false;

	p->tid = smp->tid;
	p->comm = t->comm;
	if (!smp->raw_size)
		return false;
	snprintf(name, sizeof(name), "%spid", prefix);
	if (!kp_tp_field(l->tp, smp->raw, smp->raw_size, name, 0, &v)) {
		p->tid = (uint32_t)v;
		named = true;
	}
	snprintf(name, sizeof(name), "%scomm", prefix);
	if (!kp_tp_field_str(l->tp, smp->raw, smp->raw_size, name, comm, sizeof(comm)))
		p->comm = kp_strtab_intern(&l->s.strs, comm);
	return named;
}

/* The --by value of a START of part @i: its task's comm, pid or tid (the kernel's pid, a
 * thread's, where a field @named it), else its event's field by that name (with the part's
 * prefix first), or the sample's cpu. */
static int by_of(struct kp_latency *l, size_t i, const struct kp_sample *smp,
		 struct kp_latency_pair *p, bool named)
{
	const char *by = l->o->by, *prefix = l->o->parts[i].prefix;
	char name[128];

	if (!strcmp(by, "comm")) {
		p->by = p->comm;
		return 0;
	}
	if (!strcmp(by, "pid") || !strcmp(by, "tid")) {
		p->by = named || by[0] == 't' ? p->tid : smp->pid;
		return 0;
	}
	snprintf(name, sizeof(name), "%s%s", prefix ? prefix : "", by);
	if (prefix && smp->raw_size && !kp_tp_field(l->tp, smp->raw, smp->raw_size, name, 0, &p->by))
		return 0;
	if (smp->raw_size && !kp_tp_field(l->tp, smp->raw, smp->raw_size, by, 0, &p->by))
		return 0;
	if (!strcmp(by, "cpu")) {
		p->by = smp->cpu;
		return 0;
	}
	no_field(l, i, smp, by, " and comm");
	return -1;
}

/* Part @i's take on @smp: a START opened, or an END that closes one. */
static int take_part(struct kp_latency *l, size_t i, const struct kp_sample *smp,
		     const struct kp_rec_header *rec, struct kp_thread *t)
{
	uint64_t key;
	int rc;

	l->fired[i]++;
	if ((rc = holds(l, i, smp)) <= 0)
		return rc < 0 ? -KP_LAT_EKEY : 0;
	l->taken[i]++;
	if (key_of(l, i, smp, &key))
		return -KP_LAT_EKEY;
	if (l->o->parts[i].ends) {
		end(l, key, smp->time);
		return 0;
	}
	struct kp_latency_pair p = { .start = smp->time };
	bool named = task_of(l, i, smp, t, &p);
	p.node = kp_resolve_stack(&l->res, smp, rec->misc, t, false);
	if (l->o->by && by_of(l, i, smp, &p, named))
		return -KP_LAT_EBY;
	start(l, key, &p, l->o->parts[i].first);
	return 0;
}

static int on_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *t)
{
	struct kp_latency *l = ctx;
	int e = (int)(ev - s->evl.ev), rc;

	if (!l->ready)
		start_profile(l);
	/* an event's ENDs first, then its STARTs: a sample may end one wait and start the next */
	for (int ends = 1; ends >= 0; ends--)
		for (size_t i = 0; i < l->o->nr_parts; i++)
			if (l->ev[i] == e && l->o->parts[i].ends == ends &&
			    (rc = take_part(l, i, smp, rec, t)))
				return rc;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int kp_latency_run(struct kp_latency *l, const struct kp_latency_opts *o)
{
	static const struct kp_session_ops ops = { .own = on_own, .sample = on_sample };
	int rc;

	memset(l, 0, sizeof(*l));
	l->o = o;
	l->tp = kp_tp_new();
	for (size_t i = 0; i < KP_LAT_MAX_PARTS; i++)
		l->ev[i] = -2;
	l->top = kp_xcalloc(o->top ? o->top : 1, sizeof(*l->top));
	kp_hash_init(&l->group_ids);
	kp_hash_init(&l->open_ids);
	l->open_err = kp_session_open(&l->s, o->input, &o->dso);
	if (l->open_err)
		return -KP_LAT_EOPEN;
	rc = kp_session_run(&l->s, &ops, l);
	if (l->ev[0] == -2)
		find_events(l);
	if (lacks_events(l))
		return -KP_LAT_ENOEVENTS;
	if (rc == -KP_LAT_EKEY || rc == -KP_LAT_EBY)
		return rc;
	if (!l->ready)
		start_profile(l);
	for (size_t i = 0; i < l->nr_open; i++) /* STARTs never ended */
		l->no_end += l->open[i].start != UINT64_MAX;
	if (l->s.have_stats)
		l->lost = l->s.stats.lost;
	if (l->nr) /* none paired: l->ns is NULL, which qsort() may not be given */
		qsort(l->ns, l->nr, sizeof(*l->ns), cmp_u64);
	kp_profile_finish(&l->prof);
	return rc;
}

void kp_latency_release(struct kp_latency *l)
{
	if (l->ready) {
		kp_resolver_release(&l->res);
		kp_profile_release(&l->prof);
	}
	kp_session_release(&l->s);
	kp_tp_free(l->tp);
	kp_hash_release(&l->group_ids);
	kp_hash_release(&l->open_ids);
	free(l->ns);
	free(l->top);
	free(l->groups);
	free(l->open);
	memset(l, 0, sizeof(*l));
}

uint64_t kp_latency_pct(const struct kp_latency *l, double p)
{
	size_t rank;

	if (!l->nr)
		return 0;
	rank = (size_t)(p / 100 * (double)l->nr + 0.999999999);
	return l->ns[rank ? (rank > l->nr ? l->nr : rank) - 1 : 0];
}

size_t kp_latency_row(uint64_t ns, uint64_t linear_ns)
{
	uint64_t us = ns / 1000, row;

	if (linear_ns)
		row = ns / linear_ns;
	else
		row = us ? 64 - (uint64_t)__builtin_clzll(us) : 0; /* [2^(row-1), 2^row) */
	return row < KP_LAT_ROWS - 1 ? (size_t)row : KP_LAT_ROWS - 1;
}

void kp_latency_row_range(size_t row, uint64_t linear_ns, uint64_t *lo, uint64_t *hi)
{
	if (linear_ns) {
		*lo = row * (linear_ns / 1000);
		*hi = row < KP_LAT_ROWS - 1 ? (row + 1) * (linear_ns / 1000) : UINT64_MAX;
	} else {
		*lo = row ? 1ull << (row - 1) : 0;
		*hi = row < 64 ? 1ull << row : UINT64_MAX;
	}
}

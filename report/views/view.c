/* SPDX-License-Identifier: MIT */
/*
 * view.c - the helpers every view calls (view.h): the text views' time and percentage
 * columns, the children of a node in order, the folded names' suffixes, and the timeline's
 * threads, CPU stretches and tracepoint fields.
 */
#include "view.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

bool kp_view_durations(const struct kp_profile *p, const struct kp_view_opts *o)
{
	return !o->by_samples && o->event < p->nr_events && p->events[o->event].durations;
}

void kp_view_print_time(FILE *out, uint64_t ns)
{
	if (ns >= 10000000000ull)
		fprintf(out, "%10.3f s ", ns / 1e9);
	else
		fprintf(out, "%10.3f ms", ns / 1e6);
}

void kp_view_print_pct(FILE *out, double pct, bool color)
{
	const char *c = !color ? NULL : pct >= 5.0 ? "\033[31m" : pct >= 0.5 ? "\033[32m" : NULL;

	if (c)
		fprintf(out, "%s%6.2f%%\033[0m", c, pct);
	else
		fprintf(out, "%6.2f%%", pct);
}

const char *kp_view_annotation(uint32_t flags)
{
	return flags & KP_LOC_KERNEL ? "_[k]" : flags & KP_LOC_INLINED ? "_[i]"
	       : flags & KP_LOC_JIT ? "_[j]" : "";
}

struct child_sort {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
};

/* Larger totals first; equal ones by name, so the output is deterministic. */
static int cmp_child(const void *a, const void *b, void *ctx)
{
	const struct child_sort *cs = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t tx = kp_view_weight(cs->o, kp_profile_total(cs->p, x, cs->o->event));
	uint64_t ty = kp_view_weight(cs->o, kp_profile_total(cs->p, y, cs->o->event));

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(kp_profile_name(cs->p, x), kp_profile_name(cs->p, y));
}

size_t kp_view_children(const struct kp_profile *p, const struct kp_view_opts *o, uint32_t node,
			uint32_t **out)
{
	struct child_sort cs = { p, o };
	size_t n = 0, cap = 0;
	uint32_t *v = NULL;

	for (uint32_t c = p->first_child[node]; c; c = p->next_sibling[c]) {
		if (!kp_profile_total(p, c, o->event)->count &&
		    !(o->diff && kp_profile_total(p, c, 0)->count))
			continue; /* another event's branch; in a diff, BASE's are shown: vanished */
		KP_GROW(v, cap, n + 1);
		v[n++] = c;
	}
	if (n > 1)
		qsort_r(v, n, sizeof(*v), cmp_child, &cs);
	*out = v;
	return n;
}

/* --- the timeline ------------------------------------------------------------------------- */

static bool shown(const struct kp_view_opts *o, unsigned what, const struct kp_seq_ent *e)
{
	return e->event == o->event || (what & KP_THREADS_ALL) ||
	       (e->fields && (what & KP_THREADS_FIELDS));
}

/* Two entries of the timeline by time, then by where they are in it. */
static int by_time(const void *a, const void *b, void *ctx)
{
	const struct kp_seq_ent *ents = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (ents[x].time != ents[y].time)
		return ents[x].time < ents[y].time ? -1 : 1;
	return (x > y) - (x < y);
}

/* A thread's entries in time order, which the timeline's order need not be: a sample that
 * reached the file after its round was replayed (a busy recorder) comes late. */
static void time_order(const struct kp_seq *s, uint32_t *ord, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (s->ents[ord[i]].time < s->ents[ord[i - 1]].time) {
			qsort_r(ord, n, sizeof(*ord), by_time, s->ents);
			return;
		}
}

size_t kp_view_threads(const struct kp_view_opts *o, unsigned what,
		       struct kp_view_thread **threads, uint32_t **order)
{
	const struct kp_seq *s = o->seq;
	struct kp_view_thread *t = NULL;
	size_t nr = 0, cap = 0, total = 0;
	uint32_t *ord, *of = NULL; /* of: each entry's thread */
	struct kp_hash ids;

	*threads = NULL;
	*order = NULL;
	if (!s || !s->nr)
		return 0;
	kp_hash_init(&ids);
	of = kp_xmalloc(s->nr * sizeof(*of));
	for (size_t i = 0; i < s->nr; i++) {
		const struct kp_seq_ent *e = &s->ents[i];
		bool idle = !e->pid && !e->tid;
		/* a process the recording saw forked is one of its own, whatever its pid */
		uint64_t life = e->life & 0x3fffffff, *v;
		uint64_t key = idle ? 1ull << 63 | e->cpu : life ? 1ull << 62 | life << 32 | e->tid
			       : (uint64_t)e->pid << 32 | e->tid;
		bool added;

		if (!shown(o, what, e))
			continue;
		v = kp_hash_add(&ids, key, nr, &added);
		if (added) {
			KP_GROW(t, cap, nr + 1);
			t[nr++] = (struct kp_view_thread){ .pid = e->pid, .life = e->life,
				.tid = idle ? KP_VIEW_IDLE_TID + e->cpu : e->tid,
				.cpu = idle ? e->cpu : UINT32_MAX };
		}
		of[i] = (uint32_t)*v;
		t[*v].nr++;
		t[*v].comm = e->comm ? e->comm : t[*v].comm;
		total++;
	}
	for (size_t k = 0, at = 0; k < nr; k++) {
		t[k].first = at;
		at += t[k].nr;
		t[k].nr = 0;
	}
	ord = kp_xmalloc((total ? total : 1) * sizeof(*ord));
	for (size_t i = 0; i < s->nr; i++)
		if (shown(o, what, &s->ents[i])) {
			struct kp_view_thread *th = &t[of[i]];
			ord[th->first + th->nr++] = (uint32_t)i;
		}
	for (size_t k = 0; k < nr; k++)
		time_order(s, ord + t[k].first, t[k].nr);
	free(of);
	kp_hash_release(&ids);
	*threads = t;
	*order = ord;
	return nr;
}

const char *kp_view_thread_name(const struct kp_profile *p, const struct kp_view_thread *t,
				char *buf, size_t size)
{
	const char *comm = kp_strtab_get(p->strs, t->comm);

	if (t->cpu != UINT32_MAX) {
		snprintf(buf, size, "swapper/%u", t->cpu);
		return buf;
	}
	return *comm ? comm : "[unknown]";
}

size_t kp_view_key_len(const char *s)
{
	size_t n = 0;

	while (s[n] == '_' || (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
	       (n && s[n] >= '0' && s[n] <= '9'))
		n++;
	return s[n] == '=' ? n : 0;
}

const char *kp_view_field(const char *fields, const char *key, size_t *len)
{
	size_t k = strlen(key);

	for (const char *s = fields; *s; s++) {
		size_t v = k + 1;
		if ((s != fields && s[-1] != ' ') || kp_view_key_len(s) != k || memcmp(s, key, k))
			continue;
		while (s[v] && !(s[v] == ' ' && kp_view_key_len(s + v + 1)))
			v++;
		*len = v - k - 1;
		return s + k + 1;
	}
	return NULL;
}

struct cpu_switch {
	uint32_t cpu, ent;
	uint64_t time;
};

static int by_cpu_time(const void *a, const void *b)
{
	const struct cpu_switch *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->ent > y->ent) - (x->ent < y->ent);
}

/* @e's event is sched:sched_switch, and its fields were decoded */
static bool is_sched_switch(const struct kp_profile *p, const struct kp_seq_ent *e)
{
	return e->fields && e->event < p->nr_events && p->events[e->event].name &&
	       !strcmp(kp_strtab_get(p->strs, p->events[e->event].name), "sched:sched_switch");
}

/* The task id of @key ("next_pid", "prev_pid") in sched_switch fields @f; false without one. */
static bool switch_pid(const char *f, const char *key, uint32_t *pid)
{
	size_t len;
	const char *v = kp_view_field(f, key, &len);
	char num[16];

	if (!v || !len || len >= sizeof(num))
		return false;
	memcpy(num, v, len);
	num[len] = '\0';
	*pid = (uint32_t)strtoul(num, NULL, 10);
	return true;
}

/* A stretch of @pid (named by @key's comm in switch @at's fields) from @start to @end. */
static struct kp_view_cpu_slice *add_cpu_slice(const struct kp_profile *p,
					       const struct kp_view_opts *o,
					       const struct cpu_switch *at, const char *key,
					       uint32_t pid, uint64_t start, uint64_t end,
					       struct kp_view_cpu_slice **v, size_t *nr,
					       size_t *cap)
{
	const char *f = kp_strtab_get(p->strs, o->seq->ents[at->ent].fields), *comm;
	size_t clen;

	if (end <= start || !(comm = kp_view_field(f, key, &clen)))
		return NULL; /* nothing, or no name */
	KP_GROW(*v, *cap, *nr + 1);
	(*v)[*nr] = (struct kp_view_cpu_slice){ .cpu = at->cpu, .pid = pid, .comm = comm,
						.comm_len = clen, .start = start, .end = end };
	return &(*v)[(*nr)++];
}

size_t kp_view_cpu_slices(const struct kp_profile *p, const struct kp_view_opts *o,
			  struct kp_view_cpu_slice **out)
{
	const struct kp_seq *s = o->seq;
	struct cpu_switch *sw = NULL;
	struct kp_view_cpu_slice *v = NULL, *u;
	size_t n = 0, cap = 0, nr = 0, vcap = 0;
	uint64_t last = p->t_last;

	*out = NULL;
	for (size_t i = 0; s && i < s->nr; i++)
		if (is_sched_switch(p, &s->ents[i])) {
			KP_GROW(sw, cap, n + 1);
			sw[n++] = (struct cpu_switch){ s->ents[i].cpu, (uint32_t)i, s->ents[i].time };
			last = s->ents[i].time > last ? s->ents[i].time : last;
		}
	if (n > 1)
		qsort(sw, n, sizeof(*sw), by_cpu_time);
	for (size_t i = 0; i < n; i++) {
		const char *f = kp_strtab_get(p->strs, s->ents[sw[i].ent].fields), *g;
		bool first = !i || sw[i - 1].cpu != sw[i].cpu;
		bool more = i + 1 < n && sw[i + 1].cpu == sw[i].cpu;
		uint32_t next, prev, then = 0;
		size_t len;

		if (!switch_pid(f, "next_pid", &next) || !switch_pid(f, "prev_pid", &prev))
			continue;
		if (first && prev) /* the task it switched from ran since the profile's start */
			add_cpu_slice(p, o, &sw[i], "prev_comm", prev, p->t_first, sw[i].time,
				      &v, &nr, &vcap);
		g = more ? kp_strtab_get(p->strs, s->ents[sw[i + 1].ent].fields) : NULL;
		if (g && switch_pid(g, "prev_pid", &then) && then != next) {
			/* a switch between the two was not recorded */
			u = add_cpu_slice(p, o, &sw[i], "next_comm", next, sw[i].time,
					  sw[i + 1].time, &v, &nr, &vcap);
			if (u) {
				u->unknown = true;
				u->then_pid = then;
				u->then_comm = kp_view_field(g, "prev_comm", &len);
				u->then_len = u->then_comm ? len : 0;
				u->then_comm = u->then_comm ? u->then_comm : "";
			}
		} else if (next) {
			add_cpu_slice(p, o, &sw[i], "next_comm", next, sw[i].time,
				      more ? sw[i + 1].time : last, &v, &nr, &vcap);
		}
	}
	free(sw);
	*out = v;
	return nr;
}

size_t kp_view_stack(const struct kp_profile *p, uint32_t node, uint32_t **buf, size_t *cap)
{
	size_t n = 0;

	for (uint32_t c = node; c; c = p->nodes[c].parent)
		if (!(p->locs[p->nodes[c].loc].flags & KP_LOC_COMM)) {
			KP_GROW(*buf, *cap, n + 1);
			(*buf)[n++] = c;
		}
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t x = (*buf)[i];
		(*buf)[i] = (*buf)[n - 1 - i];
		(*buf)[n - 1 - i] = x;
	}
	return n;
}

static bool event_in_ns(const struct kp_profile *p, size_t e)
{
	return e < p->nr_events && p->events && p->events[e].unit &&
	       !strcmp(kp_strtab_get(p->strs, p->events[e].unit), "ns");
}

const char *kp_view_unit(const struct kp_profile *p, const struct kp_view_opts *o)
{
	const struct kp_prof_event *ev = o->event < p->nr_events ? &p->events[o->event] : NULL;

	if (o->by_samples || !ev || !ev->unit)
		return "samples";
	return kp_strtab_get(p->strs, ev->unit);
}

uint64_t kp_view_interval(const struct kp_profile *p, const struct kp_view_opts *o,
			  const struct kp_seq_ent *e)
{
	const struct kp_prof_event *ev = e->event < p->nr_events ? &p->events[e->event] : NULL;

	if (!ev)
		return 0;
	if (event_in_ns(p, e->event) && !o->by_samples && e->count)
		return e->value / e->count; /* a clock's period is its time */
	if (event_in_ns(p, e->event) && ev->period)
		return ev->period;
	return ev->freq ? 1000000000 / ev->freq : 0;
}

uint64_t kp_view_run_end(const struct kp_profile *p, const struct kp_view_opts *o,
			 const struct kp_seq_ent *e, const struct kp_seq_ent *next)
{
	uint64_t iv = kp_view_interval(p, o, e), end;

	if (e->kind != KP_SEQ_SAMPLES) /* an off-CPU interval: its own length, whatever it weighs */
		return __builtin_add_overflow(e->time, e->span, &end) ? UINT64_MAX : end;
	if (!iv && next) /* a run of unknown length: up to the next, or a microsecond a sample */
		return next->time > e->time ? next->time : e->time;
	if (__builtin_mul_overflow(e->count ? e->count : 1, iv ? iv : 1000, &end) ||
	    __builtin_add_overflow(end, e->time, &end))
		end = UINT64_MAX;
	if (next && next->time < end)
		end = next->time > e->time ? next->time : e->time;
	return end;
}

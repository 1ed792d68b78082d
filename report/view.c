/* SPDX-License-Identifier: MIT */
#include "view.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

const struct kp_view kp_views[] = {
	{ "tree", kp_view_tree, "caller-based call tree with total and self percentages",
	  .text = true, .inverted = KP_INVERTED_CALLEES, .diff = true },
	{ "flat", kp_view_flat, "functions by self time", .text = true,
	  .options = kp_flat_options },
	{ "folded", kp_view_folded, "FlameGraph's folded stacks: comm;frame;...;leaf count",
	  .one_event = true, .options = kp_folded_options },
	{ "svg", kp_view_svg, "an interactive flame graph", .one_event = true,
	  .inverted = KP_INVERTED_ICICLE, .seq = KP_SEQ_FLAMECHART },
	{ "pprof", kp_view_pprof, "pprof's profile.proto, gzipped: go tool pprof, Pyroscope, Parca",
	  .one_event = true, .seq = KP_SEQ_ALWAYS, .addrs = true, .binary = true,
	  .options = kp_pprof_options },
	{ "speedscope", kp_view_speedscope, "speedscope's JSON: a sampled profile per thread",
	  .one_event = true, .seq = KP_SEQ_ALWAYS },
	{ "chrome", kp_view_chrome, "Chrome trace events (Perfetto, chrome://tracing): a flame "
	  "chart per thread, tracepoints as instants", .one_event = true, .seq = KP_SEQ_ALWAYS,
	  .fields = true },
	{ "firefox", kp_view_firefox, "the Firefox Profiler's Gecko profile, gzip-compressed "
	  "(.json.gz)", .one_event = true, .seq = KP_SEQ_ALWAYS, .binary = true },
};
const size_t kp_nr_views = ARRAY_SIZE(kp_views);

const struct kp_view *kp_view_find(const char *name)
{
	for (size_t i = 0; i < kp_nr_views; i++)
		if (!strcmp(kp_views[i].name, name))
			return &kp_views[i];
	return NULL;
}

size_t kp_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : (c & 0xf0) == 0xe0 ? 3
				: c >= 0xf0 && c <= 0xf4 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, UTF-16 surrogates and code points past U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

double kp_view_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

double kp_view_pct_d(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

void kp_svg_opts_init(struct kp_svg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->frame_height = 16;
	o->minwidth = 0.1;
	o->fontsize = 12;
	o->normalize = true;
}

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

static bool shown(const struct kp_view_opts *o, bool fields, const struct kp_seq_ent *e)
{
	return e->fields ? fields : e->event == o->event;
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

size_t kp_view_threads(const struct kp_view_opts *o, bool fields, struct kp_view_thread **threads,
		       uint32_t **order)
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
		uint64_t key = (uint64_t)e->pid << 32 | e->tid, *v;

		if (!shown(o, fields, e))
			continue;
		if (!(v = kp_hash_get(&ids, key))) {
			KP_GROW(t, cap, nr + 1);
			t[nr] = (struct kp_view_thread){ .pid = e->pid, .tid = e->tid };
			kp_hash_put(&ids, key, nr);
			v = kp_hash_get(&ids, key);
			nr++;
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
		if (shown(o, fields, &s->ents[i])) {
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

/* SPDX-License-Identifier: MIT */
#include "evlist.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void kp_evlist_init(struct kp_evlist *l)
{
	memset(l, 0, sizeof(*l));
}

void kp_evlist_release(struct kp_evlist *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		free(l->ev[i].name);
		free(l->ev[i].spec);
		free(l->ev[i].ids);
	}
	free(l->ev);
	free(l->by_id);
	kp_evlist_init(l);
}

static int cmp_id(const void *a, const void *b)
{
	const struct kp_evid *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every id, sorted, with its event: a lookup per record, however many ids (threads x CPUs). */
static void index_ids(struct kp_evlist *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->nr; i++)
		n += l->ev[i].nr_ids;
	free(l->by_id);
	l->by_id = kp_xcalloc(n ? n : 1, sizeof(*l->by_id));
	l->nr_by_id = 0;
	for (size_t i = 0; i < l->nr; i++)
		for (uint32_t k = 0; k < l->ev[i].nr_ids; k++)
			l->by_id[l->nr_by_id++] = (struct kp_evid){ l->ev[i].ids[k], i };
	qsort(l->by_id, l->nr_by_id, sizeof(*l->by_id), cmp_id);
}

void kp_evlist_add_event(struct kp_evlist *l, const struct perf_event_attr *attr, uint32_t index,
			 const uint64_t *ids, uint32_t nr_ids, const char *name, const char *spec,
			 bool fallback)
{
	struct kp_evsel *e;

	for (size_t i = 0; i < l->nr; i++) {
		e = &l->ev[i];
		if (e->index == index && nr_ids <= UINT32_MAX - e->nr_ids &&
		    !memcmp(&e->attr, attr, sizeof(e->attr)) && !strcmp(e->name, name) &&
		    !strcmp(e->spec, spec)) {
			/* the same event's next ids */
			e->ids = kp_xrealloc(e->ids, ((size_t)e->nr_ids + nr_ids + 1) *
							     sizeof(*e->ids));
			if (nr_ids) /* @ids may be NULL then: memcpy() takes no NULL */
				memcpy(e->ids + e->nr_ids, ids, nr_ids * sizeof(*e->ids));
			e->nr_ids += nr_ids;
			index_ids(l);
			return;
		}
	}
	KP_GROW(l->ev, l->cap, l->nr + 1);
	e = &l->ev[l->nr++];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->name = kp_xstrdup(name);
	e->spec = kp_xstrdup(spec);
	e->nr_ids = nr_ids;
	e->ids = kp_xcalloc(nr_ids ? nr_ids : 1, sizeof(*e->ids));
	if (nr_ids)
		memcpy(e->ids, ids, nr_ids * sizeof(*e->ids));
	e->index = index;
	e->fallback = fallback;
	index_ids(l);
}

void kp_evlist_add(struct kp_evlist *l, const struct kp_rec_header *rec)
{
	struct kp_attr_view v;

	kp_rec_attr_view(rec, &v);
	kp_evlist_add_event(l, &v.attr, v.index, v.ids, v.nr_ids, v.name, v.spec, v.fallback);
}

static const struct kp_evsel *find_id(const struct kp_evlist *l, uint64_t id)
{
	const struct kp_evid key = { id, 0 };
	const struct kp_evid *hit = bsearch(&key, l->by_id, l->nr_by_id, sizeof(key), cmp_id);

	return hit ? &l->ev[hit->ev] : NULL;
}

/*
 * Where PERF_SAMPLE_ID is in a record of @words u64s, without IDENTIFIER (perf's files with
 * several events of one sample_type): in a sample after IP, TID, TIME and ADDR; in the
 * sample_id_all trailer before STREAM_ID and CPU, counted from the end. SIZE_MAX: not there.
 */
static size_t id_pos(uint64_t st, bool sample, size_t words)
{
	size_t after = !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU);

	if (sample)
		return !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
		       !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
	return words > after ? words - 1 - after : SIZE_MAX;
}

const struct kp_evsel *kp_evlist_find(const struct kp_evlist *l, const struct kp_rec_header *rec)
{
	const uint64_t *w = (const uint64_t *)(rec + 1);
	size_t words = (rec->size - sizeof(*rec)) / 8;

	uint64_t st;
	size_t at;

	if (!l->nr)
		return NULL;
	st = l->ev[0].attr.sample_type;
	if (l->nr == 1 && (!(st & PERF_SAMPLE_IDENTIFIER) || !words))
		return &l->ev[0]; /* one event: every record is its */
	if (!(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)) || !words)
		return NULL;
	if (rec->type != PERF_RECORD_SAMPLE && !l->ev[0].attr.sample_id_all)
		return NULL;
	if (st & PERF_SAMPLE_IDENTIFIER)
		return find_id(l, rec->type == PERF_RECORD_SAMPLE ? w[0] : w[words - 1]);
	at = id_pos(st, rec->type == PERF_RECORD_SAMPLE, words);
	return at < words ? find_id(l, w[at]) : NULL;
}

uint32_t kp_evlist_stack_copy(const struct kp_evlist *l)
{
	uint32_t copy = 0;

	for (size_t i = 0; i < l->nr; i++)
		if ((l->ev[i].attr.sample_type & PERF_SAMPLE_STACK_USER) &&
		    l->ev[i].attr.sample_stack_user > copy)
			copy = l->ev[i].attr.sample_stack_user;
	return copy;
}

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
	kp_evlist_init(l);
}

void kp_evlist_add(struct kp_evlist *l, const struct kp_rec_header *rec)
{
	struct kp_attr_view v;
	struct kp_evsel *e;

	kp_rec_attr_view(rec, &v);
	for (size_t i = 0; i < l->nr; i++) {
		e = &l->ev[i];
		if (e->index == v.index && v.nr_ids <= UINT32_MAX - e->nr_ids &&
		    !memcmp(&e->attr, &v.attr, sizeof(e->attr)) &&
		    !strcmp(e->name, v.name) && !strcmp(e->spec, v.spec)) {
			/* the same event's next ids */
			e->ids = kp_xrealloc(e->ids, ((size_t)e->nr_ids + v.nr_ids + 1) *
							     sizeof(*e->ids));
			memcpy(e->ids + e->nr_ids, v.ids, v.nr_ids * sizeof(*e->ids));
			e->nr_ids += v.nr_ids;
			return;
		}
	}
	KP_GROW(l->ev, l->cap, l->nr + 1);
	e = &l->ev[l->nr++];
	memset(e, 0, sizeof(*e));
	e->attr = v.attr;
	e->name = kp_xstrdup(v.name);
	e->spec = kp_xstrdup(v.spec);
	e->nr_ids = v.nr_ids;
	e->ids = kp_xcalloc(v.nr_ids ? v.nr_ids : 1, sizeof(*e->ids));
	memcpy(e->ids, v.ids, v.nr_ids * sizeof(*e->ids));
	e->index = v.index;
	e->fallback = v.fallback;
}

static const struct kp_evsel *find_id(const struct kp_evlist *l, uint64_t id)
{
	for (size_t i = 0; i < l->nr; i++)
		for (uint32_t k = 0; k < l->ev[i].nr_ids; k++)
			if (l->ev[i].ids[k] == id)
				return &l->ev[i];
	return NULL;
}

const struct kp_evsel *kp_evlist_find(const struct kp_evlist *l, const struct kp_rec_header *rec)
{
	const uint64_t *w = (const uint64_t *)(rec + 1);
	size_t words = (rec->size - sizeof(*rec)) / 8;

	if (!l->nr)
		return NULL;
	if (!(l->ev[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER) || !words)
		return l->nr == 1 ? &l->ev[0] : NULL; /* one event: every record is its */
	if (rec->type == PERF_RECORD_SAMPLE)
		return find_id(l, w[0]);
	if (!l->ev[0].attr.sample_id_all)
		return NULL;
	return find_id(l, w[words - 1]);
}

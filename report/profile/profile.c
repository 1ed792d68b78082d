/* SPDX-License-Identifier: MIT */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

void kp_profile_init(struct kp_profile *p, struct kp_strtab *strs, size_t nr_events)
{
	memset(p, 0, sizeof(*p));
	p->strs = strs;
	p->nr_events = nr_events ? nr_events : 1;
	kp_hash_init(&p->func_ids);
	kp_hash_init(&p->loc_ids);
	kp_hash_init(&p->node_ids);
	kp_hash_init(&p->map_ids);
	p->events = kp_xcalloc(p->nr_events, sizeof(*p->events));
	KP_GROW(p->maps, p->cap_maps, 1);
	p->maps[0] = (struct kp_mapping){ 0 };
	p->nr_maps = 1;
	/* node 0: the root; loc 0 and func 0: "all" */
	kp_profile_loc(p, kp_profile_func(p, kp_strtab_intern(strs, "all"), 0, 0), 0, 0, 0);
	KP_GROW(p->nodes, p->cap_nodes, 1);
	p->nodes[0] = (struct kp_node){ 0, 0 };
	p->nr_nodes = 1;
	KP_GROW(p->self, p->cap_self, p->nr_events);
	memset(p->self, 0, p->cap_self * sizeof(*p->self));
}

void kp_profile_release(struct kp_profile *p)
{
	free(p->funcs);
	free(p->locs);
	free(p->nodes);
	free(p->self);
	free(p->total);
	free(p->first_child);
	free(p->next_sibling);
	free(p->events);
	free(p->maps);
	kp_hash_release(&p->map_ids);
	kp_hash_release(&p->func_ids);
	kp_hash_release(&p->loc_ids);
	kp_hash_release(&p->node_ids);
	memset(p, 0, sizeof(*p));
}

struct want_func {
	const struct kp_profile *p;
	struct kp_func f;
};

static bool same_func(const void *ctx, uint64_t id)
{
	const struct want_func *w = ctx;

	return !memcmp(&w->p->funcs[id], &w->f, sizeof(w->f));
}

uint32_t kp_profile_func(struct kp_profile *p, uint32_t name, uint32_t dso, uint32_t flags)
{
	struct want_func want = { p, { name, dso, flags } };
	uint64_t key = kp_hash_bytes(&want.f, sizeof(want.f), 1);
	uint64_t *id = kp_hash_find(&p->func_ids, &key, same_func, &want);

	if (id)
		return (uint32_t)*id;
	KP_GROW(p->funcs, p->cap_funcs, p->nr_funcs + 1);
	p->funcs[p->nr_funcs] = (struct kp_func){ name, dso, flags };
	kp_hash_put(&p->func_ids, key, p->nr_funcs);
	return (uint32_t)p->nr_funcs++;
}

struct want_loc {
	const struct kp_profile *p;
	struct kp_loc l;
};

static bool same_loc(const void *ctx, uint64_t id)
{
	const struct kp_loc *a = &((const struct want_loc *)ctx)->l;
	const struct kp_loc *b = &((const struct want_loc *)ctx)->p->locs[id];

	return a->func == b->func && a->file == b->file && a->line == b->line &&
	       a->flags == b->flags && a->map == b->map && a->addr == b->addr && a->sys == b->sys;
}

uint32_t kp_profile_loc_at(struct kp_profile *p, uint32_t func, uint32_t file, uint32_t line,
			   uint32_t flags, uint32_t map, uint64_t addr, uint32_t sys)
{
	struct want_loc want = { p, { func, file, line, flags, map, sys, addr } };
	uint64_t words[] = { (uint64_t)func << 32 | file, (uint64_t)line << 32 | flags,
			     (uint64_t)map << 32 | sys, addr };
	uint64_t key = kp_hash_words(words, ARRAY_SIZE(words), 2);
	uint64_t *id = kp_hash_find(&p->loc_ids, &key, same_loc, &want);

	if (id)
		return (uint32_t)*id;
	KP_GROW(p->locs, p->cap_locs, p->nr_locs + 1);
	p->locs[p->nr_locs] = want.l;
	kp_hash_put(&p->loc_ids, key, p->nr_locs);
	return (uint32_t)p->nr_locs++;
}

uint32_t kp_profile_loc(struct kp_profile *p, uint32_t func, uint32_t file, uint32_t line,
			uint32_t flags)
{
	return kp_profile_loc_at(p, func, file, line, flags, 0, 0, 0);
}

uint32_t kp_profile_map(struct kp_profile *p, uint32_t path, uint32_t build_id, uint64_t start,
			uint64_t limit, uint64_t offset, uint32_t flags)
{
	uint64_t *id = kp_hash_get(&p->map_ids, (uint64_t)path << 32 | build_id);
	struct kp_mapping *m;

	if (id) {
		m = &p->maps[*id];
		if (start < m->start)
			m->start = start;
		if (limit > m->limit)
			m->limit = limit;
		return (uint32_t)*id;
	}
	KP_GROW(p->maps, p->cap_maps, p->nr_maps + 1);
	p->maps[p->nr_maps] = (struct kp_mapping){ path, build_id, start, limit, offset, flags };
	kp_hash_put(&p->map_ids, (uint64_t)path << 32 | build_id, p->nr_maps);
	return (uint32_t)p->nr_maps++;
}

static uint32_t node_intern(struct kp_profile *p, uint32_t parent, uint32_t loc)
{
	uint64_t key = (uint64_t)parent << 32 | loc, *id = kp_hash_get(&p->node_ids, key);
	size_t need;

	if (id)
		return (uint32_t)*id;
	KP_GROW(p->nodes, p->cap_nodes, p->nr_nodes + 1);
	p->nodes[p->nr_nodes] = (struct kp_node){ parent, loc };
	need = (p->nr_nodes + 1) * p->nr_events;
	if (need > p->cap_self) {
		size_t old = p->cap_self;
		KP_GROW(p->self, p->cap_self, need);
		memset(p->self + old, 0, (p->cap_self - old) * sizeof(*p->self));
	}
	kp_hash_put(&p->node_ids, key, p->nr_nodes);
	return (uint32_t)p->nr_nodes++;
}

uint32_t kp_profile_path(struct kp_profile *p, const uint32_t *locs, size_t n)
{
	uint32_t node = 0;

	for (size_t i = 0; i < n; i++)
		node = node_intern(p, node, locs[i]);
	return node;
}

void kp_profile_add_node(struct kp_profile *p, uint32_t node, size_t event, uint64_t period)
{
	struct kp_weight *w = &p->self[node * p->nr_events + event];

	w->count++;
	w->period += period;
}

void kp_profile_add_weight(struct kp_profile *p, uint32_t node, size_t event, uint64_t count,
			   uint64_t period)
{
	struct kp_weight *w = &p->self[node * p->nr_events + event];

	w->count += count;
	w->period += period;
}

void kp_profile_add(struct kp_profile *p, const uint32_t *locs, size_t n, size_t event,
		    uint64_t period)
{
	kp_profile_add_node(p, kp_profile_path(p, locs, n), event, period);
}

void kp_profile_finish(struct kp_profile *p)
{
	size_t n = p->nr_nodes, ne = p->nr_events;

	free(p->total); /* again, after more samples: brought up to date */
	free(p->first_child);
	free(p->next_sibling);
	p->total = kp_xmalloc(n * ne * sizeof(*p->total));
	memcpy(p->total, p->self, n * ne * sizeof(*p->total));
	for (size_t i = n - 1; i > 0; i--) {
		struct kp_weight *t = &p->total[i * ne], *up = &p->total[p->nodes[i].parent * ne];
		for (size_t e = 0; e < ne; e++) {
			up[e].count += t[e].count;
			up[e].period += t[e].period;
		}
	}
	p->first_child = kp_xmalloc(n * sizeof(uint32_t));
	p->next_sibling = kp_xmalloc(n * sizeof(uint32_t));
	memset(p->first_child, 0, n * sizeof(uint32_t));
	memset(p->next_sibling, 0, n * sizeof(uint32_t));
	/* walking backwards and pushing in front keeps children in creation order; 0 ends a list */
	for (size_t i = n - 1; i > 0; i--) {
		uint32_t parent = p->nodes[i].parent;
		p->next_sibling[i] = p->first_child[parent];
		p->first_child[parent] = (uint32_t)i;
	}
}

static uint32_t intern_from(struct kp_profile *dst, const struct kp_profile *src, uint32_t id)
{
	return id ? kp_strtab_intern(dst->strs, kp_strtab_get(src->strs, id)) : 0;
}

/* The map of @dst that is @src's @map (0 when either has no addresses). */
static uint32_t map_from(struct kp_profile *dst, const struct kp_profile *src, uint32_t map)
{
	const struct kp_mapping *m = &src->maps[map];

	if (!map || !dst->addrs)
		return 0;
	return kp_profile_map(dst, intern_from(dst, src, m->path),
			      intern_from(dst, src, m->build_id), m->start, m->limit, m->offset,
			      m->flags);
}

/* The location of @dst that is @src's @loc. */
static uint32_t loc_from(struct kp_profile *dst, const struct kp_profile *src, uint32_t loc)
{
	const struct kp_loc *l = &src->locs[loc];
	const struct kp_func *f = &src->funcs[l->func];
	uint32_t func = kp_profile_func(dst, intern_from(dst, src, f->name),
					intern_from(dst, src, f->dso), f->flags);
	uint32_t map = map_from(dst, src, l->map);

	return kp_profile_loc_at(dst, func, intern_from(dst, src, l->file), l->line, l->flags,
				 map, map ? l->addr : 0, map ? intern_from(dst, src, l->sys) : 0);
}

void kp_profile_merge(struct kp_profile *dst, size_t dst_event, const struct kp_profile *src,
		      size_t src_event, bool by_samples, uint64_t scale, uint32_t **map)
{
	uint32_t *node = kp_xmalloc(src->nr_nodes * sizeof(*node));
	uint32_t *loc = kp_xmalloc(src->nr_locs * sizeof(*loc));

	memset(loc, 0xff, src->nr_locs * sizeof(*loc)); /* UINT32_MAX: not mapped yet */
	if (!dst->events[dst_event].name) {
		const struct kp_prof_event *se = &src->events[src_event];
		dst->events[dst_event] = (struct kp_prof_event){
			intern_from(dst, src, se->name), intern_from(dst, src, se->unit), se->period,
			se->freq, se->durations };
	}
	node[0] = 0;
	for (size_t n = 0; n < src->nr_nodes; n++) { /* parents come before their children */
		const struct kp_weight *w = kp_profile_self(src, (uint32_t)n, src_event);
		uint32_t l = src->nodes[n].loc;

		if (n) {
			if (loc[l] == UINT32_MAX)
				loc[l] = loc_from(dst, src, l);
			node[n] = node_intern(dst, node[src->nodes[n].parent], loc[l]);
		}
		if (w->count || w->period)
			kp_profile_add_weight(dst, node[n], dst_event, w->count,
					      (by_samples ? w->count : w->period) * scale);
	}
	free(loc);
	if (map)
		*map = node;
	else
		free(node);
}

void kp_seq_push_sample(struct kp_seq *s, const struct kp_seq_ent *e)
{
	struct kp_seq_ent *last = s->nr ? &s->ents[s->nr - 1] : NULL;

	if (last && last->node == e->node && last->pid == e->pid && last->tid == e->tid &&
	    last->life == e->life && last->comm == e->comm && last->cpu == e->cpu &&
	    last->event == e->event && !last->fields && !e->fields && last->kind == KP_SEQ_SAMPLES &&
	    e->kind == KP_SEQ_SAMPLES && last->count < UINT32_MAX) {
		last->count++;
		last->value += e->value;
		return;
	}
	KP_GROW(s->ents, s->cap, s->nr + 1);
	s->ents[s->nr] = *e;
	s->ents[s->nr++].count = 1;
}

void kp_seq_push(struct kp_seq *s, uint32_t node, uint64_t value)
{
	kp_seq_push_sample(s, &(struct kp_seq_ent){ .node = node, .value = value });
}

const char *kp_profile_name(const struct kp_profile *p, uint32_t node)
{
	const struct kp_loc *l = &p->locs[p->nodes[node].loc];

	return kp_strtab_get(p->strs, p->funcs[l->func].name);
}

/* SPDX-License-Identifier: MIT */
/*
 * evlist.h - the events of a recording, rebuilt from its KP_REC_ATTR records, and which event
 * a given record belongs to.
 */
#ifndef KP_EVLIST_H
#define KP_EVLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rec.h"

/**
 * struct kp_evsel - one event; everything owned by the evlist
 * @attr:     the attribute it was opened with (zero beyond the recorded size)
 * @name:     the event really opened, e.g. "cpu-clock"
 * @spec:     what the user asked for, e.g. "cycles:u"
 * @fallback: @spec named an event this machine lacks and @name replaced it
 */
struct kp_evsel {
	struct perf_event_attr attr;
	char *name, *spec;
	uint64_t *ids;
	uint32_t nr_ids;
	uint32_t index;
	int fallback;
};

struct kp_evid {
	uint64_t id;
	size_t ev;		/* index in ev[] */
};

struct kp_evlist {
	struct kp_evsel *ev;
	size_t nr, cap;
	struct kp_evid *by_id;	/* every event's ids, sorted */
	size_t nr_by_id;
};

void kp_evlist_init(struct kp_evlist *l);
void kp_evlist_release(struct kp_evlist *l);

/* kp_evlist_add - copy a validated KP_REC_ATTR into the list: a new event, or more ids of the
 * event it repeats (the same index, attr, name and spec: FORMAT.md). */
void kp_evlist_add(struct kp_evlist *l, const struct kp_rec_header *rec);

/* kp_evlist_add_event - the same from its parts (copied): how the recorder knows its events. */
void kp_evlist_add_event(struct kp_evlist *l, const struct perf_event_attr *attr, uint32_t index,
			 const uint64_t *ids, uint32_t nr_ids, const char *name, const char *spec,
			 bool fallback);

/*
 * kp_evlist_find - the event a kernel record was written for (borrowed from @l), or NULL when
 * it cannot be told: no events, several events and no id, or an id no event has. The id is
 * PERF_SAMPLE_IDENTIFIER, which kprof record sets whenever it opens more than one event, or
 * else PERF_SAMPLE_ID at the place the first event's sample_type gives it (perf's files); a
 * single event without IDENTIFIER owns every record.
 */
const struct kp_evsel *kp_evlist_find(const struct kp_evlist *l, const struct kp_rec_header *rec);

/* kp_evlist_stack_copy - the largest user stack copy (sample_stack_user) that @l's events with
 * PERF_SAMPLE_STACK_USER asked for; 0 when none did. */
uint32_t kp_evlist_stack_copy(const struct kp_evlist *l);

#endif /* KP_EVLIST_H */

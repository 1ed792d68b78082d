/* SPDX-License-Identifier: MIT */
/*
 * order.h - puts the records of several per-CPU rings into time order.
 *
 * Each ring is in time order, and the recorder writes a KP_REC_ROUND after every drain of all
 * rings. A record queued in round N can be older than one queued in round N-1 (the rings are
 * drained one after the other), but not older than any time seen before round N-1 ended. So at
 * the end of round N everything up to the largest time seen by the end of round N-1 is final:
 * perf's FINISHED_ROUND rule. Memory stays bounded by about two rounds of records.
 */
#ifndef KP_ORDER_H
#define KP_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "formats/kprof-format.h"

struct kp_order_ent {
	uint64_t time;
	uint64_t seq;
	size_t off;	/* of the record's copy in buf */
};

struct kp_order {
	uint8_t *buf;
	size_t len, cap;
	uint8_t *spare;		/* where the records kept back are compacted; swapped with buf */
	size_t spare_cap;
	struct kp_order_ent *ents;
	size_t nr, ents_cap;
	uint64_t seq;
	uint64_t max_time;	/* largest time queued so far */
	uint64_t limit;		/* largest time at the end of the previous round */
};

/* The callback gets records in time order; a non-zero return stops and is passed up. */
typedef int kp_order_fn(void *ctx, const struct kp_rec_header *rec, uint64_t time);

void kp_order_init(struct kp_order *o);
void kp_order_release(struct kp_order *o);

/* kp_order_push - queue a copy of @rec with its @time (records without one: pass the last). */
void kp_order_push(struct kp_order *o, const struct kp_rec_header *rec, uint64_t time);

/* kp_order_round - a KP_REC_ROUND was read: deliver what is now final. */
int kp_order_round(struct kp_order *o, kp_order_fn *fn, void *ctx);

/* kp_order_flush - end of input: deliver everything. */
int kp_order_flush(struct kp_order *o, kp_order_fn *fn, void *ctx);

#endif /* KP_ORDER_H */

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
	uint64_t at;	/* where the record is: its copy, offset << 2 | segment << 1 (kp_order.seg);
			 * or the caller's, its address | 1 (kp_order_push_ref()) */
	uint64_t tag;	/* the caller's word about the record, handed back with it */
};

/*
 * The records are copied into two segments, one per round: those of round N are all final at
 * the end of round N + 1 (their times are at most the largest seen by the end of round N), so
 * that segment is then free for round N + 2. Records kept back are never moved. A record the
 * caller keeps (kp_order_push_ref()) is not copied until the caller says it goes away.
 */
struct kp_order_seg {
	uint8_t *buf;
	size_t len, cap;
};

struct kp_order {
	struct kp_order_seg seg[2];
	uint32_t cur;		/* the segment of this round's records */
	/* queued: the @kept left from earlier rounds, sorted, then those pushed since, in push
	 * order; scratch for sorting those, and for what the next round keeps */
	struct kp_order_ent *ents, *tmp, *out;
	size_t nr, kept, ents_cap, tmp_cap, out_cap;
	uint64_t seq;
	uint64_t max_time;	/* largest time queued so far */
	uint64_t limit;		/* largest time at the end of the previous round */
};

/* The callback gets records in time order; a non-zero return stops and is passed up. */
typedef int kp_order_fn(void *ctx, const struct kp_rec_header *rec, uint64_t time, uint64_t tag);

void kp_order_init(struct kp_order *o);
void kp_order_release(struct kp_order *o);

/*
 * kp_order_push - queue a copy of @rec with its @time (records without one: pass the last) and
 * @tag, which the callback is given with it.
 */
void kp_order_push(struct kp_order *o, const struct kp_rec_header *rec, uint64_t time,
		   uint64_t tag);

/*
 * kp_order_push_ref - queue @rec itself, not a copy: the caller keeps it where it is until it
 * is delivered, or until kp_order_rehome() of the memory it is in.
 */
void kp_order_push_ref(struct kp_order *o, const struct kp_rec_header *rec, uint64_t time,
		       uint64_t tag);

/* kp_order_rehome - the records at [@buf, @buf + @len) go away: copy those still queued. */
void kp_order_rehome(struct kp_order *o, const uint8_t *buf, size_t len);

/* kp_order_round - a KP_REC_ROUND was read: deliver what is now final. */
int kp_order_round(struct kp_order *o, kp_order_fn *fn, void *ctx);

/* kp_order_flush - end of input: deliver everything. */
int kp_order_flush(struct kp_order *o, kp_order_fn *fn, void *ctx);

#endif /* KP_ORDER_H */

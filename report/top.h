/* SPDX-License-Identifier: MIT */
/*
 * top.h - kprof top's model: the records of a live recording, fed chunk by chunk as the
 * recorder closes them, replayed by a session and resolved by the report's resolver (its
 * whole-stack cache makes a stack seen before cost a lookup); each sample's leaf function
 * gets its weight, and each refresh shows the last interval's with older ones decayed, as
 * perf top does.
 */
#ifndef KP_TOP_H
#define KP_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "resolve.h"
#include "session.h"

struct kp_top {
	struct kp_session s;
	struct kp_profile prof;
	struct kp_resolver res;
	bool ready;		/* the profile and resolver are made at the first sample */
	double *weight;		/* per function of @prof: its samples, older ones decayed */
	size_t nr_weight;
	uint64_t samples, lost;	/* in the interval since the last refresh, */
	uint64_t idle;		/* and of the idle task (pid 0), left out */
	uint64_t total, total_lost;
	int err;		/* a feeding error (sticky) */
};

/* kp_top_init - an empty model; its binaries are read with @dso's options. */
void kp_top_init(struct kp_top *t, const struct kp_dso_opts *dso);

/*
 * kp_top_sink - a kp_writer_sink_fn: feed the @nrec records of @len bytes at *@buf (the
 * recorder's closed chunk) to @ctx, a struct kp_top. Returns 0 or the session's error.
 */
int kp_top_sink(void *ctx, uint8_t **buf, size_t *cap, size_t len, uint32_t nrec);

/*
 * kp_top_print - the refresh: a header (samples a second over @secs, lost, the event) and the
 * @max hottest functions by their decayed share, with their binary, to @out; then the weights
 * decay (each refresh keeps 7/8 of what came before, as perf top's does).
 */
void kp_top_print(struct kp_top *t, FILE *out, size_t max, double secs);

void kp_top_release(struct kp_top *t);

#endif /* KP_TOP_H */

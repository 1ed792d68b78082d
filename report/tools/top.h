/* SPDX-License-Identifier: MIT */
/*
 * top.h - kprof top's model: the records of a live recording, fed chunk by chunk as the
 * recorder closes them, replayed by a session and resolved by the report's resolver (its
 * whole-stack cache makes a stack seen before cost a lookup); each sample's stack (its call-
 * tree node) gets its weight, and each refresh shows the last interval's with older ones
 * decayed, as perf top does. The rows are worked out from the stacks' weights when they are
 * shown: by function, binary or command, with or without kernel frames (a kernel sample then
 * counts for the innermost user function of its stack), and functions' callers. The model is
 * a report (report.h) fed live, with addresses: kp_annotate() reads what it counted.
 */
#ifndef KP_TOP_H
#define KP_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/profile/profile.h"
#include "report/profile/report.h"
#include "report/profile/resolve.h"
#include "report/replay/session.h"

/* What a row of kp_top_rows() stands for. */
enum kp_top_sort {
	KP_TOP_SYM,		/* a function, in its binary (the default) */
	KP_TOP_DSO,		/* a binary */
	KP_TOP_COMM,		/* a command */
	KP_TOP_COMM_SYM,	/* a function in one command */
	KP_TOP_NR_SORTS
};

/* The names of enum kp_top_sort, as --sort takes them. */
extern const char *const kp_top_sort_names[KP_TOP_NR_SORTS];

struct kp_top_row {
	uint32_t func;		/* @prof's function (KP_TOP_SYM, KP_TOP_COMM_SYM), else 0 */
	uint32_t dso, comm;	/* strtab ids (0 when not a key) */
	double w;
	uint16_t depth;		/* kp_top_callers(): 1 for a caller, 2 for its caller, ... */
	uint32_t root;		/* kp_top_callers(): the function whose callers these are */
};

struct kp_top {
	struct kp_report_opts ro;	/* what @rep is said to be ("kprof top", with addresses) */
	struct kp_report rep;	/* its session (rep.s), profile (rep.prof: every sample's
				 * weight since the start or kp_top_zero(), for annotate) and
				 * resolver, made with rep.ready at the first sample */
	double *weight;		/* per node of rep.prof: its samples, older ones decayed */
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
 * kp_top_rows - the rows by @sort, heaviest first, into *@rows (the caller frees it; kept
 * between calls), with @kernel kernel functions among them. Returns how many; *@sum is their
 * weights' sum (the whole of the shares).
 */
size_t kp_top_rows(struct kp_top *t, enum kp_top_sort sort, bool kernel, struct kp_top_row **rows,
		   size_t *cap, double *sum);

/*
 * kp_top_callers - who called the functions of rep.prof that @open says (called with @ctx)
 * in the weighted stacks, each function's as a tree @depth callers deep, heaviest first, depth
 * first: each row's w is what it adds to its root, the function it is a caller of. One pass
 * over the stacks, however many functions are asked for; a function's rows come together,
 * the functions in no order.
 */
size_t kp_top_callers(struct kp_top *t, bool (*open)(void *ctx, uint32_t func), void *ctx,
		      bool kernel, unsigned depth, struct kp_top_row **rows, size_t *cap);

/* kp_top_row_name - a row's text: "func  [binary]", "binary", "comm" or "comm  func [binary]". */
void kp_top_row_name(const struct kp_top *t, const struct kp_top_row *r, enum kp_top_sort sort,
		     char *buf, size_t size);

/* kp_top_header - the header of the interval that ends: samples a second over @secs, lost,
 * the idle share, the event and the samples so far. */
void kp_top_header(const struct kp_top *t, double secs, char *buf, size_t size);

/* kp_top_roll - the interval ends: its counts go into the totals, and the weights decay (each
 * refresh keeps 7/8 of what came before, as perf top's does). */
void kp_top_roll(struct kp_top *t);

/* kp_top_zero - forget every weight (the z key), the profile's too. */
void kp_top_zero(struct kp_top *t);

/*
 * kp_top_report - the samples so far (since the start or kp_top_zero()) as a report built with
 * addresses, for kp_annotate(): its totals brought up to date. NULL before the first sample.
 * Borrowed, and good until more records are fed.
 */
struct kp_report *kp_top_report(struct kp_top *t);

/*
 * kp_top_print - the refresh as text: the header and the @max heaviest rows by @sort (with
 * @kernel, kernel functions among them) by their decayed share, to @out; then kp_top_roll().
 */
void kp_top_print(struct kp_top *t, FILE *out, enum kp_top_sort sort, bool kernel, size_t max,
		  double secs);

void kp_top_release(struct kp_top *t);

#endif /* KP_TOP_H */

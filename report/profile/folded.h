/* SPDX-License-Identifier: MIT */
/*
 * folded.h - reads FlameGraph's folded stacks into the profile model: "a;b;c N" lines, or
 * "a;b;c N1 N2" for a differential pair (N1 the base, N2 the new profile), as perf script +
 * stackcollapse-perf.pl, bpftrace, async-profiler and `kprof report --folded` write them.
 *
 * Folded files come from anywhere, so every line is checked: a line that is not "frames count"
 * is reported (through the callback, with its number) and skipped, blank lines are ignored,
 * counts may be decimal. A line is split as flamegraph.pl splits it: the count is the last
 * field after one blank (space or tab), and the frames are what ';' separates before it, empty
 * and blank ones included but for empty ones at the end (and, with reverse, at the start).
 * Frame annotations _[k], _[i] and _[j] become the kernel, inlined and JIT flags and are
 * removed from the name.
 */
#ifndef KP_FOLDED_H
#define KP_FOLDED_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Folded values are kept in kp_weight.period in thousandths, so decimal counts survive. */
#define KP_FOLDED_SCALE 1000

/* kp_folded_bad_fn - called once per malformed line (1-based number, the reason). */
typedef void kp_folded_bad_fn(void *ctx, size_t line, const char *why);

struct kp_folded_opts {
	size_t event;		/* where a one-count line goes (a diff input's side) */
	int columns;		/* 0: accept 1 or 2 counts; 1 or 2: require that many */
	int first_is_comm;	/* the first frame is a command name (kprof's own folded) */
	int reverse;		/* merge from the leaves: add each stack leaf first */
	kp_folded_bad_fn *bad;
	void *ctx;
};

/*
 * kp_folded_parse - add the stacks in @len bytes of @text to @p (whose nr_events must be 2
 * for two-count lines). Returns the number of stacks added. With @seq non-NULL, each stack's
 * node and value are also appended in input order (for flame charts).
 */
size_t kp_folded_parse(struct kp_profile *p, const char *text, size_t len,
		       const struct kp_folded_opts *o, struct kp_seq *seq);

#endif /* KP_FOLDED_H */

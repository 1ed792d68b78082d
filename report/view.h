/* SPDX-License-Identifier: MIT */
/*
 * view.h - the output formats, one table row each, all reading the same kp_profile.
 * Adding a view: report/view-NAME.c with its emit function, and one row in kp_views[].
 */
#ifndef KP_VIEW_H
#define KP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

struct kp_view_opts {
	size_t event;		/* which event's weights to show */
	const char *event_name;
	double percent_limit;	/* tree: hide nodes below this share of the total */
	bool color;		/* ANSI colours on percentages */
	bool annotate;		/* folded: _[k] kernel, _[i] inlined, _[j] JIT suffixes */
	bool srcline;		/* tree: show file:line after names */
	bool inverted;		/* the profile was built leaf first (callee-based) */
	const char *sort;	/* flat: comma-separated keys among comm, dso, sym */
};

/* An emitter writes the view to @out; it returns 0 or -EINVAL for bad options (after no output). */
struct kp_view {
	const char *name;
	int (*emit)(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
	const char *summary;
};

extern const struct kp_view kp_views[];
extern const size_t kp_nr_views;

/* kp_view_find - the view called @name, or NULL. */
const struct kp_view *kp_view_find(const char *name);

int kp_view_tree(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
int kp_view_flat(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
int kp_view_folded(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);

/* --- helpers shared by the views --------------------------------------------------------- */

/* kp_view_pct - @part as a percentage of @whole (0 when @whole is 0). */
double kp_view_pct(uint64_t part, uint64_t whole);

/* kp_view_print_pct - "%6.2f%%" coloured as perf does: red from 5%, green from 0.5%. */
void kp_view_print_pct(FILE *out, double pct, bool color);

/*
 * kp_view_children - the children of @node, sorted by total period of @event (largest first,
 * then by name). Returns the count; *@out is owned by the caller (free()).
 */
size_t kp_view_children(const struct kp_profile *p, uint32_t node, size_t event, uint32_t **out);

#endif /* KP_VIEW_H */

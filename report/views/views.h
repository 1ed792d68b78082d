/* SPDX-License-Identifier: MIT */
/*
 * views.h - the output formats, one table row each, all reading the same kp_profile.
 * Adding a view: report/views/view-NAME.c with its emit function (declared in view.h), its
 * row in kp_views[] (views.c: its name, summary and traits), the file in Makefile.am, and a
 * golden test. The commands read the traits; none of them names a view.
 */
#ifndef KP_VIEWS_H
#define KP_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/profile/profile.h"

#include "view.h"

/* A view: its emitter (view.h) writes it to @out; it returns 0 or -EINVAL for bad options
 * (after no output), or -EFBIG for an output past its bound (the timeline's --timeline-max),
 * after no output and after saying why (kp_view_opts.say). */
struct kp_view {
	const char *name;
	int (*emit)(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out);
	const char *summary;
	bool one_event;		/* shows one event (--event, else the first), not each in turn */
	bool text;		/* a text report: headers, warnings and --stats are '#' lines in it;
				 * otherwise (a format other tools read) they go to stderr */
	enum kp_view_inverted {
		KP_INVERTED_NO,		/* --inverted is refused */
		KP_INVERTED_CALLEES,	/* the profile is built leaf first: a callee tree */
		KP_INVERTED_ICICLE,	/* the picture is turned over: the root at the top */
	} inverted;		/* what --inverted does to it */
	bool diff;		/* takes --diff BASE: event 0 BASE, event 1 the recording */
	enum kp_view_seq {
		KP_SEQ_NO,		/* reads the call tree only */
		KP_SEQ_FLAMECHART,	/* with --flamechart, the stacks in time order */
		KP_SEQ_ALWAYS,		/* always reads the samples in time order */
	} seq;			/* when it reads kp_view_opts.seq (the report's timeline) */
	bool fields;		/* shows tracepoint samples' decoded fields (kp_seq_ent.fields) */
	bool addrs;		/* reads locations with addresses and the mappings */
	bool binary;		/* not text: never written to a terminal */
	bool all_events;	/* shows every event of the timeline at once (with seq) */
	const struct kp_view_option *options; /* its own, NULL-name terminated (or NULL) */
};

extern const struct kp_view kp_views[];
extern const size_t kp_nr_views;

/* kp_view_find - the view called @name, or NULL. */
const struct kp_view *kp_view_find(const char *name);

#endif /* KP_VIEWS_H */

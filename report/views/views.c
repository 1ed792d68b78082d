/* SPDX-License-Identifier: MIT */
/*
 * views.c - the table of views (views.h): each view's name, emitter, summary and traits,
 * above the views it names.
 */
#include "views.h"

#include <string.h>

#include "formats/util.h"

const struct kp_view kp_views[] = {
	{ "tree", kp_view_tree, "caller-based call tree with total and self percentages",
	  .text = true, .inverted = KP_INVERTED_CALLEES, .diff = true },
	{ "flat", kp_view_flat, "functions by self time", .text = true,
	  .options = kp_flat_options },
	{ "folded", kp_view_folded, "FlameGraph's folded stacks: comm;frame;...;leaf count",
	  .one_event = true, .options = kp_folded_options },
	{ "svg", kp_view_svg, "an interactive flame graph", .one_event = true,
	  .inverted = KP_INVERTED_ICICLE, .seq = KP_SEQ_FLAMECHART },
	{ "pprof", kp_view_pprof, "pprof's profile.proto, gzipped: go tool pprof, Pyroscope, Parca",
	  .one_event = true, .seq = KP_SEQ_ALWAYS, .addrs = true, .binary = true,
	  .options = kp_pprof_options },
	{ "speedscope", kp_view_speedscope, "speedscope's JSON: a sampled profile per thread",
	  .one_event = true, .seq = KP_SEQ_ALWAYS },
	{ "chrome", kp_view_chrome, "Chrome trace events (Perfetto, chrome://tracing): a flame "
	  "chart per thread, tracepoints as instants", .one_event = true, .seq = KP_SEQ_ALWAYS,
	  .fields = true },
	{ "firefox", kp_view_firefox, "the Firefox Profiler's Gecko profile, gzip-compressed "
	  "(.json.gz)", .one_event = true, .seq = KP_SEQ_ALWAYS, .fields = true, .binary = true },
	{ "timeline", kp_view_timeline, "an interactive SVG of threads and CPUs against time: "
	  "on-CPU, off-CPU, tracepoints", .seq = KP_SEQ_ALWAYS, .fields = true,
	  .all_events = true, .options = kp_timeline_options },
};
const size_t kp_nr_views = ARRAY_SIZE(kp_views);

const struct kp_view *kp_view_find(const char *name)
{
	for (size_t i = 0; i < kp_nr_views; i++)
		if (!strcmp(kp_views[i].name, name))
			return &kp_views[i];
	return NULL;
}

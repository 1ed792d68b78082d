/* SPDX-License-Identifier: MIT */
/*
 * svgopts.h - the flame graph options that `report --svg`, `flamegraph` and `diff` share,
 * with flamegraph.pl's names where it has them, so scripts can switch.
 */
#ifndef KP_SVGOPTS_H
#define KP_SVGOPTS_H

#include <getopt.h>

#include "report/views/view.h"

enum {
	KP_OPT_SVG_FIRST = 512,
	KP_OPT_TITLE = KP_OPT_SVG_FIRST,
	KP_OPT_SUBTITLE,
	KP_OPT_WIDTH,
	KP_OPT_HEIGHT,
	KP_OPT_MINWIDTH,
	KP_OPT_FONTSIZE,
	KP_OPT_COUNTNAME,
	KP_OPT_COLORS,
	KP_OPT_HASH,
	KP_OPT_ICICLE,		/* --inverted */
	KP_OPT_REVERSE,
	KP_OPT_FLAMECHART,
	KP_OPT_NO_JS,
	KP_OPT_NEGATE,
	KP_OPT_SVG_LAST
};

/* The option table rows, to put in a command's long_opts. */
#define KP_SVG_LONG_OPTS                                                      \
	{ "title", required_argument, NULL, KP_OPT_TITLE },                  \
	{ "subtitle", required_argument, NULL, KP_OPT_SUBTITLE },            \
	{ "width", required_argument, NULL, KP_OPT_WIDTH },                  \
	{ "height", required_argument, NULL, KP_OPT_HEIGHT },                \
	{ "minwidth", required_argument, NULL, KP_OPT_MINWIDTH },            \
	{ "fontsize", required_argument, NULL, KP_OPT_FONTSIZE },            \
	{ "countname", required_argument, NULL, KP_OPT_COUNTNAME },          \
	{ "colors", required_argument, NULL, KP_OPT_COLORS },                \
	{ "hash", no_argument, NULL, KP_OPT_HASH },                          \
	{ "inverted", no_argument, NULL, KP_OPT_ICICLE },                    \
	{ "reverse", no_argument, NULL, KP_OPT_REVERSE },                    \
	{ "flamechart", no_argument, NULL, KP_OPT_FLAMECHART },              \
	{ "no-js", no_argument, NULL, KP_OPT_NO_JS },                        \
	{ "negate", no_argument, NULL, KP_OPT_NEGATE }

/* The help text for those options. */
extern const char kp_svg_usage[];

/*
 * kp_svg_opt - apply option @c (with @arg) to @o; @reverse is set for --reverse (the caller
 * builds its profile leaf first). Returns 0, or 2 after a usage error naming @cmd.
 */
int kp_svg_opt(struct kp_svg_opts *o, bool *reverse, int c, const char *arg, const char *cmd);

#endif /* KP_SVGOPTS_H */

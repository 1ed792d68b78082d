/* SPDX-License-Identifier: MIT */
#include "svgopts.h"

#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "src/record/diag.h"

const char kp_svg_usage[] =
	"flame graph options:\n"
	"      --title TEXT       the title (default \"Flame Graph\", \"Icicle Graph\" or \"Flame Chart\")\n"
	"      --subtitle TEXT    a second line under the title\n"
	"      --width PX         image width (default 1200)\n"
	"      --height PX        frame height (default 16)\n"
	"      --minwidth PX      leave out frames narrower than this (default 0.1), or N% of the\n"
	"                         total\n"
	"      --fontsize PX      font size (default 12)\n"
	"      --countname NAME   what a count is (default \"samples\")\n"
	"      --colors PALETTE   hot, mem, io, red, green, blue, aqua, yellow, purple, orange\n"
	"                         (default: kernel, user, JIT and inlined frames apart)\n"
	"      --hash             colours from names, similar names alike (default: each name its\n"
	"                         own colour, as flamegraph.pl gives it)\n"
	"      --inverted         an icicle graph: the root at the top\n"
	"      --reverse          merge stacks from their leaves\n"
	"      --flamechart       x is time order, not name order\n"
	"      --no-js            a static file, without the zoom and search script\n"
	"      --negate           differential: red for shrank, blue for grew, and the sign turned\n";

static int number(const char *arg, double min, double max, double *out, const char *opt,
		  const char *cmd)
{
	return kp_cmd_real(cmd, opt, arg, min, max, out);
}

/* --minwidth: pixels, or with "%" a percentage of the total, as flamegraph.pl takes it. */
static int minwidth(struct kp_svg_opts *o, const char *arg, const char *cmd)
{
	size_t n = strlen(arg);
	char buf[64];

	o->minwidth_pct = n > 1 && n < sizeof(buf) && arg[n - 1] == '%';
	if (!o->minwidth_pct)
		return number(arg, 0, 1000, &o->minwidth, "--minwidth", cmd);
	snprintf(buf, sizeof(buf), "%.*s", (int)(n - 1), arg);
	return number(buf, 0, 100, &o->minwidth, "--minwidth", cmd);
}

static int palette(struct kp_svg_opts *o, const char *arg, const char *cmd)
{
	for (size_t i = 0; kp_svg_palettes[i]; i++)
		if (!strcmp(arg, kp_svg_palettes[i])) {
			o->colors = kp_svg_palettes[i];
			return 0;
		}
	return kp_usage_error(cmd, "unknown palette '%s' (known: hot mem io red green blue aqua "
				   "yellow purple orange)", arg);
}

int kp_svg_opt(struct kp_svg_opts *o, bool *reverse, int c, const char *arg, const char *cmd)
{
	switch (c) {
	case KP_OPT_TITLE: o->title = arg; return 0;
	case KP_OPT_SUBTITLE: o->subtitle = arg; return 0;
	case KP_OPT_WIDTH: return number(arg, 100, 100000, &o->width, "--width", cmd);
	case KP_OPT_HEIGHT: return number(arg, 4, 200, &o->frame_height, "--height", cmd);
	case KP_OPT_MINWIDTH: return minwidth(o, arg, cmd);
	case KP_OPT_FONTSIZE: return number(arg, 4, 100, &o->fontsize, "--fontsize", cmd);
	case KP_OPT_COUNTNAME: o->countname = arg; return 0;
	case KP_OPT_COLORS: return palette(o, arg, cmd);
	case KP_OPT_HASH: o->hash = true; return 0;
	case KP_OPT_ICICLE: o->inverted = true; return 0;
	case KP_OPT_REVERSE: *reverse = true; return 0;
	case KP_OPT_FLAMECHART: o->flamechart = true; return 0;
	case KP_OPT_NO_JS: o->no_js = true; return 0;
	case KP_OPT_NEGATE: o->negate = true; return 0;
	default: return 2;
	}
}

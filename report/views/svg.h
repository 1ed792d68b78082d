/* SPDX-License-Identifier: MIT */
/*
 * svg.h - what kprof's SVG pictures (the flame graph, view-svg.c, and the timeline,
 * view-timeline.c) share: their options, one escaping of names as XML text, one rule for
 * cutting a label to its box, and flamegraph.pl's colours from names, so that a function has
 * the same colour in both pictures; and the rule of a diff that the flame graph and the
 * folded view (view-folded.c) share.
 */
#ifndef KP_SVG_H
#define KP_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Flame graph options (view "svg"); flamegraph.pl's names where it has them. */
struct kp_svg_opts {
	const char *title, *subtitle;	/* title NULL: flamegraph.pl's for the kind of graph */
	const char *countname;	/* what a value is: NULL for "samples", or report's unit */
	double width;		/* image width, px (1200) */
	double frame_height;	/* px (16) */
	double minwidth;	/* px: narrower frames are left out (0.1) */
	bool minwidth_pct;	/* minwidth is a percentage of the total instead */
	double fontsize;	/* px (12) */
	const char *colors;	/* a palette of kp_svg_palettes[], NULL for kprof's default */
	bool hash;		/* colours from names, stable across graphs */
	bool inverted;		/* icicle: the root at the top */
	bool flamechart;	/* x is time (the order of seq), not name order */
	bool no_js;		/* a static file */
	bool diff;		/* event 0 is BASE, event 1 NEW: widths from NEW, colour by change */
	bool normalize;		/* diff: scale BASE to NEW's total, as difffolded.pl -n */
	bool diff_totals;	/* diff: titles give the change with callees, not only the own */
	bool negate;		/* diff: swap red and blue */
	bool milli;		/* values are in kp_weight.period, in thousandths (folded input) */
};

/* The palette names --colors accepts, NULL-terminated. */
extern const char *const kp_svg_palettes[];

/* kp_svg_opts_init - flamegraph.pl's defaults. */
void kp_svg_opts_init(struct kp_svg_opts *o);

/*
 * kp_svg_diff_base - a stack's BASE value @base as a diff compares it with NEW's: as given, or
 * with @so->normalize scaled to NEW's total as difffolded.pl -n does (@base * @new_t / @base_t,
 * truncated), when the totals @base_t and @new_t differ.
 */
double kp_svg_diff_base(const struct kp_svg_opts *so, double base, double base_t, double new_t);

#define KP_SVG_FONTWIDTH 0.59	/* a character's average width, relative to the font size */
#define KP_SVG_XPAD	10.0	/* the pictures' margin left and right, px */

struct kp_rgb {
	int r, g, b;
};

/* Scratch space for the colours (the code points of a name); zero it first, free(cps) after. */
struct kp_svg_text {
	uint32_t *cps;
	size_t cap;
};

/* kp_svg_put_xml - write @n bytes of a name as XML text: escaped (& < > " ' as entities, so it
 * may stand in an attribute too), invalid UTF-8 made U+FFFD, control bytes '?'. */
void kp_svg_put_xml(FILE *out, const char *s, size_t n);

/* kp_svg_put_label - @name as the label of a box @width_px wide at @fontsize, flamegraph.pl's
 * rule: as many characters as fit at the average width, nothing under 3, a name that does not
 * fit cut with its last two characters made "..". */
void kp_svg_put_label(FILE *out, const char *name, double width_px, double fontsize);

/* kp_svg_name_colour - the colour of @len bytes of @name in palette @pal (one of
 * kp_svg_palettes[]), flamegraph.pl's: from the name's characters, with @hash by similarity. */
struct kp_rgb kp_svg_name_colour(struct kp_svg_text *t, const char *name, size_t len,
				 const char *pal, bool hash);

/* kp_svg_default_palette - kprof's palette for a location with KP_LOC_* @flags: user code hot,
 * kernel orange, JIT green, inlined aqua, commands yellow. */
const char *kp_svg_default_palette(uint32_t flags);

/* The head of a picture, as kp_svg_head() writes it. */
struct kp_svg_head {
	double w, h, fontsize;	/* px */
	const char *id;		/* the <svg> element's */
	bool xlink;		/* declares the xlink namespace, as flamegraph.pl's files do */
	void (*attrs)(FILE *out, const void *pic); /* writes the picture's own attributes of */
	const void *pic;	/* <svg> (" data-..."), from @pic */
	const char *js;		/* the script, NULL for a static file (--no-js) */
	const char *onload;	/* the script's function that the load event calls */
	const char *css_text;	/* the picture's style rules, before the controls' ("" none) */
	const char *css;	/* and after them */
	const char *background[2]; /* one colour, or with [1] a gradient from [0] down to [1] */
	const char *title;
};

/*
 * kp_svg_head - what every picture begins with: the XML declaration and doctype, the <svg>
 * element with @h's attributes, the style (the texts', the title's and the controls' rules,
 * and the picture's), the script, the background and the title, centred at the top.
 */
void kp_svg_head(FILE *out, const struct kp_svg_head *h);

/*
 * kp_svg_controls - the texts the JavaScript drives, in a picture @w by @h px with text of
 * @fontsize px: "details" at the bottom left (hover), and with @js "unzoom" at the top left,
 * "search" at the top right and "matched" at the bottom, @matched_w px from the right edge.
 */
void kp_svg_controls(FILE *out, double w, double h, double fontsize, bool js, double matched_w);

#endif /* KP_SVG_H */

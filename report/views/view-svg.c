/* SPDX-License-Identifier: MIT */
/*
 * view-svg.c - the flame graph, drawn as FlameGraph's flamegraph.pl draws it, so that one
 * picture can stand for the other: each frame a <g> with a <title> "name (1,234 samples,
 * 5.67%)", a rounded <rect> and the name cut to fit with ".."; "all" at the root.
 *
 * flamegraph.pl sorts its input lines as strings and merges neighbouring lines that share a
 * prefix. A stack's own samples ("a;b 5") sort before the stacks above it ("a;b;c 3"), so a
 * parent's own samples lie to the left of its children, and a sibling whose name extends the
 * parent's with a character below ';' ("a;b-x 1") sorts between them and splits the parent
 * into two frames. The layout here does the same from the profile's tree: at each node, the
 * children's own lines (key "name N") and their blocks of deeper lines (key "name;") are
 * sorted as those strings sort, giving the stacks in flamegraph.pl's order; then one pass
 * (flow(), which a flame chart runs over the stacks in time order instead) opens and closes
 * frames as the stacks come. Frames narrower than --minwidth are left out where they are, so
 * their room stays empty. The numbers (positions rounded to 0.1 px, counts with thousands
 * separators, percentages, colours from names) follow flamegraph.pl's; the README lists what
 * differs and why. With JavaScript (report/views/flamegraph.js) it zooms, searches and keeps both
 * in the URL fragment; --no-js writes a static file.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/views/flamegraph-js.h"
#include "svg.h"
#include "formats/util.h"
#include "report/base/strtab.h"
#include "report/base/text.h"
#include "view.h"

#define XPAD KP_SVG_XPAD
#define FRAMEPAD 1.0	/* vertical room between frames */

/* A stack as flamegraph.pl reads a line: its leaf node, its width, its own change. */
struct line {
	uint32_t node;
	double v, delta;
};

struct frame {
	uint32_t node;
	uint32_t depth;
	uint32_t parent;	/* index + 1 of the parent frame, 0 for the root */
	double x, end;		/* start and end, in value units */
	double delta;		/* diff: the change of the frame's own samples */
};

struct svg {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	const struct kp_svg_opts *so;
	FILE *out;
	size_t ev;		/* the event whose values give widths (NEW in a diff) */
	double total, wpt;	/* value of the root; pixels per value unit */
	double base_t, new_t;	/* diff: the totals of BASE and NEW as given */
	double max_delta;	/* diff: the largest change of one stack, at least 1 */
	double *base_tot;	/* diff with totals: each node's BASE total as compared */
	struct line *lines;
	size_t nr_lines, cap_lines;
	struct frame *frames;
	size_t nr, cap;
	uint32_t *ids;		/* each frame's id in the file, 0 when it is left out */
	uint32_t max_depth;
	char *name;		/* scratch: a name as folded input spells it */
	size_t name_cap;
	struct kp_svg_text text;	/* scratch for colours */
};

static const char *countname(const struct kp_svg_opts *so)
{
	return so->countname ? so->countname : "samples";
}

static double value_of(const struct svg *g, const struct kp_weight *w)
{
	return g->so->milli ? (double)w->period / 1000.0 : (double)kp_view_weight(g->o, w);
}

static double total_v(const struct svg *g, uint32_t node, size_t ev)
{
	return value_of(g, kp_profile_total(g->p, node, ev));
}

/* NEW's own value of @node, and BASE's as the graph compares it (normalised if asked). */
static double new_self(const struct svg *g, uint32_t node)
{
	return value_of(g, kp_profile_self(g->p, node, g->ev));
}

static double base_self(const struct svg *g, uint32_t node)
{
	return kp_svg_diff_base(g->so, value_of(g, kp_profile_self(g->p, node, 0)), g->base_t,
				g->new_t);
}

/* How many input lines (or samples) end at @node (@self) or pass through it. */
static uint64_t lines_of(const struct svg *g, uint32_t node, bool self)
{
	const struct kp_weight *(*get)(const struct kp_profile *, uint32_t, size_t) =
		self ? kp_profile_self : kp_profile_total;
	uint64_t n = get(g->p, node, g->ev)->count;

	return g->so->diff ? n + get(g->p, node, 0)->count : n;
}

/* @node's name as folded input spells it, annotation included: what flamegraph.pl sorts and
 * colours by. The root is "", as in flamegraph.pl. Returns its length; g->name holds it. */
static size_t fold_name(struct svg *g, uint32_t node)
{
	const char *name = node ? kp_profile_name(g->p, node) : "";
	const char *sfx = node ? kp_view_annotation(g->p->locs[g->p->nodes[node].loc].flags) : "";
	size_t n = strlen(name), s = strlen(sfx);

	KP_GROW(g->name, g->name_cap, n + s + 1);
	memcpy(g->name, name, n);
	memcpy(g->name + n, sfx, s + 1);
	return n + s;
}

/* --- layout -------------------------------------------------------------------------------- */

static void push_line(struct svg *g, uint32_t node, double v, double delta)
{
	KP_GROW(g->lines, g->cap_lines, g->nr_lines + 1);
	g->lines[g->nr_lines++] = (struct line){ node, v, delta };
	if (fabs(delta) > g->max_delta)
		g->max_delta = fabs(delta);
}

#define COUNT_MAX 64 /* room for a count in a sort key: more than any count has digits */

/* A number as a folded line writes it: an integer, or its decimals without trailing zeros. */
static int put_count(char *buf, size_t n, double v)
{
	int len = v == floor(v) && fabs(v) < 1e15 ? snprintf(buf, n, "%.0f", v)
						  : snprintf(buf, n, "%.3f", v);

	if (len < 0 || (size_t)len >= n) /* what was written of a hostile value */
		return len < 0 ? 0 : (int)n - 1;
	if (strchr(buf, '.')) {
		while (buf[len - 1] == '0')
			len--;
		if (buf[len - 1] == '.')
			len--;
		buf[len] = '\0';
	}
	return len;
}

/* A child's own line (key "name N", or "name N1 N2" in a diff) or its block of deeper lines
 * (key "name;"): the units whose order, as strings, is flamegraph.pl's order of the lines. */
struct unit {
	uint32_t node;
	bool own;
	size_t off, len;
};

static int cmp_unit(const void *a, const void *b, void *ctx)
{
	const struct unit *x = a, *y = b;
	const char *keys = ctx;
	int c = memcmp(keys + x->off, keys + y->off, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node; /* two nodes of one name */
}

static void add_unit(struct svg *g, struct unit **u, size_t *n, size_t *cap, char **keys,
		     size_t *klen, size_t *kcap, uint32_t node, bool own)
{
	size_t len = fold_name(g, node);
	char num[2 * COUNT_MAX + 2];
	int m = 0;

	if (own) {
		num[0] = ' ';
		m = 1;
		if (g->so->diff) {
			m += put_count(num + m, COUNT_MAX, base_self(g, node));
			num[m++] = ' ';
		}
		m += put_count(num + m, COUNT_MAX, new_self(g, node));
	} else {
		num[m++] = ';';
	}
	KP_GROW(*keys, *kcap, *klen + len + m);
	memcpy(*keys + *klen, g->name, len);
	memcpy(*keys + *klen + len, num, m);
	KP_GROW(*u, *cap, *n + 1);
	(*u)[(*n)++] = (struct unit){ node, own, *klen, len + m };
	*klen += len + m;
}

/* The units of @node's children, sorted. */
struct level {
	struct unit *u;
	size_t n, next;
};

static struct level sorted_units(struct svg *g, uint32_t node)
{
	struct level l = { NULL, 0, 0 };
	char *keys = NULL;
	size_t cap = 0, klen = 0, kcap = 0;

	for (uint32_t c = g->p->first_child[node]; c; c = g->p->next_sibling[c]) {
		uint64_t own = lines_of(g, c, true), all = lines_of(g, c, false);
		if (own)
			add_unit(g, &l.u, &l.n, &cap, &keys, &klen, &kcap, c, true);
		if (all > own)
			add_unit(g, &l.u, &l.n, &cap, &keys, &klen, &kcap, c, false);
	}
	if (l.n > 1)
		qsort_r(l.u, l.n, sizeof(*l.u), cmp_unit, keys);
	free(keys);
	return l;
}

/* The stacks in flamegraph.pl's order, into g->lines: a walk of the units, a block's own
 * units in its place. Stacks are as deep as they come: the walk keeps its own stack. */
static void sorted_lines(struct svg *g)
{
	struct level *up = NULL;
	size_t depth = 1, cap = 0;

	KP_GROW(up, cap, 1);
	up[0] = sorted_units(g, 0);
	while (depth) {
		struct level *l = &up[depth - 1];
		const struct unit *u;
		double v;

		if (l->next == l->n) {
			free(l->u);
			depth--;
			continue;
		}
		u = &l->u[l->next++];
		v = new_self(g, u->node);
		if (u->own) {
			push_line(g, u->node, v, g->so->diff ? v - base_self(g, u->node) : 0);
		} else {
			struct level below = sorted_units(g, u->node);
			KP_GROW(up, cap, depth + 1);
			up[depth++] = below;
		}
	}
	free(up);
}

/* The stacks of a flame chart, in time order. A diff's change per stack is its node's, shared
 * out by width (the runs of one stack are not told apart in the profile). */
static void chart_lines(struct svg *g)
{
	for (size_t i = 0; i < g->o->seq->nr; i++) {
		const struct kp_seq_ent *e = &g->o->seq->ents[i];
		double v = g->so->milli ? e->value / 1000.0 : (double)e->value, own = 0;

		if (g->so->diff && new_self(g, e->node) > 0)
			own = (new_self(g, e->node) - base_self(g, e->node)) * v / new_self(g, e->node);
		push_line(g, e->node, v, own);
	}
}

static uint32_t add_frame(struct svg *g, uint32_t node, uint32_t depth, uint32_t parent, double x)
{
	KP_GROW(g->frames, g->cap, g->nr + 1);
	g->frames[g->nr] = (struct frame){ node, depth, parent, x, x, 0 };
	return (uint32_t)++g->nr;
}

/* A frame that the stacks so far still run through. */
struct open_frame {
	uint32_t node, id;
};

/* Frames from g->lines: a frame spans the run of neighbouring stacks that pass through it, and
 * a stack's change goes to its leaf frame. Stacks are as deep as they come. */
static void flow(struct svg *g)
{
	struct open_frame *open = NULL;
	uint32_t *path = NULL;
	size_t depth = 1, cap_open = 0, cap_path = 0;
	double x = 0;

	KP_GROW(open, cap_open, 1);
	open[0] = (struct open_frame){ 0, add_frame(g, 0, 0, 0, 0) };
	for (size_t i = 0; i < g->nr_lines; i++) {
		const struct line *l = &g->lines[i];
		size_t n = 0, k = 1;

		for (uint32_t a = l->node; a; a = g->p->nodes[a].parent) {
			KP_GROW(path, cap_path, n + 1);
			path[n++] = a;
		}
		/* path is leaf first: compare it root first with what is open */
		while (k < depth && k <= n && open[k].node == path[n - k])
			k++;
		while (depth > k) /* close the frames that this stack leaves */
			g->frames[open[--depth].id - 1].end = x;
		KP_GROW(open, cap_open, n + 1);
		for (; depth <= n; depth++)
			open[depth] = (struct open_frame){
				path[n - depth],
				add_frame(g, path[n - depth], (uint32_t)depth, open[depth - 1].id, x)
			};
		g->frames[open[n].id - 1].delta += l->delta;
		x += l->v;
	}
	while (depth > 0)
		g->frames[open[--depth].id - 1].end = x;
	g->total = x;
	free(open);
	free(path);
}

/* Frames narrower than --minwidth are left out, with what is above them; the rest keep their
 * places. The root stays. */
static void prune(struct svg *g)
{
	double min = g->so->minwidth_pct ? g->total * g->so->minwidth / 100
		     : g->wpt > 0 ? g->so->minwidth / g->wpt : 0;
	uint32_t id = 0;

	g->ids = kp_xcalloc(g->nr ? g->nr : 1, sizeof(*g->ids));
	for (size_t i = 0; i < g->nr; i++) {
		const struct frame *f = &g->frames[i];
		if (i && (f->end - f->x < min || !g->ids[f->parent - 1]))
			continue;
		g->ids[i] = ++id;
		if (f->depth > g->max_depth)
			g->max_depth = f->depth;
	}
}

/* --- colours ------------------------------------------------------------------------------- */

/* The background's gradient: flamegraph.pl's for the palette. */
static const char *background(const struct kp_svg_opts *so, int stop)
{
	const char *pal = so->colors ? so->colors : "hot";

	if (!strcmp(pal, "mem"))
		return stop ? "#e0ffe0" : "#eef2ee";
	if (!strcmp(pal, "io"))
		return stop ? "#e0e0ff" : "#eeeeee";
	if (strcmp(pal, "hot"))
		return stop ? "#e8e8e8" : "#f8f8f8";
	return stop ? "#eeeeb0" : "#eeeeee";
}

/* Differential: red grew, blue shrank, white unchanged; saturation follows the change of the
 * frame's own samples against the largest change of one stack. */
static struct kp_rgb diff_colour(const struct svg *g, double d)
{
	double max = g->max_delta;

	if (g->so->negate)
		d = -d;
	if (d > 0)
		return (struct kp_rgb){ 255, (int)(210 * (max - d) / max), (int)(210 * (max - d) / max) };
	if (d < 0)
		return (struct kp_rgb){ (int)(210 * (max + d) / max), (int)(210 * (max + d) / max), 255 };
	return (struct kp_rgb){ 255, 255, 255 };
}

static struct kp_rgb frame_colour(struct svg *g, const struct frame *f)
{
	const struct kp_loc *l = &g->p->locs[g->p->nodes[f->node].loc];
	size_t n = fold_name(g, f->node);
		if (!strcmp(g->name, "--")) /* separators, as flamegraph.pl greys them */
		return (struct kp_rgb){ 160, 160, 160 };
	if (!strcmp(g->name, "-"))
		return (struct kp_rgb){ 200, 200, 200 };
	if (g->so->diff)
		return diff_colour(g, f->delta);
	return kp_svg_name_colour(&g->text, g->name, n,
				  g->so->colors ? g->so->colors : kp_svg_default_palette(l->flags),
				  g->so->hash);
}

/* --- writing ------------------------------------------------------------------------------- */

static void put_num(FILE *out, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.3f", v);
}

/* A number to one decimal, as the file writes it. */
static double round1(double v)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%.1f", v);
	return strtod(buf, NULL);
}

/* @v rounded to an integer with thousands separators ("1,234") into @buf; returns its value. */
static double thousands(char *buf, size_t cap, double v)
{
	char digits[400];
	int n = snprintf(digits, sizeof(digits), "%.0f", v), lead;
	size_t o = 0;

	if (n < 0 || (size_t)n >= sizeof(digits) || cap < sizeof(digits) * 4 / 3 + 2)
		return snprintf(buf, cap, "%.0f", v), v;
	lead = digits[0] == '-';
	for (int i = 0; i < n; i++) {
		if (i > lead && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return strtod(digits, NULL);
}

/* A change as a share of the whole: "+1.23", "-0.45", "0.00". */
static void put_change(FILE *out, double d, double total)
{
	if (d == 0)
		d = 0; /* not "-0.00" for a negated 0 */
	fprintf(out, "%s%.2f%%", d > 0 ? "+" : "", total > 0 ? 100 * d / total : 0.0);
}

static void write_title(struct svg *g, const struct frame *f)
{
	const char *name = f->node ? kp_profile_name(g->p, f->node) : "all";
	char samples[600];
	double s = thousands(samples, sizeof(samples), f->end - f->x);
	double sign = g->so->negate ? -1 : 1;

	fputs("<title>", g->out);
	kp_svg_put_xml(g->out, name, strlen(name));
	fprintf(g->out, " (%s ", samples);
	kp_svg_put_xml(g->out, countname(g->so), strlen(countname(g->so)));
	if (!f->node)
		fputs(", 100%", g->out);
	else
		fprintf(g->out, ", %.2f%%", kp_pct_d(s, g->total));
	if (g->so->diff && g->so->diff_totals) {
		if (f->node) {
			fputs("; self ", g->out);
			put_change(g->out, sign * f->delta, g->total);
		}
		fputs(f->node ? ", with callees " : "; with callees ", g->out);
		put_change(g->out, sign * (total_v(g, f->node, 1) - g->base_tot[f->node]), g->total);
		if (g->base_tot[f->node] == 0)
			fputs(", only in NEW", g->out);
	} else if (g->so->diff && f->node) {
		fputs("; ", g->out);
		put_change(g->out, sign * f->delta, g->total);
	}
	fputs(")</title>", g->out);
}

static void write_frame(struct svg *g, size_t i, double img_h)
{
	const struct kp_svg_opts *so = g->so;
	const struct frame *f = &g->frames[i];
	double fh = so->frame_height, x1 = XPAD + f->x * g->wpt, x2 = XPAD + f->end * g->wpt;
	double y = so->inverted ? so->fontsize * 3 + (so->subtitle ? so->fontsize * 2 : 0) + f->depth * fh
				: img_h - (so->fontsize * 2 + 10) - (f->depth + 1) * fh + FRAMEPAD;
	struct kp_rgb c = frame_colour(g, f);

	fprintf(g->out, "<g class=\"f\" id=\"f%u\" data-x=\"", g->ids[i]);
	put_num(g->out, f->x);
	fputs("\" data-v=\"", g->out);
	put_num(g->out, f->end - f->x);
	fprintf(g->out, "\" data-d=\"%u\" data-p=\"", f->depth);
	if (f->parent)
		fprintf(g->out, "f%u", g->ids[f->parent - 1]);
	fputs("\">", g->out);
	write_title(g, f);
	fprintf(g->out, "<rect x=\"%.1f\" y=\"%.10g\" width=\"%.1f\" height=\"%g\" "
			"fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		x1, y, round1(x2) - round1(x1), fh - FRAMEPAD, c.r, c.g, c.b);
	fprintf(g->out, "<text x=\"%.2f\" y=\"%.10g\">", x1 + 3, y + (fh - FRAMEPAD) / 2 + 3);
	if (f->node) /* flamegraph.pl labels the root with its name, "" */
		kp_svg_put_label(g->out, kp_profile_name(g->p, f->node), x2 - x1, so->fontsize);
	fputs("</text></g>\n", g->out);
}

/* The title by default: flamegraph.pl's for the kind of graph. */
static const char *title(const struct kp_svg_opts *so)
{
	if (so->title)
		return so->title;
	return so->flamechart ? "Flame Chart" : so->inverted ? "Icicle Graph" : "Flame Graph";
}

/* The flame graph's own attributes of <svg>, which flamegraph.js reads. */
static void head_attrs(FILE *out, const void *pic)
{
	const struct svg *g = pic;
	const struct kp_svg_opts *so = g->so;

	fputs(" data-total=\"", out);
	put_num(out, g->total);
	fputs("\" data-unit=\"", out);
	kp_svg_put_xml(out, countname(so), strlen(countname(so)));
	fprintf(out, "\" data-xpad=\"%.0f\" data-fontsize=\"%g\" data-frameheight=\"%g\" "
		     "data-minwidth=\"%g\" data-inverted=\"%d\"",
		XPAD, so->fontsize, so->frame_height, so->minwidth, so->inverted);
}

static void write_head(struct svg *g, double w, double h)
{
	const struct kp_svg_opts *so = g->so;
	FILE *out = g->out;

	kp_svg_head(out, &(struct kp_svg_head){
		.w = w, .h = h, .fontsize = so->fontsize, .id = "kprof", .xlink = true,
		.attrs = head_attrs, .pic = g, .js = so->no_js ? NULL : kp_flamegraph_js,
		.onload = "kp_init", .css_text = "",
		.css = ".parent{opacity:0.5}.f:hover{stroke:black;stroke-width:0.5;cursor:pointer}",
		.background = { background(so, 0), background(so, 1) }, .title = title(so) });
	if (so->subtitle) {
		fprintf(out, "<text id=\"subtitle\" x=\"%.2f\" y=\"%g\">", floor(w / 2),
			so->fontsize * 4);
		kp_svg_put_xml(out, so->subtitle, strlen(so->subtitle));
		fputs("</text>\n", out);
	}
	kp_svg_controls(out, w, h, so->fontsize, !so->no_js, 100);
}

/* diff: the totals of both sides, and with totals in the titles each node's BASE total as
 * compared (its own samples normalised node by node, as difffolded.pl -n does per stack). */
static void diff_setup(struct svg *g)
{
	const struct kp_profile *p = g->p;

	g->base_t = total_v(g, 0, 0);
	g->new_t = total_v(g, 0, 1);
	g->max_delta = 1;
	if (!g->so->diff_totals)
		return;
	g->base_tot = kp_xcalloc(p->nr_nodes, sizeof(*g->base_tot));
	for (size_t n = p->nr_nodes; n-- > 0;) { /* parents come before their children */
		g->base_tot[n] += base_self(g, (uint32_t)n);
		if (n)
			g->base_tot[p->nodes[n].parent] += g->base_tot[n];
	}
}

int kp_view_svg(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	const struct kp_svg_opts *so = &o->svg;
	struct svg g = { .p = p, .o = o, .so = so, .out = out, .ev = so->diff ? 1 : o->event };
	double w = so->width, h;

	if (so->diff)
		diff_setup(&g);
	if (so->flamechart && o->seq)
		chart_lines(&g);
	else
		sorted_lines(&g);
	flow(&g);
	g.wpt = g.total > 0 ? (w - 2 * XPAD) / g.total : 0;
	prune(&g);
	h = (g.max_depth + 1) * so->frame_height + so->fontsize * 3 + so->fontsize * 2 + 10;
	if (so->subtitle)
		h += so->fontsize * 2;
	write_head(&g, w, h);
	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < g.nr; i++)
		if (g.ids[i])
			write_frame(&g, i, h);
	fputs("</g>\n</svg>\n", out);
	free(g.frames);
	free(g.lines);
	free(g.ids);
	free(g.base_tot);
	free(g.name);
	free(g.text.cps);
	return 0;
}

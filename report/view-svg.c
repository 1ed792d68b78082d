/* SPDX-License-Identifier: MIT */
/*
 * view-svg.c - the flame graph, following FlameGraph's conventions: each frame a <g> with a
 * <title> "name (N samples, P%)", a rounded <rect> and its name cut to fit with "..";
 * siblings in alphabetical order (x order carries no meaning), "all" at the root, frames
 * narrower than minwidth left out with their children. With JavaScript (report/flamegraph.js)
 * it zooms, searches and keeps both in the URL fragment; --no-js writes a static file.
 *
 * The layout is computed into a frame list first (x and width in value units), then written;
 * a flame chart (--flamechart) builds the same list from stacks in time order instead.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/flamegraph-js.h"
#include "formats/util.h"
#include "strtab.h"
#include "view.h"

#define XPAD 10.0

struct frame {
	uint32_t node;
	uint32_t depth;
	uint32_t parent;	/* index + 1 of the parent frame, 0 for the root */
	double x, v;		/* start and width, in value units */
};

struct svg {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	const struct kp_svg_opts *so;
	FILE *out;
	size_t ev;		/* the event whose values give widths (NEW in a diff) */
	double total, scale;	/* value of the root; pixels per value unit */
	double norm;		/* diff: base values times this are comparable with new ones */
	double max_delta;
	struct frame *frames;
	size_t nr, cap;
	uint32_t max_depth;
	uint64_t rng;		/* colours without --hash */
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

/* A frame's width: its value; in a diff NEW's, as flamegraph.pl takes the second column, so
 * that children never outgrow their parent. What exists only in BASE is not drawn (the diff
 * tree, `report --diff`, lists it). */
static double width_v(const struct svg *g, uint32_t node)
{
	return total_v(g, node, g->ev);
}

static uint32_t add_frame(struct svg *g, uint32_t node, uint32_t depth, uint32_t parent, double x,
			  double v)
{
	KP_GROW(g->frames, g->cap, g->nr + 1);
	g->frames[g->nr] = (struct frame){ node, depth, parent, x, v };
	if (depth > g->max_depth)
		g->max_depth = depth;
	return (uint32_t)++g->nr;
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct kp_profile *p = ctx;

	return strcmp(kp_profile_name(p, *(const uint32_t *)a), kp_profile_name(p, *(const uint32_t *)b));
}

/* FlameGraph's layout: children side by side from the parent's x, in name order. */
static void layout(struct svg *g, uint32_t node, uint32_t depth, uint32_t parent, double x)
{
	uint32_t self = add_frame(g, node, depth, parent, x, width_v(g, node)), *kids = NULL;
	size_t n = 0, cap = 0;

	for (uint32_t c = g->p->first_child[node]; c; c = g->p->next_sibling[c]) {
		if (width_v(g, c) * g->scale < g->so->minwidth)
			continue; /* merged away, with everything above it */
		KP_GROW(kids, cap, n + 1);
		kids[n++] = c;
	}
	if (n > 1)
		qsort_r(kids, n, sizeof(*kids), cmp_name, (void *)g->p);
	for (size_t i = 0; i < n; i++) {
		layout(g, kids[i], depth + 1, self, x);
		x += width_v(g, kids[i]);
	}
	free(kids);
}

/* A frame of the flame chart that the stacks so far still run through. */
struct open_frame {
	uint32_t node, id;
	double x;
};

/* A flame chart: stacks in time order, a frame spanning the run of samples that share it.
 * Stacks are as deep as they come: the open frames and the path grow with them. */
static void layout_chart(struct svg *g)
{
	struct open_frame *open = NULL;
	uint32_t *path = NULL;
	size_t depth, cap_open = 0, cap_path = 0;
	double x = 0;

	KP_GROW(open, cap_open, 1);
	open[0] = (struct open_frame){ 0, add_frame(g, 0, 0, 0, 0, g->total), 0 };
	depth = 1;
	for (size_t i = 0; i < g->o->seq->nr; i++) {
		const struct kp_seq_ent *e = &g->o->seq->ents[i];
		size_t n = 0, k = 1;
		double v = g->so->milli ? e->value / 1000.0 : (double)e->value;

		for (uint32_t a = e->node; a; a = g->p->nodes[a].parent) {
			KP_GROW(path, cap_path, n + 1);
			path[n++] = a;
		}
		/* path is leaf first: compare it root first with what is open */
		while (k < depth && k <= n && open[k].node == path[n - k])
			k++;
		while (depth > k) { /* close frames that this stack leaves */
			depth--;
			g->frames[open[depth].id - 1].v = x - open[depth].x;
		}
		KP_GROW(open, cap_open, n + 1);
		for (; depth <= n; depth++)
			open[depth] = (struct open_frame){
				path[n - depth],
				add_frame(g, path[n - depth], (uint32_t)depth, open[depth - 1].id, x, 0),
				x
			};
		x += v;
	}
	while (depth > 1) {
		depth--;
		g->frames[open[depth].id - 1].v = x - open[depth].x;
	}
	free(open);
	free(path);
}

/* --- text ---------------------------------------------------------------------------------- */

/* Write @n bytes of a name as XML text: escaped, invalid UTF-8 and control bytes replaced. */
static void put_xml(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n;) {
		size_t len = kp_utf8_len(s + i, n - i);
		if (!len) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD for a byte that is not UTF-8 */
			i++;
			continue;
		}
		if (len == 1) {
			unsigned char c = s[i];
			switch (c) {
			case '&': fputs("&amp;", out); break;
			case '<': fputs("&lt;", out); break;
			case '>': fputs("&gt;", out); break;
			case '"': fputs("&quot;", out); break;
			case '\'': fputs("&apos;", out); break;
			default: fputc(c < 0x20 ? '?' : c, out); break;
			}
		} else {
			fwrite(s + i, 1, len, out);
		}
		i += len;
	}
}

/* The name for the box: C++ and Rust parameter and template lists dropped ("f(int)" -> "f"). */
static size_t short_name(const char *name, char *buf, size_t cap)
{
	size_t n = 0;
	int depth = 0;

	for (const char *c = name; *c && n + 1 < cap; c++) {
		if (*c == '(' || *c == '<') {
			depth++;
			continue;
		}
		if ((*c == ')' || *c == '>') && depth > 0) {
			depth--;
			continue;
		}
		if (!depth)
			buf[n++] = *c;
	}
	if (!n) /* a name that is all brackets: keep it as it is */
		n = snprintf(buf, cap, "%s", name) < (int)cap ? strlen(buf) : cap - 1;
	buf[n] = '\0';
	return n;
}

static void put_box_text(struct svg *g, const char *name, double width_px)
{
	double chars = (width_px - 6) / (g->so->fontsize * 0.59);
	char buf[4096];
	size_t fit, n;

	if (!(chars >= 3)) /* NaN too, from a hostile file's values */
		return;
	fit = chars < sizeof(buf) ? (size_t)chars : sizeof(buf); /* sums that wrapped, too */
	n = strlen(name) > fit ? short_name(name, buf, sizeof(buf)) : 0;
	if (!n) {
		n = snprintf(buf, sizeof(buf), "%s", name);
		n = n < sizeof(buf) ? n : sizeof(buf) - 1;
	}
	if (n > fit) { /* cut on a character boundary and mark it, as FlameGraph does */
		n = fit - 2;
		while (n && ((unsigned char)buf[n] & 0xc0) == 0x80)
			n--;
		put_xml(g->out, buf, n);
		fputs("..", g->out);
		return;
	}
	put_xml(g->out, buf, n);
}


/* --- colours ------------------------------------------------------------------------------- */

/* Three numbers in [0, 1) for a frame: from its name with --hash, else random. */
static void frame_rand(struct svg *g, const char *name, double v[3])
{
	for (int i = 0; i < 3; i++) {
		uint64_t h;
		if (g->so->hash) {
			h = kp_hash_bytes(name, strlen(name), (uint64_t)i);
		} else {
			g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
			h = g->rng;
		}
		v[i] = (double)(h >> 11) / 9007199254740992.0;
	}
}

struct rgb {
	int r, g, b;
};

/* FlameGraph's palettes: a base colour per name, varied by v1..v3. */
static struct rgb palette(const char *pal, const double v[3])
{
	struct rgb c = { 205 + (int)(50 * v[2]), (int)(230 * v[0]), (int)(55 * v[1]) }; /* hot */
	int a = (int)(60 * v[0]);

	if (!strcmp(pal, "mem"))
		c = (struct rgb){ 0, 190 + (int)(50 * v[1]), (int)(210 * v[0]) };
	else if (!strcmp(pal, "io"))
		c = (struct rgb){ 80 + a, 80 + a, 190 + (int)(55 * v[1]) };
	else if (!strcmp(pal, "red"))
		c = (struct rgb){ 200 + (int)(55 * v[0]), 50 + (int)(80 * v[0]), 50 + (int)(80 * v[0]) };
	else if (!strcmp(pal, "green"))
		c = (struct rgb){ 50 + a, 200 + (int)(55 * v[0]), 50 + a };
	else if (!strcmp(pal, "blue"))
		c = (struct rgb){ 80 + a, 80 + a, 205 + (int)(50 * v[0]) };
	else if (!strcmp(pal, "aqua"))
		c = (struct rgb){ 50 + a, 165 + (int)(55 * v[0]), 165 + (int)(55 * v[0]) };
	else if (!strcmp(pal, "yellow"))
		c = (struct rgb){ 175 + (int)(55 * v[0]), 175 + (int)(55 * v[0]), 50 + (int)(20 * v[0]) };
	else if (!strcmp(pal, "purple"))
		c = (struct rgb){ 190 + (int)(65 * v[0]), 80 + a, 190 + (int)(65 * v[0]) };
	else if (!strcmp(pal, "orange"))
		c = (struct rgb){ 190 + (int)(65 * v[0]), 90 + (int)(65 * v[0]), 0 };
	return c;
}

const char *const kp_svg_palettes[] = { "hot",	"mem",	  "io",	    "red",    "green", "blue",
					"aqua", "yellow", "purple", "orange", NULL };

/* kprof's default: user code hot, kernel orange, JIT green, inlined aqua, commands yellow. */
static const char *default_palette(const struct kp_loc *l)
{
	if (l->flags & KP_LOC_COMM)
		return "yellow";
	if (l->flags & KP_LOC_KERNEL)
		return "orange";
	if (l->flags & KP_LOC_JIT)
		return "green";
	if (l->flags & KP_LOC_INLINED)
		return "aqua";
	return "hot";
}

/* Differential: red grew, blue shrank, white unchanged; saturation follows the change. */
static struct rgb diff_colour(const struct svg *g, uint32_t node)
{
	double d = total_v(g, node, 1) - total_v(g, node, 0) * g->norm;
	int fade = g->max_delta > 0 ? (int)(210 * (1 - fabs(d) / g->max_delta)) : 210;

	if (g->so->negate)
		d = -d;
	if (d > 0)
		return (struct rgb){ 255, fade, fade };
	if (d < 0)
		return (struct rgb){ fade, fade, 255 };
	return (struct rgb){ 250, 250, 250 };
}

static struct rgb frame_colour(struct svg *g, uint32_t node)
{
	const struct kp_loc *l = &g->p->locs[g->p->nodes[node].loc];
	double v[3];

	if (g->so->diff)
		return diff_colour(g, node);
	frame_rand(g, kp_profile_name(g->p, node), v);
	if (!node)
		return (struct rgb){ 180 + (int)(40 * v[0]), 180 + (int)(40 * v[0]), 190 };
	return palette(g->so->colors ? g->so->colors : default_palette(l), v);
}

/* --- writing ------------------------------------------------------------------------------- */

static void put_num(FILE *out, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.3f", v);
}

static void write_title(struct svg *g, const struct frame *f)
{
	const char *name = kp_profile_name(g->p, f->node);

	fputs("<title>", g->out);
	put_xml(g->out, name, strlen(name));
	fputs(" (", g->out);
	put_num(g->out, f->v);
	fprintf(g->out, " %s, %.2f%%", countname(g->so), kp_view_pct_d(f->v, g->total));
	if (g->so->diff) {
		double base = total_v(g, f->node, 0) * g->norm, now = total_v(g, f->node, 1);
		if (base == 0)
			fputs("; only in NEW", g->out);
		else
			fprintf(g->out, "; %+.2f%%", kp_view_pct_d(now - base, g->total));
	}
	fputs(")</title>", g->out);
}

static void write_frame(struct svg *g, size_t i, double img_h)
{
	const struct frame *f = &g->frames[i];
	double fh = g->so->frame_height, x = XPAD + f->x * g->scale, w = f->v * g->scale;
	double y = g->so->inverted ? g->so->fontsize * 3 + f->depth * fh
				   : img_h - (g->so->fontsize * 2 + 10) - (f->depth + 1) * fh;
	struct rgb c = frame_colour(g, f->node);

	fprintf(g->out, "<g class=\"f\" id=\"f%zu\" data-x=\"", i + 1);
	put_num(g->out, f->x);
	fputs("\" data-v=\"", g->out);
	put_num(g->out, f->v);
	fprintf(g->out, "\" data-d=\"%u\" data-p=\"", f->depth);
	if (f->parent)
		fprintf(g->out, "f%u", f->parent);
	fputs("\">", g->out);
	write_title(g, f);
	fprintf(g->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		x, y, w, fh - 1, c.r, c.g, c.b);
	fprintf(g->out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + fh - 5);
	put_box_text(g, kp_profile_name(g->p, f->node), w);
	fputs("</text></g>\n", g->out);
}

static void write_head(struct svg *g, double w, double h)
{
	const struct kp_svg_opts *so = g->so;
	FILE *out = g->out;

	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		     "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		     "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
	fprintf(out, "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\"%s viewBox=\"0 0 %.0f %.0f\" "
		     "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
		     "id=\"kprof\" data-total=\"",
		w, h, so->no_js ? "" : " onload=\"kp_init(evt)\"", w, h);
	put_num(out, g->total);
	fputs("\" data-unit=\"", out);
	put_xml(out, countname(so), strlen(countname(so)));
	fprintf(out, "\" data-xpad=\"%.0f\" data-fontsize=\"%g\" data-frameheight=\"%g\" "
		     "data-minwidth=\"%g\" data-inverted=\"%d\">\n",
		XPAD, so->fontsize, so->frame_height, so->minwidth, so->inverted);
	fprintf(out, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		     "<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"%s\" "
		     "offset=\"95%%\"/></linearGradient></defs>\n",
		so->diff ? "#e0e0ff" : "#eeeeb0");
	fprintf(out, "<style type=\"text/css\">text{font-family:Verdana,sans-serif;font-size:%gpx;"
		     "fill:rgb(0,0,0)}#title{text-anchor:middle;font-size:%gpx}"
		     "#search,#unzoom{cursor:pointer}.hide{display:none}.parent{opacity:0.5}"
		     ".f:hover{stroke:black;stroke-width:0.5;cursor:pointer}</style>\n",
		so->fontsize, so->fontsize + 5);
	if (!so->no_js)
		fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
			kp_flamegraph_js);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
		     "fill=\"url(#background)\"/>\n", w, h);
	fprintf(out, "<text id=\"title\" x=\"%.1f\" y=\"%g\">", w / 2, so->fontsize * 2);
	put_xml(out, so->title, strlen(so->title));
	fputs("</text>\n", out);
	if (so->subtitle) {
		fprintf(out, "<text id=\"subtitle\" x=\"%.1f\" y=\"%g\" "
			     "style=\"text-anchor:middle\">", w / 2, so->fontsize * 3.5);
		put_xml(out, so->subtitle, strlen(so->subtitle));
		fputs("</text>\n", out);
	}
	fprintf(out, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n", XPAD, h - 17);
	if (!so->no_js)
		fprintf(out, "<text id=\"unzoom\" x=\"%.0f\" y=\"%g\" class=\"hide\">Reset Zoom</text>\n"
			     "<text id=\"search\" x=\"%.0f\" y=\"%g\">Search</text>\n"
			     "<text id=\"matched\" x=\"%.0f\" y=\"%.0f\"> </text>\n",
			XPAD, so->fontsize * 2, w - 110, so->fontsize * 2, w - 110, h - 17);
}

static void diff_setup(struct svg *g)
{
	double base = total_v(g, 0, 0), now = total_v(g, 0, 1);

	g->norm = g->so->normalize && base > 0 ? now / base : 1.0;
	for (size_t n = 1; n < g->p->nr_nodes; n++) {
		double d = fabs(total_v(g, n, 1) - total_v(g, n, 0) * g->norm);
		if (d > g->max_delta)
			g->max_delta = d;
	}
}

int kp_view_svg(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	const struct kp_svg_opts *so = &o->svg;
	struct svg g = { .p = p, .o = o, .so = so, .out = out, .ev = so->diff ? 1 : o->event };
	double w = so->width, h;

	g.rng = so->hash ? 0 : (uint64_t)time(NULL) * 2654435761u;
	g.norm = 1.0;
	if (so->diff)
		diff_setup(&g);
	g.total = width_v(&g, 0);
	g.scale = g.total > 0 ? (w - 2 * XPAD) / g.total : 0;
	if (so->flamechart && o->seq)
		layout_chart(&g);
	else
		layout(&g, 0, 0, 0, 0);
	h = (g.max_depth + 1) * so->frame_height + so->fontsize * 3 + so->fontsize * 2 + 10;
	if (so->subtitle)
		h += so->fontsize;
	write_head(&g, w, h);
	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < g.nr; i++)
		write_frame(&g, i, h);
	fputs("</g>\n</svg>\n", out);
	free(g.frames);
	return 0;
}

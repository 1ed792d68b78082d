/* SPDX-License-Identifier: MIT */
/*
 * svg.c - what kprof's SVG pictures share (svg.h): their options' defaults, the escaping of
 * names, their labels, the colours flamegraph.pl gives them, and a diff's BASE values.
 */
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/text.h"
#include "report/profile/profile.h"

/* The code points of @n bytes at @s into t->cps (a byte that is not UTF-8 stands for itself).
 * Returns how many. */
static size_t code_points(struct kp_svg_text *t, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t nr = 0;

	for (size_t i = 0; i < n; nr++) {
		size_t len = kp_utf8_len(s + i, n - i);
		uint32_t c = s[i];
		if (len > 1) {
			c &= 0x7f >> len;
			for (size_t k = 1; k < len; k++)
				c = c << 6 | (s[i + k] & 0x3f);
		}
		KP_GROW(t->cps, t->cap, nr + 1);
		t->cps[nr] = c;
		i += len ? len : 1;
	}
	return nr;
}

/* Write @n bytes of a name as XML text: escaped, invalid UTF-8 and control bytes replaced. */
void kp_svg_put_xml(FILE *out, const char *str, size_t n)
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
			default: fputc(c < 0x20 && c != '\t' ? '?' : c, out); break;
			}
		} else {
			fwrite(s + i, 1, len, out);
		}
		i += len;
	}
}

/* The box's label, flamegraph.pl's rule: as many characters as fit at the average width, none
 * under 3, and a name that does not fit cut to that many with its last two made "..". */
void kp_svg_put_label(FILE *out, const char *name, double width_px, double fontsize)
{
	double fit = width_px / (fontsize * KP_SVG_FONTWIDTH);
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name), chars = 0, cut = 0, i = 0;

	if (!(fit >= 3)) /* NaN too, from a hostile file's values */
		return;
	for (; i < n; chars++) { /* a byte that is not UTF-8 is one character: U+FFFD */
		size_t len = kp_utf8_len(s + i, n - i);
		if ((double)chars == floor(fit) - 2)
			cut = i;
		i += len ? len : 1;
	}
	if ((double)chars <= fit) {
		kp_svg_put_xml(out, name, n);
		return;
	}
	kp_svg_put_xml(out, name, cut);
	fputs("..", out);
}

/* --- colours ------------------------------------------------------------------------------- */

/*
 * flamegraph.pl's colours from a name, as numbers in [0, 1]. --hash: a weighted sum over the
 * first three characters (after a "module`" prefix), forward for v1 and reversed for v2 and v3,
 * so that similar names get similar colours. Otherwise the first number of Perl's rand() after
 * srand(sum of the code points), the same for all three: random-looking but the same for a
 * name in every graph. Perl's rand() is drand48: a 48-bit LCG seeded with seed << 16 | 0x330e.
 */
static double name_hash(const uint32_t *c, size_t n, bool reversed)
{
	double vector = 0, weight = 1, max = 1;
	size_t start = 0;
	int mod = 10;

	for (size_t i = 1; i < n; i++) /* "module`name": the module is left out but for nothing */
		if (c[reversed ? n - 1 - i : i] == '`') {
			start = i + 1;
			break;
		}
	for (size_t i = start; i < n && mod <= 12; i++, mod++) {
		vector += (double)(c[reversed ? n - 1 - i : i] % (uint32_t)mod) / (mod - 1) * weight;
		max += weight;
		weight *= 0.70;
	}
	return 1 - vector / max;
}

static double perl_rand_after_srand(uint32_t seed)
{
	uint64_t x = ((uint64_t)seed << 16) + 0x330e;

	x = (x * 0x5deece66dull + 0xb) & ((1ull << 48) - 1);
	return (double)x / (double)(1ull << 48);
}

static void name_rand(struct kp_svg_text *t, const char *name, size_t len, bool hash, double v[3])
{
	size_t n = code_points(t, name, len);
	uint32_t sum = 0;

	if (hash) {
		v[0] = name_hash(t->cps, n, false);
		v[1] = v[2] = name_hash(t->cps, n, true);
		return;
	}
	for (size_t i = 0; i < n; i++)
		sum += t->cps[i];
	v[0] = v[1] = v[2] = perl_rand_after_srand(sum);
}

/* FlameGraph's palettes: a base colour per name, varied by v1..v3. */
static struct kp_rgb palette(const char *pal, const double v[3])
{
	struct kp_rgb c = { 205 + (int)(50 * v[2]), (int)(230 * v[0]), (int)(55 * v[1]) }; /* hot */
	int a = (int)(60 * v[0]);

	if (!strcmp(pal, "mem"))
		c = (struct kp_rgb){ 0, 190 + (int)(50 * v[1]), (int)(210 * v[0]) };
	else if (!strcmp(pal, "io"))
		c = (struct kp_rgb){ 80 + a, 80 + a, 190 + (int)(55 * v[1]) };
	else if (!strcmp(pal, "red"))
		c = (struct kp_rgb){ 200 + (int)(55 * v[0]), 50 + (int)(80 * v[0]), 50 + (int)(80 * v[0]) };
	else if (!strcmp(pal, "green"))
		c = (struct kp_rgb){ 50 + a, 200 + (int)(55 * v[0]), 50 + a };
	else if (!strcmp(pal, "blue"))
		c = (struct kp_rgb){ 80 + a, 80 + a, 205 + (int)(50 * v[0]) };
	else if (!strcmp(pal, "aqua"))
		c = (struct kp_rgb){ 50 + a, 165 + (int)(55 * v[0]), 165 + (int)(55 * v[0]) };
	else if (!strcmp(pal, "yellow"))
		c = (struct kp_rgb){ 175 + (int)(55 * v[0]), 175 + (int)(55 * v[0]), 50 + (int)(20 * v[0]) };
	else if (!strcmp(pal, "purple"))
		c = (struct kp_rgb){ 190 + (int)(65 * v[0]), 80 + a, 190 + (int)(65 * v[0]) };
	else if (!strcmp(pal, "orange"))
		c = (struct kp_rgb){ 190 + (int)(65 * v[0]), 90 + (int)(65 * v[0]), 0 };
	return c;
}

const char *const kp_svg_palettes[] = { "hot",	"mem",	  "io",	    "red",    "green", "blue",
					"aqua", "yellow", "purple", "orange", NULL };

/* kprof's default: user code hot, kernel orange, JIT green, inlined aqua, commands yellow. */
const char *kp_svg_default_palette(uint32_t flags)
{
	if (flags & KP_LOC_COMM)
		return "yellow";
	if (flags & KP_LOC_KERNEL)
		return "orange";
	if (flags & KP_LOC_JIT)
		return "green";
	if (flags & KP_LOC_INLINED)
		return "aqua";
	return "hot";
}

struct kp_rgb kp_svg_name_colour(struct kp_svg_text *t, const char *name, size_t len,
				 const char *pal, bool hash)
{
	double v[3];

	name_rand(t, name, len, hash, v);
	return palette(pal, v);
}

void kp_svg_opts_init(struct kp_svg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->frame_height = 16;
	o->minwidth = 0.1;
	o->fontsize = 12;
	o->normalize = true;
}

double kp_svg_diff_base(const struct kp_svg_opts *so, double base, double base_t, double new_t)
{
	if (!so->normalize || base_t == new_t || !(base_t > 0))
		return base;
	return floor(base * new_t / base_t);
}

void kp_svg_head(FILE *out, const struct kp_svg_head *h)
{
	fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n"
	      "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
	      "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n", out);
	fprintf(out, "<svg version=\"1.1\" width=\"%.10g\" height=\"%.10g\"", h->w, h->h);
	if (h->js)
		fprintf(out, " onload=\"%s(evt)\"", h->onload);
	fprintf(out, " viewBox=\"0 0 %.10g %.10g\" xmlns=\"http://www.w3.org/2000/svg\"%s "
		     "id=\"%s\"",
		h->w, h->h, h->xlink ? " xmlns:xlink=\"http://www.w3.org/1999/xlink\"" : "", h->id);
	h->attrs(out, h->pic);
	fputs(">\n", out);
	if (h->background[1])
		fprintf(out, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" "
			     "x2=\"0\"><stop stop-color=\"%s\" offset=\"5%%\"/>"
			     "<stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient></defs>\n",
			h->background[0], h->background[1]);
	fprintf(out, "<style type=\"text/css\">text{font-family:Verdana,sans-serif;font-size:%gpx;"
		     "fill:rgb(0,0,0)}#title{text-anchor:middle;font-size:%gpx}"
		     "#subtitle{text-anchor:middle}%s"
		     "#search,#unzoom{cursor:pointer}.hide{display:none}%s</style>\n",
		h->fontsize, h->fontsize + 5, h->css_text, h->css);
	if (h->js) /* in CDATA: the build checks that it has no "]]>" */
		fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", h->js);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%g\" height=\"%g\" fill=\"%s\"/>\n", h->w, h->h,
		h->background[1] ? "url(#background)" : h->background[0]);
	fprintf(out, "<text id=\"title\" x=\"%.2f\" y=\"%g\">", floor(h->w / 2), h->fontsize * 2);
	kp_svg_put_xml(out, h->title, strlen(h->title));
	fputs("</text>\n", out);
}

void kp_svg_controls(FILE *out, double w, double h, double fontsize, bool js, double matched_w)
{
	double pad = KP_SVG_XPAD, bottom = h - (fontsize * 2 + 10) / 2;

	fprintf(out, "<text id=\"details\" x=\"%.0f\" y=\"%g\"> </text>\n", pad, bottom);
	if (js)
		fprintf(out, "<text id=\"unzoom\" x=\"%.0f\" y=\"%g\" class=\"hide\">Reset Zoom</text>\n"
			     "<text id=\"search\" x=\"%g\" y=\"%g\">Search</text>\n"
			     "<text id=\"matched\" x=\"%g\" y=\"%g\"> </text>\n",
			pad, fontsize * 2, w - pad - 100, fontsize * 2, w - pad - matched_w, bottom);
}

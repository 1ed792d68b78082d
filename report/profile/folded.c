/* SPDX-License-Identifier: MIT */
#include "folded.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

#define FRAMES_INIT 256 /* the frames of one line; more grow it */

/* A count: digits with an optional fraction; no sign, no exponent, no inf/nan. */
static int parse_count(const char *s, size_t n, uint64_t *out)
{
	double v = 0, scale = 1;
	size_t i = 0;
	int digits = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		v = v * 10 + (s[i] - '0');
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
			v += (s[i] - '0') * (scale /= 10);
	if (!digits || i != n || v * KP_FOLDED_SCALE > 9e18)
		return -1;
	*out = (uint64_t)llround(v * KP_FOLDED_SCALE);
	return 0;
}

/* Split off the last blank-separated field of [s, *end): it must be a count. The stack ends
 * before the one blank in front of it, as flamegraph.pl reads a line ("a;  3" is the stack
 * "a; ", whose last frame is " "). */
static int last_count(const char *s, const char **end, uint64_t *out)
{
	const char *sp = *end;

	while (sp > s && sp[-1] != ' ' && sp[-1] != '\t')
		sp--;
	if (sp == s || parse_count(sp, *end - sp, out))
		return -1;
	*end = sp - 1;
	return 0;
}

static uint32_t frame_loc(struct kp_profile *p, const char *name, size_t n, uint32_t flags)
{
	static const struct {
		const char *sfx;
		uint32_t flag;
	} ann[] = { { "_[k]", KP_LOC_KERNEL }, { "_[i]", KP_LOC_INLINED }, { "_[j]", KP_LOC_JIT } };

	for (size_t i = 0; i < ARRAY_SIZE(ann); i++)
		if (n > 4 && !memcmp(name + n - 4, ann[i].sfx, 4)) {
			n -= 4;
			flags |= ann[i].flag;
			break;
		}
	uint32_t f = kp_profile_func(p, kp_strtab_intern_len(p->strs, name, n), 0,
				     flags & ~KP_LOC_INLINED);
	return kp_profile_loc(p, f, 0, 0, flags);
}

/* One line: returns 1 when a stack was added, 0 for a blank line, -1 (after bad()) if bad. */
static int parse_line(struct kp_profile *p, const char *s, size_t n, size_t lineno,
		      const struct kp_folded_opts *o, uint32_t **locs_p, size_t *cap,
		      uint32_t *node_out,
		      uint64_t *val_out)
{
	const char *end = s + n, *stack_end;
	uint64_t c1 = 0, c2 = 0;
	int cols = 1;
	size_t nf = 0, filled = 0, lead = 0;
	uint32_t *locs;

	while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == s)
		return 0;
	stack_end = end;
	if (last_count(s, &stack_end, &c2)) {
		o->bad(o->ctx, lineno, "no count at the end of the line");
		return -1;
	}
	const char *before = stack_end;
	if (o->columns != 1 && !last_count(s, &before, &c1)) {
		cols = 2;
		stack_end = before;
	}
	if ((o->columns && cols != o->columns) || (cols == 2 && p->nr_events < 2)) {
		o->bad(o->ctx, lineno, cols == 2 ? "two counts where one is expected"
						 : "one count where two are expected");
		return -1;
	}
	if (stack_end == s) {
		o->bad(o->ctx, lineno, "no frames before the count");
		return -1;
	}
	for (const char *f = s; f <= stack_end; f++) { /* however deep: nothing is cut */
		const char *semi = memchr(f, ';', stack_end - f), *fe = semi ? semi : stack_end;
		uint32_t flags = nf == 0 && o->first_is_comm ? KP_LOC_COMM : 0;
		KP_GROW(*locs_p, *cap, nf + 1);
		(*locs_p)[nf++] = frame_loc(p, f, fe - f, flags);
		if (fe > f) /* empty frames (";;") are frames, as in flamegraph.pl, but at the end */
			filled = nf;
		else if (filled == 0)
			lead++;
		f = fe;
	}
	nf = filled; /* ... and with --reverse at the start too: they end up at the end */
	if (!nf) {
		o->bad(o->ctx, lineno, "no frames before the count");
		return -1;
	}
	if (o->reverse && lead) {
		nf -= lead;
		memmove(*locs_p, *locs_p + lead, nf * sizeof(**locs_p));
	}
	locs = *locs_p;
	if (o->reverse)
		for (size_t i = 0; i < nf / 2; i++) {
			uint32_t x = locs[i];
			locs[i] = locs[nf - 1 - i];
			locs[nf - 1 - i] = x;
		}
	*node_out = kp_profile_path(p, locs, nf);
	if (cols == 2) {
		kp_profile_add_weight(p, *node_out, 0, 0, c1);
		kp_profile_add_weight(p, *node_out, 1, 1, c2);
	} else {
		kp_profile_add_weight(p, *node_out, o->event, 1, c2);
	}
	*val_out = c2;
	return 1;
}

size_t kp_folded_parse(struct kp_profile *p, const char *text, size_t len,
		       const struct kp_folded_opts *o, struct kp_seq *seq)
{
	size_t cap = FRAMES_INIT, added = 0, lineno = 0;
	uint32_t *locs = kp_xmalloc(cap * sizeof(*locs));
	const char *p_ = text, *end = text + len;

	/* a line's count is what it stands for, whatever that was: samples, as flamegraph.pl says */
	for (size_t e = 0; e < p->nr_events; e++)
		if (!p->events[e].name)
			p->events[e].name = p->events[e].unit = kp_strtab_intern(p->strs, "samples");
	while (p_ < end) {
		const char *nl = memchr(p_, '\n', end - p_), *le = nl ? nl : end;
		uint32_t node;
		uint64_t val;
		lineno++;
		if (parse_line(p, p_, le - p_, lineno, o, &locs, &cap, &node, &val) > 0) {
			added++;
			if (seq)
				kp_seq_push(seq, node, val);
		}
		p_ = le + 1;
	}
	free(locs);
	return added;
}

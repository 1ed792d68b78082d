/* SPDX-License-Identifier: MIT */
#include "ksyms.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "symrank.h"

void kp_ksyms_init(struct kp_ksyms *k)
{
	memset(k, 0, sizeof(*k));
}

void kp_ksyms_release(struct kp_ksyms *k)
{
	for (size_t i = 0; i < k->nr; i++)
		free(k->syms[i].name);
	free(k->syms);
	kp_ksyms_init(k);
}

/*
 * One line: hex address, a space, the type letter, a space, the name, maybe "\t[module]". The
 * line ends at @end, with no NUL: its address is copied out before strtoull() reads it.
 */
static void add_line(struct kp_ksyms *k, const char *p, const char *end, bool ends)
{
	char hex[17];
	size_t h = 0;
	const char *after, *name;
	uint64_t addr;
	size_t n;

	while (h < sizeof(hex) - 1 && p + h < end && isxdigit((unsigned char)p[h]))
		h++;
	memcpy(hex, p, h);
	hex[h] = '\0';
	addr = strtoull(hex, NULL, 16);
	after = p + h;
	if (!h || after + 3 > end || after[0] != ' ' || after[2] != ' ' || !addr)
		return;
	name = after + 3;
	n = end - name;
	KP_GROW(k->syms, k->cap, k->nr + 1);
	k->syms[k->nr].addr = addr;
	k->syms[k->nr].name = kp_xmalloc(n + 1);
	memcpy(k->syms[k->nr].name, name, n);
	k->syms[k->nr].name[n] = '\0';
	k->syms[k->nr].type = after[1];
	k->syms[k->nr].end = ends;
	for (char *t = strchr(k->syms[k->nr].name, '\t'); t; t = strchr(t, '\t'))
		*t = ' ';
	k->nr++;
	k->sorted = 0;
}

void kp_ksyms_add_text(struct kp_ksyms *k, const char *text, size_t len, bool ends)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *line_end = nl ? nl : end;
		add_line(k, p, line_end, ends);
		p = line_end + 1;
	}
}

static int cmp_ent(const void *a, const void *b)
{
	const struct kp_ksym_ent *x = a, *y = b;
	struct kp_symrank rx, ry;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end) /* names first: an address stored as both is named */
		return x->end ? 1 : -1;
	rx = kp_symrank_kallsyms(x->name, x->type);
	ry = kp_symrank_kallsyms(y->name, y->type);
	return kp_symrank_cmp(&rx, &ry); /* the best alias first */
}

static bool in_order(const struct kp_ksyms *k)
{
	for (size_t i = 1; i < k->nr; i++)
		if (cmp_ent(&k->syms[i - 1], &k->syms[i]) > 0)
			return false;
	return true;
}

/* Sort, and drop the lines stored twice (the same symbol can be written by several rounds, as
 * an end, then as a name); ends after a name at their address are of no use. */
static void finish(struct kp_ksyms *k)
{
	size_t out = 0;

	if (k->nr > 1 && !in_order(k)) /* /proc/kallsyms is, but for its modules and aliases */
		qsort(k->syms, k->nr, sizeof(*k->syms), cmp_ent);
	for (size_t i = 0; i < k->nr; i++) {
		if (out && k->syms[out - 1].addr == k->syms[i].addr &&
		    (k->syms[i].end || !strcmp(k->syms[out - 1].name, k->syms[i].name))) {
			free(k->syms[i].name);
			continue;
		}
		k->syms[out++] = k->syms[i];
	}
	k->nr = out;
	k->sorted = 1;
}

const struct kp_ksym_ent *kp_ksyms_find(struct kp_ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!k->sorted)
		finish(k);
	hi = k->nr;
	if (!hi || addr < k->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	while (lo && k->syms[lo - 1].addr == k->syms[lo].addr)
		lo--;
	return k->syms[lo].end ? NULL : &k->syms[lo];
}

const char *kp_ksyms_lookup(struct kp_ksyms *k, uint64_t addr)
{
	const struct kp_ksym_ent *e = kp_ksyms_find(k, addr);

	return e ? e->name : NULL;
}

uint64_t kp_ksyms_end(struct kp_ksyms *k, const struct kp_ksym_ent *e)
{
	for (size_t i = (size_t)(e - k->syms) + 1; i < k->nr; i++)
		if (k->syms[i].addr > e->addr)
			return k->syms[i].addr;
	return 0;
}

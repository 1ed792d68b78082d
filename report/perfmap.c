/* SPDX-License-Identifier: MIT */
#include "perfmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

static int cmp_ent(const void *a, const void *b)
{
	const struct kp_perfmap_ent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* "START SIZE NAME": hex numbers with or without 0x; the name runs to the end of the line. */
static int parse_line(char *line, struct kp_perfmap_ent *e)
{
	char *p = line, *end;
	size_t n;

	e->start = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return -1;
	p = end + 1;
	e->end = e->start + strtoull(p, &end, 16);
	if (end == p || *end != ' ' || e->end <= e->start)
		return -1;
	p = end + 1;
	n = strcspn(p, "\r\n");
	if (!n)
		return -1;
	p[n] = '\0';
	e->name = kp_xstrdup(p);
	return 0;
}

void kp_perfmap_load(struct kp_perfmap *m, const char *dir, uint32_t pid)
{
	char path[4096], *line = NULL;
	size_t cap = 0, lcap = 0;
	FILE *f;

	memset(m, 0, sizeof(*m));
	m->loaded = 1;
	snprintf(path, sizeof(path), "%s/perf-%u.map", dir, pid);
	f = fopen(path, "r");
	if (!f)
		return;
	m->found = 1;
	while (getline(&line, &lcap, f) > 0) {
		struct kp_perfmap_ent e;
		if (parse_line(line, &e))
			continue;
		KP_GROW(m->ents, cap, m->nr + 1);
		m->ents[m->nr++] = e;
	}
	free(line);
	fclose(f);
	if (m->nr > 1)
		qsort(m->ents, m->nr, sizeof(*m->ents), cmp_ent);
}

const char *kp_perfmap_lookup(const struct kp_perfmap *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr;

	if (!hi || addr < m->ents[0].start)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (m->ents[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return addr < m->ents[lo].end ? m->ents[lo].name : NULL;
}

void kp_perfmap_release(struct kp_perfmap *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free(m->ents[i].name);
	free(m->ents);
	memset(m, 0, sizeof(*m));
}

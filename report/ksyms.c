/* SPDX-License-Identifier: MIT */
#include "ksyms.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/util.h"
#include "symrank.h"

struct kp_ksyms_loader {
	pthread_t thread;
	int fd;
	atomic_bool stop;	/* kp_ksyms_release(): the table is not wanted */
	struct kp_ksyms *k;
};

static void finish(struct kp_ksyms *k);

/* Wait for kp_ksyms_load()'s thread: from then on @k is this thread's alone again. */
static void settle(struct kp_ksyms *k, bool stop)
{
	struct kp_ksyms_loader *l = k->loader;

	if (!l)
		return;
	atomic_store(&l->stop, stop);
	pthread_join(l->thread, NULL);
	close(l->fd);
	free(l);
	k->loader = NULL;
}

void kp_ksyms_init(struct kp_ksyms *k)
{
	memset(k, 0, sizeof(*k));
}

void kp_ksyms_release(struct kp_ksyms *k)
{
	settle(k, true);
	for (size_t i = 0; i < k->nr_texts; i++)
		free(k->texts[i]);
	free(k->texts);
	free(k->syms);
	kp_ksyms_init(k);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * One line: hex address (at most 16 digits), a space, the type letter, a space, the name,
 * maybe "\t[module]". @p..@end is the line in an owned text, its end where the newline was:
 * it is cut there, and a tab in the name becomes a space.
 */
static void add_line(struct kp_ksyms *k, char *p, char *end, bool ends)
{
	uint64_t addr = 0;
	char *after = p, *tab;
	int v;

	while (after - p < 16 && after < end && (v = hexval(*after)) >= 0)
		addr = addr << 4 | (uint64_t)v, after++;
	if (after == p || after + 3 > end || after[0] != ' ' || after[2] != ' ' || !addr)
		return;
	*end = '\0';
	for (tab = memchr(after + 3, '\t', end - (after + 3)); tab;
	     tab = memchr(tab, '\t', end - tab))
		*tab = ' ';
	KP_GROW(k->syms, k->cap, k->nr + 1);
	k->syms[k->nr++] = (struct kp_ksym_ent){ .addr = addr, .name = after + 3,
						 .type = after[1], .end = ends };
	k->sorted = 0;
}

/* Parse @len bytes at @text, which @k now owns (with one byte after them for a NUL). */
static void add_owned(struct kp_ksyms *k, char *text, size_t len, bool ends)
{
	char *p = text, *end = text + len;

	KP_GROW(k->texts, k->cap_texts, k->nr_texts + 1);
	k->texts[k->nr_texts++] = text;
	while (p < end) {
		char *nl = memchr(p, '\n', end - p);
		char *line_end = nl ? nl : end;
		add_line(k, p, line_end, ends);
		p = line_end + 1;
	}
}

void kp_ksyms_add_text(struct kp_ksyms *k, const char *text, size_t len, bool ends)
{
	char *own = kp_xmalloc(len + 1);

	settle(k, false);
	memcpy(own, text, len);
	own[len] = '\0';
	add_owned(k, own, len, ends);
}

static void *load_main(void *arg)
{
	struct kp_ksyms_loader *l = arg;
	char *text = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	do { /* big reads: the kernel writes a seq_file a buffer at a time */
		KP_GROW(text, cap, len + (1 << 20) + 1);
		n = read(l->fd, text + len, cap - len - 1);
		if (n > 0)
			len += n;
	} while ((n > 0 || (n < 0 && errno == EINTR)) && !atomic_load(&l->stop));
	if (atomic_load(&l->stop) || !len) {
		free(text);
		return NULL;
	}
	text[len] = '\0';
	add_owned(l->k, text, len, false);
	finish(l->k);
	return NULL;
}

int kp_ksyms_load(struct kp_ksyms *k, const char *path)
{
	struct kp_ksyms_loader *l;
	int fd, err;

	settle(k, false);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	l = kp_xmalloc(sizeof(*l));
	l->fd = fd;
	l->k = k;
	atomic_init(&l->stop, false);
	err = pthread_create(&l->thread, NULL, load_main, l);
	if (err) { /* no thread to be had: read it here */
		load_main(l);
		close(fd);
		free(l);
		return 0;
	}
	k->loader = l;
	return 0;
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
		    (k->syms[i].end || !strcmp(k->syms[out - 1].name, k->syms[i].name)))
			continue;
		k->syms[out++] = k->syms[i];
	}
	k->nr = out;
	k->sorted = 1;
}

const struct kp_ksym_ent *kp_ksyms_find(struct kp_ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi;

	settle(k, false);
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
	settle(k, false); /* @e came from kp_ksyms_find(), which waited already */
	for (size_t i = (size_t)(e - k->syms) + 1; i < k->nr; i++)
		if (k->syms[i].addr > e->addr)
			return k->syms[i].addr;
	return 0;
}

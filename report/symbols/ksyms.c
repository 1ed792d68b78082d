/* SPDX-License-Identifier: MIT */
#include "ksyms.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/util.h"
#include "report/base/search.h"

/* A bound on what a kallsyms file may cost: the kernel's own is 10 to 30 MB. */
#define KSYMS_MAX_FILE (256ull << 20)

struct kp_ksyms_loader {
	pthread_t thread;
	int fd;
	atomic_bool stop;	/* kp_ksyms_release(): the table is not wanted */
	struct kp_ksyms *k;
};

static void finish(struct kp_ksyms *k);
static void check(struct kp_ksyms *k);

/* Wait for kp_ksyms_load()'s thread: from then on @k is this thread's alone again; a file's
 * table is then held to what the recording expects. */
static void settle(struct kp_ksyms *k, bool stop)
{
	struct kp_ksyms_loader *l = k->loader;

	if (l) {
		atomic_store(&l->stop, stop);
		pthread_join(l->thread, NULL);
		close(l->fd);
		free(l);
		k->loader = NULL;
	}
	if (!stop && k->unchecked && k->nr_expects)
		check(k);
}

void kp_ksyms_init(struct kp_ksyms *k)
{
	memset(k, 0, sizeof(*k));
}

/* The table's symbols and texts, freed: empty, its expectations kept. */
static void drop_table(struct kp_ksyms *k)
{
	for (size_t i = 0; i < k->nr_texts; i++)
		free(k->texts[i]);
	free(k->texts);
	free(k->syms);
	k->texts = NULL;
	k->syms = NULL;
	k->nr = k->cap = k->nr_texts = k->cap_texts = k->nr_sorted = 0;
}

void kp_ksyms_release(struct kp_ksyms *k)
{
	settle(k, true);
	drop_table(k);
	for (size_t i = 0; i < k->nr_expects; i++)
		free(k->expects[i].name);
	free(k->expects);
	free(k->from);
	free(k->fallback);
	free(k->dropped);
	free(k->refused);
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
						 .type = after[1], .end = ends,
						 .module = end[-1] == ']', .seq = k->seq++ };
}

/* Parse @len bytes at @text, which @k now owns (with one byte after them for a NUL). */
static void add_owned(struct kp_ksyms *k, char *text, size_t len, bool ends)
{
	char *p = text, *end = text + len;

	KP_GROW(k->syms, k->cap, k->nr + len / 48); /* a line of /proc/kallsyms is 40-60 bytes */
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

/* All of @fd's text (NUL-terminated, *@len bytes), or NULL: empty, or @stop was set. */
static char *read_all(int fd, atomic_bool *stop, size_t *len)
{
	char *text = NULL;
	size_t cap = 0;
	struct stat st;
	ssize_t n;

	*len = 0;
	if (!fstat(fd, &st) && st.st_size > 0 && st.st_size < (1 << 30)) /* a file, not /proc */
		KP_GROW(text, cap, (size_t)st.st_size + 2);
	do { /* big reads: the kernel writes a seq_file a buffer at a time */
		KP_GROW(text, cap, *len + (1 << 20) + 1);
		n = read(fd, text + *len, cap - *len - 1);
		if (n > 0)
			*len += n;
	} while ((n > 0 || (n < 0 && errno == EINTR)) && !(stop && atomic_load(stop)) &&
		 *len < KSYMS_MAX_FILE);
	if ((stop && atomic_load(stop)) || !*len) {
		free(text);
		return NULL;
	}
	text[*len] = '\0';
	return text;
}

static void *load_main(void *arg)
{
	struct kp_ksyms_loader *l = arg;
	size_t len;
	char *text = read_all(l->fd, &l->stop, &len);

	if (text) {
		add_owned(l->k, text, len, false);
		finish(l->k);
	}
	return NULL;
}

/* Open @path, a kallsyms file; one that is there but cannot be read is named in k->refused. */
static int ksyms_open(struct kp_ksyms *k, const char *path)
{
	int fd = kp_open_file(path, KSYMS_MAX_FILE, 0, NULL);

	if (fd < 0 && fd != -ENOENT && fd != -ENOTDIR && !k->refused) {
		const char *why = fd == -EFBIG
					  ? "larger than the 256 MiB kprof reads of a kallsyms file"
					  : kp_strerror(fd);

		k->refused = kp_xmalloc(strlen(path) + strlen(why) + 64);
		sprintf(k->refused, "'%s': %s: no kernel symbols read from it", path, why);
	}
	return fd;
}

/* @path's table, read on this thread (the fallback, once the first did not fit) */
static int read_now(struct kp_ksyms *k, const char *path)
{
	int fd = ksyms_open(k, path);
	size_t len;
	char *text;

	if (fd < 0)
		return fd;
	text = read_all(fd, NULL, &len);
	close(fd);
	if (text)
		add_owned(k, text, len, false);
	finish(k);
	return 0;
}

int kp_ksyms_load(struct kp_ksyms *k, const char *path, const char *fallback)
{
	struct kp_ksyms_loader *l;
	int fd, err;

	settle(k, false);
	fd = ksyms_open(k, path);
	if (fd < 0) {
		err = fd;
		return fallback && !kp_ksyms_load(k, fallback, NULL) ? 0 : err;
	}
	free(k->from);
	k->from = kp_xstrdup(path);
	free(k->fallback);
	k->fallback = fallback ? kp_xstrdup(fallback) : NULL;
	k->unchecked = true;
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

void kp_ksyms_expect(struct kp_ksyms *k, const char *name, uint64_t start, uint64_t end)
{
	size_t i;

	for (i = 0; i < k->nr_expects && strcmp(k->expects[i].name, name); i++)
		;
	if (i == k->nr_expects) { /* a map given again (a later synthesis) is the newer one */
		KP_GROW(k->expects, k->cap_expects, k->nr_expects + 1);
		k->expects[k->nr_expects++].name = kp_xstrdup(name);
	}
	k->expects[i].start = start;
	k->expects[i].end = end;
	k->unchecked = k->from != NULL;
}

static int cmp_expect(const void *a, const void *b)
{
	return strcmp(((const struct kp_ksyms_expect *)a)->name,
		      ((const struct kp_ksyms_expect *)b)->name);
}

/* "[mod]" at the end of @s's name ("fn [mod]"), or NULL */
static const char *module_of(const struct kp_ksym_ent *s)
{
	const char *m = s->module ? strrchr(s->name, '[') : NULL;

	return m && m != s->name && m[-1] == ' ' ? m : NULL;
}

/*
 * Whether the table fits every expectation, in one pass: the modules' (sorted by name) looked
 * up for each module symbol; the reference symbols, a few, compared with each other name.
 */
static bool fits(struct kp_ksyms *k)
{
	bool *seen = kp_xcalloc(k->nr_expects, sizeof(*seen)), ok = true;
	struct kp_ksyms_expect key, *e = k->expects;
	size_t nr_refs = 0;

	for (size_t i = 0; i < k->nr_expects; i++) { /* the references first, then the modules */
		if (e[i].name[0] != '[') {
			key = e[nr_refs];
			e[nr_refs++] = e[i];
			e[i] = key;
		}
	}
	qsort(e + nr_refs, k->nr_expects - nr_refs, sizeof(*e), cmp_expect);
	for (size_t i = 0; ok && i < k->nr; i++) {
		const struct kp_ksym_ent *s = &k->syms[i];
		const char *m = module_of(s);
		const struct kp_ksyms_expect *hit;

		if (s->end)
			continue;
		if (!m) { /* a name can be had twice: one at the address will do */
			for (size_t r = 0; r < nr_refs; r++)
				if (s->name[0] == e[r].name[0] && s->addr == e[r].start &&
				    !strcmp(s->name, e[r].name))
					seen[r] = true;
			continue;
		}
		key.name = (char *)m;
		hit = bsearch(&key, e + nr_refs, k->nr_expects - nr_refs, sizeof(*e), cmp_expect);
		if (!hit)
			continue;
		ok = s->addr >= hit->start && s->addr < hit->end; /* all of them in its range */
		seen[hit - e] = true;
	}
	for (size_t i = 0; ok && i < k->nr_expects; i++)
		ok = seen[i];
	free(seen);
	return ok;
}

/* A file's table that does not fit the recording is dropped, for the fallback's if any. */
static void check(struct kp_ksyms *k)
{
	while (k->unchecked) {
		if (k->nr_sorted != k->nr)
			finish(k);
		if (fits(k)) {
			k->unchecked = false;
			return;
		}
		drop_table(k);
		if (!k->dropped)
			k->dropped = k->from;
		else
			free(k->from);
		k->from = k->fallback;
		k->fallback = NULL;
		k->unchecked = k->from && read_now(k, k->from) == 0;
		if (!k->unchecked) {
			free(k->from);
			k->from = NULL;
		}
	}
}

const char *kp_ksyms_source(struct kp_ksyms *k, const char **dropped)
{
	settle(k, false);
	if (dropped)
		*dropped = k->dropped;
	return k->from;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct kp_ksym_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end) /* names first: an address stored as both is named */
		return x->end ? 1 : -1;
	/* the alias perf names first: the last listed, the only one whose end perf sets past
	 * its start (symbols__fixup_end() before symbols__fixup_duplicate(), whose first rule
	 * is a non-zero size) */
	return x->seq == y->seq ? 0 : x->seq > y->seq ? -1 : 1;
}

static bool addr_order(const struct kp_ksym_ent *e, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (e[i - 1].addr > e[i].addr)
			return false;
	return true;
}

static void sort_ents(struct kp_ksym_ent *e, size_t n)
{
	if (n > 1 && !addr_order(e, n)) { /* /proc/kallsyms is, but for its modules */
		qsort(e, n, sizeof(*e), cmp_ent);
		return;
	}
	/* in address order: each address's aliases put in order, a few at a time */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && e[j].addr == e[i].addr; j++)
			;
		if (j - i > 1)
			qsort(e + i, j - i, sizeof(*e), cmp_ent);
	}
}

/* Merge the ordered @e[@p, @n) into the ordered @e[0, @p), those first where they tie. */
static void merge_tail(struct kp_ksym_ent *e, size_t p, size_t n)
{
	size_t t = n - p, i = p, j = t, w = n;
	struct kp_ksym_ent *tail = kp_xmalloc(t * sizeof(*tail));

	memcpy(tail, e + p, t * sizeof(*tail));
	while (j) /* from the back: each slot written is one already read */
		e[--w] = i && cmp_ent(&e[i - 1], &tail[j - 1]) > 0 ? e[--i] : tail[--j];
	free(tail);
}

/*
 * Sort, and drop the lines stored twice (the same symbol can be written by several rounds, as
 * an end, then as a name); ends after a name at their address are of no use. A recording's
 * lines come a round at a time with lookups between: only those added since the last time
 * are sorted, then merged in.
 */
static void finish(struct kp_ksyms *k)
{
	size_t out = 0, p = k->nr_sorted;

	sort_ents(k->syms + p, k->nr - p);
	if (p && p < k->nr)
		merge_tail(k->syms, p, k->nr);
	for (size_t i = 0; i < k->nr; i++) {
		if (out && k->syms[out - 1].addr == k->syms[i].addr &&
		    (k->syms[i].end || !strcmp(k->syms[out - 1].name, k->syms[i].name)))
			continue;
		k->syms[out++] = k->syms[i];
	}
	k->nr = k->nr_sorted = out;
}

const struct kp_ksym_ent *kp_ksyms_find(struct kp_ksyms *k, uint64_t addr)
{
	size_t lo;

	settle(k, false);
	if (k->nr_sorted != k->nr)
		finish(k);
	if (!k->nr || addr < k->syms[0].addr)
		return NULL;
	lo = KP_FIRST_ABOVE(k->syms, k->nr, addr, addr) - 1; /* the last at or below @addr */
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

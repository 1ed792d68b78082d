/* SPDX-License-Identifier: MIT */
#include "kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/rec.h"
#include "formats/util.h"
#include "report/base/search.h"

static int read_file(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	err = kp_read_fd(fd, buf, len);
	close(fd);
	return err;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct kp_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off; /* aliases as listed: see below */
}

/* Index every line "ADDR TYPE NAME[\t[MODULE]]\n" by address. */
static void index_lines(struct kp_kallsyms *k)
{
	size_t cap = 0, pos = 0;

	while (pos < k->len) {
		char *nl = memchr(k->text + pos, '\n', k->len - pos), *end;
		size_t line_end = nl ? (size_t)(nl - k->text) + 1 : k->len;
		uint64_t addr = strtoull(k->text + pos, &end, 16);
		if (end != k->text + pos && addr) {
			KP_GROW(k->syms, cap, k->nr + 1);
			k->syms[k->nr++] = (struct kp_ksym){ addr, pos, line_end - pos };
		}
		pos = line_end;
	}
	if (k->nr > 1)
		qsort(k->syms, k->nr, sizeof(*k->syms), cmp_sym);
	k->lo = k->nr ? k->syms[0].addr : UINT64_MAX;
	k->marked = kp_xcalloc(k->nr + 1, 1);
	k->pending = kp_xcalloc(k->nr + 1, sizeof(*k->pending));
	memset(k->cache_addr, 0, sizeof(k->cache_addr));
}

enum { NONE, NAME_PENDING, NAME_WRITTEN, END_PENDING, END_WRITTEN };

static void mark_text(struct kp_kallsyms *k);

bool kp_kallsyms_read(struct kp_kallsyms *k)
{
	memset(k, 0, sizeof(*k));
	if (read_file("/proc/kallsyms", &k->text, &k->len) < 0 || !k->len) {
		k->state = "unreadable";
		return false;
	}
	/* without privileges every address reads as zero: such a table names nothing */
	if (k->len < 17 || !strncmp(k->text, "0000000000000000", 16)) {
		k->state = "addresses hidden (kptr_restrict or perf_event_paranoid)";
		free(k->text);
		k->text = NULL;
		k->len = 0;
		return false;
	}
	index_lines(k);
	mark_text(k);
	k->state = "symbols hit by samples";
	return true;
}

/* Symbol @i names kernel addresses: its line is written as a name (once). */
static void mark(struct kp_kallsyms *k, size_t i)
{
	uint8_t *m = &k->marked[i];

	if (i >= k->nr || *m == NAME_PENDING || *m == NAME_WRITTEN)
		return;
	if (*m != END_PENDING) /* else it is on the list already */
		k->pending[k->nr_pending++] = i;
	*m = NAME_PENDING;
}

/* Symbol @i ends the one before it: its line is written as an end, unless it is a name. */
static void mark_end(struct kp_kallsyms *k, size_t i)
{
	if (i < k->nr && k->marked[i] == NONE) {
		k->marked[i] = END_PENDING;
		k->pending[k->nr_pending++] = i;
	}
}

/*
 * `_text` is stored whatever the samples hit, as an end (it names nothing): perf relocates its
 * kernel map by it, so `kprof convert --to perf` needs it.
 */
static void mark_text(struct kp_kallsyms *k)
{
	for (size_t i = 0; i < k->nr; i++) {
		const char *line = k->text + k->syms[i].off;
		size_t n = k->syms[i].len;

		if (n > 7 && !memcmp(line + n - 7, " _text\n", 7)) {
			mark_end(k, i);
			return;
		}
	}
}

static void hit(struct kp_kallsyms *k, uint64_t addr)
{
	size_t slot = (addr >> 2) & (ARRAY_SIZE(k->cache_addr) - 1), lo, first;

	if (addr < k->lo || addr >= PERF_CONTEXT_MAX || k->cache_addr[slot] == addr)
		return;
	lo = KP_FIRST_ABOVE(k->syms, k->nr, addr, addr); /* the last symbol at or below addr */
	lo = lo ? lo - 1 : 0;
	/* every alias at that address, in the order /proc/kallsyms lists them: the report picks
	 * the name perf picks among them, which depends on it */
	for (first = lo; first > 0 && k->syms[first - 1].addr == k->syms[lo].addr; first--)
		;
	for (size_t i = first; i <= lo; i++)
		mark(k, i);
	mark_end(k, lo + 1);
	k->cache_addr[slot] = addr;
	k->cache_idx[slot] = lo;
}

void kp_kallsyms_scan(struct kp_kallsyms *k, const struct kp_evlist *evl, const void *recs,
		      size_t len)
{
	const struct kp_rec_header *h;
	const struct kp_evsel *ev;
	struct kp_sample s;

	if (!k->nr)
		return;
	for (size_t pos = 0; (h = kp_rec_next(recs, len, &pos));) {
		/* an event that records no address (kprof trace's) is not parsed at all */
		if (h->type != PERF_RECORD_SAMPLE || !(ev = kp_evlist_find(evl, h)) ||
		    !(ev->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN)) ||
		    kp_rec_parse_sample(&ev->attr, h, &s))
			continue;
		hit(k, s.ip);
		/* reports look return addresses up at address - 1, which can be the function
		 * before when the call was its last instruction: keep that symbol too */
		for (uint64_t i = 0; i < s.nr_callchain; i++) {
			hit(k, s.callchain[i]);
			hit(k, s.callchain[i] - 1);
		}
	}
}

/* The pending lines in state @from, as KALLSYMS records with @misc; they move to @to. */
static void flush_state(struct kp_kallsyms *k, struct kp_writer *w, uint8_t from, uint8_t to,
			uint16_t misc)
{
	const size_t max = KP_REC_MAX_SIZE - sizeof(struct kp_rec_kallsyms);
	char buf[KP_REC_MAX_SIZE];
	size_t n = 0;

	for (size_t j = 0; j < k->nr_pending; j++) {
		const struct kp_ksym *s = &k->syms[k->pending[j]];
		if (k->marked[k->pending[j]] != from)
			continue;
		if (n + s->len > max) {
			kp_writer_add_kallsyms(w, buf, n, misc);
			n = 0;
		}
		memcpy(buf + n, k->text + s->off, s->len);
		n += s->len;
		k->marked[k->pending[j]] = to;
		k->written++;
	}
	if (n)
		kp_writer_add_kallsyms(w, buf, n, misc);
}

void kp_kallsyms_flush(struct kp_kallsyms *k, struct kp_writer *w)
{
	flush_state(k, w, NAME_PENDING, NAME_WRITTEN, 0);
	flush_state(k, w, END_PENDING, END_WRITTEN, KP_KALLSYMS_MISC_ENDS);
	k->nr_pending = 0;
}

void kp_kallsyms_restart(struct kp_kallsyms *k)
{
	if (!k->nr)
		return; /* none read, or --all-kallsyms, which writes the whole table each time */
	memset(k->marked, NONE, k->nr + 1);
	memset(k->cache_addr, 0, sizeof(k->cache_addr));
	k->nr_pending = 0;
	mark_text(k);
}

void kp_kallsyms_write_all(struct kp_kallsyms *k, struct kp_writer *w)
{
	kp_writer_add_kallsyms(w, k->text, k->len, 0);
	k->written = k->nr;
	k->nr = 0; /* nothing left to mark */
	k->nr_pending = 0; /* nor to write: _text is in the table */
	k->state = "full snapshot";
}

void kp_kallsyms_release(struct kp_kallsyms *k)
{
	free(k->text);
	free(k->syms);
	free(k->marked);
	free(k->pending);
	memset(k, 0, sizeof(*k));
}

/* SPDX-License-Identifier: MIT */
/* Writer to reader: every record type, any chunking, every level; unknown types skipped. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/reader.h"
#include "formats/util.h"
#include "synth.h"
#include "tests/tap.h"

/* Read @fd back and compare every record with what synth wrote. */
static int threaded;

static void check_file(struct synth *s, int fd, const char *what)
{
	struct kp_reader r;
	const struct kp_rec_header *rec;
	size_t pos = 0, n = 0;
	int rc, same = 1;

	ok(kp_reader_open_fd(&r, fd) == 0 && (!threaded || kp_reader_prefetch(&r) == 0),
	   "%s: header accepted%s", what, threaded ? " (reading ahead)" : "");
	while ((rc = kp_reader_next(&r, &rec)) > 0) {
		if (pos + rec->size > s->len || memcmp(s->recs + pos, rec, rec->size))
			same = 0;
		pos += rec->size;
		n++;
	}
	ok(rc == 0, "%s: clean end of file (%s)", what, kp_strerror(rc));
	is_u64(n, s->nrec, "%s: every record read back", what);
	ok(same && pos == s->len, "%s: every record byte-identical", what);
	is_u64(r.chunks, s->nr_chunks, "%s: chunk count", what);
	kp_reader_release(&r);
}

static void roundtrip(unsigned nsamples, unsigned per_chunk, int level)
{
	struct synth s;
	char what[64];
	int fd = memfd_create("rt", 0);

	snprintf(what, sizeof(what), "%u samples, %u per chunk, level %d", nsamples, per_chunk,
		 level);
	ok(synth_file(&s, fd, nsamples, per_chunk, level) == 0, "%s: written", what);
	check_file(&s, fd, what);
	synth_release(&s);
	close(fd);
}

/* Records the reader keeps where they are: each handed out, with a copy to check it against. */
struct held {
	const struct kp_rec_header *rec[4096];
	uint8_t *copy[4096];
	size_t n, dropped, drops, early;
	uint64_t chunk[4096];	/* the reader's chunk count when it was handed out */
	const struct kp_reader *r;
};

static void held_drop(struct held *h, size_t i)
{
	free(h->copy[i]);
	h->rec[i] = h->rec[--h->n];
	h->copy[i] = h->copy[h->n];
	h->chunk[i] = h->chunk[h->n];
}

/* The reader drops [buf, buf + len): nothing of it may be from the last two chunks read. */
static void dropping(void *ctx, const uint8_t *buf, size_t len)
{
	struct held *h = ctx;

	h->drops++;
	for (size_t i = 0; i < h->n;) {
		const uint8_t *p = (const uint8_t *)h->rec[i];

		if (p >= buf && p < buf + len) {
			/* handed out in chunk c, it is dropped for chunk c + 2 at the earliest,
			 * when the reader has counted c + 1 */
			h->early += h->chunk[i] + 1 > h->r->chunks;
			h->dropped++;
			held_drop(h, i);
		} else {
			i++;
		}
	}
}

/*
 * kp_reader_keep_previous(): every record stays as it was handed out until the callback
 * drops the memory it is in, which happens only once the reader is two chunks further on.
 */
static void keep_previous(unsigned nsamples, unsigned per_chunk)
{
	static struct held h;
	struct synth s;
	struct kp_reader r;
	const struct kp_rec_header *rec;
	size_t n = 0, changed = 0, kept = 0;
	int rc, fd = memfd_create("keep", 0);

	memset(&h, 0, sizeof(h));
	h.r = &r;
	synth_file(&s, fd, nsamples, per_chunk, 1);
	ok(kp_reader_open_fd(&r, fd) == 0 && (!threaded || kp_reader_prefetch(&r) == 0),
	   "kept records: open%s", threaded ? " (reading ahead)" : "");
	kp_reader_keep_previous(&r, dropping, &h);
	while ((rc = kp_reader_next(&r, &rec)) > 0 && h.n < ARRAY_SIZE(h.rec)) {
		kept += kp_reader_keeps(&r);
		h.rec[h.n] = rec;
		h.copy[h.n] = kp_xmalloc(rec->size);
		memcpy(h.copy[h.n], rec, rec->size);
		h.chunk[h.n++] = r.chunks;
		for (size_t i = 0; i < h.n; i++)
			changed += memcmp(h.rec[i], h.copy[i], h.rec[i]->size) != 0;
		n++;
	}
	ok(rc == 0 && n == s.nrec && kept == n, "kept records: all %zu read and kept (%s)", n,
	   kp_strerror(rc));
	ok(h.drops >= s.nr_chunks - 2 && h.dropped > 0,
	   "kept records: %zu chunks' memory dropped, %zu records in it", h.drops, h.dropped);
	is_u64(changed + h.early, 0, "kept records: none changed or dropped within two chunks");
	while (h.n)
		held_drop(&h, 0);
	kp_reader_release(&r);
	synth_release(&s);
	close(fd);
}

/* Records of types kprof does not know are skipped and counted, not fatal. */
static void unknown_types(void)
{
	struct synth s;
	struct kp_reader r;
	const struct kp_rec_header *rec;
	uint64_t unk[3] = { 0 };
	size_t n = 0;
	int fd = memfd_create("unk", 0);

	memset(&s, 0, sizeof(s));
	kp_writer_init(&s.w, fd, 1, 0);
	((struct kp_rec_header *)unk)->type = 40; /* a future kernel type */
	((struct kp_rec_header *)unk)->size = 24;
	kp_writer_add(&s.w, unk);
	((struct kp_rec_header *)unk)->type = 200; /* a future kprof type */
	kp_writer_add(&s.w, unk);
	kp_writer_add_meta(&s.w, "k", "v");
	kp_writer_close(&s.w);
	kp_reader_open_fd(&r, fd);
	while (kp_reader_next(&r, &rec) > 0)
		n++;
	ok(n == 1 && r.nr_unknown == 2 && r.err == 0,
	   "two unknown records skipped and counted, the known one read");
	kp_reader_release(&r);
	close(fd);
}

/* A kallsyms text larger than a record is split at line ends and joins back exactly. */
static void kallsyms_split(void)
{
	struct kp_writer w;
	struct kp_reader r;
	const struct kp_rec_header *rec;
	size_t len = 300000, got = 0, nrec = 0;
	char *text = malloc(len), *back = calloc(1, len);
	int fd = memfd_create("ks", 0), seq_ok = 1;

	for (size_t i = 0; i < len; i++)
		text[i] = i % 37 == 36 ? '\n' : 'a' + i % 26;
	kp_writer_init(&w, fd, 3, 0);
	kp_writer_add_kallsyms(&w, text, len, 0);
	kp_writer_close(&w);
	kp_reader_open_fd(&r, fd);
	while (kp_reader_next(&r, &rec) > 0) {
		const struct kp_rec_kallsyms *k = (const void *)rec;
		if (k->seq != nrec++ || got + k->len > len)
			seq_ok = 0;
		else
			memcpy(back + got, k + 1, k->len);
		got += k->len;
	}
	ok(seq_ok && got == len && !memcmp(text, back, len) && nrec >= 5,
	   "a 300 kB text splits into %zu records and joins back", nrec);
	kp_reader_release(&r);
	free(text);
	free(back);
	close(fd);
}

int main(void)
{
	ok(kp_crc32c(0, "123456789", 9) == 0xe3069283u, "CRC-32C of '123456789' is the standard check");
	ok(kp_crc32c(kp_crc32c(0, "1234", 4), "56789", 5) == 0xe3069283u,
	   "CRC-32C continues across calls");
	roundtrip(0, 0, 1);
	roundtrip(100, 0, 1);
	roundtrip(100, 1, 1);
	roundtrip(1000, 7, 1);
	roundtrip(20000, 5000, 1);
	roundtrip(1000, 100, -5);
	roundtrip(1000, 100, 19);
	threaded = 1;
	roundtrip(20000, 500, 1);
	roundtrip(100, 1, 1);
	keep_previous(3000, 200);
	threaded = 0;
	keep_previous(3000, 200);
	unknown_types();
	kallsyms_split();
	return tap_done();
}

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
	threaded = 0;
	unknown_types();
	kallsyms_split();
	return tap_done();
}

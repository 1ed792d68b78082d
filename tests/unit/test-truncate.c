/* SPDX-License-Identifier: MIT */
/*
 * A file cut at every byte offset reads back the chunks before the cut, then what the torn chunk
 * holds in its complete zstd blocks, and says "truncated": no more than one block of records is
 * lost, and every record read is the one written. A damaged chunk is skipped and the chunks
 * after it are read; corrupt sizes, checksums, versions and byte orders get their own errors.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/reader.h"
#include "formats/util.h"
#include "formats/writer.h"
#include "synth.h"
#include "tests/tap.h"

struct image {
	uint8_t *data;
	size_t len;
};

static void load(int fd, struct image *img)
{
	img->len = lseek(fd, 0, SEEK_END);
	img->data = malloc(img->len);
	if (pread(fd, img->data, img->len, 0) != (ssize_t)img->len)
		abort();
}

static int threaded; /* read with kp_reader_prefetch() */

/*
 * Read @len bytes of @data as a file; returns the records read and the final status. *@same
 * says whether they are, byte for byte, the first ones @s wrote (NULL: not checked), and
 * *@r_out (when given) is what the reader counted.
 */
static size_t read_image_as(const uint8_t *data, size_t len, int *status, const struct synth *s,
			    bool *same, struct kp_reader *r_out)
{
	struct kp_reader r;
	const struct kp_rec_header *rec;
	size_t n = 0, pos = 0;
	int fd = memfd_create("cut", 0), rc;

	if (same)
		*same = true;
	if (write(fd, data, len) != (ssize_t)len)
		abort();
	rc = kp_reader_open_fd(&r, fd);
	if (!rc && threaded)
		rc = kp_reader_prefetch(&r);
	if (!rc)
		while ((rc = kp_reader_next(&r, &rec)) > 0) {
			if (same && (pos + rec->size > s->len || memcmp(s->recs + pos, rec, rec->size)))
				*same = false;
			pos += rec->size;
			n++;
		}
	*status = rc;
	if (r_out)
		*r_out = r;
	kp_reader_release(&r);
	close(fd);
	return n;
}

static size_t read_image(const uint8_t *data, size_t len, int *status)
{
	return read_image_as(data, len, status, NULL, NULL, NULL);
}

/* Offsets where chunks end, from the chunk headers themselves. */
static size_t chunk_ends(const struct image *img, uint64_t *ends, size_t max)
{
	size_t n = 0;
	uint64_t off = sizeof(struct kp_file_header);

	while (off < img->len && n < max) {
		struct kp_chunk_header h;
		memcpy(&h, img->data + off, sizeof(h)); /* chunks are not 8-aligned in the file */
		off += sizeof(h) + h.csize;
		ends[n++] = off;
	}
	return n;
}

/* Records of @s before byte @raw of the records of chunk @k (0: the first chunk). */
static size_t records_before(const struct synth *s, size_t k, size_t raw)
{
	size_t first = k ? s->chunk_end[k - 1] : 0, n = first, pos = 0, i;

	for (i = 0; i < first; i++)
		pos += ((const struct kp_rec_header *)(s->recs + pos))->size;
	for (size_t start = pos; n < s->chunk_end[k]; n++) {
		size_t size = ((const struct kp_rec_header *)(s->recs + pos))->size;
		if (pos + size - start > raw)
			break;
		pos += size;
	}
	return n;
}

/* Bytes of records chunk @k holds. */
static size_t chunk_raw(const struct image *img, size_t k)
{
	uint64_t off = sizeof(struct kp_file_header);
	struct kp_chunk_header h;

	for (size_t i = 0; i <= k; i++) {
		memcpy(&h, img->data + off, sizeof(h)); /* chunks are not 8-aligned in the file */
		off += sizeof(h) + h.csize;
	}
	return h.usize;
}

static void every_cut(struct synth *s, const struct image *img)
{
	uint64_t ends[256];
	size_t nends = chunk_ends(img, ends, 256), bad = 0, k = 0, last = 0;

	ok(nends == s->nr_chunks && nends >= 5, "the test file has %zu chunks", nends);
	for (size_t cut = 0; cut < img->len; cut++) {
		int st;
		bool same;
		size_t n = read_image_as(img->data, cut, &st, s, &same, NULL);
		while (k < nends && ends[k] <= cut)
			k++;
		size_t lo = k ? s->chunk_end[k - 1] : 0, hi = k < nends ? s->chunk_end[k] : lo;
		bool at_end = cut == sizeof(struct kp_file_header) || (k && ends[k - 1] == cut);
		int want_st = cut < 8 ? -KP_EBADMAGIC : at_end ? 0 : -KP_ETRUNCATED;
		/* at least the complete chunks, at most the torn one's records, never fewer than
		 * a shorter cut gave, and each one as written */
		if (st != want_st || n < lo || n > hi || (at_end && n != lo) || n < last || !same) {
			if (bad++ < 5)
				printf("# cut at %zu: %zu records, status %d; want %zu-%zu, %d%s\n", cut,
				       n, st, lo, hi, want_st, same ? "" : ", not as written");
		}
		if (n > last)
			last = n;
	}
	ok(bad == 0, "all %zu cuts read their complete chunks and what the torn one holds, as "
	   "written, then report the truncation%s", img->len,
	   threaded ? " (reading ahead in a thread)" : "");
}

/*
 * A chunk of many zstd blocks cut anywhere in its frame: every record in the blocks before the
 * cut comes back. Cut one byte short of its end, it loses at most its last block of records.
 */
static void torn_blocks(void)
{
	struct synth s;
	struct image img;
	struct kp_reader r;
	int fd = memfd_create("torn", 0), st;
	uint64_t ends[8], start;
	size_t n, want, raw, k, prev;
	bool same;

	synth_file(&s, fd, 4000, 0, 1);
	load(fd, &img);
	k = chunk_ends(&img, ends, 8) - 1; /* the last chunk: the records, after the metadata */
	start = k ? ends[k - 1] : sizeof(struct kp_file_header);
	prev = k ? s.chunk_end[k - 1] : 0;
	raw = chunk_raw(&img, k);
	ok(raw > 8 * KP_WRITER_BLOCK, "the torn chunk holds %zu bytes of records, %zu blocks", raw,
	   raw / KP_WRITER_BLOCK + 1);
	n = read_image_as(img.data, ends[k] - 1, &st, &s, &same, &r);
	want = records_before(&s, k, (raw - 1) / KP_WRITER_BLOCK * KP_WRITER_BLOCK);
	ok(st == -KP_ETRUNCATED && same && n >= want && n < s.chunk_end[k],
	   "cut one byte short: %zu of its %zu records come back (at least %zu), as written",
	   n - prev, s.chunk_end[k] - prev, want - prev);
	is_u64(r.salvaged, n - prev, "the reader counts the records it recovered");
	n = read_image_as(img.data, start + (ends[k] - start) / 2, &st, &s, &same, NULL);
	ok(st == -KP_ETRUNCATED && same && n > prev,
	   "cut in the middle: %zu records of the torn chunk come back", n - prev);
	free(img.data);
	synth_release(&s);
	close(fd);
}

static void set_csize(uint8_t *chunk, uint64_t csize)
{
	memcpy(chunk + offsetof(struct kp_chunk_header, csize), &csize, sizeof(csize));
}

static void corrupt(struct synth *s, const struct image *img)
{
	uint8_t *copy = malloc(img->len);
	uint64_t ends[256];
	size_t nends = chunk_ends(img, ends, 256), first_end = ends[0], n, bad = 0;
	int st;

	/* every byte of the second chunk, flipped: an error, the first chunk still reads, and a
	 * flipped payload byte costs that chunk alone */
	for (size_t off = first_end; off < ends[1]; off++) {
		size_t want = s->nrec - (s->chunk_end[1] - s->chunk_end[0]);
		memcpy(copy, img->data, img->len);
		copy[off] ^= 0x5a;
		n = read_image(copy, img->len, &st);
		if (st >= 0 || n != want ||
		    (off >= first_end + sizeof(struct kp_chunk_header) && st != -KP_ECHECKSUM))
			bad++;
	}
	ok(bad == 0, "each corrupted byte of a chunk, its header's too, fails that chunk alone: "
	   "the chunks before it and after it read back");

	memcpy(copy, img->data, img->len);
	set_csize(copy + first_end, 1ull << 40);
	read_image(copy, img->len, &st);
	ok(st == -KP_ECHUNK, "a chunk size of 1 TiB is refused before allocating");
	memcpy(copy, img->data, img->len);
	set_csize(copy + first_end, (ends[1] - first_end) + (1u << 20));
	n = read_image(copy, img->len, &st);
	ok(st == -KP_ECHUNK && n == s->nrec - (s->chunk_end[1] - s->chunk_end[0]),
	   "a chunk size past the end of the file, with whole chunks after it, costs that chunk "
	   "alone");
	memcpy(copy, img->data, img->len);
	set_csize(copy + ends[nends - 2], (ends[nends - 1] - ends[nends - 2]) + (1u << 20));
	read_image(copy, img->len, &st);
	ok(st == -KP_ETRUNCATED, "the last chunk's size past the end of the file is a truncation");
	memcpy(copy, img->data, img->len);
	copy[ends[1] - 1] ^= 1;
	{
		struct kp_reader r;
		n = read_image_as(copy, img->len, &st, NULL, NULL, &r);
		ok(st == -KP_ECHECKSUM && r.skipped == 1 && r.skip_off == first_end &&
		   n == s->nrec - (s->chunk_end[1] - s->chunk_end[0]),
		   "a flipped payload byte is a checksum error at its chunk's offset, read past");
	}

	memcpy(copy, img->data, img->len);
	((struct kp_file_header *)copy)->version = KP_FORMAT_VERSION + 1;
	read_image(copy, img->len, &st);
	ok(st == -KP_EVERSION, "a newer format version is named as such");
	memcpy(copy, img->data, img->len);
	((struct kp_file_header *)copy)->endian = __builtin_bswap32(KP_ENDIAN_MARK);
	read_image(copy, img->len, &st);
	ok(st == -KP_EENDIAN, "a foreign byte order is named as such");
	memcpy(copy, img->data, img->len);
	((struct kp_file_header *)copy)->incompat = 1;
	read_image(copy, img->len, &st);
	ok(st == -KP_EFEATURE, "an unknown incompatible feature is refused");
	memcpy(copy, img->data, img->len);
	copy[0] = 'X';
	read_image(copy, img->len, &st);
	ok(st == -KP_EBADMAGIC, "a bad magic is not a kprof file");
	free(copy);
}

int main(void)
{
	struct synth s;
	struct image img;
	int fd = memfd_create("trunc", 0);

	synth_file(&s, fd, 60, 12, 1);
	load(fd, &img);
	every_cut(&s, &img);
	corrupt(&s, &img);
	threaded = 1;
	every_cut(&s, &img);
	threaded = 0;
	torn_blocks();
	threaded = 1;
	torn_blocks();
	free(img.data);
	synth_release(&s);
	close(fd);
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/*
 * A file cut at every byte offset reads back exactly the chunks before the cut and then says
 * "truncated"; corrupt sizes, checksums, versions and byte orders are rejected with their error.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/reader.h"
#include "formats/util.h"
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

/* Read @len bytes of @data as a file; returns the records read and the final status. */
static size_t read_image(const uint8_t *data, size_t len, int *status)
{
	struct kp_reader r;
	const struct kp_rec_header *rec;
	size_t n = 0;
	int fd = memfd_create("cut", 0), rc;

	if (write(fd, data, len) != (ssize_t)len)
		abort();
	rc = kp_reader_open_fd(&r, fd);
	if (!rc && threaded)
		rc = kp_reader_prefetch(&r);
	if (!rc)
		while ((rc = kp_reader_next(&r, &rec)) > 0)
			n++;
	*status = rc;
	kp_reader_release(&r);
	close(fd);
	return n;
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

static void every_cut(struct synth *s, const struct image *img)
{
	uint64_t ends[256];
	size_t nends = chunk_ends(img, ends, 256), bad = 0, k = 0;

	ok(nends == s->nr_chunks && nends >= 5, "the test file has %zu chunks", nends);
	for (size_t cut = 0; cut < img->len; cut++) {
		int st;
		size_t n = read_image(img->data, cut, &st), want;
		while (k < nends && ends[k] <= cut)
			k++;
		want = k ? s->chunk_end[k - 1] : 0;
		int want_st = cut < 8 ? -KP_EBADMAGIC
			      : (cut == sizeof(struct kp_file_header) || (k && ends[k - 1] == cut))
				      ? 0
				      : -KP_ETRUNCATED;
		if (n != want || st != want_st) {
			if (bad++ < 5)
				printf("# cut at %zu: %zu records, status %d; want %zu, %d\n", cut, n,
				       st, want, want_st);
		}
	}
	ok(bad == 0, "all %zu cuts read their complete chunks, then report the truncation%s",
	   img->len, threaded ? " (reading ahead in a thread)" : "");
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

	(void)nends;
	/* every byte of the second chunk, flipped: the first chunk still reads, nothing more */
	for (size_t off = first_end; off < ends[1]; off++) {
		memcpy(copy, img->data, img->len);
		copy[off] ^= 0x5a;
		n = read_image(copy, img->len, &st);
		if (n != s->chunk_end[0] || st >= 0)
			bad++;
	}
	ok(bad == 0, "each corrupted byte of a chunk fails it, keeping the chunk before");

	memcpy(copy, img->data, img->len);
	set_csize(copy + first_end, 1ull << 40);
	read_image(copy, img->len, &st);
	ok(st == -KP_ECHUNK, "a chunk size of 1 TiB is refused before allocating");
	memcpy(copy, img->data, img->len);
	set_csize(copy + first_end, (ends[1] - first_end) + (1u << 20));
	read_image(copy, img->len, &st);
	ok(st == -KP_ETRUNCATED, "a chunk size past the end of the file is a truncation");
	memcpy(copy, img->data, img->len);
	copy[ends[1] - 1] ^= 1;
	read_image(copy, img->len, &st);
	ok(st == -KP_ECHECKSUM, "a flipped payload byte is a checksum error");

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
	free(img.data);
	synth_release(&s);
	close(fd);
	return tap_done();
}

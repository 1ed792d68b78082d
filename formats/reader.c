/* SPDX-License-Identifier: MIT */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "rec.h"
#include "util.h"

/* Read exactly @len bytes at @off; -KP_ETRUNCATED if the file ends first. */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -KP_ETRUNCATED;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

static int check_header(const struct kp_file_header *h)
{
	if (memcmp(h->magic, KP_FILE_MAGIC, sizeof(h->magic)))
		return -KP_EBADMAGIC;
	if (h->endian != KP_ENDIAN_MARK)
		return __builtin_bswap32(h->endian) == KP_ENDIAN_MARK ? -KP_EENDIAN : -KP_EBADMAGIC;
	if (h->version > KP_FORMAT_VERSION)
		return -KP_EVERSION;
	if (h->version == 0 || h->header_size < sizeof(*h) || h->header_size % 8)
		return -KP_EBADMAGIC;
	if (h->incompat & ~KP_INCOMPAT_KNOWN)
		return -KP_EFEATURE;
	return 0;
}

int kp_reader_open_fd(struct kp_reader *r, int fd)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	if (fstat(fd, &st) < 0)
		return r->err = -errno;
	r->file_size = st.st_size;
	if (r->file_size < sizeof(r->hdr)) {
		r->err = r->file_size >= sizeof(r->hdr.magic) &&
				 read_at(fd, &r->hdr, sizeof(r->hdr.magic), 0) == 0 &&
				 !memcmp(r->hdr.magic, KP_FILE_MAGIC, sizeof(r->hdr.magic))
			 ? -KP_ETRUNCATED
			 : -KP_EBADMAGIC;
		return r->err;
	}
	r->err = read_at(fd, &r->hdr, sizeof(r->hdr), 0);
	if (!r->err)
		r->err = check_header(&r->hdr);
	if (r->err)
		return r->err;
	r->off = r->hdr.header_size;
	r->dc = ZSTD_createDCtx();
	if (!r->dc)
		r->err = -ENOMEM;
	return r->err;
}

int kp_reader_open(struct kp_reader *r, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0) {
		memset(r, 0, sizeof(*r));
		r->fd = -1;
		return r->err = -errno;
	}
	err = kp_reader_open_fd(r, fd);
	r->own_fd = true;
	return err;
}

/* Check every record of the decompressed chunk before handing out any. */
static int check_records(const uint8_t *buf, size_t len, uint32_t nrec)
{
	size_t pos = 0;
	uint32_t n = 0;

	while (pos < len) {
		const struct kp_rec_header *rec = (const void *)(buf + pos);
		if (kp_rec_validate(rec, len - pos))
			return -KP_ERECORD;
		pos += rec->size;
		n++;
	}
	return n == nrec ? 0 : -KP_ERECORD;
}

static int load_chunk(struct kp_reader *r)
{
	struct kp_chunk_header h;
	uint32_t crc;
	size_t got;
	int err;

	if (r->off + sizeof(h) > r->file_size)
		return -KP_ETRUNCATED;
	err = read_at(r->fd, &h, sizeof(h), r->off);
	if (err)
		return err;
	if (h.magic != KP_CHUNK_MAGIC || h.codec != KP_CODEC_ZSTD || h.usize % 8 ||
	    h.csize == 0 || h.csize > KP_CHUNK_MAX_CSIZE || h.usize > KP_CHUNK_MAX_USIZE ||
	    h.nrec > h.usize / 8)
		return -KP_ECHUNK;
	if (h.csize > r->file_size - r->off - sizeof(h))
		return -KP_ETRUNCATED;
	if (h.csize > r->ccap) {
		free(r->cbuf);
		r->ccap = h.csize;
		r->cbuf = kp_xmalloc(r->ccap);
	}
	err = read_at(r->fd, r->cbuf, h.csize, r->off + sizeof(h));
	if (err)
		return err;
	crc = h.crc;
	h.crc = 0;
#ifndef KP_FUZZING
	/*
	 * Built by the fuzz-reader rule with -DKP_FUZZING: mutated bytes would almost never carry
	 * a matching CRC, and the fuzzer would stop here instead of reaching the decompressor,
	 * record validation and the sample parsers. Every other check stays.
	 */
	if (kp_crc32c(kp_crc32c(0, &h, sizeof(h)), r->cbuf, h.csize) != crc)
		return -KP_ECHECKSUM;
#else
	(void)crc;
#endif
	if (h.usize > r->ucap) {
		free(r->ubuf);
		r->ucap = h.usize;
		r->ubuf = kp_xmalloc(r->ucap);
	}
	got = ZSTD_decompressDCtx(r->dc, r->ubuf, h.usize, r->cbuf, h.csize);
	if (ZSTD_isError(got) || got != h.usize)
		return -KP_EDECOMPRESS;
	err = check_records(r->ubuf, h.usize, h.nrec);
	if (err)
		return err;
	r->pos = 0;
	r->len = h.usize;
	r->off += sizeof(h) + h.csize;
	r->chunks++;
	r->raw_bytes += h.usize;
	return 0;
}

int kp_reader_next(struct kp_reader *r, const struct kp_rec_header **rec)
{
	for (;;) {
		if (r->err)
			return r->err;
		while (r->pos < r->len) {
			const struct kp_rec_header *h = (const void *)(r->ubuf + r->pos);
			r->pos += h->size;
			r->nrec++;
			if (!kp_rec_info_of(h->type)) {
				r->nr_unknown++;
				continue;
			}
			*rec = h;
			return 1;
		}
		if (r->off == r->file_size)
			return 0;
		r->err = load_chunk(r);
		if (r->err)
			r->err_off = r->off;
	}
}

void kp_reader_release(struct kp_reader *r)
{
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dc);
	free(r->cbuf);
	free(r->ubuf);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

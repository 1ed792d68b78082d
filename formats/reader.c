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

/* Load the chunk at @off into @c: bounds, CRC, decompression, records. Pure in the file. */
static int load_chunk(int fd, uint64_t file_size, void *dc, uint64_t off, struct kp_chunk *c)
{
	struct kp_chunk_header h;
	uint32_t crc;
	size_t got;
	int err;

	c->off = off;
	c->len = 0;
	if (off + sizeof(h) > file_size)
		return -KP_ETRUNCATED;
	err = read_at(fd, &h, sizeof(h), off);
	if (err)
		return err;
	if (h.magic != KP_CHUNK_MAGIC || h.codec != KP_CODEC_ZSTD || h.usize % 8 ||
	    h.csize == 0 || h.csize > KP_CHUNK_MAX_CSIZE || h.usize > KP_CHUNK_MAX_USIZE ||
	    h.nrec > h.usize / 8)
		return -KP_ECHUNK;
	if (h.csize > file_size - off - sizeof(h))
		return -KP_ETRUNCATED;
	if (h.csize > c->ccap) {
		free(c->cbuf);
		c->ccap = h.csize;
		c->cbuf = kp_xmalloc(c->ccap);
	}
	err = read_at(fd, c->cbuf, h.csize, off + sizeof(h));
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
	if (kp_crc32c(kp_crc32c(0, &h, sizeof(h)), c->cbuf, h.csize) != crc)
		return -KP_ECHECKSUM;
#else
	(void)crc;
#endif
	if (h.usize > c->ucap) {
		free(c->ubuf);
		c->ucap = h.usize;
		c->ubuf = kp_xmalloc(c->ucap);
	}
	got = ZSTD_decompressDCtx(dc, c->ubuf, h.usize, c->cbuf, h.csize);
	if (ZSTD_isError(got) || got != h.usize)
		return -KP_EDECOMPRESS;
	err = check_records(c->ubuf, h.usize, h.nrec);
	if (err)
		return err;
	c->len = h.usize;
	c->end = off + sizeof(h) + h.csize;
	return 0;
}

/* The read-ahead thread: chunk after chunk, each handed over through the `ahead` slot. */
static void *prefetch_main(void *arg)
{
	struct kp_reader *r = arg;
	uint64_t off = r->off;

	while (off < r->file_size) {
		bool stop;

		pthread_mutex_lock(&r->mu);
		while (r->ahead_state && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		stop = r->stop;
		pthread_mutex_unlock(&r->mu);
		if (stop)
			break;
		int err = load_chunk(r->fd, r->file_size, r->ahead_dc, off, &r->ahead);

		r->ahead.err = err;
		off = r->ahead.end; /* read before handing over: the slot is the reader's after */
		pthread_mutex_lock(&r->mu);
		r->ahead_state = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (err)
			break;
	}
	return NULL;
}

int kp_reader_prefetch(struct kp_reader *r)
{
	int err;

	if (r->threaded || r->err)
		return 0;
	r->ahead_dc = ZSTD_createDCtx();
	if (!r->ahead_dc)
		return -ENOMEM;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	err = pthread_create(&r->worker, NULL, prefetch_main, r);
	if (err) {
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->cv);
		return -err;
	}
	r->threaded = true;
	return 0;
}

/* Take the next chunk: load it here, or wait for the read-ahead thread and swap buffers. */
static int next_chunk(struct kp_reader *r)
{
	struct kp_chunk tmp;

	if (!r->threaded)
		return load_chunk(r->fd, r->file_size, r->dc, r->off, &r->cur);
	pthread_mutex_lock(&r->mu);
	while (!r->ahead_state)
		pthread_cond_wait(&r->cv, &r->mu);
	tmp = r->cur;
	r->cur = r->ahead;
	r->ahead = tmp;
	r->ahead_state = 0;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return r->cur.err;
}

int kp_reader_next(struct kp_reader *r, const struct kp_rec_header **rec)
{
	for (;;) {
		if (r->err)
			return r->err;
		while (r->pos < r->cur.len) {
			const struct kp_rec_header *h = (const void *)(r->cur.ubuf + r->pos);
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
		r->pos = 0;
		r->err = next_chunk(r);
		if (r->err) {
			r->err_off = r->off;
			r->cur.len = 0;
			continue;
		}
		r->off = r->cur.end;
		r->chunks++;
		r->raw_bytes += r->cur.len;
	}
}

static void chunk_release(struct kp_chunk *c)
{
	free(c->cbuf);
	free(c->ubuf);
}

void kp_reader_release(struct kp_reader *r)
{
	if (r->threaded) {
		pthread_mutex_lock(&r->mu);
		r->stop = true;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->worker, NULL);
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->cv);
		ZSTD_freeDCtx(r->ahead_dc);
		chunk_release(&r->ahead);
	}
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dc);
	chunk_release(&r->cur);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

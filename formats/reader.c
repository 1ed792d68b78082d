/* SPDX-License-Identifier: MIT */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "perfdata.h"
#include "rec.h"
#include "util.h"

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

/* A perf.data's error, as the reader says its own: @err at err_off, for why. */
static int perf_failed(struct kp_reader *r, int err, const struct kp_read_err *e)
{
	r->err = e->err;
	r->err_off = e->off;
	r->why = e->why;
	return err;
}

static int perf_open(struct kp_reader *r)
{
	struct kp_read_err e = { 0 };
	int err = kp_perfdata_open(&r->perf, r->fd, r->file_size, &e);

	return err ? perf_failed(r, err, &e) : 0;
}

static int perf_next(struct kp_reader *r, const struct kp_rec_header **rec)
{
	struct kp_read_err e = { 0 };
	int rc = kp_perfdata_next(r->perf, rec, &r->nrec, &r->nr_unknown, &e);

	return rc < 0 ? perf_failed(r, rc, &e) : rc;
}

int kp_reader_open_fd(struct kp_reader *r, int fd)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	if (fstat(fd, &st) < 0)
		return r->err = -errno;
	r->file_size = st.st_size;
	if (r->file_size >= 8 && kp_read_at(fd, &r->hdr, 8, 0) == 0 && kp_perfdata_magic(&r->hdr))
		return perf_open(r);
	if (r->file_size < sizeof(r->hdr)) {
		r->err = r->file_size >= sizeof(r->hdr.magic) &&
				 kp_read_at(fd, &r->hdr, sizeof(r->hdr.magic), 0) == 0 &&
				 !memcmp(r->hdr.magic, KP_FILE_MAGIC, sizeof(r->hdr.magic))
			 ? -KP_ETRUNCATED
			 : -KP_EBADMAGIC;
		return r->err;
	}
	r->err = kp_read_at(fd, &r->hdr, sizeof(r->hdr), 0);
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

/* Check every record of the decompressed chunk before handing out any; *@all_known: whether
 * all are of types kprof knows. A sample, most of them, needs only its framing checked. */
static int check_records(const uint8_t *buf, size_t len, uint32_t nrec, bool *all_known)
{
	size_t pos = 0;
	uint32_t n = 0;

	*all_known = true;
	while (pos < len) {
		const struct kp_rec_header *rec = (const void *)(buf + pos);

		if (!kp_rec_framed(rec, len - pos))
			return -KP_ERECORD;
		if (rec->type != PERF_RECORD_SAMPLE) {
			if (kp_rec_validate(rec, len - pos))
				return -KP_ERECORD;
			*all_known &= kp_rec_info_of(rec->type) != NULL;
		}
		pos += rec->size;
		n++;
	}
	return n == nrec ? 0 : -KP_ERECORD;
}

static void ensure(uint8_t **buf, size_t *cap, size_t need)
{
	if (need > *cap) {
		free(*buf);
		*cap = need;
		*buf = kp_xmalloc(need);
	}
}

/* The whole, valid records at the start of @buf (@len bytes): how many bytes they take. */
static size_t valid_prefix(const uint8_t *buf, size_t len, uint32_t *nrec)
{
	size_t pos = 0;

	*nrec = 0;
	while (pos < len && !kp_rec_validate((const void *)(buf + pos), len - pos)) {
		pos += ((const struct kp_rec_header *)(buf + pos))->size;
		(*nrec)++;
	}
	return pos;
}

/* The most bytes a packed chunk of @usize bytes of records may decompress to. */
static size_t packed_max(uint64_t usize)
{
	return 2 * usize + 4096;
}

/*
 * What zstd's streaming decoder gives of the @avail bytes at @src (a frame cut short) into
 * *@buf, grown as it fills up to @limit bytes: each block comes out as it completes.
 */
static size_t inflate_prefix(void *dc, const uint8_t *src, size_t avail, uint8_t **buf,
			     size_t *cap, size_t limit)
{
	ZSTD_inBuffer in = { src, avail, 0 };
	ZSTD_outBuffer out;

	ensure(buf, cap, limit < (1u << 20) ? (limit ? limit : 8) : (1u << 20));
	out = (ZSTD_outBuffer){ *buf, *cap < limit ? *cap : limit, 0 };
	ZSTD_DCtx_reset(dc, ZSTD_reset_session_only);
	for (;;) {
		size_t before_in = in.pos, before_out = out.pos;
		size_t rc = ZSTD_decompressStream(dc, &out, &in);

		if (ZSTD_isError(rc) || rc == 0)
			break; /* damaged, or (oddly for a torn chunk) the frame's end */
		if (out.pos == out.size && out.size < limit) { /* full: grow, keeping what came */
			size_t grown = out.size * 2 < limit ? out.size * 2 : limit;
			uint8_t *p = kp_xmalloc(grown);

			memcpy(p, *buf, out.pos);
			free(*buf);
			*buf = p;
			*cap = grown;
			out.dst = p;
			out.size = grown;
		} else if (in.pos == before_in && out.pos == before_out) {
			break; /* the rest is a block cut short */
		}
	}
	return out.pos;
}

/*
 * A torn last chunk: the @avail bytes of its frame that the file holds, decompressed as far as
 * they go and, packed, unpacked as far as whole blocks go. @c->len is set to the whole, valid
 * records of what came out; they cannot be checked against the CRC, which covers the whole
 * frame.
 */
static void salvage(int fd, void *dc, const struct kp_chunk_header *h, uint64_t avail,
		    struct kp_chunk *c)
{
	size_t got;
	uint32_t n;

	c->torn = true;
	c->end = c->off + sizeof(*h) + avail;
	ensure(&c->cbuf, &c->ccap, avail ? avail : 1);
	if (!avail || kp_read_at(fd, c->cbuf, avail, c->off + sizeof(*h)))
		return;
	if (h->codec == KP_CODEC_ZSTD) {
		got = inflate_prefix(dc, c->cbuf, avail, &c->ubuf, &c->ucap, h->usize);
	} else {
		size_t plen = inflate_prefix(dc, c->cbuf, avail, &c->pbuf, &c->pcap,
					     packed_max(h->usize));
		ensure(&c->ubuf, &c->ucap, h->usize ? h->usize : 8);
		/* a damaged block ends it as a cut one does: what came before it stands */
		kp_unpack(&c->up, c->pbuf, plen, true, c->ubuf, h->usize, &got, &n);
	}
	c->len = valid_prefix(c->ubuf, got, &n);
	c->nrec = n;
}

/* Decompress the whole frame in c->cbuf (@csize bytes) into the chunk's @usize bytes of records. */
static int inflate_chunk(void *dc, const struct kp_chunk_header *h, struct kp_chunk *c)
{
	unsigned long long plen;
	size_t got;
	uint32_t n;

	ensure(&c->ubuf, &c->ucap, h->usize ? h->usize : 8); /* a buffer even for no records */
	if (h->codec == KP_CODEC_ZSTD) {
		got = ZSTD_decompressDCtx(dc, c->ubuf, h->usize, c->cbuf, h->csize);
		return ZSTD_isError(got) || got != h->usize ? -KP_EDECOMPRESS : 0;
	}
	plen = ZSTD_getFrameContentSize(c->cbuf, h->csize);
	if (plen == ZSTD_CONTENTSIZE_UNKNOWN || plen == ZSTD_CONTENTSIZE_ERROR ||
	    plen > packed_max(h->usize))
		return -KP_EDECOMPRESS;
	ensure(&c->pbuf, &c->pcap, plen ? plen : 1);
	got = ZSTD_decompressDCtx(dc, c->pbuf, plen, c->cbuf, h->csize);
	if (ZSTD_isError(got) || got != plen ||
	    kp_unpack(&c->up, c->pbuf, plen, false, c->ubuf, h->usize, &got, &n) ||
	    got != h->usize || n != h->nrec)
		return -KP_EDECOMPRESS;
	return 0;
}

/*
 * Load the chunk at @off into @c: bounds, CRC, decompression, records. Pure in the file. A
 * failure with @c->end set is the chunk's own (the next one can still be read); a torn last
 * chunk loads as far as it can be read, with @c->torn set.
 */
/* A chunk header whose fields can frame a chunk (its CRC is checked with the payload). */
static bool header_sound(const struct kp_chunk_header *h)
{
	return h->magic == KP_CHUNK_MAGIC &&
	       (h->codec == KP_CODEC_ZSTD || h->codec == KP_CODEC_PACKED) && h->usize % 8 == 0 &&
	       h->csize && h->csize <= KP_CHUNK_MAX_CSIZE && h->usize <= KP_CHUNK_MAX_USIZE &&
	       h->nrec <= h->usize / 8;
}

/* Whether a whole chunk starts at @off: a sound header, its payload in the file, the CRC. */
static bool chunk_at(int fd, uint64_t file_size, uint64_t off, struct kp_chunk *c)
{
	struct kp_chunk_header h;
	uint32_t crc;

	if (kp_read_at(fd, &h, sizeof(h), off) || !header_sound(&h) ||
	    h.csize > file_size - off - sizeof(h))
		return false;
	ensure(&c->cbuf, &c->ccap, h.csize);
	if (kp_read_at(fd, c->cbuf, h.csize, off + sizeof(h)))
		return false;
	crc = h.crc;
	h.crc = 0;
#ifndef KP_FUZZING
	return kp_crc32c(kp_crc32c(0, &h, sizeof(h)), c->cbuf, h.csize) == crc;
#else
	(void)crc;
	return true;
#endif
}

/*
 * The first whole chunk at or after @from (chunk_at()), 0 where there is none: where a
 * chunk's header is damaged, or its size lies, the reading goes on there. The file is scanned
 * for the chunk magic a window at a time; a false match fails the CRC.
 */
static uint64_t next_whole_chunk(int fd, uint64_t file_size, uint64_t from, struct kp_chunk *c)
{
	enum { WINDOW = 1 << 16 };
	const uint32_t magic = KP_CHUNK_MAGIC;
	uint8_t *win = malloc(WINDOW);

	if (!win)
		return 0;
	while (from + sizeof(struct kp_chunk_header) <= file_size) {
		size_t len = file_size - from < WINDOW ? file_size - from : WINDOW;
		const uint8_t *p = win, *end;

		if (kp_read_at(fd, win, len, from))
			break;
		end = win + len;
		while ((p = memmem(p, end - p, &magic, sizeof(magic)))) {
			uint64_t at = from + (p - win);
			if (chunk_at(fd, file_size, at, c)) {
				free(win);
				return at;
			}
			p++;
		}
		/* the next window overlaps this one by the magic's length less one byte */
		if (len < WINDOW)
			break;
		from += len - (sizeof(magic) - 1);
	}
	free(win);
	return 0;
}

static int load_chunk(int fd, uint64_t file_size, void *dc, uint64_t off, struct kp_chunk *c)
{
	struct kp_chunk_header h;
	uint32_t crc;
	int err;

	c->off = off;
	c->len = 0;
	c->end = 0;
	c->nrec = 0;
	c->torn = false;
	c->packed = false;
	c->all_known = false;
	if (off + sizeof(h) > file_size)
		return -KP_ETRUNCATED;
	err = kp_read_at(fd, &h, sizeof(h), off);
	if (err)
		return err;
	if (!header_sound(&h)) {
		c->end = next_whole_chunk(fd, file_size, off + 1, c);
		return -KP_ECHUNK;
	}
	c->nrec = h.nrec;
	c->packed = h.codec == KP_CODEC_PACKED;
	if (h.csize > file_size - off - sizeof(h)) {
		/* a torn last chunk, or a size that lies with whole chunks after it */
		c->end = next_whole_chunk(fd, file_size, off + sizeof(h), c);
		if (c->end) {
			c->nrec = 0;
			return -KP_ECHUNK;
		}
		salvage(fd, dc, &h, file_size - off - sizeof(h), c);
		return 0;
	}
	c->end = off + sizeof(h) + h.csize;
	ensure(&c->cbuf, &c->ccap, h.csize);
	err = kp_read_at(fd, c->cbuf, h.csize, off + sizeof(h));
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
	if (kp_crc32c(kp_crc32c(0, &h, sizeof(h)), c->cbuf, h.csize) != crc) {
		/* the size may be what was damaged: the reading goes on at the next whole chunk */
		uint64_t next = next_whole_chunk(fd, file_size, off + sizeof(h), c);
		if (next)
			c->end = next;
		return -KP_ECHECKSUM;
	}
#else
	(void)crc;
#endif
	err = inflate_chunk(dc, &h, c);
	if (err)
		return err;
	err = check_records(c->ubuf, h.usize, h.nrec, &c->all_known);
	if (err)
		return err;
	c->len = h.usize;
	return 0;
}

/* A chunk whose failure is its own: the reading goes on after it. */
static bool skippable(const struct kp_chunk *c, int err)
{
	return c->end && (err == -KP_ECHECKSUM || err == -KP_EDECOMPRESS || err == -KP_ERECORD ||
			  err == -KP_ECHUNK);
}

/* The read-ahead thread: chunk after chunk, each handed over through the `ahead` ring. */
static void *prefetch_main(void *arg)
{
	struct kp_reader *r = arg;
	uint64_t off = r->off;

	while (off < r->file_size) {
		struct kp_chunk *c;
		bool stop;

		pthread_mutex_lock(&r->mu);
		while (r->nr_ahead == KP_READ_AHEAD && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		stop = r->stop;
		/* the slot after the loaded ones, which stays where it is while the reader takes
		 * them: only this thread fills it */
		c = &r->ahead[(r->ahead_head + r->nr_ahead) % KP_READ_AHEAD];
		pthread_mutex_unlock(&r->mu);
		if (stop)
			break;
		int err = load_chunk(r->fd, r->file_size, r->ahead_dc, off, c);

		bool more = !err || skippable(c, err);

		c->err = err;
		off = c->end; /* read before handing over: the slot is the reader's after */
		pthread_mutex_lock(&r->mu);
		r->nr_ahead++;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (!more)
			break;
	}
	return NULL;
}

int kp_reader_prefetch(struct kp_reader *r)
{
	int err;

	if (r->threaded || r->err || r->perf)
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

void kp_reader_keep_previous(struct kp_reader *r,
			     void (*dropping)(void *ctx, const uint8_t *buf, size_t len), void *ctx)
{
	r->dropping = dropping;
	r->dropping_ctx = ctx;
}

/*
 * The buffers the next chunk is loaded into: those of the current one; when records are
 * kept, those of the one before it, which the current one replaces, its records dropped.
 */
static struct kp_chunk *spare_chunk(struct kp_reader *r)
{
	struct kp_chunk tmp;

	if (!r->dropping)
		return &r->cur;
	if (r->prev.len)
		r->dropping(r->dropping_ctx, r->prev.ubuf, r->prev.len);
	tmp = r->prev;
	r->prev = r->cur;
	r->cur = tmp;
	r->cur.len = 0;
	return &r->cur;
}

/* Take the next chunk: load it here, or wait for the read-ahead thread's oldest and swap
 * buffers with it. */
static int next_chunk(struct kp_reader *r)
{
	struct kp_chunk tmp, *spare = spare_chunk(r);

	if (!r->threaded)
		return load_chunk(r->fd, r->file_size, r->dc, r->off, spare);
	pthread_mutex_lock(&r->mu);
	while (!r->nr_ahead)
		pthread_cond_wait(&r->cv, &r->mu);
	tmp = *spare;
	r->cur = r->ahead[r->ahead_head];
	r->ahead[r->ahead_head] = tmp;
	r->ahead_head = (r->ahead_head + 1) % KP_READ_AHEAD;
	r->nr_ahead--;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return r->cur.err;
}

/* The end of the file, once every record before it was handed out: clean, torn or damaged. */
static int at_end(struct kp_reader *r)
{
	if (r->cur.torn) {
		r->err_off = r->cur.off;
		return r->err = -KP_ETRUNCATED;
	}
	if (r->skipped) {
		r->err_off = r->skip_off;
		return r->err = r->skip_err;
	}
	return 0;
}

int kp_reader_next(struct kp_reader *r, const struct kp_rec_header **rec)
{
	int err;

	if (r->perf)
		return perf_next(r, rec);
	for (;;) {
		if (r->err)
			return r->err;
		while (r->pos < r->cur.len) {
			const struct kp_rec_header *h = (const void *)(r->cur.ubuf + r->pos);
			uint32_t chain = r->cur.packed ? r->cur.up.chains[r->idx] : 0;

			r->chain_id = chain ? r->chunks << 32 | chain : 0;
			r->pos += h->size;
			r->idx++;
			r->nrec++;
			if (r->cur.torn)
				r->salvaged++;
			if (!r->cur.all_known && !kp_rec_info_of(h->type)) {
				r->nr_unknown++;
				continue;
			}
			*rec = h;
			return 1;
		}
		if (r->off >= r->file_size)
			return at_end(r);
		r->pos = 0;
		r->idx = 0;
		err = next_chunk(r);
		if (err && skippable(&r->cur, err)) {
			if (!r->skipped++) {
				r->skip_err = err;
				r->skip_off = r->off;
			}
			r->skipped_records += r->cur.nrec;
			r->skipped_uncounted += err == -KP_ECHUNK;
			r->cur.len = 0;
			r->off = r->cur.end;
			continue;
		}
		if (err) {
			r->err = err;
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
	free(c->pbuf);
	kp_unpacker_release(&c->up);
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
		for (size_t i = 0; i < KP_READ_AHEAD; i++)
			chunk_release(&r->ahead[i]);
	}
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	kp_perfdata_free(r->perf);
	r->perf = NULL;
	ZSTD_freeDCtx(r->dc);
	chunk_release(&r->cur);
	chunk_release(&r->prev);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* SPDX-License-Identifier: MIT */
#include "writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "util.h"

static void init_buf(struct kp_writer *w, size_t reserve)
{
	w->cap = reserve > KP_WRITER_CHUNK ? reserve : KP_WRITER_CHUNK;
	w->buf = kp_xmalloc(w->cap);
	/* pre-fault: first-touch page faults cost ~11 us per page on this kind of VM */
	memset(w->buf, 0, w->cap);
}

void kp_writer_init_sink(struct kp_writer *w, kp_writer_sink_fn *fn, void *ctx, size_t reserve)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->sink = fn;
	w->sink_ctx = ctx;
	init_buf(w, reserve);
}

int kp_writer_init_at(struct kp_writer *w, int fd, int level, size_t reserve, uint64_t off)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->level = level;
	w->zc = ZSTD_createCCtx();
	if (!w->zc) {
		w->err = -ENOMEM;
		return w->err;
	}
	ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, level);
	w->pk = kp_xmalloc(sizeof(*w->pk));
	kp_packer_init(w->pk);
	init_buf(w, reserve);
	if (off && lseek(fd, (off_t)off, SEEK_SET) < 0)
		w->err = -errno;
	else
		w->off = off;
	return w->err;
}

int kp_writer_init(struct kp_writer *w, int fd, int level, size_t reserve)
{
	struct kp_file_header h;

	if (kp_writer_init_at(w, fd, level, reserve, 0))
		return w->err;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, KP_FILE_MAGIC, sizeof(h.magic));
	h.version = KP_FORMAT_VERSION;
	h.header_size = sizeof(h);
	h.endian = KP_ENDIAN_MARK;
	w->err = kp_write_all(fd, &h, sizeof(h));
	if (!w->err)
		w->off = sizeof(h);
	return w->err;
}

int kp_writer_mark_symbols(int fd, uint64_t off)
{
	struct kp_file_header h;
	ssize_t n = pread(fd, &h, sizeof(h), 0);

	if (n != (ssize_t)sizeof(h))
		return n < 0 ? -errno : -KP_ETRUNCATED;
	if (memcmp(h.magic, KP_FILE_MAGIC, sizeof(h.magic)))
		return -KP_EBADMAGIC;
	h.compat |= KP_COMPAT_SYMBOLS;
	h.symbols_off = off;
	return kp_write_at(fd, &h, sizeof(h), 0);
}

void *kp_writer_reserve(struct kp_writer *w, size_t size)
{
	if (w->len + size > KP_WRITER_HARD && w->len)
		kp_writer_flush(w);
	if (w->len + size > w->cap) {
		size_t cap = w->cap;
		KP_GROW(w->buf, cap, w->len + size);
		w->cap = cap;
	}
	return w->buf + w->len;
}

void kp_writer_commit(struct kp_writer *w, size_t size, uint32_t nrec)
{
	w->len += size;
	w->nrec += nrec;
}

void kp_writer_add(struct kp_writer *w, const void *rec)
{
	size_t size = ((const struct kp_rec_header *)rec)->size;

	memcpy(kp_writer_reserve(w, size), rec, size);
	kp_writer_commit(w, size, 1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int kp_writer_round(struct kp_writer *w)
{
	struct kp_rec_header r = { KP_REC_ROUND, 0, sizeof(r) };
	uint64_t now = now_ns();

	/* the chunk's age counts from its first round */
	if (!w->opened_ns)
		w->opened_ns = now;
	kp_writer_add(w, &r);
	if (w->len >= KP_WRITER_CHUNK || now - w->opened_ns >= KP_WRITER_MAX_AGE)
		kp_writer_flush(w);
	return w->err;
}

/* The chunk went out: count it and start the next. */
static void chunk_done(struct kp_writer *w)
{
	w->raw_bytes += w->len;
	w->records += w->nrec;
	w->chunks++;
	w->len = 0;
	w->nrec = 0;
	w->opened_ns = 0;
}

/*
 * Pack the open chunk (recpack.h) into w->pk->out, a block for the records up to the first
 * record end at or past each multiple of KP_WRITER_BLOCK: a torn chunk then loses at most the
 * records after the last multiple its complete blocks reach. Fills w->ends with where each
 * block ends in the packed bytes.
 */
static void pack_blocks(struct kp_writer *w)
{
	size_t pos = 0;

	kp_packer_chunk(w->pk);
	w->nends = 0;
	while (pos < w->len) {
		size_t start = pos, target = (pos / KP_WRITER_BLOCK + 1) * KP_WRITER_BLOCK;
		uint32_t n = 0;

		while (pos < w->len && pos < target) {
			pos += ((const struct kp_rec_header *)(w->buf + pos))->size;
			n++;
		}
		kp_packer_block(w->pk, w->buf + start, pos - start, n);
		KP_GROW(w->ends, w->ends_cap, w->nends + 1);
		w->ends[w->nends++] = w->pk->out.len;
	}
}

/*
 * Compress the packed chunk into one zstd frame at @dst (@cap bytes), flushed at the end of
 * each block so that each decodes without the ones after it. Returns the frame's size, or 0
 * on failure.
 */
static size_t compress_blocks(struct kp_writer *w, uint8_t *dst, size_t cap)
{
	const struct kp_bytes *src = &w->pk->out;
	ZSTD_outBuffer out = { dst, cap, 0 };
	size_t pos = 0;

	ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only);
	/* a chunk closed by age while small has little history to match against: a higher level
	 * wins most of that back, for well under a millisecond */
	ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel,
			       w->len < KP_WRITER_SMALL && w->level < KP_WRITER_SMALL_LEVEL
				       ? KP_WRITER_SMALL_LEVEL : w->level);
	ZSTD_CCtx_setPledgedSrcSize(w->zc, src->len);
	for (size_t b = 0; b < w->nends; b++) {
		ZSTD_inBuffer in = { src->p + pos, w->ends[b] - pos, 0 };
		ZSTD_EndDirective mode = b + 1 == w->nends ? ZSTD_e_end : ZSTD_e_flush;
		size_t left;

		do {
			left = ZSTD_compressStream2(w->zc, &out, &in, mode);
			if (ZSTD_isError(left))
				return 0;
		} while (left && out.pos < out.size);
		if (left)
			return 0; /* out of room: cannot happen with the bound the caller sized */
		pos = w->ends[b];
	}
	return out.pos;
}

int kp_writer_flush(struct kp_writer *w)
{
	struct kp_chunk_header h;
	size_t bound, csize;
	int err;

	if (!w->len || w->err) {
		w->len = 0;
		w->nrec = 0;
		return w->err;
	}
	if (w->sink) {
		w->err = w->sink(w->sink_ctx, &w->buf, &w->cap, w->len, w->nrec);
		if (!w->err)
			chunk_done(w);
		return w->err;
	}
	pack_blocks(w);
	/* each flushed block may end up stored raw, with a block header of its own */
	bound = sizeof(h) + ZSTD_compressBound(w->pk->out.len) + (w->nends + 1) * 8;
	if (bound > w->ccap) {
		free(w->cbuf);
		w->ccap = bound;
		w->cbuf = kp_xmalloc(bound);
	}
	csize = compress_blocks(w, w->cbuf + sizeof(h), w->ccap - sizeof(h));
	if (!csize) {
		w->err = -KP_ECOMPRESS;
		return w->err;
	}
	h = (struct kp_chunk_header){ KP_CHUNK_MAGIC, KP_CODEC_PACKED, csize, w->len, w->nrec, 0 };
	h.crc = kp_crc32c(kp_crc32c(0, &h, sizeof(h)), w->cbuf + sizeof(h), csize);
	memcpy(w->cbuf, &h, sizeof(h));
	err = kp_write_all(w->fd, w->cbuf, sizeof(h) + csize);
	if (err) {
		/* leave the file ending at its last complete chunk */
		if (ftruncate(w->fd, w->off) == 0)
			lseek(w->fd, w->off, SEEK_SET);
		w->err = err;
		return err;
	}
	w->off += sizeof(h) + csize;
	chunk_done(w);
	return 0;
}

int kp_writer_close(struct kp_writer *w)
{
	int err = kp_writer_flush(w);

	ZSTD_freeCCtx(w->zc);
	if (w->pk)
		kp_packer_release(w->pk);
	free(w->pk);
	free(w->ends);
	w->pk = NULL;
	w->ends = NULL;
	free(w->buf);
	free(w->cbuf);
	w->zc = NULL;
	w->buf = w->cbuf = NULL;
	w->cap = w->ccap = 0;
	return err;
}

/* Append a record of @fixed header bytes followed by @nparts pieces, zero-padded to 8. */
struct part {
	const void *p;
	size_t len;
};

static void add_parts(struct kp_writer *w, const void *fixed, size_t fixed_len,
		      const struct part *parts, size_t nparts)
{
	size_t size = fixed_len;
	uint8_t *dst, *p;

	for (size_t i = 0; i < nparts; i++)
		size += parts[i].len;
	size = kp_align8(size);
	if (size > KP_REC_MAX_SIZE) {
		w->err = w->err ? w->err : -EMSGSIZE;
		return;
	}
	dst = p = kp_writer_reserve(w, size);
	memcpy(p, fixed, fixed_len);
	p += fixed_len;
	for (size_t i = 0; i < nparts; i++) {
		memcpy(p, parts[i].p, parts[i].len);
		p += parts[i].len;
	}
	memset(p, 0, dst + size - p);
	((struct kp_rec_header *)dst)->size = (uint16_t)size;
	kp_writer_commit(w, size, 1);
}

void kp_writer_add_meta(struct kp_writer *w, const char *key, const char *value)
{
	static const char cut[] = "...";
	size_t kl = strlen(key) + 1, vl = strlen(value);
	size_t room = KP_REC_MAX_SIZE - sizeof(struct kp_rec_meta) - kl - 1; /* 1: the NUL */
	struct kp_rec_meta m = { { KP_REC_META, 0, 0 }, kl, vl + 1 };
	struct part parts[] = { { key, kl }, { value, vl }, { "", 1 } };

	if (kl + sizeof(cut) > KP_REC_MAX_SIZE - sizeof(m)) { /* no key is that long */
		w->err = w->err ? w->err : -EMSGSIZE;
		return;
	}
	if (vl > room) { /* a command line of 64 KiB: cut it, and say so, not the recording */
		parts[1].len = room - (sizeof(cut) - 1);
		parts[2] = (struct part){ cut, sizeof(cut) };
		m.value_len = room + 1;
	}
	add_parts(w, &m, sizeof(m), parts, ARRAY_SIZE(parts));
}

void kp_writer_add_attr(struct kp_writer *w, const struct perf_event_attr *attr, uint32_t index,
			const uint64_t *ids, uint32_t nr_ids, const char *name, const char *spec,
			int fallback)
{
	size_t nl = strlen(name) + 1, sl = strlen(spec) + 1;
	size_t fixed = sizeof(struct kp_rec_attr) + sizeof(*attr) + kp_align8(nl + sl);
	/* more ids than a record holds (many threads times many CPUs): records of the same
	 * index follow, each with the next ids (FORMAT.md) */
	uint32_t per = fixed < KP_REC_MAX_SIZE ? (uint32_t)((KP_REC_MAX_SIZE - fixed) / 8) : 0;

	_Static_assert(sizeof(*attr) % 8 == 0, "perf_event_attr is u64-sized");
	do {
		uint32_t n = nr_ids < per ? nr_ids : per;
		struct kp_rec_attr a = { { KP_REC_ATTR, fallback ? KP_ATTR_MISC_FALLBACK : 0, 0 },
					 kp_align8(sizeof(*attr)), n, nl + sl, index };
		struct part parts[] = { { attr, sizeof(*attr) },
					{ ids, n * sizeof(*ids) },
					{ name, nl },
					{ spec, sl } };

		add_parts(w, &a, sizeof(a), parts, ARRAY_SIZE(parts)); /* per 0: too long, -EMSGSIZE */
		ids += n;
		nr_ids -= n;
	} while (nr_ids && per && !w->err);
}

void kp_writer_add_kallsyms(struct kp_writer *w, const char *text, size_t len, uint16_t misc)
{
	const size_t max = KP_REC_MAX_SIZE - sizeof(struct kp_rec_kallsyms);

	while (len) {
		size_t n = len;
		if (n > max) {
			/* end the slice after the last newline that fits, else cut hard */
			const char *nl = memrchr(text, '\n', max);
			n = nl ? (size_t)(nl - text) + 1 : max;
		}
		struct kp_rec_kallsyms k = { { KP_REC_KALLSYMS, misc, 0 }, n, w->kallsyms_seq++ };
		struct part part = { text, n };
		add_parts(w, &k, sizeof(k), &part, 1);
		text += n;
		len -= n;
	}
}

int kp_writer_add_tp_format(struct kp_writer *w, uint64_t id, const char *sys, const char *fmt,
			    size_t len)
{
	struct kp_rec_tp_format f = { { KP_REC_TP_FORMAT, 0, 0 }, id, strlen(sys) + 1, len };
	struct part parts[] = { { sys, f.sys_len }, { fmt, len } };

	if (kp_align8(sizeof(f) + f.sys_len + len) > KP_REC_MAX_SIZE)
		return -EMSGSIZE;
	add_parts(w, &f, sizeof(f), parts, ARRAY_SIZE(parts));
	return 0;
}

void kp_writer_add_proc_cgroup(struct kp_writer *w, uint32_t pid, const char *path)
{
	struct kp_rec_proc_cgroup c = { { KP_REC_PROC_CGROUP, 0, 0 }, pid, 0 };
	size_t len = strnlen(path, KP_REC_MAX_SIZE - sizeof(c) - 8);
	struct part parts[] = { { path, len }, { "", 1 } };

	add_parts(w, &c, sizeof(c), parts, ARRAY_SIZE(parts));
}

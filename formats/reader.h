/* SPDX-License-Identifier: MIT */
/*
 * reader.h - reads a .kprof file back as validated records.
 *
 * The reader treats the file as hostile. It checks the header (magic, byte order, version,
 * feature bits), bounds each chunk's sizes against KP_CHUNK_MAX_* and the file's size before
 * allocating, verifies the chunk's CRC, decompresses it, and checks every record in it (size,
 * alignment, per-type minimum and variable part, record count) before handing any out.
 *
 * A complete chunk reads whole or not at all: one that fails its CRC, decompression or record
 * checks is skipped, and the chunks after it are read (its header says where they start); the
 * first such failure is reported at the end. A packed chunk (KP_CODEC_PACKED) is decompressed,
 * then unpacked (recpack.h) into the records it was made of. A torn last chunk, cut short by a
 * crash or a full disk, gives back what its written part holds: zstd's streaming decoder
 * decodes its complete blocks (the writer flushes one every KP_WRITER_BLOCK bytes of records),
 * the complete packed blocks among them are unpacked, and every whole, valid record of them is
 * handed out before the truncation is reported. Only a damaged chunk
 * header stops the reading, since nothing then says where the next chunk is.
 *
 * A perf.data file (perf's magic) is read by perfdata.h behind the same calls: its records
 * come out as those of a .kprof file would, and its errors (a struct kp_read_err) are copied
 * into the same fields.
 */
#ifndef KP_READER_H
#define KP_READER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprof-format.h"
#include "recpack.h"

#define KP_READ_AHEAD 2	/* chunks loaded ahead by kp_reader_prefetch()'s thread */

/* One decompressed chunk and the buffers it was loaded through. */
struct kp_chunk {
	uint8_t *cbuf, *ubuf;
	size_t ccap, ucap;
	uint8_t *pbuf;		/* a packed chunk's decompressed blocks (KP_CODEC_PACKED) */
	size_t pcap;
	struct kp_unpacker up;
	size_t len;		/* bytes of records in ubuf */
	uint64_t off, end;	/* where the chunk starts in the file, and where the next one does
				 * (0 when its header is unusable: nothing after it can be read) */
	uint32_t nrec;		/* records its header claims */
	bool packed;		/* KP_CODEC_PACKED: up.chains says which records share a chain */
	bool all_known;		/* every record is of a type kprof knows (none to skip) */
	bool torn;		/* the file ends inside it: @len holds its readable prefix */
	int err;		/* what loading it gave: 0, -errno or -KP_E* */
};

struct kp_reader {
	int fd;
	bool own_fd;
	struct kp_file_header hdr;
	uint64_t file_size;
	uint64_t off;		/* offset of the next chunk */
	void *dc;		/* ZSTD_DCtx */
	struct kp_chunk cur;	/* the chunk records are handed out from */
	struct kp_chunk prev;	/* the one before, kept (kp_reader_keep_previous()) */
	void (*dropping)(void *ctx, const uint8_t *buf, size_t len);
	void *dropping_ctx;	/* NULL dropping: records live until the next call */
	size_t pos;		/* next record within cur */
	uint32_t idx;		/* and its index there */
	uint64_t chain_id;	/* kp_reader_chain_id() */
	uint64_t nrec;		/* records handed out, unknown types included */
	uint64_t nr_unknown;	/* records of unknown type, skipped */
	uint64_t chunks;	/* chunks read */
	uint64_t raw_bytes;	/* uncompressed bytes of the chunks read */
	uint64_t err_off;	/* where the error was found (file offset of the chunk) */
	int err;		/* sticky */
	const char *why;	/* what was wrong there, a static sentence, or NULL */
	struct kp_perfdata *perf;	/* reading a perf.data (perfdata.h), or NULL */
	uint64_t salvaged;	/* records handed out from a torn last chunk */
	uint64_t skipped;	/* damaged chunks skipped, and the records their headers claim */
	uint64_t skipped_records;
	uint64_t skipped_uncounted;	/* of them, those whose header was damaged: not counted */
	int skip_err;		/* the first skipped chunk's error, and where it is */
	uint64_t skip_off;
	/* read-ahead (kp_reader_prefetch): a thread loads the next chunks into `ahead`, a ring of
	 * @nr_ahead loaded ones from @ahead_head: a few, so that neither side waits for the other
	 * when one chunk takes longer to load, or to replay, than the next */
	bool threaded, stop;
	struct kp_chunk ahead[KP_READ_AHEAD];
	unsigned ahead_head, nr_ahead;
	void *ahead_dc;
	pthread_t worker;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/*
 * kp_reader_open - open @path and check its header. Returns 0, -errno, -KP_EBADMAGIC,
 * -KP_EVERSION (see @r->hdr.version), -KP_EENDIAN, -KP_EFEATURE or -KP_ETRUNCATED; for a
 * perf.data, kp_perfdata_open()'s errors. Call kp_reader_release() in every case.
 */
int kp_reader_open(struct kp_reader *r, const char *path);

/* kp_reader_open_fd - the same on an open, seekable @fd; the reader does not close it. */
int kp_reader_open_fd(struct kp_reader *r, int fd);

/*
 * kp_reader_next - the next record of a known type. Returns 1 and sets *@rec (borrowed: valid
 * until the next call, or longer: kp_reader_keep_previous()), 0 at a clean end of file, or a negative error once nothing more can be
 * read: -KP_ETRUNCATED (the file ends inside a chunk, after @r->salvaged records recovered from
 * it), -KP_ECHUNK (a damaged chunk header with no whole chunk after it) or -errno; or, at the
 * end of a file that had damaged chunks, the first one's -KP_ECHECKSUM, -KP_EDECOMPRESS,
 * -KP_ERECORD or -KP_ECHUNK (@r->skipped of them: the reading goes on at the next whole chunk,
 * first at @r->skip_off). On error, @r->err_off is the chunk's offset and @r->nrec the records
 * read; the error is sticky.
 */
int kp_reader_next(struct kp_reader *r, const struct kp_rec_header **rec);

/*
 * kp_reader_chain_id - which call chain the sample kp_reader_next() last returned holds, as
 * far as the file's encoding tells: samples with the same non-zero value hold the same call
 * chain, so what was worked out from one holds for the others. 0: not known (a perf.data, an
 * unpacked chunk, a record without a call chain).
 */
static inline uint64_t kp_reader_chain_id(const struct kp_reader *r)
{
	return r->chain_id;
}

/*
 * kp_reader_prefetch - load (read, check, decompress, validate) the next chunks in a thread of
 * its own while the caller consumes the current one. Records and errors come out exactly as
 * without it. Call after a successful open, before the first kp_reader_next(). Returns 0, or
 * -errno if the thread cannot start (the reader then stays synchronous).
 */
int kp_reader_prefetch(struct kp_reader *r);

/*
 * kp_reader_keep_previous - from now on a .kprof's records stay where they are for longer:
 * until the reader is two chunks further on, not until the next call. Before the memory of a
 * chunk's records is used again, @dropping(@ctx, buf, len) says where they lay, so that whoever
 * held on to some copies them. Call before the first kp_reader_next(). A perf.data's records
 * are not kept (each is valid until the next call), nor is anything without @dropping.
 */
void kp_reader_keep_previous(struct kp_reader *r,
			     void (*dropping)(void *ctx, const uint8_t *buf, size_t len), void *ctx);

/*
 * kp_reader_keeps - whether the record kp_reader_next() last returned stays where it is until
 * @r's dropping callback says otherwise (kp_reader_keep_previous()).
 */
static inline bool kp_reader_keeps(const struct kp_reader *r)
{
	return r->dropping && !r->perf;
}

/* kp_reader_release - free everything; closes the fd if kp_reader_open() opened it. */
void kp_reader_release(struct kp_reader *r);

#endif /* KP_READER_H */

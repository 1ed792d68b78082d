/* SPDX-License-Identifier: MIT */
/*
 * writer.h - buffers records and writes them to a .kprof file as checksummed zstd chunks.
 *
 * Records accumulate in one uncompressed buffer. kp_writer_round() marks a point where every
 * ring was drained and closes the chunk there once about KP_WRITER_CHUNK bytes are buffered,
 * or once its first records are KP_WRITER_MAX_AGE old: no more than about a second of
 * recording is ever only in memory. A chunk is written with one write() of header + frame, so
 * a writer killed at any moment leaves whole chunks followed by at most one partial chunk.
 * The chunk is packed (recpack.h) block by block, a block for about KP_WRITER_BLOCK bytes of
 * records, and the zstd frame is flushed at the end of each: a reader decodes the complete
 * blocks of a torn chunk on their own, so a cut loses at most one block of records.
 *
 * Errors are sticky: the first failure (a write error, a full disk) is kept in @err, later
 * calls do nothing, and kp_writer_close() returns it. After a failed chunk write the file is
 * cut back to its last complete chunk.
 */
#ifndef KP_WRITER_H
#define KP_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "kprof-format.h"
#include "recpack.h"

#define KP_WRITER_CHUNK (1u << 20)	/* close a chunk at a round once this much is buffered */
#define KP_WRITER_HARD (64u << 20)	/* close it even between rounds beyond this */
#define KP_WRITER_DEFAULT_LEVEL 1	/* zstd level: fast, ~1 GB/s here, ~16x on samples */
#define KP_WRITER_MAX_AGE 1000000000ull	/* ns: close a chunk at a round once its data is this old */
#define KP_WRITER_BLOCK (16u << 10)	/* records per zstd block: what a torn chunk loses at most */
#define KP_WRITER_SMALL (256u << 10)	/* a chunk smaller than this (closed by age) ... */
#define KP_WRITER_SMALL_LEVEL 9		/* ... compresses at least at this level */

/*
 * Where a writer made with kp_writer_init_sink() sends each closed chunk: its @len bytes of
 * @nrec records, uncompressed, at *@buf (*@cap bytes, from malloc). The sink may keep the buffer
 * instead of copying it, and put another malloc'd one of *@cap bytes in its place, which the
 * writer fills next. Returns 0 or an error (kept sticky).
 */
typedef int kp_writer_sink_fn(void *ctx, uint8_t **buf, size_t *cap, size_t len, uint32_t nrec);

struct kp_writer {
	int fd;
	kp_writer_sink_fn *sink;	/* instead of fd, when set */
	void *sink_ctx;
	int level;
	void *zc;		/* ZSTD_CCtx */
	uint8_t *buf;		/* records of the open chunk */
	size_t len, cap;
	uint32_t nrec;
	struct kp_packer *pk;	/* packs each chunk before zstd (not for a sink) */
	size_t *ends, nends, ends_cap;	/* where each block of the packed chunk ends */
	uint8_t *cbuf;		/* chunk header + compressed frame */
	size_t ccap;
	uint64_t off;		/* file size: header + complete chunks */
	uint64_t raw_bytes;	/* uncompressed bytes of the chunks written */
	uint64_t chunks;
	uint64_t records;	/* records in the chunks written */
	uint32_t kallsyms_seq;	/* next KP_REC_KALLSYMS sequence number */
	uint64_t opened_ns;	/* CLOCK_MONOTONIC of the open chunk's first round; 0 before it */
	int err;		/* sticky: 0, -errno or -KP_E* */
};

/*
 * kp_writer_init - start a file on @fd (empty, positioned at 0; the writer does not own it)
 * with zstd @level, and write the file header. @reserve pre-sizes the buffer so a recording
 * loop need not allocate. Returns 0 or an error (also kept in @w->err).
 */
int kp_writer_init(struct kp_writer *w, int fd, int level, size_t reserve);

/*
 * kp_writer_init_at - the same, for chunks appended to an existing file at @off (its size:
 * after its last complete chunk); no file header is written.
 */
int kp_writer_init_at(struct kp_writer *w, int fd, int level, size_t reserve, uint64_t off);

/*
 * kp_writer_mark_symbols - set the file header of the .kprof file on @fd to say that its
 * SYMBOLS chunks start at @off (KP_COMPAT_SYMBOLS). Returns 0 or -errno.
 */
int kp_writer_mark_symbols(int fd, uint64_t off);

/*
 * kp_writer_init_sink - a writer whose chunks go to @fn instead of a file (no file header,
 * no compression): for a stage between the rings and the file. Never fails.
 */
void kp_writer_init_sink(struct kp_writer *w, kp_writer_sink_fn *fn, void *ctx, size_t reserve);

/*
 * kp_writer_reserve - room for @size bytes of records at the end of the buffer; fill them, then
 * kp_writer_commit(). The pointer is valid until the next call on @w. Never fails (aborts on
 * OOM); may first close the open chunk if it holds more than KP_WRITER_HARD bytes.
 */
void *kp_writer_reserve(struct kp_writer *w, size_t size);

/* kp_writer_commit - @size bytes holding @nrec whole records were written at reserve()'s pointer. */
void kp_writer_commit(struct kp_writer *w, size_t size, uint32_t nrec);

/* kp_writer_add - append one record (rec->size bytes). */
void kp_writer_add(struct kp_writer *w, const void *rec);

/*
 * kp_writer_round - append a KP_REC_ROUND, and close the chunk if it holds KP_WRITER_CHUNK
 * bytes or more, or if its first round was KP_WRITER_MAX_AGE ago. Returns the sticky error.
 */
int kp_writer_round(struct kp_writer *w);

/* kp_writer_flush - close the open chunk now (no-op when empty). Returns the sticky error. */
int kp_writer_flush(struct kp_writer *w);

/* kp_writer_close - flush and free the buffers; the fd stays open. Returns the sticky error. */
int kp_writer_close(struct kp_writer *w);

/*
 * Helpers that build kprof's own records and append them. Strings are copied; a META value
 * that would not fit in a record is cut to fit and ends with "...".
 */
void kp_writer_add_meta(struct kp_writer *w, const char *key, const char *value);
void kp_writer_add_attr(struct kp_writer *w, const struct perf_event_attr *attr, uint32_t index,
			const uint64_t *ids, uint32_t nr_ids, const char *name, const char *spec,
			int fallback);
/*
 * kp_writer_add_kallsyms - append @len bytes of whole /proc/kallsyms lines as KP_REC_KALLSYMS
 * records, split at line ends, with @misc (KP_KALLSYMS_MISC_ENDS: lines that only bound the
 * symbols before them); their seq numbers continue across calls.
 */
void kp_writer_add_kallsyms(struct kp_writer *w, const char *text, size_t len, uint16_t misc);

/*
 * kp_writer_add_tp_format - a tracepoint's format file. Returns 0, or -EMSGSIZE when it does
 * not fit in one record (nothing is written then).
 */
int kp_writer_add_tp_format(struct kp_writer *w, uint64_t id, const char *sys, const char *fmt,
			    size_t len);

/* kp_writer_add_proc_cgroup - process @pid's cgroup @path (cut to fit a record). */
void kp_writer_add_proc_cgroup(struct kp_writer *w, uint32_t pid, const char *path);

#endif /* KP_WRITER_H */

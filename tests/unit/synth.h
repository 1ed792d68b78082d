/* SPDX-License-Identifier: MIT */
/*
 * synth.h - synthetic recordings for the unit tests: every record type kprof knows, written
 * through the real writer, with a copy of each record kept to compare against the reader.
 */
#ifndef KP_SYNTH_H
#define KP_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "formats/writer.h"

#define SYNTH_SAMPLE_TYPE                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |    \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

struct synth {
	struct kp_writer w;
	uint8_t *recs;		/* every record written, back to back */
	size_t len, cap;
	size_t nrec;
	size_t *chunk_end;	/* records in the file after each chunk closes */
	size_t nr_chunks, chunks_cap;
};

/* synth_attr - the attr the synthetic samples use. */
void synth_attr(struct perf_event_attr *a);

/* synth_begin - start a recording on @fd: the writer, the attr (synth_attr()), metadata. */
int synth_begin(struct synth *s, int fd, int level);

/* synth_side - add a side-band record of @type: @body, then the sample_id_all trailer. */
void synth_side(struct synth *s, uint32_t type, uint16_t misc, const void *body,
		size_t body_len, uint32_t tid, uint64_t time);

/* synth_add - append @rec to the writer and to the expected copy. */
void synth_add(struct synth *s, const void *rec);

/* synth_flush - close the writer's chunk and remember where it ended. */
void synth_flush(struct synth *s);

/*
 * synth_file - write a recording to @fd: an attr, metadata, a kallsyms slice, comm, mmap2,
 * fork, exit, lost, throttle, @nsamples samples with call chains (times from @t0, one per
 * 1000 ns, @cpus CPUs interleaved out of order within each round), rounds, and the stats;
 * a chunk closes every @per_chunk records (0: only at the end); zstd @level. Returns 0 or the
 * writer error.
 */
int synth_file(struct synth *s, int fd, unsigned nsamples, unsigned per_chunk, int level);

/* synth_sample - build a sample record into @buf (>= 256 bytes); returns its size. */
size_t synth_sample(void *buf, uint32_t tid, uint64_t time, uint32_t cpu, uint64_t ip,
		    unsigned depth);

void synth_release(struct synth *s);

/* synth_end - a ROUND, the chunk closed, @s released and @fd closed: a recording's end. */
void synth_end(struct synth *s, int fd);

/* The body of a PERF_RECORD_MMAP2 record, up to its path (NUL-terminated, then the trailer). */
struct synth_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, gen;
	uint32_t prot, flags;
	char name[4096];
};

/* synth_mmap2_len - the bytes of @mm that a record holds: up to its path's NUL. */
size_t synth_mmap2_len(const struct synth_mmap2 *mm);

#endif /* KP_SYNTH_H */

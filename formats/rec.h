/* SPDX-License-Identifier: MIT */
/*
 * rec.h - what a record may look like: the per-type table, validation, and the parsers of the
 * kernel's records: typed views of the side-band records (MMAP, MMAP2, COMM, FORK, EXIT, LOST,
 * SWITCH), samples and the sample_id_all trailer; and the encoders that write them back
 * (recsample.c: samples, the trailer and the encoders; recsym.c: kprof archive's records).
 *
 * Every function here is pure. A parser reads only the bytes it is given, checks every length
 * against the record's size first, and returns pointers borrowed from the record. An encoder
 * writes into the caller's buffer and, like snprintf(), returns the size the record needs: the
 * bytes are written only when that size is at most the buffer's (call with 0 to learn it).
 */
#ifndef KP_REC_H
#define KP_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprof-format.h"

/**
 * struct kp_rec_info - what kprof knows of one record type
 * @name:     short name, as `kprof script` prints it ("mmap2", "sample", "meta")
 * @min_size: smallest valid record, header included
 * @check:    optional check of the variable part (strings terminated, counts in bounds);
 *            returns 0 or -KP_ERECORD
 * @parse:    for the kernel records kprof reads: fill the type's view (struct kp_mmap, ...)
 *            from a record already known to be at least @min_size; returns 0 or -KP_ERECORD.
 *            Validation runs it too, so what validates also parses.
 */
struct kp_rec_info {
	const char *name;
	uint16_t min_size;
	int (*check)(const struct kp_rec_header *rec);
	int (*parse)(const struct kp_rec_header *rec, void *view);
};

/* kp_rec_info_of - the table row of @type, or NULL for a type kprof does not know. */
const struct kp_rec_info *kp_rec_info_of(uint32_t type);

/*
 * kp_rec_framed - whether @rec, found at @avail bytes before the end of its buffer, is framed
 * as every record must be: a whole header, a size >= 8, a multiple of 8, within @avail. All
 * that kp_rec_validate() checks of a sample.
 */
static inline bool kp_rec_framed(const struct kp_rec_header *rec, size_t avail)
{
	return avail >= sizeof(*rec) && rec->size >= sizeof(*rec) && !(rec->size % 8) &&
	       rec->size <= avail;
}

/*
 * kp_rec_next - the walk over records framed back to back in the @len bytes at @buf (a chunk,
 * the records drained from a ring): the record at *@pos, with *@pos moved past it. NULL at the
 * end (*@pos == @len), or where what lies at *@pos is not framed (kp_rec_framed()): then *@pos
 * stays there, below @len, and what follows cannot be found.
 *
 *	for (size_t pos = 0; (rec = kp_rec_next(buf, len, &pos));)
 */
static inline const struct kp_rec_header *kp_rec_next(const void *buf, size_t len, size_t *pos)
{
	const struct kp_rec_header *rec;

	if (*pos >= len)
		return NULL;
	rec = (const void *)((const uint8_t *)buf + *pos);
	if (!kp_rec_framed(rec, len - *pos))
		return NULL;
	*pos += rec->size;
	return rec;
}

/*
 * kp_rec_validate - check a record found at @avail bytes before the end of its buffer:
 * size >= 8, 8-byte multiple, within @avail, and for a known type its minimum size and
 * variable part. Returns 0, or -KP_ERECORD. An unknown type passes (callers skip it).
 */
int kp_rec_validate(const struct kp_rec_header *rec, size_t avail);

/* The most frames one location of a SYMBOLS record holds (report/symbols/dso.h's KP_DSO_MAX_FRAMES). */
#define KP_SYM_MAX_FRAMES 64

/**
 * struct kp_symbols_view - the parts of a KP_REC_SYMBOLS record, borrowed from it
 * @path: NUL-terminated; @strs: the string table (@rec->str_len bytes, the last a NUL)
 */
struct kp_symbols_view {
	const struct kp_rec_symbols *rec;
	const char *path;
	const struct kp_rec_sym_func *funcs;
	const struct kp_rec_sym_loc *locs;
	const struct kp_rec_sym_frame *frames;
	const char *strs;
};

/*
 * kp_rec_symbols_view - split a SYMBOLS record into its parts: 0, or -KP_ERECORD when its
 * counts do not fit its size or its path or string table is not terminated. A validated record
 * (kp_rec_validate()) also has every string offset and frame range within bounds.
 */
int kp_rec_symbols_view(const struct kp_rec_header *rec, struct kp_symbols_view *v);

/* kp_rec_symbols_check - the view's checks, and every string offset and frame range within
 * the record: 0 or -KP_ERECORD (the record table's check of a SYMBOLS record). */
int kp_rec_symbols_check(const struct kp_rec_header *rec);

/* struct kp_file_part_view - the parts of a KP_REC_FILE_PART record, borrowed from it. */
struct kp_file_part_view {
	const struct kp_rec_file_part *rec;
	const char *path;
	const uint8_t *bytes;	/* rec->len of them */
};

/*
 * kp_rec_file_part_view - split a FILE_PART record: 0, or -KP_ERECORD when its path is not
 * terminated, its build-id is over 20 bytes, its bytes do not fit its size, it holds none, or
 * they lie outside a file of at most KP_FILE_PART_MAX_SIZE bytes.
 */
int kp_rec_file_part_view(const struct kp_rec_header *rec, struct kp_file_part_view *v);

/* kp_rec_file_part_check - kp_rec_file_part_view() as the record table's check. */
int kp_rec_file_part_check(const struct kp_rec_header *rec);

/**
 * struct kp_sample - the fields of a PERF_RECORD_SAMPLE, as far as its attr's sample_type has
 * them. Pointers are borrowed from the record. Fields absent from sample_type are zero.
 */
struct kp_sample {
	uint64_t sample_type;	/* which fields below are valid (PERF_SAMPLE_* bits) */
	uint64_t id;		/* IDENTIFIER, else ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr_callchain;
	const uint64_t *callchain;	/* raw entries, PERF_CONTEXT_* markers included */
	uint32_t raw_size;
	const void *raw;
	uint64_t nr_read;
	const uint64_t *read;		/* READ: the read_format words, GROUP's nr included */
	uint64_t nr_branches;
	uint64_t branch_hw_index;	/* with PERF_SAMPLE_BRANCH_HW_INDEX in branch_sample_type */
	const uint64_t *branches;	/* nr_branches × {from, to, flags} */
	uint64_t regs_user_abi;		/* PERF_SAMPLE_REGS_ABI_*: NONE (no registers), 32, 64 */
	uint64_t regs_user_mask;	/* the attr's sample_regs_user: register i of the arch's
					 * numbering is regs_user[popcount(mask & (2^i - 1))] */
	uint32_t nr_regs_user;
	const uint64_t *regs_user;
	uint64_t stack_size, stack_dyn_size;
	const void *stack_data;
	uint64_t weight;		/* WEIGHT, or WEIGHT_STRUCT's packed u64 */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	uint64_t regs_intr_mask;	/* the attr's sample_regs_intr, read the same way */
	uint32_t nr_regs_intr;
	const uint64_t *regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size, code_page_size;
	uint64_t aux_size;
	const void *aux;
	/* Not a field of the record: samples with the same non-zero chain_id hold the same call
	 * chain (kp_reader_chain_id(), set by whoever knows it; the parser leaves it 0). */
	uint64_t chain_id;
};

/* The sample_type bits kp_rec_parse_sample() understands. */
#define KP_SAMPLE_KNOWN ((uint64_t)PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1)

/*
 * kp_rec_parse_sample - decode @rec (a PERF_RECORD_SAMPLE) written for @attr into @out.
 * Returns 0, -KP_ESAMPLE if the record is shorter than its fields, or -KP_ESAMPLE_TYPE if
 * @attr has a sample_type bit kprof cannot parse.
 */
int kp_rec_parse_sample(const struct perf_event_attr *attr, const struct kp_rec_header *rec,
			struct kp_sample *out);

/*
 * kp_rec_parse_sample_again - the same, into an @out that holds what the last parse into it
 * wrote (or zeros) and that nothing else has written since. A sample of the same sample_type
 * as the last one, of fields that are plain words and call chains, is then parsed without
 * zeroing the struct first: a report parses millions.
 */
int kp_rec_parse_sample_again(const struct perf_event_attr *attr,
			      const struct kp_rec_header *rec, struct kp_sample *out);

/*
 * kp_rec_encode_sample - write @s as the PERF_RECORD_SAMPLE of @attr (its sample_type,
 * read_format, branch_sample_type and register masks say which fields are there) with header
 * misc @misc into @buf, which holds @cap bytes and must be 8-byte aligned. Every field of
 * sample_type is taken from @s (s->sample_type is not read); the arrays are copied, and the
 * padding after RAW and AUX data is written as zeros (the kernel leaves it unwritten), as are the
 * reserved half of CPU and IDENTIFIER's copy of @s->id. Returns the record's size (written
 * only when it is <= @cap), -KP_ESAMPLE_TYPE for a sample_type bit beyond KP_SAMPLE_KNOWN, or
 * -KP_EENCODE when @s does not fit the layout: a register count that is not the mask's, a stack
 * size that is not a multiple of 8 or smaller than dyn_size, read words that are not what
 * read_format asks for, or a record larger than KP_REC_MAX_SIZE. kp_rec_parse_sample() of the
 * result gives @s back.
 */
int kp_rec_encode_sample(const struct perf_event_attr *attr, const struct kp_sample *s,
			 uint16_t misc, void *buf, size_t cap);

/*
 * kp_rec_encode_unwound - write @s as an unwound sample (FORMAT.md, "Unwound samples"): its
 * fields as they are, but @chain (@n entries) as its call chain, no registers
 * (PERF_SAMPLE_REGS_ABI_NONE) and a stack copy of size 0. Returns as kp_rec_encode_sample().
 */
int kp_rec_encode_unwound(const struct perf_event_attr *attr, const struct kp_sample *s,
			  uint16_t misc, const uint64_t *chain, size_t n, void *buf, size_t cap);

/*
 * kp_rec_sample_time - the TIME field of a sample without decoding the rest (the fields before
 * it have fixed sizes). Returns 0 and sets *@time, or -KP_ESAMPLE when the record is too short
 * or @attr has no PERF_SAMPLE_TIME.
 */
int kp_rec_sample_time(const struct perf_event_attr *attr, const struct kp_rec_header *rec,
		       uint64_t *time);

/*
 * kp_rec_parse_id - decode the sample_id_all trailer of a non-sample record written for
 * @attr: pid/tid, time, id, stream_id, cpu into the same fields of @out (others zeroed).
 * Returns 0 (also when @attr has no sample_id_all: nothing is set) or -KP_ESAMPLE.
 */
int kp_rec_parse_id(const struct perf_event_attr *attr, const struct kp_rec_header *rec,
		    struct kp_sample *out);

/*
 * Typed views of the kernel's side-band records. Each parser takes a record found @avail bytes
 * before the end of its buffer and checks, before it reads a field, that the record is of a type
 * it parses, lies within @avail, is a multiple of 8 of at least its type's minimum size, and has
 * the NUL of its string before its end. It returns 0 and fills @out, or -KP_ERECORD with @out
 * zeroed. The sample_id_all trailer after the fields is kp_rec_parse_id()'s. Strings are
 * borrowed from the record.
 *
 * Each encoder writes the record of @type (where there is a choice) with header misc @misc, the
 * fields of the view and, when @attr has sample_id_all, the trailer of @id's pid/tid, time, id,
 * stream_id and cpu (NULL: zeros) into @buf (@cap bytes, 8-byte aligned). Strings are written
 * NUL-padded to a multiple of 8. Returns the record's size (written only when <= @cap), or
 * -KP_EENCODE when it would be larger than KP_REC_MAX_SIZE.
 */

/* struct kp_mmap - a PERF_RECORD_MMAP or PERF_RECORD_MMAP2 (fields after @pgoff: MMAP2 only) */
struct kp_mmap {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;	/* start, bytes, file offset of the start */
	bool has_build_id;		/* misc has PERF_RECORD_MISC_MMAP_BUILD_ID: the build-id is
					 * given, not the device and inode */
	uint8_t build_id_size;		/* bytes of @build_id, at most 20 (larger sizes are cut) */
	uint8_t build_id[20];
	uint32_t maj, min;		/* the file's device ... */
	uint64_t ino, ino_generation;	/* ... and inode; zero with a build-id */
	uint32_t prot, flags;		/* PROT_*, MAP_* */
	const char *filename;		/* borrowed */
};

/* struct kp_comm - a PERF_RECORD_COMM: thread @tid of @pid is now named @comm (borrowed) */
struct kp_comm {
	uint32_t pid, tid;
	const char *comm;
};

/* struct kp_task - a PERF_RECORD_FORK (@pid/@tid started by @ppid/@ptid) or PERF_RECORD_EXIT */
struct kp_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* struct kp_lost - a PERF_RECORD_LOST: @lost records of the event @id were dropped */
struct kp_lost {
	uint64_t id, lost;
};

/*
 * struct kp_switch - a PERF_RECORD_SWITCH or PERF_RECORD_SWITCH_CPU_WIDE: the sampled thread
 * was switched out (@out) or in; a CPU-wide record also names the thread on the other side.
 */
struct kp_switch {
	bool out, preempt;		/* PERF_RECORD_MISC_SWITCH_OUT(_PREEMPT) */
	bool cpu_wide;
	uint32_t next_prev_pid, next_prev_tid;	/* @cpu_wide only */
};

/* kp_rec_parse_mmap - a PERF_RECORD_MMAP or PERF_RECORD_MMAP2. */
int kp_rec_parse_mmap(const struct kp_rec_header *rec, size_t avail, struct kp_mmap *out);

/* kp_rec_parse_comm - a PERF_RECORD_COMM. */
int kp_rec_parse_comm(const struct kp_rec_header *rec, size_t avail, struct kp_comm *out);

/* kp_rec_parse_task - a PERF_RECORD_FORK or PERF_RECORD_EXIT. */
int kp_rec_parse_task(const struct kp_rec_header *rec, size_t avail, struct kp_task *out);

/* kp_rec_parse_lost - a PERF_RECORD_LOST. */
int kp_rec_parse_lost(const struct kp_rec_header *rec, size_t avail, struct kp_lost *out);

/* kp_rec_parse_switch - a PERF_RECORD_SWITCH or PERF_RECORD_SWITCH_CPU_WIDE. */
int kp_rec_parse_switch(const struct kp_rec_header *rec, size_t avail, struct kp_switch *out);

/*
 * kp_rec_encode_mmap2 - a PERF_RECORD_MMAP2 of @m; misc's PERF_RECORD_MISC_MMAP_BUILD_ID is set
 * or cleared as @m->has_build_id says.
 */
int kp_rec_encode_mmap2(const struct perf_event_attr *attr, const struct kp_mmap *m,
			uint16_t misc, const struct kp_sample *id, void *buf, size_t cap);

/*
 * kp_rec_encode_comm - a PERF_RECORD_COMM of @c, the name in a field of at least 16 bytes
 * (TASK_COMM_LEN, as kprof has always synthesized it; the kernel's may be shorter).
 */
int kp_rec_encode_comm(const struct perf_event_attr *attr, const struct kp_comm *c,
		       uint16_t misc, const struct kp_sample *id, void *buf, size_t cap);

/* kp_rec_encode_task - a PERF_RECORD_FORK or PERF_RECORD_EXIT (@type) of @t. */
int kp_rec_encode_task(const struct perf_event_attr *attr, uint32_t type,
		       const struct kp_task *t, uint16_t misc, const struct kp_sample *id,
		       void *buf, size_t cap);

/* kp_rec_attr_view - view of a validated KP_REC_ATTR; ids, name and spec are borrowed. */
struct kp_attr_view {
	struct perf_event_attr attr;	/* copy; zero beyond the recorded attr_size */
	uint32_t attr_size;		/* as recorded */
	uint32_t nr_ids;
	const uint64_t *ids;
	const char *name, *spec;
	uint32_t index;
	bool fallback;
};
void kp_rec_attr_view(const struct kp_rec_header *rec, struct kp_attr_view *out);

/* kp_rec_meta_view - key and value of a validated KP_REC_META (borrowed). */
void kp_rec_meta_view(const struct kp_rec_header *rec, const char **key, const char **value);

#endif /* KP_REC_H */

/* SPDX-License-Identifier: MIT */
/*
 * recpack.h - the record-aware encoding of a chunk (KP_CODEC_PACKED, FORMAT.md §3.1).
 *
 * A packed chunk is a run of blocks, each the encoding of whole records of about
 * KP_WRITER_BLOCK bytes, and zstd runs over the blocks. Within a block the records are split
 * into streams of like values: an op per record, verbatim bytes, small fields, times, and call
 * chains. A sample's fields up to its call chain are stored as differences from the previous
 * sample of its CPU, its call chain as an index into the chunk's table of call chains, and
 * the rest of it verbatim. Decoding gives back exactly the bytes that were packed, whatever
 * they were: the attrs only choose how a sample is split, and the split is stored with it.
 *
 * The tables (layouts, call chains, per-CPU predictions) start empty at each chunk and grow
 * block by block, the same way in the packer and the unpacker: a chunk decodes on its own,
 * and so does every prefix of whole blocks of it (what a torn chunk holds).
 *
 * The unpacker treats its input as hostile: every length, index and count is checked before
 * it is used, and a block that does not decode whole is an error, nothing of it handed out.
 */
#ifndef KP_RECPACK_H
#define KP_RECPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evlist.h"
#include "util.h"

#define KP_PACK_STREAMS 5
#define KP_PACK_LAYOUTS 32	/* sample_types per chunk; samples of more go verbatim */
#define KP_PACK_CTX 256		/* prediction slots, by CPU */
#define KP_PACK_CHAINS (1u << 16)	/* call chains in a chunk's table ... */
#define KP_PACK_CHAIN_WORDS (1u << 22)	/* ... and their entries */

struct kp_pack_ctx {
	uint64_t tid, time, dt, period, id, stream_id, addr, ip;
	uint32_t chain;		/* the last sample's chain: table index + 1, 0 none */
	uint8_t by_period;	/* predict the time from the period (1) or the last interval */
};

#define KP_PACK_FIELDS 9	/* the sample fields a layout can split off before the chain */

/* A sample_type, and how it splits a sample: worked out once per chunk, not per sample. */
struct kp_pack_layout {
	uint64_t st;
	int8_t pos[KP_PACK_FIELDS];	/* each field's word in the record, -1 absent */
	uint8_t delta[KP_PACK_FIELDS];	/* the fields stored by difference, in record order */
	uint8_t npre, ndelta;		/* the words before the chain; entries of delta */
	bool chain;			/* a call chain follows them */
};

/* What packer and unpacker both keep, in step: the tables of one chunk. */
struct kp_pack_state {
	struct kp_pack_layout layout[KP_PACK_LAYOUTS];
	unsigned nlayouts;
	uint64_t cpu;		/* the last sample's CPU word */
	struct kp_pack_ctx ctx[KP_PACK_CTX];
	uint64_t *words;	/* the chains' entries, one after another */
	size_t nwords, wcap;
	uint32_t *start, *len;	/* chain i: len[i] entries from words[start[i]] */
	size_t nchains, ccap;
};

/* The packer: learns the events from the ATTR records it packs (across chunks). */
struct kp_packer {
	struct kp_evlist evl;
	struct kp_pack_state st;
	uint32_t *hash;		/* open addressing: chain index + 1, 0 empty */
	size_t hcap;
	struct kp_bytes s[KP_PACK_STREAMS];
	struct kp_bytes out;	/* the packed chunk */
};

void kp_packer_init(struct kp_packer *p);
void kp_packer_release(struct kp_packer *p);

/* kp_packer_chunk - start packing a chunk: empty tables, empty output. */
void kp_packer_chunk(struct kp_packer *p);

/*
 * kp_packer_block - append the block of the @nrec whole, valid records at @recs (@len bytes)
 * to the chunk's output, p->out. Never fails (aborts on OOM).
 */
void kp_packer_block(struct kp_packer *p, const uint8_t *recs, size_t len, uint32_t nrec);

/*
 * The unpacker: the tables of the chunk it decodes, and which call chain of its table each
 * record decoded holds: chains[i] is record i's chain index + 1, 0 for a record without one
 * (verbatim, no call chain, or decoded when the table was full). Records with the same
 * non-zero value hold the same call chain.
 */
struct kp_unpacker {
	struct kp_pack_state st;
	uint32_t *chains;
	size_t chains_cap;
};

void kp_unpacker_init(struct kp_unpacker *u);
void kp_unpacker_release(struct kp_unpacker *u);

/*
 * kp_unpack - decode the packed chunk at @in (@len bytes) into @out (@cap bytes), from empty
 * tables. With @partial (a torn chunk), stops without error at the first block that is cut
 * short. Sets *@out_len to the bytes of records written and *@nrec to their count. Returns 0,
 * or -KP_EDECOMPRESS when a block is damaged or would not fit @cap (*@out_len then holds the
 * whole blocks before it).
 */
int kp_unpack(struct kp_unpacker *u, const uint8_t *in, size_t len, bool partial, uint8_t *out,
	      size_t cap, size_t *out_len, uint32_t *nrec);

#endif /* KP_RECPACK_H */

/* SPDX-License-Identifier: MIT */
/*
 * The packed chunk encoding (recpack.h, FORMAT.md §3.1) on its own: streams of records of
 * every shape a packer meets (samples of several layouts, with and without call chains,
 * contexts, READ and trailing fields; samples of no known event; samples whose call chain
 * lies about its length; side-band records), packed in blocks of several sizes and chunks of
 * several lengths, must unpack to exactly the bytes packed. Every prefix of a packed chunk
 * unpacks, as a torn chunk, to its whole blocks; mutated and cut chunks fail cleanly, never
 * writing past the room given.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/kprof-format.h"
#include "formats/recpack.h"
#include "formats/util.h"
#include "tests/tap.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct buf {
	uint8_t *p;
	size_t len, cap;
	size_t *ends;		/* each record's end */
	size_t nrec, ecap;
};

static void add(struct buf *b, const void *rec)
{
	const struct kp_rec_header *h = rec;

	KP_GROW(b->p, b->cap, b->len + h->size);
	memcpy(b->p + b->len, rec, h->size);
	b->len += h->size;
	KP_GROW(b->ends, b->ecap, b->nrec + 1);
	b->ends[b->nrec++] = b->len;
}

/* The events: their sample_types, ids 100 + index. */
static const uint64_t types[] = {
	PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
	PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
	PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
	PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP,
	PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
};
#define NEV (sizeof(types) / sizeof(types[0]))

static void add_attr(struct buf *b, unsigned index)
{
	uint8_t rec[sizeof(struct kp_rec_attr) + sizeof(struct perf_event_attr) + 8 + 8] = { 0 };
	struct kp_rec_attr a = { { KP_REC_ATTR, 0, sizeof(rec) },
				 sizeof(struct perf_event_attr), 1, 4, index };
	struct perf_event_attr attr = { .size = sizeof(attr), .sample_type = types[index],
					.sample_id_all = 1 };
	uint64_t id = 100 + index;

	memcpy(rec, &a, sizeof(a));
	memcpy(rec + sizeof(a), &attr, sizeof(attr));
	memcpy(rec + sizeof(a) + sizeof(attr), &id, 8);
	memcpy(rec + sizeof(a) + sizeof(attr) + 8, "ev\0", 4);
	add(b, rec);
}

/* A pool of call chains, so that samples repeat them as programs do. */
#define NCHAINS 40
static uint64_t chains[NCHAINS][24];
static unsigned chain_len[NCHAINS];

static void make_chains(void)
{
	for (unsigned c = 0; c < NCHAINS; c++) {
		unsigned n = 0, user = 1 + (unsigned)(next() % 12);

		if (c % 3 == 0) { /* a kernel part first */
			chains[c][n++] = PERF_CONTEXT_KERNEL;
			for (unsigned k = 0; k < 1 + c % 4; k++)
				chains[c][n++] = 0xffffffff81000000ull + (next() & 0xfffff);
		}
		if (c % 2 == 0)
			chains[c][n++] = PERF_CONTEXT_USER;
		for (unsigned k = 0; k < user && n < 24; k++) /* a shared outer part */
			chains[c][n++] = k < user / 2 ? 0x401000 + 0x40 * (user - k)
						       : 0x400000 + (next() & 0xffff);
		chain_len[c] = c == NCHAINS - 1 ? 0 : n; /* and one empty chain */
	}
}

static uint64_t ctime_[4], tid_[4];

/* A sample of event @e (its words as that event lays them out), or a mangled one. */
static void add_sample(struct buf *b, unsigned e, unsigned how)
{
	uint64_t w[80], st = types[e];
	unsigned n = 0, cpu = (unsigned)(next() % 4), c = (unsigned)(next() % NCHAINS);
	struct kp_rec_header h = { PERF_RECORD_SAMPLE, (uint16_t)(next() % 3 ? 2 : 1), 0 };
	uint8_t rec[8 + sizeof(w)];

	ctime_[cpu] += next() % 5 ? 250000 : next() % 1000000;
	if (next() % 50 == 0)
		tid_[cpu] = next() % 100000;
	w[n++] = how == 1 ? 999 : 100 + e; /* 999: an id of no event */
	if (st & PERF_SAMPLE_IP)
		w[n++] = chain_len[c] > 2 && next() % 4 ? chains[c][chain_len[c] > 1] : next();
	if (st & PERF_SAMPLE_TID)
		w[n++] = tid_[cpu] << 32 | tid_[cpu];
	if (st & PERF_SAMPLE_TIME)
		w[n++] = ctime_[cpu];
	if (st & PERF_SAMPLE_ADDR)
		w[n++] = next();
	if (st & PERF_SAMPLE_ID)
		w[n++] = 100 + e;
	if (st & PERF_SAMPLE_STREAM_ID)
		w[n++] = 7;
	if (st & PERF_SAMPLE_CPU)
		w[n++] = cpu;
	if (st & PERF_SAMPLE_PERIOD)
		w[n++] = next() % 10 ? 250000 : next() % 300000;
	if (st & PERF_SAMPLE_READ)
		w[n++] = next() % 1000;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		w[n++] = how == 2 ? 1000 : chain_len[c]; /* 2: a length past the record */
		for (unsigned k = 0; k < chain_len[c]; k++)
			w[n++] = chains[c][k];
	}
	for (unsigned k = 0, extra = st & (PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER) ? 1 + (unsigned)(next() % 6) : 0;
	     k < extra; k++)
		w[n++] = next();
	if (how == 3) /* 3: cut short, inside its prefix */
		n = 1;
	h.size = (uint16_t)(8 + 8 * n);
	memcpy(rec, &h, 8);
	memcpy(rec + 8, w, 8 * n);
	add(b, rec);
}

/* A side-band record: any type, any words. */
static void add_other(struct buf *b)
{
	uint8_t rec[8 + 8 * 8];
	unsigned n = (unsigned)(next() % 8);
	struct kp_rec_header h = { (uint32_t)(next() % 2 ? PERF_RECORD_COMM : KP_REC_ROUND), 0,
				   (uint16_t)(8 + 8 * n) };

	memcpy(rec, &h, 8);
	for (unsigned k = 0; k < n; k++) {
		uint64_t v = next();
		memcpy(rec + 8 + 8 * k, &v, 8);
	}
	add(b, rec);
}

static void make_stream(struct buf *b, unsigned nrec)
{
	for (unsigned e = 0; e < NEV; e++)
		add_attr(b, e);
	while (b->nrec < nrec) {
		unsigned r = (unsigned)(next() % 100);

		if (r < 3)
			add_other(b);
		else if (r < 5)
			add_sample(b, 0, 1 + (unsigned)(next() % 3));
		else
			add_sample(b, r < 70 ? 0 : (unsigned)(next() % NEV), 0);
	}
}

/* The call chain (its length, then its entries) of the sample at @w, or NULL without one. */
static const uint64_t *recorded_chain(const uint64_t *w)
{
	static const uint64_t before = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				       PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
				       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ;
	uint64_t st;

	if (w[0] < 100 || w[0] >= 100 + NEV)
		return NULL;
	st = types[w[0] - 100];
	if (!(st & PERF_SAMPLE_CALLCHAIN))
		return NULL;
	return w + 1 + __builtin_popcountll(st & before);
}

/* Pack records [@from, @to) of @b as one chunk, in blocks of about @block bytes. */
static void pack_chunk(struct kp_packer *p, const struct buf *b, size_t from, size_t to,
		       size_t block, size_t *nblocks)
{
	size_t r = from;

	kp_packer_chunk(p);
	*nblocks = 0;
	while (r < to) {
		size_t s = r ? b->ends[r - 1] : 0, want = s + block;
		uint32_t n = 0;

		while (r < to && (n == 0 || b->ends[r - 1] < want)) {
			r++;
			n++;
		}
		kp_packer_block(p, b->p + s, b->ends[r - 1] - s, n);
		(*nblocks)++;
	}
}

static bool unpacks_to(struct kp_unpacker *u, const struct kp_bytes *in, const uint8_t *want,
		       size_t len, uint32_t nrec)
{
	uint8_t *out = kp_xmalloc(len + 1);
	size_t got;
	uint32_t n;
	int rc = kp_unpack(u, in->p, in->len, false, out, len, &got, &n);
	bool same = rc == 0 && got == len && n == nrec && !memcmp(out, want, len);

	free(out);
	return same;
}

int main(void)
{
	struct buf b = { 0 };
	struct kp_packer p;
	struct kp_unpacker u;
	static const size_t blocks[] = { 64, 1000, 16384, SIZE_MAX / 2 };
	static const size_t chunkings[] = { 1, 7, 500, 5000 };

	make_chains();
	make_stream(&b, 5000);
	kp_packer_init(&p);
	kp_unpacker_init(&u);

	/* the whole stream, and chunks of it, in blocks of each size */
	for (size_t bi = 0; bi < 4; bi++)
		for (size_t ci = 0; ci < 4; ci++) {
			bool all = true;
			size_t packed = 0, nb, total = 0;

			kp_packer_release(&p);
			kp_packer_init(&p);
			for (size_t from = 0; from < b.nrec; from += chunkings[ci]) {
				size_t to = from + chunkings[ci] < b.nrec ? from + chunkings[ci] : b.nrec;
				size_t s = from ? b.ends[from - 1] : 0;

				pack_chunk(&p, &b, from, to, blocks[bi], &nb);
				all &= unpacks_to(&u, &p.out, b.p + s, b.ends[to - 1] - s,
						  (uint32_t)(to - from));
				packed += p.out.len;
				total += b.ends[to - 1] - s;
			}
			char what[64];

			if (bi == 3)
				snprintf(what, sizeof(what), "one block per chunk");
			else
				snprintf(what, sizeof(what), "blocks of about %zu bytes", blocks[bi]);
			ok(all, "%s, chunks of %zu records: %zu bytes of records unpack exactly (%zu "
				"packed)", what, chunkings[ci], total, packed);
		}

	/* one chunk of many blocks: its packed size, and every prefix as a torn chunk */
	kp_packer_release(&p);
	kp_packer_init(&p);
	size_t nb;
	pack_chunk(&p, &b, 0, b.nrec, 4096, &nb);
	ok(p.out.len * 2 < b.len, "the packed chunk is %zu bytes for %zu of records (%zu blocks)",
	   p.out.len, b.len, nb);

	uint8_t *out = kp_xmalloc(b.len);
	bool torn_ok = true, whole_err = true;
	size_t best = 0;
	for (size_t cut = 0; cut < p.out.len; cut += 1 + cut / 64) {
		size_t got;
		uint32_t n;
		int rc = kp_unpack(&u, p.out.p, cut, true, out, b.len, &got, &n);
		bool at_end = n == 0 ? got == 0 : got == b.ends[n - 1];

		if (rc || !at_end || memcmp(out, b.p, got) || got < best)
			torn_ok = false;
		best = got;
		if (kp_unpack(&u, p.out.p, cut, false, out, b.len, &got, &n) == 0 && cut)
			whole_err = false;
	}
	ok(torn_ok, "every prefix of the chunk unpacks, torn, to its whole blocks' records, "
		    "growing with the prefix (%zu bytes of records at the longest cut)", best);
	ok(whole_err, "a cut chunk read as whole is an error");

	/* which records share a call chain, as the unpacker tells */
	{
		size_t got;
		uint32_t n;
		unsigned shared = 0, wrong = 0, ids = 0;
		const uint64_t **seen = kp_xcalloc(KP_PACK_CHAINS + 1, sizeof(*seen));

		kp_unpack(&u, p.out.p, p.out.len, false, out, b.len, &got, &n);
		for (uint32_t i = 0, off = 0; i < n; off += ((struct kp_rec_header *)(out + off))->size, i++) {
			const uint64_t *w = (const uint64_t *)(out + off + 8), *chain;
			uint32_t id = u.chains[i];

			if (!id)
				continue;
			chain = recorded_chain(w);
			if (!chain) {
				wrong++; /* an id on a record with no chain */
				continue;
			}
			if (!seen[id]) {
				seen[id] = chain;
				ids++;
			} else if (seen[id][0] != chain[0] ||
				   memcmp(seen[id] + 1, chain + 1, chain[0] * 8)) {
				wrong++;
			} else {
				shared++;
			}
		}
		ok(!wrong && ids <= NCHAINS + 1 && shared > n / 2,
		   "records with the same chain id hold the same call chain (%u records share %u "
		   "ids, %u wrong)", shared, ids, wrong);
		free(seen);
	}

	/* not enough room: an error, nothing written past it */
	{
		uint8_t *small = kp_xmalloc(b.len / 2);
		size_t got;
		uint32_t n;
		int rc = kp_unpack(&u, p.out.p, p.out.len, false, small, b.len / 2, &got, &n);

		ok(rc == -KP_EDECOMPRESS && got <= b.len / 2 && !memcmp(small, b.p, got),
		   "a chunk that does not fit half its room is an error (%zu bytes of whole blocks "
		   "before it)", got);
		free(small);
	}

	/*
	 * mutations: a wrong byte, a cut, trailing junk: 0 or an error, never past the room. (A
	 * wrong byte among verbatim bytes decodes to other records: the chunk's CRC is what
	 * catches damage on disk; here the bounds are what is checked.)
	 */
	uint8_t *m = kp_xmalloc(p.out.len + 16);
	unsigned clean = 0, errors = 0, trials = 3000;
	for (unsigned t = 0; t < trials; t++) {
		size_t len = p.out.len, got;
		uint32_t n;
		int rc;

		memcpy(m, p.out.p, len);
		switch (t % 4) {
		case 0:
			m[next() % len] ^= (uint8_t)(1u << (next() % 8));
			break;
		case 1:
			m[next() % len] = (uint8_t)next();
			break;
		case 2:
			m[next() % len] = 0xff;
			m[next() % len] = 0x80;
			break;
		default:
			len = len - 1 - next() % 64;
			memset(m + len, (int)(next() & 0xff), 16);
			len += 1 + next() % 16;
			break;
		}
		rc = kp_unpack(&u, m, len, t % 2, out, b.len, &got, &n);
		if (rc != 0 && rc != -KP_EDECOMPRESS)
			break;
		if (got > b.len)
			break;
		rc ? errors++ : clean++;
	}
	ok(clean + errors == trials, "%u mutated chunks: %u decode to something, %u are errors, "
				     "none crash or overrun", trials, clean, errors);

	free(m);
	free(out);
	kp_packer_release(&p);
	kp_unpacker_release(&u);
	free(b.p);
	free(b.ends);
	return tap_done();
}

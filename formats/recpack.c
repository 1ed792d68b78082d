/* SPDX-License-Identifier: MIT */
#include "recpack.h"

#include <stdlib.h>
#include <string.h>

#include "kprof-format.h"
#include "util.h"

/* The streams of a block (FORMAT.md §3.1). */
enum { S_OP, S_RAW, S_FIELD, S_TIME, S_CHAIN };

#define OP_VERBATIM 0	/* the record as it is, in S_RAW; op 1 + L: a sample of layout L */

/* The fields before the call chain, in record order: what a layout splits off a sample. */
static const uint64_t prefix_bits[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,	      PERF_SAMPLE_TID,
	PERF_SAMPLE_TIME,	PERF_SAMPLE_ADDR,     PERF_SAMPLE_ID,
	PERF_SAMPLE_STREAM_ID,	PERF_SAMPLE_CPU,      PERF_SAMPLE_PERIOD,
};
enum { F_IDENTIFIER, F_IP, F_TID, F_TIME, F_ADDR, F_ID, F_STREAM_ID, F_CPU, F_PERIOD, F_NR };

_Static_assert(F_NR == KP_PACK_FIELDS, "recpack.h's KP_PACK_FIELDS counts prefix_bits");

/*
 * The layout of @st: where each prefix field is among the
 * record's words, which are stored as differences (all but CPU and TIME, which have rules of
 * their own), and whether a call chain follows directly (it does unless READ comes between).
 */
static void layout_make(struct kp_pack_layout *l, uint64_t st)
{
	memset(l, 0, sizeof(*l));
	l->st = st;
	for (size_t f = 0; f < F_NR; f++) {
		l->pos[f] = st & prefix_bits[f] ? (int8_t)l->npre++ : -1;
		if (l->pos[f] >= 0 && f != F_CPU && f != F_TIME)
			l->delta[l->ndelta++] = (uint8_t)f;
	}
	l->chain = (st & PERF_SAMPLE_CALLCHAIN) && !(st & PERF_SAMPLE_READ);
}

static uint64_t zz(uint64_t v)
{
	return (v << 1) ^ (0 - (v >> 63));
}

static uint64_t unzz(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* --- the tables both sides keep ------------------------------------------------------------ */

static void state_reset(struct kp_pack_state *s)
{
	s->nlayouts = 0;
	s->cpu = 0;
	memset(s->ctx, 0, sizeof(s->ctx));
	s->nwords = 0;
	s->nchains = 0;
}

static void state_release(struct kp_pack_state *s)
{
	free(s->words);
	free(s->start);
	free(s->len);
	memset(s, 0, sizeof(*s));
}

/* Room for another chain of @n entries, by the same rule on both sides. */
static bool chain_fits(const struct kp_pack_state *s, uint64_t n)
{
	return s->nchains < KP_PACK_CHAINS && n <= KP_PACK_CHAIN_WORDS - s->nwords;
}

/* Append the chain of @n entries at @e (it fits); returns its index. */
static uint32_t chain_add(struct kp_pack_state *s, const uint64_t *e, size_t n)
{
	size_t ccap = s->ccap;

	KP_GROW(s->words, s->wcap, s->nwords + n + 1);
	KP_GROW(s->start, ccap, s->nchains + 1);
	KP_GROW(s->len, s->ccap, s->nchains + 1);
	if (n)
		memcpy(s->words + s->nwords, e, n * sizeof(*e));
	s->start[s->nchains] = (uint32_t)s->nwords;
	s->len[s->nchains] = (uint32_t)n;
	s->nwords += n;
	return (uint32_t)s->nchains++;
}

/* The slot of predictions a sample of CPU word @cpu uses. */
static struct kp_pack_ctx *ctx_of(struct kp_pack_state *s, uint64_t st, uint64_t cpu)
{
	return &s->ctx[st & PERF_SAMPLE_CPU ? (uint32_t)cpu % KP_PACK_CTX : 0];
}

/* The address a sample's IP is told from: its chain's first entry that is not a context. */
static uint64_t ip_ref(const struct kp_pack_ctx *x, const uint64_t *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (e[i] < PERF_CONTEXT_MAX)
			return e[i];
	return x->ip;
}

/* The time a sample is predicted at; and what the next prediction is made from. */
static uint64_t time_pred(const struct kp_pack_ctx *x, bool has_period, uint64_t period)
{
	return x->time + (x->by_period && has_period ? period : x->dt);
}

static void time_seen(struct kp_pack_ctx *x, uint64_t t, bool has_period, uint64_t period)
{
	uint64_t by_p = zz(t - x->time - period), by_dt = zz(t - x->time - x->dt);

	x->by_period = has_period && by_p <= by_dt;
	x->dt = t - x->time;
	x->time = t;
}

/* The predictions of the fields before the chain, by field: what each is stored against
 * (IP, TIME and CPU have rules of their own). */
static const size_t field_refs[F_NR] = {
	[F_IDENTIFIER] = offsetof(struct kp_pack_ctx, id),
	[F_ID] = offsetof(struct kp_pack_ctx, id),
	[F_TID] = offsetof(struct kp_pack_ctx, tid),
	[F_ADDR] = offsetof(struct kp_pack_ctx, addr),
	[F_STREAM_ID] = offsetof(struct kp_pack_ctx, stream_id),
	[F_PERIOD] = offsetof(struct kp_pack_ctx, period),
};

static uint64_t *field_ref(struct kp_pack_ctx *x, size_t f)
{
	return (uint64_t *)((char *)x + field_refs[f]);
}

/* --- packing ------------------------------------------------------------------------------ */

static void put_u8(struct kp_bytes *b, uint8_t v)
{
	kp_bytes_put(b, &v, 1);
}

static void put_var(struct kp_bytes *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
		n++;
	} while (v);
	kp_bytes_put(b, tmp, n);
}

void kp_packer_init(struct kp_packer *p)
{
	memset(p, 0, sizeof(*p));
	kp_evlist_init(&p->evl);
}

void kp_packer_release(struct kp_packer *p)
{
	kp_evlist_release(&p->evl);
	state_release(&p->st);
	free(p->hash);
	for (size_t i = 0; i < KP_PACK_STREAMS; i++)
		free(p->s[i].p);
	free(p->out.p);
	memset(p, 0, sizeof(*p));
}

void kp_packer_chunk(struct kp_packer *p)
{
	state_reset(&p->st);
	if (p->hash)
		memset(p->hash, 0, p->hcap * sizeof(*p->hash));
	p->out.len = 0;
}

static uint64_t chain_hash(const uint64_t *e, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;

	for (size_t i = 0; i < n; i++)
		h = (h ^ e[i]) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 29);
}

static bool chain_is(const struct kp_pack_state *s, uint32_t i, const uint64_t *e, size_t n)
{
	return s->len[i] == n && !memcmp(s->words + s->start[i], e, n * sizeof(*e));
}

/* The hash slot of the chain @e, or of where it would go. */
static uint32_t *hash_slot(struct kp_packer *p, const uint64_t *e, size_t n)
{
	size_t mask = p->hcap - 1, i = chain_hash(e, n) & mask;

	while (p->hash[i] && !chain_is(&p->st, p->hash[i] - 1, e, n))
		i = (i + 1) & mask;
	return &p->hash[i];
}

static void hash_grow(struct kp_packer *p)
{
	uint32_t *old = p->hash;
	size_t oldcap = p->hcap;

	p->hcap = oldcap ? oldcap * 2 : 1024;
	p->hash = kp_xcalloc(p->hcap, sizeof(*p->hash));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i]) {
			uint32_t c = old[i] - 1;
			*hash_slot(p, p->st.words + p->st.start[c], p->st.len[c]) = old[i];
		}
	free(old);
}

/*
 * S_CHAIN: 1, the chain of the CPU's last sample; 2 + i, chain i of the table; 0, a new
 * chain: its length, how many of its outermost entries are the last chain's, and the others,
 * each against the last chain's entry at its depth (or the entry before it).
 */
static void pack_chain(struct kp_packer *p, struct kp_pack_ctx *x, const uint64_t *e, size_t n)
{
	struct kp_pack_state *s = &p->st;
	const uint64_t *prev = x->chain ? s->words + s->start[x->chain - 1] : NULL;
	size_t plen = x->chain ? s->len[x->chain - 1] : 0, same = 0;
	struct kp_bytes *b = &p->s[S_CHAIN];
	uint32_t *slot;

	if (x->chain && chain_is(s, x->chain - 1, e, n)) {
		put_var(b, 1);
		return;
	}
	if (2 * (s->nchains + 1) > p->hcap)
		hash_grow(p);
	slot = hash_slot(p, e, n);
	if (*slot) {
		put_var(b, 1 + *slot);
		x->chain = *slot;
		return;
	}
	while (same < n && same < plen && e[n - 1 - same] == prev[plen - 1 - same])
		same++;
	put_var(b, 0);
	put_var(b, n);
	put_var(b, same);
	for (size_t k = 0; k < n - same; k++)
		put_var(b, zz(e[k] - (k < plen ? prev[k] : k ? e[k - 1] : 0)));
	x->chain = 0;
	if (chain_fits(s, n)) {
		x->chain = chain_add(s, e, n) + 1;
		*slot = x->chain;
	}
}

/*
 * The layout of @st in this chunk and its op; NULL when the table is full. A layout not yet
 * in the table is made in its next slot, *@fresh set: the sample takes it (and S_FIELD says
 * so) only once the layout is known to split it.
 */
static const struct kp_pack_layout *pack_layout(struct kp_packer *p, uint64_t st, uint8_t *op,
						 bool *fresh)
{
	struct kp_pack_state *s = &p->st;

	*fresh = false;
	for (unsigned i = 0; i < s->nlayouts; i++)
		if (s->layout[i].st == st) {
			*op = (uint8_t)(1 + i);
			return &s->layout[i];
		}
	if (s->nlayouts == KP_PACK_LAYOUTS)
		return NULL;
	*op = (uint8_t)(1 + s->nlayouts);
	*fresh = true;
	layout_make(&s->layout[s->nlayouts], st);
	return &s->layout[s->nlayouts];
}

/* A sample as a layout splits it; false when it is not one (it goes verbatim). */
static bool pack_sample(struct kp_packer *p, const struct kp_rec_header *rec)
{
	const struct kp_evsel *ev = kp_evlist_find(&p->evl, rec);
	const uint64_t *w = (const uint64_t *)(rec + 1);
	size_t nw = (rec->size - sizeof(*rec)) / 8, npre, nr = 0, rest;
	struct kp_bytes *f = &p->s[S_FIELD];
	const struct kp_pack_layout *l;
	const int8_t *pos;
	struct kp_pack_ctx *x;
	uint8_t op;
	bool chain, fresh;

	if (!ev || !(l = pack_layout(p, ev->attr.sample_type, &op, &fresh)))
		return false;
	pos = l->pos;
	npre = l->npre;
	chain = l->chain;
	if (nw < npre + chain || (chain && (nr = w[npre]) > nw - npre - 1))
		return false;
	rest = nw - npre - (chain ? 1 + nr : 0);
	if (fresh) {
		p->st.nlayouts++;
		put_var(f, l->st);
	}
	put_u8(&p->s[S_OP], op);
	put_var(f, rec->misc);
	put_var(f, rest);
	if (pos[F_CPU] >= 0) {
		put_var(f, zz(w[pos[F_CPU]] - p->st.cpu));
		p->st.cpu = w[pos[F_CPU]];
	}
	x = ctx_of(&p->st, l->st, p->st.cpu);
	if (chain)
		pack_chain(p, x, w + npre + 1, nr);
	for (size_t i = 0; i < l->ndelta; i++) {
		size_t k = l->delta[i];
		uint64_t v = w[pos[k]], *ref = field_ref(x, k);

		if (k == F_IP) {
			put_var(f, zz(v - ip_ref(x, chain ? w + npre + 1 : NULL, nr)));
			x->ip = v;
		} else {
			put_var(f, zz(v - *ref));
			*ref = v;
		}
	}
	if (pos[F_TIME] >= 0) {
		uint64_t t = w[pos[F_TIME]], period = pos[F_PERIOD] >= 0 ? w[pos[F_PERIOD]] : 0;

		put_var(&p->s[S_TIME], zz(t - time_pred(x, pos[F_PERIOD] >= 0, period)));
		time_seen(x, t, pos[F_PERIOD] >= 0, period);
	}
	kp_bytes_put(&p->s[S_RAW], w + nw - rest, rest * 8);
	return true;
}

void kp_packer_block(struct kp_packer *p, const uint8_t *recs, size_t len, uint32_t nrec)
{
	for (size_t i = 0; i < KP_PACK_STREAMS; i++)
		p->s[i].len = 0;
	for (size_t pos = 0; pos < len;) {
		const struct kp_rec_header *rec = (const void *)(recs + pos);

		if (rec->type == KP_REC_ATTR)
			kp_evlist_add(&p->evl, rec);
		if (rec->type != PERF_RECORD_SAMPLE || !pack_sample(p, rec)) {
			put_u8(&p->s[S_OP], OP_VERBATIM);
			kp_bytes_put(&p->s[S_RAW], rec, rec->size);
		}
		pos += rec->size;
	}
	put_var(&p->out, nrec);
	put_var(&p->out, len);
	for (size_t i = 0; i < KP_PACK_STREAMS; i++)
		put_var(&p->out, p->s[i].len);
	for (size_t i = 0; i < KP_PACK_STREAMS; i++)
		kp_bytes_put(&p->out, p->s[i].p, p->s[i].len);
}

/* --- unpacking ---------------------------------------------------------------------------- */

struct in {
	const uint8_t *p, *end;
};

/* A varint of two or more bytes; false when the stream ends inside it or it runs past 64 bits. */
static bool get_var_long(struct in *s, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (s->p == s->end)
			return false;
		uint8_t b = *s->p++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return shift < 63 || b <= 1;
	}
	return false;
}

/* A varint: most are one byte (small differences, indexes), taken without a loop. */
static inline bool get_var(struct in *s, uint64_t *v)
{
	if (__builtin_expect(s->p < s->end && *s->p < 0x80, 1)) {
		*v = *s->p++;
		return true;
	}
	return get_var_long(s, v);
}

static bool get_bytes(struct in *s, void *dst, size_t n)
{
	if ((size_t)(s->end - s->p) < n)
		return false;
	memcpy(dst, s->p, n);
	s->p += n;
	return true;
}

void kp_unpacker_init(struct kp_unpacker *u)
{
	memset(u, 0, sizeof(*u));
}

void kp_unpacker_release(struct kp_unpacker *u)
{
	state_release(&u->st);
	free(u->chains);
}

struct block {
	struct in s[KP_PACK_STREAMS];
	uint8_t *out;		/* where the next record goes */
	size_t room;		/* bytes left there */
	uint32_t chain;		/* the last sample's chain: table index + 1, 0 none */
};

/*
 * The chain of a sample, written at @e (room for @max entries); *@n its length, *@src where
 * it was copied from (the table's copy, which the IP is told from: reading back what a
 * memcpy just wrote would wait for its stores).
 */
static bool unpack_chain(struct kp_pack_state *s, struct kp_pack_ctx *x, struct in *in,
			 uint64_t *e, size_t max, size_t *n, const uint64_t **src)
{
	uint64_t c, len, same, z;
	const uint64_t *prev;
	size_t plen;

	if (!get_var(in, &c))
		return false;
	if (c) {
		uint32_t i = c == 1 ? x->chain : c - 1 <= s->nchains ? (uint32_t)(c - 1) : 0;
		if (!i || s->len[i - 1] > max)
			return false;
		*n = s->len[i - 1];
		*src = s->words + s->start[i - 1];
		for (size_t k = 0; k < *n; k++) /* a few words: a call to memcpy costs more */
			e[k] = (*src)[k];
		x->chain = i;
		return true;
	}
	/* a new chain, told from the CPU's last one */
	prev = x->chain ? s->words + s->start[x->chain - 1] : NULL;
	plen = x->chain ? s->len[x->chain - 1] : 0;
	if (!get_var(in, &len) || !get_var(in, &same) || len > max || same > len || same > plen)
		return false;
	for (size_t k = 0; k < len - same; k++) {
		if (!get_var(in, &z))
			return false;
		e[k] = unzz(z) + (k < plen ? prev[k] : k ? e[k - 1] : 0);
	}
	if (same)
		memcpy(e + len - same, prev + plen - same, same * sizeof(*e));
	*n = len;
	*src = e;
	x->chain = chain_fits(s, len) ? chain_add(s, e, len) + 1 : 0;
	return true;
}

static bool unpack_sample(struct kp_pack_state *s, struct block *b, unsigned layout)
{
	struct in *f = &b->s[S_FIELD];
	struct kp_rec_header h = { PERF_RECORD_SAMPLE, 0, 0 };
	uint64_t st, misc, rest, v, *w = (uint64_t *)(b->out + sizeof(h));
	const uint64_t *src = NULL;
	size_t max = b->room < KP_REC_MAX_SIZE ? b->room : KP_REC_MAX_SIZE, npre, nr = 0, words;
	const struct kp_pack_layout *l;
	const int8_t *pos;
	struct kp_pack_ctx *x;
	bool chain;

	if (b->room < sizeof(h))
		return false;
	if (layout == s->nlayouts) {
		if (layout == KP_PACK_LAYOUTS || !get_var(f, &st))
			return false;
		layout_make(&s->layout[s->nlayouts], st);
		l = &s->layout[s->nlayouts++];
	} else if (layout < s->nlayouts) {
		l = &s->layout[layout];
	} else {
		return false;
	}
	pos = l->pos;
	npre = l->npre;
	chain = l->chain;
	max = (max - sizeof(h)) / 8; /* words the record may hold */
	if (!get_var(f, &misc) || misc > UINT16_MAX || !get_var(f, &rest) || npre + chain > max ||
	    rest > max - npre - chain)
		return false;
	if (pos[F_CPU] >= 0) {
		if (!get_var(f, &v))
			return false;
		s->cpu += unzz(v);
		w[pos[F_CPU]] = s->cpu;
	}
	x = ctx_of(s, l->st, s->cpu);
	if (chain) {
		if (!unpack_chain(s, x, &b->s[S_CHAIN], w + npre + 1, max - npre - 1 - rest, &nr,
				  &src))
			return false;
		w[npre] = nr;
		b->chain = x->chain;
	}
	for (size_t i = 0; i < l->ndelta; i++) {
		size_t k = l->delta[i];
		uint64_t *ref = field_ref(x, k);

		if (!get_var(f, &v))
			return false;
		if (k == F_IP) {
			x->ip = unzz(v) + ip_ref(x, src, nr);
			w[pos[k]] = x->ip;
		} else {
			*ref += unzz(v);
			w[pos[k]] = *ref;
		}
	}
	if (pos[F_TIME] >= 0) {
		uint64_t period = pos[F_PERIOD] >= 0 ? x->period : 0, t;

		if (!get_var(&b->s[S_TIME], &v))
			return false;
		t = unzz(v) + time_pred(x, pos[F_PERIOD] >= 0, period);
		time_seen(x, t, pos[F_PERIOD] >= 0, period);
		w[pos[F_TIME]] = t;
	}
	words = npre + (chain ? 1 + nr : 0);
	if (!get_bytes(&b->s[S_RAW], w + words, rest * 8))
		return false;
	h.misc = (uint16_t)misc;
	h.size = (uint16_t)(sizeof(h) + (words + rest) * 8);
	memcpy(b->out, &h, sizeof(h));
	b->out += h.size;
	b->room -= h.size;
	return true;
}

static bool unpack_verbatim(struct block *b)
{
	struct kp_rec_header h;

	if ((size_t)(b->s[S_RAW].end - b->s[S_RAW].p) < sizeof(h))
		return false;
	memcpy(&h, b->s[S_RAW].p, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 || h.size > b->room ||
	    !get_bytes(&b->s[S_RAW], b->out, h.size))
		return false;
	b->out += h.size;
	b->room -= h.size;
	return true;
}

/*
 * One block at *@in, its records numbered from @first; 1 decoded, 0 cut short (the input
 * ends inside it), -1 damaged.
 */
static int unpack_block(struct kp_unpacker *u, struct in *in, uint8_t *out, size_t room,
			size_t first, size_t *out_len, uint32_t *nrec)
{
	struct kp_pack_state *s = &u->st;
	uint64_t n, raw, len[KP_PACK_STREAMS];
	struct block b = { .out = out };

	if (!get_var(in, &n) || !get_var(in, &raw))
		return 0;
	for (size_t i = 0; i < KP_PACK_STREAMS; i++)
		if (!get_var(in, &len[i]))
			return 0;
	if (raw > room || n > raw / 8)
		return -1;
	for (size_t i = 0; i < KP_PACK_STREAMS; i++) {
		if (len[i] > (size_t)(in->end - in->p))
			return 0;
		b.s[i] = (struct in){ in->p, in->p + len[i] };
		in->p += len[i];
	}
	b.room = raw;
	/* records are 8 bytes or more: u->chains stays below the output's size / 8 */
	KP_GROW(u->chains, u->chains_cap, first + n);
	for (uint64_t r = 0; r < n; r++) {
		uint8_t op;

		if (!get_bytes(&b.s[S_OP], &op, 1))
			return -1;
		b.chain = 0;
		if (!(op == OP_VERBATIM ? unpack_verbatim(&b) : unpack_sample(s, &b, op - 1u)))
			return -1;
		u->chains[first + r] = b.chain;
	}
	for (size_t i = 0; i < KP_PACK_STREAMS; i++)
		if (b.s[i].p != b.s[i].end)
			return -1;
	if (b.room)
		return -1;
	*out_len = raw;
	*nrec = (uint32_t)n;
	return 1;
}

int kp_unpack(struct kp_unpacker *u, const uint8_t *in, size_t len, bool partial, uint8_t *out,
	      size_t cap, size_t *out_len, uint32_t *nrec)
{
	struct in s = { in, in + len };

	state_reset(&u->st);
	*out_len = 0;
	*nrec = 0;
	while (s.p < s.end) {
		size_t got;
		uint32_t n;
		int rc = unpack_block(u, &s, out + *out_len, cap - *out_len, *nrec, &got, &n);

		if (rc < 0 || (rc == 0 && !partial))
			return -KP_EDECOMPRESS;
		if (rc == 0)
			break;
		*out_len += got;
		*nrec += n;
	}
	return 0;
}

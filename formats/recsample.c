/* SPDX-License-Identifier: MIT */
/*
 * recsample.c - the fields of a sample and of the sample_id_all trailer other records carry:
 * read from a record as its event's attr lays them out, and written back into records (the
 * encoders of rec.h). The record table and the other records' parsers are rec.c's.
 */
#include <stddef.h>
#include <string.h>

#include "rec.h"
#include "util.h"

/* A bounds-checked reader of u64 words; the first failed take makes every later one fail. */
struct cursor {
	const uint64_t *p, *end;
	bool bad;
};

static const uint64_t *take(struct cursor *c, uint64_t n)
{
	const uint64_t *p = c->p;

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint64_t take1(struct cursor *c)
{
	const uint64_t *p = take(c, 1);

	return p ? *p : 0;
}

/*
 * The encoders' writer: it counts the bytes of a record and, given a buffer, writes them. A
 * record that would outgrow KP_REC_MAX_SIZE, or fields that break the layout, make it bad.
 */
struct sink {
	uint8_t *buf;		/* NULL: count only */
	size_t len;		/* never above KP_REC_MAX_SIZE */
	bool bad;
};

static void put(struct sink *o, const void *src, uint64_t n)
{
	if (o->bad || n > KP_REC_MAX_SIZE - o->len || (n && !src)) {
		o->bad = true;
		return;
	}
	if (o->buf && n)
		memcpy(o->buf + o->len, src, n);
	o->len += n;
}

static void put1(struct sink *o, uint64_t v)
{
	put(o, &v, sizeof(v));
}

static void put_words(struct sink *o, const uint64_t *w, uint64_t n)
{
	if (n > KP_REC_MAX_SIZE / 8)
		o->bad = true;
	else
		put(o, w, n * 8);
}

static void put_zeros(struct sink *o, size_t n)
{
	static const uint8_t zeros[8];

	for (; n > 8; n -= 8)
		put(o, zeros, 8);
	put(o, zeros, n);
}

/* @n bytes at @p, then zeros up to the next multiple of 8 of the record. */
static void put_padded(struct sink *o, const void *p, uint64_t n)
{
	put(o, p, n);
	put_zeros(o, kp_align8(o->len) - o->len);
}

/* @str and its NUL in a field of at least @min bytes, zero-padded to a multiple of 8. */
static void put_str(struct sink *o, const char *str, size_t min)
{
	size_t start = o->len, n;

	if (!str) {
		o->bad = true;
		return;
	}
	n = strlen(str) + 1;
	put_padded(o, str, n);
	if (n < min)
		put_zeros(o, min - (o->len - start));
}

typedef void emit_fn(struct sink *o, const void *arg);

/* Run @emit once to size the record, and again to write it when it fits @cap; its header's
 * size is set here. */
static int encode(emit_fn *emit, const void *arg, void *buf, size_t cap)
{
	struct sink o = { NULL, 0, false };
	uint16_t size;

	emit(&o, arg);
	if (o.bad || o.len < sizeof(struct kp_rec_header))
		return -KP_EENCODE;
	if (o.len > cap)
		return (int)o.len;
	o = (struct sink){ buf, 0, false };
	emit(&o, arg);
	size = (uint16_t)o.len;
	memcpy((uint8_t *)buf + offsetof(struct kp_rec_header, size), &size, sizeof(size));
	return (int)o.len;
}

/*
 * The fields of a sample, one row each in the order the kernel writes them: how each is read
 * into struct kp_sample and written back from it. A plain u64 field names its place (@off); a
 * register set says which it is (@off 1: REGS_INTR).
 */
struct sample_field {
	uint64_t bits;		/* present when sample_type has any of them */
	size_t off;
	void (*parse)(const struct perf_event_attr *attr, const struct sample_field *f,
		      struct cursor *c, struct kp_sample *s);
	void (*put)(const struct perf_event_attr *attr, const struct sample_field *f,
		    struct sink *o, const struct kp_sample *s);
};

static void parse_word(const struct perf_event_attr *attr, const struct sample_field *f,
		       struct cursor *c, struct kp_sample *s)
{
	uint64_t v = take1(c);

	(void)attr;
	memcpy((uint8_t *)s + f->off, &v, sizeof(v));
}

static void put_word(const struct perf_event_attr *attr, const struct sample_field *f,
		     struct sink *o, const struct kp_sample *s)
{
	uint64_t v;

	(void)attr;
	memcpy(&v, (const uint8_t *)s + f->off, sizeof(v));
	put1(o, v);
}

static void parse_tid(const struct perf_event_attr *attr, const struct sample_field *f,
		      struct cursor *c, struct kp_sample *s)
{
	uint64_t v = take1(c);

	(void)attr;
	(void)f;
	memcpy(&s->pid, &v, 4);
	memcpy(&s->tid, (const char *)&v + 4, 4);
}

static void put_tid(const struct perf_event_attr *attr, const struct sample_field *f,
		    struct sink *o, const struct kp_sample *s)
{
	uint32_t v[2] = { s->pid, s->tid };

	(void)attr;
	(void)f;
	put(o, v, sizeof(v));
}

static void parse_cpu(const struct perf_event_attr *attr, const struct sample_field *f,
		      struct cursor *c, struct kp_sample *s)
{
	(void)attr;
	(void)f;
	s->cpu = (uint32_t)take1(c); /* u32 cpu, u32 reserved */
}

static void put_cpu(const struct perf_event_attr *attr, const struct sample_field *f,
		    struct sink *o, const struct kp_sample *s)
{
	uint32_t v[2] = { s->cpu, 0 };

	(void)attr;
	(void)f;
	put(o, v, sizeof(v));
}

/* READ: the words after a group's nr (of @nr entries), or all of them without GROUP. */
static uint64_t read_words(uint64_t fmt, uint64_t nr)
{
	uint64_t per = 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
	uint64_t times = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);

	return fmt & PERF_FORMAT_GROUP ? times + nr * per : per + times;
}

#define READ_GROUP_MAX 4096 /* events in a group: bounds nr before it is multiplied */

static void parse_read(const struct perf_event_attr *attr, const struct sample_field *f,
		       struct cursor *c, struct kp_sample *s)
{
	const uint64_t *start = c->p;
	uint64_t nr = 0;

	(void)f;
	if (attr->read_format & PERF_FORMAT_GROUP) { /* group: nr, times, then nr entries */
		nr = take1(c);
		if (nr > READ_GROUP_MAX)
			c->bad = true;
	}
	take(c, c->bad ? 0 : read_words(attr->read_format, nr));
	if (!c->bad) {
		s->read = start;
		s->nr_read = (uint64_t)(c->p - start);
	}
}

static void put_read(const struct perf_event_attr *attr, const struct sample_field *f,
		     struct sink *o, const struct kp_sample *s)
{
	bool group = attr->read_format & PERF_FORMAT_GROUP;
	uint64_t nr = group && s->nr_read ? s->read[0] : 0;

	(void)f;
	if ((group && (!s->nr_read || nr > READ_GROUP_MAX)) ||
	    s->nr_read != group + read_words(attr->read_format, nr))
		o->bad = true;
	put_words(o, s->read, s->nr_read);
}

static void parse_callchain(const struct perf_event_attr *attr, const struct sample_field *f,
			    struct cursor *c, struct kp_sample *s)
{
	(void)attr;
	(void)f;
	s->nr_callchain = take1(c);
	s->callchain = take(c, s->nr_callchain);
}

static void put_callchain(const struct perf_event_attr *attr, const struct sample_field *f,
			  struct sink *o, const struct kp_sample *s)
{
	(void)attr;
	(void)f;
	put1(o, s->nr_callchain);
	put_words(o, s->callchain, s->nr_callchain);
}

/* RAW: u32 size, then size bytes, padded so that the whole is u64-aligned */
static void parse_raw(const struct perf_event_attr *attr, const struct sample_field *f,
		      struct cursor *c, struct kp_sample *s)
{
	const uint8_t *p = (const uint8_t *)c->p;

	(void)attr;
	(void)f;
	if (!c->bad && c->p < c->end) {
		memcpy(&s->raw_size, p, 4);
		s->raw = p + 4;
		take(c, (4 + (uint64_t)s->raw_size + 7) / 8);
	} else {
		c->bad = true;
	}
}

static void put_raw(const struct perf_event_attr *attr, const struct sample_field *f,
		    struct sink *o, const struct kp_sample *s)
{
	(void)attr;
	(void)f;
	put(o, &s->raw_size, sizeof(s->raw_size));
	put_padded(o, s->raw, s->raw_size);
}

static void parse_branch(const struct perf_event_attr *attr, const struct sample_field *f,
			 struct cursor *c, struct kp_sample *s)
{
	(void)f;
	s->nr_branches = take1(c);
	if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		s->branch_hw_index = take1(c);
	if (s->nr_branches > (uint64_t)(c->end - c->p) / 3)
		c->bad = true;
	s->branches = take(c, s->nr_branches * 3);
}

static void put_branch(const struct perf_event_attr *attr, const struct sample_field *f,
		       struct sink *o, const struct kp_sample *s)
{
	(void)f;
	put1(o, s->nr_branches);
	if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		put1(o, s->branch_hw_index);
	if (s->nr_branches > KP_REC_MAX_SIZE / 24)
		o->bad = true;
	else
		put_words(o, s->branches, s->nr_branches * 3);
}

/* REGS_USER and REGS_INTR: abi, then one u64 per mask bit unless abi is NONE. */
static void take_regs(struct cursor *c, uint64_t mask, uint64_t *abi, uint64_t *mask_out,
		      uint32_t *nr, const uint64_t **regs)
{
	*abi = take1(c);
	if (*abi) {
		*mask_out = mask;
		*nr = __builtin_popcountll(mask);
		*regs = take(c, *nr);
	}
}

static void put_regs(struct sink *o, uint64_t mask, uint64_t abi, uint32_t nr,
		     const uint64_t *regs)
{
	if (nr != (abi ? (uint32_t)__builtin_popcountll(mask) : 0))
		o->bad = true;
	put1(o, abi);
	put_words(o, regs, nr);
}

/* REGS_USER (@f->off 0) or REGS_INTR (1): the same layout, with the event's mask for each. */
static void parse_regs(const struct perf_event_attr *attr, const struct sample_field *f,
		       struct cursor *c, struct kp_sample *s)
{
	if (f->off)
		take_regs(c, attr->sample_regs_intr, &s->regs_intr_abi, &s->regs_intr_mask,
			  &s->nr_regs_intr, &s->regs_intr);
	else
		take_regs(c, attr->sample_regs_user, &s->regs_user_abi, &s->regs_user_mask,
			  &s->nr_regs_user, &s->regs_user);
}

static void put_regs_of(const struct perf_event_attr *attr, const struct sample_field *f,
			struct sink *o, const struct kp_sample *s)
{
	if (f->off)
		put_regs(o, attr->sample_regs_intr, s->regs_intr_abi, s->nr_regs_intr, s->regs_intr);
	else
		put_regs(o, attr->sample_regs_user, s->regs_user_abi, s->nr_regs_user, s->regs_user);
}

/* STACK_USER: size, size bytes of stack, and dyn_size unless size is 0 */
static void parse_stack(const struct perf_event_attr *attr, const struct sample_field *f,
			struct cursor *c, struct kp_sample *s)
{
	(void)attr;
	(void)f;
	s->stack_size = take1(c);
	if (s->stack_size % 8 || s->stack_size / 8 > (uint64_t)(c->end - c->p))
		c->bad = true;
	s->stack_data = take(c, s->stack_size / 8);
	if (s->stack_size) {
		s->stack_dyn_size = take1(c);
		if (s->stack_dyn_size > s->stack_size)
			c->bad = true;
	}
}

static void put_stack(const struct perf_event_attr *attr, const struct sample_field *f,
		      struct sink *o, const struct kp_sample *s)
{
	(void)attr;
	(void)f;
	if (s->stack_size % 8 || s->stack_dyn_size > s->stack_size)
		o->bad = true;
	put1(o, s->stack_size);
	put(o, s->stack_data, s->stack_size);
	if (s->stack_size)
		put1(o, s->stack_dyn_size);
}

/* AUX: u64 size, then size bytes padded to u64 */
static void parse_aux(const struct perf_event_attr *attr, const struct sample_field *f,
		      struct cursor *c, struct kp_sample *s)
{
	(void)attr;
	(void)f;
	s->aux_size = take1(c);
	/* size + 7 would wrap for a size near 2^64 */
	s->aux = take(c, s->aux_size / 8 + (s->aux_size % 8 != 0));
}

static void put_aux(const struct perf_event_attr *attr, const struct sample_field *f,
		    struct sink *o, const struct kp_sample *s)
{
	(void)attr;
	(void)f;
	put1(o, s->aux_size);
	put_padded(o, s->aux, s->aux_size);
}

#define WORD(bit, field) { bit, offsetof(struct kp_sample, field), parse_word, put_word }
#define FIELD(bit, name) { bit, 0, parse_##name, put_##name }
#define REGS(bit, intr) { bit, intr, parse_regs, put_regs_of }

static const struct sample_field sample_fields[] = {
	WORD(PERF_SAMPLE_IDENTIFIER, id),
	WORD(PERF_SAMPLE_IP, ip),
	FIELD(PERF_SAMPLE_TID, tid),
	WORD(PERF_SAMPLE_TIME, time),
	WORD(PERF_SAMPLE_ADDR, addr),
	WORD(PERF_SAMPLE_ID, id),
	WORD(PERF_SAMPLE_STREAM_ID, stream_id),
	FIELD(PERF_SAMPLE_CPU, cpu),
	WORD(PERF_SAMPLE_PERIOD, period),
	FIELD(PERF_SAMPLE_READ, read),
	FIELD(PERF_SAMPLE_CALLCHAIN, callchain),
	FIELD(PERF_SAMPLE_RAW, raw),
	FIELD(PERF_SAMPLE_BRANCH_STACK, branch),
	REGS(PERF_SAMPLE_REGS_USER, 0),
	FIELD(PERF_SAMPLE_STACK_USER, stack),
	WORD(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, weight),
	WORD(PERF_SAMPLE_DATA_SRC, data_src),
	WORD(PERF_SAMPLE_TRANSACTION, transaction),
	REGS(PERF_SAMPLE_REGS_INTR, 1),
	WORD(PERF_SAMPLE_PHYS_ADDR, phys_addr),
	WORD(PERF_SAMPLE_CGROUP, cgroup),
	WORD(PERF_SAMPLE_DATA_PAGE_SIZE, data_page_size),
	WORD(PERF_SAMPLE_CODE_PAGE_SIZE, code_page_size),
	FIELD(PERF_SAMPLE_AUX, aux),
};

/* The sample_id_all trailer of other records: the same fields, in this order. */
static const struct sample_field id_fields[] = {
	FIELD(PERF_SAMPLE_TID, tid),
	WORD(PERF_SAMPLE_TIME, time),
	WORD(PERF_SAMPLE_ID, id),
	WORD(PERF_SAMPLE_STREAM_ID, stream_id),
	FIELD(PERF_SAMPLE_CPU, cpu),
	WORD(PERF_SAMPLE_IDENTIFIER, id),
};

static void put_fields(const struct sample_field *fields, size_t n,
		       const struct perf_event_attr *attr, struct sink *o, const struct kp_sample *s)
{
	for (size_t i = 0; i < n; i++)
		if (attr->sample_type & fields[i].bits)
			fields[i].put(attr, &fields[i], o, s);
}

/* The fields whose parsers set every member they own whenever they succeed. */
#define SAMPLE_WHOLE                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |       \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |         \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_WEIGHT |                    \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |          \
	 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |             \
	 PERF_SAMPLE_CODE_PAGE_SIZE)

/* The one-word fields sample_fields starts with, up to the call chain. */
#define SAMPLE_PREFIX                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |       \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |         \
	 PERF_SAMPLE_PERIOD)
#define SAMPLE_PREFIX_WORDS 9 /* all of them */

/*
 * A sample of those fields and at most a call chain after them, as most are, of more words
 * than all of them (@nw > SAMPLE_PREFIX_WORDS): the same reading as sample_fields' rows give,
 * without a row's dispatch and bounds check per field.
 */
static bool parse_prefix(uint64_t st, const uint64_t *w, size_t nw, struct kp_sample *s)
{
	const uint64_t *start = w;
	uint64_t v;

	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = *w++;
	if (st & PERF_SAMPLE_IP)
		s->ip = *w++;
	if (st & PERF_SAMPLE_TID) {
		v = *w++;
		memcpy(&s->pid, &v, 4);
		memcpy(&s->tid, (const char *)&v + 4, 4);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = *w++;
	if (st & PERF_SAMPLE_ADDR)
		s->addr = *w++;
	if (st & PERF_SAMPLE_ID)
		s->id = *w++;
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = *w++;
	if (st & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)*w++; /* u32 cpu, u32 reserved */
	if (st & PERF_SAMPLE_PERIOD)
		s->period = *w++;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->nr_callchain = *w++;
		if (s->nr_callchain > nw - (size_t)(w - start))
			return false;
		s->callchain = w;
	}
	return true;
}

static int parse_sample(const struct perf_event_attr *attr, const struct kp_rec_header *rec,
			struct kp_sample *s, bool zeroed)
{
	uint64_t st = attr->sample_type;
	struct cursor c = { (const uint64_t *)(rec + 1),
			    (const uint64_t *)((const char *)rec + rec->size), false };

	if (!zeroed)
		memset(s, 0, sizeof(*s));
	if (st & ~KP_SAMPLE_KNOWN) {
		memset(s, 0, sizeof(*s));
		return -KP_ESAMPLE_TYPE;
	}
	s->sample_type = st;
	if (!(st & ~(SAMPLE_PREFIX | PERF_SAMPLE_CALLCHAIN)) &&
	    rec->size > sizeof(*rec) + SAMPLE_PREFIX_WORDS * 8) {
		if (parse_prefix(st, c.p, (rec->size - sizeof(*rec)) / 8, s))
			return 0;
		memset(s, 0, sizeof(*s));
		return -KP_ESAMPLE;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sample_fields); i++) {
		const struct sample_field *f = &sample_fields[i];

		if (!(st & f->bits))
			continue;
		if (f->parse == parse_word) /* most fields: one word, read here */
			parse_word(attr, f, &c, s);
		else
			f->parse(attr, f, &c, s);
	}
	if (c.bad) {
		memset(s, 0, sizeof(*s));
		return -KP_ESAMPLE;
	}
	return 0;
}

int kp_rec_parse_sample(const struct perf_event_attr *attr, const struct kp_rec_header *rec,
			struct kp_sample *s)
{
	return parse_sample(attr, rec, s, false);
}

int kp_rec_parse_sample_again(const struct perf_event_attr *attr,
			      const struct kp_rec_header *rec, struct kp_sample *s)
{
	/* every field the last sample had, this one has and sets: the rest are still 0 */
	bool zeroed = s->sample_type == attr->sample_type && !(s->sample_type & ~SAMPLE_WHOLE);

	s->chain_id = 0;
	return parse_sample(attr, rec, s, zeroed);
}

struct sample_enc {
	const struct perf_event_attr *attr;
	const struct kp_sample *s;
	uint16_t misc;
};

static void emit_sample(struct sink *o, const void *arg)
{
	const struct sample_enc *e = arg;
	const struct kp_rec_header h = { PERF_RECORD_SAMPLE, e->misc, 0 };

	put(o, &h, sizeof(h));
	put_fields(sample_fields, ARRAY_SIZE(sample_fields), e->attr, o, e->s);
}

int kp_rec_encode_sample(const struct perf_event_attr *attr, const struct kp_sample *s,
			 uint16_t misc, void *buf, size_t cap)
{
	const struct sample_enc e = { attr, s, misc };

	if (attr->sample_type & ~KP_SAMPLE_KNOWN)
		return -KP_ESAMPLE_TYPE;
	return encode(emit_sample, &e, buf, cap);
}

int kp_rec_encode_unwound(const struct perf_event_attr *attr, const struct kp_sample *s,
			  uint16_t misc, const uint64_t *chain, size_t n, void *buf, size_t cap)
{
	struct kp_sample u = *s;

	u.nr_callchain = n;
	u.callchain = chain;
	u.regs_user_abi = PERF_SAMPLE_REGS_ABI_NONE;
	u.regs_user_mask = 0;
	u.nr_regs_user = 0;
	u.regs_user = NULL;
	u.stack_size = u.stack_dyn_size = 0;
	u.stack_data = NULL;
	return kp_rec_encode_sample(attr, &u, misc, buf, cap);
}

/* A side-band record: its fixed part (header included), a string, and the trailer. */
struct side_enc {
	const struct perf_event_attr *attr;
	const struct kp_sample *id;
	const void *wire;
	size_t wire_size;
	const char *str;	/* NULL: none */
	size_t str_min;
};

static void emit_side(struct sink *o, const void *arg)
{
	static const struct kp_sample no_id;
	const struct side_enc *e = arg;

	put(o, e->wire, e->wire_size);
	if (e->str_min)
		put_str(o, e->str, e->str_min);
	if (e->attr->sample_id_all)
		put_fields(id_fields, ARRAY_SIZE(id_fields), e->attr, o, e->id ? e->id : &no_id);
}

int kp_rec_encode_mmap2(const struct perf_event_attr *attr, const struct kp_mmap *m,
			uint16_t misc, const struct kp_sample *id, void *buf, size_t cap)
{
	struct kp_rec_mmap2 w;
	struct side_enc e = { attr, id, &w, sizeof(w), m->filename, 8 };

	memset(&w, 0, sizeof(w));
	w.h = (struct kp_rec_header){ PERF_RECORD_MMAP2, misc & ~PERF_RECORD_MISC_MMAP_BUILD_ID, 0 };
	w.pid = m->pid;
	w.tid = m->tid;
	w.addr = m->addr;
	w.len = m->len;
	w.pgoff = m->pgoff;
	w.prot = m->prot;
	w.flags = m->flags;
	if (m->has_build_id) {
		w.h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		w.build_id_size = m->build_id_size < 20 ? m->build_id_size : 20;
		memcpy(w.build_id, m->build_id, w.build_id_size);
	} else {
		w.maj = m->maj;
		w.min = m->min;
		w.ino = m->ino;
		w.ino_generation = m->ino_generation;
	}
	return encode(emit_side, &e, buf, cap);
}

int kp_rec_encode_comm(const struct perf_event_attr *attr, const struct kp_comm *c,
		       uint16_t misc, const struct kp_sample *id, void *buf, size_t cap)
{
	const struct kp_rec_comm w = { { PERF_RECORD_COMM, misc, 0 }, c->pid, c->tid };
	const struct side_enc e = { attr, id, &w, sizeof(w), c->comm, 16 };

	return encode(emit_side, &e, buf, cap);
}

int kp_rec_encode_task(const struct perf_event_attr *attr, uint32_t type,
		       const struct kp_task *t, uint16_t misc, const struct kp_sample *id,
		       void *buf, size_t cap)
{
	const struct kp_rec_task w = { { type, misc, 0 }, t->pid, t->ppid, t->tid, t->ptid,
				       t->time };
	const struct side_enc e = { attr, id, &w, sizeof(w), NULL, 0 };

	if (type != PERF_RECORD_FORK && type != PERF_RECORD_EXIT)
		return -KP_EENCODE;
	return encode(emit_side, &e, buf, cap);
}

int kp_rec_sample_time(const struct perf_event_attr *attr, const struct kp_rec_header *rec,
		       uint64_t *time)
{
	uint64_t st = attr->sample_type;
	size_t at = sizeof(*rec) + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
					 !!(st & PERF_SAMPLE_TID));

	if (!(st & PERF_SAMPLE_TIME) || at + 8 > rec->size)
		return -KP_ESAMPLE;
	memcpy(time, (const char *)rec + at, 8);
	return 0;
}

int kp_rec_parse_id(const struct perf_event_attr *attr, const struct kp_rec_header *rec,
		    struct kp_sample *s)
{
	uint64_t st = attr->sample_type;
	const struct kp_rec_info *info = kp_rec_info_of(rec->type);
	/* the trailer follows the record's own fields: never read it out of them */
	const uint64_t *body = (const uint64_t *)((const char *)rec +
						  (info ? info->min_size : sizeof(*rec)));
	const uint64_t *p = (const uint64_t *)((const char *)rec + rec->size);

	memset(s, 0, sizeof(*s));
	if (!attr->sample_id_all)
		return 0;
	/* walk backwards: the trailer's fields are in TID, TIME, ID, STREAM_ID, CPU, IDENT order */
#define BACK(field)                         \
	do {                                \
		if (p <= body)              \
			goto bad;           \
		field = *--p;               \
	} while (0)
	if (st & PERF_SAMPLE_IDENTIFIER)
		BACK(s->id);
	if (st & PERF_SAMPLE_CPU) {
		uint64_t v;
		BACK(v);
		s->cpu = (uint32_t)v;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		BACK(s->stream_id);
	if (st & PERF_SAMPLE_ID)
		BACK(s->id);
	if (st & PERF_SAMPLE_TIME)
		BACK(s->time);
	if (st & PERF_SAMPLE_TID) {
		uint64_t v;
		BACK(v);
		memcpy(&s->pid, &v, 4);
		memcpy(&s->tid, (const char *)&v + 4, 4);
	}
#undef BACK
	s->sample_type = st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID |
			       PERF_SAMPLE_ID | PERF_SAMPLE_TIME | PERF_SAMPLE_TID);
	return 0;
bad:
	memset(s, 0, sizeof(*s));
	return -KP_ESAMPLE;
}

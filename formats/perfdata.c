/* SPDX-License-Identifier: MIT */
/*
 * perfdata.c - the data section of a perf.data (file or pipe) as kprof's records: the record
 * stream, its compressed frames and rounds, and pipe mode's metadata records. The header and
 * its features are perfhdr.c's. The layout is that of perf's
 * Documentation/perf.data-file-format.txt and <linux/perf_event.h>; this is an independent
 * reading of it.
 */
#include "perfdata.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "perfhdr.h"
#include "rec.h"
#include "util.h"
#include "writer.h"

#define WINDOW (1u << 20)		/* bytes of the data section read at once */
#define DBUF (1u << 20)			/* decompressed bytes held at once */

_Static_assert(KP_PERF_COMPRESSED2 - KP_PERF_HEADER_ATTR + 1 == KP_PERFDATA_USER_TYPES,
	       "perf's types");

struct kp_perfdata {
	int fd;				/* the file (borrowed), of file_size bytes */
	uint64_t file_size;
	struct kp_read_err err;		/* what failed, and where: sticky */
	struct kp_perfdata_stats st;
	uint64_t data_end;		/* where the data section ends (within the file) */
	uint64_t pos;			/* the next record in the file */
	bool cut;			/* the header says the data goes on past the file's end */
	uint64_t claimed_end;
	uint8_t *win;			/* the data section from win_off, win_len bytes */
	uint64_t win_off;
	size_t win_len, win_cap;
	void *zd;			/* ZSTD_DCtx of the compressed records */
	uint8_t *zin;			/* the payload of the compressed record being read */
	size_t zin_len, zin_pos;
	bool zfull;			/* the last decompression filled its output: more may come */
	uint64_t zoff;			/* the file offset of that record */
	uint8_t *dbuf;			/* decompressed records, from dpos to dlen */
	size_t dpos, dlen;
	struct kp_perfhdr m;		/* the events, build-ids and facts */
	bool flushed;			/* the ATTR and META records went out */
	bool held;			/* @rec is a record waiting behind them */
	struct kp_writer own;		/* kprof records to hand out, from own_pos */
	size_t own_pos;
	uint8_t *cur;			/* the record handed out: in the window or the
					 * decompressed records where it is 8-byte aligned there
					 * (until the next read), else copied to @rec */
	uint64_t rec[(KP_REC_MAX_SIZE + 8) / 8 + 1];
	uint64_t rec_off;		/* its offset in the file (of its compressed record) */
};

/* --- opening -------------------------------------------------------------------------- */

bool kp_perfdata_magic(const void *magic)
{
	uint64_t m;

	memcpy(&m, magic, sizeof(m));
	return m == KP_PERF_MAGIC2 || m == __builtin_bswap64(KP_PERF_MAGIC2) ||
	       !memcmp(magic, KP_PERF_MAGIC1, 8);
}

/* The rest of the header, once its magic is perf's: in pipe mode the records follow it; a
 * file's sizes and sections are checked, and its attrs and features read. */
static int open_header(struct kp_perfdata *p, const struct kp_perf_file_header *h)
{
	int err;

	if (p->file_size < 16)
		return kp_read_fail(&p->err, -KP_ETRUNCATED, 0,
				    "the file ends inside the perf.data header");
	if (h->size == 16) { /* pipe mode: the records follow */
		p->st.pipe = true;
		p->pos = 16;
		p->data_end = p->file_size;
		return 0;
	}
	if (p->file_size < sizeof(*h))
		return kp_read_fail(&p->err, -KP_ETRUNCATED, 0,
				    "the file ends inside the perf.data header");
	if (h->size != sizeof(*h))
		return kp_read_fail(&p->err, -KP_EPERFHEADER, 8,
				    "the header is not the size perf writes");
	if (h->data.offset < sizeof(*h) || h->data.offset > p->file_size)
		return kp_read_fail(&p->err, -KP_EPERFHEADER, 40,
				    "the data section starts outside the file");
	err = kp_perfhdr_read_attrs(&p->m, p->fd, p->file_size, h, &p->err);
	if (err)
		return err;
	p->pos = h->data.offset;
	p->data_end = h->data.offset + h->data.size;
	if (!h->data.size || h->data.size > p->file_size - h->data.offset) {
		/* cut short (or never finished: perf writes the size at the end) */
		p->cut = h->data.size != 0;
		p->claimed_end = p->data_end;
		p->data_end = p->file_size;
		if (p->cut && !p->m.bad_features++)
			p->m.bad_feature_off = p->file_size; /* they lay past the cut */
		return 0;
	}
	kp_perfhdr_read_features(&p->m, p->fd, p->file_size, h);
	return 0;
}

int kp_perfdata_open(struct kp_perfdata **out, int fd, uint64_t file_size, struct kp_read_err *e)
{
	struct kp_perf_file_header h;
	struct kp_perfdata *p;
	int err;

	memset(&h, 0, sizeof(h));
	err = kp_read_at(fd, &h, file_size < sizeof(h) ? file_size : sizeof(h), 0);
	if (err)
		return kp_read_fail(e, err, 0, NULL);
	if (!memcmp(&h.magic, KP_PERF_MAGIC1, 8))
		return kp_read_fail(e, -KP_EPERFFILE1, 0, NULL);
	if (h.magic != KP_PERF_MAGIC2)
		return kp_read_fail(e, -KP_EENDIAN, 0, NULL);
	*out = p = kp_xcalloc(1, sizeof(*p));
	p->fd = fd;
	p->file_size = file_size;
	kp_writer_init_sink(&p->own, NULL, NULL, 4096);
	err = open_header(p, &h);
	if (err)
		*e = p->err;
	return err;
}

/* --- the own records: ATTR and META, made once the metadata is known ------------------ */

static void add_own_attr(struct kp_perfdata *p, size_t i)
{
	char buf[64], base[256];
	const char *spec = kp_perfhdr_event_name(&p->m, i, buf, sizeof(buf));
	size_t n = kp_perfhdr_base_len(spec);

	if (n >= sizeof(base))
		n = sizeof(base) - 1;
	memcpy(base, spec, n);
	base[n] = '\0';
	kp_writer_add_attr(&p->own, &p->m.attrs[i].attr, (uint32_t)i, p->m.attrs[i].ids,
			   p->m.attrs[i].nr_ids, base, spec, 0);
}

/* The kernel's build-id from the header's table (perf names it [kernel.kallsyms]). */
static void add_kernel_build_id(struct kp_perfdata *p)
{
	char hex[2 * 20 + 1];

	for (size_t i = 0; i < p->m.nr_bids; i++) {
		const struct kp_perf_build_id *b = &p->m.bids[i];

		if (b->kernel && b->size && !strcmp(b->path, "[kernel.kallsyms]")) {
			kp_writer_add_meta(&p->own, KP_PERFDATA_KERNEL_BID,
					   kp_hex(hex, b->id, b->size));
			return;
		}
	}
}

static void flush_meta(struct kp_perfdata *p)
{
	if (p->flushed)
		return;
	p->flushed = true;
	for (size_t i = 0; i < p->m.nr_attrs; i++)
		add_own_attr(p, i);
	for (int k = 0; k < KP_PERF_FACTS; k++)
		if (p->m.facts[k])
			kp_writer_add_meta(&p->own, kp_perf_fact_keys[k], p->m.facts[k]);
	add_kernel_build_id(p);
	kp_writer_add_meta(&p->own, "kallsyms", KP_PERFDATA_KALLSYMS);
	p->own.err = 0; /* an overlong name or fact is left out, not the file */
}

/* --- perf's own records --------------------------------------------------------------- */

/* PERF_RECORD_HEADER_ATTR (pipe mode): the attr (its own size), then its ids */
static int rec_attr(struct kp_perfdata *p, const struct kp_rec_header *h)
{
	const uint8_t *b = (const uint8_t *)(h + 1);
	size_t avail = h->size - sizeof(*h);
	uint32_t size;
	struct perf_event_attr a;

	if (avail < KP_PERF_ATTR_VER0)
		return -1;
	memcpy(&size, b + 4, sizeof(size));
	if (!size)
		size = KP_PERF_ATTR_VER0;
	if (size > avail || kp_perfhdr_take_attr(b, size, &a) ||
	    p->m.nr_attrs >= KP_PERF_MAX_EVENTS)
		return -1;
	kp_perfhdr_add_attr(&p->m, &a, (const uint64_t *)(b + size),
			    (uint32_t)((avail - size) / 8));
	if (p->flushed) /* late: the session says what it does with it */
		add_own_attr(p, p->m.nr_attrs - 1);
	return 0;
}

static int rec_build_id(struct kp_perfdata *p, const struct kp_rec_header *h)
{
	return kp_perfhdr_take_build_id(&p->m, (const uint8_t *)h, h->size) ? 0 : -1;
}

static int rec_round(struct kp_perfdata *p, const struct kp_rec_header *h)
{
	struct kp_rec_header round = { KP_REC_ROUND, 0, sizeof(round) };

	(void)h;
	flush_meta(p);
	memcpy(kp_writer_reserve(&p->own, sizeof(round)), &round, sizeof(round));
	kp_writer_commit(&p->own, sizeof(round), 1);
	return 0;
}

/* PERF_RECORD_EVENT_UPDATE: u64 type, u64 id, then for type 2 (NAME) the name */
static int rec_event_update(struct kp_perfdata *p, const struct kp_rec_header *h)
{
	struct kp_perfhdr *m = &p->m;
	const uint8_t *b = (const uint8_t *)(h + 1);
	size_t avail = h->size - sizeof(*h);
	uint64_t type, id;

	if (avail < 16)
		return -1;
	memcpy(&type, b, 8);
	memcpy(&id, b + 8, 8);
	if (type != 2)
		return 0;
	if (avail == 16 || !memchr(b + 16, '\0', avail - 16))
		return -1;
	KP_GROW(m->upd_names, m->cap_upd, m->nr_upd + 1);
	m->upd_names[m->nr_upd++] = (struct kp_perf_named_id){ id, kp_xstrdup((const char *)b + 16) };
	return 0;
}

/* PERF_RECORD_HEADER_FEATURE (pipe mode): u64 feature id, then the feature's section */
static int rec_feature(struct kp_perfdata *p, const struct kp_rec_header *h)
{
	uint64_t id;

	if (h->size < sizeof(*h) + 8)
		return -1;
	memcpy(&id, h + 1, 8);
	if (id < KP_PERF_FEAT_BITS)
		kp_perfhdr_take_feature(&p->m, (unsigned)id, (const uint8_t *)(h + 1) + 8,
					h->size - sizeof(*h) - 8, p->rec_off);
	return 0;
}

static int start_zstd(struct kp_perfdata *p, const uint8_t *b, size_t n)
{
	if (!p->zd) {
		p->zd = ZSTD_createDCtx();
		if (!p->zd)
			return -ENOMEM;
		/* perf compresses one ring read per frame: a window beyond 16 MiB is hostile */
		ZSTD_DCtx_setParameter(p->zd, ZSTD_d_windowLogMax, 24);
	}
	if (!p->zin)
		p->zin = kp_xmalloc(KP_REC_MAX_SIZE + 8);
	if (!p->dbuf)
		p->dbuf = kp_xmalloc(DBUF);
	memcpy(p->zin, b, n);
	p->zin_len = n;
	p->zin_pos = 0;
	p->zoff = p->rec_off;
	p->st.compressed++;
	return 0;
}

/* PERF_RECORD_COMPRESSED: the rest of the record is zstd stream (any size, not padded) */
static int rec_compressed(struct kp_perfdata *p, const struct kp_rec_header *h)
{
	return start_zstd(p, (const uint8_t *)(h + 1), h->size - sizeof(*h));
}

/* PERF_RECORD_COMPRESSED2: u64 data_size, then that much zstd stream, padded to 8 */
static int rec_compressed2(struct kp_perfdata *p, const struct kp_rec_header *h)
{
	uint64_t n;

	if (h->size < sizeof(*h) + 8)
		return -1;
	memcpy(&n, h + 1, 8);
	if (n > h->size - sizeof(*h) - 8u)
		return -1;
	return start_zstd(p, (const uint8_t *)(h + 1) + 8, n);
}

/*
 * perf's record types, from KP_PERFDATA_USER_FIRST. @take is NULL for what kprof does not need
 * (skipped, counted); it returns 0, -1 for a malformed record (skipped, counted as bad) or
 * -errno. @tail: the record is followed by data its size does not count, whose length is the
 * u32 (4, padded to 8) or u64 (8) after the header.
 */
static const struct perf_type {
	const char *name;
	int (*take)(struct kp_perfdata *p, const struct kp_rec_header *h);
	uint8_t tail;
} perf_types[KP_PERFDATA_USER_TYPES] = {
	[KP_PERF_HEADER_ATTR - 64] = { "HEADER_ATTR", rec_attr, 0 },
	[KP_PERF_EVENT_TYPE - 64] = { "HEADER_EVENT_TYPE", NULL, 0 },
	[KP_PERF_TRACING_DATA - 64] = { "HEADER_TRACING_DATA", NULL, 4 },
	[KP_PERF_BUILD_ID - 64] = { "HEADER_BUILD_ID", rec_build_id, 0 },
	[KP_PERF_FINISHED_ROUND - 64] = { "FINISHED_ROUND", rec_round, 0 },
	[KP_PERF_ID_INDEX - 64] = { "ID_INDEX", NULL, 0 },
	[KP_PERF_AUXTRACE_INFO - 64] = { "AUXTRACE_INFO", NULL, 0 },
	[KP_PERF_AUXTRACE - 64] = { "AUXTRACE", NULL, 8 },
	[KP_PERF_AUXTRACE_ERROR - 64] = { "AUXTRACE_ERROR", NULL, 0 },
	[KP_PERF_THREAD_MAP - 64] = { "THREAD_MAP", NULL, 0 },
	[KP_PERF_CPU_MAP - 64] = { "CPU_MAP", NULL, 0 },
	[KP_PERF_STAT_CONFIG - 64] = { "STAT_CONFIG", NULL, 0 },
	[KP_PERF_STAT - 64] = { "STAT", NULL, 0 },
	[KP_PERF_STAT_ROUND - 64] = { "STAT_ROUND", NULL, 0 },
	[KP_PERF_EVENT_UPDATE - 64] = { "EVENT_UPDATE", rec_event_update, 0 },
	[KP_PERF_TIME_CONV - 64] = { "TIME_CONV", NULL, 0 },
	[KP_PERF_HEADER_FEATURE - 64] = { "HEADER_FEATURE", rec_feature, 0 },
	[KP_PERF_COMPRESSED - 64] = { "COMPRESSED", rec_compressed, 0 },
	[KP_PERF_FINISHED_INIT - 64] = { "FINISHED_INIT", NULL, 0 },
	[KP_PERF_COMPRESSED2 - 64] = { "COMPRESSED2", rec_compressed2, 0 },
};

const char *kp_perfdata_type_name(uint32_t type)
{
	if (type < KP_PERFDATA_USER_FIRST || type - KP_PERFDATA_USER_FIRST >= KP_PERFDATA_USER_TYPES)
		return NULL;
	return perf_types[type - KP_PERFDATA_USER_FIRST].name;
}

/* --- the data stream ------------------------------------------------------------------ */

/* @len bytes of the data section at @off (within data_end), through the window. */
static int fetch(struct kp_perfdata *p, uint64_t off, size_t len, const uint8_t **out)
{
	int err;

	if (!p->win_len || off < p->win_off || off + len > p->win_off + p->win_len) {
		uint64_t left = p->data_end - off;
		size_t n = left < WINDOW ? (size_t)left : WINDOW;

		if (n > p->win_cap) { /* sized to the data: a small file needs a small window */
			free(p->win);
			p->win = kp_xmalloc(n);
			p->win_cap = n;
		}

		err = kp_read_at(p->fd, p->win, n, off);
		if (err)
			return err;
		p->win_off = off;
		p->win_len = n;
	}
	*out = p->win + (off - p->win_off);
	return 0;
}

/* The end of the data, cut short inside a record at @off (or, with @p->cut, at its end). */
static int cut_short(struct kp_perfdata *p, uint64_t off)
{
	return kp_read_fail(&p->err, -KP_ETRUNCATED, off,
			    p->cut ? "the header says the data section is longer than the file"
				   : NULL);
}

/* Hand out the @size bytes at @b as p->cur: where they are, when aligned for their fields. */
static void set_cur(struct kp_perfdata *p, const uint8_t *b, size_t size)
{
	if ((uintptr_t)b % 8 == 0) {
		p->cur = (uint8_t *)b;
	} else {
		memcpy(p->rec, b, size);
		p->cur = (uint8_t *)p->rec;
	}
}

/* The next record of the file as p->cur. Returns 1, 0 at the end of the data, or < 0. */
static int next_in_file(struct kp_perfdata *p)
{
	struct kp_rec_header h;
	const uint8_t *b;
	uint64_t tail = 0;
	int err;

	if (p->pos >= p->data_end)
		return p->cut ? cut_short(p, p->pos) : 0;
	if (p->data_end - p->pos < sizeof(h))
		return cut_short(p, p->pos);
	err = fetch(p, p->pos, sizeof(h), &b);
	if (err)
		return kp_read_fail(&p->err, err, p->pos, NULL);
	memcpy(&h, b, sizeof(h));
	if (h.size < sizeof(h))
		return kp_read_fail(&p->err, -KP_EPERFRECORD, p->pos,
				    "a record is shorter than its header");
	if (p->data_end - p->pos < h.size)
		return cut_short(p, p->pos);
	err = fetch(p, p->pos, h.size, &b);
	if (err)
		return kp_read_fail(&p->err, err, p->pos, NULL);
	set_cur(p, b, h.size);
	p->rec_off = p->pos;
	p->pos += h.size;
	if (kp_perfdata_type_name(h.type) && perf_types[h.type - 64].tail && h.size >= 16) {
		uint32_t t32;

		memcpy(&t32, b + 8, 4);
		memcpy(&tail, b + 8, 8);
		tail = perf_types[h.type - 64].tail == 4 ? kp_align8(t32) : tail;
		if (tail > p->data_end - p->pos)
			return cut_short(p, p->pos);
		p->pos += tail;
	}
	return 1;
}

/* Decompress more of the current compressed record; false when it has nothing more. */
static int inflate_more(struct kp_perfdata *p)
{
	size_t have = p->dlen - p->dpos;
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;
	size_t rc;

	if (p->zin_pos >= p->zin_len && !p->zfull)
		return 0;
	memmove(p->dbuf, p->dbuf + p->dpos, have);
	p->dpos = 0;
	p->dlen = have;
	in = (ZSTD_inBuffer){ p->zin, p->zin_len, p->zin_pos };
	out = (ZSTD_outBuffer){ p->dbuf, DBUF, p->dlen };
	rc = ZSTD_decompressStream(p->zd, &out, &in);
	if (ZSTD_isError(rc))
		return kp_read_fail(&p->err, -KP_EPERFZSTD, p->zoff, NULL);
	p->zfull = out.pos == out.size;
	if (in.pos == p->zin_pos && out.pos == p->dlen && !p->zfull)
		p->zin_pos = p->zin_len; /* no progress: the rest waits for the next record */
	else
		p->zin_pos = in.pos;
	p->dlen = out.pos;
	return 1;
}

/* The next decompressed record as p->cur: 1, 0 when more compressed input is needed. */
static int next_inflated(struct kp_perfdata *p)
{
	if (!p->dbuf)
		return 0;
	for (;;) {
		size_t have = p->dlen - p->dpos;
		struct kp_rec_header h;
		int rc;

		if (have >= sizeof(h)) {
			memcpy(&h, p->dbuf + p->dpos, sizeof(h));
			if (h.size < sizeof(h))
				return kp_read_fail(&p->err, -KP_EPERFRECORD, p->zoff,
						    "a compressed record holds a record shorter "
						    "than its header");
			if (have >= h.size) {
				set_cur(p, p->dbuf + p->dpos, h.size);
				p->dpos += h.size;
				p->rec_off = p->zoff;
				return 1;
			}
		}
		rc = inflate_more(p);
		if (rc <= 0)
			return rc;
	}
}

static void count_bad(struct kp_perfdata *p)
{
	if (!p->st.bad_records++)
		p->st.bad_off = p->rec_off;
}

/*
 * What p->cur is: 1 a kernel record to hand out, 0 taken in (or skipped), < 0 an error. A
 * kernel record of a mapped file with a build-id in the table gets it, as kprof writes MMAP2.
 */
static int take_record(struct kp_perfdata *p, uint64_t *nrec, uint64_t *nr_unknown)
{
	struct kp_rec_header *h = (void *)p->cur;
	const struct perf_type *t;
	int rc;

	(*nrec)++;
	if (h->type < KP_PERFDATA_USER_FIRST) {
		if (kp_rec_validate(h, h->size)) {
			count_bad(p);
			return 0;
		}
		if (!kp_rec_info_of(h->type)) {
			(*nr_unknown)++;
			return 0;
		}
		return 1;
	}
	if (!kp_perfdata_type_name(h->type)) {
		(*nr_unknown)++;
		return 0;
	}
	t = &perf_types[h->type - KP_PERFDATA_USER_FIRST];
	if (!t->take) {
		p->st.skipped[h->type - KP_PERFDATA_USER_FIRST]++;
		return 0;
	}
	rc = t->take(p, h);
	if (rc == -1)
		count_bad(p);
	return rc < -1 ? kp_read_fail(&p->err, rc, p->rec_off, NULL) : 0;
}

/* Give an MMAP2 without a build-id the one the table has for its file. */
static void add_mmap_build_id(struct kp_perfdata *p)
{
	struct kp_rec_mmap2 *m = (void *)p->cur;
	const char *name = (const char *)(m + 1);

	if (m->h.type != PERF_RECORD_MMAP2 || (m->h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return;
	for (size_t i = 0; i < p->m.nr_bids; i++) {
		if (strcmp(p->m.bids[i].path, name))
			continue;
		m->h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		memset(m->build_id_reserved, 0, sizeof(m->build_id_reserved));
		m->build_id_size = p->m.bids[i].size;
		memcpy(m->build_id, p->m.bids[i].id, sizeof(m->build_id));
		return;
	}
}

/* The next record from the file or the compressed stream: 1, 0 at the end, < 0. */
static int next_raw(struct kp_perfdata *p)
{
	int rc = next_inflated(p);

	if (rc)
		return rc;
	return next_in_file(p);
}

static int next_record(struct kp_perfdata *p, const struct kp_rec_header **rec, uint64_t *nrec,
		       uint64_t *nr_unknown)
{
	int rc;

	for (;;) {
		if (p->err.err)
			return p->err.err;
		if (p->own_pos < p->own.len) {
			const struct kp_rec_header *h = (const void *)(p->own.buf + p->own_pos);

			p->own_pos += h->size;
			*rec = h;
			return 1;
		}
		p->own.len = p->own_pos = 0;
		p->own.nrec = 0;
		if (p->held) {
			p->held = false;
			*rec = (const void *)p->cur;
			return 1;
		}
		rc = next_raw(p);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			if (p->flushed)
				return 0;
			flush_meta(p); /* no data: the events and facts still come out */
			continue;
		}
		rc = take_record(p, nrec, nr_unknown);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		add_mmap_build_id(p);
		if (p->flushed) {
			*rec = (const void *)p->cur;
			return 1;
		}
		flush_meta(p);
		p->held = true;
	}
}

int kp_perfdata_next(struct kp_perfdata *p, const struct kp_rec_header **rec, uint64_t *nrec,
		     uint64_t *nr_unknown, struct kp_read_err *e)
{
	int rc = next_record(p, rec, nrec, nr_unknown);

	if (rc < 0)
		*e = p->err;
	return rc;
}

const struct kp_perfdata_stats *kp_perfdata_stats(struct kp_perfdata *p)
{

	if (!p)
		return NULL;
	p->st.bad_features = p->m.bad_features;
	p->st.bad_feature_off = p->m.bad_feature_off;
	return &p->st;
}

void kp_perfdata_free(struct kp_perfdata *p)
{

	if (!p)
		return;
	kp_perfhdr_release(&p->m);
	p->own.len = 0;
	kp_writer_close(&p->own);
	ZSTD_freeDCtx(p->zd);
	free(p->zin);
	free(p->dbuf);
	free(p->win);
	free(p);
}

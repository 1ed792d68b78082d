/* SPDX-License-Identifier: MIT */
/*
 * perfdata.c - perf.data into kprof's records. The layout is that of perf's
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

#include "reader.h"
#include "rec.h"
#include "util.h"
#include "writer.h"

#define MAGIC2 0x32454c4946524550ull	/* "PERFILE2" read as a little-endian u64 */
#define MAGIC1 "PERFFILE"
#define ATTR_VER0 64			/* PERF_ATTR_SIZE_VER0 */
#define MAX_ATTR 4096			/* larger attrs than any kernel has: refused */
#define MAX_EVENTS 4096
#define WINDOW (1u << 20)		/* bytes of the data section read at once */
#define DBUF (1u << 20)			/* decompressed bytes held at once */
#define FEAT_BITS 256
#define MISC_BUILD_ID_SIZE (1u << 15)	/* a build_id_event's size byte is valid */

/* perf's record types (PERF_RECORD_HEADER_ATTR ...) */
enum {
	P_HEADER_ATTR = 64, P_EVENT_TYPE, P_TRACING_DATA, P_BUILD_ID, P_FINISHED_ROUND,
	P_ID_INDEX, P_AUXTRACE_INFO, P_AUXTRACE, P_AUXTRACE_ERROR, P_THREAD_MAP, P_CPU_MAP,
	P_STAT_CONFIG, P_STAT, P_STAT_ROUND, P_EVENT_UPDATE, P_TIME_CONV, P_HEADER_FEATURE,
	P_COMPRESSED, P_FINISHED_INIT, P_COMPRESSED2,
};
_Static_assert(P_COMPRESSED2 - P_HEADER_ATTR + 1 == KP_PERFDATA_USER_TYPES, "perf's types");

struct section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic, size, attr_size;
	struct section attrs, data, event_types;
	uint64_t features[FEAT_BITS / 64];
};
_Static_assert(sizeof(struct file_header) == 104, "perf_file_header");

struct pattr {
	struct perf_event_attr attr;
	uint64_t *ids;
	uint32_t nr_ids;
};

struct build_id {
	char *path;
	uint8_t size, id[20];
};

struct named_id {
	uint64_t id;
	char *name;
};

/* The META facts of the features, in the order they are written. */
enum { F_HOSTNAME, F_KERNEL, F_ARCH, F_NRCPUS, F_CMDLINE, F_VERSION, F_CLOCK, F_NR };
static const char *const fact_keys[F_NR] = { "hostname", "kernel", "arch", "nr-cpus-online",
					     "cmdline", "perf-version", "clock" };

struct kp_perfdata {
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
	struct pattr *attrs;
	size_t nr_attrs;
	char **desc_names;		/* HEADER_EVENT_DESC, by index */
	size_t nr_desc;
	struct named_id *upd_names;	/* EVENT_UPDATE NAME, by id */
	size_t nr_upd, cap_upd;
	struct build_id *bids;
	size_t nr_bids, cap_bids;
	char *facts[F_NR];
	bool flushed;			/* the ATTR and META records went out */
	bool held;			/* @rec is a record waiting behind them */
	struct kp_writer own;		/* kprof records to hand out, from own_pos */
	size_t own_pos;
	uint64_t rec[(KP_REC_MAX_SIZE + 8) / 8 + 1]; /* the record handed out, 8-byte aligned */
	uint64_t rec_off;		/* its offset in the file (of its compressed record) */
};

/* --- errors --------------------------------------------------------------------------- */

static int fail(struct kp_reader *r, int err, uint64_t off, const char *why)
{
	r->err = err;
	r->err_off = off;
	r->why = why;
	return err;
}

/* @sec lies within a file of @size bytes */
static bool within(const struct section *sec, uint64_t size)
{
	return sec->offset <= size && sec->size <= size - sec->offset;
}

/* --- names ---------------------------------------------------------------------------- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

/* An event without a stored name: what perf would call it, or "TYPE:0xCONFIG". */
static void default_name(const struct perf_event_attr *a, char *buf, size_t n)
{
	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw_names))
		snprintf(buf, n, "%s", hw_names[a->config]);
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw_names))
		snprintf(buf, n, "%s", sw_names[a->config]);
	else
		snprintf(buf, n, "%u:0x%llx", a->type, (unsigned long long)a->config);
}

/* The length of @name without perf's modifier suffix (":ppp", ":u", ":HG"), which kprof's
 * event names do not carry; tracepoints ("sched:sched_switch") keep their colon. */
static size_t base_len(const char *name)
{
	const char *c = strrchr(name, ':');

	if (!c || c == name || !c[1] || strspn(c + 1, "ukhGHpPSDIWe") != strlen(c + 1))
		return strlen(name);
	return (size_t)(c - name);
}

/* --- the attrs ------------------------------------------------------------------------ */

/* Copy an attr of @size bytes (any version) into @out: zero beyond what was stored. */
static int take_attr_bytes(const uint8_t *p, size_t size, struct perf_event_attr *out)
{
	if (size < ATTR_VER0 || size > MAX_ATTR || size % 8)
		return -1;
	memset(out, 0, sizeof(*out));
	memcpy(out, p, size < sizeof(*out) ? size : sizeof(*out));
	out->size = sizeof(*out);
	return 0;
}

static void add_attr(struct kp_perfdata *p, const struct perf_event_attr *a, const uint64_t *ids,
		     uint32_t nr)
{
	struct pattr *e;

	p->attrs = kp_xrealloc(p->attrs, (p->nr_attrs + 1) * sizeof(*p->attrs));
	e = &p->attrs[p->nr_attrs++];
	e->attr = *a;
	e->nr_ids = nr;
	e->ids = kp_xcalloc(nr ? nr : 1, sizeof(*ids));
	if (nr)
		memcpy(e->ids, ids, nr * sizeof(*ids));
}

/* The attr section: entries of attr_size bytes, each an attr and the section of its ids. */
static int read_attrs(struct kp_reader *r, const struct file_header *h)
{
	struct kp_perfdata *p = r->perf;
	uint64_t n;
	uint8_t *buf;
	int err;

	if (h->attr_size < ATTR_VER0 + sizeof(struct section) ||
	    h->attr_size > MAX_ATTR + sizeof(struct section) || h->attr_size % 8)
		return fail(r, -KP_EPERFHEADER, 16, "the size of an attr is not one perf writes");
	if (!within(&h->attrs, r->file_size))
		return fail(r, -KP_EPERFHEADER, 24, "the attr section lies outside the file");
	n = h->attrs.size / h->attr_size;
	if (h->attrs.size % h->attr_size || n > MAX_EVENTS)
		return fail(r, -KP_EPERFHEADER, 24, "the attr section is not a whole number of attrs");
	buf = kp_xmalloc(h->attr_size);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = h->attrs.offset + i * h->attr_size;
		struct perf_event_attr a;
		struct section ids;
		uint64_t *idv;

		err = kp_read_at(r->fd, buf, h->attr_size, off);
		if (!err && take_attr_bytes(buf, h->attr_size - sizeof(ids), &a))
			err = -KP_EPERFHEADER;
		memcpy(&ids, buf + h->attr_size - sizeof(ids), sizeof(ids));
		if (!err && (!within(&ids, r->file_size) || ids.size % 8 ||
			     ids.size / 8 > UINT32_MAX))
			err = -KP_EPERFHEADER;
		if (err) {
			free(buf);
			return fail(r, err, off, "an attr or its ids section is out of bounds");
		}
		idv = kp_xmalloc(ids.size ? ids.size : 8);
		err = ids.size ? kp_read_at(r->fd, idv, ids.size, ids.offset) : 0;
		if (!err)
			add_attr(p, &a, idv, (uint32_t)(ids.size / 8));
		free(idv);
		if (err) {
			free(buf);
			return fail(r, err, ids.offset, "the ids of an attr cannot be read");
		}
	}
	free(buf);
	return 0;
}

/* --- the features --------------------------------------------------------------------- */

/* A bounded cursor over a feature's bytes. */
struct cur {
	const uint8_t *p;
	size_t left;
	bool bad;
};

static const void *take(struct cur *c, size_t n)
{
	const void *at = c->p;

	if (c->bad || n > c->left) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return at;
}

static uint32_t take_u32(struct cur *c)
{
	const void *at = take(c, 4);
	uint32_t v = 0;

	if (at)
		memcpy(&v, at, 4);
	return v;
}

static uint64_t take_u64(struct cur *c)
{
	const void *at = take(c, 8);
	uint64_t v = 0;

	if (at)
		memcpy(&v, at, 8);
	return v;
}

/* A perf_header_string: u32 len, then len bytes holding a NUL. Returns a malloc'd copy. */
static char *take_string(struct cur *c)
{
	uint32_t len = take_u32(c);
	const char *s = take(c, len);

	if (!s || !len || !memchr(s, '\0', len)) {
		c->bad = true;
		return NULL;
	}
	return kp_xstrdup(s);
}

static void set_fact(struct kp_perfdata *p, int key, char *value)
{
	if (!value)
		return;
	free(p->facts[key]);
	p->facts[key] = value;
}

static void feat_string(struct kp_perfdata *p, struct cur *c, int key)
{
	set_fact(p, key, take_string(c));
}

static void feat_nrcpus(struct kp_perfdata *p, struct cur *c, int key)
{
	uint32_t online = take_u32(c);
	char buf[16];

	take_u32(c); /* available */
	snprintf(buf, sizeof(buf), "%u", online);
	if (!c->bad)
		set_fact(p, key, kp_xstrdup(buf));
}

/* HEADER_CMDLINE: a string list, joined by spaces as kprof's META cmdline is. */
static void feat_cmdline(struct kp_perfdata *p, struct cur *c, int key)
{
	uint32_t nr = take_u32(c);
	char *line = NULL;
	size_t len = 0;

	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		char *s = take_string(c);
		size_t n = s ? strlen(s) : 0;

		if (!s)
			break;
		line = kp_xrealloc(line, len + n + 2);
		if (len)
			line[len++] = ' ';
		memcpy(line + len, s, n + 1);
		len += n;
		free(s);
	}
	if (c->bad || !line) {
		free(line);
		return;
	}
	set_fact(p, key, line);
}

static const char *clock_name(uint64_t id)
{
	static const char *const names[] = { "realtime", "monotonic", "process-cputime",
					     "thread-cputime", "monotonic-raw", "realtime-coarse",
					     "monotonic-coarse", "boottime", "", "", "", "tai" };

	return id < ARRAY_SIZE(names) && *names[id] ? names[id] : NULL;
}

static void set_clock(struct kp_perfdata *p, uint64_t id, int key)
{
	const char *name = clock_name(id);

	if (name)
		set_fact(p, key, kp_xstrdup(name));
}

/* HEADER_CLOCKID: the u64 clockid of the records' times (use_clockid) */
static void feat_clockid(struct kp_perfdata *p, struct cur *c, int key)
{
	uint64_t id = take_u64(c);

	if (!c->bad)
		set_clock(p, id, key);
}

/* HEADER_CLOCK_DATA: u32 version, u32 clockid, then the wall-clock and clock times */
static void feat_clock_data(struct kp_perfdata *p, struct cur *c, int key)
{
	uint32_t id;

	take_u32(c);
	id = take_u32(c);
	take_u64(c);
	take_u64(c);
	if (!c->bad)
		set_clock(p, id, key);
}

/* HEADER_EVENT_DESC: u32 nr, u32 attr_size, then per event its attr, u32 nr_ids, its name
 * and its ids. Only the names are taken: the attrs and ids are the attr section's. */
static void feat_event_desc(struct kp_perfdata *p, struct cur *c, int key)
{
	uint32_t nr = take_u32(c), attr_size = take_u32(c);
	char **names;

	(void)key;
	if (c->bad || nr > MAX_EVENTS || attr_size < ATTR_VER0 || attr_size > MAX_ATTR) {
		c->bad = true;
		return;
	}
	names = kp_xcalloc(nr ? nr : 1, sizeof(*names));
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		uint32_t nr_ids;

		take(c, attr_size);
		nr_ids = take_u32(c);
		names[i] = take_string(c);
		if (nr_ids > c->left / 8)
			c->bad = true;
		take(c, (size_t)nr_ids * 8);
	}
	if (c->bad) {
		for (uint32_t i = 0; i < nr; i++)
			free(names[i]);
		free(names);
		return;
	}
	for (size_t i = 0; i < p->nr_desc; i++)
		free(p->desc_names[i]);
	free(p->desc_names);
	p->desc_names = names;
	p->nr_desc = nr;
}

static void add_build_id(struct kp_perfdata *p, const uint8_t *id, uint8_t size, const char *path)
{
	KP_GROW(p->bids, p->cap_bids, p->nr_bids + 1);
	p->bids[p->nr_bids].path = kp_xstrdup(path);
	p->bids[p->nr_bids].size = size > 20 ? 20 : size;
	memcpy(p->bids[p->nr_bids].id, id, 20);
	p->nr_bids++;
}

/*
 * One build_id_event (a HEADER_BUILD_ID entry, or the record of that name): header, pid,
 * build_id[24] (the size in its byte 20 with MISC_BUILD_ID_SIZE, else 20), file name.
 * Returns its size, or 0 when it is malformed.
 */
static size_t take_build_id(struct kp_perfdata *p, const uint8_t *b, size_t avail)
{
	struct kp_rec_header h;
	const size_t fixed = sizeof(h) + 4 + 24;

	if (avail < fixed)
		return 0;
	memcpy(&h, b, sizeof(h));
	if (h.size <= fixed || h.size > avail || !memchr(b + fixed, '\0', h.size - fixed))
		return 0;
	add_build_id(p, b + 12, h.misc & MISC_BUILD_ID_SIZE ? b[32] : 20,
		     (const char *)b + fixed);
	return h.size;
}

static void feat_build_id(struct kp_perfdata *p, struct cur *c, int key)
{
	(void)key;
	while (c->left && !c->bad) {
		size_t n = take_build_id(p, c->p, c->left);

		if (!n)
			c->bad = true;
		take(c, n);
	}
}

/* The features kprof reads; one row each, in the order of their META records. */
static const struct feat {
	unsigned id;
	void (*take)(struct kp_perfdata *p, struct cur *c, int key);
	int key;
} feats[] = {
	{ 2, feat_build_id, -1 },	/* HEADER_BUILD_ID */
	{ 3, feat_string, F_HOSTNAME },
	{ 4, feat_string, F_KERNEL },	/* HEADER_OSRELEASE */
	{ 5, feat_string, F_VERSION },
	{ 6, feat_string, F_ARCH },
	{ 7, feat_nrcpus, F_NRCPUS },
	{ 11, feat_cmdline, F_CMDLINE },
	{ 12, feat_event_desc, -1 },
	{ 23, feat_clockid, F_CLOCK },
	{ 29, feat_clock_data, F_CLOCK },
};

/* Take feature @id's @len bytes at @b; a malformed one is counted, found at @off. */
static void take_feature(struct kp_perfdata *p, unsigned id, const uint8_t *b, size_t len,
			 uint64_t off)
{
	for (size_t i = 0; i < ARRAY_SIZE(feats); i++) {
		struct cur c = { b, len, false };

		if (feats[i].id != id)
			continue;
		feats[i].take(p, &c, feats[i].key);
		if (c.bad && !p->st.bad_features++)
			p->st.bad_feature_off = off;
		return;
	}
}

static bool has_feature(const struct file_header *h, unsigned id)
{
	return h->features[id / 64] >> (id % 64) & 1;
}

static bool feature_read(unsigned id)
{
	for (size_t i = 0; i < ARRAY_SIZE(feats); i++)
		if (feats[i].id == id)
			return true;
	return false;
}

/* The feature sections: an array of sections after the data, one per bit set. */
static void read_features(struct kp_reader *r, const struct file_header *h)
{
	struct kp_perfdata *p = r->perf;
	uint64_t at = h->data.offset + h->data.size;

	for (unsigned id = 0; id < FEAT_BITS; id++) {
		struct section sec;
		uint8_t *buf;

		if (!has_feature(h, id))
			continue;
		if (at > r->file_size || r->file_size - at < sizeof(sec) ||
		    kp_read_at(r->fd, &sec, sizeof(sec), at) || !within(&sec, r->file_size)) {
			if (!p->st.bad_features++)
				p->st.bad_feature_off = at;
			return; /* the rest of the array is as unreadable */
		}
		at += sizeof(sec);
		if (!feature_read(id) || sec.size > KP_CHUNK_MAX_USIZE)
			continue;
		buf = kp_xmalloc(sec.size ? sec.size : 1);
		if (!kp_read_at(r->fd, buf, sec.size, sec.offset))
			take_feature(p, id, buf, sec.size, sec.offset);
		free(buf);
	}
}

/* --- opening -------------------------------------------------------------------------- */

bool kp_perfdata_magic(const void *magic)
{
	uint64_t m;

	memcpy(&m, magic, sizeof(m));
	return m == MAGIC2 || m == __builtin_bswap64(MAGIC2) || !memcmp(magic, MAGIC1, 8);
}

static int open_file(struct kp_reader *r, const struct file_header *h)
{
	struct kp_perfdata *p = r->perf;
	int err;

	if (h->size != sizeof(*h))
		return fail(r, -KP_EPERFHEADER, 8, "the header is not the size perf writes");
	if (h->data.offset < sizeof(*h) || h->data.offset > r->file_size)
		return fail(r, -KP_EPERFHEADER, 40, "the data section starts outside the file");
	err = read_attrs(r, h);
	if (err)
		return err;
	p->pos = h->data.offset;
	p->data_end = h->data.offset + h->data.size;
	if (!h->data.size || h->data.size > r->file_size - h->data.offset) {
		/* cut short (or never finished: perf writes the size at the end) */
		p->cut = h->data.size != 0;
		p->claimed_end = p->data_end;
		p->data_end = r->file_size;
		if (p->cut && !p->st.bad_features++)
			p->st.bad_feature_off = r->file_size; /* they lay past the cut */
		return 0;
	}
	read_features(r, h);
	return 0;
}

int kp_perfdata_open(struct kp_reader *r)
{
	struct file_header h;
	struct kp_perfdata *p;
	int err;

	memset(&h, 0, sizeof(h));
	err = kp_read_at(r->fd, &h, r->file_size < sizeof(h) ? r->file_size : sizeof(h), 0);
	if (err)
		return fail(r, err, 0, NULL);
	if (!memcmp(&h.magic, MAGIC1, 8))
		return fail(r, -KP_EPERFFILE1, 0, NULL);
	if (h.magic != MAGIC2)
		return fail(r, -KP_EENDIAN, 0, NULL);
	r->perf = p = kp_xcalloc(1, sizeof(*p));
	kp_writer_init_sink(&p->own, NULL, NULL, 4096);
	if (r->file_size < 16)
		return fail(r, -KP_ETRUNCATED, 0, "the file ends inside the perf.data header");
	if (h.size == 16) { /* pipe mode: the records follow */
		p->st.pipe = true;
		p->pos = 16;
		p->data_end = r->file_size;
		return 0;
	}
	if (r->file_size < sizeof(h))
		return fail(r, -KP_ETRUNCATED, 0, "the file ends inside the perf.data header");
	return open_file(r, &h);
}

/* --- the own records: ATTR and META, made once the metadata is known ------------------ */

static const char *event_name(struct kp_perfdata *p, size_t i, char *buf, size_t n)
{
	const struct pattr *a = &p->attrs[i];

	for (size_t k = 0; k < p->nr_upd; k++)
		for (uint32_t j = 0; j < a->nr_ids; j++)
			if (p->upd_names[k].id == a->ids[j])
				return p->upd_names[k].name;
	if (i < p->nr_desc && p->desc_names[i])
		return p->desc_names[i];
	default_name(&a->attr, buf, n);
	return buf;
}

static void add_own_attr(struct kp_perfdata *p, size_t i)
{
	char buf[64], base[256];
	const char *spec = event_name(p, i, buf, sizeof(buf));
	size_t n = base_len(spec);

	if (n >= sizeof(base))
		n = sizeof(base) - 1;
	memcpy(base, spec, n);
	base[n] = '\0';
	kp_writer_add_attr(&p->own, &p->attrs[i].attr, (uint32_t)i, p->attrs[i].ids,
			   p->attrs[i].nr_ids, base, spec, 0);
}

static void flush_meta(struct kp_perfdata *p)
{
	if (p->flushed)
		return;
	p->flushed = true;
	for (size_t i = 0; i < p->nr_attrs; i++)
		add_own_attr(p, i);
	for (int k = 0; k < F_NR; k++)
		if (p->facts[k])
			kp_writer_add_meta(&p->own, fact_keys[k], p->facts[k]);
	kp_writer_add_meta(&p->own, "kallsyms", KP_PERFDATA_KALLSYMS);
	p->own.err = 0; /* an overlong name or fact is left out, not the file */
}

/* --- perf's own records --------------------------------------------------------------- */

/* PERF_RECORD_HEADER_ATTR (pipe mode): the attr (its own size), then its ids */
static int rec_attr(struct kp_reader *r, const struct kp_rec_header *h)
{
	struct kp_perfdata *p = r->perf;
	const uint8_t *b = (const uint8_t *)(h + 1);
	size_t avail = h->size - sizeof(*h);
	uint32_t size;
	struct perf_event_attr a;

	if (avail < ATTR_VER0)
		return -1;
	memcpy(&size, b + 4, sizeof(size));
	if (!size)
		size = ATTR_VER0;
	if (size > avail || take_attr_bytes(b, size, &a) || p->nr_attrs >= MAX_EVENTS)
		return -1;
	add_attr(p, &a, (const uint64_t *)(b + size), (uint32_t)((avail - size) / 8));
	if (p->flushed) /* late: the session says what it does with it */
		add_own_attr(p, p->nr_attrs - 1);
	return 0;
}

static int rec_build_id(struct kp_reader *r, const struct kp_rec_header *h)
{
	return take_build_id(r->perf, (const uint8_t *)h, h->size) ? 0 : -1;
}

static int rec_round(struct kp_reader *r, const struct kp_rec_header *h)
{
	struct kp_rec_header round = { KP_REC_ROUND, 0, sizeof(round) };

	(void)h;
	flush_meta(r->perf);
	memcpy(kp_writer_reserve(&r->perf->own, sizeof(round)), &round, sizeof(round));
	kp_writer_commit(&r->perf->own, sizeof(round), 1);
	return 0;
}

/* PERF_RECORD_EVENT_UPDATE: u64 type, u64 id, then for type 2 (NAME) the name */
static int rec_event_update(struct kp_reader *r, const struct kp_rec_header *h)
{
	struct kp_perfdata *p = r->perf;
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
	KP_GROW(p->upd_names, p->cap_upd, p->nr_upd + 1);
	p->upd_names[p->nr_upd++] = (struct named_id){ id, kp_xstrdup((const char *)b + 16) };
	return 0;
}

/* PERF_RECORD_HEADER_FEATURE (pipe mode): u64 feature id, then the feature's section */
static int rec_feature(struct kp_reader *r, const struct kp_rec_header *h)
{
	uint64_t id;

	if (h->size < sizeof(*h) + 8)
		return -1;
	memcpy(&id, h + 1, 8);
	if (id < FEAT_BITS)
		take_feature(r->perf, (unsigned)id, (const uint8_t *)(h + 1) + 8,
			     h->size - sizeof(*h) - 8, r->perf->rec_off);
	return 0;
}

static int start_zstd(struct kp_reader *r, const uint8_t *b, size_t n)
{
	struct kp_perfdata *p = r->perf;

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
static int rec_compressed(struct kp_reader *r, const struct kp_rec_header *h)
{
	return start_zstd(r, (const uint8_t *)(h + 1), h->size - sizeof(*h));
}

/* PERF_RECORD_COMPRESSED2: u64 data_size, then that much zstd stream, padded to 8 */
static int rec_compressed2(struct kp_reader *r, const struct kp_rec_header *h)
{
	uint64_t n;

	if (h->size < sizeof(*h) + 8)
		return -1;
	memcpy(&n, h + 1, 8);
	if (n > h->size - sizeof(*h) - 8u)
		return -1;
	return start_zstd(r, (const uint8_t *)(h + 1) + 8, n);
}

/*
 * perf's record types, from KP_PERFDATA_USER_FIRST. @take is NULL for what kprof does not need
 * (skipped, counted); it returns 0, -1 for a malformed record (skipped, counted as bad) or
 * -errno. @tail: the record is followed by data its size does not count, whose length is the
 * u32 (4, padded to 8) or u64 (8) after the header.
 */
static const struct perf_type {
	const char *name;
	int (*take)(struct kp_reader *r, const struct kp_rec_header *h);
	uint8_t tail;
} perf_types[KP_PERFDATA_USER_TYPES] = {
	[P_HEADER_ATTR - 64] = { "HEADER_ATTR", rec_attr, 0 },
	[P_EVENT_TYPE - 64] = { "HEADER_EVENT_TYPE", NULL, 0 },
	[P_TRACING_DATA - 64] = { "HEADER_TRACING_DATA", NULL, 4 },
	[P_BUILD_ID - 64] = { "HEADER_BUILD_ID", rec_build_id, 0 },
	[P_FINISHED_ROUND - 64] = { "FINISHED_ROUND", rec_round, 0 },
	[P_ID_INDEX - 64] = { "ID_INDEX", NULL, 0 },
	[P_AUXTRACE_INFO - 64] = { "AUXTRACE_INFO", NULL, 0 },
	[P_AUXTRACE - 64] = { "AUXTRACE", NULL, 8 },
	[P_AUXTRACE_ERROR - 64] = { "AUXTRACE_ERROR", NULL, 0 },
	[P_THREAD_MAP - 64] = { "THREAD_MAP", NULL, 0 },
	[P_CPU_MAP - 64] = { "CPU_MAP", NULL, 0 },
	[P_STAT_CONFIG - 64] = { "STAT_CONFIG", NULL, 0 },
	[P_STAT - 64] = { "STAT", NULL, 0 },
	[P_STAT_ROUND - 64] = { "STAT_ROUND", NULL, 0 },
	[P_EVENT_UPDATE - 64] = { "EVENT_UPDATE", rec_event_update, 0 },
	[P_TIME_CONV - 64] = { "TIME_CONV", NULL, 0 },
	[P_HEADER_FEATURE - 64] = { "HEADER_FEATURE", rec_feature, 0 },
	[P_COMPRESSED - 64] = { "COMPRESSED", rec_compressed, 0 },
	[P_FINISHED_INIT - 64] = { "FINISHED_INIT", NULL, 0 },
	[P_COMPRESSED2 - 64] = { "COMPRESSED2", rec_compressed2, 0 },
};

const char *kp_perfdata_type_name(uint32_t type)
{
	if (type < KP_PERFDATA_USER_FIRST || type - KP_PERFDATA_USER_FIRST >= KP_PERFDATA_USER_TYPES)
		return NULL;
	return perf_types[type - KP_PERFDATA_USER_FIRST].name;
}

/* --- the data stream ------------------------------------------------------------------ */

/* @len bytes of the data section at @off (within data_end), through the window. */
static int fetch(struct kp_reader *r, uint64_t off, size_t len, const uint8_t **out)
{
	struct kp_perfdata *p = r->perf;
	int err;

	if (!p->win_len || off < p->win_off || off + len > p->win_off + p->win_len) {
		uint64_t left = p->data_end - off;
		size_t n = left < WINDOW ? (size_t)left : WINDOW;

		if (n > p->win_cap) { /* sized to the data: a small file needs a small window */
			free(p->win);
			p->win = kp_xmalloc(n);
			p->win_cap = n;
		}

		err = kp_read_at(r->fd, p->win, n, off);
		if (err)
			return err;
		p->win_off = off;
		p->win_len = n;
	}
	*out = p->win + (off - p->win_off);
	return 0;
}

/* The end of the data, cut short inside a record at @off (or, with @p->cut, at its end). */
static int cut_short(struct kp_reader *r, uint64_t off)
{
	return fail(r, -KP_ETRUNCATED, off,
		    r->perf->cut ? "the header says the data section is longer than the file" : NULL);
}

/* The next record of the file into p->rec. Returns 1, 0 at the end of the data, or < 0. */
static int next_in_file(struct kp_reader *r)
{
	struct kp_perfdata *p = r->perf;
	struct kp_rec_header h;
	const uint8_t *b;
	uint64_t tail = 0;
	int err;

	if (p->pos >= p->data_end)
		return p->cut ? cut_short(r, p->pos) : 0;
	if (p->data_end - p->pos < sizeof(h))
		return cut_short(r, p->pos);
	err = fetch(r, p->pos, sizeof(h), &b);
	if (err)
		return fail(r, err, p->pos, NULL);
	memcpy(&h, b, sizeof(h));
	if (h.size < sizeof(h))
		return fail(r, -KP_EPERFRECORD, p->pos, "a record is shorter than its header");
	if (p->data_end - p->pos < h.size)
		return cut_short(r, p->pos);
	err = fetch(r, p->pos, h.size, &b);
	if (err)
		return fail(r, err, p->pos, NULL);
	memcpy(p->rec, b, h.size);
	p->rec_off = p->pos;
	p->pos += h.size;
	if (kp_perfdata_type_name(h.type) && perf_types[h.type - 64].tail && h.size >= 16) {
		uint32_t t32;

		memcpy(&t32, b + 8, 4);
		memcpy(&tail, b + 8, 8);
		tail = perf_types[h.type - 64].tail == 4 ? kp_align8(t32) : tail;
		if (tail > p->data_end - p->pos)
			return cut_short(r, p->pos);
		p->pos += tail;
	}
	return 1;
}

/* Decompress more of the current compressed record; false when it has nothing more. */
static int inflate_more(struct kp_reader *r)
{
	struct kp_perfdata *p = r->perf;
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
		return fail(r, -KP_EPERFZSTD, p->zoff, NULL);
	p->zfull = out.pos == out.size;
	if (in.pos == p->zin_pos && out.pos == p->dlen && !p->zfull)
		p->zin_pos = p->zin_len; /* no progress: the rest waits for the next record */
	else
		p->zin_pos = in.pos;
	p->dlen = out.pos;
	return 1;
}

/* The next decompressed record into p->rec: 1, 0 when more compressed input is needed. */
static int next_inflated(struct kp_reader *r)
{
	struct kp_perfdata *p = r->perf;

	if (!p->dbuf)
		return 0;
	for (;;) {
		size_t have = p->dlen - p->dpos;
		struct kp_rec_header h;
		int rc;

		if (have >= sizeof(h)) {
			memcpy(&h, p->dbuf + p->dpos, sizeof(h));
			if (h.size < sizeof(h))
				return fail(r, -KP_EPERFRECORD, p->zoff,
					    "a compressed record holds a record shorter than its "
					    "header");
			if (have >= h.size) {
				memcpy(p->rec, p->dbuf + p->dpos, h.size);
				p->dpos += h.size;
				p->rec_off = p->zoff;
				return 1;
			}
		}
		rc = inflate_more(r);
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
 * What p->rec is: 1 a kernel record to hand out, 0 taken in (or skipped), < 0 an error. A
 * kernel record of a mapped file with a build-id in the table gets it, as kprof writes MMAP2.
 */
static int take_record(struct kp_reader *r)
{
	struct kp_perfdata *p = r->perf;
	struct kp_rec_header *h = (void *)p->rec;
	const struct perf_type *t;
	int rc;

	r->nrec++;
	if (h->type < KP_PERFDATA_USER_FIRST) {
		if (kp_rec_validate(h, h->size)) {
			count_bad(p);
			return 0;
		}
		if (!kp_rec_info_of(h->type)) {
			r->nr_unknown++;
			return 0;
		}
		return 1;
	}
	if (!kp_perfdata_type_name(h->type)) {
		r->nr_unknown++;
		return 0;
	}
	t = &perf_types[h->type - KP_PERFDATA_USER_FIRST];
	if (!t->take) {
		p->st.skipped[h->type - KP_PERFDATA_USER_FIRST]++;
		return 0;
	}
	rc = t->take(r, h);
	if (rc == -1)
		count_bad(p);
	return rc < -1 ? fail(r, rc, p->rec_off, NULL) : 0;
}

/* Give an MMAP2 without a build-id the one the table has for its file. */
static void add_mmap_build_id(struct kp_perfdata *p)
{
	struct kp_rec_mmap2 *m = (void *)p->rec;
	const char *name = (const char *)(m + 1);

	if (m->h.type != PERF_RECORD_MMAP2 || (m->h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return;
	for (size_t i = 0; i < p->nr_bids; i++) {
		if (strcmp(p->bids[i].path, name))
			continue;
		m->h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		memset(m->build_id_reserved, 0, sizeof(m->build_id_reserved));
		m->build_id_size = p->bids[i].size;
		memcpy(m->build_id, p->bids[i].id, sizeof(m->build_id));
		return;
	}
}

/* The next record from the file or the compressed stream: 1, 0 at the end, < 0. */
static int next_raw(struct kp_reader *r)
{
	int rc = next_inflated(r);

	if (rc)
		return rc;
	return next_in_file(r);
}

int kp_perfdata_next(struct kp_reader *r, const struct kp_rec_header **rec)
{
	struct kp_perfdata *p = r->perf;
	int rc;

	for (;;) {
		if (r->err)
			return r->err;
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
			*rec = (const void *)p->rec;
			return 1;
		}
		rc = next_raw(r);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			if (p->flushed)
				return 0;
			flush_meta(p); /* no data: the events and facts still come out */
			continue;
		}
		rc = take_record(r);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		add_mmap_build_id(p);
		if (p->flushed) {
			*rec = (const void *)p->rec;
			return 1;
		}
		flush_meta(p);
		p->held = true;
	}
}

const struct kp_perfdata_stats *kp_perfdata_stats(const struct kp_reader *r)
{
	return r->perf ? &r->perf->st : NULL;
}

void kp_perfdata_release(struct kp_reader *r)
{
	struct kp_perfdata *p = r->perf;

	if (!p)
		return;
	for (size_t i = 0; i < p->nr_attrs; i++)
		free(p->attrs[i].ids);
	free(p->attrs);
	for (size_t i = 0; i < p->nr_desc; i++)
		free(p->desc_names[i]);
	free(p->desc_names);
	for (size_t i = 0; i < p->nr_upd; i++)
		free(p->upd_names[i].name);
	free(p->upd_names);
	for (size_t i = 0; i < p->nr_bids; i++)
		free(p->bids[i].path);
	free(p->bids);
	for (int k = 0; k < F_NR; k++)
		free(p->facts[k]);
	p->own.len = 0;
	kp_writer_close(&p->own);
	ZSTD_freeDCtx(p->zd);
	free(p->zin);
	free(p->dbuf);
	free(p->win);
	free(p);
	r->perf = NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * perfhdr.c - perf.data's file header, attr section and header features (perfhdr.h). perf's
 * Documentation/perf.data-file-format.txt gives the layout; this is an independent reading of
 * it, and of its writing.
 */
#include "perfhdr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "util.h"

const char *const kp_perf_fact_keys[KP_PERF_FACTS] = {
	"hostname", "kernel", "arch", "nr-cpus-online", "cmdline", "perf-version", "clock"
};

static int fail(struct kp_reader *r, int err, uint64_t off, const char *why)
{
	r->err = err;
	r->err_off = off;
	r->why = why;
	return err;
}

/* @sec lies within a file of @size bytes */
static bool within(const struct kp_perf_section *sec, uint64_t size)
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

size_t kp_perfhdr_base_len(const char *name)
{
	const char *c = strrchr(name, ':');

	if (!c || c == name || !c[1] || strspn(c + 1, "ukhGHpPSDIWe") != strlen(c + 1))
		return strlen(name);
	return (size_t)(c - name);
}

/* --- the attrs ------------------------------------------------------------------------ */

int kp_perfhdr_take_attr(const uint8_t *p, size_t size, struct perf_event_attr *out)
{
	if (size < KP_PERF_ATTR_VER0 || size > KP_PERF_MAX_ATTR || size % 8)
		return -1;
	memset(out, 0, sizeof(*out));
	memcpy(out, p, size < sizeof(*out) ? size : sizeof(*out));
	out->size = sizeof(*out);
	return 0;
}

void kp_perfhdr_add_attr(struct kp_perfhdr *m, const struct perf_event_attr *a,
			 const uint64_t *ids, uint32_t nr)
{
	struct kp_perf_attr *e;

	m->attrs = kp_xrealloc(m->attrs, (m->nr_attrs + 1) * sizeof(*m->attrs));
	e = &m->attrs[m->nr_attrs++];
	e->attr = *a;
	e->nr_ids = nr;
	e->ids = kp_xcalloc(nr ? nr : 1, sizeof(*ids));
	if (nr)
		memcpy(e->ids, ids, nr * sizeof(*ids));
}

int kp_perfhdr_read_attrs(struct kp_perfhdr *m, struct kp_reader *r,
			  const struct kp_perf_file_header *h)
{
	uint64_t n;
	uint8_t *buf;
	int err;

	if (h->attr_size < KP_PERF_ATTR_VER0 + sizeof(struct kp_perf_section) ||
	    h->attr_size > KP_PERF_MAX_ATTR + sizeof(struct kp_perf_section) || h->attr_size % 8)
		return fail(r, -KP_EPERFHEADER, 16, "the size of an attr is not one perf writes");
	if (!within(&h->attrs, r->file_size))
		return fail(r, -KP_EPERFHEADER, 24, "the attr section lies outside the file");
	n = h->attrs.size / h->attr_size;
	if (h->attrs.size % h->attr_size || n > KP_PERF_MAX_EVENTS)
		return fail(r, -KP_EPERFHEADER, 24, "the attr section is not a whole number of attrs");
	buf = kp_xmalloc(h->attr_size);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = h->attrs.offset + i * h->attr_size;
		struct perf_event_attr a;
		struct kp_perf_section ids;
		uint64_t *idv;

		err = kp_read_at(r->fd, buf, h->attr_size, off);
		if (!err && kp_perfhdr_take_attr(buf, h->attr_size - sizeof(ids), &a))
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
			kp_perfhdr_add_attr(m, &a, idv, (uint32_t)(ids.size / 8));
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

void kp_perfhdr_set_fact(struct kp_perfhdr *m, int key, char *value)
{
	if (!value)
		return;
	free(m->facts[key]);
	m->facts[key] = value;
}

static void feat_string(struct kp_perfhdr *m, struct cur *c, int key)
{
	kp_perfhdr_set_fact(m, key, take_string(c));
}

static void feat_nrcpus(struct kp_perfhdr *m, struct cur *c, int key)
{
	uint32_t online = take_u32(c);
	char buf[16];

	take_u32(c); /* available */
	snprintf(buf, sizeof(buf), "%u", online);
	if (!c->bad)
		kp_perfhdr_set_fact(m, key, kp_xstrdup(buf));
}

/* HEADER_CMDLINE: a string list, joined by spaces as kprof's META cmdline is. */
static void feat_cmdline(struct kp_perfhdr *m, struct cur *c, int key)
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
	kp_perfhdr_set_fact(m, key, line);
}

static const char *clock_name(uint64_t id)
{
	static const char *const names[] = { "realtime", "monotonic", "process-cputime",
					     "thread-cputime", "monotonic-raw", "realtime-coarse",
					     "monotonic-coarse", "boottime", "", "", "", "tai" };

	return id < ARRAY_SIZE(names) && *names[id] ? names[id] : NULL;
}

static void set_clock(struct kp_perfhdr *m, uint64_t id, int key)
{
	const char *name = clock_name(id);

	if (name)
		kp_perfhdr_set_fact(m, key, kp_xstrdup(name));
}

/* HEADER_CLOCKID: the u64 clockid of the records' times (use_clockid) */
static void feat_clockid(struct kp_perfhdr *m, struct cur *c, int key)
{
	uint64_t id = take_u64(c);

	if (!c->bad)
		set_clock(m, id, key);
}

/* HEADER_CLOCK_DATA: u32 version, u32 clockid, then the wall-clock and clock times */
static void feat_clock_data(struct kp_perfhdr *m, struct cur *c, int key)
{
	uint32_t id;

	take_u32(c);
	id = take_u32(c);
	take_u64(c);
	take_u64(c);
	if (!c->bad)
		set_clock(m, id, key);
}

/* HEADER_EVENT_DESC: u32 nr, u32 attr_size, then per event its attr, u32 nr_ids, its name
 * and its ids. Only the names are taken: the attrs and ids are the attr section's. */
static void feat_event_desc(struct kp_perfhdr *m, struct cur *c, int key)
{
	uint32_t nr = take_u32(c), attr_size = take_u32(c);
	char **names;

	(void)key;
	if (c->bad || nr > KP_PERF_MAX_EVENTS || attr_size < KP_PERF_ATTR_VER0 || attr_size > KP_PERF_MAX_ATTR) {
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
	for (size_t i = 0; i < m->nr_desc; i++)
		free(m->desc_names[i]);
	free(m->desc_names);
	m->desc_names = names;
	m->nr_desc = nr;
}

void kp_perfhdr_add_build_id(struct kp_perfhdr *m, const uint8_t *id, uint8_t size,
			     const char *path, bool kernel)
{
	KP_GROW(m->bids, m->cap_bids, m->nr_bids + 1);
	m->bids[m->nr_bids].path = kp_xstrdup(path);
	m->bids[m->nr_bids].size = size > 20 ? 20 : size;
	m->bids[m->nr_bids].kernel = kernel;
	memcpy(m->bids[m->nr_bids].id, id, 20);
	m->nr_bids++;
}

/*
 * One build_id_event (a HEADER_BUILD_ID entry, or the record of that name): header, pid,
 * build_id[24] (the size in its byte 20 with KP_PERF_MISC_BUILD_ID_SIZE, else 20), file name.
 * Returns its size, or 0 when it is malformed.
 */
size_t kp_perfhdr_take_build_id(struct kp_perfhdr *m, const uint8_t *b, size_t avail)
{
	struct kp_rec_header h;
	const size_t fixed = sizeof(h) + 4 + 24;

	if (avail < fixed)
		return 0;
	memcpy(&h, b, sizeof(h));
	if (h.size <= fixed || h.size > avail || !memchr(b + fixed, '\0', h.size - fixed))
		return 0;
	kp_perfhdr_add_build_id(m, b + 12, h.misc & KP_PERF_MISC_BUILD_ID_SIZE ? b[32] : 20,
				(const char *)b + fixed,
				(h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL);
	return h.size;
}

static void feat_build_id(struct kp_perfhdr *m, struct cur *c, int key)
{
	(void)key;
	while (c->left && !c->bad) {
		size_t n = kp_perfhdr_take_build_id(m, c->p, c->left);

		if (!n)
			c->bad = true;
		take(c, n);
	}
}

/* The features kprof reads; one row each, in the order of their META records. */
static const struct feat {
	unsigned id;
	void (*take)(struct kp_perfhdr *m, struct cur *c, int key);
	int key;
} feats[] = {
	{ 2, feat_build_id, -1 },	/* HEADER_BUILD_ID */
	{ 3, feat_string, KP_PERF_HOSTNAME },
	{ 4, feat_string, KP_PERF_KERNEL },	/* HEADER_OSRELEASE */
	{ 5, feat_string, KP_PERF_VERSION },
	{ 6, feat_string, KP_PERF_ARCH },
	{ 7, feat_nrcpus, KP_PERF_NRCPUS },
	{ 11, feat_cmdline, KP_PERF_CMDLINE },
	{ 12, feat_event_desc, -1 },
	{ 23, feat_clockid, KP_PERF_CLOCK },
	{ 29, feat_clock_data, KP_PERF_CLOCK },
};

void kp_perfhdr_take_feature(struct kp_perfhdr *m, unsigned id, const uint8_t *b, size_t len,
			     uint64_t off)
{
	for (size_t i = 0; i < ARRAY_SIZE(feats); i++) {
		struct cur c = { b, len, false };

		if (feats[i].id != id)
			continue;
		feats[i].take(m, &c, feats[i].key);
		if (c.bad && !m->bad_features++)
			m->bad_feature_off = off;
		return;
	}
}

static bool has_feature(const struct kp_perf_file_header *h, unsigned id)
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

void kp_perfhdr_read_features(struct kp_perfhdr *m, struct kp_reader *r,
			      const struct kp_perf_file_header *h)
{
	uint64_t at = h->data.offset + h->data.size;

	for (unsigned id = 0; id < KP_PERF_FEAT_BITS; id++) {
		struct kp_perf_section sec;
		uint8_t *buf;

		if (!has_feature(h, id))
			continue;
		if (at > r->file_size || r->file_size - at < sizeof(sec) ||
		    kp_read_at(r->fd, &sec, sizeof(sec), at) || !within(&sec, r->file_size)) {
			if (!m->bad_features++)
				m->bad_feature_off = at;
			return; /* the rest of the array is as unreadable */
		}
		at += sizeof(sec);
		if (!feature_read(id) || sec.size > KP_CHUNK_MAX_USIZE)
			continue;
		buf = kp_xmalloc(sec.size ? sec.size : 1);
		if (!kp_read_at(r->fd, buf, sec.size, sec.offset))
			kp_perfhdr_take_feature(m, id, buf, sec.size, sec.offset);
		free(buf);
	}
}


const char *kp_perfhdr_event_name(const struct kp_perfhdr *m, size_t i, char *buf, size_t n)
{
	const struct kp_perf_attr *a = &m->attrs[i];

	for (size_t k = 0; k < m->nr_upd; k++)
		for (uint32_t j = 0; j < a->nr_ids; j++)
			if (m->upd_names[k].id == a->ids[j])
				return m->upd_names[k].name;
	if (i < m->nr_desc && m->desc_names[i])
		return m->desc_names[i];
	default_name(&a->attr, buf, n);
	return buf;
}

void kp_perfhdr_release(struct kp_perfhdr *m)
{
	for (size_t i = 0; i < m->nr_attrs; i++)
		free(m->attrs[i].ids);
	free(m->attrs);
	for (size_t i = 0; i < m->nr_desc; i++)
		free(m->desc_names[i]);
	free(m->desc_names);
	for (size_t i = 0; i < m->nr_upd; i++)
		free(m->upd_names[i].name);
	free(m->upd_names);
	for (size_t i = 0; i < m->nr_bids; i++)
		free(m->bids[i].path);
	free(m->bids);
	for (int k = 0; k < KP_PERF_FACTS; k++)
		free(m->facts[k]);
	memset(m, 0, sizeof(*m));
}

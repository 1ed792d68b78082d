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
#include <unistd.h>

#include "util.h"

const char *const kp_perf_fact_keys[KP_PERF_FACTS] = {
	"hostname", "kernel", "arch", "nr-cpus-online", "cmdline", "perf-version", "clock"
};

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

/*
 * perf's modifiers of an event without a stored name, as perf derives them from its attr
 * (evsel__add_modifiers): the contexts counted when some are excluded, the precision, and
 * host/guest when they differ from the default that follows from those.
 */
static void add_modifiers(const struct perf_event_attr *a, char *buf, size_t n)
{
	char mod[16];
	size_t r = 0;
	bool guest_default = false;

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			mod[r++] = 'k';
		if (!a->exclude_user)
			mod[r++] = 'u';
		if (!a->exclude_hv)
			mod[r++] = 'h';
		guest_default = true;
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
		mod[r++] = 'p';
	if (a->precise_ip)
		guest_default = true;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			mod[r++] = 'H';
		if (!a->exclude_guest)
			mod[r++] = 'G';
	}
	mod[r] = '\0';
	if (r && strlen(buf) + r + 2 <= n)
		strcat(strcat(buf, ":"), mod);
}

/* An event without a stored name: what perf would call it, or "TYPE:0xCONFIG". */
static void default_name(const struct perf_event_attr *a, char *buf, size_t n)
{
	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw_names))
		snprintf(buf, n, "%s", hw_names[a->config]);
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw_names))
		snprintf(buf, n, "%s", sw_names[a->config]);
	else
		snprintf(buf, n, "%u:0x%llx", a->type, (unsigned long long)a->config);
	add_modifiers(a, buf, n);
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

int kp_perfhdr_read_attrs(struct kp_perfhdr *m, int fd, uint64_t file_size,
			  const struct kp_perf_file_header *h, struct kp_read_err *e)
{
	uint64_t n;
	uint8_t *buf;
	int err;

	if (h->attr_size < KP_PERF_ATTR_VER0 + sizeof(struct kp_perf_section) ||
	    h->attr_size > KP_PERF_MAX_ATTR + sizeof(struct kp_perf_section) || h->attr_size % 8)
		return kp_read_fail(e, -KP_EPERFHEADER, 16,
				    "the size of an attr is not one perf writes");
	if (!within(&h->attrs, file_size))
		return kp_read_fail(e, -KP_EPERFHEADER, 24,
				    "the attr section lies outside the file");
	n = h->attrs.size / h->attr_size;
	if (h->attrs.size % h->attr_size || n > KP_PERF_MAX_EVENTS)
		return kp_read_fail(e, -KP_EPERFHEADER, 24,
				    "the attr section is not a whole number of attrs");
	buf = kp_xmalloc(h->attr_size);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = h->attrs.offset + i * h->attr_size;
		struct perf_event_attr a;
		struct kp_perf_section ids;
		uint64_t *idv;

		err = kp_read_at(fd, buf, h->attr_size, off);
		if (!err && kp_perfhdr_take_attr(buf, h->attr_size - sizeof(ids), &a))
			err = -KP_EPERFHEADER;
		memcpy(&ids, buf + h->attr_size - sizeof(ids), sizeof(ids));
		if (!err && (!within(&ids, file_size) || ids.size % 8 ||
			     ids.size / 8 > UINT32_MAX))
			err = -KP_EPERFHEADER;
		if (err) {
			free(buf);
			return kp_read_fail(e, err, off,
					    "an attr or its ids section is out of bounds");
		}
		idv = kp_xmalloc(ids.size ? ids.size : 8);
		err = ids.size ? kp_read_at(fd, idv, ids.size, ids.offset) : 0;
		if (!err)
			kp_perfhdr_add_attr(m, &a, idv, (uint32_t)(ids.size / 8));
		free(idv);
		if (err) {
			free(buf);
			return kp_read_fail(e, err, ids.offset,
					    "the ids of an attr cannot be read");
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

static void put_u32(struct kp_bytes *o, uint32_t v)
{
	kp_bytes_put(o, &v, sizeof(v));
}

static void put_u64(struct kp_bytes *o, uint64_t v)
{
	kp_bytes_put(o, &v, sizeof(v));
}

/* A perf_header_string: u32 len, then the string, NUL-padded to len (64-byte steps, perf's
 * NAME_ALIGN). */
static void put_string(struct kp_bytes *o, const char *s)
{
	size_t n = strlen(s) + 1, len = (n + 63) & ~(size_t)63;

	put_u32(o, (uint32_t)len);
	KP_GROW(o->p, o->cap, o->len + len);
	memset(o->p + o->len, 0, len);
	memcpy(o->p + o->len, s, n);
	o->len += len;
}

static bool put_fact(const struct kp_perfhdr *m, struct kp_bytes *o, int key)
{
	if (!m->facts[key])
		return false;
	put_string(o, m->facts[key]);
	return true;
}

/* HEADER_NRCPUS: u32 available, u32 online; kprof knows the CPUs online. */
static bool put_nrcpus(const struct kp_perfhdr *m, struct kp_bytes *o, int key)
{
	unsigned long n;
	char *end;

	if (!m->facts[key])
		return false;
	n = strtoul(m->facts[key], &end, 10);
	if (*end || !n || n > UINT32_MAX)
		return false;
	put_u32(o, (uint32_t)n);
	put_u32(o, (uint32_t)n);
	return true;
}

/* HEADER_CMDLINE: the words of kprof's space-joined command line, as a string list. */
static bool put_cmdline(const struct kp_perfhdr *m, struct kp_bytes *o, int key)
{
	char *line, *save = NULL;
	uint32_t nr = 0;
	size_t at = o->len;

	if (!m->facts[key])
		return false;
	line = kp_xstrdup(m->facts[key]);
	put_u32(o, 0);
	for (char *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save), nr++)
		put_string(o, w);
	memcpy(o->p + at, &nr, sizeof(nr));
	free(line);
	return true;
}

/* HEADER_EVENT_DESC: every event's attr, ids and name (@desc_names, else perf's default). */
static bool put_event_desc(const struct kp_perfhdr *m, struct kp_bytes *o, int key)
{
	(void)key;
	if (!m->nr_attrs)
		return false;
	put_u32(o, (uint32_t)m->nr_attrs);
	put_u32(o, sizeof(struct perf_event_attr));
	for (size_t i = 0; i < m->nr_attrs; i++) {
		char buf[64];

		kp_bytes_put(o, &m->attrs[i].attr, sizeof(m->attrs[i].attr));
		put_u32(o, m->attrs[i].nr_ids);
		put_string(o, kp_perfhdr_event_name(m, i, buf, sizeof(buf)));
		kp_bytes_put(o, m->attrs[i].ids, m->attrs[i].nr_ids * sizeof(uint64_t));
	}
	return true;
}

/* HEADER_BUILD_ID: a build_id_event per file, of the host (pid -1), its size byte valid. */
static bool put_build_id(const struct kp_perfhdr *m, struct kp_bytes *o, int key)
{
	(void)key;
	for (size_t i = 0; i < m->nr_bids; i++) {
		const struct kp_perf_build_id *b = &m->bids[i];
		size_t n = strlen(b->path) + 1, len = (n + 63) & ~(size_t)63;
		uint8_t id[24] = { 0 };
		struct kp_rec_header h = {
			0, (uint16_t)(KP_PERF_MISC_BUILD_ID_SIZE |
				      (b->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER)),
			(uint16_t)(sizeof(h) + 4 + sizeof(id) + len)
		};
		int32_t pid = -1;

		if (sizeof(h) + 4 + sizeof(id) + len > UINT16_MAX)
			continue;
		memcpy(id, b->id, b->size);
		id[20] = b->size;
		kp_bytes_put(o, &h, sizeof(h));
		kp_bytes_put(o, &pid, sizeof(pid));
		kp_bytes_put(o, id, sizeof(id));
		KP_GROW(o->p, o->cap, o->len + len);
		memset(o->p + o->len, 0, len);
		memcpy(o->p + o->len, b->path, n);
		o->len += len;
	}
	return m->nr_bids > 0;
}

/* The number on a format file's "ID:" line, or UINT64_MAX when it has none. */
static uint64_t format_id(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		char num[24], *e;
		unsigned long long id;

		if (n > 3 && !memcmp(p, "ID:", 3)) {
			snprintf(num, sizeof(num), "%.*s", (int)(n - 3 < 23 ? n - 3 : 23), p + 3);
			id = strtoull(num, &e, 10);
			return e != num && id != UINT64_MAX ? id : UINT64_MAX;
		}
		p += n + 1;
	}
	return UINT64_MAX;
}

void kp_perfhdr_add_tp_format(struct kp_perfhdr *m, const char *sys, const char *text, size_t len)
{
	uint64_t id = format_id(text, len);
	struct kp_perf_tp_format *f;

	if (id != UINT64_MAX && kp_perfhdr_tp_format(m, id))
		return;
	KP_GROW(m->tps, m->cap_tps, m->nr_tps + 1);
	f = &m->tps[m->nr_tps++];
	f->sys = kp_xstrdup(sys);
	f->text = kp_xmalloc(len ? len : 1);
	memcpy(f->text, text, len);
	f->len = len;
	f->id = id;
}

const struct kp_perf_tp_format *kp_perfhdr_tp_format(const struct kp_perfhdr *m, uint64_t id)
{
	for (size_t i = 0; i < m->nr_tps; i++)
		if (m->tps[i].id == id && id != UINT64_MAX)
			return &m->tps[i];
	return NULL;
}

/* One file of the tracing data: its @tag (NUL included), when there is one, then u64 size and
 * the bytes. */
static void put_trace_file(struct kp_bytes *o, const char *tag, const char *text, size_t len)
{
	if (tag)
		kp_bytes_put(o, tag, strlen(tag) + 1);
	put_u64(o, len);
	kp_bytes_put(o, text, len);
}

/*
 * The ring buffer's header files as the kernels of this kind of machine write them (Linux 2.6.31
 * on), for recordings that did not store them: perf reads the size of `commit`, the kernel's
 * long, from the first, and skips the second.
 */
static const char default_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static void put_default_header_page(struct kp_bytes *o, uint64_t page_size)
{
	char buf[512];
	size_t data = 8 + sizeof(long);
	int n = snprintf(buf, sizeof(buf),
			 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			 "\tfield: local_t commit;\toffset:8;\tsize:%zu;\tsigned:1;\n"
			 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
			 "\tfield: char data;\toffset:%zu;\tsize:%llu;\tsigned:0;\n",
			 sizeof(long), data,
			 (unsigned long long)(page_size > data ? page_size - data : 0));

	put_trace_file(o, "header_page", buf, (size_t)n);
}

/*
 * HEADER_TRACING_DATA, as perf's trace-event-read.c reads it (version 0.6): the magic bytes
 * 23 8 68 and "tracing", the version string, the byte order, the size of a long, the page
 * size, the ring buffer's header files, ftrace's own formats (none), the tracepoints' formats
 * by system, kallsyms and printk formats (none: perf reads the kernel's symbols its own way),
 * and the saved command lines.
 */
static bool put_tracing_data(const struct kp_perfhdr *m, struct kp_bytes *o, int key)
{
	static const char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint64_t page = m->page_size ? m->page_size : (uint64_t)sysconf(_SC_PAGESIZE);
	uint8_t b;
	uint32_t nr_sys = 0;

	(void)key;
	if (!m->nr_tps || !page || page > UINT32_MAX)
		return false;
	kp_bytes_put(o, magic, sizeof(magic));
	kp_bytes_put(o, "0.6", 4);
	b = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	kp_bytes_put(o, &b, 1);
	b = sizeof(long);
	kp_bytes_put(o, &b, 1);
	put_u32(o, (uint32_t)page);
	if (m->header_page)
		put_trace_file(o, "header_page", m->header_page, strlen(m->header_page));
	else
		put_default_header_page(o, page);
	if (m->header_event)
		put_trace_file(o, "header_event", m->header_event, strlen(m->header_event));
	else
		put_trace_file(o, "header_event", default_header_event,
			       sizeof(default_header_event) - 1);
	put_u32(o, 0);
	/* each system once, where it first comes, with all its formats */
	for (size_t i = 0; i < m->nr_tps; i++) {
		size_t first = 0;

		while (strcmp(m->tps[first].sys, m->tps[i].sys))
			first++;
		nr_sys += first == i;
	}
	put_u32(o, nr_sys);
	for (size_t i = 0; i < m->nr_tps; i++) {
		size_t first = 0, at;
		uint32_t nr = 0;

		while (strcmp(m->tps[first].sys, m->tps[i].sys))
			first++;
		if (first != i)
			continue;
		kp_bytes_put(o, m->tps[i].sys, strlen(m->tps[i].sys) + 1);
		at = o->len;
		put_u32(o, 0);
		for (size_t j = i; j < m->nr_tps; j++)
			if (!strcmp(m->tps[j].sys, m->tps[i].sys)) {
				put_trace_file(o, NULL, m->tps[j].text, m->tps[j].len);
				nr++;
			}
		memcpy(o->p + at, &nr, sizeof(nr));
	}
	put_u32(o, 0);
	put_u32(o, 0);
	put_u64(o, m->cmdlines_len);
	kp_bytes_put(o, m->cmdlines, m->cmdlines_len);
	return true;
}

/* HEADER_SAMPLE_TIME: the first and the last sample's time */
static bool put_sample_time(const struct kp_perfhdr *m, struct kp_bytes *o, int key)
{
	(void)key;
	if (!m->last_time)
		return false;
	put_u64(o, m->first_time);
	put_u64(o, m->last_time);
	return true;
}

/*
 * The features kprof reads and writes: one row each, by increasing id (the order of their
 * sections in a file, and of their META records). @take parses one (NULL: not read), @put
 * writes one and says whether it had anything to say (NULL: not written), @key is the fact.
 */
static const struct feat {
	unsigned id;
	void (*take)(struct kp_perfhdr *m, struct cur *c, int key);
	bool (*put)(const struct kp_perfhdr *m, struct kp_bytes *o, int key);
	int key;
} feats[] = {
	{ 1, NULL, put_tracing_data, -1 },		/* HEADER_TRACING_DATA */
	{ 2, feat_build_id, put_build_id, -1 },	/* HEADER_BUILD_ID */
	{ 3, feat_string, put_fact, KP_PERF_HOSTNAME },
	{ 4, feat_string, put_fact, KP_PERF_KERNEL },	/* HEADER_OSRELEASE */
	{ 5, feat_string, put_fact, KP_PERF_VERSION },
	{ 6, feat_string, put_fact, KP_PERF_ARCH },
	{ 7, feat_nrcpus, put_nrcpus, KP_PERF_NRCPUS },
	{ 11, feat_cmdline, put_cmdline, KP_PERF_CMDLINE },
	{ 12, feat_event_desc, put_event_desc, -1 },
	{ 21, NULL, put_sample_time, -1 },		/* HEADER_SAMPLE_TIME */
	{ 29, feat_clock_data, NULL, KP_PERF_CLOCK },
};

void kp_perfhdr_take_feature(struct kp_perfhdr *m, unsigned id, const uint8_t *b, size_t len,
			     uint64_t off)
{
	for (size_t i = 0; i < ARRAY_SIZE(feats); i++) {
		struct cur c = { b, len, false };

		if (feats[i].id != id || !feats[i].take)
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
		if (feats[i].id == id && feats[i].take)
			return true;
	return false;
}

void kp_perfhdr_read_features(struct kp_perfhdr *m, int fd, uint64_t file_size,
			      const struct kp_perf_file_header *h)
{
	uint64_t at = h->data.offset + h->data.size;

	for (unsigned id = 0; id < KP_PERF_FEAT_BITS; id++) {
		struct kp_perf_section sec;
		uint8_t *buf;

		if (!has_feature(h, id))
			continue;
		if (at > file_size || file_size - at < sizeof(sec) ||
		    kp_read_at(fd, &sec, sizeof(sec), at) || !within(&sec, file_size)) {
			if (!m->bad_features++)
				m->bad_feature_off = at;
			return; /* the rest of the array is as unreadable */
		}
		at += sizeof(sec);
		if (!feature_read(id) || sec.size > KP_CHUNK_MAX_USIZE)
			continue;
		buf = kp_xmalloc(sec.size ? sec.size : 1);
		if (!kp_read_at(fd, buf, sec.size, sec.offset))
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
	for (size_t i = 0; i < m->nr_tps; i++) {
		free(m->tps[i].sys);
		free(m->tps[i].text);
	}
	free(m->tps);
	free(m->header_page);
	free(m->header_event);
	free(m->cmdlines);
	memset(m, 0, sizeof(*m));
}

/* The feature sections of @m: the bits of @features set, their bodies in @o, and their
 * sections (offsets from the start of @o) in @sec, as many as the bits. */
static size_t put_features(const struct kp_perfhdr *m, uint64_t *features, struct kp_bytes *o,
			   struct kp_perf_section *sec)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(feats); i++) {
		size_t at = o->len;

		if (!feats[i].put || !feats[i].put(m, o, feats[i].key))
			continue;
		features[feats[i].id / 64] |= 1ull << (feats[i].id % 64);
		sec[n++] = (struct kp_perf_section){ at, o->len - at };
	}
	return n;
}

int kp_perfhdr_write(const struct kp_perfhdr *m, int fd, uint64_t data_off, uint64_t data_size)
{
	struct kp_perf_file_header h = { .magic = KP_PERF_MAGIC2, .size = sizeof(h) };
	struct kp_perf_section sec[ARRAY_SIZE(feats)];
	struct kp_bytes body = { NULL, 0, 0 }, tail = { NULL, 0, 0 };
	uint64_t at = data_off + data_size, ids;
	size_t n = put_features(m, h.features, &body, sec);
	int err;

	/* the section table right after the data (perf looks there), then the bodies */
	for (size_t i = 0; i < n; i++) {
		sec[i].offset += at + n * sizeof(*sec);
		kp_bytes_put(&tail, &sec[i], sizeof(sec[i]));
	}
	kp_bytes_put(&tail, body.p, body.len);
	/* then every event's ids, then the attr section pointing at them */
	ids = at + tail.len;
	for (size_t i = 0; i < m->nr_attrs; i++)
		kp_bytes_put(&tail, m->attrs[i].ids, m->attrs[i].nr_ids * sizeof(uint64_t));
	h.attr_size = sizeof(struct perf_event_attr) + sizeof(struct kp_perf_section);
	h.attrs = (struct kp_perf_section){ at + tail.len, m->nr_attrs * h.attr_size };
	for (size_t i = 0; i < m->nr_attrs; i++) {
		struct perf_event_attr a = m->attrs[i].attr;
		struct kp_perf_section s = { ids, m->attrs[i].nr_ids * sizeof(uint64_t) };

		a.size = sizeof(a);
		kp_bytes_put(&tail, &a, sizeof(a));
		kp_bytes_put(&tail, &s, sizeof(s));
		ids += s.size;
	}
	h.data = (struct kp_perf_section){ data_off, data_size };
	err = kp_write_at(fd, tail.p, tail.len, at);
	if (!err)
		err = kp_write_at(fd, &h, sizeof(h), 0);
	free(body.p);
	free(tail.p);
	return err;
}

/* SPDX-License-Identifier: MIT */
/*
 * perfwrite.c - a recording's records as a perf.data file (perfwrite.h). The header and the
 * features are perfhdr.c's; this file is the data section and what it tells them.
 */
#include "perfwrite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rec.h"
#include "util.h"

#define BUF (1u << 20)			/* data buffered before a write */
#define DATA_OFF sizeof(struct kp_perf_file_header)
#define KMAP_NAME "[kernel.kallsyms]_text"	/* perf's kernel map, relocated by `_text` */

void kp_perfwrite_init(struct kp_perfwrite *pw, int fd)
{
	memset(pw, 0, sizeof(*pw));
	pw->fd = fd;
	pw->off = DATA_OFF;
	kp_evlist_init(&pw->ev);
}

static void flush_buf(struct kp_perfwrite *pw)
{
	if (!pw->err && pw->len)
		pw->err = kp_write_at(pw->fd, pw->buf, pw->len, pw->off);
	pw->off += pw->len;
	pw->len = 0;
}

static void put_rec(struct kp_perfwrite *pw, const void *rec, size_t size)
{
	if (pw->len + size > BUF)
		flush_buf(pw);
	KP_GROW(pw->buf, pw->cap, pw->len + size);
	memcpy(pw->buf + pw->len, rec, size);
	pw->len += size;
}

/* A META fact perf keeps as a feature ("hostname" ... "perf-version"; kprof's own version
 * stands in for perf's), or in its tracing data (the ring buffer's header files, the page
 * size). */
static void take_meta(struct kp_perfwrite *pw, const struct kp_rec_header *rec)
{
	const char *key, *value;
	char buf[128];

	kp_rec_meta_view(rec, &key, &value);
	if (!strcmp(key, KP_META_HEADER_PAGE) && !pw->m.header_page)
		pw->m.header_page = kp_xstrdup(value);
	else if (!strcmp(key, KP_META_HEADER_EVENT) && !pw->m.header_event)
		pw->m.header_event = kp_xstrdup(value);
	else if (!strcmp(key, "page-size"))
		pw->m.page_size = strtoull(value, NULL, 10);
	for (int k = 0; k < KP_PERF_FACTS; k++)
		if (!strcmp(key, kp_perf_fact_keys[k]))
			kp_perfhdr_set_fact(&pw->m, k, kp_xstrdup(value));
	if (!strcmp(key, "kprof-version") && !pw->m.facts[KP_PERF_VERSION]) {
		snprintf(buf, sizeof(buf), "kprof %s", value);
		kp_perfhdr_set_fact(&pw->m, KP_PERF_VERSION, kp_xstrdup(buf));
	}
}

/* The address of `_text` in a KP_REC_KALLSYMS record's lines, if it has that line. */
static void take_kallsyms(struct kp_perfwrite *pw, const struct kp_rec_header *rec)
{
	const struct kp_rec_kallsyms *k = (const void *)rec;
	const char *p = (const char *)(k + 1), *end = p + k->len;

	while (p < end && !pw->text) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		/* "ffffffff81000000 T _text" */
		if (n > 8 && !memcmp(p + n - 6, " _text", 6))
			pw->text = strtoull(p, NULL, 16);
		p += n + 1;
	}
}

void kp_perfwrite_set_text(struct kp_perfwrite *pw, uint64_t addr)
{
	if (!pw->text)
		pw->text = addr;
}

/* Whether @rec is a kernel map of perf's own (a perf.data read back). */
static bool is_kmap(const struct kp_rec_header *rec)
{
	struct kp_mmap m;

	return (rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) &&
	       (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL &&
	       !kp_rec_parse_mmap(rec, rec->size, &m) && !strncmp(m.filename, KMAP_NAME, 17);
}

/* The kernel map, before the first kernel record: its addresses are filled in at the end,
 * when `_text` is known. */
static void put_kmap(struct kp_perfwrite *pw)
{
	struct kp_mmap m = { .pid = UINT32_MAX, .prot = PROT_READ | PROT_EXEC,
			     .filename = KMAP_NAME };
	uint64_t rec[64];
	int size;

	pw->kmap_seen = true;
	if (!pw->ev.nr)
		return;
	size = kp_rec_encode_mmap2(&pw->ev.ev[0].attr, &m, PERF_RECORD_MISC_KERNEL, NULL, rec,
				   sizeof(rec));
	if (size <= 0 || (size_t)size > sizeof(rec))
		return;
	pw->kmap_off = pw->off + pw->len;
	put_rec(pw, rec, (size_t)size);
}

/* The build-id of an MMAP2's file, once per file, for HEADER_BUILD_ID. */
static void take_build_id(struct kp_perfwrite *pw, const struct kp_rec_header *rec)
{
	struct kp_mmap m;

	if (kp_rec_parse_mmap(rec, rec->size, &m) || !m.has_build_id || !m.build_id_size)
		return;
	for (size_t i = pw->m.nr_bids; i > 0; i--)
		if (!strcmp(pw->m.bids[i - 1].path, m.filename))
			return;
	kp_perfhdr_add_build_id(&pw->m, m.build_id, m.build_id_size, m.filename,
				(rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL);
}

/*
 * A sample, if perf can read it: of a recorded event, its fields fitting its record as that
 * event lays them out (kp_rec_parse_sample(), as strict as perf's parser: a stack copy and its
 * dyn_size, registers, a call chain within the record). Returns false for the rest, counted
 * in @damaged: perf stops at the first sample it cannot parse.
 */
static bool take_sample(struct kp_perfwrite *pw, const struct kp_rec_header *rec)
{
	const struct kp_evsel *ev = kp_evlist_find(&pw->ev, rec);
	struct kp_sample smp;
	uint64_t t;

	if (!ev || kp_rec_parse_sample(&ev->attr, rec, &smp)) {
		pw->damaged++;
		return false;
	}
	pw->samples++;
	if (!(ev->attr.sample_type & PERF_SAMPLE_TIME))
		return true;
	t = smp.time;
	if (!pw->m.first_time || t < pw->m.first_time)
		pw->m.first_time = t;
	if (t > pw->m.last_time)
		pw->m.last_time = t;
	return true;
}

/* A tracepoint's format file, for HEADER_TRACING_DATA. */
static void take_tp_format(struct kp_perfwrite *pw, const struct kp_rec_header *rec)
{
	const struct kp_rec_tp_format *f = (const void *)rec;
	const char *sys = (const char *)(f + 1);

	kp_perfhdr_add_tp_format(&pw->m, sys, sys + f->sys_len, f->fmt_len);
}

/* A thread's name, for the tracing data's saved command lines. */
static void take_comm(struct kp_perfwrite *pw, const struct kp_rec_header *rec)
{
	struct kp_comm c;
	struct kp_perfwrite_comm *e;

	if (kp_rec_parse_comm(rec, rec->size, &c) || !c.tid)
		return;
	KP_GROW(pw->comms, pw->cap_comms, pw->nr_comms + 1);
	e = &pw->comms[pw->nr_comms++];
	e->tid = c.tid;
	e->seq = pw->nr_comms;
	snprintf(e->comm, sizeof(e->comm), "%s", c.comm);
}

static void take_own(struct kp_perfwrite *pw, const struct kp_rec_header *rec)
{
	static const struct kp_rec_header round = { KP_PERF_FINISHED_ROUND, 0, sizeof(round) };

	switch (rec->type) {
	case KP_REC_ATTR:
		kp_evlist_add(&pw->ev, rec);
		return;
	case KP_REC_META:
		take_meta(pw, rec);
		return;
	case KP_REC_KALLSYMS:
		take_kallsyms(pw, rec);
		return;
	case KP_REC_TP_FORMAT:
		take_tp_format(pw, rec);
		return;
	case KP_REC_ROUND:
		put_rec(pw, &round, sizeof(round));
		return;
	default:
		pw->left_out++;
	}
}

void kp_perfwrite_add(struct kp_perfwrite *pw, const struct kp_rec_header *rec)
{
	if (rec->type >= KP_REC_USER_START) {
		take_own(pw, rec);
		return;
	}
	if (!pw->kmap_seen && is_kmap(rec))
		pw->kmap_seen = true;
	if (!pw->kmap_seen)
		put_kmap(pw);
	if (rec->type == PERF_RECORD_MMAP2)
		take_build_id(pw, rec);
	else if (rec->type == PERF_RECORD_COMM)
		take_comm(pw, rec);
	else if (rec->type == PERF_RECORD_SAMPLE && !take_sample(pw, rec))
		return;
	put_rec(pw, rec, rec->size);
	pw->records++;
}

/* The kernel map's start and offset are `_text`; it runs to the top of the address space. */
static void fill_kmap(struct kp_perfwrite *pw)
{
	struct kp_rec_mmap2 m;

	if (!pw->kmap_off || !pw->text || pw->err)
		return;
	pw->err = kp_read_at(pw->fd, &m, sizeof(m), pw->kmap_off);
	if (pw->err)
		return;
	m.addr = m.pgoff = pw->text;
	m.len = UINT64_MAX - pw->text;
	pw->err = kp_write_at(pw->fd, &m, sizeof(m), pw->kmap_off);
}

/* The events as perf names them: kprof's name of the event opened, or the spec asked for
 * when that is the same event with perf's modifiers ("cpu-clock:ppp", a perf.data's). */
static void take_events(struct kp_perfwrite *pw)
{
	struct kp_perfhdr *m = &pw->m;

	m->desc_names = kp_xcalloc(pw->ev.nr ? pw->ev.nr : 1, sizeof(*m->desc_names));
	m->nr_desc = pw->ev.nr;
	for (size_t i = 0; i < pw->ev.nr; i++) {
		const struct kp_evsel *e = &pw->ev.ev[i];
		size_t n = kp_perfhdr_base_len(e->spec);

		kp_perfhdr_add_attr(m, &e->attr, e->ids, e->nr_ids);
		m->desc_names[i] = kp_xstrdup(strlen(e->name) == n && !strncmp(e->name, e->spec, n)
					      ? e->spec : e->name);
	}
}

static int cmp_comm(const void *a, const void *b)
{
	const struct kp_perfwrite_comm *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The saved command lines, as tracefs saved_cmdlines lists them: "tid comm\n", each thread's
 * last name, a newline in one (prctl allows it) written as '?'. */
static void put_cmdlines(struct kp_perfwrite *pw)
{
	struct kp_bytes o = { NULL, 0, 0 };

	if (pw->nr_comms) /* (qsort() of no array, NULL, is undefined) */
		qsort(pw->comms, pw->nr_comms, sizeof(*pw->comms), cmp_comm);
	for (size_t i = 0; i < pw->nr_comms; i++) {
		char line[48];
		int n;

		if (i + 1 < pw->nr_comms && pw->comms[i + 1].tid == pw->comms[i].tid)
			continue;
		n = snprintf(line, sizeof(line), "%u %s\n", pw->comms[i].tid, pw->comms[i].comm);
		for (char *c = line; c < line + n - 1; c++)
			if (*c == '\n')
				*c = '?';
		kp_bytes_put(&o, line, (size_t)n);
	}
	pw->m.cmdlines = (char *)o.p;
	pw->m.cmdlines_len = o.len;
}

/* The tracepoint events perf will not find a format for (by their config, as perf looks). */
static void check_tp_formats(struct kp_perfwrite *pw)
{
	for (size_t i = 0; i < pw->ev.nr; i++) {
		const struct kp_evsel *e = &pw->ev.ev[i];

		if (e->attr.type != PERF_TYPE_TRACEPOINT ||
		    kp_perfhdr_tp_format(&pw->m, e->attr.config))
			continue;
		if (!pw->unformatted++)
			pw->unformatted_name = e->name;
	}
}

int kp_perfwrite_finish(struct kp_perfwrite *pw)
{
	flush_buf(pw);
	fill_kmap(pw);
	take_events(pw);
	put_cmdlines(pw);
	check_tp_formats(pw);
	if (!pw->err)
		pw->err = kp_perfhdr_write(&pw->m, pw->fd, DATA_OFF, pw->off - DATA_OFF);
	return pw->err;
}

void kp_perfwrite_release(struct kp_perfwrite *pw)
{
	kp_perfhdr_release(&pw->m);
	kp_evlist_release(&pw->ev);
	free(pw->buf);
	pw->buf = NULL;
	free(pw->comms);
	pw->comms = NULL;
	pw->unformatted_name = NULL;
}

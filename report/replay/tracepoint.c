/* SPDX-License-Identifier: MIT */
#include "tracepoint.h"

#include <event-parse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-seq.h>

#include "formats/kprof-format.h"
#include "formats/util.h"

struct kp_tp {
	struct tep_handle *tep;
};

struct kp_tp *kp_tp_new(void)
{
	struct kp_tp *t = kp_xcalloc(1, sizeof(*t));

	t->tep = tep_alloc();
	if (!t->tep) {
		fprintf(stderr, "kprof: out of memory in libtraceevent\n");
		abort();
	}
	/* recordings are read on the machine kind they were made on (FORMAT.md: one byte order) */
	tep_set_long_size(t->tep, sizeof(long));
	tep_set_file_bigendian(t->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									      : TEP_LITTLE_ENDIAN);
	return t;
}

void kp_tp_free(struct kp_tp *t)
{
	if (!t)
		return;
	tep_free(t->tep);
	free(t);
}

int kp_tp_add_format(struct kp_tp *t, const char *sys, const char *fmt, size_t len)
{
	struct tep_event *ev = NULL;

	return tep_parse_format(t->tep, &ev, fmt, len, sys) ? -KP_ERECORD : 0;
}

void kp_tp_add_record(struct kp_tp *t, const struct kp_rec_header *rec)
{
	const struct kp_rec_tp_format *f = (const void *)rec;
	const char *sys = (const char *)(f + 1);

	if (rec->type == KP_REC_TP_FORMAT)
		kp_tp_add_format(t, sys, sys + f->sys_len, f->fmt_len);
}

/* The event of a RAW payload, when it has a format and its fields are all inside it. */
static struct tep_event *payload_event(struct kp_tp *t, const void *raw, uint32_t size)
{
	struct tep_event *ev;
	uint16_t type;

	if (size < sizeof(type))
		return NULL;
	memcpy(&type, raw, sizeof(type)); /* common_type, the first field of every event */
	ev = tep_find_event(t->tep, type);
	if (!ev)
		return NULL;
	/* libtraceevent reads fields at their format offsets: refuse a payload that is too short */
	for (int pass = 0; pass < 2; pass++)
		for (const struct tep_format_field *f = pass ? ev->format.fields
							     : ev->format.common_fields;
		     f; f = f->next) {
			uint32_t loc;
			if ((uint64_t)f->offset + f->size > size)
				return NULL;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4)
				continue;
			/* __data_loc: u16 offset and u16 length of data elsewhere in the payload */
			memcpy(&loc, (const char *)raw + f->offset, sizeof(loc));
			if ((loc & 0xffff) + (loc >> 16) > size)
				return NULL;
		}
	return ev;
}

/*
 * libtraceevent's tep_print_fields() clears a char array's string flag, for good, the first
 * time it meets one that is not printable (a comm of odd bytes), and prints that field as
 * "ARRAY[...]" in every payload after: the flags are put back after each call, so that one
 * payload's bytes never change how the next ones read.
 */
static void print_fields(struct trace_seq *s, struct tep_record *rec, struct tep_event *ev)
{
	unsigned long few[64], *flags = few;
	size_t n = 0;

	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		n++;
	if (n > ARRAY_SIZE(few))
		flags = kp_xmalloc(n * sizeof(*flags));
	n = 0;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		flags[n++] = f->flags;
	tep_print_fields(s, rec->data, rec->size, ev);
	n = 0;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		f->flags = flags[n++];
	if (flags != few)
		free(flags);
}

static int format(struct kp_tp *t, const void *raw, uint32_t size, char *buf, size_t cap,
		  bool info)
{
	struct tep_event *ev = payload_event(t, raw, size);
	struct tep_record rec;
	struct trace_seq s;

	buf[0] = '\0';
	if (!ev)
		return -KP_ESAMPLE;
	memset(&rec, 0, sizeof(rec));
	rec.data = (void *)raw;
	rec.size = (int)size;
	trace_seq_init(&s);
	if (info)
		tep_print_event(t->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	else
		print_fields(&s, &rec, ev);
	trace_seq_terminate(&s);
	snprintf(buf, cap, "%s", s.buffer + (info ? 0 : strspn(s.buffer, " ")));
	trace_seq_destroy(&s);
	return 0;
}

int kp_tp_format(struct kp_tp *t, const void *raw, uint32_t size, char *buf, size_t cap)
{
	return format(t, raw, size, buf, cap, false);
}

int kp_tp_print(struct kp_tp *t, const void *raw, uint32_t size, char *buf, size_t cap)
{
	return format(t, raw, size, buf, cap, true);
}

int kp_tp_field(struct kp_tp *t, const void *raw, uint32_t size, const char *name, unsigned idx,
		uint64_t *val)
{
	struct tep_event *ev = payload_event(t, raw, size);
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;
	unsigned esize, n;
	int64_t v = 0;

	if (!f || (f->flags & TEP_FIELD_IS_DYNAMIC))
		return -KP_ESAMPLE;
	n = f->flags & TEP_FIELD_IS_ARRAY ? f->arraylen : 1;
	esize = f->flags & TEP_FIELD_IS_ARRAY ? f->elementsize : (unsigned)f->size;
	if (idx >= n || (esize != 1 && esize != 2 && esize != 4 && esize != 8) ||
	    (uint64_t)f->offset + (uint64_t)(idx + 1) * esize > size)
		return -KP_ESAMPLE;
	const unsigned char *p = (const unsigned char *)raw + f->offset + (size_t)idx * esize;
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		int8_t b; int16_t h; int32_t w;
		switch (esize) {
		case 1: memcpy(&b, p, 1); v = b; break;
		case 2: memcpy(&h, p, 2); v = h; break;
		case 4: memcpy(&w, p, 4); v = w; break;
		default: memcpy(&v, p, 8); break;
		}
		*val = (uint64_t)v;
	} else {
		uint8_t b; uint16_t h; uint32_t w; uint64_t q;
		switch (esize) {
		case 1: memcpy(&b, p, 1); q = b; break;
		case 2: memcpy(&h, p, 2); q = h; break;
		case 4: memcpy(&w, p, 4); q = w; break;
		default: memcpy(&q, p, 8); break;
		}
		*val = q;
	}
	return 0;
}

int kp_tp_field_str(struct kp_tp *t, const void *raw, uint32_t size, const char *name, char *buf,
		    size_t cap)
{
	struct tep_event *ev = payload_event(t, raw, size);
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;
	uint32_t off, len;

	if (cap)
		buf[0] = '\0';
	if (!f)
		return -KP_ESAMPLE;
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size == 4) { /* in bounds: payload_event() */
		memcpy(&off, (const char *)raw + f->offset, sizeof(off));
		len = off >> 16;
		off &= 0xffff;
	} else if ((f->flags & TEP_FIELD_IS_ARRAY) && f->elementsize == 1) {
		off = (uint32_t)f->offset;
		len = (uint32_t)f->size;
	} else {
		return -KP_ESAMPLE;
	}
	const char *p = (const char *)raw + off, *nul = memchr(p, '\0', len);
	len = nul ? (uint32_t)(nul - p) : len;
	if (cap) {
		len = len < cap - 1 ? len : (uint32_t)(cap - 1);
		memcpy(buf, p, len);
		buf[len] = '\0';
	}
	return 0;
}

void kp_tp_field_names(struct kp_tp *t, const void *raw, uint32_t size, char *buf, size_t cap)
{
	struct tep_event *ev = payload_event(t, raw, size);
	size_t n = 0;

	buf[0] = '\0';
	for (struct tep_format_field *f = ev ? ev->format.fields : NULL; f && n < cap; f = f->next) {
		int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", f->name);
		n += w > 0 ? (size_t)w : 0;
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * test-tracepoint.c - decoding tracepoint payloads (report/replay/tracepoint.h) with a real tracefs
 * format, sched_switch's: the fields as "name=value", and a comm of bytes that are not
 * printable, which libtraceevent prints as an array, changing nothing for the payloads after;
 * a char array field read as a string, to its NUL or its end, and cut to the buffer.
 * A recording of it converted to a perf.data (report/tools/convert.h), as kprof recorded it before it
 * kept tracefs' ring buffer header files: its HEADER_TRACING_DATA as perf's trace-event-read.c
 * reads it, with header files libtraceevent takes; and a tracepoint of no stored format said.
 */
#include <event-parse.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/perfhdr.h"
#include "formats/rec.h"
#include "formats/util.h"
#include "formats/writer.h"
#include "report/tools/convert.h"
#include "report/replay/tracepoint.h"
#include "tests/tap.h"

static const char fmt[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->next_comm, REC->next_pid\n";

/* a sched_switch payload from @prev (@pp) to @next (@np) */
static void payload(unsigned char *p, const char *prev, int32_t pp, const char *next, int32_t np)
{
	uint16_t type = 372;
	int32_t prio = 120;
	int64_t state = 1;

	memset(p, 0, 64);
	memcpy(p, &type, 2);
	memcpy(p + 8, prev, strlen(prev));
	memcpy(p + 24, &pp, 4);
	memcpy(p + 28, &prio, 4);
	memcpy(p + 32, &state, 8);
	memcpy(p + 40, next, strlen(next));
	memcpy(p + 56, &np, 4);
	memcpy(p + 60, &prio, 4);
}

/*
 * A recording of sched_switch (id 372) into @fd: its ATTR, META page-size (and no ring buffer
 * header files), its format, three COMMs (thread 4242 renamed, thread 7's name holding a
 * newline) and a sample. With @orphan, a second tracepoint event (id 999) of no format.
 */
static void write_recording(int fd, bool orphan)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_TRACEPOINT, .config = 372 };
	struct kp_writer w;
	uint64_t ids[] = { 1, 2 }, rec[64];
	unsigned char raw[64];
	struct kp_sample smp = { .pid = 4242, .tid = 4242, .time = 1000, .period = 1,
				 .raw = raw, .raw_size = 60, .id = 1 };
	struct kp_comm comms[] = { { 4242, 4242, "sh" }, { 7, 7, "x\ny" }, { 4242, 4242, "waits" } };
	int n;

	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	a.sample_id_all = 1;
	kp_writer_init(&w, fd, 1, 0);
	kp_writer_add_attr(&w, &a, 0, &ids[0], 1, "sched:sched_switch", "sched:sched_switch", 0);
	if (orphan) {
		struct perf_event_attr b = a;

		b.config = 999;
		kp_writer_add_attr(&w, &b, 1, &ids[1], 1, "irq:gone", "irq:gone", 0);
	}
	kp_writer_add_meta(&w, "page-size", "4096");
	kp_writer_add_tp_format(&w, 372, "sched", fmt, strlen(fmt));
	for (size_t i = 0; i < ARRAY_SIZE(comms); i++) {
		n = kp_rec_encode_comm(&a, &comms[i], 0, &smp, rec, sizeof(rec));
		if (n > 0)
			kp_writer_add(&w, rec);
	}
	payload(raw, "sh", 5, "waits", 42);
	n = kp_rec_encode_sample(&a, &smp, PERF_RECORD_MISC_USER, rec, sizeof(rec));
	if (n > 0)
		kp_writer_add(&w, rec);
	kp_writer_close(&w);
}

/* A bounded cursor over the tracing data. */
struct cur {
	const unsigned char *p;
	size_t left;
};

static const void *take(struct cur *c, size_t n)
{
	const void *at = c->p;

	if (n > c->left)
		return NULL;
	c->p += n;
	c->left -= n;
	return at;
}

/* A number of @n bytes (1, 4 or 8) in the machine's byte order, or UINT64_MAX. */
static uint64_t take_num(struct cur *c, size_t n)
{
	const void *at = take(c, n);
	uint8_t b;
	uint32_t w;
	uint64_t q;

	if (!at)
		return UINT64_MAX;
	if (n == 1)
		return memcpy(&b, at, 1), b;
	if (n == 4)
		return memcpy(&w, at, 4), w;
	return memcpy(&q, at, 8), q;
}

/* A file of the tracing data: its tag (NUL included), u64 size, bytes. Returns its text and
 * its size in *@len, or NULL. */
static const char *take_file(struct cur *c, const char *tag, uint64_t *len)
{
	const char *t = tag ? take(c, strlen(tag) + 1) : "";

	if (!t || (tag && memcmp(t, tag, strlen(tag) + 1)))
		return NULL;
	*len = take_num(c, 8);
	return *len == UINT64_MAX ? NULL : take(c, *len);
}

/* The HEADER_TRACING_DATA section of the perf.data on @fd, malloc'd, or NULL. */
static unsigned char *tracing_data(int fd, size_t *len)
{
	struct kp_perf_file_header h;
	struct kp_perf_section sec;
	unsigned char *buf;

	if (pread(fd, &h, sizeof(h), 0) != sizeof(h) || !(h.features[0] & 2) ||
	    pread(fd, &sec, sizeof(sec), (off_t)(h.data.offset + h.data.size)) != sizeof(sec))
		return NULL; /* bit 1 is the lowest set: its section is the first */
	buf = kp_xmalloc(sec.size ? sec.size : 1);
	if (pread(fd, buf, sec.size, (off_t)sec.offset) != (ssize_t)sec.size) {
		free(buf);
		return NULL;
	}
	*len = sec.size;
	return buf;
}

static void test_convert(void)
{
	FILE *in = tmpfile(), *out = tmpfile();
	struct kp_convert_stats st;
	struct kp_reader r;
	unsigned char *td;
	size_t len = 0;
	struct cur c;
	const char *text;
	uint64_t n;
	struct tep_handle *tep = tep_alloc();
	int rc;

	write_recording(fileno(in), false);
	rc = kp_reader_open_fd(&r, fileno(in));
	rc = rc ? rc : kp_convert_perf(&r, fileno(out), &st, NULL);
	kp_reader_release(&r);
	ok(!rc && st.samples == 1 && !st.unformatted, "sched_switch converted to a perf.data (%d)",
	   rc);
	td = tracing_data(fileno(out), &len);
	ok(td != NULL, "it has HEADER_TRACING_DATA, %zu bytes", len);
	c = (struct cur){ td, td ? len : 0 };
	text = take(&c, 10);
	ok(text && !memcmp(text, "\027\010\104tracing", 10), "its magic");
	text = take(&c, 4);
	ok(text && !memcmp(text, "0.6", 4), "version 0.6, with saved command lines");
	is_u64(take_num(&c, 1), __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, "the byte order");
	is_u64(take_num(&c, 1), sizeof(long), "the size of a long");
	is_u64(take_num(&c, 4), 4096, "the recording's page size");
	text = take_file(&c, "header_page", &n);
	rc = text && n ? tep_parse_header_page(tep, (char *)text, n, sizeof(long)) : -1;
	ok(!rc && tep_get_header_page_size(tep) == sizeof(long),
	   "none stored, one made: a header_page libtraceevent reads (%d), commit a long (%d "
	   "bytes), which perf takes for the kernel's", rc, tep_get_header_page_size(tep));
	text = take_file(&c, "header_event", &n);
	ok(text && n && strstr(text, "type_len    :    5 bits"), "a header_event");
	is_u64(take_num(&c, 4), 0, "no ftrace formats");
	is_u64(take_num(&c, 4), 1, "one system");
	text = take(&c, 6);
	ok(text && !memcmp(text, "sched", 6), "sched");
	is_u64(take_num(&c, 4), 1, "one format in it");
	text = take_file(&c, NULL, &n);
	ok(text && n == strlen(fmt) && !memcmp(text, fmt, n), "sched_switch's format, verbatim");
	is_u64(take_num(&c, 4), 0, "no kallsyms");
	is_u64(take_num(&c, 4), 0, "no printk formats");
	text = take_file(&c, NULL, &n);
	ok(text && n == 17 && !memcmp(text, "7 x?y\n4242 waits\n", 17),
	   "saved command lines, by thread: each one's last name, a newline in one made '?'");
	is_u64(c.left, 0, "nothing after them");
	free(td);
	tep_free(tep);
	fclose(in);
	fclose(out);

	in = tmpfile();
	out = tmpfile();
	write_recording(fileno(in), true);
	rc = kp_reader_open_fd(&r, fileno(in));
	rc = rc ? rc : kp_convert_perf(&r, fileno(out), &st, NULL);
	kp_reader_release(&r);
	ok(!rc && st.unformatted == 1 && !strcmp(st.unformatted_name, "irq:gone"),
	   "a tracepoint event of no format is counted and named: %llu, '%s'",
	   (unsigned long long)st.unformatted, st.unformatted_name);
	fclose(in);
	fclose(out);
}

int main(void)
{
	struct kp_tp *t = kp_tp_new();
	unsigned char p[64];
	char buf[512];

	ok(!kp_tp_add_format(t, "sched", fmt, strlen(fmt)), "sched_switch's format is read");
	payload(p, "sh", 5, "waits", 42);
	ok(!kp_tp_format(t, p, sizeof(p), buf, sizeof(buf)) &&
	   strstr(buf, "prev_comm=sh ") && strstr(buf, "next_comm=waits ") &&
	   strstr(buf, "next_pid=42"), "fields as name=value: %s", buf);
	payload(p, "sh", 5, "\xff\x01odd", 43);
	ok(!kp_tp_format(t, p, sizeof(p), buf, sizeof(buf)) && strstr(buf, "next_pid=43"),
	   "a comm of bytes that are not printable decodes: %s", buf);
	payload(p, "sh", 5, "later", 44);
	ok(!kp_tp_format(t, p, sizeof(p), buf, sizeof(buf)) && strstr(buf, "next_comm=later "),
	   "the next payload's comm is a string again, not an array: %s", buf);
	ok(kp_tp_format(t, p, 10, buf, sizeof(buf)) != 0, "a payload shorter than its fields is refused");
	ok(!kp_tp_field_str(t, p, sizeof(p), "next_comm", buf, sizeof(buf)) && !strcmp(buf, "later"),
	   "a char array as a string, to its NUL: %s", buf);
	payload(p, "sixteen-bytes-xx", 5, "b", 45);
	ok(!kp_tp_field_str(t, p, sizeof(p), "prev_comm", buf, sizeof(buf)) &&
	   !strcmp(buf, "sixteen-bytes-xx"), "... to its end without one: %s", buf);
	ok(!kp_tp_field_str(t, p, sizeof(p), "prev_comm", buf, 4) && !strcmp(buf, "six"),
	   "... cut to the buffer: %s", buf);
	ok(kp_tp_field_str(t, p, sizeof(p), "prev_pid", buf, sizeof(buf)) != 0 && !buf[0] &&
	   kp_tp_field_str(t, p, sizeof(p), "nosuch", buf, sizeof(buf)) != 0 &&
	   kp_tp_field_str(t, p, 10, "prev_comm", buf, sizeof(buf)) != 0,
	   "an integer, a missing field and a short payload are no string");
	kp_tp_free(t);
	test_convert();
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* Record validation, sample and trailer parsing, and event lookup by id. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/evlist.h"
#include "formats/reader.h"
#include "formats/rec.h"
#include "formats/util.h"
#include "formats/writer.h"
#include "synth.h"
#include "tests/tap.h"

static void test_validate(void)
{
	uint64_t buf[64];
	struct kp_rec_header *h = (void *)buf;

	memset(buf, 0, sizeof(buf));
	*h = (struct kp_rec_header){ PERF_RECORD_SAMPLE, 0, 8 };
	ok(kp_rec_validate(h, 8) == 0, "an empty sample header is a valid record");
	ok(kp_rec_validate(h, 4) == -KP_ERECORD, "a header cut short is rejected");
	h->size = 12;
	ok(kp_rec_validate(h, 64) == -KP_ERECORD, "a size that is not a multiple of 8 is rejected");
	h->size = 0;
	ok(kp_rec_validate(h, 64) == -KP_ERECORD, "a zero size is rejected");
	h->size = 72;
	ok(kp_rec_validate(h, 64) == -KP_ERECORD, "a size past the buffer is rejected");

	*h = (struct kp_rec_header){ PERF_RECORD_MMAP2, 0, 72 };
	ok(kp_rec_validate(h, sizeof(buf)) == -KP_ERECORD, "an mmap2 below its minimum is rejected");
	h->size = 88;
	memset((char *)buf + 72, 'x', 16);
	ok(kp_rec_validate(h, sizeof(buf)) == -KP_ERECORD,
	   "an mmap2 whose file name has no NUL is rejected");
	((char *)buf)[87] = 0;
	ok(kp_rec_validate(h, sizeof(buf)) == 0, "an mmap2 with a terminated file name passes");

	*h = (struct kp_rec_header){ 50, 0, 16 };
	ok(kp_rec_validate(h, sizeof(buf)) == 0 && !kp_rec_info_of(50),
	   "an unknown type passes validation and has no table row");
	*h = (struct kp_rec_header){ KP_REC_STATS, 0, 88 };
	ok(kp_rec_validate(h, sizeof(buf)) == -KP_ERECORD, "a short stats record is rejected");
}

static void test_own_records(void)
{
	struct kp_writer w;
	struct perf_event_attr a;
	uint64_t ids[3] = { 7, 8, 9 };
	struct kp_attr_view v;
	const char *key, *value;
	struct kp_rec_header *h;
	struct kp_rec_meta *m;
	int fd = memfd_create("rec", 0);

	kp_writer_init(&w, fd, 1, 0);
	synth_attr(&a);
	kp_writer_add_attr(&w, &a, 3, ids, 3, "cpu-clock", "cycles:u", 1);
	h = (void *)w.buf;
	ok(kp_rec_validate(h, w.len) == 0, "an attr record validates");
	kp_rec_attr_view(h, &v);
	ok(!memcmp(&v.attr, &a, sizeof(a)) && v.nr_ids == 3 && v.ids[2] == 9 && v.index == 3,
	   "the attr record gives back the attr, ids and index");
	ok(!strcmp(v.name, "cpu-clock") && !strcmp(v.spec, "cycles:u") && v.fallback,
	   "the attr record gives back name, spec and the fallback flag");
	((struct kp_rec_attr *)h)->nr_ids = 1000;
	ok(kp_rec_validate(h, w.len) == -KP_ERECORD, "an attr whose ids overrun it is rejected");

	w.len = 0;
	kp_writer_add_meta(&w, "kernel", "6.18");
	m = (void *)w.buf;
	kp_rec_meta_view(&m->h, &key, &value);
	ok(kp_rec_validate(&m->h, w.len) == 0 && !strcmp(key, "kernel") && !strcmp(value, "6.18"),
	   "a meta record round-trips its key and value");
	m->value_len = 100;
	ok(kp_rec_validate(&m->h, w.len) == -KP_ERECORD, "a meta whose value overruns is rejected");
	w.len = 0;
	{
		static const char fmt[] = "name: sched_switch\nID: 372\n";
		struct kp_rec_tp_format *f;
		ok(kp_writer_add_tp_format(&w, 372, "sched", fmt, sizeof(fmt) - 1) == 0,
		   "a tracepoint format record is written");
		f = (void *)w.buf;
		ok(kp_rec_validate(&f->h, w.len) == 0 && f->id == 372 &&
			   !strcmp((const char *)(f + 1), "sched") &&
			   !memcmp((const char *)(f + 1) + f->sys_len, fmt, f->fmt_len),
		   "it validates and gives back id, system and format");
		f->fmt_len = 4000;
		ok(kp_rec_validate(&f->h, w.len) == -KP_ERECORD, "a format that overruns is rejected");
		w.len = 0;
	}
	kp_writer_close(&w);
	close(fd);
}

static void test_sample(void)
{
	uint64_t buf[64];
	struct kp_rec_header *h = (void *)buf;
	struct perf_event_attr a;
	struct kp_sample s;

	synth_attr(&a);
	synth_sample(buf, 42, 5000, 1, 0x401000, 3);
	ok(kp_rec_parse_sample(&a, h, &s) == 0, "a synthetic sample parses");
	ok(s.id == 1001 && s.ip == 0x401000 && s.pid == 42 && s.tid == 42 && s.time == 5000 &&
		   s.cpu == 1 && s.period == 250000,
	   "its fixed fields come back");
	{
		uint64_t t = 0;
		ok(kp_rec_sample_time(&a, h, &t) == 0 && t == 5000,
		   "the time is read without decoding the sample");
	}
	ok(s.nr_callchain == 4 && s.callchain[0] == PERF_CONTEXT_USER &&
		   s.callchain[3] == 0x401300,
	   "its call chain comes back, context marker included");
	h->size -= 8;
	ok(kp_rec_parse_sample(&a, h, &s) == -KP_ESAMPLE, "a sample shorter than its chain fails");
	buf[7] = 1ull << 40;
	h->size += 8;
	ok(kp_rec_parse_sample(&a, h, &s) == -KP_ESAMPLE, "a huge chain count fails, no overrun");
	a.sample_type |= 1ull << 40;
	ok(kp_rec_parse_sample(&a, h, &s) == -KP_ESAMPLE_TYPE, "an unknown sample field fails");

	/* a sample of more words than its fields before the chain is read by their fixed places,
	 * a shorter one field by field: both read the same */
	synth_attr(&a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	for (uint64_t nr = 1; nr <= 8; nr += 7) {
		uint64_t w[] = { 0x401234, 7ull << 32 | 6, 999, nr, PERF_CONTEXT_USER, 0x401234,
				 0x401300, 0x401400, 0x401500, 0x401600, 0x401700, 0x401800 };

		memcpy(buf + 1, w, sizeof(w));
		*h = (struct kp_rec_header){ PERF_RECORD_SAMPLE, 0, (uint16_t)(8 + 8 * (4 + nr)) };
		ok(kp_rec_parse_sample(&a, h, &s) == 0 && s.ip == 0x401234 && s.pid == 6 &&
			   s.tid == 7 && s.time == 999 && s.nr_callchain == nr &&
			   s.callchain == buf + 5 && s.callchain[nr - 1] == w[3 + nr],
		   "a %s-word sample's fields and chain of %llu", nr == 1 ? "5" : "12",
		   (unsigned long long)nr);
		h->size -= 8;
		ok(kp_rec_parse_sample(&a, h, &s) == -KP_ESAMPLE && !s.ip,
		   "cut one word short, it fails and is cleared");
	}

	/* RAW and STACK_USER bounds */
	synth_attr(&a);
	a.sample_type = PERF_SAMPLE_RAW;
	buf[1] = 0xffffu; /* raw size 65535 in a 16-byte record */
	*h = (struct kp_rec_header){ PERF_RECORD_SAMPLE, 0, 16 };
	ok(kp_rec_parse_sample(&a, h, &s) == -KP_ESAMPLE, "a raw size past the record fails");
	a.sample_type = PERF_SAMPLE_STACK_USER;
	buf[1] = 1ull << 62;
	ok(kp_rec_parse_sample(&a, h, &s) == -KP_ESAMPLE, "a stack size past the record fails");
}

static void test_trailer_and_evlist(void)
{
	uint64_t buf[32] = { 0 };
	struct kp_rec_header *h = (void *)buf;
	struct perf_event_attr a, b;
	struct kp_sample s;
	struct kp_evlist l;
	struct kp_writer w;
	uint64_t ida = 1000, idb = 2000;
	int fd = memfd_create("rec", 0);

	synth_attr(&a);
	*h = (struct kp_rec_header){ PERF_RECORD_EXIT, 0, 64 };
	buf[4] = (43ull << 32) | 42; /* pid 42, tid 43 */
	buf[5] = 777;
	buf[6] = 1;
	buf[7] = 2000;
	ok(kp_rec_parse_id(&a, h, &s) == 0 && s.pid == 42 && s.tid == 43 && s.time == 777 &&
		   s.cpu == 1 && s.id == 2000,
	   "the sample_id_all trailer is read from the end");
	h->size = 16;
	ok(kp_rec_parse_id(&a, h, &s) == -KP_ESAMPLE, "a trailer longer than the record fails");
	h->size = 40;
	ok(kp_rec_parse_id(&a, h, &s) == -KP_ESAMPLE,
	   "a trailer that would overlap the exit record's own fields fails");
	h->size = 64;

	kp_evlist_init(&l);
	kp_writer_init(&w, fd, 1, 0);
	b = a;
	b.config = PERF_COUNT_SW_PAGE_FAULTS;
	kp_writer_add_attr(&w, &a, 0, &ida, 1, "cpu-clock", "cpu-clock", 0);
	kp_evlist_add(&l, (void *)w.buf);
	w.len = 0;
	kp_writer_add_attr(&w, &b, 1, &idb, 1, "page-faults", "page-faults", 0);
	kp_evlist_add(&l, (void *)w.buf);
	w.len = 0;
	ok(kp_evlist_find(&l, h) == &l.ev[1], "a trailer's identifier selects its event");
	synth_sample(buf, 1, 1, 0, 0x1000, 0);
	buf[1] = 1000;
	ok(kp_evlist_find(&l, h) == &l.ev[0], "a sample's identifier selects its event");
	buf[1] = 5;
	ok(kp_evlist_find(&l, h) == NULL, "an unknown id selects nothing");
	kp_evlist_release(&l);
	kp_writer_close(&w);
	close(fd);
}

/* An event with more ids than one record holds (many threads times many CPUs) is written as
 * several ATTR records of one index, read back as one event with every id. */
static void test_many_ids(void)
{
	enum { N = 20000 };
	uint64_t *ids = malloc(N * sizeof(*ids)), buf[32] = { 0 };
	struct perf_event_attr a;
	struct kp_writer w;
	struct kp_reader r;
	struct kp_evlist l;
	const struct kp_rec_header *rec;
	int fd = memfd_create("ids", 0), nattr = 0, rc, all = 1;

	synth_attr(&a);
	for (int i = 0; i < N; i++)
		ids[i] = 5000 + 3 * (uint64_t)i;
	kp_writer_init(&w, fd, 1, 0);
	kp_writer_add_attr(&w, &a, 0, ids, N, "cpu-clock", "cycles", 1);
	kp_writer_add_attr(&w, &a, 1, ids, 1, "cpu-clock", "cpu-clock", 0);
	kp_writer_add_meta(&w, "command", "true");
	ok(kp_writer_close(&w) == 0, "an event with %d ids is written", N);
	kp_evlist_init(&l);
	ok(kp_reader_open_fd(&r, fd) == 0, "...and its file opens");
	while ((rc = kp_reader_next(&r, &rec)) > 0)
		if (rec->type == KP_REC_ATTR) {
			nattr++;
			kp_evlist_add(&l, rec);
		}
	ok(rc == 0 && nattr > 2, "...in %d ATTR records, read back cleanly", nattr);
	ok(l.nr == 2 && l.ev[0].nr_ids == N && l.ev[1].nr_ids == 1 && l.ev[0].fallback,
	   "...as one event with every id, beside the next event (%zu events, %u ids)", l.nr,
	   l.nr ? l.ev[0].nr_ids : 0);
	for (int i = 0; i < N && l.nr; i++)
		all &= l.ev[0].ids[i] == ids[i];
	ok(all, "...the ids in order");
	synth_sample(buf, 1, 1, 0, 0x1000, 0);
	buf[1] = ids[N - 1];
	ok(l.nr && kp_evlist_find(&l, (void *)buf) == &l.ev[0], "the last id selects the event");
	kp_evlist_release(&l);
	kp_reader_release(&r);
	free(ids);
	close(fd);
}

/* A SYMBOLS record of one location with two frames and one function, in @buf. */
static struct kp_rec_symbols *symbols_rec(uint64_t *buf, size_t words)
{
	static const char strs[] = "f\0inl\0a.c\0";
	struct kp_rec_symbols *r = (void *)buf;
	struct kp_symbols_view v;
	size_t size = sizeof(*r) + 8 + sizeof(struct kp_rec_sym_func) + sizeof(struct kp_rec_sym_loc) +
		      2 * sizeof(struct kp_rec_sym_frame) + 16;
	char *p;

	memset(buf, 0, words * 8);
	*r = (struct kp_rec_symbols){ { KP_REC_SYMBOLS, 0, (uint16_t)size }, 5, 2, { 0xab, 0xcd },
				      1, 1, 2, sizeof(strs) };
	p = (char *)(r + 1);
	memcpy(p, "/bin", 5);
	kp_rec_symbols_view(&r->h, &v);
	*(struct kp_rec_sym_func *)v.funcs = (struct kp_rec_sym_func){ 0x1000, 0x1000, 64, 0, 0 };
	*(struct kp_rec_sym_loc *)v.locs = (struct kp_rec_sym_loc){ 0x1010, 0x10, 0, 2, 0 };
	((struct kp_rec_sym_frame *)v.frames)[0] = (struct kp_rec_sym_frame){ 2, 6, 7,
									    KP_SYMFRAME_INLINED };
	((struct kp_rec_sym_frame *)v.frames)[1] = (struct kp_rec_sym_frame){ 0, KP_SYM_NONE, 0, 0 };
	memcpy((char *)v.strs, strs, sizeof(strs));
	return r;
}

static void test_symbols(void)
{
	uint64_t buf[32];
	struct kp_rec_symbols *r = symbols_rec(buf, 32);
	struct kp_symbols_view v;

	ok(kp_rec_validate(&r->h, sizeof(buf)) == 0 && kp_rec_symbols_view(&r->h, &v) == 0 &&
	   !strcmp(v.path, "/bin") && !strcmp(v.strs + v.frames[0].name, "inl") &&
	   v.locs[0].nr_frames == 2, "a symbols record validates and gives back its parts");
	r->nr_frames = 1000;
	ok(kp_rec_validate(&r->h, sizeof(buf)) == -KP_ERECORD, "frames beyond the record: rejected");
	r = symbols_rec(buf, 32);
	((struct kp_rec_sym_loc *)v.locs)->nr_frames = 3;
	ok(kp_rec_validate(&r->h, sizeof(buf)) == -KP_ERECORD,
	   "a location whose frames run past the array: rejected");
	r = symbols_rec(buf, 32);
	((struct kp_rec_sym_loc *)v.locs)->nr_frames = 0;
	ok(kp_rec_validate(&r->h, sizeof(buf)) == -KP_ERECORD, "a location of no frame: rejected");
	r = symbols_rec(buf, 32);
	((struct kp_rec_sym_frame *)v.frames)[0].file = r->str_len;
	ok(kp_rec_validate(&r->h, sizeof(buf)) == -KP_ERECORD,
	   "a file name past the string table: rejected");
	r = symbols_rec(buf, 32);
	((struct kp_rec_sym_func *)v.funcs)->name = 0xfffffff0u;
	ok(kp_rec_validate(&r->h, sizeof(buf)) == -KP_ERECORD,
	   "a function name past the string table: rejected");
	r = symbols_rec(buf, 32);
	((char *)v.strs)[r->str_len - 1] = 'x';
	ok(kp_rec_validate(&r->h, sizeof(buf)) == -KP_ERECORD, "an unterminated string table: rejected");
	r = symbols_rec(buf, 32);
	((char *)(r + 1))[4] = 'x';
	ok(kp_rec_validate(&r->h, sizeof(buf)) == -KP_ERECORD, "an unterminated path: rejected");
	r = symbols_rec(buf, 32);
	r->build_id_len = 21;
	ok(kp_rec_validate(&r->h, sizeof(buf)) == -KP_ERECORD, "a build-id of 21 bytes: rejected");
	r = symbols_rec(buf, 32);
	r->nr_locs = 0xffffffffu;
	ok(kp_rec_validate(&r->h, sizeof(buf)) == -KP_ERECORD,
	   "counts whose sizes overflow 32 bits: rejected");
}

int main(void)
{
	test_validate();
	test_own_records();
	test_sample();
	test_trailer_and_evlist();
	test_many_ids();
	test_symbols();
	return tap_done();
}

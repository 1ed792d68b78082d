/* SPDX-License-Identifier: MIT */
/*
 * The record encoders against the parsers: every sample field kprof parses, written and read
 * back; the typed views of the side-band records on good and hostile bytes; and goldens of the
 * records the recorder writes through the encoders (the unwinding thread's samples, the /proc
 * synthesis's COMM and MMAP2), which are the bytes the hand-written layouts before them made
 * from the same inputs.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/rec.h"
#include "formats/util.h"
#include "tests/tap.h"

/* --- samples: every field, written and read back ---------------------------------------- */

static const uint64_t words[64] = { 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
				    26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40 };
static const char bytes[] = "raw bytes of some tracepoint, aux bytes";

/* A sample with a value in every field of @st (as @a lays them out), none of them zero. */
static void full_sample(const struct perf_event_attr *a, struct kp_sample *s)
{
	uint64_t st = a->sample_type;

	memset(s, 0, sizeof(*s));
	s->sample_type = st;
	s->id = 0x1d;
	s->ip = 0x401000;
	s->pid = 42;
	s->tid = 43;
	s->time = 123456789;
	s->addr = 0xdead0000;
	s->stream_id = st & PERF_SAMPLE_STREAM_ID ? 0x5d : 0;
	s->cpu = 3;
	s->period = 250000;
	if (st & PERF_SAMPLE_READ) {
		s->read = words;
		s->nr_read = 3; /* value, time enabled, id: base_attr()'s read_format */
	}
	s->nr_callchain = 5;
	s->callchain = words + 1;
	s->raw_size = 13;
	s->raw = bytes;
	s->nr_branches = 2;
	s->branch_hw_index = a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX ? 7 : 0;
	s->branches = words + 2;
	s->regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
	s->nr_regs_user = __builtin_popcountll(a->sample_regs_user);
	s->regs_user = words + 3;
	s->stack_size = 48;
	s->stack_dyn_size = 40;
	s->stack_data = words + 4;
	s->weight = 0x77;
	s->data_src = 0x88;
	s->transaction = 0x99;
	s->regs_intr_abi = PERF_SAMPLE_REGS_ABI_64;
	s->nr_regs_intr = __builtin_popcountll(a->sample_regs_intr);
	s->regs_intr = words + 5;
	s->phys_addr = 0x12345000;
	s->cgroup = 0xc6;
	s->data_page_size = 4096;
	s->code_page_size = 2 << 20;
	s->aux_size = 11;
	s->aux = bytes + 20;
}

/* The fields of @want that @st has, compared with @got (arrays by content). */
static bool arrays_equal(const void *a, const void *b, uint64_t n)
{
	return !n || (a && b && !memcmp(a, b, n));
}

static bool same_sample(uint64_t st, const struct kp_sample *got, const struct kp_sample *want)
{
#define HAS(bit) (st & PERF_SAMPLE_##bit)
#define SAME(bit, f) (!HAS(bit) || got->f == want->f)
#define SAME_ARRAY(bit, nr, p, size)                                                      \
	(!HAS(bit) || (got->nr == want->nr && arrays_equal(got->p, want->p, want->nr * (size))))
	return got->sample_type == st && SAME(IDENTIFIER, id) && SAME(ID, id) && SAME(IP, ip) &&
	       SAME(TID, pid) && SAME(TID, tid) && SAME(TIME, time) && SAME(ADDR, addr) &&
	       SAME(STREAM_ID, stream_id) && SAME(CPU, cpu) && SAME(PERIOD, period) &&
	       SAME_ARRAY(READ, nr_read, read, 8) &&
	       SAME_ARRAY(CALLCHAIN, nr_callchain, callchain, 8) &&
	       SAME_ARRAY(RAW, raw_size, raw, 1) && SAME(BRANCH_STACK, branch_hw_index) &&
	       SAME_ARRAY(BRANCH_STACK, nr_branches, branches, 24) &&
	       SAME(REGS_USER, regs_user_abi) && SAME_ARRAY(REGS_USER, nr_regs_user, regs_user, 8) &&
	       SAME_ARRAY(STACK_USER, stack_size, stack_data, 1) &&
	       SAME(STACK_USER, stack_dyn_size) &&
	       (!(st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) ||
		got->weight == want->weight) &&
	       SAME(DATA_SRC, data_src) && SAME(TRANSACTION, transaction) &&
	       SAME(REGS_INTR, regs_intr_abi) && SAME_ARRAY(REGS_INTR, nr_regs_intr, regs_intr, 8) &&
	       SAME(PHYS_ADDR, phys_addr) && SAME(CGROUP, cgroup) &&
	       SAME(DATA_PAGE_SIZE, data_page_size) && SAME(CODE_PAGE_SIZE, code_page_size) &&
	       SAME_ARRAY(AUX, aux_size, aux, 1);
#undef SAME_ARRAY
#undef SAME
#undef HAS
}

static void base_attr(struct perf_event_attr *a, uint64_t st)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = st;
	a->sample_regs_user = 0xff0fff;
	a->sample_regs_intr = 0x5;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	a->sample_id_all = 1;
}

/* Encode @s, parse it back and compare; then encode what was parsed: the same bytes. */
static bool round_trip(const struct perf_event_attr *a, const struct kp_sample *s)
{
	uint64_t buf[1024], again[1024];
	struct kp_sample back;
	int n = kp_rec_encode_sample(a, s, PERF_RECORD_MISC_USER, buf, sizeof(buf));
	const struct kp_rec_header *h = (const void *)buf;

	if (n <= 0 || (size_t)n > sizeof(buf) || h->size != n || h->type != PERF_RECORD_SAMPLE ||
	    h->misc != PERF_RECORD_MISC_USER || kp_rec_parse_sample(a, h, &back) ||
	    !same_sample(a->sample_type, &back, s))
		return false;
	return kp_rec_encode_sample(a, &back, h->misc, again, sizeof(again)) == n &&
	       !memcmp(buf, again, n);
}

static void test_sample_round_trips(void)
{
	struct perf_event_attr a;
	struct kp_sample s;
	int bad = 0;

	for (unsigned bit = 0; bit < 64; bit++) {
		uint64_t st = 1ull << bit;
		if (!(st & KP_SAMPLE_KNOWN))
			continue;
		base_attr(&a, st);
		full_sample(&a, &s);
		if (!round_trip(&a, &s)) {
			bad++;
			printf("# sample_type bit %u does not round-trip\n", bit);
		}
	}
	ok(!bad, "each sample_type bit kprof parses round-trips alone (%d fail)", bad);
	base_attr(&a, KP_SAMPLE_KNOWN);
	full_sample(&a, &s);
	ok(round_trip(&a, &s), "all of them together round-trip");
	a.read_format |= PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	full_sample(&a, &s);
	s.nr_read = 1 + 1 + 3 * s.read[0]; /* nr, time enabled, nr × {value, id, lost} */
	ok(round_trip(&a, &s), "...with a READ group and a branch stack's hw_index");
	a.sample_type &= ~PERF_SAMPLE_WEIGHT;
	a.sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	s.regs_user_abi = s.regs_intr_abi = PERF_SAMPLE_REGS_ABI_NONE;
	s.nr_regs_user = s.nr_regs_intr = 0;
	s.stack_size = s.stack_dyn_size = 0;
	s.raw_size = s.aux_size = 0;
	s.nr_callchain = s.nr_branches = 0;
	ok(round_trip(&a, &s), "...and with empty arrays, no registers and WEIGHT_STRUCT");
}

/*
 * kp_rec_parse_sample_again() into one struct, sample after sample, must give what a fresh
 * parse gives, byte for byte: types that change, fields that come and go (registers, empty
 * arrays), and failures between them.
 */
static void test_parse_again(void)
{
	static const uint64_t types[] = {
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CALLCHAIN,
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER,
		PERF_SAMPLE_IP | PERF_SAMPLE_RAW | PERF_SAMPLE_READ,
		KP_SAMPLE_KNOWN,
	};
	uint64_t buf[1024];
	struct perf_event_attr a;
	struct kp_sample again, fresh, s;
	unsigned bad = 0, n = 0;

	memset(&again, 0, sizeof(again));
	for (unsigned i = 0; i < 400; i++) {
		unsigned t = (i / 3 + i / 40) % (sizeof(types) / sizeof(types[0])); /* in runs */
		int rc1, rc2;

		base_attr(&a, types[t]);
		full_sample(&a, &s);
		if (i % 3 == 1) { /* no registers, empty arrays */
			s.regs_user_abi = s.regs_intr_abi = PERF_SAMPLE_REGS_ABI_NONE;
			s.nr_regs_user = s.nr_regs_intr = 0;
			s.stack_size = s.stack_dyn_size = 0;
			s.raw_size = s.aux_size = 0;
			s.nr_callchain = s.nr_branches = 0;
		}
		s.ip += i;
		if (kp_rec_encode_sample(&a, &s, 0, buf, sizeof(buf)) <= 0) {
			bad++;
			continue;
		}
		if (i % 11 == 5) /* cut short: both fail */
			((struct kp_rec_header *)buf)->size = 16;
		rc1 = kp_rec_parse_sample_again(&a, (const void *)buf, &again);
		rc2 = kp_rec_parse_sample(&a, (const void *)buf, &fresh);
		bad += rc1 != rc2 || memcmp(&again, &fresh, sizeof(fresh));
		n++;
	}
	ok(!bad, "%u samples parsed again into one struct are what fresh parses give (%u differ)",
	   n, bad);
}

static void test_sample_errors(void)
{
	struct perf_event_attr a;
	struct kp_sample s;
	uint64_t buf[512];
	int n;

	base_attr(&a, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			      PERF_SAMPLE_STACK_USER | PERF_SAMPLE_RAW);
	full_sample(&a, &s);
	n = kp_rec_encode_sample(&a, &s, 0, NULL, 0);
	ok(n > 0 && n % 8 == 0, "a zero-sized buffer gives the size (%d)", n);
	memset(buf, 0xa5, sizeof(buf));
	ok(kp_rec_encode_sample(&a, &s, 0, buf, (size_t)n - 8) == n && buf[0] == 0xa5a5a5a5a5a5a5a5ull,
	   "a buffer too small is not written");
	ok(kp_rec_encode_sample(&a, &s, 0, buf, sizeof(buf)) == n &&
		   ((const uint8_t *)buf)[n - 1] != 0xa5,
	   "one large enough is written to the record's end");
	s.nr_regs_user--;
	is_u64(kp_rec_encode_sample(&a, &s, 0, buf, sizeof(buf)), -KP_EENCODE,
	       "registers that are not the mask's are refused");
	full_sample(&a, &s);
	s.stack_size = 12;
	is_u64(kp_rec_encode_sample(&a, &s, 0, buf, sizeof(buf)), -KP_EENCODE,
	       "a stack size that is not a multiple of 8 is refused");
	s.stack_size = 16;
	s.stack_dyn_size = 24;
	is_u64(kp_rec_encode_sample(&a, &s, 0, buf, sizeof(buf)), -KP_EENCODE,
	       "a dyn_size past the stack copy is refused");
	full_sample(&a, &s);
	s.nr_callchain = KP_REC_MAX_SIZE / 8;
	is_u64(kp_rec_encode_sample(&a, &s, 0, NULL, 0), -KP_EENCODE,
	       "a sample larger than a record is refused");
	s.nr_callchain = 1ull << 62;
	is_u64(kp_rec_encode_sample(&a, &s, 0, NULL, 0), -KP_EENCODE,
	       "a count that would wrap is refused");
	full_sample(&a, &s);
	s.callchain = NULL;
	is_u64(kp_rec_encode_sample(&a, &s, 0, NULL, 0), -KP_EENCODE,
	       "a count without its array is refused");
	a.sample_type |= 1ull << 40;
	is_u64(kp_rec_encode_sample(&a, &s, 0, buf, sizeof(buf)), -KP_ESAMPLE_TYPE,
	       "an unknown sample field is refused");
	base_attr(&a, PERF_SAMPLE_READ);
	full_sample(&a, &s);
	s.nr_read = 2;
	is_u64(kp_rec_encode_sample(&a, &s, 0, buf, sizeof(buf)), -KP_EENCODE,
	       "read words that are not read_format's are refused");
}

/* --- side-band records ------------------------------------------------------------------- */

static const struct kp_sample trailer_id = { .pid = 42, .tid = 43, .time = 777, .id = 1000,
					     .stream_id = 1000, .cpu = 1 };

static void side_attr(struct perf_event_attr *a)
{
	base_attr(a, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			     PERF_SAMPLE_IDENTIFIER);
}

static bool same_trailer(const struct perf_event_attr *a, const struct kp_rec_header *h)
{
	struct kp_sample id;

	return !kp_rec_parse_id(a, h, &id) && id.pid == 42 && id.tid == 43 && id.time == 777 &&
	       id.id == 1000 && id.cpu == 1;
}

static void test_mmap(void)
{
	struct perf_event_attr a;
	uint64_t buf[64];
	struct kp_rec_header *h = (void *)buf;
	struct kp_mmap m = { .pid = 42, .tid = 42, .addr = 0x400000, .len = 0x1000,
			     .pgoff = 0x2000, .maj = 8, .min = 1, .ino = 1234, .ino_generation = 9,
			     .prot = 5, .flags = 2, .filename = "/usr/bin/x" }, back;
	int n;

	side_attr(&a);
	n = kp_rec_encode_mmap2(&a, &m, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID,
				&trailer_id, buf, sizeof(buf));
	ok(n == 72 + 16 + 40 && h->type == PERF_RECORD_MMAP2 && h->misc == PERF_RECORD_MISC_USER,
	   "an mmap2 is written, its build-id flag cleared for an inode (%d bytes)", n);
	ok(kp_rec_validate(h, n) == 0 && kp_rec_parse_mmap(h, n, &back) == 0 && back.pid == 42 &&
		   back.addr == 0x400000 && back.len == 0x1000 && back.pgoff == 0x2000 &&
		   back.maj == 8 && back.min == 1 && back.ino == 1234 && back.ino_generation == 9 &&
		   back.prot == 5 && back.flags == 2 && !back.has_build_id &&
		   !strcmp(back.filename, "/usr/bin/x"),
	   "...and parses back");
	ok(same_trailer(&a, h), "...with its trailer");
	m.has_build_id = true;
	m.build_id_size = 20;
	memcpy(m.build_id, "0123456789abcdefghij", 20);
	n = kp_rec_encode_mmap2(&a, &m, PERF_RECORD_MISC_USER, &trailer_id, buf, sizeof(buf));
	ok(n > 0 && kp_rec_parse_mmap(h, n, &back) == 0 && back.has_build_id &&
		   back.build_id_size == 20 && !memcmp(back.build_id, m.build_id, 20) &&
		   !back.maj && !back.ino && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID),
	   "a build-id round-trips, and sets the flag");
	((struct kp_rec_mmap2 *)buf)->build_id_size = 200;
	ok(kp_rec_parse_mmap(h, n, &back) == 0 && back.build_id_size == 20,
	   "a build-id size past 20 is cut to 20");
	ok(kp_rec_parse_mmap(h, n - 8, &back) == -KP_ERECORD && !back.filename,
	   "an mmap2 past its buffer is refused, the view zeroed");
	memset((char *)buf + 72, 'x', n - 72);
	ok(kp_rec_parse_mmap(h, n, &back) == -KP_ERECORD, "...and one whose name has no NUL");
	h->size = 72;
	ok(kp_rec_parse_mmap(h, sizeof(buf), &back) == -KP_ERECORD, "...and one without a name");
	ok(kp_rec_parse_mmap(h, 4, &back) == -KP_ERECORD, "...and a header cut short");
	*h = (struct kp_rec_header){ PERF_RECORD_MMAP, 0, 48 };
	memcpy((char *)buf + 40, "/lib/a\0", 8);
	((struct kp_rec_mmap *)buf)->addr = 0x7000;
	ok(kp_rec_parse_mmap(h, 48, &back) == 0 && back.addr == 0x7000 &&
		   !strcmp(back.filename, "/lib/a") && !back.has_build_id,
	   "an mmap (version 1) parses into the same view");
	h->type = PERF_RECORD_COMM;
	ok(kp_rec_parse_mmap(h, 48, &back) == -KP_ERECORD, "a record of another type is refused");
}

static void test_comm_task(void)
{
	struct perf_event_attr a;
	uint64_t buf[32];
	struct kp_rec_header *h = (void *)buf;
	struct kp_comm c = { 42, 43, "worker" }, cb;
	struct kp_task t = { 44, 42, 45, 43, 9999 }, tb;
	int n;

	side_attr(&a);
	n = kp_rec_encode_comm(&a, &c, PERF_RECORD_MISC_COMM_EXEC, &trailer_id, buf, sizeof(buf));
	ok(n == 16 + 16 + 40 && h->misc == PERF_RECORD_MISC_COMM_EXEC &&
		   kp_rec_parse_comm(h, n, &cb) == 0 && cb.pid == 42 && cb.tid == 43 &&
		   !strcmp(cb.comm, "worker") && same_trailer(&a, h),
	   "a comm round-trips, its name in 16 bytes");
	c.comm = "a name longer than sixteen bytes";
	n = kp_rec_encode_comm(&a, &c, 0, NULL, buf, sizeof(buf));
	ok(n == 16 + 40 + 40 && kp_rec_parse_comm(h, n, &cb) == 0 && !strcmp(cb.comm, c.comm),
	   "a longer name takes what it needs");
	memset((char *)buf + 16, 'x', n - 16);
	ok(kp_rec_parse_comm(h, n, &cb) == -KP_ERECORD && !cb.comm,
	   "a comm whose name has no NUL is refused");

	n = kp_rec_encode_task(&a, PERF_RECORD_FORK, &t, 0, &trailer_id, buf, sizeof(buf));
	ok(n == 32 + 40 && h->type == PERF_RECORD_FORK && kp_rec_parse_task(h, n, &tb) == 0 &&
		   !memcmp(&tb, &t, sizeof(t)) && same_trailer(&a, h),
	   "a fork round-trips");
	n = kp_rec_encode_task(&a, PERF_RECORD_EXIT, &t, 0, &trailer_id, buf, sizeof(buf));
	ok(n == 72 && h->type == PERF_RECORD_EXIT && kp_rec_parse_task(h, n, &tb) == 0 &&
		   tb.tid == 45 && tb.time == 9999,
	   "an exit round-trips");
	is_u64(kp_rec_encode_task(&a, PERF_RECORD_COMM, &t, 0, NULL, buf, sizeof(buf)),
	       -KP_EENCODE, "a task record of another type is refused");
	h->size = 24;
	ok(kp_rec_parse_task(h, sizeof(buf), &tb) == -KP_ERECORD, "an exit below 32 bytes is refused");
	a.sample_id_all = 0;
	ok(kp_rec_encode_task(&a, PERF_RECORD_EXIT, &t, 0, &trailer_id, buf, sizeof(buf)) == 32,
	   "without sample_id_all there is no trailer");
}

static void test_lost_switch(void)
{
	uint64_t buf[4] = { 0, 1000, 7, 0 };
	struct kp_rec_header *h = (void *)buf;
	struct kp_lost l;
	struct kp_switch sw;

	*h = (struct kp_rec_header){ PERF_RECORD_LOST, 0, 24 };
	ok(kp_rec_parse_lost(h, 24, &l) == 0 && l.id == 1000 && l.lost == 7, "a lost record parses");
	h->size = 16;
	ok(kp_rec_parse_lost(h, 24, &l) == -KP_ERECORD && !l.lost, "a short lost record is refused");
	*h = (struct kp_rec_header){ PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, 8 };
	ok(kp_rec_parse_switch(h, 8, &sw) == 0 && sw.out && !sw.preempt && !sw.cpu_wide,
	   "a switch-out parses");
	*h = (struct kp_rec_header){ PERF_RECORD_SWITCH_CPU_WIDE,
				     PERF_RECORD_MISC_SWITCH_OUT |
					     PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, 16 };
	buf[1] = 51ull << 32 | 50;
	ok(kp_rec_parse_switch(h, 16, &sw) == 0 && sw.out && sw.preempt && sw.cpu_wide &&
		   sw.next_prev_pid == 50 && sw.next_prev_tid == 51,
	   "a CPU-wide switch names the other thread");
	h->size = 8;
	ok(kp_rec_parse_switch(h, 16, &sw) == -KP_ERECORD, "a CPU-wide switch without it is refused");
}

/* --- goldens: what the recorder writes ---------------------------------------------------- */

/* Fixed inputs: two samples with stack copies, as the kernel writes them for --call-graph dwarf
 * (the second also with RAW and fields after the copy), and what unwinding found for them. */
#define DWARF_ST                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |      \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | \
	 PERF_SAMPLE_STACK_USER)
#define DWARF_RAW_ST                                                                      \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |             \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |      \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |                \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP)
#define KADDR 0xffffffff81000000ull

static void dwarf_attr(struct perf_event_attr *a, uint64_t st)
{
	base_attr(a, st);
	a->sample_stack_user = 64;
}

/* The sample of @st (DWARF_ST or DWARF_RAW_ST) into @buf; returns its size. */
static size_t dwarf_sample(uint64_t *buf, uint64_t st)
{
	uint64_t *p = buf + 1;
	size_t stack = st == DWARF_ST ? 64 : 32;

	if (st & PERF_SAMPLE_IDENTIFIER)
		*p++ = 7;
	*p++ = 0x401234;			/* IP */
	*p++ = 43ull << 32 | 42;		/* PID, TID */
	*p++ = 1000000;				/* TIME */
	if (st & PERF_SAMPLE_ADDR)
		*p++ = 0xdead0000;
	*p++ = 1;				/* CPU */
	*p++ = 250000;				/* PERIOD */
	if (st == DWARF_ST) {
		*p++ = 5;
		*p++ = PERF_CONTEXT_KERNEL;
		*p++ = KADDR + 0x10;
		*p++ = KADDR + 0x20;
	} else {
		*p++ = 2;
	}
	*p++ = PERF_CONTEXT_USER;
	*p++ = 0x401234;
	if (st & PERF_SAMPLE_RAW) {		/* u32 size 12, 12 bytes, no padding needed */
		uint32_t size = 12;
		memcpy(p, &size, 4);
		memcpy((char *)p + 4, "sys_getuid!", 12);
		p += 2;
	}
	*p++ = PERF_SAMPLE_REGS_ABI_64;
	for (int i = 0; i < 20; i++)
		*p++ = 0x7ffc0000 + 8 * i;
	*p++ = stack;
	for (size_t i = 0; i < stack / 8; i++)
		*p++ = 0x401000 + 0x100 * i;
	*p++ = stack - 24;			/* dyn_size */
	if (st & PERF_SAMPLE_WEIGHT) {
		*p++ = 77;
		*p++ = 88;			/* DATA_SRC */
		*p++ = 0x99000;			/* PHYS_ADDR */
		*p++ = 5;			/* CGROUP */
	}
	*(struct kp_rec_header *)buf = (struct kp_rec_header){
		PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)((p - buf) * 8) };
	return (p - buf) * 8;
}

/* What unwinding found: the kernel part as recorded, then the user frames. */
static const uint64_t unwound_chain[] = { PERF_CONTEXT_KERNEL, KADDR + 0x10, KADDR + 0x20,
					  PERF_CONTEXT_USER, 0x401234, 0x401500, 0x401600 };
static const uint64_t unwound_raw_chain[] = { PERF_CONTEXT_USER, 0x401234, 0x401700 };

/* Fixed inputs of the /proc synthesis: threads, and the events whose trailers the records carry
 * (one event; several, with IDENTIFIER; ID and STREAM_ID). */
static const struct {
	uint32_t pid, tid;
	const char *name;
} synth_comms[] = {
	{ 0, 0, "swapper" },
	{ 4242, 4242, "sh" },
	{ 4242, 4243, "a-15-char-name!" },
	{ 4242, 4244, "longer than six" }, /* synth.c cut "longer than sixteen bytes" */
};

static const uint64_t synth_attrs[] = {
	PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
	PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
	PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID,
};

static void synth_attr_of(struct perf_event_attr *a, uint64_t st)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = st;
	a->sample_id_all = 1;
}

/* The views src/record/synth.c makes of these lines of a maps file (4242's), in order:
 *   7f3a1c000000-7f3a1c028000 r--p 00000000 08:01 1315 /usr/lib/x86_64-linux-gnu/libc.so.6
 *   7f3a1c028000-7f3a1c1bd000 r-xp 00028000 08:01 1315 /usr/lib/x86_64-linux-gnu/libc.so.6
 *   555555554000-555555556000 r-xs 00001000 fd:02 987654321 /opt/app/bin/tool
 *   7f3a1c200000-7f3a1c201000 rwxp 00000000 00:00 0
 *   7ffd1e5f0000-7ffd1e5f2000 r-xp 00000000 00:00 0 [vdso]
 *   7f0000000000-7f0000001000 --xp 00003000 08:03 77 /usr/lib/debug/short
 * the libc with a 20-byte build-id, the tool with none, the last with an 8-byte one; lines that
 * are not executable or name no file have none. */
static const struct kp_mmap synth_maps[] = {
	{ .pid = 4242, .tid = 4242, .addr = 0x7f3a1c028000, .len = 0x195000, .pgoff = 0x28000,
	  .has_build_id = true, .build_id_size = 20,
	  .build_id = { 0x4f, 0x2a, 0x11, 0x93, 0x05, 0xc6, 0x7e, 0x81, 0x00, 0x10, 0xff, 0x01,
			0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x42 },
	  .prot = 5, .flags = 2, .filename = "/usr/lib/x86_64-linux-gnu/libc.so.6" },
	{ .pid = 4242, .tid = 4242, .addr = 0x555555554000, .len = 0x2000, .pgoff = 0x1000,
	  .maj = 0xfd, .min = 2, .ino = 987654321, .prot = 5, .flags = 1,
	  .filename = "/opt/app/bin/tool" },
	{ .pid = 4242, .tid = 4242, .addr = 0x7ffd1e5f0000, .len = 0x2000, .prot = 5, .flags = 2,
	  .filename = "[vdso]" },
	{ .pid = 4242, .tid = 4242, .addr = 0x7f0000000000, .len = 0x1000, .pgoff = 0x3000,
	  .has_build_id = true, .build_id_size = 8,
	  .build_id = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 }, .prot = 4, .flags = 2,
	  .filename = "/usr/lib/debug/short" },
};

/* The bytes the hand-written layouts of src/record/online.c and src/record/synth.c wrote for these inputs. */
static const uint64_t golden_unwound[] = {
	0x0088000200000009, 0x0000000000000007, 0x0000000000401234,
	0x0000002b0000002a, 0x00000000000f4240, 0x0000000000000001,
	0x000000000003d090, 0x0000000000000007, 0xffffffffffffff80,
	0xffffffff81000010, 0xffffffff81000020, 0xfffffffffffffe00,
	0x0000000000401234, 0x0000000000401500, 0x0000000000401600,
	0x0000000000000000, 0x0000000000000000,
};
static const uint64_t golden_unwound_raw[] = {
	0x0098000200000009, 0x0000000000401234, 0x0000002b0000002a,
	0x00000000000f4240, 0x00000000dead0000, 0x0000000000000001,
	0x000000000003d090, 0x0000000000000003, 0xfffffffffffffe00,
	0x0000000000401234, 0x0000000000401700, 0x5f7379730000000c,
	0x0021646975746567, 0x0000000000000000, 0x0000000000000000,
	0x000000000000004d, 0x0000000000000058, 0x0000000000099000,
	0x0000000000000005,
};
static const uint64_t golden_synth_0[] = {
	0x0038000000000003, 0x0000000000000000, 0x0072657070617773,
	0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x0038000000000003, 0x0000109200001092,
	0x0000000000006873, 0x0000000000000000, 0x0000109200001092,
	0x0000000000000000, 0x0000000000000000, 0x0038000000000003,
	0x0000109300001092, 0x6168632d35312d61, 0x0021656d616e2d72,
	0x0000109300001092, 0x0000000000000000, 0x0000000000000000,
	0x0038000000000003, 0x0000109400001092, 0x74207265676e6f6c,
	0x00786973206e6168, 0x0000109400001092, 0x0000000000000000,
	0x0000000000000000, 0x008840020000000a, 0x0000109200001092,
	0x00007f3a1c028000, 0x0000000000195000, 0x0000000000028000,
	0x93112a4f00000014, 0x01ff1000817ec605, 0x42efcdab89674523,
	0x0000000200000005, 0x62696c2f7273752f, 0x2d34365f3638782f,
	0x6e672d78756e696c, 0x732e6362696c2f75, 0x0000000000362e6f,
	0x0000109200001092, 0x0000000000000000, 0x0000000000000000,
	0x007800020000000a, 0x0000109200001092, 0x0000555555554000,
	0x0000000000002000, 0x0000000000001000, 0x00000002000000fd,
	0x000000003ade68b1, 0x0000000000000000, 0x0000000100000005,
	0x7070612f74706f2f, 0x6f6f742f6e69622f, 0x000000000000006c,
	0x0000109200001092, 0x0000000000000000, 0x0000000000000000,
	0x006800020000000a, 0x0000109200001092, 0x00007ffd1e5f0000,
	0x0000000000002000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x0000000000000000, 0x0000000200000005,
	0x00005d6f7364765b, 0x0000109200001092, 0x0000000000000000,
	0x0000000000000000, 0x007840020000000a, 0x0000109200001092,
	0x00007f0000000000, 0x0000000000001000, 0x0000000000003000,
	0xefbeadde00000008, 0x0000000004030201, 0x0000000000000000,
	0x0000000200000004, 0x62696c2f7273752f, 0x732f67756265642f,
	0x0000000074726f68, 0x0000109200001092, 0x0000000000000000,
	0x0000000000000000,
};
static const uint64_t golden_synth_1[] = {
	0x0040000000000003, 0x0000000000000000, 0x0072657070617773,
	0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x00000000000004d2, 0x0040000000000003,
	0x0000109200001092, 0x0000000000006873, 0x0000000000000000,
	0x0000109200001092, 0x0000000000000000, 0x0000000000000000,
	0x00000000000004d2, 0x0040000000000003, 0x0000109300001092,
	0x6168632d35312d61, 0x0021656d616e2d72, 0x0000109300001092,
	0x0000000000000000, 0x0000000000000000, 0x00000000000004d2,
	0x0040000000000003, 0x0000109400001092, 0x74207265676e6f6c,
	0x00786973206e6168, 0x0000109400001092, 0x0000000000000000,
	0x0000000000000000, 0x00000000000004d2, 0x009040020000000a,
	0x0000109200001092, 0x00007f3a1c028000, 0x0000000000195000,
	0x0000000000028000, 0x93112a4f00000014, 0x01ff1000817ec605,
	0x42efcdab89674523, 0x0000000200000005, 0x62696c2f7273752f,
	0x2d34365f3638782f, 0x6e672d78756e696c, 0x732e6362696c2f75,
	0x0000000000362e6f, 0x0000109200001092, 0x0000000000000000,
	0x0000000000000000, 0x00000000000004d2, 0x008000020000000a,
	0x0000109200001092, 0x0000555555554000, 0x0000000000002000,
	0x0000000000001000, 0x00000002000000fd, 0x000000003ade68b1,
	0x0000000000000000, 0x0000000100000005, 0x7070612f74706f2f,
	0x6f6f742f6e69622f, 0x000000000000006c, 0x0000109200001092,
	0x0000000000000000, 0x0000000000000000, 0x00000000000004d2,
	0x007000020000000a, 0x0000109200001092, 0x00007ffd1e5f0000,
	0x0000000000002000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x0000000000000000, 0x0000000200000005,
	0x00005d6f7364765b, 0x0000109200001092, 0x0000000000000000,
	0x0000000000000000, 0x00000000000004d2, 0x008040020000000a,
	0x0000109200001092, 0x00007f0000000000, 0x0000000000001000,
	0x0000000000003000, 0xefbeadde00000008, 0x0000000004030201,
	0x0000000000000000, 0x0000000200000004, 0x62696c2f7273752f,
	0x732f67756265642f, 0x0000000074726f68, 0x0000109200001092,
	0x0000000000000000, 0x0000000000000000, 0x00000000000004d2,
};
static const uint64_t golden_synth_2[] = {
	0x0038000000000003, 0x0000000000000000, 0x0072657070617773,
	0x0000000000000000, 0x0000000000000000, 0x00000000000004d2,
	0x00000000000004d2, 0x0038000000000003, 0x0000109200001092,
	0x0000000000006873, 0x0000000000000000, 0x0000109200001092,
	0x00000000000004d2, 0x00000000000004d2, 0x0038000000000003,
	0x0000109300001092, 0x6168632d35312d61, 0x0021656d616e2d72,
	0x0000109300001092, 0x00000000000004d2, 0x00000000000004d2,
	0x0038000000000003, 0x0000109400001092, 0x74207265676e6f6c,
	0x00786973206e6168, 0x0000109400001092, 0x00000000000004d2,
	0x00000000000004d2, 0x008840020000000a, 0x0000109200001092,
	0x00007f3a1c028000, 0x0000000000195000, 0x0000000000028000,
	0x93112a4f00000014, 0x01ff1000817ec605, 0x42efcdab89674523,
	0x0000000200000005, 0x62696c2f7273752f, 0x2d34365f3638782f,
	0x6e672d78756e696c, 0x732e6362696c2f75, 0x0000000000362e6f,
	0x0000109200001092, 0x00000000000004d2, 0x00000000000004d2,
	0x007800020000000a, 0x0000109200001092, 0x0000555555554000,
	0x0000000000002000, 0x0000000000001000, 0x00000002000000fd,
	0x000000003ade68b1, 0x0000000000000000, 0x0000000100000005,
	0x7070612f74706f2f, 0x6f6f742f6e69622f, 0x000000000000006c,
	0x0000109200001092, 0x00000000000004d2, 0x00000000000004d2,
	0x006800020000000a, 0x0000109200001092, 0x00007ffd1e5f0000,
	0x0000000000002000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x0000000000000000, 0x0000000200000005,
	0x00005d6f7364765b, 0x0000109200001092, 0x00000000000004d2,
	0x00000000000004d2, 0x007840020000000a, 0x0000109200001092,
	0x00007f0000000000, 0x0000000000001000, 0x0000000000003000,
	0xefbeadde00000008, 0x0000000004030201, 0x0000000000000000,
	0x0000000200000004, 0x62696c2f7273752f, 0x732f67756265642f,
	0x0000000074726f68, 0x0000109200001092, 0x00000000000004d2,
	0x00000000000004d2,
};

static bool same_words(const uint64_t *got, size_t got_bytes, const uint64_t *want,
		       size_t want_bytes)
{
	if (got_bytes == want_bytes && !memcmp(got, want, want_bytes))
		return true;
	for (size_t i = 0; i < got_bytes / 8 || i < want_bytes / 8; i++)
		printf("#   word %3zu: got %016llx want %016llx\n", i,
		       i < got_bytes / 8 ? (unsigned long long)got[i] : 0ull,
		       i < want_bytes / 8 ? (unsigned long long)want[i] : 0ull);
	return false;
}

static void test_golden_unwound(void)
{
	static const struct {
		uint64_t sample_type;
		const uint64_t *chain, *golden;
		size_t nr_chain, golden_bytes;
		const char *what;
	} cases[] = {
		{ DWARF_ST, unwound_chain, golden_unwound, ARRAY_SIZE(unwound_chain),
		  sizeof(golden_unwound), "a sample with a stack copy" },
		{ DWARF_RAW_ST, unwound_raw_chain, golden_unwound_raw, ARRAY_SIZE(unwound_raw_chain),
		  sizeof(golden_unwound_raw), "one with RAW and fields after the copy" },
	};
	uint64_t in[256], out[256];
	struct perf_event_attr a;
	struct kp_sample s;
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		dwarf_attr(&a, cases[i].sample_type);
		dwarf_sample(in, cases[i].sample_type);
		ok(kp_rec_parse_sample(&a, (void *)in, &s) == 0, "%s parses", cases[i].what);
		n = kp_rec_encode_unwound(&a, &s, PERF_RECORD_MISC_USER, cases[i].chain,
					  cases[i].nr_chain, out, sizeof(out));
		ok(n > 0 && same_words(out, n, cases[i].golden, cases[i].golden_bytes),
		   "...and its unwound record is the golden one (%d bytes)", n);
	}
	ok(kp_rec_parse_sample(&a, (void *)out, &s) == 0 && s.nr_callchain == 3 &&
		   !s.regs_user_abi && !s.stack_size && s.raw_size == 12 && s.cgroup == 5,
	   "...which reads as a sample without a copy");
}

static void test_golden_synth(void)
{
	static const struct {
		const uint64_t *words;
		size_t bytes;
	} golden[] = {
		{ golden_synth_0, sizeof(golden_synth_0) },
		{ golden_synth_1, sizeof(golden_synth_1) },
		{ golden_synth_2, sizeof(golden_synth_2) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(synth_attrs); i++) {
		uint64_t out[1024];
		size_t len = 0;
		struct perf_event_attr a;

		synth_attr_of(&a, synth_attrs[i]);
		for (size_t j = 0; j < ARRAY_SIZE(synth_comms); j++) {
			const struct kp_comm c = { synth_comms[j].pid, synth_comms[j].tid,
						   synth_comms[j].name };
			const struct kp_sample id = { .pid = c.pid, .tid = c.tid, .id = 1234,
						      .stream_id = 1234 };
			len += kp_rec_encode_comm(&a, &c, 0, &id, (uint8_t *)out + len,
						  sizeof(out) - len);
		}
		for (size_t j = 0; j < ARRAY_SIZE(synth_maps); j++) {
			const struct kp_sample id = { .pid = 4242, .tid = 4242, .id = 1234,
						      .stream_id = 1234 };
			len += kp_rec_encode_mmap2(&a, &synth_maps[j], PERF_RECORD_MISC_USER, &id,
						   (uint8_t *)out + len, sizeof(out) - len);
		}
		ok(same_words(out, len, golden[i].words, golden[i].bytes),
		   "synthesized COMM and MMAP2 records, sample_type %#llx, are the golden ones",
		   (unsigned long long)synth_attrs[i]);
	}
}

int main(void)
{
	test_sample_round_trips();
	test_sample_errors();
	test_parse_again();
	test_mmap();
	test_comm_task();
	test_lost_switch();
	test_golden_unwound();
	test_golden_synth();
	return tap_done();
}

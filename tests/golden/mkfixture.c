/* SPDX-License-Identifier: MIT */
/*
 * mkfixture.c - writes basic.kprof, the golden reports' recording: mkfixture FILE. With
 * --variant it writes basic2.kprof, the same with more samples in hot(), one of them inside an
 * instruction, for the diff goldens and annotate's.
 *
 * Synthetic records through the real writer, describing processes that run root/usr/bin/tiny
 * (checked in, so the addresses below stay true; see tiny.c). What it holds, and so what the
 * goldens show: a main thread and a "worker" thread of pid 4242; call chains through leaf, mid,
 * top and main; top's inlined hot(); kernel frames named from the recording's kallsyms lines
 * and one the lines do not cover; a JIT frame named by root/tmp/perf-4242.map and one it does
 * not cover; a frame outside every map; a frame in a library that is not on disk; and pid 4343,
 * which maps tiny with a build-id that does not match the file, and pid 4444, whose tiny was
 * unlinked after the mmap (" (deleted)"). Two CPUs, out of order within rounds, as rings
 * deliver them. With --periods, hot()'s samples each stand for 3 times the period of the others,
 * as samples at -F do when the event's rate changes. With --no-jit, the JIT frames' samples are
 * left out (a function that vanishes, for diffs). With --late-attr it writes basic.kprof's records with sample ids, then a second
 * event's ATTR record and samples of it: an ATTR after samples were delivered, which no
 * recorder writes. With --t0 NS the records' times start at NS instead of 1 s, so that a test
 * can print times of any width (a machine up for seconds, hours or days).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/util.h"
#include "formats/writer.h"

#define BASE 0x555555554000ull	/* tiny's load address: vaddr == file offset in tiny */
#define LIBGONE 0x7f0000000000ull
#define JIT 0x7e0000000000ull
#define LEAF (BASE + 0x1160)	/* in leaf() */
#define MID_RET (BASE + 0x1189)	/* after mid's call of leaf */
#define TOP_RET (BASE + 0x11b6)	/* after top's call of mid */
#define MAIN_RET (BASE + 0x104f) /* after main's call of top */
#define HOT (BASE + 0x11a6)	/* hot(), inlined into top */
#define GONE_RET (LIBGONE + 0x1234)
#define K_SYS (0xffffffff81002010ull)
#define K_ENTRY (0xffffffff81001020ull)
#define K_NOSYM (0xffffffff80000010ull)
#define U PERF_CONTEXT_USER
#define K PERF_CONTEXT_KERNEL

static uint64_t now = 1000000000ull;
static int variant; /* mkfixture FILE --variant: the "after" recording for diff goldens */
static uint64_t sample_id; /* --late-attr: samples lead with this id (PERF_SAMPLE_IDENTIFIER) */
static int periods; /* --periods: hot()'s samples weigh 3000, the others 1000 */
static int no_jit; /* --no-jit: no samples in the JIT map */

static void side(struct kp_writer *w, uint32_t type, uint16_t misc, const void *body, size_t len,
		 uint32_t pid, uint32_t tid)
{
	uint8_t buf[512] = { 0 };
	size_t pos = 8 + kp_align8(len);
	/* tid, time, cpu, and with --late-attr the identifier */
	uint64_t trailer[4] = { (uint64_t)tid << 32 | pid, now, 0, sample_id };
	size_t n = sample_id ? 4 : 3;

	memcpy(buf + 8, body, len);
	memcpy(buf + pos, trailer, n * 8);
	*(struct kp_rec_header *)buf = (struct kp_rec_header){ type, misc, pos + n * 8 };
	kp_writer_add(w, buf);
}

static void comm(struct kp_writer *w, uint32_t pid, uint32_t tid, const char *name, int exec)
{
	struct {
		uint32_t pid, tid;
		char comm[16];
	} c = { pid, tid, "" };

	snprintf(c.comm, sizeof(c.comm), "%s", name);
	side(w, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, &c, sizeof(c), pid, tid);
}

static void mmap2(struct kp_writer *w, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  const char *path, const uint8_t *bid)
{
	struct {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint8_t id[24];
		uint32_t prot, flags;
		char path[64];
	} m = { pid, pid, start, len, pgoff, { 0 }, 5, 2, "" };

	if (bid) {
		m.id[0] = 20;
		memcpy(m.id + 4, bid, 20);
	}
	snprintf(m.path, sizeof(m.path), "%s", path);
	side(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0),
	     &m, 64 + strlen(path) + 1, pid, pid);
}

static void sample(struct kp_writer *w, uint32_t pid, uint32_t tid, uint32_t cpu,
		   const uint64_t *chain, size_t n)
{
	uint64_t buf[64], *p = buf + 1;
	int kernel = chain[0] == K;

	if (sample_id)
		*p++ = sample_id;		/* identifier */
	*p++ = chain[1];			/* ip: the first address */
	*p++ = (uint64_t)tid << 32 | pid;	/* tid */
	*p++ = now += 1000;			/* time */
	*p++ = cpu;				/* cpu */
	*p++ = periods && chain[1] == HOT ? 3000 : 1000; /* period */
	*p++ = n;				/* callchain */
	memcpy(p, chain, n * 8);
	p += n;
	*(struct kp_rec_header *)buf = (struct kp_rec_header){
		PERF_RECORD_SAMPLE, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
		(uint16_t)((p - buf) * 8)
	};
	kp_writer_add(w, buf);
}

#define SAMPLE(w, pid, tid, cpu, ...)                                                   \
	do {                                                                            \
		const uint64_t c_[] = { __VA_ARGS__ };                                  \
		sample(w, pid, tid, cpu, c_, sizeof(c_) / 8);                          \
	} while (0)

static void setup(struct kp_writer *w)
{
	static const char ks[] = "ffffffff81000000 T _text\nffffffff81001000 T entry_SYSCALL_64\n"
				 "ffffffff81002000 T __x64_sys_getuid\nffffffff81003000 T _etext\n";
	static const uint8_t bad_bid[20] = { 0xde, 0xad, 0xbe, 0xef };
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE };
	uint64_t id = 1;
	uint32_t fork[6] = { 4242, 4242, 4243, 4242, 0, 0 };

	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	if (sample_id)
		a.sample_type |= PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	kp_writer_add_attr(w, &a, 0, &id, 1, "cpu-clock", "cycles", 1);
	kp_writer_add_meta(w, "kernel", "golden-kernel");
	kp_writer_add_meta(w, "command", "tiny");
	kp_writer_add_kallsyms(w, ks, sizeof(ks) - 1, 0);
	kp_writer_flush(w);
	comm(w, 4242, 4242, "tiny", 1);
	mmap2(w, 4242, BASE + 0x1000, 0x1000, 0x1000, "/usr/bin/tiny", NULL);
	mmap2(w, 4242, LIBGONE, 0x10000, 0, "/usr/lib/libgone.so", NULL);
	mmap2(w, 4242, JIT, 0x10000, 0, "//anon", NULL);
	side(w, PERF_RECORD_FORK, 0, fork, sizeof(fork), 4242, 4243);
	comm(w, 4242, 4243, "worker", 0);
	comm(w, 4343, 4343, "other", 1);
	mmap2(w, 4343, BASE + 0x1000, 0x1000, 0x1000, "/usr/bin/tiny", bad_bid);
	comm(w, 4444, 4444, "deleted", 1);
	mmap2(w, 4444, BASE + 0x1000, 0x1000, 0x1000, "/usr/bin/tiny (deleted)", NULL);
}

static void samples(struct kp_writer *w)
{
	for (int i = 0; i < 12; i++) {
		SAMPLE(w, 4242, 4242, i & 1, U, LEAF, MID_RET, TOP_RET, MAIN_RET, GONE_RET);
		if (i % 4 == 3)
			kp_writer_round(w);
	}
	for (int i = 0; i < (variant ? 14 : 6); i++) /* the variant spends more time in hot() */
		SAMPLE(w, 4242, 4242, 0, U, HOT, MAIN_RET, GONE_RET);
	if (variant) /* inside hot()'s instruction, not at its start: annotate says so */
		SAMPLE(w, 4242, 4242, 0, U, HOT + 1, MAIN_RET, GONE_RET);
	for (int i = 0; i < 3; i++)
		SAMPLE(w, 4242, 4242, 1, K, K_SYS, K_ENTRY, U, LEAF, MID_RET, TOP_RET, MAIN_RET);
	SAMPLE(w, 4242, 4242, 0, K, K_NOSYM, U, LEAF, MID_RET, TOP_RET, MAIN_RET);
	if (!no_jit) {
		SAMPLE(w, 4242, 4242, 0, U, JIT + 0x110, MID_RET, TOP_RET, MAIN_RET);
		SAMPLE(w, 4242, 4242, 0, U, JIT + 0x118, MID_RET, TOP_RET, MAIN_RET);
		SAMPLE(w, 4242, 4242, 1, U, JIT + 0x5000, MID_RET, TOP_RET, MAIN_RET);
	}
	SAMPLE(w, 4242, 4242, 1, U, 0x1234, MAIN_RET);
	kp_writer_round(w);
	for (int i = 0; i < 4; i++)
		SAMPLE(w, 4242, 4243, 1, U, LEAF, MID_RET, TOP_RET, MAIN_RET);
	for (int i = 0; i < 2; i++)
		SAMPLE(w, 4343, 4343, 0, U, LEAF, MID_RET, TOP_RET, MAIN_RET);
	SAMPLE(w, 4444, 4444, 1, U, LEAF, MID_RET, TOP_RET, MAIN_RET);
	kp_writer_round(w);
}

/* --late-attr: a second event, announced after the first samples were delivered */
static void late_attr(struct kp_writer *w)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE };
	uint64_t id = 2;

	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN;
	a.sample_id_all = 1;
	kp_writer_add_attr(w, &a, 1, &id, 1, "page-faults", "page-faults", 0);
	sample_id = 2;
	for (int i = 0; i < 3; i++)
		SAMPLE(w, 4242, 4242, 0, U, LEAF, MID_RET, TOP_RET, MAIN_RET);
	kp_writer_round(w);
}

int main(int argc, char **argv)
{
	struct kp_writer w;
	int fd, late;

	if (argc == 4 && !strcmp(argv[2], "--t0")) {
		now = strtoull(argv[3], NULL, 10);
		argc = 2;
	}
	late = argc == 3 && !strcmp(argv[2], "--late-attr");
	periods = argc == 3 && !strcmp(argv[2], "--periods");
	no_jit = argc == 3 && !strcmp(argv[2], "--no-jit");
	if (argc < 2 || argc > 3 ||
	    (argc == 3 && strcmp(argv[2], "--variant") && !late && !periods && !no_jit)) {
		fprintf(stderr, "usage: mkfixture FILE [--variant | --late-attr | --periods | "
				"--no-jit | --t0 NS]\n");
		return 2;
	}
	variant = argc == 3 && !late && !periods && !no_jit;
	sample_id = late ? 1 : 0;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || kp_writer_init(&w, fd, 19, 0)) {
		perror(argv[1]);
		return 1;
	}
	setup(&w);
	samples(&w);
	if (late)
		late_attr(&w);
	if (kp_writer_close(&w)) {
		perror(argv[1]);
		return 1;
	}
	return close(fd) ? 1 : 0;
}

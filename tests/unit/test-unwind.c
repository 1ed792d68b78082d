/* SPDX-License-Identifier: MIT */
/*
 * test-unwind.c - both unwinders on a real stack through a binary without symbols. The test
 * calls through tests/fixtures/libnosym.so, a stripped shared object whose code no symbol
 * names, and from a callback there takes its own registers and stack as the kernel copies them
 * for --call-graph dwarf. A session fed this process's maps and that sample must unwind it
 * through the object's three frames (by its .eh_frame alone) to run_chain() and main(), and
 * count no stack as stopping early. It does so twice: as kprof records (mask 0xff0fff, the
 * executable maps only), and as perf records with `--user-regs=bp,sp,ip --call-graph dwarf`
 * (mask 0x1c0, three registers) and mmap_data (an MMAP2 of every mapping, the ones without
 * PROT_EXEC marked PERF_RECORD_MISC_MMAP_DATA: the rest of each binary, heap, [stack]).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <ucontext.h>
#include <unistd.h>

#include "formats/writer.h"
#include "report/replay/session.h"
#include "report/unwind/unwind.h"
#include "tests/tap.h"
#include "synth.h"

#define STACK_SIZE 16384
#define ID 1000
#define MAX_PCS 64

static uint64_t cap_regs[20];		/* perf's order for mask 0xff0fff */
static uint8_t cap_stack[STACK_SIZE];
static uint64_t cap_size;
static volatile int sink;

/* The mapping of this process that holds @addr, from /proc/self/maps. */
static bool map_of(uint64_t addr, uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lx-%lx", start, end) == 2 && addr >= *start && addr < *end;
	if (f)
		fclose(f);
	return found;
}

/* Byte by byte, unchecked: the frames above hold ASan's redzones, which the kernel copies too. */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(uint64_t sp)
{
	uint64_t start, end, n = 0;

	if (map_of(sp, &start, &end))
		n = end - sp < STACK_SIZE ? end - sp : STACK_SIZE;
	for (uint64_t i = 0; i < n; i++)
		cap_stack[i] = ((const volatile uint8_t *)sp)[i];
	cap_size = n;
}

/* What a --call-graph dwarf sample taken here holds: the registers, then the stack from SP. */
__attribute__((noinline)) static void capture(void)
{
	static ucontext_t uc;
	const greg_t *g = uc.uc_mcontext.gregs;

	getcontext(&uc); /* RIP: the return address here; RSP: this frame's */
	const uint64_t r[20] = { g[REG_RAX], g[REG_RBX], g[REG_RCX], g[REG_RDX], g[REG_RSI],
				 g[REG_RDI], g[REG_RBP], g[REG_RSP], g[REG_RIP], g[REG_EFL],
				 0x33, 0x2b, g[REG_R8], g[REG_R9], g[REG_R10], g[REG_R11],
				 g[REG_R12], g[REG_R13], g[REG_R14], g[REG_R15] };
	memcpy(cap_regs, r, sizeof(r));
	copy_stack((uint64_t)g[REG_RSP]);
}

__attribute__((noinline)) static int run_chain(int (*entry)(void (*)(void)))
{
	return entry(capture) + sink;
}

/* --- the records a recording of this process would hold ------------------------------------- */

static int feed(void *ctx, uint8_t **bufp, size_t *cap, size_t len, uint32_t nrec)
{
	(void)cap;
	(void)nrec;
	return kp_session_feed_chunk(ctx, *bufp, len);
}

/* How the recording is made: kprof's mask and maps, or perf's (see the top). */
struct style {
	const char *name;
	uint64_t mask;		/* sample_regs_user */
	bool data_maps;		/* an MMAP2 for each mapping, not only the executable ones */
};

/* A side-band record with the sample_id_all trailer (tid, time, cpu, identifier). */
static void add_side(struct kp_writer *w, uint32_t type, uint16_t misc, const void *body,
		     size_t body_len)
{
	uint8_t buf[4096 + 128] = { 0 };
	struct kp_rec_header *h = (void *)buf;
	size_t pos = sizeof(*h) + ((body_len + 7) & ~(size_t)7);
	uint64_t trailer[4] = { (uint64_t)getpid() << 32 | (uint32_t)getpid(), 1000, 0, ID };

	memcpy(h + 1, body, body_len);
	memcpy(buf + pos, trailer, sizeof(trailer));
	*h = (struct kp_rec_header){ type, PERF_RECORD_MISC_USER | misc,
				     (uint16_t)(pos + sizeof(trailer)) };
	kp_writer_add(w, buf);
}

/* An MMAP2 record for every executable file mapping of this process; with @data, for every
 * other mapping too, as the kernel reports them to perf's mmap_data (named as /proc does). */
static void add_maps(struct kp_writer *w, bool data)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096 + 128], perms[8], path[4096];
	unsigned long start, end, off, ino;
	unsigned maj, min;

	while (f && fgets(line, sizeof(line), f)) {
		struct synth_mmap2 mm = { 0 };

		bool exec;
		int n = sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %4095s", &start, &end, perms, &off,
			       &maj, &min, &ino, path);

		if (n == 7)
			strcpy(path, "//anon");
		exec = perms[2] == 'x';
		if (n < 7 || (!exec && !data) || (!data && path[0] != '/'))
			continue;
		mm.pid = mm.tid = (uint32_t)getpid();
		mm.addr = start;
		mm.len = end - start;
		mm.pgoff = off;
		mm.maj = maj;
		mm.min = min;
		mm.ino = ino;
		mm.prot = (perms[0] == 'r') | (perms[1] == 'w') << 1 | exec << 2;
		mm.flags = 2; /* MAP_PRIVATE */
		memcpy(mm.name, path, strlen(path) + 1);
		add_side(w, PERF_RECORD_MMAP2, exec ? 0 : PERF_RECORD_MISC_MMAP_DATA, &mm,
			 synth_mmap2_len(&mm));
	}
	if (f)
		fclose(f);
}

/* The sample, with the registers of @mask (bits of mask 0xff0fff) in the order of their bits */
static void add_sample(struct kp_writer *w, uint64_t mask)
{
	size_t nr = (size_t)__builtin_popcountll(mask);
	size_t size = 8 + 6 * 8 + 8 + nr * 8 + 8 + STACK_SIZE + 8;
	uint8_t *buf = calloc(1, size);
	uint64_t *p = (uint64_t *)(buf + 8);
	unsigned bit = 0;

	*p++ = ID;				/* IDENTIFIER */
	*p++ = cap_regs[8];			/* IP */
	*p++ = (uint64_t)getpid() << 32 | (uint32_t)getpid(); /* PID, TID */
	*p++ = 2000;				/* TIME */
	*p++ = 0;				/* CPU */
	*p++ = 1;				/* PERIOD */
	*p++ = PERF_SAMPLE_REGS_ABI_64;
	for (size_t i = 0; i < 20; bit++) /* cap_regs holds those of 0xff0fff */
		if (0xff0fffull >> bit & 1 && (i++, mask >> bit & 1))
			*p++ = cap_regs[i - 1];
	*p++ = STACK_SIZE;
	memcpy(p, cap_stack, cap_size);
	p += STACK_SIZE / 8;
	*p++ = cap_size;			/* dyn_size */
	*(struct kp_rec_header *)buf = (struct kp_rec_header){ PERF_RECORD_SAMPLE,
							       PERF_RECORD_MISC_USER, (uint16_t)size };
	kp_writer_add(w, buf);
	free(buf);
}

/* --- the unwinding ---------------------------------------------------------------------------- */

struct result {
	struct kp_unwinder *u[KP_UNWIND_NR_LIBS];
	uint64_t pcs[KP_UNWIND_NR_LIBS][MAX_PCS];
	size_t n[KP_UNWIND_NR_LIBS];
	uint32_t proc;
	bool sampled;
};

static int on_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *t)
{
	struct result *res = ctx;

	(void)s;
	(void)ev;
	(void)rec;
	for (int i = 0; i < KP_UNWIND_NR_LIBS; i++)
		res->n[i] = kp_unwind(res->u[i], smp, t, res->pcs[i], MAX_PCS);
	res->proc = t->proc;
	res->sampled = true;
	return 0;
}

/* The function the return address (or first IP) @pc is in, as the report names it. */
static const char *func_at(struct kp_session *s, uint32_t proc, uint64_t pc, bool first)
{
	const struct kp_map *m = kp_model_map(&s->model.procs[proc], pc - !first);
	struct kp_sym_frame f[8];
	int n;

	if (!m || (m->flags & KP_MAP_ANON))
		return NULL;
	n = kp_dso_symbolize(s->dso_list[m->dso].dso, pc - !first - m->start + m->pgoff, f, 8);
	return n > 0 ? f[n - 1].func : NULL;
}

static void check_stack(struct kp_session *s, struct result *res, int lib, uint64_t lo,
			uint64_t hi, const char *style)
{
	char name[64];
	size_t n = res->n[lib], in_lib = 0, after = 0;
	bool chain = false, main_seen = false;

	snprintf(name, sizeof(name), "%s, %s", style, kp_unwind_lib_name((enum kp_unwind_lib)lib));

	for (size_t i = 0; i < n; i++) {
		uint64_t pc = res->pcs[lib][i];
		const char *f = func_at(s, res->proc, pc, i == 0);

		if (pc >= lo && pc < hi) {
			in_lib++;
			after = i + 1;
		}
		if (i == after && in_lib && f && !strcmp(f, "run_chain"))
			chain = true;
		main_seen |= f && !strcmp(f, "main");
	}
	ok(n > 5, "%s: the stack unwinds (%zu frames)", name, n);
	is_u64(in_lib, 3, "%s: three frames in the object without symbols", name);
	ok(chain, "%s: ...and the frame after them is run_chain()", name);
	ok(main_seen, "%s: ...and main() is reached", name);
	is_u64(kp_unwind_stats_early(kp_unwinder_stats(res->u[lib])), 0,
	       "%s: no stack is counted as stopping early", name);
}

/* One recording of the captured sample in @st's way, unwound by both libraries. */
static void run(const struct style *st, uint64_t lo, uint64_t hi)
{
	static struct kp_session s;
	static struct result res;
	static struct kp_writer w;
	static struct perf_event_attr a;
	static struct utsname un;
	struct kp_dso_opts opts = { .inline_frames = true, .demangle = true };
	struct kp_session_ops ops = { .sample = on_sample };
	uint64_t id = ID;

	memset(&s, 0, sizeof(s));
	memset(&res, 0, sizeof(res));
	memset(&w, 0, sizeof(w));
	memset(&a, 0, sizeof(a));
	uname(&un);
	opts.kernel_release = un.release;
	kp_session_init(&s, &opts);
	for (int i = 0; i < KP_UNWIND_NR_LIBS; i++)
		res.u[i] = kp_unwinder_new(&s, (enum kp_unwind_lib)i);
	kp_session_start(&s, &ops, &res);
	kp_writer_init_sink(&w, feed, &s, 1 << 20);
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = st->mask;
	a.sample_stack_user = STACK_SIZE;
	a.sample_id_all = 1;
	a.mmap_data = st->data_maps;
	kp_writer_add_attr(&w, &a, 0, &id, 1, "cpu-clock", "cpu-clock", 0);
	add_maps(&w, st->data_maps);
	add_sample(&w, st->mask);
	kp_writer_flush(&w);
	kp_session_end(&s);
	ok(res.sampled, "%s: the session delivers the sample", st->name);

	for (size_t i = 0; i < s.nr_dsos; i++)
		if (strstr(kp_strtab_get(&s.strs, s.dso_list[i].path), "libnosym.so"))
			is_u64(kp_dso_status(s.dso_list[i].dso), KP_DSO_NO_SYMBOLS,
			       "%s: libnosym.so has no symbols", st->name);
	for (int i = 0; res.sampled && i < KP_UNWIND_NR_LIBS; i++)
		check_stack(&s, &res, i, lo, hi, st->name);

	kp_writer_close(&w);
	for (int i = 0; i < KP_UNWIND_NR_LIBS; i++)
		kp_unwinder_free(res.u[i]);
	kp_session_release(&s);
}

int main(void)
{
	/* static: main's frame stays small, so the stack copy reaches past it into libc */
	static char path[4096];
	static const struct style styles[] = {
		{ "kprof's", 0xff0fff, false },
		{ "perf's", 0x1c0, true },	/* BP, SP, IP */
	};
	const char *bd = getenv("top_builddir");
	uint64_t lo = 0, hi = 0;
	int (*entry)(void (*)(void));
	void *h;

	snprintf(path, sizeof(path), "%s/tests/fixtures/libnosym.so", bd ? bd : ".");
	h = dlopen(path, RTLD_NOW);
	if (!ok(h != NULL, "dlopen %s", path))
		return tap_done();
	entry = *(int (**)(void (*)(void)))dlsym(h, "kp_nosym_entry");
	sink = run_chain(entry);
	ok(cap_size > 1024, "a stack was captured (%llu bytes)", (unsigned long long)cap_size);
	map_of((uint64_t)(uintptr_t)*(void **)dlsym(h, "kp_nosym_entry"), &lo, &hi);
	for (size_t i = 0; i < sizeof(styles) / sizeof(styles[0]); i++)
		run(&styles[i], lo, hi);
	dlclose(h);
	return tap_done();
}

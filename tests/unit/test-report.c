/* SPDX-License-Identifier: MIT */
/*
 * test-report.c - kp_report_build() on the golden recording (tests/golden/basic.kprof over
 * the binaries of tests/golden/root): its failures, its timeline against its own filters,
 * kp_profile_merge() of two profiles, locations with addresses against the ELF files, and
 * the Firefox export's streaming, by the allocator's own count of the bytes in use. And on a
 * synthetic recording: the JIT frames of a forked process named by its own perf map; a pid
 * given twice, two processes in the timeline, and a sample of tid -1 named. Off-CPU intervals
 * of an exited thread. A file
 * header alone, which describes no event, builds no profile; the escaping of names in text;
 * the rows of the latency histogram.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/tools/latency.h"
#include "report/profile/report.h"
#include "report/base/text.h"
#include "report/views/view.h"
#include "synth.h"
#include "tests/tap.h"

static char input[4096], base[4096], symfs[4096];

static void opts_init(struct kp_report_opts *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->input = path;
	o->symfs = symfs;
	o->dso.inline_frames = o->dso.demangle = true;
	o->filter.t_end = UINT64_MAX;
}

static void test_failures(void)
{
	struct kp_report_opts o;
	struct kp_report r;

	opts_init(&o, "/nonexistent/kprof.data");
	ok(kp_report_build(&o, &r) == -KP_REPORT_EOPEN && r.open_err == -ENOENT,
	   "a missing file: KP_REPORT_EOPEN, with the reader's -ENOENT");
	kp_report_release(&r);
	opts_init(&o, input);
	o.event_name = "no-such-event";
	ok(kp_report_build(&o, &r) == -KP_REPORT_ENOEVENT && r.s.evl.nr > 0,
	   "an event the file lacks: KP_REPORT_ENOEVENT, with the events it has");
	kp_report_release(&r);
}

/* A recording that describes no event (its file header alone: a recorder killed before its
 * first chunk) builds no profile, whatever the options ask. */
static void test_no_events(void)
{
	char path[] = "/tmp/kprof-test-report.XXXXXX", head[64];
	struct kp_report_opts o;
	struct kp_report r;
	int in = open(input, O_RDONLY), fd = mkstemp(path);

	if (in < 0 || fd < 0 || read(in, head, sizeof(head)) != (ssize_t)sizeof(head) ||
	    write(fd, head, sizeof(head)) != (ssize_t)sizeof(head))
		ok(0, "a file header alone can be written");
	close(in);
	close(fd);
	opts_init(&o, path);
	ok(kp_report_build(&o, &r) == -KP_REPORT_EEMPTY && !r.s.evl.nr && !r.replay_err,
	   "a file header alone: KP_REPORT_EEMPTY, the file read whole");
	kp_report_release(&r);
	o.event_name = "cpu-clock";
	ok(kp_report_build(&o, &r) == -KP_REPORT_EEMPTY, "...with --event too");
	kp_report_release(&r);
	opts_init(&o, path);
	o.seq = o.addrs = true;
	ok(kp_report_build(&o, &r) == -KP_REPORT_EEMPTY, "...and with a timeline and addresses");
	kp_report_release(&r);
	unlink(path);
}

/* The one escaping of names in text: C escapes, as git quotes a path. */
static void test_text_escape(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "work_a", "work_a" },
		{ "a\nb\033]0;x\007", "a\\nb\\033]0;x\\a" },
		{ "\t\r\b\f\v\x7f\x01", "\\t\\r\\b\\f\\v\\177\\001" },
		{ "back\\slash \\x2d", "back\\slash \\x2d" },		/* as it is */
		{ "caf\xc3\xa9 \xc2\xb5s", "caf\xc3\xa9 \xc2\xb5s" },	/* UTF-8 */
		{ "c1 \xc2\x9b[2J", "c1 \\302\\233[2J" },			/* U+009B, CSI */
		{ "bad \xff\xc3(", "bad \\377\\303(" },			/* not UTF-8 */
	};
	char buf[64], *text;
	size_t len;
	FILE *f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		kp_text_escape(cases[i].in, buf, sizeof(buf));
		ok(!strcmp(buf, cases[i].out) && kp_text_len(cases[i].in) == strlen(cases[i].out),
		   "kp_text_escape() case %zu: '%s'", i, buf);
	}
	ok(!strcmp(kp_text_escape("a\033b", buf, 4), "a") && !strcmp(kp_text_escape("ab", buf, 1), ""),
	   "kp_text_escape() cuts before an escape that does not fit, never inside one");
	f = open_memstream(&text, &len);
	kp_text_put(f, 8, "a\nb");
	fputc('|', f);
	kp_text_put(f, -6, "x\ty");
	fputc('|', f);
	kp_text_put(f, 3, "long");
	fclose(f);
	ok(!strcmp(text, "    a\\nb|x\\ty  |long"), "kp_text_put() pads the escaped name as %%*s: '%s'",
	   text);
	free(text);
}

/* The latency histogram's rows follow each other: every duration in one, and the one whose
 * range holds it. */
static void test_latency_rows(void)
{
	static const uint64_t ns[] = { 0, 999, 1000, 1999, 2000, 3999, 4000, 7999, 8000,
				       1048575999, 1048576000, UINT64_MAX };
	static const uint64_t linear[] = { 0, 1000, 250000 };
	uint64_t lo_last, hi_last;
	bool good = true;

	for (size_t l = 0; l < sizeof(linear) / sizeof(linear[0]); l++) {
		uint64_t lo, hi, prev_hi = 0;

		for (size_t row = 0; row < (linear[l] ? 70u : 65u); row++) { /* log2: 0 to 64 */
			kp_latency_row_range(row, linear[l], &lo, &hi);
			good &= lo == prev_hi && hi > lo;
			prev_hi = hi;
		}
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
			size_t row = kp_latency_row(ns[i], linear[l]);
			double us = ns[i] / 1000 + (ns[i] % 1000) / 1e3;

			kp_latency_row_range(row, linear[l], &lo, &hi);
			if (!(us >= (double)lo && (hi == UINT64_MAX || us < (double)hi))) {
				good = false;
				printf("#   %llu ns (linear %llu) in row %zu, [%llu, %llu)\n",
				       (unsigned long long)ns[i], (unsigned long long)linear[l], row,
				       (unsigned long long)lo, (unsigned long long)hi);
			}
		}
	}
	kp_latency_row_range(KP_LAT_ROWS - 1, 1000, &lo_last, &hi_last);
	ok(good && hi_last == UINT64_MAX,
	   "latency rows [lo, hi) follow each other, each duration in the row that holds it, the "
	   "last linear row open");
}

/* The samples the timeline gives thread @tid, and CPU @cpu (-1: any). */
static uint64_t timeline_count(const struct kp_report *r, long tid, long cpu)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->seq.nr; i++)
		if ((tid < 0 || r->seq.ents[i].tid == (uint32_t)tid) &&
		    (cpu < 0 || r->seq.ents[i].cpu == (uint32_t)cpu))
			n += r->seq.ents[i].count;
	return n;
}

/* What the report keeps with --tid @tid (or --cpu @cpu) alone. */
static uint64_t filtered_count(long tid, long cpu)
{
	struct kp_report_opts o;
	struct kp_report r;
	int id = (int)(tid >= 0 ? tid : cpu);
	uint64_t n;

	opts_init(&o, input);
	if (tid >= 0) {
		o.filter.tids = &id;
		o.filter.nr_tids = 1;
	} else {
		o.filter.cpus = &id;
		o.filter.nr_cpus = 1;
	}
	n = kp_report_build(&o, &r) ? UINT64_MAX : r.kept;
	kp_report_release(&r);
	return n;
}

static void test_timeline(void)
{
	struct kp_report_opts o;
	struct kp_report r;
	uint64_t count = 0, value = 0, period = 0, last = 0;
	bool ordered = true, threads_match = true, cpus_match = true;

	opts_init(&o, input);
	o.seq = true;
	if (!ok(kp_report_build(&o, &r) == 0, "the golden recording builds"))
		return;
	for (size_t i = 0; i < r.seq.nr; i++) {
		const struct kp_seq_ent *e = &r.seq.ents[i];
		count += e->count;
		value += e->value;
		ordered = ordered && e->time >= last;
		last = e->time;
	}
	for (size_t e = 0; e < r.s.evl.nr; e++)
		period += kp_profile_total(&r.prof, 0, e)->period;
	ok(r.seq.nr > 1 && r.seq.nr < r.kept, "the timeline has %zu runs for %llu samples", r.seq.nr,
	   (unsigned long long)r.kept);
	is_u64(count, r.kept, "its runs count every sample kept");
	is_u64(value, period, "their values add up to the profile's periods");
	ok(ordered, "its runs are in time order");
	is_u64(r.prof.t_first, r.seq.ents[0].time, "the profile starts at the first sample");
	is_u64(r.prof.t_last, last, "and ends at the last run's first sample, which is the last");
	/* the golden's threads (tests/golden/mkfixture.c) */
	static const struct { uint32_t tid; const char *comm; } threads[] = {
		{ 4242, "tiny" }, { 4243, "worker" }, { 4343, "other" }, { 4444, "deleted" },
	};
	bool comms = true;
	for (size_t i = 0; i < r.seq.nr; i++) {
		const char *want = NULL;
		for (size_t j = 0; j < ARRAY_SIZE(threads); j++)
			if (threads[j].tid == r.seq.ents[i].tid)
				want = threads[j].comm;
		comms = comms && want && !strcmp(kp_strtab_get(&r.s.strs, r.seq.ents[i].comm), want);
	}
	ok(comms, "each run carries its thread's command");
	for (size_t e = 0; e < r.s.evl.nr; e++) {
		const struct kp_prof_event *pe = &r.prof.events[e];
		ok(!strcmp(kp_strtab_get(&r.s.strs, pe->name), r.s.evl.ev[e].name) &&
		   !strcmp(kp_strtab_get(&r.s.strs, pe->unit), kp_report_event_unit(&r, e, false)) &&
		   pe->period == r.s.evl.ev[e].attr.sample_period && !pe->freq,
		   "event %zu is described: %s, in %s, period %llu", e, kp_strtab_get(&r.s.strs, pe->name),
		   kp_strtab_get(&r.s.strs, pe->unit), (unsigned long long)pe->period);
	}
	for (size_t i = 0; i < r.seq.nr; i++) {
		uint32_t tid = r.seq.ents[i].tid, cpu = r.seq.ents[i].cpu;
		threads_match = threads_match && timeline_count(&r, tid, -1) == filtered_count(tid, -1);
		cpus_match = cpus_match && timeline_count(&r, -1, cpu) == filtered_count(-1, cpu);
	}
	ok(threads_match, "each thread's samples in the timeline are what --tid keeps");
	ok(cpus_match, "each CPU's samples in the timeline are what --cpu keeps");
	kp_report_release(&r);
}

static void test_merge(void)
{
	struct kp_report_opts o, ob;
	struct kp_report a, b;
	struct kp_strtab strs;
	struct kp_profile d;

	opts_init(&o, input);
	opts_init(&ob, base);
	if (kp_report_build(&o, &a) || kp_report_build(&ob, &b)) {
		ok(0, "both golden recordings build");
		return;
	}
	kp_strtab_init(&strs);
	kp_profile_init(&d, &strs, 2);
	kp_profile_merge(&d, 0, &b.prof, 0, false, 1, NULL);
	kp_profile_merge(&d, 1, &a.prof, 0, false, 1, NULL);
	kp_profile_merge(&d, 1, &a.prof, 0, true, 1000, NULL);
	kp_profile_finish(&d);
	is_u64(kp_profile_total(&d, 0, 0)->period, kp_profile_total(&b.prof, 0, 0)->period,
	       "BASE keeps its period in event 0");
	is_u64(kp_profile_total(&d, 0, 1)->count, 2 * kp_profile_total(&a.prof, 0, 0)->count,
	       "merged twice, NEW's samples count twice in event 1");
	is_u64(kp_profile_total(&d, 0, 1)->period,
	       kp_profile_total(&a.prof, 0, 0)->period + 1000 * kp_profile_total(&a.prof, 0, 0)->count,
	       "with by_samples and a scale, the period is the samples times the scale");
	ok(d.nr_funcs >= a.prof.nr_funcs && d.nr_funcs < a.prof.nr_funcs + b.prof.nr_funcs,
	   "functions the two share are one (%zu of %zu + %zu)", d.nr_funcs, a.prof.nr_funcs,
	   b.prof.nr_funcs);
	kp_profile_release(&d);
	kp_strtab_release(&strs);
	kp_report_release(&a);
	kp_report_release(&b);
}

/*
 * The bytes the program has allocated and not freed: the allocator's own count of what was
 * asked of it, not pages or RSS, so the same code on the same input gives the same figure (the
 * sanitizers' allocator under ASan, glibc's otherwise).
 */
#ifdef __SANITIZE_ADDRESS__
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t heap_in_use(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
static size_t heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}
#endif

/* A stream that counts what is written and the most heap in use at any write. */
struct sink {
	size_t bytes, peak;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct sink *k = cookie;
	size_t now = heap_in_use();

	(void)buf;
	k->bytes += size;
	if (now > k->peak)
		k->peak = now;
	return (ssize_t)size;
}

/* The Firefox export of @r written to a counting stream: its bytes, and the heap it took
 * beyond what was in use before it (*@grew). */
static size_t firefox_export(const struct kp_report *r, size_t *grew)
{
	struct sink k = { 0, 0 };
	cookie_io_functions_t io = { .write = sink_write };
	struct kp_view_opts vo = { .seq = &r->seq };
	size_t before = heap_in_use();
	FILE *f = fopencookie(&k, "w", io);

	setvbuf(f, NULL, _IONBF, 0); /* each write of the export's is seen as it is made */
	k.peak = before;
	kp_view_firefox(&r->prof, &vo, f);
	fclose(f);
	*grew = k.peak - before;
	return k.bytes;
}

/*
 * The Firefox export streams: its samples go through gzip as they are read, and only tables
 * that grow with the distinct stacks are held. The same timeline with every run a thousand
 * times longer (a thousand times the samples, the same stacks) makes a much larger document,
 * and its heap grows by less than a tenth of the compressed document's growth: holding a byte
 * a sample, or the document, would take more. (The heap is seen at each write, so a short-lived
 * buffer that a write happens to meet in one export and not the other counts.)
 */
static void test_firefox_streams(void)
{
	struct kp_report_opts o;
	struct kp_report r;
	size_t bytes1, bytes1000, grew1, grew1000, samples = 0;

	opts_init(&o, input);
	o.seq = true;
	if (!ok(kp_report_build(&o, &r) == 0, "the golden recording builds, with its timeline"))
		return;
	bytes1 = firefox_export(&r, &grew1);
	for (size_t i = 0; i < r.seq.nr; i++) {
		samples += r.seq.ents[i].count;
		r.seq.ents[i].count *= 1000;
		r.seq.ents[i].value *= 1000;
	}
	bytes1000 = firefox_export(&r, &grew1000);
	ok(bytes1000 > 20 * bytes1, "firefox: a thousand times the samples write %zu bytes, not %zu",
	   bytes1000, bytes1);
	ok(grew1000 < grew1 + (bytes1000 - bytes1) / 10,
	   "firefox streams: %zu samples take %zu bytes of heap, a thousandth of them %zu",
	   1000 * samples, grew1000, grew1);
	kp_report_release(&r);
}

/* The build-id of the ELF file at @path in hex, "" without one. */
static void file_build_id(const char *path, char *hex, size_t size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	const void *bits;
	ssize_t len;

	hex[0] = '\0';
	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	len = dwelf_elf_gnu_build_id(elf, &bits);
	for (ssize_t i = 0; i < len && 2 * (size_t)i + 3 <= size; i++)
		sprintf(hex + 2 * i, "%02x", ((const unsigned char *)bits)[i]);
	elf_end(elf);
	close(fd);
}

static void test_addresses(void)
{
	struct kp_report_opts o, oa;
	struct kp_report a, b;
	struct kp_strtab strs;
	struct kp_profile d;
	char path[4096 + 64], want[64];
	bool same = true, mapped = true, in_range = true, named = true, bid = true;
	size_t user = 0, kernel = 0, jit = 0, other_build = 0;

	opts_init(&o, input);
	opts_init(&oa, input);
	oa.addrs = true;
	if (kp_report_build(&o, &a) || kp_report_build(&oa, &b)) {
		ok(0, "the golden recording builds, with and without addresses");
		return;
	}
	ok(b.prof.nr_locs > a.prof.nr_locs && b.prof.nr_maps > 1,
	   "with addresses, more locations (%zu against %zu) and %zu mappings", b.prof.nr_locs,
	   a.prof.nr_locs, b.prof.nr_maps - 1);
	/* without their addresses, the two profiles are the same node for node */
	kp_strtab_init(&strs);
	kp_profile_init(&d, &strs, 2);
	kp_profile_merge(&d, 0, &a.prof, 0, false, 1, NULL);
	kp_profile_merge(&d, 1, &b.prof, 0, false, 1, NULL);
	kp_profile_finish(&d);
	for (uint32_t n = 0; n < d.nr_nodes; n++)
		same = same && !memcmp(kp_profile_self(&d, n, 0), kp_profile_self(&d, n, 1),
				       sizeof(struct kp_weight));
	ok(same && d.nr_nodes == a.prof.nr_nodes,
	   "dropping the addresses gives the profile without them, node for node");
	for (size_t i = 1; i < b.prof.nr_locs; i++) {
		const struct kp_loc *l = &b.prof.locs[i];
		const struct kp_func *f = &b.prof.funcs[l->func];
		const struct kp_mapping *m = &b.prof.maps[l->map];
		const char *mpath = kp_strtab_get(b.prof.strs, m->path);

		if (f->flags & (KP_LOC_COMM | KP_LOC_UNNAMED))
			continue;
		mapped = mapped && l->map;
		in_range = in_range && l->addr >= m->start && l->addr < m->limit;
		if (m->flags & KP_LOC_KERNEL) {
			kernel++;
			continue;
		}
		if (m->flags & KP_LOC_JIT) {
			jit++;
			continue;
		}
		/* a file's frame: its function is at that file offset, and the map carries the
		 * file's build-id (or the recorded one, which did not match: no name then) */
		snprintf(path, sizeof(path), "%s%s", symfs, mpath);
		file_build_id(path, want, sizeof(want));
		if (strcmp(kp_strtab_get(b.prof.strs, m->build_id), want)) {
			other_build++;
			continue;
		}
		bool found = false;
		for (size_t j = 0; j < b.s.nr_dsos; j++) {
			struct kp_sym_frame fr[KP_DSO_MAX_FRAMES];

			found |= b.s.dso_list[j].path == m->path &&
				 kp_dso_symbolize(b.s.dso_list[j].dso, l->addr - m->start + m->offset,
						  fr, KP_DSO_MAX_FRAMES) > 0;
		}
		named = named && found;
		user++;
		bid = bid && *want;
	}
	ok(mapped && in_range, "every named frame has a mapping that covers its address");
	ok(user && named, "%zu file frames: their address in the file names a function", user);
	ok(bid, "their mappings carry the files' build-ids");
	ok(kernel && jit, "kernel (%zu) and JIT (%zu) frames have their own mappings", kernel, jit);
	ok(other_build == 0, "no file frame carries a build-id other than its file's");
	kp_profile_release(&d);
	kp_strtab_release(&strs);
	kp_report_release(&a);
	kp_report_release(&b);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool has_func(const struct kp_report *r, const char *name)
{
	for (size_t i = 0; i < r->prof.nr_funcs; i++)
		if (!strcmp(kp_strtab_get(r->prof.strs, r->prof.funcs[i].name), name))
			return true;
	return false;
}

/*
 * A process with JIT code forks: parent and child run code at the same address of the same
 * anonymous map, which each one's perf-PID.map names differently. Forked processes share
 * their resolved stacks while their maps are the same, but not these: each is named by its
 * own map, whichever comes first.
 */
static void test_forked_jit(void)
{
	char dir[] = "/tmp/kp-forkjit-XXXXXX", path[128], file[128];
	struct kp_report_opts o;
	struct kp_report r;
	struct synth sy;
	uint8_t buf[256];
	const uint64_t t0 = 1000000000ull, code = 0x7f0000001000ull;
	struct synth_mmap2 mm = { 5000, 5000, code, 0x10000, 0, 0, 0, 0, 0, 7, 2, "//anon" };
	struct {
		uint32_t pid, tid;
		char comm[16];
	} comm = { 5000, 5000, "jitter" };
	uint32_t fork[6] = { 5001, 5000, 5001, 5000, 0, 0 };
	int fd;

	if (!mkdtemp(dir)) {
		ok(0, "a temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/tmp", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/tmp/perf-5000.map", dir);
	write_text(path, "7f0000001000 200 jit_parent\n");
	snprintf(path, sizeof(path), "%s/tmp/perf-5001.map", dir);
	write_text(path, "7f0000001000 200 jit_child\n");
	snprintf(file, sizeof(file), "%s/forked.kprof", dir);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	synth_begin(&sy, fd, 1);
	synth_side(&sy, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, &comm, sizeof(comm), 5000, t0);
	synth_side(&sy, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &mm, synth_mmap2_len(&mm), 5000, t0);
	synth_side(&sy, PERF_RECORD_FORK, 0, fork, sizeof(fork), 5001, t0 + 10);
	for (unsigned i = 0; i < 20; i++) { /* the parent first, then the child, in turn */
		synth_sample(buf, 5000 + i % 2, t0 + 100 + i, 0, code, 1);
		synth_add(&sy, buf);
	}
	synth_end(&sy, fd);

	opts_init(&o, file);
	o.symfs = dir;
	if (kp_report_build(&o, &r)) {
		ok(0, "the synthetic recording of a forked JIT builds");
	} else {
		ok(has_func(&r, "jit_parent") && has_func(&r, "jit_child"),
		   "a forked process's JIT frames are named by its own perf map, not its parent's");
		kp_report_release(&r);
	}
	unlink(file);
	snprintf(path, sizeof(path), "%s/tmp/perf-5000.map", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/tmp/perf-5001.map", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/tmp", dir);
	rmdir(path);
	rmdir(dir);
}

/*
 * A synthetic recording where the kernel gives a pid twice: process 5001 forked, sampled and
 * exited, then a sample of pid and tid -1 on its CPU (its last switch, after its release),
 * then another process 5001 forked. The timeline names the sample 5001's, and has two threads
 * of tid 5001, one per process.
 */
static void test_reused_pid(void)
{
	char file[] = "/tmp/kprof-test-reused.XXXXXX";
	struct kp_report_opts o;
	struct kp_report r;
	struct kp_view_opts vo = { .t_end = UINT64_MAX };
	struct kp_view_thread *th;
	uint32_t *order;
	struct synth sy;
	uint8_t buf[256];
	const uint64_t t0 = 1000000000ull;
	uint32_t fork[6] = { 5001, 5000, 5001, 5000, 0, 0 };
	uint32_t exit_[6] = { 5001, 5000, 5001, 5000, 0, 0 };
	int fd = mkstemp(file);
	size_t n, left = 0;
	uint64_t first = 0, second = 0;

	synth_begin(&sy, fd, 1);
	synth_side(&sy, PERF_RECORD_FORK, 0, fork, sizeof(fork), 5000, t0 + 10);
	for (unsigned i = 0; i < 4; i++) {
		synth_sample(buf, 5001, t0 + 100 + i, 0, 0x401000, 1);
		synth_add(&sy, buf);
	}
	synth_side(&sy, PERF_RECORD_EXIT, 0, exit_, sizeof(exit_), 5001, t0 + 200);
	synth_sample(buf, UINT32_MAX, t0 + 210, 0, 0x401000, 1);
	synth_add(&sy, buf);
	synth_side(&sy, PERF_RECORD_FORK, 0, fork, sizeof(fork), 5000, t0 + 300);
	for (unsigned i = 0; i < 3; i++) {
		synth_sample(buf, 5001, t0 + 400 + i, 0, 0x401000, 1);
		synth_add(&sy, buf);
	}
	synth_end(&sy, fd);

	opts_init(&o, file);
	o.seq = true;
	if (!ok(kp_report_build(&o, &r) == 0, "a synthetic recording of a pid given twice builds")) {
		unlink(file);
		return;
	}
	for (size_t i = 0; i < r.seq.nr; i++)
		left += r.seq.ents[i].tid == UINT32_MAX;
	vo.seq = &r.seq;
	n = kp_view_threads(&vo, KP_THREADS_ALL, &th, &order);
	for (size_t i = 0; n == 2 && i < th[0].nr + th[1].nr; i++)
		*(i < th[0].nr ? &first : &second) += r.seq.ents[order[i]].count;
	ok(!left && first == 5, "a sample of tid -1 after an exit is the exited thread's of its CPU "
	   "(%zu left -1, %llu samples of the first 5001)", left, (unsigned long long)first);
	ok(n == 2 && th[0].tid == 5001 && th[1].tid == 5001 && th[0].life != th[1].life &&
	   second == 3, "a pid forked again is another process: %zu threads in the timeline", n);
	free(th);
	free(order);
	kp_report_release(&r);
	unlink(file);
}

static void no_close(void *ctx, const struct kp_offcpu_wait *w, uint64_t ns)
{
	(void)w;
	(void)ns;
	++*(unsigned *)ctx;
}

/* An exited thread preempted on its way out, switched in again, then out for the last time:
 * none of its switch-outs opens an interval; a thread forked with its tid again does. */
static void test_offcpu_exit(void)
{
	struct kp_offcpu off;
	unsigned closed = 0;

	kp_offcpu_init(&off, no_close, &closed);
	kp_offcpu_switch(&off, 7, 100, true, false);
	kp_offcpu_switch(&off, 7, 200, false, false);
	kp_offcpu_exit(&off, 7, 300);
	kp_offcpu_switch(&off, 7, 310, true, true);
	kp_offcpu_switch(&off, 7, 320, false, false);
	kp_offcpu_switch(&off, 7, 330, true, false);
	kp_offcpu_end(&off, 1000);
	ok(closed == 1 && !off.st.at_end,
	   "an exited thread's switch-outs, before and after a switch-in, open nothing "
	   "(%u closed, %llu at the end)", closed, (unsigned long long)off.st.at_end);
	kp_offcpu_fork(&off, 7);
	kp_offcpu_switch(&off, 7, 1100, true, false);
	kp_offcpu_end(&off, 1200);
	ok(closed == 2 && off.st.at_end == 1, "...and a thread forked with its tid again is timed");
	kp_offcpu_release(&off);
}

static void collect_say(void *ctx, enum kp_report_say kind, const char *msg)
{
	char *said = ctx;

	(void)kind;
	snprintf(said + strlen(said), 4096 - strlen(said), "%s%s", *said ? "; " : "", msg);
}

/*
 * A recording that starts at @start (META start-time, with start-monotonic-ns @mono), its one
 * sample at record time @t: the first sample's wall-clock time, which the pprof export writes
 * as time_nanos, must be @want ns since 1970, or, when 64 bits of ns cannot hold it (0), be
 * left unknown with a warning that says @why.
 */
static void start_time_case(const char *start, uint64_t mono, uint64_t t, uint64_t want,
			    const char *why)
{
	char file[] = "/tmp/kp-start-XXXXXX", said[4096] = "", mono_s[32];
	struct kp_report_opts o;
	struct kp_report r;
	struct synth sy;
	uint8_t buf[256];
	int fd = mkstemp(file);

	synth_begin(&sy, fd, 1);
	snprintf(mono_s, sizeof(mono_s), "%llu", (unsigned long long)mono);
	kp_writer_add_meta(&sy.w, "start-time", start);
	kp_writer_add_meta(&sy.w, "start-monotonic-ns", mono_s);
	synth_sample(buf, 42, t, 0, 0x401000, 1);
	synth_add(&sy, buf);
	synth_end(&sy, fd);
	opts_init(&o, file);
	if (kp_report_build(&o, &r)) {
		ok(0, "a recording that starts at %s builds", start);
	} else {
		kp_report_warnings(&r, false, true, collect_say, said);
		if (want)
			ok(r.prof.wall_first == want && !strstr(said, "wall-clock"),
			   "started at %s, %lld ns before its sample: that sample's wall-clock time "
			   "is %llu ns since 1970 (got %llu)", start,
			   (long long)(t - mono), (unsigned long long)want,
			   (unsigned long long)r.prof.wall_first);
		else
			ok(r.prof.wall_first == 0 && strstr(said, why) &&
			   strstr(said, "no wall-clock time"),
			   "started at %s, its sample %+lld ns from there: no wall-clock time, and "
			   "the warning says why (%s)", start, (long long)(t - mono), said);
	}
	kp_report_release(&r);
	unlink(file);
}

/* ns since 1970 in 64 bits end at 2262-04-11T23:47:16.854775807Z */
static void test_start_time(void)
{
	start_time_case("2026-12-02T06:00:00Z", 1000000000, 1500000000,
			1796191200500000000ull, NULL);
	start_time_case("2262-04-11T23:47:16Z", 1000000000, 1000000000,
			9223372036000000000ull, NULL);
	start_time_case("2262-04-11T23:47:17Z", 1000000000, 1000000000, 0,
			"start time, '2262-04-11T23:47:17Z', is no time from 1970 to "
			"2262-04-11T23:47:16Z");
	start_time_case("9999-12-31T23:59:59Z", 1000000000, 1000000000, 0,
			"start time, '9999-12-31T23:59:59Z'");
	start_time_case("2262-04-11T23:47:16Z", 1000000000, 2000000000, 0,
			"the first sample's wall-clock time");
	start_time_case("1970-01-01T00:00:01Z", 5000000000, 1000000000, 0,
			"the first sample's wall-clock time");
}

int main(void)
{
	const char *src = getenv("top_srcdir");

	if (!src)
		src = ".";
	snprintf(input, sizeof(input), "%s/tests/golden/basic.kprof", src);
	snprintf(base, sizeof(base), "%s/tests/golden/basic2.kprof", src);
	snprintf(symfs, sizeof(symfs), "%s/tests/golden/root", src);
	test_failures();
	test_no_events();
	test_text_escape();
	test_latency_rows();
	test_timeline();
	test_merge();
	test_addresses();
	test_firefox_streams();
	test_forked_jit();
	test_reused_pid();
	test_offcpu_exit();
	test_start_time();
	return tap_done();
}

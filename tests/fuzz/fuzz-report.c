/* SPDX-License-Identifier: MIT */
/*
 * fuzz-report.c - the whole report on a hostile recording: kp_report_build() as `kprof report`
 * runs it, with the reader's read-ahead thread on (kp_session_open() starts it), the session
 * replay, the resolver against the real binaries under tests/golden/root (--symfs), and then
 * every view of kp_views[] on every event, the headers, --stats, the warnings, and a
 * differential tree and graph of the profile against itself. The input is a recording; the
 * seeds in corpus-report/ are the golden recordings, real DWARF recordings, and a perf.data of
 * perf's --call-graph dwarf (its stack copies, and the MMAP2 of every data mapping perf's
 * mmap_data adds, which the session keeps as holes). Its length's
 * low bit chooses stacks root first or leaf first (--inverted), the next one locations
 * with or without addresses (kp_report_opts.addrs), and the third whether tracepoint samples
 * carry their decoded fields (kp_report_opts.tp_fields), so every path is fuzzed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report/profile/report.h"
#include "report/views/views.h"

#ifndef KP_FUZZ_SYMFS
#define KP_FUZZ_SYMFS "tests/golden/root"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void say(void *ctx, enum kp_report_say kind, const char *msg)
{
	fprintf(ctx, "%d %s\n", (int)kind, msg);
}

static void views(struct kp_report *r, FILE *out)
{
	for (size_t v = 0; v < kp_nr_views; v++)
		for (size_t e = 0; e < r->s.evl.nr; e++) {
			struct kp_view_opts vo = { .event = e, .annotate = true, .srcline = true };

			kp_svg_opts_init(&vo.svg);
			vo.svg.no_js = true;
			vo.svg.flamechart = kp_views[v].seq == KP_SEQ_FLAMECHART && (e & 1);
			vo.seq = &r->seq;
			vo.no_labels = e & 1 ? 0 : KP_LABEL_ALL;
			vo.by_samples = v & 1;
			kp_report_print_header(r, e, out);
			kp_views[v].emit(&r->prof, &vo, out);
		}
}

/* The profile against itself, as report --diff and kprof diff compare two. */
static void diff(const struct kp_report *r, FILE *out)
{
	struct kp_strtab strs;
	struct kp_profile dp;
	struct kp_view_opts vo = { .event = 1, .diff = true };

	kp_strtab_init(&strs);
	kp_profile_init(&dp, &strs, 2);
	kp_profile_merge(&dp, 0, &r->prof, 0, false, 1, NULL);
	kp_profile_merge(&dp, 1, &r->prof, r->s.evl.nr - 1, true, 1000, NULL);
	kp_profile_finish(&dp);
	kp_view_tree(&dp, &vo, out);
	kp_svg_opts_init(&vo.svg);
	vo.svg.diff = vo.svg.normalize = vo.svg.no_js = true;
	kp_view_svg(&dp, &vo, out);
	kp_profile_release(&dp);
	kp_strtab_release(&strs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_report_opts o = { .symfs = KP_FUZZ_SYMFS, .seq = true, .reverse = size & 1,
				    .addrs = size & 2, .tp_fields = size & 4,
				    .filter.t_end = UINT64_MAX };
	int fd = memfd_create("fuzz-report", MFD_CLOEXEC);
	FILE *out = fopen("/dev/null", "w");
	struct kp_report r;
	char path[64];

	if (fd < 0 || !out || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	o.input = path;
	o.dso.inline_frames = o.dso.demangle = o.dso.srcline = true;
	if (!kp_report_build(&o, &r)) {
		views(&r, out);
		kp_report_print_stats(&r, out);
		kp_report_warnings(&r, true, true, say, out);
		if (r.s.evl.nr)
			diff(&r, out);
	}
	kp_report_release(&r);
	fclose(out);
	close(fd);
	return 0;
}

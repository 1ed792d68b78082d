/* SPDX-License-Identifier: MIT */
/*
 * fuzz-folded.c - libFuzzer target over folded-stack input, as `kprof flamegraph` and
 * `kprof diff` read it from anywhere: the folded parser (one and two counts, decimals,
 * annotations), the profile model it fills, and the SVG and folded writers on the result
 * (names from the input, escaped for XML, cut on UTF-8 boundaries).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/profile/folded.h"
#include "report/profile/profile.h"
#include "report/views/view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore_bad(void *ctx, size_t line, const char *why)
{
	(void)ctx;
	(void)line;
	(void)why;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_folded_opts fo = { 1, 0, 0, (int)(size & 1), ignore_bad, NULL };
	struct kp_strtab strs;
	struct kp_profile p;
	struct kp_seq seq = { 0 };
	struct kp_view_opts vo = { 0 };
	FILE *out = fopen("/dev/null", "w");

	kp_strtab_init(&strs);
	kp_profile_init(&p, &strs, 2);
	kp_folded_parse(&p, (const char *)data, size, &fo, &seq);
	kp_profile_finish(&p);
	kp_svg_opts_init(&vo.svg);
	vo.svg.milli = true;
	vo.svg.hash = true;
	vo.seq = &seq;
	vo.svg.flamechart = size & 2;
	vo.svg.diff = size & 4;
	vo.svg.inverted = size & 8;
	vo.event = 1;
	if (out) {
		kp_view_svg(&p, &vo, out);
		kp_view_folded(&p, &vo, out);
		fclose(out);
	}
	free(seq.ents);
	kp_profile_release(&p);
	kp_strtab_release(&strs);
	return 0;
}

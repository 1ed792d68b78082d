/* SPDX-License-Identifier: MIT */
/*
 * fuzz-symbols.c - a recording's embedded symbols (KP_REC_SYMBOLS, kprof archive) on hostile
 * input. The input is one record: its header's type and size are set from the input's length
 * (rounded down to 8 bytes), the rest is taken as it comes. What the reader's check
 * (kp_rec_validate()) accepts is taken in by a DSO table, as a report does, under the options
 * the input's first byte picks; then a DSO of the record's path and build-id, whose file is
 * missing, is looked up at every address the record names, its neighbours and its functions'
 * ends, and every hit is walked as kprof archive walks them. Each lookup must give 1 to 64
 * frames, each named, or none. With bit 0 of the third byte, the record is a FILE_PART (a
 * binary's headers and unwind tables) instead: the DSO then loads the sparse copy made of it,
 * through libelf and libdw, as a report does for stack copies, and opens it as the unwinder
 * would. The seeds in corpus-symbols/ are records of real archives (split, the C++ inline
 * workload, a DWARF recording of gzip and libc, parts of split's and libc's tables).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/rec.h"
#include "report/symbols/dso.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_frames(const struct kp_sym_frame *fr, int n)
{
	if (n < 0 || n > KP_DSO_MAX_FRAMES)
		abort();
	for (int i = 0; i < n; i++)
		if (!fr[i].func || !fr[i].sys || (i + 1 == n && fr[i].inlined))
			abort();
}

static void on_hit(void *ctx, uint64_t off, const struct kp_sym_frame *fr, int n, bool debug)
{
	(void)ctx;
	(void)off;
	(void)debug;
	if (n < 1)
		abort();
	check_frames(fr, n);
}

static void lookup(struct kp_dso *d, uint64_t off)
{
	struct kp_sym_frame fr[KP_DSO_MAX_FRAMES];
	struct kp_dso_func f;

	check_frames(fr, kp_dso_symbolize(d, off, fr, KP_DSO_MAX_FRAMES));
	if (kp_dso_func_at(d, off, &f) && (!f.name || off - f.off >= f.size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t buf[KP_REC_MAX_SIZE / 8];
	struct kp_rec_header *h = (void *)buf;
	struct kp_symbols_view v;
	struct kp_dso_opts opts = { .demangle = true };
	struct kp_dsos *t;
	struct kp_dso *d;

	if (size > KP_REC_MAX_SIZE)
		size = KP_REC_MAX_SIZE;
	size &= ~(size_t)7;
	if (size < sizeof(*h))
		return 0;
	memcpy(buf, data, size);
	opts.inline_frames = data[0] & 1;
	opts.srcline = data[0] & 2;
	opts.inline_debug = data[0] & 4;
	if (data[2] & 1) {
		struct kp_file_part_view fv;
		int fd;

		*h = (struct kp_rec_header){ KP_REC_FILE_PART, 0, (uint16_t)size };
		if (kp_rec_validate(h, size) || kp_rec_file_part_view(h, &fv))
			return 0;
		t = kp_dsos_new(&opts);
		kp_dsos_embed(t, h);
		d = kp_dsos_find(t, fv.path, fv.rec->build_id_len ? fv.rec->build_id : NULL,
				 fv.rec->build_id_len);
		kp_dso_status(d);
		fd = kp_dso_open(d);
		if (fd >= 0)
			close(fd);
		lookup(d, fv.rec->off);
		kp_dsos_free(t);
		return 0;
	}
	*h = (struct kp_rec_header){ KP_REC_SYMBOLS, 0, (uint16_t)size };
	if (kp_rec_validate(h, size) || kp_rec_symbols_view(h, &v))
		return 0;
	t = kp_dsos_new(&opts);
	kp_dsos_embed(t, h);
	kp_dsos_embed(t, h); /* a second record of the same binary: joined, not doubled */
	d = kp_dsos_find(t, v.path, v.rec->build_id_len ? v.rec->build_id : NULL,
			 v.rec->build_id_len);
	for (uint32_t i = 0; i < v.rec->nr_locs; i++) {
		lookup(d, v.locs[i].off);
		lookup(d, v.locs[i].off + 1);
		lookup(d, v.locs[i].off - 1);
	}
	for (uint32_t i = 0; i < v.rec->nr_funcs; i++) {
		lookup(d, v.funcs[i].off);
		lookup(d, v.funcs[i].off + v.funcs[i].size - 1);
		lookup(d, v.funcs[i].off + v.funcs[i].size);
	}
	kp_dso_each_hit(d, on_hit, NULL);
	kp_dsos_free(t);
	return 0;
}

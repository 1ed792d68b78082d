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
 * would. An input that starts with ELF's magic is a binary instead: a DSO reads it as its
 * file, through libelf and libdw, and is looked up at each of its first 16 KiB of offsets, as
 * a report looks up the addresses samples hit; where no symbol covers one, the FDE of its
 * unwind tables that does names it, and the function that FDE delimits must hold the offset
 * and its bytes be readable (annotate's). The seeds in corpus-symbols/ are records of real
 * archives (split, the C++ inline workload, a DWARF recording of gzip and libc, parts of
 * split's and libc's tables) and small stripped binaries (elf-*.bin: three functions and one
 * without CFI, built from assembly with -nostdlib -Wl,-n,--eh-frame-hdr, then patched: FDEs
 * that overlap, are empty or run far beyond the code, an .eh_frame_hdr whose table lies).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
	const uint8_t *code;
	unsigned machine, sum = 0;

	check_frames(fr, kp_dso_symbolize(d, off, fr, KP_DSO_MAX_FRAMES));
	if (!kp_dso_func_at(d, off, &f))
		return;
	if (!f.name || off - f.off >= f.size)
		abort();
	code = kp_dso_code(d, f.off, f.size, &machine);
	for (uint64_t i = 0; code && i < f.size; i++) /* what annotate disassembles */
		sum += code[i];
	(void)sum;
}

/* A binary: the file of a DSO, looked up at each of its first 16 KiB of offsets. */
static void binary(const uint8_t *data, size_t size, const struct kp_dso_opts *opts)
{
	int fd = memfd_create("kprof-fuzz-elf", MFD_CLOEXEC);
	char path[64];
	struct kp_dsos *t;
	struct kp_dso *d;

	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	t = kp_dsos_new(opts);
	d = kp_dsos_find(t, path, NULL, 0);
	for (uint64_t off = 0; off < size && off < 16384; off++)
		lookup(d, off);
	kp_dso_each_hit(d, on_hit, NULL);
	kp_dsos_free(t);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t buf[KP_REC_MAX_SIZE / 8];
	struct kp_rec_header *h = (void *)buf;
	struct kp_symbols_view v;
	struct kp_dso_opts opts = { .demangle = true };
	struct kp_dsos *t;
	struct kp_dso *d;

	if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
		opts.inline_frames = opts.srcline = true;
		binary(data, size, &opts);
		return 0;
	}
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

/* SPDX-License-Identifier: MIT */
/*
 * convert.h - a recording (.kprof or perf.data) written as a perf.data: `kprof convert --to
 * perf`. The records are replayed through the unwinding stage (rewrite.h), so stack copies
 * (--keep-stacks, or a perf.data's --call-graph dwarf) reach perf as call chains, then written
 * by formats/perfwrite.h.
 */
#ifndef KP_CONVERT_H
#define KP_CONVERT_H

#include <stdint.h>

#include "formats/kprof-format.h"
#include "formats/reader.h"

/**
 * struct kp_convert_stats - what a conversion did
 * @records:  kernel records written
 * @events:   events the input describes (0: it has none, and perf reads nothing of the output)
 * @samples:  samples among them
 * @left_out: kprof's own records perf.data has no place for (statistics)
 * @damaged:  samples left out because perf cannot read them (kp_perfwrite_add())
 * @unwind:   the unwinding of stack copies
 * @text:     the kernel's `_text` the kernel map was given (0: none known, kernel frames stay
 *            unnamed in perf)
 * @unformatted: tracepoint events whose format file the input does not hold (perf reads no
 *            perf.data with one), the first named @unformatted_name
 * @write_err: the output's error (0 or -errno)
 */
struct kp_convert_stats {
	uint64_t records, samples, left_out, damaged;
	size_t events;
	struct kp_rec_unwind_stats unwind;
	uint64_t text;
	uint64_t unformatted;
	char unformatted_name[128];
	int write_err;
};

/*
 * kp_convert_perf - every record of @r (opened, not read yet) into a perf.data on @fd (empty,
 * seekable, not owned). Returns 0; the reader's error (< 0, as kp_reader_next() gives it) when
 * the input is damaged, after writing what came before the damage; or 1 with @st->write_err
 * when the output cannot be written. Binaries missing here whose stack copies it unwinds are
 * fetched by @debuginfod (borrowed; NULL: none is).
 */
struct kp_debuginfod;
int kp_convert_perf(struct kp_reader *r, int fd, struct kp_convert_stats *st,
		    struct kp_debuginfod *debuginfod);

#endif /* KP_CONVERT_H */

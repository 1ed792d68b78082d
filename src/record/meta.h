/* SPDX-License-Identifier: MIT */
/*
 * meta.h - the recording's metadata records, written once at the start of each file.
 */
#ifndef KP_META_H
#define KP_META_H

#include <stddef.h>
#include <stdint.h>

#include "evspec.h"
#include "formats/writer.h"
#include "opts.h"

/*
 * kp_meta_write - the META records of a recording made as @o says on @nr_cpus CPUs, into @w:
 * kprof's version, the machine (host, kernel, architecture, CPUs, page size), the start in
 * wall-clock and monotonic time, the command lines, the target, and @kallsyms, what the
 * recording's KALLSYMS records hold.
 */
void kp_meta_write(struct kp_writer *w, const struct kp_record_opts *o, size_t nr_cpus,
		   const char *kallsyms);

/* kp_meta_add_u64 - a META record of @key and the number @v, in decimal, into @w. */
void kp_meta_add_u64(struct kp_writer *w, const char *key, uint64_t v);

/*
 * kp_meta_write_tp_formats - the tracefs format file of each tracepoint among @evs, into @w, so
 * that reports decode its RAW payload on any machine; one that cannot be read or stored is
 * said (a warning), and the recording goes on without it. With the first, the ring buffer's
 * header files (tracefs events/header_page and header_event) as META records, which perf.data
 * keeps beside the formats.
 */
void kp_meta_write_tp_formats(struct kp_writer *w, const struct kp_evspec *evs, size_t nr_evs);

#endif /* KP_META_H */

/* SPDX-License-Identifier: MIT */
/*
 * perfwrite.h - writes a recording's records as a perf.data file that perf report, script and
 * annotate read: what `kprof convert --to perf` writes.
 *
 * The records come as a .kprof reader (or the unwinding stage) hands them out, in time order.
 * Kernel records (types below 64) go into the data section exactly as they are; kprof's own
 * records are not written as such but become what perf keeps in their place: KP_REC_ATTR the
 * attr section and HEADER_EVENT_DESC, KP_REC_META the facts (hostname, osrelease, arch,
 * nrcpus, cmdline, version), KP_REC_ROUND a FINISHED_ROUND, the build-ids of MMAP2 records
 * HEADER_BUILD_ID, the first and last sample's time HEADER_SAMPLE_TIME, and KP_REC_TP_FORMAT
 * HEADER_TRACING_DATA, with the ring buffer's header files and the page size of META and the
 * threads' names of the COMM records. Statistics and kernel symbols have no place in
 * perf.data and are left out (the `_text` line of the kernel symbols is read: see below).
 *
 * perf names kernel addresses through its kernel map, the MMAP of "[kernel.kallsyms]_text"
 * with the address of `_text` as its offset, which perf record writes first. A recording
 * without one (kprof's) gets one before its first kernel record, with `_text` from the
 * recording's kernel symbols or, failing that, kp_perfwrite_set_text()'s.
 *
 * The file is written in one pass: the data from offset 104 on, then at the end the features,
 * the attrs and the header at offset 0. Errors are sticky, as a kp_writer's.
 */
#ifndef KP_PERFWRITE_H
#define KP_PERFWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evlist.h"
#include "kprof-format.h"
#include "perfhdr.h"

/* A thread's name, the @seq'th of a COMM record (HEADER_TRACING_DATA's saved command lines) */
struct kp_perfwrite_comm {
	uint32_t tid;
	size_t seq;
	char comm[17];
};

struct kp_perfwrite {
	int fd;			/* borrowed */
	struct kp_perfhdr m;	/* what the header and features will say */
	struct kp_evlist ev;	/* the events, to read the samples' times */
	uint8_t *buf;		/* data records not written yet, for the file at @off */
	size_t len, cap;
	uint64_t off;
	uint64_t kmap_off;	/* where the kernel map kprof added is, or 0 */
	bool kmap_seen;		/* the input has its own, or one was added */
	uint64_t text;		/* `_text`, 0 while unknown */
	uint64_t records;	/* kernel records written */
	uint64_t samples;
	uint64_t left_out;	/* kprof's own records with no place in perf.data */
	uint64_t damaged;	/* samples perf cannot read, not written (kp_perfwrite_add()) */
	struct kp_perfwrite_comm *comms;	/* the threads' names */
	size_t nr_comms, cap_comms;
	uint64_t unformatted;	/* tracepoint events of no format: perf refuses the file */
	const char *unformatted_name;	/* the first one's name (kp_perfwrite_finish()) */
	int err;		/* sticky: 0 or -errno */
};

/* kp_perfwrite_init - write a perf.data on @fd (empty, seekable; not owned). */
void kp_perfwrite_init(struct kp_perfwrite *pw, int fd);

/*
 * kp_perfwrite_add - one record, validated (a reader's), in time order. A sample perf cannot
 * read (of no recorded event, or whose fields do not fit its record as its event lays them
 * out: a damaged stack copy's dyn_size beyond the copy, a register or call chain count that
 * lies) is left out, and counted in @damaged: perf report and perf script stop at the first.
 */
void kp_perfwrite_add(struct kp_perfwrite *pw, const struct kp_rec_header *rec);

/* kp_perfwrite_set_text - the kernel's `_text` when the recording does not store it (the
 * running kernel's, when it is the recording's). */
void kp_perfwrite_set_text(struct kp_perfwrite *pw, uint64_t addr);

/* kp_perfwrite_finish - write what is buffered, the features, the attrs and the header, and
 * count the tracepoint events of no format in @unformatted. Returns the sticky error: 0 or
 * -errno. */
int kp_perfwrite_finish(struct kp_perfwrite *pw);

/* kp_perfwrite_release - free everything (the fd stays open). */
void kp_perfwrite_release(struct kp_perfwrite *pw);

#endif /* KP_PERFWRITE_H */

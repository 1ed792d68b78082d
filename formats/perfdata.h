/* SPDX-License-Identifier: MIT */
/*
 * perfdata.h - reads perf's perf.data (file and pipe mode) as the records of a .kprof file.
 *
 * kp_reader_open() recognises perf.data by its magic ("PERFILE2") and hands the reader over
 * to this file; kp_reader_next() then yields what a .kprof reader would: first kprof's own
 * records made from perf's metadata (an ATTR per event of the attr section or of the pipe's
 * HEADER_ATTR records, named after HEADER_EVENT_DESC or EVENT_UPDATE; a META per fact of the
 * header features: hostname, kernel (osrelease), arch, nr-cpus-online, cmdline, perf-version,
 * clock), then the kernel records of the data section as perf stored them, with the records
 * inside PERF_RECORD_COMPRESSED(2) decompressed (zstd) in place, and FINISHED_ROUND as
 * KP_REC_ROUND. An MMAP2 whose file has a build-id in the HEADER_BUILD_ID table comes out
 * carrying it, as kprof's recorder writes them. perf's other records (ID_INDEX, THREAD_MAP,
 * CPU_MAP, TIME_CONV, STAT, AUXTRACE*, FINISHED_INIT, ...) are skipped and counted per type.
 * perf.data holds no kernel symbols: a META "kallsyms" of KP_PERFDATA_KALLSYMS says so, after
 * a META "kernel-build-id" (hex) when the header's build-id table names [kernel.kallsyms]:
 * the key to perf's build-id cache, where perf record keeps a copy of that kernel's table.
 *
 * The file is hostile: every section is checked against the file's size, every record's size
 * against the data left, every attr size, id count and string length against its record or
 * section, before anything is read through them. A record cut short by the end of the file
 * ends the reading with -KP_ETRUNCATED after every whole record before it. A malformed
 * feature section is ignored and counted (the records do not depend on it); a malformed kernel
 * record is skipped and counted; a record too short to step over, or compressed data that does
 * not decompress, ends the reading. An error is said in a struct kp_read_err (util.h): the
 * file offset of what failed and a sentence saying what; the reader copies it into its own.
 */
#ifndef KP_PERFDATA_H
#define KP_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprof-format.h"
#include "util.h"

struct kp_perfdata;

/* META "kallsyms" of a perf.data: no symbol table is stored, the live one may serve. */
#define KP_PERFDATA_KALLSYMS "not stored (perf.data)"
#define KP_PERFDATA_KERNEL_BID "kernel-build-id"

/* perf's own record types, 64 (PERF_RECORD_HEADER_ATTR) to 83 (PERF_RECORD_COMPRESSED2) */
#define KP_PERFDATA_USER_FIRST 64
#define KP_PERFDATA_USER_TYPES 20

/* kp_perfdata_magic - whether the 8 bytes at @magic start a perf.data file of any version or byte
 * order. */
bool kp_perfdata_magic(const void *magic);

/*
 * kp_perfdata_open - read the perf.data header of @fd (open, seekable, @file_size bytes; it
 * stays the caller's) and, in file mode, the attr section and the feature sections. Returns 0,
 * -errno, -KP_EENDIAN (written on a machine of the other byte order), -KP_EPERFFILE1 (perf's
 * first format), -KP_EPERFHEADER or -KP_ETRUNCATED, with *@e set. *@out is set once the magic
 * is perf's (-KP_EENDIAN and -KP_EPERFFILE1 come before): kp_perfdata_free() it in every case.
 */
int kp_perfdata_open(struct kp_perfdata **out, int fd, uint64_t file_size, struct kp_read_err *e);

/*
 * kp_perfdata_next - kp_reader_next() of a perf.data (reader.h says what it returns). Each
 * record read is counted in *@nrec, perf's own and skipped ones included, and one of a type
 * kprof does not know also in *@nr_unknown. An error comes with *@e set, and again from every
 * call after it.
 */
int kp_perfdata_next(struct kp_perfdata *p, const struct kp_rec_header **rec, uint64_t *nrec,
		     uint64_t *nr_unknown, struct kp_read_err *e);

/* kp_perfdata_free - free what kp_perfdata_open() allocated; NULL is fine. */
void kp_perfdata_free(struct kp_perfdata *p);

/**
 * struct kp_perfdata_stats - what reading a perf.data skipped, for the end-of-replay messages
 * @pipe:         the file is in perf's pipe mode
 * @skipped:      perf's own records kprof does not need, per type from KP_PERFDATA_USER_FIRST
 * @bad_records:  kernel records that failed their checks and were skipped; the first at
 *                @bad_off
 * @bad_features: header features that failed their checks and were ignored; the first at
 *                @bad_feature_off
 * @compressed:   PERF_RECORD_COMPRESSED(2) records read
 */
struct kp_perfdata_stats {
	bool pipe;
	uint64_t skipped[KP_PERFDATA_USER_TYPES];
	uint64_t bad_records, bad_off;
	uint64_t bad_features, bad_feature_off;
	uint64_t compressed;
};

/* kp_perfdata_stats - @p's counts (borrowed), or NULL for a NULL @p: a reader that does not
 * read a perf.data. */
const struct kp_perfdata_stats *kp_perfdata_stats(struct kp_perfdata *p);

/* kp_perfdata_type_name - perf's name of its own record type @type ("FINISHED_ROUND"), or NULL. */
const char *kp_perfdata_type_name(uint32_t type);

#endif /* KP_PERFDATA_H */

/* SPDX-License-Identifier: MIT */
/*
 * kprof-format.h - the on-disk layout of a .kprof file.
 *
 * This header is the normative companion of formats/FORMAT.md. Every struct here is written to
 * disk as is, in the byte order of the machine that recorded it (the file header says which),
 * and every size is frozen by a _Static_assert: changing one is a format change.
 *
 * A file is a kp_file_header followed by chunks. A chunk is a kp_chunk_header followed by one
 * independent zstd frame whose content is a run of whole records, or (KP_CODEC_PACKED, what
 * version 2 writes) their packed encoding, which decodes back to the same bytes. A record
 * starts with the same 8-byte header the kernel uses (struct perf_event_header), is 8-byte
 * aligned and at most KP_REC_MAX_SIZE (65528) bytes long. Kernel records (types 1..63) are
 * stored exactly as the kernel wrote them; kprof's own records use types from 64 up.
 */
#ifndef KPROF_FORMAT_H
#define KPROF_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define KP_FILE_MAGIC		"KPROFDAT"	/* 8 bytes, no terminator on disk */
#define KP_FORMAT_VERSION	2		/* bumped on any incompatible change */
#define KP_ENDIAN_MARK		0x01020304u	/* written natively: tells the byte order */
#define KP_CHUNK_MAGIC		0x4843504bu	/* "KPCH" in little-endian bytes */
#define KP_CODEC_ZSTD		1		/* zstd over the records (version 1's only codec) */
#define KP_CODEC_PACKED		2		/* zstd over the records packed (recpack.h) */

/* A reader refuses chunks larger than these: they bound every allocation. */
#define KP_CHUNK_MAX_USIZE	(256u << 20)	/* uncompressed bytes of one chunk */
#define KP_CHUNK_MAX_CSIZE	(256u << 20)	/* compressed bytes of one chunk */
#define KP_REC_MAX_SIZE		65528u		/* largest 8-aligned u16 */

/* Feature bits in kp_file_header.incompat: a reader must know every bit that is set. */
#define KP_INCOMPAT_KNOWN	0ull
/* Feature bits in kp_file_header.compat, which a reader may ignore. */
#define KP_COMPAT_SYMBOLS	0x1ull	/* @symbols_off: where the SYMBOLS chunks start */

/**
 * struct kp_file_header - first 64 bytes of every .kprof file
 * @magic:       KP_FILE_MAGIC
 * @version:     KP_FORMAT_VERSION of the writer
 * @header_size: sizeof(struct kp_file_header) of the writer; chunks start at this offset
 * @endian:      KP_ENDIAN_MARK in the writer's byte order
 * @flags:       reserved, 0
 * @incompat:    feature bits a reader must understand (see KP_INCOMPAT_KNOWN)
 * @compat:      feature bits a reader may ignore
 * @symbols_off: with KP_COMPAT_SYMBOLS, the file offset of the first chunk of the SYMBOLS
 *               records `kprof archive` appended (a report reads them before the samples)
 * @reserved:    zero
 */
struct kp_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint32_t endian;
	uint32_t flags;
	uint64_t incompat;
	uint64_t compat;
	uint64_t symbols_off;
	uint8_t reserved[16];
};
_Static_assert(sizeof(struct kp_file_header) == 64, "kp_file_header changed size");

/**
 * struct kp_chunk_header - frames one zstd frame of whole records
 * @magic: KP_CHUNK_MAGIC
 * @codec: KP_CODEC_ZSTD or KP_CODEC_PACKED
 * @csize: bytes of the compressed frame that follows this header
 * @usize: bytes of records once decompressed (multiple of 8)
 * @nrec:  number of records in the frame
 * @crc:   CRC-32C of this header (with @crc = 0) followed by the @csize payload bytes
 */
struct kp_chunk_header {
	uint32_t magic;
	uint32_t codec;
	uint64_t csize;
	uint64_t usize;
	uint32_t nrec;
	uint32_t crc;
};
_Static_assert(sizeof(struct kp_chunk_header) == 32, "kp_chunk_header changed size");

/* The common record header: layout-identical to the kernel's struct perf_event_header. */
struct kp_rec_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;	/* bytes of the whole record, header included; multiple of 8 */
};
_Static_assert(sizeof(struct kp_rec_header) == sizeof(struct perf_event_header),
	       "kp_rec_header must match perf_event_header");
_Static_assert(offsetof(struct kp_rec_header, size) == offsetof(struct perf_event_header, size),
	       "kp_rec_header must match perf_event_header");

/*
 * The fixed parts of the kernel records kprof reads, as <linux/perf_event.h> describes them
 * (enum perf_event_type). A record's variable part (a NUL-padded string) and its sample_id_all
 * trailer follow the fixed part; formats/rec.h parses and writes them.
 */

/* PERF_RECORD_MMAP: followed by the file name, NUL-padded to a multiple of 8 */
struct kp_rec_mmap {
	struct kp_rec_header h;
	uint32_t pid, tid;
	uint64_t addr;		/* start of the mapping */
	uint64_t len;		/* bytes */
	uint64_t pgoff;		/* file offset of addr, bytes */
};
_Static_assert(sizeof(struct kp_rec_mmap) == 40, "kp_rec_mmap changed size");

/*
 * PERF_RECORD_MMAP2: as MMAP, then either the device and inode of the file or, when the
 * header's misc has PERF_RECORD_MISC_MMAP_BUILD_ID, its build-id (build_id_size bytes of
 * build_id, at most 20); then the protection and the mmap flags; then the file name.
 */
struct kp_rec_mmap2 {
	struct kp_rec_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t build_id_reserved[3];
			uint8_t build_id[20];
		};
	};
	uint32_t prot;		/* PROT_* */
	uint32_t flags;		/* MAP_* */
};
_Static_assert(sizeof(struct kp_rec_mmap2) == 72, "kp_rec_mmap2 changed size");
_Static_assert(offsetof(struct kp_rec_mmap2, build_id) == 44, "kp_rec_mmap2 changed layout");
_Static_assert(offsetof(struct kp_rec_mmap2, prot) == 64, "kp_rec_mmap2 changed layout");
_Static_assert(offsetof(struct kp_rec_mmap2, pgoff) == offsetof(struct kp_rec_mmap, pgoff),
	       "MMAP2 starts as MMAP does");

/* PERF_RECORD_COMM: followed by the thread's name, NUL-padded to a multiple of 8 */
struct kp_rec_comm {
	struct kp_rec_header h;
	uint32_t pid, tid;
};
_Static_assert(sizeof(struct kp_rec_comm) == 16, "kp_rec_comm changed size");

/* PERF_RECORD_FORK and PERF_RECORD_EXIT (perf's "task" event): the new or ending thread */
struct kp_rec_task {
	struct kp_rec_header h;
	uint32_t pid, ppid;
	uint32_t tid, ptid;
	uint64_t time;		/* ns, the event's clock */
};
_Static_assert(sizeof(struct kp_rec_task) == 32, "kp_rec_task changed size");

/* PERF_RECORD_LOST: @lost records of the event @id were dropped (the ring was full) */
struct kp_rec_lost {
	struct kp_rec_header h;
	uint64_t id;
	uint64_t lost;
};
_Static_assert(sizeof(struct kp_rec_lost) == 24, "kp_rec_lost changed size");

/*
 * PERF_RECORD_SWITCH_CPU_WIDE: a context switch, with the thread switched to (misc has no
 * PERF_RECORD_MISC_SWITCH_OUT) or from. PERF_RECORD_SWITCH is the bare header.
 */
struct kp_rec_switch_cpu_wide {
	struct kp_rec_header h;
	uint32_t next_prev_pid, next_prev_tid;
};
_Static_assert(sizeof(struct kp_rec_switch_cpu_wide) == 16, "kp_rec_switch_cpu_wide changed size");

/* kprof's own record types, above any kernel type (perf's user types start at 64 too). */
enum kp_rec_type {
	KP_REC_USER_START = 64,
	KP_REC_ATTR = 64,	/* one event: perf_event_attr, name, the ids of its fds */
	KP_REC_META = 65,	/* one key=value fact about the recording */
	KP_REC_KALLSYMS = 66,	/* a slice of /proc/kallsyms text, whole lines */
	KP_REC_ROUND = 67,	/* every ring was drained: records before it are ordered */
	KP_REC_STATS = 68,	/* final statistics, once at the end */
	KP_REC_RING_STATS = 69,	/* final statistics of one ring, just before KP_REC_STATS */
	KP_REC_TP_FORMAT = 70,	/* a tracepoint's format file: how to decode its RAW payload */
	KP_REC_UNWIND_STATS = 71, /* what unwinding while recording did, once, before STATS */
	KP_REC_UNWIND_DSO = 72,	/* where that unwinding's early stops were: one per binary */
	KP_REC_SYMBOLS = 73,	/* a binary's symbols at the addresses samples hit (archive) */
	KP_REC_PROC_CGROUP = 74, /* the cgroup of a process, read when the recorder first saw it */
	KP_REC_FILE_PART = 75,	/* bytes of a binary: its unwind tables (archive, stack copies) */
	KP_REC_TYPE_MAX
};

/* KP_REC_ATTR misc bits */
#define KP_ATTR_MISC_FALLBACK	0x1	/* the requested event was replaced (e.g. cycles) */
#define KP_KALLSYMS_MISC_ENDS	0x1	/* the lines only end the symbols before them */

/**
 * struct kp_rec_attr - an event of the recording (type KP_REC_ATTR)
 * @attr_size: bytes of struct perf_event_attr that follow (multiple of 8, >= 64)
 * @nr_ids:    number of u64 sample ids after the attr (PERF_EVENT_IOC_ID of each fd)
 * @name_len:  bytes of the two strings after the ids, including both NULs (unpadded)
 * @index:     position of this event in the recording, from 0
 *
 * Followed by: attr bytes [attr_size], u64 ids[nr_ids], then "name\0spec\0" where name is
 * the event really opened ("cpu-clock") and spec what the user asked for ("cycles:u"),
 * padded with zeros to a multiple of 8.
 */
struct kp_rec_attr {
	struct kp_rec_header h;
	uint32_t attr_size;
	uint32_t nr_ids;
	uint32_t name_len;
	uint32_t index;
};
_Static_assert(sizeof(struct kp_rec_attr) == 24, "kp_rec_attr changed size");

/**
 * struct kp_rec_meta - one fact (type KP_REC_META)
 * @key_len:   bytes of the key including its NUL
 * @value_len: bytes of the value including its NUL
 *
 * Followed by "key\0value\0", zero-padded to a multiple of 8. Keys are listed in FORMAT.md;
 * readers show unknown keys as they are.
 */
struct kp_rec_meta {
	struct kp_rec_header h;
	uint32_t key_len;
	uint32_t value_len;
};
_Static_assert(sizeof(struct kp_rec_meta) == 16, "kp_rec_meta changed size");

/**
 * struct kp_rec_kallsyms - lines of /proc/kallsyms (type KP_REC_KALLSYMS)
 * @len: bytes of text that follow (whole lines, not NUL-terminated), zero-padded to 8
 * @seq: sequence number, from 0; the stored table is the union of all records' lines
 */
struct kp_rec_kallsyms {
	struct kp_rec_header h;
	uint32_t len;
	uint32_t seq;
};
_Static_assert(sizeof(struct kp_rec_kallsyms) == 16, "kp_rec_kallsyms changed size");

/**
 * struct kp_rec_stats - end-of-recording statistics (type KP_REC_STATS)
 * @samples:       PERF_RECORD_SAMPLE records read from the rings
 * @records:       kernel records of every type read from the rings
 * @lost:          samples lost: the larger of the LOST records' sum and read()'s
 *                 PERF_FORMAT_LOST, per ring, summed over the rings
 * @lost_records:  sum of PERF_RECORD_LOST counts
 * @lost_read:     sum of read() PERF_FORMAT_LOST counts (catches losses after the last LOST)
 * @throttles:     PERF_RECORD_THROTTLE records
 * @ring_bytes:    bytes copied out of the rings
 * @raw_bytes:     uncompressed bytes in chunks written before this record
 * @file_bytes:    bytes in the file before the chunk holding this record
 * @wakeups:       drain rounds
 * @nr_rings:      number of KP_REC_RING_STATS records written just before this one
 */
struct kp_rec_stats {
	struct kp_rec_header h;
	uint64_t samples;
	uint64_t records;
	uint64_t lost;
	uint64_t lost_records;
	uint64_t lost_read;
	uint64_t throttles;
	uint64_t ring_bytes;
	uint64_t raw_bytes;
	uint64_t file_bytes;
	uint64_t wakeups;
	uint32_t nr_rings;
	uint32_t reserved;
};
_Static_assert(sizeof(struct kp_rec_stats) == 96, "kp_rec_stats changed size");

/**
 * struct kp_rec_ring_stats - statistics of one ring (type KP_REC_RING_STATS)
 * @cpu:          the CPU the ring belongs to, -1 for a per-thread ring
 * @samples, @lost_records, @lost_read, @bytes: as in kp_rec_stats, for this ring
 */
struct kp_rec_ring_stats {
	struct kp_rec_header h;
	int32_t cpu;
	uint32_t reserved;
	uint64_t samples;
	uint64_t lost_records;
	uint64_t lost_read;
	uint64_t bytes;
};
_Static_assert(sizeof(struct kp_rec_ring_stats) == 48, "kp_rec_ring_stats changed size");

/**
 * struct kp_rec_tp_format - a tracepoint's tracefs format file (type KP_REC_TP_FORMAT)
 * @id:      the tracepoint's id (its events/SYS/NAME/id, the attr's config)
 * @sys_len: bytes of the system name that follows, including its NUL
 * @fmt_len: bytes of the format text after it (not NUL-terminated)
 *
 * Followed by "system\0", then the format text, zero-padded to a multiple of 8.
 */
struct kp_rec_tp_format {
	struct kp_rec_header h;
	uint64_t id;
	uint32_t sys_len;
	uint32_t fmt_len;
};
_Static_assert(sizeof(struct kp_rec_tp_format) == 24, "kp_rec_tp_format changed size");

/* META keys of a recording with tracepoints: the text of tracefs events/header_page and
 * events/header_event, the ring buffer's layout, which perf.data keeps beside the formats */
#define KP_META_HEADER_PAGE "tracefs-header-page"
#define KP_META_HEADER_EVENT "tracefs-header-event"

/**
 * struct kp_rec_unwind_stats - unwinding while recording (type KP_REC_UNWIND_STATS)
 * @samples:      samples that came with a user stack copy
 * @unwound:      of those, stored with their unwound call chain instead of the copy
 * @kept_behind:  stored with the copy: unwinding was more than --unwind-backlog behind
 * @kept_failed:  stored with the copy: no frame came out (the report tries again)
 * @failed:       of @unwound, stacks that went no further than their IP
 * @end_copy, @end_unmapped, @end_other: of @unwound, stacks that ended before their
 *                outermost frame because the copy ran out, at an address in no
 *                file-backed map, or for want of CFI
 * @backlog_max:  the most bytes of records that waited for the unwinding thread
 * @cpu_ns:       CPU time of the unwinding thread
 * @end_memory, @end_depth: stacks that ended early because the CFI led below the sampled
 *                SP, or at the unwinder's frame limit. Added after the first files: a
 *                record of KP_REC_UNWIND_STATS_V1_SIZE bytes has neither (read them as 0).
 * @end_jit_none, @end_jit_bad: stacks that ended early in JIT code without unwinding info in
 *                its jitdump, or with unusable unwinding info. Added later still: a record of
 *                KP_REC_UNWIND_STATS_V2_SIZE bytes has neither (read them as 0).
 */
struct kp_rec_unwind_stats {
	struct kp_rec_header h;
	uint64_t samples;
	uint64_t unwound;
	uint64_t kept_behind;
	uint64_t kept_failed;
	uint64_t failed;
	uint64_t end_copy;
	uint64_t end_unmapped;
	uint64_t end_other;
	uint64_t backlog_max;
	uint64_t cpu_ns;
	uint64_t end_memory;
	uint64_t end_depth;
	uint64_t end_jit_none;
	uint64_t end_jit_bad;
};
_Static_assert(sizeof(struct kp_rec_unwind_stats) == 120, "kp_rec_unwind_stats changed size");
#define KP_REC_UNWIND_STATS_V1_SIZE 88 /* the record's minimum: without end_memory, end_depth */
#define KP_REC_UNWIND_STATS_V2_SIZE 104 /* without end_jit_none, end_jit_bad */

/**
 * struct kp_rec_unwind_dso - the early stops of unwinding while recording whose last frame was
 * in one binary (type KP_REC_UNWIND_DSO); after UNWIND_STATS, one per binary that had any
 * @end_copy, @end_cfi, @end_memory, @end_depth: as UNWIND_STATS' end_copy, end_other,
 *                end_memory and end_depth, for this binary
 * A NUL-terminated path follows, padded with NULs to the record's size.
 */
struct kp_rec_unwind_dso {
	struct kp_rec_header h;
	uint64_t end_copy;
	uint64_t end_cfi;
	uint64_t end_memory;
	uint64_t end_depth;
};
_Static_assert(sizeof(struct kp_rec_unwind_dso) == 40, "kp_rec_unwind_dso changed size");

/**
 * struct kp_rec_proc_cgroup - the cgroup of process @pid, from /proc/PID/cgroup when the
 * recorder first saw it (type KP_REC_PROC_CGROUP): the cgroup v2 path, else the first v1
 * hierarchy's that is not the root. Followed by the NUL-terminated path, NUL-padded.
 */
struct kp_rec_proc_cgroup {
	struct kp_rec_header h;
	uint32_t pid;
	uint32_t reserved;
};
_Static_assert(sizeof(struct kp_rec_proc_cgroup) == 16, "kp_rec_proc_cgroup changed size");

/**
 * struct kp_rec_file_part - @len bytes at offset @off of a binary of @file_size bytes (type
 * KP_REC_FILE_PART; kprof archive of a recording with stack copies): its ELF and program
 * headers, section headers and their names, notes (the build-id), .eh_frame_hdr and
 * .eh_frame, from which a report rebuilds a sparse copy that unwinds as the binary does.
 * @path_len, @build_id_len, @build_id: as in struct kp_rec_symbols
 * Followed by the path, NUL-padded to a multiple of 8, then the bytes, zero-padded.
 */
struct kp_rec_file_part {
	struct kp_rec_header h;
	uint32_t path_len;
	uint32_t build_id_len;
	uint8_t build_id[24];
	uint64_t file_size;
	uint64_t off;
	uint32_t len;
	uint32_t reserved;
};
_Static_assert(sizeof(struct kp_rec_file_part) == 64, "kp_rec_file_part changed size");
#define KP_FILE_PART_MAX_SIZE (1ull << 32) /* the largest binary a part may belong to */

/**
 * struct kp_rec_symbols - what one binary names at the addresses a recording's samples hit,
 * stored so that the recording reports without the binary (type KP_REC_SYMBOLS; kprof archive,
 * record --embed-symbols). A binary with many such addresses has several records, each whole.
 * @path_len:     bytes of the path, its NUL included (≥ 2)
 * @build_id_len: bytes of @build_id used (0 when the binary has none: the path names it)
 * @build_id:     the binary's NT_GNU_BUILD_ID, zero-padded
 * @nr_funcs, @nr_locs, @nr_frames: entries of the three arrays below
 * @str_len:      bytes of the string table; its last byte is a NUL
 *
 * Followed by the path, NUL-padded to a multiple of 8; @nr_funcs struct kp_rec_sym_func;
 * @nr_locs struct kp_rec_sym_loc; @nr_frames struct kp_rec_sym_frame; the string table, padded
 * to a multiple of 8. Strings are byte offsets into the table.
 */
#define KP_SYMBOLS_MISC_NS 0x1	/* h.misc: read, while recording, in the mount namespace of the
				 * process that mapped the binary (a container) */

struct kp_rec_symbols {
	struct kp_rec_header h;
	uint32_t path_len;
	uint32_t build_id_len;
	uint8_t build_id[24];
	uint32_t nr_funcs;
	uint32_t nr_locs;
	uint32_t nr_frames;
	uint32_t str_len;
};
_Static_assert(sizeof(struct kp_rec_symbols) == 56, "kp_rec_symbols changed size");

/* A function symbol holding a hit address (or the FDE delimiting its function, when no symbol
 * does): ELF address, file offset and size of its bytes. */
struct kp_rec_sym_func {
	uint64_t vaddr, off, size;
	uint32_t name;		/* the symbol as the binary spells it (mangled) */
	uint32_t reserved;
};
_Static_assert(sizeof(struct kp_rec_sym_func) == 32, "kp_rec_sym_func changed size");

#define KP_SYM_NONE	0xffffffffu	/* no string */
#define KP_SYMLOC_DEBUG_DWARF 0x1	/* the inline frames come from a separate debug file */
#define KP_SYMLOC_FDE	0x2	/* no symbol holds it: the FDE covering it delimits its function,
				 * named sub_HEX@DSO (@sym_off is the offset in the FDE) */

/*
 * A hit address (file offset @off, of the call for a return address) and its frames:
 * @nr_frames (1..64) from index @frame, innermost first; @sym_off is the offset in the ELF
 * symbol holding it, UINT64_MAX when none does (DWARF named it).
 */
struct kp_rec_sym_loc {
	uint64_t off;
	uint64_t sym_off;
	uint32_t frame;
	uint16_t nr_frames;
	uint16_t flags;		/* KP_SYMLOC_* */
};
_Static_assert(sizeof(struct kp_rec_sym_loc) == 24, "kp_rec_sym_loc changed size");

#define KP_SYMFRAME_INLINED 0x1	/* inlined into the next frame of its location */

/* One frame: function (mangled, as the binary spells it), source file and line. */
struct kp_rec_sym_frame {
	uint32_t name;
	uint32_t file;		/* KP_SYM_NONE when unknown */
	uint32_t line;		/* 0 when unknown */
	uint32_t flags;		/* KP_SYMFRAME_* */
};
_Static_assert(sizeof(struct kp_rec_sym_frame) == 16, "kp_rec_sym_frame changed size");

#endif /* KPROF_FORMAT_H */

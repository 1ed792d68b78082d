/* SPDX-License-Identifier: MIT */
/*
 * buildid.h - the build-ids of the files the recorded processes map, read from the files
 * while recording, once per file.
 *
 * The kernel writes a mapped file's build-id into MMAP2 records itself when an event asks
 * (attr.build_id), but up to at least Linux 6.18 it then leaves PERF_RECORD_MISC_MMAP_BUILD_ID
 * set in the header it writes for every later consumer of the same mmap
 * (perf_event_mmap_output() ORs the flag into the shared header and restores only its size
 * and type), whose body keeps the device and inode: another tool that did not ask, perf
 * among them, then reads an inode as a build-id (perf 6.1 aborts in util/build-id.c). A
 * system-wide event sees every mmap first, so one such recorder breaks every perf on the
 * machine. kprof therefore never asks the kernel: each MMAP2 of its rings gets the build-id
 * read here, in the layout the kernel would have written, and the file reads as before.
 */
#ifndef KP_BUILDID_H
#define KP_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"

struct kp_buildid_ent;

/**
 * struct kp_buildids - the build-ids read so far, keyed by the file's device and inode (the
 * same path in two mount namespaces may be two files)
 */
struct kp_buildids {
	struct kp_hash index;	/* key: a hash of device and inode; value: entry index */
	struct kp_buildid_ent *ents;
	size_t nr, cap;
};

/* The file a process mapped, as an MMAP2 record or /proc/PID/maps names it. */
struct kp_buildid_file {
	uint32_t pid;
	const char *path;
	uint64_t addr, len;	/* where it is mapped: /proc/PID/map_files names the very file */
	uint32_t maj, min;
	uint64_t ino;
};

void kp_buildids_init(struct kp_buildids *b);
void kp_buildids_release(struct kp_buildids *b);

/*
 * kp_buildids_get - the build-id of @f into @id (20 bytes), read on first use: through
 * /proc/PID/root (the process's own file system), else /proc/PID/map_files, else the path as
 * kprof sees it, and only from a regular file whose device and inode are @f's. Returns its
 * length, 0 when none could be read (remembered: the file is not read again).
 */
uint8_t kp_buildids_get(struct kp_buildids *b, const struct kp_buildid_file *f, uint8_t id[20]);

/*
 * kp_buildids_fill - every MMAP2 record among the @len bytes of whole records at @recs, as a
 * ring gave them (device and inode: kprof's events never ask for build-ids), gets its file's
 * build-id in place, with PERF_RECORD_MISC_MMAP_BUILD_ID, as the kernel writes it. One whose
 * build-id cannot be read from the very file that was mapped (gone, replaced, unreadable, or
 * without a build-id note) keeps its device and inode, and loses a
 * PERF_RECORD_MISC_MMAP_BUILD_ID that another consumer's event left in the kernel's header
 * (see above): a report names its frames by the path, as for a file without a build-id.
 */
void kp_buildids_fill(struct kp_buildids *b, void *recs, size_t len);

#endif /* KP_BUILDID_H */

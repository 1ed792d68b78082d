/* SPDX-License-Identifier: MIT */
/*
 * cgroups.h - the cgroup of every process a recording sees, as containers label them: read
 * from /proc/PID/cgroup when the recorder first meets the process (its COMM, a FORK of a new
 * process, or the COMM synthesized for one already running) and written as a
 * KP_REC_PROC_CGROUP record before the round ends. As with kallsyms.h, the records drained are
 * scanned first and the new ones written after, so that the scan never reads a buffer the
 * writes move. A process that exits before the drain round that meets it (0.1 s) has no
 * /proc entry left: it is counted, and reports show its samples under "[unknown cgroup]".
 */
#ifndef KP_CGROUPS_H
#define KP_CGROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "formats/writer.h"
#include "report/base/hash.h"

struct kp_cgroups {
	struct kp_hash seen;	/* pid -> 1: read already */
	uint32_t *pending;	/* met in this round, to read */
	size_t nr_pending, cap_pending;
	uint64_t written, missed;
};

void kp_cgroups_init(struct kp_cgroups *c);

/* kp_cgroups_scan - note the processes new to the recording among @len bytes of records. */
void kp_cgroups_scan(struct kp_cgroups *c, const void *recs, size_t len);

/* kp_cgroups_restart - forget the processes met: a new file records each one's cgroup again. */
void kp_cgroups_restart(struct kp_cgroups *c);

/* kp_cgroups_flush - read the cgroup of each process noted, and append its record to @w. */
void kp_cgroups_flush(struct kp_cgroups *c, struct kp_writer *w);

/*
 * kp_cgroups_of - the cgroup in @text (/proc/PID/cgroup's lines) into @out (@size bytes):
 * the cgroup v2 path ("0::PATH") unless it is the root, else the first cgroup v1 path that is
 * not the root (name=systemd's first), else "/". Returns false when @text has no line of the
 * form ID:CONTROLLERS:PATH.
 */
bool kp_cgroups_of(const char *text, char *out, size_t size);

void kp_cgroups_release(struct kp_cgroups *c);

#endif /* KP_CGROUPS_H */

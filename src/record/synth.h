/* SPDX-License-Identifier: MIT */
/*
 * synth.h - side-band records for processes that already run when a recording starts
 * (system-wide and attach modes), synthesized from /proc as perf does.
 */
#ifndef KP_SYNTH_H
#define KP_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "buildid.h"
#include "formats/writer.h"

struct kp_synth_stats {
	size_t processes, threads, maps;
};

/*
 * kp_synth_procs - append a COMM per thread and an MMAP2 per executable map (with the file's
 * build-id when it has one, read through @bids) of @pids, or of every process and the idle task ("swapper", pid 0)
 * when @pids is NULL, to @w. The records carry the sample_id_all trailer of @attr with @id and
 * time 0. Processes that vanish meanwhile are skipped.
 */
void kp_synth_procs(struct kp_writer *w, const struct perf_event_attr *attr, uint64_t id,
		    const int *pids, size_t nr_pids, struct kp_buildids *bids,
		    struct kp_synth_stats *st);

/*
 * kp_synth_family - @pid and every live process descended from it (by the parent each one's
 * /proc/PID/stat names), in *@pids (allocated; the caller frees it); returns how many. A
 * recording of a command finds its processes so.
 */
size_t kp_synth_family(int pid, int **pids);

/* kp_synth_threads - append the thread ids of @pid to *@tids (grown); -1 if it has none. */
int kp_synth_threads(int pid, int **tids, size_t *nr);

#endif /* KP_SYNTH_H */

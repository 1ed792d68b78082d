/* SPDX-License-Identifier: MIT */
/*
 * recorder.h - records a command: its events per CPU, their rings, the drain loop and the
 * .kprof file. Uses formats/, and report/ to unwind while recording (online.h).
 */
#ifndef KP_RECORDER_H
#define KP_RECORDER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "child.h"
#include "evset.h"
#include "evspec.h"
#include "formats/evlist.h"
#include "formats/writer.h"
#include "buildid.h"
#include "cgroups.h"
#include "kallsyms.h"
#include "nsfiles.h"
#include "online.h"
#include "opts.h"
#include "ring.h"
#include "rotate.h"

/* The files of a --switch-output recording, as the recorder writes them. */
struct kp_switches {
	struct kp_ring *base;	/* the rings' counters when the file being written started */
	double started;		/* and the recording's elapsed seconds then */
	int usr2;		/* SIGUSR2 taken so far */
	bool event_hit;		/* a --switch-output-event sample was drained */
	struct kp_rotation closed;	/* the files closed */
	struct kp_rec_unwind_stats unwind;	/* their unwinding, summed */
	bool failed;		/* a new file could not be started: recording stopped */
};

struct kp_recorder {
	const struct kp_record_opts *o;
	struct kp_evset set;	/* the events on the targets, on every CPU */
	uint64_t *ids;		/* the kernel's id of each fd of @set, in its layout */
	struct kp_ring *rings;	/* one per CPU of @set, owned by the first event's fd there */
	struct pollfd *pfds;
	struct kp_writer w;	/* the file's; with online unwinding, the thread's input */
	struct kp_online *online; /* --call-graph dwarf without --keep-stacks */
	struct kp_rec_unwind_stats unwind;
	int out_fd;
	bool out_created, old_kept;
	off_t stream_start;	/* a stream that is a regular file: where the recording began in
				 * it; else -1 */
	char *old_path;
	struct kp_child child;	/* the command, when there is one */
	uint64_t wakeups;
	struct timespec started;
	uint64_t stopped_ns;	/* CLOCK_MONOTONIC when sampling stopped (META end-monotonic-ns) */
	struct kp_kallsyms ks;	/* read before the command starts */
	struct kp_cgroups cg;	/* the processes met so far, and their cgroups */
	struct kp_buildids bids; /* the build-ids of the files mapped, read once each */
	struct kp_evlist evl;	/* the events as written: which event a record is of */
	struct kp_switches sw;
	bool ticked_out;	/* o->tick asked to stop */
};

/* kp_recorder_run - the whole recording; returns the exit code for kprof (the child's). */
int kp_recorder_run(struct kp_recorder *rec, const struct kp_record_opts *o);

#endif /* KP_RECORDER_H */

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
#include "ring.h"
#include "rotate.h"

/* What `kprof record` was asked to do; filled by the command's option parser. */
struct kp_record_opts {
	struct kp_evspec *evs;
	size_t nr_evs;
	uint64_t period;	/* -c; 0 = use freq */
	uint64_t freq;		/* -F, default 4000 */
	bool callchain;		/* -g */
	bool off_cpu;		/* --off-cpu: the "offcpu" event (context-switches) is in evs */
	uint32_t stack_user;	/* --call-graph dwarf[,SIZE]: bytes of user stack per sample */
	bool keep_stacks;	/* --keep-stacks: store the copies, do not unwind while recording */
	size_t unwind_backlog;	/* --unwind-backlog: bytes queued for unwinding before copies
				 * are stored as they are */
	uint64_t sample_type;	/* --sample, 0 = the default set */
	const char *output;	/* -o, default "kprof.data" */
	size_t pages;		/* -m, data pages per ring */
	bool pages_given;	/* -m was given (otherwise kprof sizes the rings) */
	int level;		/* -z */
	bool all_kallsyms;	/* --all-kallsyms: the whole table, not the symbols hit */
	bool embed_symbols;	/* --embed-symbols: kprof archive the file when recording ends
				 * (done by the command, after kp_recorder_run()) */
	bool system_wide;	/* -a: every process on the CPUs */
	int *cpus;		/* -C: these CPUs only (NULL: every online CPU) */
	size_t nr_cpus;
	int *pids;		/* -p/-u: these processes, their threads and later children */
	size_t nr_pids;
	bool pids_of_user;	/* -u listed them: one that ends before kprof attaches is skipped */
	int *tids;		/* -t: these threads only */
	size_t nr_tids;
	double duration;	/* --duration: seconds, 0 for none */
	char **argv;		/* the command, NULL-terminated; NULL without one */
	int argc_all;		/* kprof's own command line, for the metadata */
	char **argv_all;
	const char *version;	/* kprof's, for the metadata (the CLI knows it; NULL: none) */
	bool quiet;		/* no "recorded N samples into FILE" line: the caller shows what
				 * it recorded (kprof latency, into a file of its own) */
	struct kp_nsfiles *nsfiles; /* the binaries of processes in other mount namespaces go
				 * here as they are mapped (the caller's; NULL: not looked at) */
	struct kp_switch_opts sw;
	/*
	 * kprof top: the records go to @live, each chunk as it closes, instead of a file (no -o);
	 * after each drain the chunk is closed and @tick called, whose non-zero return ends the
	 * recording. Both get @live_ctx. Without @tick, a chunk closes once a tenth of a second
	 * old (or KP_WRITER_CHUNK long).
	 */
	kp_writer_sink_fn *live;
	int (*tick)(void *ctx);
	void *live_ctx;
	/*
	 * kprof trace: @live is called in a thread of its own (online.h) with each chunk, which
	 * it leaves where it is: a consumer slower than the kernel never holds the rings up. With
	 * @output, the records also go to that file, unchanged. (@tick, if set, is still the
	 * drain loop's.) With @live, the recorder does not warn of lost records: the consumer,
	 * which gets the counts (the STATS record), says what they cost it.
	 */
	bool live_thread;
};

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

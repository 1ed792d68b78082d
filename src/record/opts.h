/* SPDX-License-Identifier: MIT */
/*
 * opts.h - what `kprof record` (and the commands that record: top, trace, latency) asked the
 * recorder for: filled by the command's option parser, read by the recorder and written into
 * the recording's metadata (meta.h).
 */
#ifndef KP_RECORD_OPTS_H
#define KP_RECORD_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evspec.h"
#include "formats/writer.h"
#include "rotate.h"

struct kp_nsfiles;

/* What `kprof record` was asked to do; filled by the command's option parser. */
struct kp_record_opts {
	struct kp_evspec *evs;
	size_t nr_evs;
	uint64_t period;	/* -c; 0 = use freq */
	uint64_t freq;		/* -F, default 4000 */
	bool callchain;		/* -g */
	bool off_cpu;		/* --off-cpu: the "offcpu" event (context-switches) is in evs */
	bool wakers;		/* --wakers: and sched:sched_waking, who woke each thread */
	bool latency;		/* --latency: the switch records (attr.context_switch on the
				 * first event; --off-cpu's has them already), which say how
				 * many threads of a process run at once (report --latency) */
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

#endif /* KP_RECORD_OPTS_H */

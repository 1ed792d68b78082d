/* SPDX-License-Identifier: MIT */
/*
 * report.h - a recording into a profile: the one step behind `kprof report`, `kprof diff` and
 * `kprof flamegraph FILE.kprof`.
 *
 * kp_report_build() opens the recording, replays it (session.h), keeps the samples that pass
 * the filters and belong to the chosen event, and resolves each into the profile (resolve.h).
 * Two reports built with the same options, on two files, name and unwind their frames alike,
 * so that their profiles compare (kp_profile_merge()). It prints nothing: the caller explains
 * a failure from what the report holds, and prints the views, the header and the statistics.
 */
#ifndef KP_REPORT_H
#define KP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/symbols/dso.h"
#include "formats/util.h"
#include "offcpu.h"
#include "parallel.h"
#include "profile.h"
#include "resolve.h"
#include "report/replay/session.h"
#include "report/replay/tracepoint.h"
#include "report/unwind/unwind.h"

/* Which samples count: an empty list lets every value through. */
struct kp_report_filter {
	int *pids, *tids, *cpus;	/* owned by whoever filled them */
	size_t nr_pids, nr_tids, nr_cpus;
	char **comms;
	size_t nr_comms;
	char **cgroups;			/* a process's cgroup is one of these, or below one */
	size_t nr_cgroups;
	uint64_t t_start, t_end;	/* ns, as the samples' time; t_end UINT64_MAX: no end */
	bool no_idle;			/* leave out the idle task (pid 0) */
};

struct kp_report;

/* Everything that decides what a profile holds; every pointer is borrowed. */
struct kp_report_opts {
	const char *input;
	const char *symfs;		/* NULL: binaries at their paths */
	const struct kp_dso_alt *alts;	/* files that stand for recorded paths (kp_dsos_alts()):
					 * the containers' binaries, while recording */
	size_t nr_alts;
	const char *event_name;		/* NULL: every event, each its own column of weights */
	struct kp_dso_opts dso;
	enum kp_unwind_lib unwinder;	/* for stack copies */
	struct kp_report_filter filter;
	bool reverse;			/* stacks leaf first: callee trees, icicles */
	bool cgroup_root;		/* each stack under its process's cgroup, above the comm
					 * (--sort cgroup) */
	bool seq;			/* also keep the timeline (r->seq): the stacks in time
					 * order, with their threads and CPUs (flame charts) */
	bool by_samples;		/* seq values count samples, not periods (--weight) */
	bool addrs;			/* locations keep their addresses and the profile its
					 * mappings (kp_profile.addrs): one node per address */
	bool tp_fields;			/* with seq: tracepoint samples carry their decoded
					 * fields (kp_seq_ent.fields) */
	bool wall;			/* one wall-clock profile: the clocks' samples (their
					 * periods, ns) and the off-CPU intervals, in the off-CPU
					 * event's column, named "wall"; preempted time under a
					 * [runqueue] frame */
	bool latency;			/* each sample's period divided by the number of its
					 * process's threads running at its time (parallel.h: the
					 * switch records of record --latency or --off-cpu) */
	bool wakers;			/* each blocked interval's stack joined with its waker's
					 * (record --off-cpu --wakers: the sched:sched_waking
					 * samples), below a "--" frame */
	/* called every 65,536 samples, if set: how far through the file the replay is */
	void (*progress)(void *ctx, const struct kp_report *r);
	void *progress_ctx;
};

/* Why kp_report_build() failed (negative), beyond errno's and the reader's codes. */
enum {
	KP_REPORT_EOPEN = KP_ERROR_END + 1, /* the file did not open: r->open_err, r->s.r say why */
	KP_REPORT_ENOEVENT,	/* it has no event called o->event_name: r->s.evl lists them */
	KP_REPORT_ENOWALL,	/* --wall, but no off-CPU event (record --off-cpu) or no clock */
	KP_REPORT_EEMPTY,	/* it describes no event (no ATTR record): nothing to profile;
				 * r->replay_err says whether it was cut or damaged before one */
	KP_REPORT_ENOWAKERS,	/* --wakers, but no off-CPU event or no sched:sched_waking
				 * (record --off-cpu --wakers) */
	KP_REPORT_ENOLATENCY,	/* --latency, but no switch records (record --latency) */
};

struct kp_report {
	const struct kp_report_opts *o;
	struct kp_session s;
	struct kp_profile prof;
	struct kp_resolver res;
	bool ready;		/* prof and res are set up (they are after a successful build) */
	bool filtering;		/* the options' filter can leave samples out */
	int open_err;		/* kp_session_open()'s result, for KP_REPORT_EOPEN */
	int replay_err;		/* kp_session_run()'s reader error, 0 if the file was whole */
	long event;		/* the chosen event's index, -1 for every event */
	uint64_t kept, filtered;
	uint64_t *per_event;	/* samples kept per event */
	struct kp_seq seq;	/* with o->seq: the kept samples in time order */
	struct kp_tp *tp;	/* with o->tp_fields: the recording's tracepoint formats */
	long off_event;		/* the off-CPU event (context-switches with switch records:
				 * record --off-cpu), -1 for none; its weights are ns */
	struct kp_offcpu off;	/* its open intervals, and how they closed */
	uint32_t rq_loc;	/* with o->wall: the [runqueue] location */
	struct kp_hash rq_nodes;	/* a preempted stack's node -> its [runqueue] node */
	uint32_t nostack_node;	/* "[off-CPU without a stack]", once needed */
	long wake_event;	/* with o->wakers: sched:sched_waking's index, -1 for none */
	struct kp_hash wake_nodes;	/* blocked node << 32 | waker node -> their joined node */
	uint32_t sep_loc, nowaker_loc;	/* "--" and "[waker not recorded]", once needed */
	struct kp_parallel par;	/* with o->latency: the threads running, per process */
};

/*
 * kp_report_build - replay @o->input into @r->prof (finished: totals and children are set).
 * Returns 0, including for a file cut short (r->replay_err then says so and everything before
 * the cut is in the profile), or -KP_REPORT_EOPEN, -KP_REPORT_ENOEVENT, -KP_REPORT_ENOWALL,
 * -KP_REPORT_ENOWAKERS, -KP_REPORT_ENOLATENCY or -KP_REPORT_EEMPTY. Call kp_report_release() in every case.
 */
int kp_report_build(const struct kp_report_opts *o, struct kp_report *r);
void kp_report_release(struct kp_report *r);

/* kp_report_event_unit - what a weight of event @e counts (the views' one weight rule):
 * "samples" with @by_samples or without periods, "ns" for the clocks, else "events". */
const char *kp_report_event_unit(const struct kp_report *r, size_t e, bool by_samples);

/* kp_report_print_header - "# kprof report of 'FILE': N samples of EVENT (-F 4000), 587.25 ms
 * in all, L lost": the sampling as it was asked (-F HZ or -c PERIOD), and the sum of the
 * samples' periods in its unit (a duration for the clocks, events otherwise). */
void kp_report_print_header(const struct kp_report *r, size_t e, FILE *out);

/* kp_report_print_stats - what `--stats` shows: samples shown and filtered, per event, the
 * unwinding, and why frames stayed unnamed, per binary; '#' lines. */
void kp_report_print_stats(const struct kp_report *r, FILE *out);

/* kp_report_print_unwind - what unwinding while recording did (@u), and where its stacks
 * stopped early (@stops, paths in @strs), as `--stats` shows it. */
void kp_report_print_unwind(FILE *out, const struct kp_rec_unwind_stats *u,
			    const struct kp_unwind_stats *stops, const struct kp_strtab *strs);

/* What kp_report_warnings() hands its callback (and a view its kp_view_opts.say). */
enum kp_report_say { KP_SAY_WARNING, KP_SAY_HINT, KP_SAY_NOTICE, KP_SAY_ERROR };

/*
 * kp_report_warnings - what a user must be told, once each: DWARF stacks that stopped early
 * (@truncation), binaries whose frames kept only their offset and stacks cut at the report's
 * depth (@frames). Each goes to @say as one sentence.
 */
void kp_report_warnings(struct kp_report *r, bool truncation, bool frames,
			void (*say)(void *ctx, enum kp_report_say kind, const char *msg),
			void *ctx);

#endif /* KP_REPORT_H */

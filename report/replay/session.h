/* SPDX-License-Identifier: MIT */
/*
 * session.h - replays a recording: its records in time order, and the model of the processes
 * they describe (model.h: threads and their comm, processes and their maps) as it was at each
 * record.
 *
 * The session reads the file, keeps kprof's own records (events, metadata, kernel symbols,
 * statistics), puts the kernel records of the per-CPU rings in time order (order.h), updates
 * the model with each side-band record (COMM renames and, at exec, drops the old image's
 * maps; MMAP/MMAP2 replace what they overlap; FORK copies the parent's maps into a new
 * process or adds a thread; EXIT ends a thread) and hands every record to the caller's ops,
 * samples with their parsed fields and their thread. A sample therefore resolves against its
 * own process's maps as they were at that moment.
 */
#ifndef KP_SESSION_H
#define KP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/symbols/dso.h"
#include "formats/evlist.h"
#include "formats/reader.h"
#include "formats/rec.h"
#include "report/base/hash.h"
#include "report/symbols/ksyms.h"
#include "model.h"
#include "order.h"
#include "report/symbols/perfmap.h"
#include "report/base/strtab.h"
#include "tracepoint.h"
#include "unwind-stats.h"

/* A DSO as the session knows it: the symbolizer's handle plus what the stats need. */
struct kp_session_dso {
	struct kp_dso *dso;
	uint32_t path;		/* strtab id */
	uint32_t short_name;	/* strtab id of the last path component */
	uint64_t frames;	/* frames that fell in it */
	uint64_t unnamed;	/* of those, frames no symbol covered */
	uint64_t fde;		/* of those, frames an FDE of its unwind tables named */
};

struct kp_session;

/**
 * struct kp_session_ops - what the caller wants to see; any member may be NULL
 * @own:    each kprof record (ATTR, META, KALLSYMS, STATS, ...), in file order
 * @sample: each sample, in time order, with its event, parsed fields and thread
 * @side:   each other kernel record, in time order, after the model took it in; @id has the
 *          sample_id_all fields (pid/tid, time, cpu) when the event records them
 * @unparsed: each kernel record that belongs to no recorded event, and each sample shorter
 *          than its fields, in time order (the others never see them)
 * A non-zero return stops the replay and is returned by kp_session_run().
 */
struct kp_session_ops {
	int (*own)(void *ctx, struct kp_session *s, const struct kp_rec_header *rec);
	int (*sample)(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		      const struct kp_sample *smp, const struct kp_rec_header *rec,
		      struct kp_thread *t);
	int (*side)(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		    const struct kp_rec_header *rec, const struct kp_sample *id);
	int (*unparsed)(void *ctx, struct kp_session *s, const struct kp_rec_header *rec);
};

/* The last time that ns since 1970 hold in 64 bits (as pprof's time_nanos does): the latest
 * start time a recording can be placed at, 2262-04-11T23:47:16Z. */
#define KP_WALL_MAX "2262-04-11T23:47:16Z"
#define KP_WALL_MAX_S (INT64_MAX / 1000000000)

struct kp_session {
	struct kp_reader r;
	struct kp_evlist evl;
	struct kp_strtab strs;		/* comms, paths, and the profile's names */
	struct kp_ksyms ksyms;
	struct kp_dsos *dsos;		/* created when the first map arrives */
	struct kp_dso_opts dso_opts;
	char *kernel_release;		/* META "kernel" */
	char *kernel_bid;		/* META "kernel-build-id" (perf.data), hex */
	int64_t wall_at_mono;		/* wall-clock minus record time, ns (META start-time and
					 * start-monotonic-ns); 0 when unknown */
	int64_t meta_wall_ns, meta_mono_ns;	/* those two, -1 until read */
	char *bad_start_time;		/* META start-time as written, when it is no time from
					 * 1970 to KP_WALL_MAX: the wall clock stays unknown */
	uint64_t end_mono_ns;		/* META end-monotonic-ns: when sampling stopped, 0
					 * unknown (older files, perf.data) */
	char *live_release;		/* set when the recording stores no kernel symbols and
					 * this machine runs another kernel (this one): its
					 * kernel frames stay addresses unless perf's build-id
					 * cache has the table (ksyms.from) */
	const char *symfs;		/* prefix for every binary's path ("" for none) */
	const struct kp_dso_alt *alts;	/* for the DSO table (kp_dsos_alts()); borrowed */
	size_t nr_alts;
	char *jit_dir;			/* where perf-PID.map files are looked for: symfs/tmp */
	struct kp_session_dso *dso_list;
	size_t nr_dsos, cap_dsos;
	struct kp_hash dso_ids;		/* struct kp_dso * -> index */
	struct kp_model model;		/* the processes, as of the last record replayed */
	struct kp_tp *tp;		/* the recording's tracepoint formats, for the prev_pid of
					 * a sched_switch sample the kernel gives tid -1; NULL
					 * without any */
	struct kp_order order;
	uint64_t last_time;
	struct kp_rec_stats stats;	/* zero unless have_stats */
	bool have_stats;
	struct kp_rec_unwind_stats unwind_stats; /* unwinding while recording, if it was done */
	bool have_unwind_stats;
	struct kp_unwind_stats unwind_stops;	/* ... its stacks, and where they stopped early */
	uint64_t bad_samples;		/* samples shorter than their fields */
	struct kp_sample smp;		/* the sample being delivered (kp_rec_parse_sample_again) */
	uint64_t no_event;		/* records that belong to no recorded event */
	bool sampled;			/* a sample was delivered: the event list is final, as the
					 * consumers sized their per-event state on it */
	uint64_t late_attrs;		/* ATTR records after that: ignored (their samples count
					 * in no_event), and where the first was (its chunk) */
	uint64_t late_attr_off;
	uint8_t *symbols;		/* the embedded SYMBOLS records (kprof archive), back
					 * to back, until the DSO table takes them in */
	size_t nr_symbols, cap_symbols;	/* bytes */
	char *jit_problem;		/* the first perf map or jitdump that was refused or
					 * damaged, why */
	uint64_t jit_problems;		/* ... and how many were */
	uint64_t jitdump_loads;		/* code loads read from jitdumps */
	int symbols_err;		/* reading them failed: the reader's error, and where */
	uint64_t symbols_off;
	const struct kp_session_ops *ops;
	void *ctx;
};

/*
 * kp_session_open - open @path for replay, read by @dso_opts->jobs threads; @dso_opts is copied
 * (its kernel_release is taken from the recording). Returns 0 or the reader's error (kp_reader_open()). Call
 * kp_session_release() in every case.
 */
int kp_session_open(struct kp_session *s, const char *path, const struct kp_dso_opts *dso_opts);

/*
 * kp_session_init - a session with no file, fed record by record (kp_session_start(),
 * kp_session_feed(), kp_session_end()): how the recorder replays what it records. Call
 * kp_session_release() after it.
 */
void kp_session_init(struct kp_session *s, const struct kp_dso_opts *dso_opts);

/*
 * kp_session_set_symfs - look for binaries, and for perf-PID.map files (normally in /tmp),
 * under @dir, as perf's --symfs does; for reports of recordings made elsewhere, and for tests.
 * Call before kp_session_run(). @dir is borrowed.
 */
void kp_session_set_symfs(struct kp_session *s, const char *dir);

/*
 * kp_session_run - replay the whole file through @ops. Returns 0, the first non-zero return
 * of an op, or the reader's error (-KP_ETRUNCATED, ...), in which case everything before the
 * bad chunk has been replayed and s->r says where it stopped.
 */
int kp_session_run(struct kp_session *s, const struct kp_session_ops *ops, void *ctx);

/* kp_session_start - the ops (borrowed) that kp_session_feed() and kp_session_end() call. */
void kp_session_start(struct kp_session *s, const struct kp_session_ops *ops, void *ctx);

/*
 * kp_session_feed - take one record, in file order: kernel records are queued until their
 * round makes them final, kprof's own records go to @own at once. Returns 0 or the first
 * non-zero return of an op.
 */
int kp_session_feed(struct kp_session *s, const struct kp_rec_header *rec);

/*
 * kp_session_feed_chunk - kp_session_feed() each whole record of the @len bytes at @buf (a
 * chunk as a writer's sink gets it), in order. Returns 0 or the first non-zero return; or
 * -KP_ERECORD at a record that is not framed (kp_rec_framed()), those before it fed.
 */
int kp_session_feed_chunk(struct kp_session *s, const uint8_t *buf, size_t len);

/* kp_session_end - end of input: deliver every record still queued. */
int kp_session_end(struct kp_session *s);

void kp_session_release(struct kp_session *s);

/*
 * kp_session_jit - the JIT code covering @addr in @proc's perf map or jitdump, or NULL. A JIT
 * adds to its files as it compiles: an address they do not cover has them read on from where
 * they were read up to (kp_perfmap_reread()), at most every KP_SESSION_JIT_REREAD_NS of record
 * time, so that the unwinding while recording knows code compiled since it first read them.
 * What it returns is valid until the next call.
 */
#define KP_SESSION_JIT_REREAD_NS 10000000ull
const struct kp_perfmap_ent *kp_session_jit(struct kp_session *s, struct kp_proc *proc,
					    uint64_t addr);

#endif /* KP_SESSION_H */

/* SPDX-License-Identifier: MIT */
/*
 * latency.h - durations between two events of a recording (what `kprof latency` shows): each
 * END paired with the open START of the same key, as bcc's funclatency, biolatency and
 * runqlat pair theirs, and the START's stack weighted by the duration.
 *
 * The pairs are made of parts: an event that starts (a START) or ends (an END), its key, and
 * what its fields must hold for it to take that part. The two events of a pair are a part
 * each; an event may take more than one (runqlat's sched_switch ends the wait of the task it
 * switches in and starts the wait of the one it switches out while still runnable), and each
 * sample of it first ends, then starts, so that START and END may be one event (sched_switch
 * keyed by prev_pid/next_pid: the time off the CPU).
 *
 * A key is one or more fields of each event: a tracepoint field by its name in the format
 * (dev, sector, pid, next_pid), or the sample's own "tid", "pid" or "cpu". Keyed by the
 * thread (tid), STARTs nest: an END closes the latest open START of its thread, as a return
 * closes the innermost call (recursion); keyed by anything else, a second START of a key
 * replaces the first (a requeued request, a task woken twice before it runs), and is counted,
 * unless its part keeps the first (a task's contention for a lock, which begins again when
 * its spinning on a mutex gives way to sleeping: the wait began at the first).
 * An END with no open START, and a START never ended, are counted, never paired by guess.
 *
 * The task of a START (its comm and pid, for --by and the slowest) is the one its event names
 * in its fields where it has them, the task woken of sched_wakeup (comm, pid: the kernel's pid,
 * a thread's id), and the sample's thread otherwise.
 */
#ifndef KP_LATENCY_H
#define KP_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"
#include "report/profile/profile.h"
#include "report/profile/resolve.h"
#include "report/replay/session.h"
#include "report/replay/tracepoint.h"

#define KP_LAT_MAX_KEYS 4
#define KP_LAT_MAX_TESTS 2
#define KP_LAT_MAX_PARTS 4

/* A test of a tracepoint field: (value & @mask) == @value, or != with @ne. */
struct kp_latency_test {
	const char *field;
	uint64_t mask, value;
	bool ne;
};

/* The part an event takes in the pairs. */
struct kp_latency_part {
	const char *event;		/* as the recording names it (its name or its spec) */
	bool ends;			/* an END, else a START */
	const char *keys[KP_LAT_MAX_KEYS];	/* its key fields, NULL-ended */
	const char *prefix;		/* a START's: the prefix of the fields that describe its
					 * task ("prev_" for sched_switch's task switched out:
					 * prev_comm, prev_pid), which --by's names are looked
					 * up with first; NULL for none */
	struct kp_latency_test when[KP_LAT_MAX_TESTS];	/* what its fields must all hold for
					 * it to take its part (.field NULL ends them) */
	bool optional;			/* a recording without its event is read without it
					 * (l->ev[] says so), rather than refused */
	bool first;			/* a START of a key already open is left out and
					 * counted (l->kept): the first one counts, not the last */
};

struct kp_latency_opts {
	const char *input;
	struct kp_latency_part parts[KP_LAT_MAX_PARTS];	/* at least a START and an END */
	size_t nr_parts;
	const char *by;			/* a START field to break the durations down by (or
					 * the task's comm, pid or tid), NULL for none */
	size_t top;			/* how many of the slowest to keep */
	struct kp_dso_opts dso;
	enum kp_unwind_lib unwinder;
};

/* One paired START and END. */
struct kp_latency_pair {
	uint64_t start, ns;		/* the START's time, the duration, ns */
	uint32_t tid, comm;		/* the START's task (comm a strtab id) */
	uint32_t node;			/* the START's stack in the profile */
	uint64_t by;			/* the --by value */
};

/* The durations of one --by value. */
struct kp_latency_group {
	uint64_t value;
	uint32_t comm;			/* for --by comm: the strtab id it stands for */
	uint64_t count, total, max;
};

struct kp_latency {
	const struct kp_latency_opts *o;
	struct kp_session s;
	struct kp_profile prof;		/* event 0: the START stacks weighted by duration, ns */
	struct kp_resolver res;
	struct kp_tp *tp;
	bool ready;
	int ev[KP_LAT_MAX_PARTS];	/* each part's event index, -2 until known, -1 absent */
	uint64_t fired[KP_LAT_MAX_PARTS];	/* the samples of each part's event */
	uint64_t taken[KP_LAT_MAX_PARTS];	/* ... and of those, the ones that took it */
	bool system_wide;		/* the recording is of every process (META target) */
	uint64_t *ns;			/* every duration, sorted by kp_latency_run() */
	size_t nr, cap;
	struct kp_latency_pair *top;	/* the slowest, slowest first */
	size_t nr_top;
	struct kp_latency_group *groups;
	size_t nr_groups, cap_groups;
	struct kp_hash group_ids;
	struct kp_latency_pair *open;	/* open STARTs; .ns holds the index + 1 of the one below
					 * (nested), 0 for none */
	size_t nr_open, cap_open, free_open;	/* free_open: index + 1 of a free slot chain */
	struct kp_hash open_ids;	/* key -> index + 1 of its latest open START */
	uint64_t no_start, no_end, replaced, lost;
	uint64_t kept;			/* STARTs of a key already open, left out for the first
					 * (kp_latency_part.first) */
	char key_error[512];		/* why a key or --by field could not be read, once */
	int open_err;
};

/*
 * kp_latency_run - replay @o->input pairing its events. Returns 0; -KP_LAT_EOPEN (l->open_err
 * says why); -KP_LAT_ENOEVENTS when the recording lacks the event of a part (l->ev[] says
 * which); -KP_LAT_EKEY when a key or test field is missing from an event, -KP_LAT_EBY when
 * the --by field is (l->key_error names the fields it has); or the session's error after what
 * was read before it. Call kp_latency_release() in every case.
 */
int kp_latency_run(struct kp_latency *l, const struct kp_latency_opts *o);
void kp_latency_release(struct kp_latency *l);

/* kp_latency_pct - the @p-th percentile (0-100) of the sorted durations, nearest rank. */
uint64_t kp_latency_pct(const struct kp_latency *l, double p);

/*
 * The histogram's rows, as bpftrace's hist() and lhist() make them: each holds the durations
 * of [lo, hi) µs, the rows one after the other, so that every duration is in one row. A log2
 * histogram's row 0 holds [0, 1), row 1 [1, 2), row k [2^(k-1), 2^k); a linear one's row k
 * [k * width, (k + 1) * width), its last (KP_LAT_ROWS - 1) every longer one as well.
 */
#define KP_LAT_ROWS 4096

/* kp_latency_row - the row of a duration of @ns: log2 (0 to 64), or with @linear_ns rows that
 * wide. */
size_t kp_latency_row(uint64_t ns, uint64_t linear_ns);

/* kp_latency_row_range - the µs row @row holds, [*lo, *hi); *hi is UINT64_MAX for the last
 * row of a linear histogram, which has no end. */
void kp_latency_row_range(size_t row, uint64_t linear_ns, uint64_t *lo, uint64_t *hi);

#define KP_LAT_EOPEN		1100
#define KP_LAT_ENOEVENTS	1101
#define KP_LAT_EKEY		1102
#define KP_LAT_EBY		1103

#endif /* KP_LATENCY_H */

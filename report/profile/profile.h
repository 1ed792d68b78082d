/* SPDX-License-Identifier: MIT */
/*
 * profile.h - the one model every view reads: interned functions and locations, and a call
 * tree whose nodes are (parent, location) pairs created parents first (samply's stack table),
 * weighted per event by sample count and period sum.
 *
 * Node 0 is the root ("all"). Because a node is always created after its parent,
 * kp_profile_finish() gets inclusive totals in one backwards pass, with no recursion.
 */
#ifndef KP_PROFILE_H
#define KP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"
#include "report/base/strtab.h"

#define KP_LOC_KERNEL	0x1	/* a kernel frame */
#define KP_LOC_INLINED	0x2	/* inlined into the frame below it (its caller) */
#define KP_LOC_JIT	0x4	/* named by a perf-PID.map */
#define KP_LOC_COMM	0x8	/* not a frame: the command name at the top of each stack */
#define KP_LOC_UNNAMED	0x10	/* no symbol: the name is "dso+0xoffset" or "[unknown]" */
#define KP_LOC_CGROUP	0x20	/* not a frame: the process's cgroup, above the command
				 * (kp_resolver.cgroup_root: --sort cgroup) */
#define KP_LOC_FDE	0x40	/* no symbol: named sub_HEX@dso after the start of the FDE
				 * (unwind table entry) that delimits its function */

struct kp_func {
	uint32_t name;		/* strtab ids */
	uint32_t dso;
	uint32_t flags;		/* KP_LOC_* that belong to the function (kernel, jit, comm, unnamed,
				 * fde) */
};

/*
 * A location: a function at a source line and, in a profile built with addresses
 * (kp_profile.addrs), at an address in a mapping. The frames of one address share its map and
 * addr: the function, and the functions inlined into it (KP_LOC_INLINED) above it.
 */
struct kp_loc {
	uint32_t func;
	uint32_t file;		/* strtab id, 0 without --srcline */
	uint32_t line;
	uint32_t flags;		/* KP_LOC_* */
	uint32_t map;		/* index into kp_profile.maps, 0 for none (or no addresses) */
	uint32_t sys;		/* with addresses: the function's name as its binary spells it
				 * (mangled), 0 when that is its name */
	uint64_t addr;		/* in the map's address space (see kp_mapping), the call's address
				 * for a return address; 0 without addresses */
};

/*
 * A mapping: one binary, as pprof's Mapping says it. A file is at one load address for the
 * whole profile, @start being where its file offset 0 would be in the first process that
 * mapped it, so that any process's address of it is @start + file offset (@offset is then 0).
 * The kernel and anonymous maps keep their addresses as they are; @start and @limit cover the
 * ones seen.
 */
struct kp_mapping {
	uint32_t path;		/* strtab id: the file, "[kernel.kallsyms]", "//anon", "[vdso]" */
	uint32_t build_id;	/* strtab id of the build-id in hex, 0 when unknown */
	uint64_t start, limit, offset;
	uint32_t flags;		/* KP_LOC_KERNEL for the kernel, KP_LOC_JIT for anonymous maps */
};

/* What an event's weights are; the views that name it read this (exports). */
struct kp_prof_event {
	uint32_t name;		/* strtab id, 0 when unknown */
	uint32_t unit;		/* strtab id of what a period counts: "ns" for the clocks,
				 * "events", or "samples" when samples carry no period */
	uint64_t period;	/* the fixed period (-c), 0 with a frequency */
	uint64_t freq;		/* samples per second asked (-F), 0 with a fixed period */
	bool durations;		/* weights are off-CPU or wall time, worth showing as time
				 * beside the shares (tree, flat) */
};

struct kp_node {
	uint32_t parent;
	uint32_t loc;
};

/* Weights of a node for one event: samples and the sum of their periods. */
struct kp_weight {
	uint64_t count;
	uint64_t period;
};

struct kp_profile {
	struct kp_strtab *strs;	/* borrowed (the session's) */
	struct kp_func *funcs;
	size_t nr_funcs, cap_funcs;
	struct kp_hash func_ids;
	struct kp_loc *locs;
	size_t nr_locs, cap_locs;
	struct kp_hash loc_ids;
	struct kp_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct kp_hash node_ids;	/* parent << 32 | loc -> node */
	size_t nr_events;
	struct kp_prof_event *events;	/* [nr_events], zeroed by kp_profile_init() */
	struct kp_mapping *maps;	/* [0] is "none" */
	size_t nr_maps, cap_maps;
	struct kp_hash map_ids;		/* path << 32 | build-id (strtab ids) -> map */
	bool addrs;			/* locations keep their addresses and maps */
	uint64_t t_first, t_last;	/* ns: the first and last sample's time, 0 unknown */
	uint64_t wall_first;		/* t_first as wall-clock ns since the epoch (to the
					 * second the recording knows), 0 unknown */
	struct kp_weight *self;	/* [node * nr_events + event] */
	size_t cap_self;
	/* filled by kp_profile_finish() */
	struct kp_weight *total;	/* inclusive, same layout */
	uint32_t *first_child, *next_sibling;	/* children lists, in creation order */
};

/* kp_profile_init - an empty model over @strs with @nr_events events (>= 1). */
void kp_profile_init(struct kp_profile *p, struct kp_strtab *strs, size_t nr_events);
void kp_profile_release(struct kp_profile *p);

uint32_t kp_profile_func(struct kp_profile *p, uint32_t name, uint32_t dso, uint32_t flags);
uint32_t kp_profile_loc(struct kp_profile *p, uint32_t func, uint32_t file, uint32_t line,
			uint32_t flags);
/* kp_profile_loc_at - the same at @addr of @map, its function called @sys in the binary
 * (all 0 for kp_profile_loc()). */
uint32_t kp_profile_loc_at(struct kp_profile *p, uint32_t func, uint32_t file, uint32_t line,
			   uint32_t flags, uint32_t map, uint64_t addr, uint32_t sys);

/*
 * kp_profile_map - the mapping of @path with @build_id (strtab ids), created with @start,
 * @limit, @offset and @flags if new; an existing one's range grows to cover [@start, @limit).
 */
uint32_t kp_profile_map(struct kp_profile *p, uint32_t path, uint32_t build_id, uint64_t start,
			uint64_t limit, uint64_t offset, uint32_t flags);

/* kp_profile_add - one sample of @event: @locs from the root side to the leaf. */
void kp_profile_add(struct kp_profile *p, const uint32_t *locs, size_t n, size_t event,
		    uint64_t period);

/* kp_profile_path - the node of the stack @locs (root side first), created if new. */
uint32_t kp_profile_path(struct kp_profile *p, const uint32_t *locs, size_t n);

/* kp_profile_add_node - one sample of @event whose stack ends at @node. */
void kp_profile_add_node(struct kp_profile *p, uint32_t node, size_t event, uint64_t period);

/* kp_profile_add_weight - @count samples and @period of @event at @node. */
void kp_profile_add_weight(struct kp_profile *p, uint32_t node, size_t event, uint64_t count,
			   uint64_t period);

/*
 * kp_profile_merge - add the weights of @src's event @src_event to @dst's event @dst_event,
 * stack by stack: a location of @src becomes the one of @dst with the same function name, DSO
 * name, flags, file and line (interned into @dst's strings), so two recordings' profiles built
 * with the same options compare node by node. With @by_samples a weight's period becomes its
 * sample count; either is then multiplied by @scale (KP_FOLDED_SCALE to sit beside folded
 * input). Locations keep their addresses when both profiles have them (their maps interned
 * into @dst); @dst's event @dst_event takes @src's description if it has none. With @map,
 * *@map is set to an array (the caller's, free()) of @dst's node for each
 * of @src's, to carry a kp_seq over. Call before kp_profile_finish() on @dst; @src is not
 * changed.
 */
void kp_profile_merge(struct kp_profile *dst, size_t dst_event, const struct kp_profile *src,
		      size_t src_event, bool by_samples, uint64_t scale, uint32_t **map);

/* kp_profile_finish - compute totals and children lists, after the last add; again after more
 * adds (a live profile, kprof top's) brings them up to date. */
void kp_profile_finish(struct kp_profile *p);

static inline const struct kp_weight *kp_profile_self(const struct kp_profile *p, uint32_t node,
						       size_t event)
{
	return &p->self[node * p->nr_events + event];
}

static inline const struct kp_weight *kp_profile_total(const struct kp_profile *p, uint32_t node,
							size_t event)
{
	return &p->total[node * p->nr_events + event];
}

/*
 * The timeline: stacks in input or time order, for flame charts and for whatever shows time
 * (exports, a timeline view). Each entry is a run of samples in a row that reached the same
 * node in the same thread, on the same CPU, of the same event: when the first was taken, how
 * many there were and their value. Folded input has no time, thread or CPU: those are 0.
 */
struct kp_seq_ent {
	uint32_t node;
	uint32_t count;		/* samples in the run */
	uint64_t value;		/* their weight (the views' weight rule) */
	uint64_t time;		/* the first one's, ns */
	uint32_t pid, tid, cpu, event;
	uint32_t comm;		/* strtab id of the thread's command then */
	uint32_t fields;	/* strtab id of a tracepoint's decoded fields ("prev_pid=1 ..."),
				 * with kp_report_opts.tp_fields; 0 otherwise. Such a sample is a
				 * run of its own: it keeps its time */
	uint32_t kind;		/* KP_SEQ_*: a run of samples, or a span of @span ns from @time */
	uint32_t life;		/* which process of that pid (kp_thread.life) */
	uint64_t span;
};

/* What an entry of the timeline is. A span is an entry of its own (count 1); its node is the
 * stack it left the CPU at (or "[off-CPU without a stack]"), its value its weight in the views'
 * rule. */
enum kp_seq_kind {
	KP_SEQ_SAMPLES,		/* a run of samples */
	KP_SEQ_BLOCKED,		/* an off-CPU interval: the thread blocked */
	KP_SEQ_RUNNABLE,	/* ... preempted: runnable, waiting for a CPU */
};

struct kp_seq {
	struct kp_seq_ent *ents;
	size_t nr, cap;
};

/* kp_seq_push - append a stack of folded input; adjacent entries of the same node merge. */
void kp_seq_push(struct kp_seq *s, uint32_t node, uint64_t value);

/* kp_seq_push_sample - append one sample (@e gives all but count, which is 1 here); it joins
 * the last run when node, thread, command, CPU and event are the same, neither has fields and
 * both are runs of samples (a span is an entry of its own). */
void kp_seq_push_sample(struct kp_seq *s, const struct kp_seq_ent *e);

/* kp_profile_name - the function name of @node's location (interned). */
const char *kp_profile_name(const struct kp_profile *p, uint32_t node);

#endif /* KP_PROFILE_H */

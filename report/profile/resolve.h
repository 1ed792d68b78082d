/* SPDX-License-Identifier: MIT */
/*
 * resolve.h - turns a sample into the locations of its stack, root first: the comm, then each
 * frame from the outermost caller to the leaf, the functions inlined at each call expanded
 * (between the caller and its callee). An address that is no return address (the sampled one,
 * or where user space entered the kernel) is the function that holds it, as perf names the
 * sample's: the functions inlined there are frames too only with kp_dso_opts.inline_self, the
 * innermost then the leaf's self.
 *
 * Frames come from the kernel's call chain (or the sample's ip alone). The chain's
 * PERF_CONTEXT_* markers say which part is kernel and which user; entry 0 is the sampled ip and
 * every later entry a return address, looked up at address - 1 (the call, not the instruction
 * after it). Kernel frames are named from the recording's kallsyms lines, user frames through
 * the process's maps and the DSO symbolizer, anonymous maps through perf-PID.map. A frame
 * that cannot be named keeps its DSO and offset ("libfoo.so+0x1234"); only an address outside
 * every known map is "[unknown]". Lookups are cached per (DSO, offset) and kernel address.
 */
#ifndef KP_RESOLVE_H
#define KP_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"
#include "profile.h"
#include "report/replay/session.h"
#include "report/unwind/unwind.h"

/* Why frames stayed unnamed, for `kprof report --stats`. */
struct kp_resolve_stats {
	uint64_t frames;	/* frames resolved, inline expansions not counted */
	uint64_t unnamed;	/* of which had no name */
	uint64_t fde;		/* of which no symbol named, but the FDE delimiting their
				 * function (sub_HEX@dso) */
	uint64_t no_map;	/* user address outside every map of its process */
	uint64_t no_ksym;	/* kernel address the recording has no symbol for */
	uint64_t no_jit;	/* anonymous map without a perf-PID.map entry */
	uint64_t dso_unusable;	/* in a DSO that could not be used (see the session's DSO list) */
	uint64_t no_sym;	/* in a usable DSO, but no symbol covers the address */
	uint64_t cut;		/* stacks deeper than a stack holds (locs[]): their outermost
				 * frames are left out */
	uint64_t looped;	/* frame-pointer stacks ending in one repeated address ... */
	uint64_t repeats;	/* ... and the repeats left out (kp_stack_repeats()) */
};

/*
 * A stack seen before: its key words, its call-tree node, and what resolving it counted (that
 * in kp_resolver.deltas, apart: a sample looks up the rest).
 */
struct kp_stack_ent {
	uint32_t key_off, key_len;	/* in kp_resolver.keys */
	uint32_t node;
	uint32_t log_off, log_len;	/* per-frame DSO accounting, in kp_resolver.logs */
	uint32_t hits;			/* samples of it since kp_resolver_settle() */
};

struct kp_resolver {
	struct kp_session *s;
	struct kp_profile *p;
	bool comm_root;		/* put the comm at the top of each stack */
	bool cgroup_root;	/* and the process's cgroup above it (--sort cgroup) */
	struct kp_hash cache;	/* key (see resolve.c) -> index into runs */
	struct kp_hash held;	/* the same for the function holding the address alone (an
				 * address looked up as it is, without inline_self) */
	uint32_t *runs;		/* [n, loc_1 .. loc_n] innermost first */
	size_t nr_runs, cap_runs;
	uint32_t unknown_loc;	/* "[unknown]" */
	struct kp_hash comm_locs;	/* comm strtab id -> its KP_LOC_COMM location */
	struct kp_hash cgroup_locs;	/* cgroup strtab id -> its KP_LOC_CGROUP location */
	struct kp_resolve_stats st;
	/* whole-stack cache: most samples repeat a stack seen before */
	struct kp_hash stacks;		/* hash of the key words -> index into stack_ents */
	struct kp_stack_ent *stack_ents;
	struct kp_resolve_stats *deltas;	/* for each stack_ents[i] */
	size_t nr_stacks, cap_stacks, cap_deltas;
	uint64_t *keys;
	size_t nr_keys, cap_keys;
	uint32_t *logs;			/* dso << 2 | fde << 1 | unnamed, per user frame in a
					 * DSO */
	size_t nr_logs, cap_logs;
	uint32_t *log;			/* the current sample's, while it is resolved */
	size_t log_len, log_cap;
	/* the stacks of samples whose call chain the reader identified: chain_id -> entry */
	struct kp_chain_memo {
		uint64_t chain_id;
		uint64_t head[3];	/* and the rest of the stack's key (resolve.c) */
		uint32_t ent;
	} memo[4096];
	uint32_t locs[1024];
	struct kp_unwinder *unwinder;	/* for samples with a user stack copy (--call-graph dwarf) */
	uint64_t chain[KP_UNWIND_CHAIN_MAX]; /* their kernel chain joined with the unwound user part */
};

/* kp_resolver_init - resolve @s's samples into @p (both borrowed), unwinding user stack
 * copies with @unwinder. */
void kp_resolver_init(struct kp_resolver *r, struct kp_session *s, struct kp_profile *p,
		      enum kp_unwind_lib unwinder);
void kp_resolver_release(struct kp_resolver *r);

/*
 * kp_resolver_settle - count into r->st and the session's DSO list what the samples of stacks
 * seen before counted (deferred: a repeated stack is only looked up). Call it before reading
 * either.
 */
void kp_resolver_settle(struct kp_resolver *r);

/*
 * kp_resolve_sample - the locations of @smp's stack into @locs (capacity @max), root first.
 * Returns how many were written; a stack deeper than @max keeps its leaf side.
 */
size_t kp_resolve_sample(struct kp_resolver *r, const struct kp_sample *smp, uint16_t misc,
			 struct kp_thread *t, uint32_t *locs, size_t max);

/*
 * kp_stack_walk - call @fn for each address of @smp's stack, leaf first, as resolving reads
 * it: whether it is a kernel address, and whether it is a return address (to be looked up at
 * address - 1). A non-zero return of @fn stops the walk; the result says whether addresses
 * were left then.
 */
typedef bool (*kp_stack_fn)(void *ctx, uint64_t addr, bool kernel, bool ret);
/*
 * A frame-pointer chain (one without a user stack copy) that ends in a run of one repeated
 * address is walked through that address once: the kernel's walk followed a frame that points
 * to itself (code without frame pointers, or a frame-pointer loop) until its depth limit.
 * kp_stack_repeats() is how many of @smp's addresses that leaves out (0: none).
 */
uint64_t kp_stack_repeats(const struct kp_sample *smp);
bool kp_stack_walk(const struct kp_sample *smp, uint16_t misc, kp_stack_fn fn, void *ctx);

/**
 * struct kp_addr_info - one address of a stack, as perf script names it
 * @rel:  the address in its DSO (a user address: address - map start + pgoff), or as it is
 *        (kernel, or outside every map)
 * @dso:  the mapped path, "[kernel.kallsyms]", "[module]", or NULL outside every map
 * @nr:   frames in @fr, innermost first (inlined ones, then the function): 0 when no symbol
 *        names the address
 * Strings are borrowed from the session and its DSOs.
 */
struct kp_addr_info {
	uint64_t rel;
	const char *dso;
	int nr;
	struct kp_sym_frame fr[KP_DSO_MAX_FRAMES];
};

/* kp_resolve_addr - @addr of @t's stack, from kp_stack_walk(), into *@ai. */
void kp_resolve_addr(struct kp_resolver *r, struct kp_thread *t, uint64_t addr, bool kernel,
		     bool ret, struct kp_addr_info *ai);

/*
 * kp_resolve_add - resolve @smp and add it to the profile for @event with @period; with
 * @inverted the stack goes in leaf first (the comm last). A stack already seen, in the same
 * command, process and maps, is not resolved again: it adds to the node it reached before
 * and repeats the statistics it counted then. Returns the node the sample was added to.
 */
uint32_t kp_resolve_add(struct kp_resolver *r, const struct kp_sample *smp, uint16_t misc,
			struct kp_thread *t, bool inverted, size_t event, uint64_t period);

/* kp_resolve_stack - kp_resolve_add() without the weight: the node @smp's stack reaches. */
uint32_t kp_resolve_stack(struct kp_resolver *r, const struct kp_sample *smp, uint16_t misc,
			  struct kp_thread *t, bool inverted);

#endif /* KP_RESOLVE_H */

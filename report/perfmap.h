/* SPDX-License-Identifier: MIT */
/*
 * perfmap.h - the names of JIT code, from the two files JITs write for perf:
 *
 * - /tmp/perf-PID.map (V8, the JVM's agents, LuaJIT, Python 3.12's -X perf, ...): lines of
 *   "START SIZE NAME" in hex;
 * - jit-PID.dump (the jitdump format: the JVM's and V8's agents, Python 3.13's -X perf_jit),
 *   which a process marks by mapping it, so that its MMAP record says where it is: code load
 *   and move records with names, and debug info records with source lines. perf reads it in
 *   `perf inject --jit`; here it is read at report time, with no inject step.
 *
 * Both are outside bytes, in places others can write (/tmp): each is opened only when it is a
 * regular file (kp_open_file(): a FIFO or a device there is refused, not waited on or read
 * without end), of at most 1 GiB, and, as perf requires, owned by the user running kprof or by
 * root unless the caller trusts any owner (perf's -f). The jitdump reader checks every record's
 * size against the file and stops at the first one that does not fit, saying where, and refuses
 * a code load whose code_size is more than the code its record carries (code claimed at
 * addresses no code was written to).
 */
#ifndef KP_PERFMAP_H
#define KP_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A source line of JIT code, from a jitdump's debug info: from @addr on. */
struct kp_perfmap_line {
	uint64_t addr;
	char *file;	/* owned */
	uint32_t line;
};

struct kp_perfmap_ent {
	uint64_t start, end;
	char *name;	/* owned */
	uint64_t seq;	/* load order: where loads overlap, the later one holds the address */
	uint64_t index;	/* a jitdump's code_index (moves name it) */
	struct kp_perfmap_line *lines;	/* sorted by address; owned */
	size_t nr_lines;
};

struct kp_perfmap {
	struct kp_perfmap_ent *ents;
	size_t nr, cap;
	uint64_t seq;
	int loaded;	/* 1 once read, found or not */
	int found;	/* the file existed */
	char *problem;	/* what was wrong with the perf map or the jitdump, sentences naming
			 * each file, to say once (owned), or NULL */
};

/*
 * kp_perfmap_load - read "@dir/perf-@pid.map" (dir is normally /tmp); a missing file is empty.
 * One that is not a regular file, larger than 1 GiB, or (unless @any_owner) owned by another
 * user than the one running kprof or root is ignored, and m->problem says so.
 */
void kp_perfmap_load(struct kp_perfmap *m, const char *dir, uint32_t pid, bool any_owner);

/*
 * kp_perfmap_load_jitdump - add the code of the jitdump at @path, which process @pid mapped:
 * loads and moves, with their debug info. A file written by another process (its header's pid
 * is not @pid), of another byte order or version, or damaged is refused or cut at the damage,
 * as is one that kp_perfmap_load() would ignore; a code load or move that claims more code than
 * it carries is refused, counted; m->problem says what and where. Returns the code loads taken.
 */
size_t kp_perfmap_load_jitdump(struct kp_perfmap *m, const char *path, uint32_t pid,
			       bool any_owner);

/* kp_perfmap_is_jitdump - whether @path names a jitdump ("jit-PID.dump"), and its pid. */
bool kp_perfmap_is_jitdump(const char *path, uint32_t *pid);

/* kp_perfmap_lookup - the entry covering @addr (the latest loaded where loads overlap), or
 * NULL. */
const struct kp_perfmap_ent *kp_perfmap_lookup(const struct kp_perfmap *m, uint64_t addr);

/* kp_perfmap_line - the source line of @addr in @e, or NULL. */
const struct kp_perfmap_line *kp_perfmap_line(const struct kp_perfmap_ent *e, uint64_t addr);

void kp_perfmap_release(struct kp_perfmap *m);

#endif /* KP_PERFMAP_H */

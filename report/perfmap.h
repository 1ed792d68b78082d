/* SPDX-License-Identifier: MIT */
/*
 * perfmap.h - JIT symbols from /tmp/perf-PID.map, the convention JITs (V8, the JVM's agents,
 * LuaJIT, ...) use to name the code they generate: lines of "START SIZE NAME" in hex.
 */
#ifndef KP_PERFMAP_H
#define KP_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

struct kp_perfmap_ent {
	uint64_t start, end;
	char *name;	/* owned */
};

struct kp_perfmap {
	struct kp_perfmap_ent *ents;
	size_t nr;
	int loaded;	/* 1 once read, found or not */
	int found;	/* the file existed */
};

/* kp_perfmap_load - read "@dir/perf-@pid.map" (dir is normally /tmp); a missing file is empty. */
void kp_perfmap_load(struct kp_perfmap *m, const char *dir, uint32_t pid);

/* kp_perfmap_lookup - the name covering @addr, or NULL. */
const char *kp_perfmap_lookup(const struct kp_perfmap *m, uint64_t addr);

void kp_perfmap_release(struct kp_perfmap *m);

#endif /* KP_PERFMAP_H */

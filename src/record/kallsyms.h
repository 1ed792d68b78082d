/* SPDX-License-Identifier: MIT */
/*
 * kallsyms.h - the recorder's /proc/kallsyms snapshot, stored in the file as the symbols that
 * samples hit.
 *
 * The whole table is ~5 MB of text (~1 MB compressed) per recording, far more than the samples
 * of a short run. So the recorder reads it once before the command starts, marks the symbols
 * that kernel addresses of samples (ip and call-chain entries) fall in, plus the symbol after
 * each (written apart, as an end: it bounds the hit one and names nothing), and writes the newly marked lines at every drain round, before
 * the round ends: a sample and the symbols it needs land in the same chunk, so a recording
 * killed at any point still names its kernel frames. --all-kallsyms stores the whole table.
 */
#ifndef KP_KALLSYMS_H
#define KP_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/evlist.h"
#include "formats/writer.h"

struct kp_ksym {
	uint64_t addr;
	uint32_t off, len;	/* the line in text, newline included */
};

struct kp_kallsyms {
	char *text;
	size_t len;
	struct kp_ksym *syms;	/* sorted by address */
	size_t nr;
	uint8_t *marked;	/* per symbol: a name or an end, to write or written */
	uint32_t *pending;
	size_t nr_pending;
	uint64_t lo;		/* lowest symbol address: anything below is not the kernel's */
	uint64_t cache_addr[4096];	/* last lookups, direct-mapped: frames repeat a lot */
	uint32_t cache_idx[4096];
	uint64_t written;	/* lines written */
	const char *state;	/* for the "kallsyms" META key */
};

/*
 * kp_kallsyms_read - read /proc/kallsyms. Returns true if it has real addresses; else sets
 * @k->state to why not (unreadable, or hidden from this user) and holds nothing.
 */
bool kp_kallsyms_read(struct kp_kallsyms *k);

/* kp_kallsyms_scan - mark the symbols of the kernel addresses in @len bytes of whole records,
 * each sample read with its own event's layout (@evl). */
void kp_kallsyms_scan(struct kp_kallsyms *k, const struct kp_evlist *evl, const void *recs,
		      size_t len);

/* kp_kallsyms_flush - append the lines marked since the last flush to @w. */
void kp_kallsyms_flush(struct kp_kallsyms *k, struct kp_writer *w);

/*
 * kp_kallsyms_restart - forget what was written: a new file (record --switch-output) gets
 * the symbols its own samples hit, and _text.
 */
void kp_kallsyms_restart(struct kp_kallsyms *k);

/* kp_kallsyms_write_all - append the whole table to @w (for --all-kallsyms). */
void kp_kallsyms_write_all(struct kp_kallsyms *k, struct kp_writer *w);

void kp_kallsyms_release(struct kp_kallsyms *k);

#endif /* KP_KALLSYMS_H */

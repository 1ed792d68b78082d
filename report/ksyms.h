/* SPDX-License-Identifier: MIT */
/*
 * ksyms.h - kernel symbols from the recording's KP_REC_KALLSYMS lines (never the live
 * /proc/kallsyms: the report may run on another machine or after a reboot), or, for a
 * recording that stores none (perf.data), the live table when this machine runs the kernel
 * the recording names (session.c).
 */
#ifndef KP_KSYMS_H
#define KP_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kp_ksym_ent {
	uint64_t addr;
	char *name;	/* "name" or "name [module]", in one of kp_ksyms.texts */
	char type;	/* nm's letter: T, t, W, ... */
	bool end;	/* only ends the symbol before it: names nothing */
};

struct kp_ksyms_loader;

struct kp_ksyms {
	struct kp_ksym_ent *syms;
	size_t nr, cap;
	int sorted;
	char **texts;			/* the lines, NUL-terminated in place: names point in */
	size_t nr_texts, cap_texts;
	struct kp_ksyms_loader *loader;	/* kp_ksyms_load()'s thread, until it is joined */
};

void kp_ksyms_init(struct kp_ksyms *k);

/* kp_ksyms_release - free @k; a load still under way is stopped at its next read. */
void kp_ksyms_release(struct kp_ksyms *k);

/*
 * kp_ksyms_load - read the kallsyms-format file @path (/proc/kallsyms, whose text the kernel
 * takes tens of milliseconds to write) on a thread of its own, and sort it there. Every other
 * call on @k first waits for it, so a report that meets no kernel address never waits, and
 * one that does waits only for what is left. Returns -errno when @path cannot be opened (the
 * table stays as it was).
 */
int kp_ksyms_load(struct kp_ksyms *k, const char *path);

/* kp_ksyms_add_text - add the "ADDR TYPE NAME[\t[MODULE]]" lines in @len bytes of @text; with
 * @ends, lines that only end the symbols before them (KP_KALLSYMS_MISC_ENDS). */
void kp_ksyms_add_text(struct kp_ksyms *k, const char *text, size_t len, bool ends);

/* kp_ksyms_lookup - the symbol containing @addr (the last at or below it), or NULL, also when
 * that is an end: the symbol @addr is in was not stored; of aliases at one address, the one
 * perf names it by (symrank.h). */
const char *kp_ksyms_lookup(struct kp_ksyms *k, uint64_t addr);

/* kp_ksyms_find - the same lookup, as the entry: its address gives a symbol offset. */
const struct kp_ksym_ent *kp_ksyms_find(struct kp_ksyms *k, uint64_t addr);

/* kp_ksyms_end - where the symbol @e (from kp_ksyms_find()) ends: the next symbol's address,
 * or 0 for the last one, whose size the table does not know. */
uint64_t kp_ksyms_end(struct kp_ksyms *k, const struct kp_ksym_ent *e);

#endif /* KP_KSYMS_H */

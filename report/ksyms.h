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
	char *name;	/* "name" or "name [module]"; owned */
	char type;	/* nm's letter: T, t, W, ... */
	bool end;	/* only ends the symbol before it: names nothing */
};

struct kp_ksyms {
	struct kp_ksym_ent *syms;
	size_t nr, cap;
	int sorted;
};

void kp_ksyms_init(struct kp_ksyms *k);
void kp_ksyms_release(struct kp_ksyms *k);

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

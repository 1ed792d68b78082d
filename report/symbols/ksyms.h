/* SPDX-License-Identifier: MIT */
/*
 * ksyms.h - kernel symbols from the recording's KP_REC_KALLSYMS lines (never the live
 * /proc/kallsyms: the report may run on another machine or after a reboot), or, for a
 * recording that stores none (perf.data), a kallsyms file: the copy perf's build-id cache
 * keeps of the recording's kernel, or the live table when this machine runs that kernel
 * (session.c). A file's table is held to what the recording says of its kernel's layout
 * (kp_ksyms_expect()) before it names anything.
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
	bool module;	/* the name ends in " [module]" */
	uint32_t seq;	/* the order lines came in: among aliases at one address, perf
			 * names the last (the only one its symbol ends give a size) */
};

struct kp_ksyms_loader;

/* Where the recording had its kernel: @name (kernel text's reference symbol, as "_text") at
 * @start; or a module, @name "[mod]", over @start..@end. */
struct kp_ksyms_expect {
	char *name;
	uint64_t start, end;
};

struct kp_ksyms {
	struct kp_ksym_ent *syms;
	size_t nr, cap;
	size_t nr_sorted;		/* syms[0, nr_sorted) are in order, duplicates dropped */
	uint32_t seq;			/* the next line's kp_ksym_ent.seq */
	char **texts;			/* the lines, NUL-terminated in place: names point in */
	size_t nr_texts, cap_texts;
	struct kp_ksyms_loader *loader;	/* kp_ksyms_load()'s thread, until it is joined */
	struct kp_ksyms_expect *expects;
	size_t nr_expects, cap_expects;
	bool unchecked;			/* a file's table not yet held to the expectations */
	char *from;			/* the file the table came from; NULL: none, or lines */
	char *fallback;			/* kp_ksyms_load()'s @fallback, until it is read */
	char *dropped;			/* the first file whose table did not fit the recording */
	char *refused;			/* the first file there that could not be read,
					 * "'PATH': why", a sentence to say (a FIFO or a
					 * device is refused unopened, kp_open_file()) */
};

void kp_ksyms_init(struct kp_ksyms *k);

/* kp_ksyms_release - free @k; a load still under way is stopped at its next read. */
void kp_ksyms_release(struct kp_ksyms *k);

/*
 * kp_ksyms_load - read the kallsyms-format file @path (perf's cached copy, or /proc/kallsyms,
 * whose text the kernel takes tens of milliseconds to write) on a thread of its own, and sort
 * it there. Every other call on @k first waits for it, so a report that meets no kernel
 * address never waits, and one that does waits only for what is left. When that table does
 * not fit the expectations, it is dropped and @fallback's (NULL: none) read instead, held to
 * them too. Only a regular file of at most 256 MiB is read (/proc/kallsyms is one, of size 0:
 * its reading stops there); a file that is there but refused is named in k->refused. Returns a
 * negative code (kp_open_file()'s) when neither can be opened (the table stays as it was).
 */
int kp_ksyms_load(struct kp_ksyms *k, const char *path, const char *fallback);

/* kp_ksyms_expect - what the recording says of its kernel's layout (struct kp_ksyms_expect):
 * a file's table must place the reference symbol there, and every symbol of the module in its
 * range, or it names nothing (another boot's layout, kASLR, modules loaded elsewhere). Checked
 * when the table is next looked at. */
void kp_ksyms_expect(struct kp_ksyms *k, const char *name, uint64_t start, uint64_t end);

/* kp_ksyms_source - the file the table came from (waits for it), or NULL: lines of the
 * recording, or none; @dropped (may be NULL) gets the first file that did not fit. */
const char *kp_ksyms_source(struct kp_ksyms *k, const char **dropped);

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

/* SPDX-License-Identifier: MIT */
/*
 * perfmap.h - the names of JIT code, from the two files JITs write for perf:
 *
 * - /tmp/perf-PID.map (V8, the JVM's agents, LuaJIT, Python 3.12's -X perf, ...): lines of
 *   "START SIZE NAME" in hex;
 * - jit-PID.dump (the jitdump format: the JVM's and V8's agents, Python 3.13's -X perf_jit),
 *   which a process marks by mapping it, so that its MMAP record says where it is: code load
 *   and move records with names, debug info records with source lines, and unwinding info
 *   records with the code's CFI (.eh_frame and .eh_frame_hdr), without which DWARF unwinding
 *   cannot get out of JIT code that keeps no frame pointer. perf reads it in `perf inject
 *   --jit`; here it is read where it is needed, with no inject step: by the report, and by the
 *   unwinding while recording, which reads on as the JIT adds to it (kp_perfmap_reread()).
 *
 * Both are outside bytes, in places others can write (/tmp): each is opened only when it is a
 * regular file (kp_open_file(): a FIFO or a device there is refused, not waited on or read
 * without end), of at most 1 GiB, and, as perf requires, owned by the user running kprof or by
 * root unless the caller trusts any owner (perf's -f). The jitdump reader checks every record's
 * size against the file and stops at the first one that does not fit, saying where, and refuses
 * a code load whose code_size is more than the code its record carries (code claimed at
 * addresses no code was written to). Unwinding info whose sizes disagree with its record or
 * with each other, or whose .eh_frame_hdr does not describe its own .eh_frame and code, is
 * kept as unusable, with why: the frames of the code it comes with stop there, counted, rather
 * than be guessed through.
 */
#ifndef KP_PERFMAP_H
#define KP_PERFMAP_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A source line of JIT code, from a jitdump's debug info: from @addr on. */
struct kp_perfmap_line {
	uint64_t addr;
	char *file;	/* owned */
	uint32_t line;
};

/*
 * The unwinding info of a code load (the JIT_CODE_UNWINDING_INFO record before it): .eh_frame,
 * then .eh_frame_hdr, as the record carries them. Their addresses are those perf inject gives
 * them in the ELF file it writes for the code: .eh_frame right after the code, at its start plus
 * its size rounded up to 8, and .eh_frame_hdr right after .eh_frame; the JIT wrote their
 * PC-relative and data-relative pointers for that place. They move with the code.
 */
struct kp_perfmap_unwind {
	uint8_t *data;		/* eh_frame_size + hdr_size bytes; owned */
	uint64_t eh_frame_size, hdr_size;
	uint64_t eh_frame_off;	/* .eh_frame's address minus the code's start */
	uint64_t table;		/* where .eh_frame_hdr's search table starts in @data, */
	uint64_t nr_fdes;	/* ... of that many 8-byte entries (datarel, sdata4) */
	uint16_t machine;	/* the jitdump's elf_mach */
	uint64_t off;		/* where its record is in the jitdump */
	char *bad;		/* why it cannot be used (owned), or NULL */
	/* libdw's reading of it, made on first use (kp_perfmap_frame()) */
	bool built;
	uint8_t *image;		/* an ELF file in memory holding .eh_frame at its address */
	Elf *elf;
	Dwarf_CFI *cfi;
};

struct kp_perfmap_ent {
	uint64_t start, end;
	char *name;	/* owned */
	uint64_t seq;	/* load order: where loads overlap, the later one holds the address */
	uint64_t index;	/* a jitdump's code_index (moves name it) */
	struct kp_perfmap_line *lines;	/* sorted by address; owned */
	size_t nr_lines;
	struct kp_perfmap_unwind *unwind; /* owned; NULL: the JIT gave none */
};

struct kp_perfmap {
	struct kp_perfmap_ent *ents;
	size_t nr, cap;
	uint64_t seq;
	int loaded;	/* 1 once read, found or not */
	int found;	/* the file existed */
	char *problem;	/* what was wrong with the perf map or the jitdump, sentences naming
			 * each file, to say once (owned), or NULL */
	/* where each file was read up to, to read on from there (kp_perfmap_reread()) */
	char *map_path, *dump_path;	/* owned; NULL for none */
	uint64_t map_off;	/* the perf map's lines before it are read */
	uint64_t dump_off;	/* the jitdump's records before it are read; 0: not its header */
	uint32_t pid;
	uint16_t machine;	/* the jitdump header's elf_mach */
	bool any_owner;
	/* what a jitdump's records say of the code load that follows them */
	struct kp_perfmap_line *next_lines;
	size_t nr_next_lines;
	struct kp_perfmap_unwind *next_unwind;
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

/*
 * kp_perfmap_reread - read on in the files @m was loaded from, from where their last complete
 * line or record ended: what their writer added since. Returns the entries added. Nothing is
 * said of what it reads (it is for the unwinding while recording, whose files grow).
 */
size_t kp_perfmap_reread(struct kp_perfmap *m);

/* kp_perfmap_is_jitdump - whether @path names a jitdump ("jit-PID.dump"), and its pid. */
bool kp_perfmap_is_jitdump(const char *path, uint32_t *pid);

/* kp_perfmap_lookup - the entry covering @addr (the latest loaded where loads overlap), or
 * NULL. */
const struct kp_perfmap_ent *kp_perfmap_lookup(const struct kp_perfmap *m, uint64_t addr);

/* kp_perfmap_line - the source line of @addr in @e, or NULL. */
const struct kp_perfmap_line *kp_perfmap_line(const struct kp_perfmap_ent *e, uint64_t addr);

/*
 * kp_perfmap_frame - the CFI row of @e's code at @pc into *@f (the caller frees it), read by
 * libdw from @e's unwinding info at the addresses the code has (its reading made on first use,
 * owned by @e): 0; -ENOENT when @e has no unwinding info; -EINVAL when it has unusable info
 * (e->unwind->bad says why), or none for @pc, or a row that reaches outside @e's code (then
 * marked unusable).
 */
int kp_perfmap_frame(const struct kp_perfmap_ent *e, uint64_t pc, Dwarf_Frame **f);

/*
 * kp_perfmap_unwind_bytes - @len bytes at address @addr of @e's .eh_frame and .eh_frame_hdr,
 * where they are as kp_perfmap_unwind says, or NULL when they are not all there.
 * kp_perfmap_unwind_hdr - the address of @e's .eh_frame_hdr, and of its search table, when it
 * has usable unwinding info.
 */
const uint8_t *kp_perfmap_unwind_bytes(const struct kp_perfmap_ent *e, uint64_t addr, size_t len);
bool kp_perfmap_unwind_hdr(const struct kp_perfmap_ent *e, uint64_t *hdr, uint64_t *table);

void kp_perfmap_release(struct kp_perfmap *m);

#endif /* KP_PERFMAP_H */

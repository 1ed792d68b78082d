/* SPDX-License-Identifier: MIT */
/*
 * dso.h - the binaries a recording maps (executables, shared libraries, the vDSO) and their
 * symbols, through libdw.
 *
 * A DSO is identified by its path and, when the recording has one, its build-id. It is opened
 * lazily, on the first lookup, and its Dwfl is kept and reused for every later lookup, from any
 * process that maps it. Lookups take a file offset (sample address - map start + map pgoff),
 * which the DSO turns into an ELF address through its PT_LOAD headers, and return the chain of
 * frames at that address: inlined functions first, the function that contains them last
 * (pprof's Location.line order). Results are cached per (DSO, offset).
 */
#ifndef KP_DSO_H
#define KP_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symtab.h"

struct kp_dsos;
struct kp_dso;

/* Why a DSO gives no symbols; KP_DSO_OK when it does (possibly not for every address). */
enum kp_dso_status {
	KP_DSO_UNLOADED,	/* not looked at yet */
	KP_DSO_OK,
	KP_DSO_MISSING,		/* no file at the path (deleted, other machine, anon map) */
	KP_DSO_BUILDID_MISMATCH,/* the file on disk is not the one that was recorded */
	KP_DSO_NOT_ELF,		/* unreadable or not an ELF file */
	KP_DSO_NO_SYMBOLS,	/* an ELF file with neither .symtab, .dynsym nor DWARF: usable for
				 * its unwind tables, its frames are named after their FDEs
				 * (sub_HEX@DSO), else DSO+0xOFFSET */
	KP_DSO_VDSO_OTHER_KERNEL, /* [vdso] recorded under another kernel than the running one */
	KP_DSO_NOT_FILE,	/* a FIFO, a device, a directory or a socket at the path: refused
				 * unopened (kp_open_file()) */
};

/* kp_dso_status_str - a short reason for the stats ("build-id mismatch"); static string. */
const char *kp_dso_status_str(enum kp_dso_status s);

/* kp_dsos_new - an empty table; @opts is copied. Never fails (aborts on OOM). */
struct kp_dsos *kp_dsos_new(const struct kp_dso_opts *opts);
void kp_dsos_free(struct kp_dsos *t);

/*
 * kp_dsos_find - the DSO for @path with @build_id (NULL/0 when the recording has none),
 * created on first use. Borrowed: valid until kp_dsos_free(). "[vdso]" names the vDSO.
 */
struct kp_dso *kp_dsos_find(struct kp_dsos *t, const char *path, const uint8_t *build_id,
			    size_t build_id_len);

/*
 * kp_dso_symbolize - the frames at @file_off, innermost first, at most @max (>= 1) of them;
 * never more than KP_DSO_MAX_FRAMES, the function holding them always among them.
 * Returns the number of frames (>= 1) when a symbol covers the offset, or else an FDE of the
 * binary's unwind tables (then 1 frame, marked .fde, named sub_HEX@DSO after the FDE's start,
 * HEX its ELF address, DSO the short name); 0 when neither does or the DSO cannot be used (see
 * kp_dso_status()). For a return address, pass the offset of the call (return address - 1):
 * this function does not adjust.
 */
int kp_dso_symbolize(struct kp_dso *d, uint64_t file_off, struct kp_sym_frame *frames, int max);

/*
 * kp_dso_build_id - the DSO's build-id into *@bits (borrowed, as long as the DSO), its length
 * the result: the recorded one, else the file's once it was read (0 when neither is known).
 */
size_t kp_dso_build_id(struct kp_dso *d, const uint8_t **bits);

/*
 * kp_dso_file_build_id - the build-id of the file on disk (read when the DSO was loaded, also
 * when it differs from the recorded one), its length the result: 0 when it has none.
 */
size_t kp_dso_file_build_id(struct kp_dso *d, const uint8_t **bits);

/**
 * struct kp_dso_func - the ELF symbol holding an address, as annotate reads it, or where none
 * does, the range of the FDE that does (kp_dso_symbolize()'s sub_HEX@DSO)
 * @name:  the function, named as kp_dso_symbolize() names it (borrowed from the table)
 * @vaddr: its first byte, an ELF address
 * @size:  its bytes (a sizeless symbol runs to the next one, as perf has it)
 * @off:   the file offset of its first byte
 */
struct kp_dso_func {
	const char *name;
	uint64_t vaddr, size, off;
};

/* kp_dso_func_at - the symbol (else the FDE) covering @file_off into *@f; false when none does
 * or the DSO cannot be used. */
bool kp_dso_func_at(struct kp_dso *d, uint64_t file_off, struct kp_dso_func *f);

/*
 * kp_dso_code - the @len bytes at @file_off of the DSO's file, only when all of them lie in the
 * file bytes of one executable PT_LOAD (a hostile size reads nothing); *@machine is the ELF's
 * e_machine. Borrowed (the file's mapping): valid until kp_dsos_free(). NULL otherwise.
 */
const uint8_t *kp_dso_code(struct kp_dso *d, uint64_t file_off, uint64_t len, unsigned *machine);

/* kp_dso_status - loads the DSO if needed and tells whether it can be used. */
enum kp_dso_status kp_dso_status(struct kp_dso *d);

/*
 * kp_dso_open - a new read-only fd on the DSO's file (a copy of the vDSO for "[vdso]"), only
 * when kp_dso_status() is KP_DSO_OK or KP_DSO_NO_SYMBOLS (its unwind tables need no symbols):
 * so a binary rebuilt since the recording is never used.
 * Owned by the caller; -1 when there is none.
 */
int kp_dso_open(struct kp_dso *d);

/*
 * kp_dso_local_only - for the rest of this process, debug files are looked for on this machine
 * only: $DEBUGINFOD_URLS is dropped (a lookup while recording must not wait for a server), and
 * libdw's debuginfod client, which libdw loads the first time a binary has no local debug file
 * (libcurl and its libraries: about 100 mappings), is loaded now. A recorder calls it before
 * sampling, after starting its command, whose environment keeps the variable.
 */
void kp_dso_local_only(void);

/*
 * kp_dso_debug_frame - the CFI at ELF address @vaddr from the binary's DWARF: its own
 * .debug_frame or a separate debug file's, found as for symbols (.gnu_debuglink, build-id),
 * read once per binary however many processes map it. For code that .eh_frame does not cover.
 * Returns 0 with *@frame (libdw's Dwarf_Frame, free() it), or -1 when there is none.
 */
struct Dwarf_Frame_s;
int kp_dso_debug_frame(struct kp_dso *d, uint64_t vaddr, struct Dwarf_Frame_s **frame);

/* kp_dso_entry - the file offset of the ELF entry point into *@off; false when the DSO cannot
 * be used or its entry is in no PT_LOAD (a shared library's is usually 0). */
bool kp_dso_entry(struct kp_dso *d, uint64_t *off);

/* Why a DSO's DWARF was read (KP_DWARF_NONE: it was not). */
enum kp_dso_dwarf {
	KP_DWARF_NONE,
	KP_DWARF_OWN,		/* the binary's own sections */
	KP_DWARF_SRCLINE,	/* a debug file's, for source lines (--srcline) */
	KP_DWARF_UNNAMED,	/* a debug file's, for an address no symbol table names */
	KP_DWARF_INLINE,	/* a debug file's, for inline frames (--inline) */
};

/*
 * kp_dso_stripped - whether the file the DSO was read from (loaded first) has no .symtab of
 * its own: its names are then .dynsym's, its PLT entries' and a separate debug file's, if one
 * was found (kp_dso_debug_file()). False when no file was read (embedded symbols alone).
 */
bool kp_dso_stripped(struct kp_dso *d);

/*
 * kp_dso_debug_file - the separate debug file libdw found for the DSO (for its symbols or its
 * DWARF), or NULL when none was opened; why its DWARF (or the binary's own) was read into
 * *@dwarf. Borrowed: valid until kp_dsos_free().
 */
const char *kp_dso_debug_file(struct kp_dso *d, enum kp_dso_dwarf *dwarf);

/*
 * kp_dsos_embed - take in the embedded symbols of a KP_REC_SYMBOLS record (validated by the
 * reader; copied). A DSO loaded afterwards whose file is missing, is not the recorded one or
 * names nothing uses the embedded symbols of its build-id (else of its path) instead: its
 * lookups give what the record stores, under this table's options.
 */
struct kp_rec_header;
void kp_dsos_embed(struct kp_dsos *t, const struct kp_rec_header *rec);

/* Where a DSO's names come from. */
enum kp_dso_source {
	KP_DSO_SRC_FILE,	/* the file at the recorded path (the usual case) */
	KP_DSO_SRC_EMBEDDED,	/* the recording's embedded symbols (kprof archive) */
	KP_DSO_SRC_DEBUGINFOD,	/* the file debuginfod gave for the recorded build-id */
	KP_DSO_SRC_NAMESPACE,	/* the file its process saw in its own mount namespace
				 * (kp_dsos_alts(): while recording, for --embed-symbols) */
	KP_DSO_SRC_EMBEDDED_NS,	/* embedded symbols that were read that way */
};

/**
 * struct kp_dso_alt - where the binary a process really mapped can be read, when its recorded
 * path names another file or none here (a process in another mount namespace)
 * @path:  the recorded path
 * @build_id, @build_id_len: the recorded build-id (0 bytes: any file at @path)
 * @file:  a path that reaches the file ("/proc/self/fd/N" of a file held open)
 * @fd:    the owner's, if it holds the file open
 */
struct kp_dso_alt {
	const char *path;
	uint8_t build_id[20];
	size_t build_id_len;
	const char *file;
	int fd;
};

/* kp_dsos_alts - DSOs loaded from now on read the @alts (borrowed) of their path and build-id
 * before the recorded path. */
void kp_dsos_alts(struct kp_dsos *t, const struct kp_dso_alt *alts, size_t nr);

/*
 * kp_dso_source - what names the DSO (it is loaded first), and into *@file_status the status
 * of the file at its recorded path: why it was not used, when another source names it.
 */
enum kp_dso_source kp_dso_source(struct kp_dso *d, enum kp_dso_status *file_status);

/*
 * kp_dso_each_hit - for each file offset looked up so far that a symbol or an FDE named (or,
 * for embedded symbols, that they hold), its frames as kp_dso_symbolize() gave them, and
 * whether their inline frames came from a separate debug file's DWARF: what `kprof archive`
 * stores.
 */
typedef void kp_dso_hit_fn(void *ctx, uint64_t off, const struct kp_sym_frame *fr, int n,
			   bool debug_dwarf);
void kp_dso_each_hit(struct kp_dso *d, kp_dso_hit_fn *fn, void *ctx);

/* kp_dso_path / kp_dso_short_name - the recorded path, and its last component. */
const char *kp_dso_path(const struct kp_dso *d);
const char *kp_dso_short_name(const struct kp_dso *d);

#endif /* KP_DSO_H */

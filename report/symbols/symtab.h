/* SPDX-License-Identifier: MIT */
/*
 * symtab.h - what the DSO table (dso.h) is made of below its DSOs, shared by dso.c, the
 * PLT's names (dso-plt.c), the DWARF's (dso-dwarf.c) and a recording's embedded symbols
 * (dso-embed.c): the options that say how symbols are shown, the names and frames a table
 * hands out (struct kp_symnames: interned strings, demangled once, and the frames of the
 * addresses looked up), and the function symbols of one binary (struct kp_symtab: added,
 * sorted into one name per address, looked up by address).
 */
#ifndef KP_SYMTAB_H
#define KP_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"
#include "report/base/strtab.h"

struct kp_debuginfod;

/* How a DSO table finds and shows symbols (kp_dsos_new()), and how a session reads the
 * recording whose table it is (kp_session_open()). */
struct kp_dso_opts {
	bool inline_frames;	/* expand inlined functions (default true; --no-inline) */
	bool inline_self;	/* a sample's own address gives its inline frames to its stack
				 * too, the innermost taking its self (--inline-self); by default
				 * the stack ends at the function holding the code, which perf
				 * names, and only return addresses are expanded (the resolver
				 * reads it: resolve.h) */
	bool srcline;		/* fill file:line (--srcline); off saves the line-table lookups */
	bool demangle;		/* C++ and Rust (legacy and v0) names demangled (--no-demangle) */
	const char *kernel_release; /* of the recording: the live vDSO is used only if it matches */
	bool inline_debug;	/* inline frames also where only a separate debug file's DWARF
				 * has them (--inline): libdw inflates that DWARF whole, tens of
				 * ms for libc; by default a debug file gives its .symtab's names */
	bool any_owner;		/* perf maps and jitdumps of any owner are read (report -f,
				 * as perf's); by default only the user's own or root's */
	struct kp_debuginfod *debuginfod; /* the client that fetches binaries and debug files
				 * missing here (borrowed from the command that made it); NULL:
				 * none is fetched */
	unsigned jobs;		/* threads that read the recording (report --jobs): 1, the
				 * replay's own; 2 or more, a second thread also reads, checks,
				 * decompresses and decodes the chunks ahead of the replay (a
				 * kprof file: perf.data is read by the replay); 0, the default:
				 * 2 when the process may run on 2 CPUs or more */
};

/**
 * struct kp_sym_frame - one frame at an address
 * @func:    function name, demangled if asked; NULL when no symbol covers the address
 * @sys:     the same as the binary spells it (mangled, pprof's system name)
 * @file:    source file (with opts.srcline and DWARF line info), else NULL
 * @line:    source line, 0 if unknown
 * @inlined: this frame was inlined into the next one in the array
 * @off:     the address's offset in the ELF symbol of the function holding the frames (the
 *           same in each frame of an address, as perf shows it), or in its FDE (@fde);
 *           UINT64_MAX without either
 * @fde:     no symbol names the function: the FDE of the binary's unwind tables that covers
 *           the address delimits it, and it is named after its start, sub_HEX@DSO
 *
 * Strings are owned by the kp_dsos table: valid until kp_dsos_free().
 */
struct kp_sym_frame {
	const char *func;
	const char *sys;
	const char *file;
	uint32_t line;
	bool inlined;
	bool fde;
	uint64_t off;
};

/* The most frames one address gives: the inlined calls around it, innermost first, then the
 * function holding them; deeper nesting keeps the outer ones. */
#define KP_DSO_MAX_FRAMES 64

/* A table's frames per address are a range of struct kp_symnames.frames, packed into one
 * value (first frame index << 8 | flags | count) by kp_symnames_val(). */
#define KP_SYMVAL_N(v) ((size_t)((v) & 0x7f))	/* frames of a value */
#define KP_SYMVAL_DEBUG 0x80			/* an embedded chain's KP_SYMLOC_DEBUG_DWARF */

/*
 * struct kp_symnames - the names and frames a DSO table hands out: strings interned once
 * (valid until kp_symnames_release()), function names demangled once per raw name when
 * @demangle, and the frames of every address looked up, in one array.
 */
struct kp_symnames {
	bool demangle;
	struct kp_strtab strs;
	struct kp_hash demangled; /* id of a raw name -> id of its demangled form */
	struct kp_sym_frame *frames;
	size_t nr_frames, cap_frames;
};

void kp_symnames_init(struct kp_symnames *n, bool demangle);
void kp_symnames_release(struct kp_symnames *n);

/* kp_symnames_intern - @s in the table's strings (NULL stays NULL). */
const char *kp_symnames_intern(struct kp_symnames *n, const char *s);

/* kp_symnames_func - a function name as shown ("??" for NULL): demangled once per raw name
 * if asked. */
const char *kp_symnames_func(struct kp_symnames *n, const char *raw);

/* kp_symnames_add - room for @count more frames at the end of n->frames, the first returned
 * (nr_frames is moved past them). */
struct kp_sym_frame *kp_symnames_add(struct kp_symnames *n, size_t count);

/* A function symbol, in module addresses; aliases are folded into the name perf picks. */
struct kp_sym {
	uint64_t addr, size;
	const char *name; /* borrowed from the Dwfl (which lives as long as the DSO) or interned */
	bool typed;	  /* not STT_NOTYPE */
	unsigned char bind;
};

/* struct kp_symtab - the function symbols of one binary, sorted by address by
 * kp_symtab_sort(): libdwfl's own lookup scans every symbol. Zeroed is empty. */
struct kp_symtab {
	struct kp_sym *syms;
	size_t nr, cap;
};

/* kp_symtab_add - one more symbol (looked up only once kp_symtab_sort() has run). */
void kp_symtab_add(struct kp_symtab *st, struct kp_sym s);

/* kp_symtab_sort - sort the symbols, keep one name per address (perf's choice among aliases,
 * symrank.h) and size the sizeless: as perf does, one runs to the next symbol (the last one
 * covers 1 byte). */
void kp_symtab_sort(struct kp_symtab *st);

/* kp_symtab_find - the symbol covering @addr: the last one starting at or before it, or one
 * of the few before that when symbols nest; NULL if none. */
const struct kp_sym *kp_symtab_find(const struct kp_symtab *st, uint64_t addr);

/*
 * kp_symtab_in_padding - whether @addr lies in the padding between two symbols: past one's
 * end, less than KP_SYMTAB_PADDING_MAX bytes before the next. A return address just past a
 * call that does not return lands there.
 */
#define KP_SYMTAB_PADDING_MAX 64 /* the widest alignment between functions: glibc's string
				  * functions */
bool kp_symtab_in_padding(const struct kp_symtab *st, uint64_t addr);

/* kp_symtab_clear - no symbols, the memory kept; kp_symtab_release - the memory freed. */
void kp_symtab_clear(struct kp_symtab *st);
void kp_symtab_release(struct kp_symtab *st);

/* kp_bid_trim - a build-id's length without perf-style zero padding. */
size_t kp_bid_trim(const uint8_t *bid, size_t len);

/*
 * kp_demangle - demangle a C++ (Itanium) or Rust (legacy or v0) symbol; returns NULL when
 * @name is not mangled. The result is owned by the caller (free()).
 */
char *kp_demangle(const char *name);

#endif /* KP_SYMTAB_H */

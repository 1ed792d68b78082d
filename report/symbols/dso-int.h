/* SPDX-License-Identifier: MIT */
/*
 * dso-int.h - the DSO table's insides, shared by dso.c (binaries through libdw) and
 * dso-embed.c (a recording's embedded symbols). Nothing outside those two includes it.
 */
#ifndef KP_DSO_INT_H
#define KP_DSO_INT_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/rec.h"
#include "dso.h"
#include "report/base/hash.h"
#include "report/base/strtab.h"

/* Frames kept per address; a cache value packs (first frame index << 8 | count). */
#define MAX_CHAIN KP_DSO_MAX_FRAMES
_Static_assert(KP_DSO_MAX_FRAMES == KP_SYM_MAX_FRAMES, "a SYMBOLS record holds what a lookup gives");
#define VAL_N(v) ((size_t)((v) & 0x7f))	/* frames of a cache value */
#define VAL_DEBUG 0x80			/* an embedded chain's KP_SYMLOC_DEBUG_DWARF */

struct load {
	uint64_t off, filesz, vaddr;
	bool exec;
};

/* A function symbol, in module addresses; aliases are folded into the name perf picks. */
struct sym {
	uint64_t addr, size;
	const char *name; /* borrowed from the Dwfl (which lives as long as the DSO) or interned */
	bool typed;	  /* not STT_NOTYPE */
	unsigned char bind;
};

/* A function of embedded symbols: its file offset, size, ELF address and (raw) name. */
struct emb_func {
	uint64_t off, size, vaddr;
	const char *name;
};

/* The embedded symbols of one binary (SYMBOLS records), keyed by build-id, else by path. */
struct emb {
	const char *path;		/* interned */
	uint8_t bid[20];
	size_t bid_len;			/* trailing zero bytes dropped */
	struct kp_hash locs;		/* file offset -> cache value (frames in t->frames) */
	struct emb_func *funcs;		/* sorted by offset once a lookup needs it */
	size_t nr_funcs, cap_funcs;
	bool sorted;
	bool ns;			/* read in the mount namespace of the process that mapped
					 * it (KP_SYMBOLS_MISC_NS) */
	uint64_t file_size;		/* of the binary whose parts (KP_REC_FILE_PART) ... */
	struct emb_part {
		uint64_t off;
		uint8_t *bytes;		/* owned */
		uint32_t len;
	} *parts;			/* ... these are: its unwind tables */
	size_t nr_parts, cap_parts;
	int skel_fd;			/* the sparse copy made of them, once made; -1 before */
	char skel_path[32];		/* "/proc/self/fd/N" */
};

struct kp_dso {
	struct kp_dsos *t;
	const char *path, *short_name; /* interned */
	enum kp_dso_status status;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias; /* module address = ELF vaddr + bias */
	uint64_t entry;	/* e_entry, an ELF vaddr */
	unsigned machine; /* e_machine */
	struct load *loads;
	size_t nr_loads, cap_loads;
	struct sym *syms; /* sorted by addr: libdwfl's own lookup scans every symbol */
	size_t nr_syms, cap_syms;
	struct kp_hash cache; /* file_off -> packed frame range */
	bool own_dwarf;	/* the binary carries its DWARF (else only a debug file can have it) */
	bool own_symtab; /* the binary has its .symtab (was not stripped) */
	enum kp_dso_dwarf dwarf; /* why the DWARF was read, when it was */
	uint8_t file_build_id[20]; /* the file's, read when it is checked */
	size_t file_build_id_len;
	struct emb *emb;	/* the embedded symbols it uses, when its file gives none */
	bool skeleton;		/* its file is their sparse copy: headers and unwind tables,
				 * no code */
	const char *fetched;	/* the file read instead of the recorded path (interned):
				 * debuginfod's, in its cache, or the process's own (alts) */
	enum kp_dso_source source;
	enum kp_dso_status file_status; /* named from elsewhere: why the file could not be */
	size_t build_id_len;
	uint8_t build_id[]; /* as recorded */
};

struct kp_dsos {
	struct kp_dso_opts opts;
	char *release; /* owned copy of opts.kernel_release */
	struct kp_dso **dsos;
	size_t nr_dsos, cap_dsos;
	struct kp_hash by_key; /* hash(path, build-id), probed linearly -> index in dsos */
	struct kp_strtab strs; /* names, files and paths handed out */
	struct kp_hash demangled; /* id of a raw name -> id of its demangled form */
	struct kp_sym_frame *frames;
	size_t nr_frames, cap_frames;
	struct emb *embs;
	size_t nr_embs, cap_embs;
	const struct kp_dso_alt *alts;	/* borrowed */
	size_t nr_alts;
};

/* kp_dsos_intern - @s in the table's strings (NULL stays NULL); valid until kp_dsos_free(). */
const char *kp_dsos_intern(struct kp_dsos *t, const char *s);

/* kp_dsos_intern_func - a function name as shown: demangled once per raw name if asked. */
const char *kp_dsos_intern_func(struct kp_dsos *t, const char *raw);

/* kp_dso_sym_add - one more function symbol of @d (sorted by the caller once all are in). */
void kp_dso_sym_add(struct kp_dso *d, struct sym s);

/* kp_dso_plt_syms - add a symbol per PLT entry of @d's x86-64 binary (dso-plt.c). */
void kp_dso_plt_syms(struct kp_dso *d);

/* kp_bid_trim - a build-id's length without perf-style zero padding. */
size_t kp_bid_trim(const uint8_t *bid, size_t len);

/* kp_emb_use - a DSO whose file gives no symbols takes the embedded ones @e: its status
 * becomes KP_DSO_OK. */
void kp_emb_use(struct kp_dso *d, struct emb *e);

/* kp_emb_func_at - the embedded function holding file offset @off, NULL if none. */
const struct emb_func *kp_emb_func_at(struct emb *e, uint64_t off);

/* kp_emb_skeleton - a sparse copy of the binary made of its embedded parts (its headers and
 * unwind tables), as a path to read (owned by @e), or NULL when it has none or it fails. */
const char *kp_emb_skeleton(struct emb *e);

/* kp_emb_find - the embedded symbols of @d's build-id (else of its path), NULL if none. */
struct emb *kp_emb_find(struct kp_dso *d);

/* kp_emb_release - free what the embedded symbols of one binary hold. */
void kp_emb_release(struct emb *e);

#endif /* KP_DSO_INT_H */

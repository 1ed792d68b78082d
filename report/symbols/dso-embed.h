/* SPDX-License-Identifier: MIT */
/*
 * dso-embed.h - a recording's embedded symbols (KP_REC_SYMBOLS, KP_REC_FILE_PART: kprof
 * archive), per binary (by build-id, else path), taken in under a DSO table's options: a DSO
 * whose file gives no symbols uses its binary's (dso.c).
 */
#ifndef KP_DSO_EMBED_H
#define KP_DSO_EMBED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/base/hash.h"
#include "symtab.h"

/* A function of embedded symbols: its file offset, size, ELF address and (raw) name. */
struct kp_emb_func {
	uint64_t off, size, vaddr;
	const char *name;
};

/* The embedded symbols of one binary. */
struct kp_emb {
	const char *path;		/* interned */
	uint8_t bid[20];
	size_t bid_len;			/* trailing zero bytes dropped */
	struct kp_hash locs;		/* file offset -> kp_symnames value (its frames) */
	struct kp_emb_func *funcs;	/* sorted by offset once a lookup needs it */
	size_t nr_funcs, cap_funcs;
	bool sorted;
	bool ns;			/* read in the mount namespace of the process that mapped
					 * it (KP_SYMBOLS_MISC_NS) */
	uint64_t file_size;		/* of the binary whose parts (KP_REC_FILE_PART) ... */
	struct kp_emb_part {
		uint64_t off;
		uint8_t *bytes;		/* owned */
		uint32_t len;
	} *parts;			/* ... these are: its unwind tables */
	size_t nr_parts, cap_parts;
	int skel_fd;			/* the sparse copy made of them, once made; -1 before */
	char skel_path[32];		/* "/proc/self/fd/N" */
};

/* The embedded symbols of a recording's binaries. Zeroed is empty. */
struct kp_embs {
	struct kp_emb *v;
	size_t nr, cap;
};

/*
 * kp_embs_add - take in a KP_REC_SYMBOLS or KP_REC_FILE_PART record (validated by the reader;
 * copied): its frames are shown as a lookup under @o would give them, in @names.
 */
struct kp_rec_header;
void kp_embs_add(struct kp_embs *es, struct kp_symnames *names, const struct kp_dso_opts *o,
		 const struct kp_rec_header *rec);

/* kp_embs_find - the embedded symbols of build-id @bid (@len bytes, trimmed), else when @len
 * is 0 of @path; NULL if none. */
struct kp_emb *kp_embs_find(struct kp_embs *es, const char *path, const uint8_t *bid,
			    size_t len);

/* kp_embs_release - free what the embedded symbols hold. */
void kp_embs_release(struct kp_embs *es);

/* kp_emb_func_at - the embedded function holding file offset @off, NULL if none. */
const struct kp_emb_func *kp_emb_func_at(struct kp_emb *e, uint64_t off);

/* kp_emb_skeleton - a sparse copy of the binary made of its embedded parts (its headers and
 * unwind tables), as a path to read (owned by @e), or NULL when it has none or it fails. */
const char *kp_emb_skeleton(struct kp_emb *e);

#endif /* KP_DSO_EMBED_H */

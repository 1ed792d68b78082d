/* SPDX-License-Identifier: MIT */
/*
 * disasm-lib.h - capstone, loaded on first use. Only annotate disassembles, and capstone's
 * 80,000 relocations cost every other command about a millisecond at start-up when it is
 * linked, so it is opened with dlopen(3) by its soname (from the header's API version) the
 * first time annotate needs it, and stays open for the process (the dynamic linker's, not
 * kprof's: each load fills the caller's table).
 */
#ifndef KP_DISASM_LIB_H
#define KP_DISASM_LIB_H

#include <capstone/capstone.h>
#include <stddef.h>

/* The capstone functions annotate calls, as capstone.h declares them. */
struct kp_cs {
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *handle);
	cs_err (*close)(csh *handle);
	cs_err (*option)(csh handle, cs_opt_type type, size_t value);
	cs_insn *(*malloc)(csh handle);
	void (*free)(cs_insn *insn, size_t count);
	bool (*disasm_iter)(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
			    cs_insn *insn);
	bool (*insn_group)(csh handle, const cs_insn *insn, unsigned int group_id);
};

/*
 * kp_cs_load - capstone's functions into @cs (the caller's): 0, or -1 when the library or one
 * of its functions cannot be found, with @why (of @size bytes) saying which and dlerror()'s
 * reason.
 */
int kp_cs_load(struct kp_cs *cs, char *why, size_t size);

#endif /* KP_DISASM_LIB_H */

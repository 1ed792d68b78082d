/* SPDX-License-Identifier: MIT */
/*
 * sdt.h - a binary's statically defined probes (USDT): the NT_STAPSDT notes of its
 * .note.stapsdt section, as <sys/sdt.h> writes them (python3, libc, postgres, node ship them).
 *
 * Each note holds the probe's address, the link-time address of .stapsdt.base (the probe's
 * address moves with that section where the binary was prelinked), its semaphore's address
 * (0: none; a counter the probed code tests before it fires, which the kernel raises while a
 * uprobe with that ref_ctr_offset is on), then the provider's name, the probe's name and its
 * arguments, each "[-]SIZE@OPERAND" in the assembler's syntax ("-4@%eax", "8@-16(%rbp)",
 * "8@$42").
 */
#ifndef KP_SDT_H
#define KP_SDT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* One probe: owned strings, addresses as the file's (after .stapsdt.base's correction). */
struct kp_sdt_probe {
	char *provider, *name, *args;
	uint64_t pc, semaphore;
};

/*
 * kp_sdt_read - the SDT probes of @elf into *@probes (array of *@nr, the caller's:
 * kp_sdt_free()), in the notes' order. A binary without them gives none. Returns 0, or
 * -EINVAL when a note is malformed (cut short, no NUL-terminated names).
 */
int kp_sdt_read(Elf *elf, struct kp_sdt_probe **probes, size_t *nr);
void kp_sdt_free(struct kp_sdt_probe *probes, size_t nr);

/* kp_sdt_nr_args - the number of arguments of @p. */
size_t kp_sdt_nr_args(const struct kp_sdt_probe *p);

/*
 * kp_sdt_arg - argument @i (from 0) of @p as a tracefs fetch argument in *@fetch (owned by the
 * caller: "%ax", "+16(%bp)", "\42") and the kernel's type of its size in *@type (static:
 * "s32", "u64"). Returns 0, or -EINVAL with why in @why (@len bytes): past the last argument,
 * an operand kprof cannot fetch (a register pair, a RIP-relative symbol).
 */
int kp_sdt_arg(const struct kp_sdt_probe *p, size_t i, char **fetch, const char **type,
	       char *why, size_t len);

#endif /* KP_SDT_H */

/* SPDX-License-Identifier: MIT */
/*
 * probe-elf.h - a probed binary's ELF: the file opened through libelf, its functions by name
 * (.symtab, else .dynsym), and an address turned into the file offset that uprobes take (the
 * PT_LOAD segment that holds it: offset = vaddr - p_vaddr + p_offset). What the uprobes of -e
 * (probe.c), their DWARF (probe-dwarf.c) and a binary's SDT notes (sdt.c) share.
 *
 * Each function prints what is wrong (diag.h) naming @spec, the event it is for.
 */
#ifndef KP_PROBE_ELF_H
#define KP_PROBE_ELF_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

/* An opened binary: its descriptor and libelf's handle (both owned). */
struct kp_probe_elf {
	int fd;
	Elf *elf;
};

/*
 * kp_probe_elf_open - open the executable or shared library @path for event @spec (NULL: for
 * no event, as `kprof list --sdt` opens one). Returns 0,
 * or after printing why: -EINVAL (no such file, not a regular file, not ELF, neither an
 * executable nor a shared library), -errno (it cannot be read). Close it with
 * kp_probe_elf_close() either way.
 */
int kp_probe_elf_open(const char *spec, const char *path, struct kp_probe_elf *ef);
void kp_probe_elf_close(struct kp_probe_elf *ef);

/*
 * kp_probe_elf_symbol - the address of function @symbol (+@off) of @ef in *@vaddr, *@size its
 * size (0: unknown; may be NULL), or 0xADDR+@off. Returns 0, or -EINVAL after printing why (no
 * such function, with the closest names; an IFUNC; @off past its end).
 */
int kp_probe_elf_symbol(const struct kp_probe_elf *ef, const char *spec, const char *path,
			const char *symbol, uint64_t off, uint64_t *vaddr, uint64_t *size);

/*
 * kp_probe_elf_offset - the file offset of address @vaddr of @ef. Returns 0, or -EINVAL after
 * printing why: in no loadable segment, or (with @code) not in an executable one.
 */
int kp_probe_elf_offset(const struct kp_probe_elf *ef, const char *spec, const char *path,
			uint64_t vaddr, bool code, uint64_t *off);

#endif /* KP_PROBE_ELF_H */

/* SPDX-License-Identifier: MIT */
/*
 * debuginfo.h - where a binary's separate debug info is found, and what reading it costs.
 *
 * Debian puts debug info in separate files (/usr/lib/debug/.build-id/xx/yyyy.debug, from
 * libc6-dbg and the -dbgsym packages) whose .debug_* sections are zlib-compressed, and libdw
 * inflates every one of them the first time a module's DWARF is asked for: for libc, about
 * 4 MB read and 15 MB inflated. Their .symtab is not compressed. So the report reads a debug
 * file's symbols when the binary's own tables lack them, and its DWARF only where a frame needs
 * what only DWARF has (see kp_dso_opts); this module finds the files and measures them.
 */
#ifndef KP_DEBUGINFO_H
#define KP_DEBUGINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

/*
 * kp_debuginfo_find - libdw's find_debuginfo callback (Dwfl_Callbacks): the standard search
 * (by build-id under /usr/lib/debug, then by .gnu_debuglink beside the binary, in its .debug/
 * directory and under /usr/lib/debug), then debuginfod (debuginfod.h) when $DEBUGINFOD_URLS names a
 * server, through the struct kp_debuginfod that the module's user data (*@userdata) points
 * to (NULL: none is asked). Returns an fd on the debug file (owned by libdw) and its name in
 * *@debuginfo_file_name (malloc'ed, libdw frees it), or -1 when there is none.
 */
int kp_debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name);

/* kp_debuginfo_has_dwarf - whether @elf carries DWARF of its own (a .debug_info with bytes). */
bool kp_debuginfo_has_dwarf(Elf *elf);

/* kp_debuginfo_has_symtab - whether @elf has a .symtab of its own (it was not stripped). */
bool kp_debuginfo_has_symtab(Elf *elf);

/*
 * kp_debuginfo_inflated - the bytes that reading the DWARF of the ELF file at @path inflates:
 * the uncompressed size of its compressed .debug_* sections (0 when none, or unreadable).
 */
uint64_t kp_debuginfo_inflated(const char *path);

#endif /* KP_DEBUGINFO_H */

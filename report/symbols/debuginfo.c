/* SPDX-License-Identifier: MIT */
#include "debuginfo.h"
#include "debuginfod.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/util.h"

/* The .gnu_debuglink CRC: zlib's crc32 over the whole file. */
static bool crc_matches(int fd, GElf_Word want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	return n == 0 && (GElf_Word)crc == want && lseek(fd, 0, SEEK_SET) == 0;
}

/* Whether @fd is the debug file of @mod: the same build-id, or without one the CRC. */
static bool debug_file_matches(Dwfl_Module *mod, int fd, GElf_Word crc)
{
	const unsigned char *want;
	const void *got;
	GElf_Addr vaddr;
	int want_len = dwfl_module_build_id(mod, &want, &vaddr);
	Elf *elf;
	ssize_t got_len;
	bool same;

	if (want_len <= 0)
		return crc_matches(fd, crc);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	got_len = elf ? dwelf_elf_gnu_build_id(elf, &got) : -1;
	same = got_len == want_len && !memcmp(got, want, (size_t)want_len);
	if (elf)
		elf_end(elf);
	return same;
}

/*
 * The .gnu_debuglink search of libdw's standard callback, which has no entry point without
 * debuginfod: @link beside the binary, in its .debug/ directory, and under /usr/lib/debug
 * at the binary's directory. A file is taken only when it matches (debug_file_matches()).
 */
static int debuglink_search(Dwfl_Module *mod, const char *file_name, const char *link,
			    GElf_Word crc, char **found)
{
	static const struct { const char *before, *after; } dirs[] = {
		{ "", "" }, { "", "/.debug" }, { "/usr/lib/debug", "" },
	};
	char real[PATH_MAX], path[PATH_MAX], *slash;
	struct stat self, st;

	if (strchr(link, '/') || !realpath(file_name, real) || stat(real, &self) ||
	    !(slash = strrchr(real, '/')))
		return -1;
	*slash = 0;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int fd;

		if (snprintf(path, sizeof(path), "%s%s%s/%s", dirs[i].before, real, dirs[i].after,
			     link) >= (int)sizeof(path) ||
		    (fd = kp_open_file(path, 0, 0, NULL)) < 0) /* a FIFO there: not waited on */
			continue;
		/* the binary itself, when its debuglink names its own file */
		if (!fstat(fd, &st) && (st.st_dev != self.st_dev || st.st_ino != self.st_ino) &&
		    debug_file_matches(mod, fd, crc)) {
			*found = kp_xstrdup(path);
			return fd;
		}
		close(fd);
	}
	return -1;
}

/*
 * The local search first: by build-id under /usr/lib/debug, then by .gnu_debuglink. Then, when
 * a server is set, debuginfod by build-id, through the client that the module's user data
 * names (kp_dso_opts.debuginfod, debuginfod.h): libdw's
 * own would be loaded at the first binary without a local debug file (libcurl, GnuTLS,
 * Kerberos: about 30 libraries, tens of ms of relocations) even with no server set, and would
 * ask a server that is down once per binary.
 */
int kp_debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int fd, len;

	/*
	 * The name an earlier call gave for this module, whose file libdw could not use (not ELF:
	 * garbage from a server): libdw asks again with it still there and would lose it, and it
	 * would open it itself if no other were given.
	 */
	free(*debuginfo_file_name);
	*debuginfo_file_name = NULL;
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					  debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd < 0 && debuglink_file && file_name)
		fd = debuglink_search(mod, file_name, debuglink_file, debuglink_crc,
				      debuginfo_file_name);
	if (fd < 0 && kp_debuginfod_enabled(*userdata) &&
	    (len = dwfl_module_build_id(mod, &bits, &vaddr)) > 0)
		fd = kp_debuginfod_find(*userdata, KP_DEBUGINFOD_DEBUGINFO, bits, (size_t)len,
					file_name ? file_name : modname, debuginfo_file_name);
	return fd;
}

/* The section named @name in @elf, or NULL. */
static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *s = gelf_getshdr(scn, sh) ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;

		if (s && !strcmp(s, name))
			return scn;
	}
	return NULL;
}

bool kp_debuginfo_has_dwarf(Elf *elf)
{
	GElf_Shdr sh;

	return elf && section(elf, ".debug_info", &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size;
}

bool kp_debuginfo_has_symtab(Elf *elf)
{
	GElf_Shdr sh;

	return elf && section(elf, ".symtab", &sh) && sh.sh_type == SHT_SYMTAB;
}

uint64_t kp_debuginfo_inflated(const char *path)
{
	int fd = kp_open_file(path, 0, 0, NULL);
	Elf *elf;
	size_t shstrndx;
	uint64_t sum = 0;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			GElf_Chdr ch;
			const char *s = gelf_getshdr(scn, &sh)
						? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;

			if (s && !strncmp(s, ".debug_", 7) && (sh.sh_flags & SHF_COMPRESSED) &&
			    gelf_getchdr(scn, &ch))
				sum += ch.ch_size;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return sum;
}
